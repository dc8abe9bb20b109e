"""Reading dumps in Python: dump files, dump trees and comparisons, with numpy.

    import acldump
    f = acldump.read_dump("dump/20250101120000/0/resnet_tiny/1/0/Conv.conv1bn1relu1.1.0.17...")
    f.op_name, f.outputs[0].array.shape

    tree = acldump.open_tree("dump")            # an index of a dump tree
    for folder in tree.folders:                  # one per model / model id / iteration / device
        print(folder.model, folder.iteration, [e.op_name for e in folder.files])

    result = acldump.compare("run_a", "run_b", atol=1e-3)   # what `dump compare --json` writes
    result["verdict"], result["first_divergence"]

This module reads files only: it needs numpy, not libacldump.so. Its results are those of the
`dump` tool (the tests check `compare` against `dump compare --json`): the same folders and
operators paired, the same verdicts, counts, indices and notes; metric values are computed in the
same order with the same float64 operations.
"""

import collections
import csv
import io
import math
import os
import re
import struct

try:
    import numpy as np
except ImportError:  # read_dump and compare need numpy; open_tree does not
    np = None

__all__ = [
    "DumpFile", "DumpTree", "DumpTensor", "Entry", "Folder", "compare", "open_tree", "read_dump",
]

# ---------------------------------------------------------------------------
# Data types of the dump format (OutputDataType) and their numpy forms.

DATA_TYPE_NAMES = [
    "DT_UNDEFINED", "DT_FLOAT", "DT_FLOAT16", "DT_INT8", "DT_UINT8", "DT_INT16", "DT_UINT16",
    "DT_INT32", "DT_INT64", "DT_UINT32", "DT_UINT64", "DT_BOOL", "DT_DOUBLE", "DT_STRING",
    "DT_DUAL_SUB_INT8", "DT_DUAL_SUB_UINT8", "DT_COMPLEX64", "DT_COMPLEX128", "DT_QINT8",
    "DT_QINT16", "DT_QINT32", "DT_QUINT8", "DT_QUINT16", "DT_RESOURCE", "DT_STRING_REF",
    "DT_DUAL", "DT_VARIANT", "DT_BF16", "DT_INT4", "DT_UINT1", "DT_INT2", "DT_UINT2",
    "DT_COMPLEX32", "DT_HIFLOAT8", "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN", "DT_FLOAT8_E8M0",
    "DT_FLOAT6_E3M2", "DT_FLOAT6_E2M3", "DT_FLOAT4_E2M1", "DT_FLOAT4_E1M2",
]

# Data type number -> (numpy dtype string, acldump dtype name or None when the tool has no
# tensor type for it). DT_BF16 arrays come back as float32 (numpy has no bfloat16).
_NUMPY_TYPES = {
    1: ("<f4", "float32"), 2: ("<f2", "float16"), 3: ("i1", "int8"), 4: ("u1", "uint8"),
    5: ("<i2", "int16"), 6: ("<u2", None), 7: ("<i4", "int32"), 8: ("<i8", "int64"),
    9: ("<u4", None), 10: ("<u8", None), 11: ("?", "bool"), 12: ("<f8", "float64"),
    16: ("<c8", None), 17: ("<c16", None), 27: ("<u2", "bfloat16"),
}
_ELEMENT_SIZE = {1: 4, 2: 2, 3: 1, 4: 1, 5: 2, 6: 2, 7: 4, 8: 8, 9: 4, 10: 8, 11: 1, 12: 8,
                 16: 8, 17: 16, 27: 2}

FORMAT_NAMES = {0: "NCHW", 1: "NHWC", 2: "ND", 3: "NC1HWC0", 4: "FRACTAL_Z", 16: "HWCN",
                27: "NDHWC", 29: "FRACTAL_NZ", 30: "NCDHW", 34: "CN", 35: "NC", 40: "RESERVED",
                41: "ALL", 42: "NULL", 47: "NCL", 255: "MAX"}

DUMP_FORMAT_VERSION = "2.0"


def data_type_name(number):
    """'DT_FLOAT' for 1; 'DT_UNDEFINED' for numbers the format does not define."""
    return DATA_TYPE_NAMES[number] if 0 <= number < len(DATA_TYPE_NAMES) else "DT_UNDEFINED"


class DumpFormatError(ValueError):
    """A file that is not a valid dump file (the message names the file and the reason)."""


# ---------------------------------------------------------------------------
# The protobuf wire format, just enough of it for toolkit.dumpdata.DumpData.

def _varint(data, pos):
    value, shift = 0, 0
    while True:
        if pos >= len(data) or shift > 63:
            raise DumpFormatError("truncated or overlong varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def _fields(data):
    """Yields (field number, wire type, value): an int for varints and fixed widths, bytes
    otherwise."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if pos + width > len(data):
                raise DumpFormatError("truncated fixed-width field")
            value = int.from_bytes(data[pos:pos + width], "little")
            pos += width
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise DumpFormatError("length-delimited field overruns its message")
            value = bytes(data[pos:pos + length])
            pos += length
        else:
            raise DumpFormatError("unsupported wire type %d" % wire)
        yield field, wire, value


def _int32(value):
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >= 1 << 63 else value


def _shape(data):
    dims = []
    for field, wire, value in _fields(data):
        if field != 1:
            continue
        if wire == 2:  # packed
            pos = 0
            while pos < len(value):
                dim, pos = _varint(value, pos)
                dims.append(dim)
        else:
            dims.append(value)
    return dims


DimRange = collections.namedtuple("DimRange", "start end")
OriginalOp = collections.namedtuple("OriginalOp", "name output_index data_type format")


class DumpTensor:
    """One input or output of a dump file: the header fields and the data.

    ``array`` is a numpy array of the tensor in its shape (float16 stays float16, bfloat16
    becomes float32; None for types numpy cannot hold), ``data`` the raw bytes."""

    def __init__(self, is_input):
        self.is_input = is_input
        self.data_type = 0
        self.format = 0
        self.shape = []
        self.original_shape = []
        self.original_op = None
        self.data = b""
        self.size = 0
        self.sub_format = 0
        self.address = 0
        self.offset = 0
        self.arg_index = 0
        self.input_type = 0
        self.dim_range = []
        self.array = None

    @property
    def data_type_name(self):
        return data_type_name(self.data_type)

    @property
    def format_name(self):
        return FORMAT_NAMES.get(self.format, "UNKNOWN(%d)" % self.format)

    def __repr__(self):
        return "DumpTensor(%s %s %s)" % ("input" if self.is_input else "output",
                                         self.data_type_name, self.shape)


def _tensor(data, is_input):
    t = DumpTensor(is_input)
    fields = ({1: "data_type", 2: "format", 3: "shape", 4: "data", 5: "size",
               6: "original_shape", 7: "sub_format", 8: "address", 9: "offset",
               10: "arg_index", 11: "input_type"} if is_input else
              {1: "data_type", 2: "format", 3: "shape", 4: "original_op", 5: "data", 6: "size",
               7: "original_shape", 8: "sub_format", 9: "address", 10: "dim_range",
               11: "offset", 12: "arg_index"})
    for field, _, value in _fields(data):
        name = fields.get(field)
        if name in ("shape", "original_shape"):
            setattr(t, name, _shape(value))
        elif name == "original_op":
            op = {1: "", 2: 0, 3: 0, 4: 0}
            for f, _, v in _fields(value):
                op[f] = v.decode("utf-8", "replace") if f == 1 else v
            t.original_op = OriginalOp(op[1], op[2], op[3], op[4])
        elif name == "dim_range":
            r = {1: 0, 2: 0}
            for f, _, v in _fields(value):
                r[f] = v
            t.dim_range.append(DimRange(r[1], r[2]))
        elif name == "sub_format":
            t.sub_format = _int32(value)
        elif name == "data":
            t.data = value
        elif name is not None:
            setattr(t, name, value)
    return t


def _blob(data, data_field, size_field):
    payload, size = b"", 0
    for field, _, value in _fields(data):
        if field == data_field:
            payload = value
        elif field == size_field:
            size = value
    return payload, size


class DumpFile:
    """A parsed dump file: the DumpData header's fields and the tensors.

    ``op_name``, ``op_type`` (the header's op_type attribute, else the file name's),
    ``version``, ``dump_time``, ``attrs`` (dict), ``original_names`` (the fused ops' names),
    ``inputs`` and ``outputs`` (DumpTensor, with ``.array``), ``buffers`` and ``workspaces``
    (bytes), ``legacy_format`` (data inside the header, versions before 2.0)."""

    def __init__(self, path):
        self.path = path
        self.version = ""
        self.dump_time = 0
        self.op_name = ""
        self.op_type = ""
        self.attrs = {}
        self.inputs = []
        self.outputs = []
        self.buffers = []
        self.workspaces = []
        self.dfx_message = ""
        self.legacy_format = False

    @property
    def original_names(self):
        text = self.attrs.get("original_names", "")
        return [n for n in text.split(",") if n]

    def __repr__(self):
        return "DumpFile(%r, %d inputs, %d outputs)" % (self.op_name, len(self.inputs),
                                                         len(self.outputs))


def _parse_header(header_bytes, path):
    f = DumpFile(path)
    for field, _, value in _fields(header_bytes):
        if field == 1:
            f.version = value.decode("utf-8", "replace")
        elif field == 2:
            f.dump_time = value
        elif field == 3:
            f.outputs.append(_tensor(value, False))
        elif field == 4:
            f.inputs.append(_tensor(value, True))
        elif field == 5:
            f.buffers.append(_blob(value, 2, 3))
        elif field == 6:
            f.op_name = value.decode("utf-8", "replace")
        elif field == 7:
            attr = {1: b"", 2: b""}
            for a, _, v in _fields(value):
                attr[a] = v
            f.attrs[attr[1].decode("utf-8", "replace")] = attr[2].decode("utf-8", "replace")
        elif field == 8:
            f.workspaces.append(_blob(value, 2, 3))
        elif field == 9:
            f.dfx_message = value.decode("utf-8", "replace")
    return f


def _check_size(what, t):
    element = _ELEMENT_SIZE.get(t.data_type)
    if element is None:
        return
    needed = element
    for d in t.shape:
        needed *= d
    if needed != t.size:
        raise DumpFormatError("%s: size %d but %s[%s] needs %d" % (
            what, t.size, data_type_name(t.data_type), ",".join(map(str, t.shape)), needed))


def _array_of(t):
    info = _NUMPY_TYPES.get(t.data_type)
    if np is None or info is None:
        return None
    descr, _ = info
    count = 1
    for d in t.shape:
        count *= d
    array = np.frombuffer(t.data, dtype=np.dtype(descr), count=count)
    if t.data_type == 27:  # bfloat16: the high half of a float32
        array = (array.astype(np.uint32) << 16).view(np.float32)
    return array.reshape(t.shape)


def _parse_dump(data, path, header_only=False):
    size = len(data)

    def bare_legacy():
        try:
            f = _parse_header(data, path)
        except DumpFormatError:
            return None
        if (not f.version or f.version == DUMP_FORMAT_VERSION
                or not re.fullmatch(r"[0-9.]+", f.version) or not (f.inputs or f.outputs)):
            return None
        return f

    if size >= 8:
        header_len = struct.unpack_from("<Q", data, 0)[0]
    if size < 8 or header_len > size - 8:
        f = bare_legacy()
        if f is None:
            raise DumpFormatError("%s: not a dump file (too short for its header length)" % path)
        f.legacy_format = True
    else:
        f = _parse_header(data[8:8 + header_len], path)
        payload = memoryview(data)[8 + header_len:]
        if f.version == DUMP_FORMAT_VERSION:
            for kind, tensors in (("input", f.inputs), ("output", f.outputs)):
                for i, t in enumerate(tensors):
                    _check_size("%s: %s %d" % (path, kind, i), t)
            total = sum(t.size for t in f.inputs + f.outputs) + sum(
                s for _, s in f.buffers) + sum(s for _, s in f.workspaces)
            if total != len(payload) and not (header_only and len(payload) == 0):
                raise DumpFormatError(
                    "%s: sizes do not add up: 8 + header_len %d + payload sizes %d = %d but the "
                    "file is %d bytes" % (path, header_len, total, 8 + header_len + total, size))
            if not header_only:
                pos = 0
                for t in f.inputs + f.outputs:
                    t.data = bytes(payload[pos:pos + t.size])
                    pos += t.size
                buffers = []
                for _, s in f.buffers:
                    buffers.append((bytes(payload[pos:pos + s]), s))
                    pos += s
                f.buffers = buffers
                spaces = []
                for _, s in f.workspaces:
                    spaces.append((bytes(payload[pos:pos + s]), s))
                    pos += s
                f.workspaces = spaces
        else:
            if len(payload):
                raise DumpFormatError('%s: header version "%s" is not "2.0" but %d bytes follow '
                                      "the header" % (path, f.version, len(payload)))
            f.legacy_format = True
    if f.legacy_format:
        for t in f.inputs + f.outputs:
            if t.size not in (0, len(t.data)):
                raise DumpFormatError("%s: size %d but its data holds %d bytes" % (
                    path, t.size, len(t.data)))
            t.size = len(t.data)
    if not header_only:
        for t in f.inputs + f.outputs:
            t.array = _array_of(t)
    f.buffers = [b for b, _ in f.buffers]
    f.workspaces = [w for w, _ in f.workspaces]
    return f


def _read_file(path, limit):
    if not os.path.isfile(path):
        packed = _read_packed(path, limit)
        if packed is not None:
            return packed
        raise FileNotFoundError("'%s' is not a regular file" % path)
    if os.path.getsize(path) > limit:
        raise DumpFormatError("'%s' is larger than %d bytes" % (path, limit))
    with open(path, "rb") as f:
        return f.read()


# ---------------------------------------------------------------------------
# The packed layout ("dump_layout": "packed"): a folder's records in dump.pack, each a
# 16-byte frame ("ADPK", u32 name length, u64 data length), the name its file would have in
# the SDK layout, then that file's bytes. A finished pack ends in an index frame ("ADPI", a
# name length of 0, the data length; "offset,size,name" per record, then the frame's own offset
# as u64); packs of earlier versions kept those lines in dump.pack.index instead. Stats rows go
# to statistic.csv, prefixed by the record's identity. A record reads as "{folder}/{name}", as
# if its file existed.

PACK_FILE, PACK_INDEX_FILE, MERGED_STATS_FILE = "dump.pack", "dump.pack.index", "statistic.csv"
_PACK_MAGIC, _PACK_INDEX_MAGIC = b"ADPK", b"ADPI"
_MAX_PACK_NAME = 4096
_MERGED_STATS_COLUMNS = ["Op Type", "Op Name", "Task ID", "Stream ID", "Timestamp"]
_pack_cache = {}


def _pack_from_index_frame(f, size):
    if size < 24:
        return None
    f.seek(size - 8)
    at = int.from_bytes(f.read(8), "little")
    if at > size - 24:
        return None
    f.seek(at)
    frame = f.read(16)
    if (frame[:4] != _PACK_INDEX_MAGIC or int.from_bytes(frame[4:8], "little") != 0
            or int.from_bytes(frame[8:16], "little") != size - at - 16):
        return None
    return _records_from_index(f.read(size - at - 24), at)


def _pack_from_index_file(pack_path, size):
    try:
        with open(os.path.join(os.path.dirname(pack_path), PACK_INDEX_FILE), "rb") as f:
            text = f.read()
    except OSError:
        return None
    return _records_from_index(text, size)


def _records_from_index(text, size):
    records, expected = [], 0
    for line in text.split(b"\n")[:-1] if text.endswith(b"\n") else [None]:
        if line is None:
            return None
        parts = line.split(b",", 2)
        if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
            return None
        offset, total, name = int(parts[0]), int(parts[1]), parts[2].decode("utf-8", "replace")
        head = 16 + len(parts[2])
        if offset != expected or not name or total < head or offset + total > size:
            return None
        records.append((name, offset + head, total - head))
        expected = offset + total
    return records if expected == size else None


def _scan_pack(f, size):
    records, offset, problem = [], 0, None
    while offset < size:
        f.seek(offset)
        frame = f.read(16)
        left = size - offset
        if len(frame) < 16:
            problem = "a truncated record frame"
        elif frame[:4] == _PACK_INDEX_MAGIC:
            data_bytes = int.from_bytes(frame[8:16], "little")
            if int.from_bytes(frame[4:8], "little") == 0 and data_bytes <= left - 16:
                offset += 16 + data_bytes
                continue
            problem = "a truncated or corrupt index frame"
        elif frame[:4] != _PACK_MAGIC:
            problem = 'no record frame ("ADPK")'
        else:
            name_bytes = int.from_bytes(frame[4:8], "little")
            data_bytes = int.from_bytes(frame[8:16], "little")
            if not 0 < name_bytes <= _MAX_PACK_NAME:
                problem = "a record name length out of range"
            elif name_bytes + data_bytes > left - 16:
                problem = "a truncated record (a crash while it was written)"
            else:
                name = f.read(name_bytes).decode("utf-8", "replace")
                records.append((name, offset + 16 + name_bytes, data_bytes))
                offset += 16 + name_bytes + data_bytes
                continue
        problem = "%d bytes at offset %d ignored: %s" % (left, offset, problem)
        break
    return records, problem


def why_not_a_file_name(name):
    """Why `name`, read from an untrusted dump tree (a pack record, a statistic.csv row), cannot
    stand for one file of its folder; None when it can. The same rule as the C++ readers: not
    empty, "." or "..", at most 4096 bytes, no "/", NUL or other control character."""
    if not name:
        return "it is empty"
    if name in (".", ".."):
        return "'.' and '..' name folders"
    if len(name.encode("utf-8", "surrogateescape")) > _MAX_PACK_NAME:
        return "it is longer than 4096 bytes"
    for c in name:
        if c == "/":
            return "it holds '/'"
        if c == "\0":
            return "it holds a NUL"
        if ord(c) < 0x20 or ord(c) == 0x7f:
            return "it holds a control character"
    return None


def read_pack(path):
    """The records of a dump.pack: ([(name, data offset, data bytes)], problem), from its index
    when that describes the pack exactly, else by scanning the frames (problem: what a truncated
    or corrupt tail made the scan skip, or None). Records whose names are not file names
    (why_not_a_file_name) are left out and said in the problem."""
    path = os.fspath(path)
    st = os.stat(path)
    key = (st.st_size, st.st_mtime_ns)
    cached = _pack_cache.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    with open(path, "rb") as f:
        records = _pack_from_index_frame(f, st.st_size)
        if records is None:
            records = _pack_from_index_file(path, st.st_size)
        result = (records, None) if records is not None else _scan_pack(f, st.st_size)
    kept, refused = [], []
    for record in result[0]:
        why = why_not_a_file_name(record[0])
        if why is None:
            kept.append(record)
        else:
            refused.append("the record at offset %d named %r is skipped: its name is not a file "
                           "name (%s)" % (record[1] - 16 - len(record[0].encode("utf-8",
                                                                                 "replace")),
                                          record[0], why))
    if refused:
        result = (kept, "; ".join(([result[1]] if result[1] else []) + refused))
    if len(_pack_cache) > 64:
        _pack_cache.clear()
    _pack_cache[path] = (key, result)
    return result


def split_merged_stats(path):
    """statistic.csv split back into the SDK layout's stats files: {name: csv text}, in the
    order their rows first appear (a torn last line is ignored)."""
    with open(path, "r", newline="") as f:
        text = f.read()
    if not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or rows[0][:5] != _MERGED_STATS_COLUMNS:
        raise DumpFormatError("'%s' does not start with the columns %s"
                              % (path, ",".join(_MERGED_STATS_COLUMNS)))
    header = ",".join(rows[0][5:]) + "\n"
    out = {}
    for row in rows[1:]:
        if not row:
            continue
        if len(row) != len(rows[0]):
            raise DumpFormatError("'%s': a row has %d fields, the header %d"
                                  % (path, len(row), len(rows[0])))
        name = ".".join(row[:5]) + ".csv"
        out.setdefault(name, header)
        out[name] += ",".join(row[5:]) + "\n"
    return out


def _read_packed(path, limit):
    folder, name = os.path.split(path)
    if name.endswith(".csv"):
        merged = os.path.join(folder, MERGED_STATS_FILE)
        if name == MERGED_STATS_FILE or not os.path.isfile(merged):
            return None
        text = split_merged_stats(merged).get(name)
        return None if text is None else text.encode()
    pack = os.path.join(folder, PACK_FILE)
    if not os.path.isfile(pack):
        return None
    for record, offset, size in read_pack(pack)[0]:
        if record == name:
            if size > limit:
                raise DumpFormatError("'%s' is larger than %d bytes" % (path, limit))
            with open(pack, "rb") as f:
                f.seek(offset)
                data = f.read(size)
            if len(data) != size:
                raise DumpFormatError("'%s': the pack ends inside the record" % path)
            return data
    return None


def read_dump(path):
    """Reads a dump file (the 2.0 layout, or a legacy one with the data inside the header) and
    returns a DumpFile with its header fields and a numpy array per input and output."""
    path = os.fspath(path)
    f = _parse_dump(_read_file(path, 16 << 30), path)
    name = _parse_file_name(os.path.basename(path))
    f.op_type = f.attrs.get("op_type", name.op_type if name else "")
    return f


# ---------------------------------------------------------------------------
# Dump trees: {time}/{device}/{model}/{model_id}/{iteration}/{op_type}.{op_name}.{task}.{stream}.
# {timestamp}, hashed names resolved through mapping.csv.

FileName = collections.namedtuple("FileName", "op_type op_name task_id stream_id timestamp")

TENSOR, STATS, OVERFLOW, OTHER = "tensor", "stats", "overflow", "other"
MODEL, SINGLE_OP, EXCEPTION, UNKNOWN = "model", "single_op", "exception", "unknown"
_LAYOUT_ORDER = {MODEL: 0, SINGLE_OP: 1, EXCEPTION: 2, UNKNOWN: 3}


def _digits(s):
    return bool(s) and all("0" <= c <= "9" for c in s)


def _number(s, bits):
    if not _digits(s):
        return None
    value = int(s)
    return value if value < (1 << bits) else None


def _is_time_folder(name):
    """YYYYMMDDHHMMSS, or with _N appended when another run had taken that second's folder."""
    return (len(name) >= 14 and _digits(name[:14]) and
            (len(name) == 14 or (len(name) > 15 and name[14] == "_" and _digits(name[15:]))))


def _time_order(name):
    """Creation order of time folders: the 14 digits, then the number after "_" (none first)."""
    return (name[:14], int(name[15:]) if len(name) > 15 else 0)


def _parse_file_name(name):
    parts = name.split(".")
    if len(parts) != 5 or not parts[0] or not parts[1]:
        return None
    task, stream, stamp = _number(parts[2], 32), _number(parts[3], 32), _number(parts[4], 64)
    if task is None or stream is None or stamp is None:
        return None
    return FileName(parts[0], parts[1], task, stream, stamp)


def _parse_exception_file_name(name):
    """exception_info.{stream}.{task}.{time} or {op_type}.{op_name}.{task}.{time} (time: 17
    digits), or the model dump form."""
    parsed = _parse_file_name(name)
    if parsed is not None:
        return parsed
    parts = name.split(".")
    if len(parts) != 4 or not parts[0] or len(parts[3]) != 17:
        return None
    task, stamp = _number(parts[2], 32), _number(parts[3], 64)
    if task is None or stamp is None:
        return None
    if parts[0] == "exception_info":
        stream = _number(parts[1], 32)
        return None if stream is None else FileName(parts[0], "", task, stream, stamp)
    return FileName(parts[0], parts[1], task, 0, stamp) if parts[1] else None


class Entry:
    """A file of a dump tree: where it is (path, relative, layout, time, device, model,
    model_id, iteration) and what it is (kind: tensor, stats, overflow, other; op_type,
    op_name, task_id, stream_id, timestamp from its name)."""

    __slots__ = ("path", "relative", "file_name", "bytes", "kind", "layout", "time", "device",
                 "model", "model_id", "iteration", "name", "packed")

    def __init__(self):
        self.packed = False  # a record of a packed folder (dump.pack or statistic.csv)
        self.kind, self.layout, self.time = OTHER, UNKNOWN, ""
        self.device, self.model, self.model_id, self.iteration = -1, "", -1, -1
        self.name = None

    op_type = property(lambda self: self.name.op_type if self.name else "")
    op_name = property(lambda self: self.name.op_name if self.name else "")
    task_id = property(lambda self: self.name.task_id if self.name else 0)
    stream_id = property(lambda self: self.name.stream_id if self.name else 0)
    timestamp = property(lambda self: self.name.timestamp if self.name else 0)

    def read(self):
        """The dump file (read_dump)."""
        return read_dump(self.path)

    def __repr__(self):
        return "Entry(%r, %s)" % (self.relative or self.path, self.kind)


class Folder:
    """The dump files of one folder of the layout (one model, model id, iteration and device;
    or a single-op / exception folder), in execution order."""

    def __init__(self, entry, directory):
        self.layout, self.directory = entry.layout, directory
        self.time, self.device, self.model = entry.time, entry.device, entry.model
        self.model_id, self.iteration = entry.model_id, entry.iteration
        self.files = []
        self.bytes = 0

    def describe(self):
        if self.layout == MODEL:
            return "%s (id %d) iteration %d, device %d, %s" % (
                self.model, self.model_id, self.iteration, self.device, self.time)
        if self.layout == SINGLE_OP:
            return "single-op dump, device %d, %s" % (self.device, self.time)
        if self.layout == EXCEPTION:
            return "exception dump, device %d" % self.device
        return "files in %s" % self.directory

    def __repr__(self):
        return "Folder(%s, %d files)" % (self.describe(), len(self.files))


def _read_mapping(directory):
    path = os.path.join(directory, "mapping.csv")
    mapping = {}
    if not os.path.isfile(path):
        return mapping
    try:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            rows = [r for r in csv.reader(f) if r]
    except (OSError, csv.Error):
        return mapping
    if not rows or len(rows[0]) != 2 or any(len(r) != 2 for r in rows):
        return mapping
    for hashed, name in rows:
        mapping[hashed] = name
    return mapping


def _path_parts(directory):
    # As std::filesystem iterates an absolute path: "/" then each name.
    return ["/"] + [p for p in directory.split("/") if p]


def _place(directory, e):
    parts = _path_parts(directory)
    n = len(parts)

    def at(back):
        return parts[n - back]

    if n >= 5 and _is_time_folder(at(5)):
        device, model_id, iteration = _number(at(4), 63), _number(at(2), 63), _number(at(1), 63)
        if None not in (device, model_id, iteration):
            e.layout, e.time, e.model = MODEL, at(5), at(3)
            e.device, e.model_id, e.iteration = device, model_id, iteration
            return
    if n >= 2 and _is_time_folder(at(2)) and _number(at(1), 63) is not None:
        e.layout, e.time, e.device = SINGLE_OP, at(2), _number(at(1), 63)
        return
    if n >= 3 and at(3) == "extra-info" and at(2) == "data-dump" and _number(at(1), 63) is not None:
        e.layout, e.device = EXCEPTION, _number(at(1), 63)


def _classify(e, mapping):
    name = e.file_name
    if name.endswith(".tmp") or name == "mapping.csv":
        return
    if name in mapping:
        name = mapping[name]
    elif _digits(name):
        return
    is_csv = name.endswith(".csv")
    if is_csv:
        name = name[:-4]
    exception = e.layout == EXCEPTION and not is_csv
    e.name = _parse_exception_file_name(name) if exception else _parse_file_name(name)
    if e.name is None:
        return
    if is_csv:
        e.kind = STATS
    elif name.startswith("Opdebug.Node_OpDebug."):
        e.kind = OVERFLOW
    else:
        e.kind = TENSOR


class DumpTree:
    """An index of a dump tree: ``entries`` (every file, by relative path) and ``folders``
    (the layout's folders in order: time, device, model, model id, iteration). Nothing but
    names and sizes is read."""

    def __init__(self, root, entries):
        self.root = root
        self.problems = []  # packed folders whose pack or statistic.csv was not read whole
        self.entries = sorted(entries, key=lambda e: e.relative)
        dumps = [e for e in self.entries if e.kind != OTHER]

        def key(e):
            return (_LAYOUT_ORDER[e.layout], e.time, e.device, e.model, e.model_id, e.iteration)

        dumps.sort(key=lambda e: (key(e), os.path.dirname(e.path)))
        self.folders = []
        for e in dumps:
            directory = os.path.dirname(e.path)
            last = self.folders[-1] if self.folders else None
            if last is None or key(e) != key(last.files[0]) or directory != last.directory:
                self.folders.append(Folder(e, directory))
            self.folders[-1].files.append(e)
            self.folders[-1].bytes += e.bytes
        for folder in self.folders:
            folder.files.sort(key=lambda e: (e.task_id, e.timestamp, e.file_name) if e.name
                              else (0, 0, e.file_name))

    def count(self, kind):
        return sum(1 for e in self.entries if e.kind == kind)

    def select(self, model=None, iteration=None, device=None):
        """The folders of one model / iteration / device (None: any)."""
        return [f for f in self.folders
                if (model is None or f.model == model)
                and (iteration is None or f.iteration == iteration)
                and (device is None or f.device == device)]

    def __iter__(self):
        return iter(self.folders)

    def __repr__(self):
        return "DumpTree(%r, %d files in %d folders)" % (self.root, len(self.entries),
                                                          len(self.folders))


def open_tree(path):
    """Scans a dump tree (any level of it, or one file) and returns its index (DumpTree)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError("'%s' does not exist" % path)
    absolute_root = os.path.normpath(os.path.abspath(path))
    files = []
    if os.path.isdir(path):
        for directory, dirs, names in os.walk(path):
            dirs.sort()
            for name in names:
                full = os.path.join(directory, name)
                if not os.path.isfile(full):
                    continue
                relative = os.path.relpath(full, path)
                files.append((os.path.join(absolute_root, relative), relative))
    else:
        files.append((absolute_root, ""))
    mappings = {}

    def mapping_of(directory):
        if directory not in mappings:
            mappings[directory] = _read_mapping(directory)
        return mappings[directory]

    entries, problems = [], []
    for absolute, relative in files:
        e = Entry()
        e.relative = relative
        e.path = os.path.join(path, relative) if relative else path
        e.file_name = os.path.basename(absolute)
        try:
            e.bytes = os.path.getsize(absolute)
        except OSError:
            e.bytes = 0
        directory = os.path.dirname(absolute)
        _place(directory, e)
        _classify(e, mapping_of(directory))
        if e.layout == MODEL and _digits(e.model):
            device = os.path.dirname(os.path.dirname(os.path.dirname(directory)))
            e.model = mapping_of(device).get(e.model, e.model)
        entries.append(e)
        if e.file_name in (PACK_FILE, MERGED_STATS_FILE):
            entries.extend(_packed_entries(e, absolute, mapping_of(directory), problems))
    tree = DumpTree(path, entries)
    tree.problems = problems
    return tree


def _packed_entries(container, absolute, mapping, problems):
    """The records of a pack or statistic.csv as entries (`mapping`: the folder's mapping.csv,
    for records packed under the hash of a name too long for a file)."""
    if container.file_name == PACK_FILE:
        records, problem = read_pack(absolute)
        if problem:
            problems.append("%s: %s" % (container.path, problem))
        records = [(name, size) for name, _, size in records]
    else:
        try:
            records = [(name, len(text)) for name, text in split_merged_stats(absolute).items()]
        except (DumpFormatError, OSError, csv.Error) as error:
            problems.append("%s: %s" % (container.path, error))
            return []
    out = []
    for name, size in records:
        why = why_not_a_file_name(name)
        if why is not None:
            problems.append("%s: the record %r is not a file name (%s): refused"
                            % (container.path, name, why))
            continue
        e = Entry()
        for slot in Entry.__slots__:
            setattr(e, slot, getattr(container, slot))
        e.file_name, e.bytes, e.packed = name, size, True
        e.path = os.path.join(os.path.dirname(container.path), name)
        e.relative = os.path.join(os.path.dirname(container.relative), name)
        e.kind, e.name = OTHER, None
        _classify(e, mapping)
        out.append(e)
    return out


# ---------------------------------------------------------------------------
# compare: what `dump compare --json` reports.

_EPSILON = 2.220446049250313e-16  # DBL_EPSILON
_FLT_EPSILON = 1.1920928955078125e-07
_WORST_ELEMENTS = 5
METRICS = ["cosine", "max_abs", "mean_abs", "rmse", "rel_euclidean", "max_rel", "mean_rel",
           "acc_rel", "kl", "std_a", "std_b", "rel_lt_0.001", "rel_lt_0.005"]


def _format_number(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    return "%.6g" % v


def _json_number(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _plural(n, noun):
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def _escape_name(name):
    return re.sub(r"[ ./\\]", "_", name)


def _seq_sum(values):
    # Left to right, as the tool's loops add.
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def _population_std(v):
    if v.size == 0:
        return 0.0
    mean = _seq_sum(v) / v.size
    return math.sqrt(_seq_sum((v - mean) * (v - mean)) / v.size)


def _distribution(v):
    lo, hi = float(v.min()), float(v.max())
    span = hi - lo
    scaled = (v - lo) / span if span != 0 else v
    p = np.maximum(scaled, _FLT_EPSILON)
    return p / _seq_sum(p)


def _kl(x, y):
    if x.size == 0:
        return 0.0
    p, q = _distribution(x), _distribution(y)
    ratio = p / q
    logs = np.fromiter((math.log(r) for r in ratio), dtype=np.float64, count=ratio.size)
    return max(_seq_sum(p * logs), 0.0)


def _same_nonfinite(a, b):
    both_nan = np.isnan(a) & np.isnan(b)
    same_inf = np.isinf(a) & (a == b)
    return both_nan | same_inf


def _metrics(a, b):
    m = {"count": int(a.size), "ignored": 0}
    finite = np.isfinite(a) & np.isfinite(b)
    same = ~finite & _same_nonfinite(a, b)
    m["ignored"] = int(same.sum())
    values = dict.fromkeys(METRICS, 0.0)
    values["cosine"] = 1.0
    values["rel_lt_0.001"] = values["rel_lt_0.005"] = 1.0
    if bool((~finite & ~same).any()):
        for k in METRICS:
            values[k] = math.nan
        m["values"] = values
        return m
    x, y = a[finite], b[finite]
    n = x.size
    if n == 0:
        m["values"] = values
        return m
    d = x - y
    xx, yy = _seq_sum(x * x), _seq_sum(y * y)
    ad = np.abs(d)
    values["max_abs"] = float(ad.max())
    sum_abs, sum_sq = _seq_sum(ad), _seq_sum(d * d)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rel = np.where(np.abs(y) > _EPSILON, np.abs(x / y - 1), 0.0)
    values["max_rel"] = max(float(rel.max()), 0.0)
    acc_rel = _seq_sum(rel)
    norm_x, norm_y = math.sqrt(xx), math.sqrt(yy)
    if norm_x <= _EPSILON and norm_y <= _EPSILON:
        values["cosine"] = 1.0
    elif norm_x <= _EPSILON or norm_y <= _EPSILON:
        values["cosine"] = math.nan
    else:
        values["cosine"] = min(_seq_sum((x / norm_x) * (y / norm_y)), 1.0)
    values["mean_abs"] = sum_abs / n
    values["rmse"] = math.sqrt(sum_sq / n)
    values["rel_euclidean"] = 0.0 if yy <= _EPSILON else math.sqrt(sum_sq / yy)
    values["acc_rel"] = acc_rel
    values["mean_rel"] = acc_rel / n
    values["kl"] = _kl(x, y)
    values["std_a"] = _population_std(x)
    values["std_b"] = _population_std(y)
    values["rel_lt_0.001"] = int((rel < 0.001).sum()) / n
    values["rel_lt_0.005"] = int((rel < 0.005).sum()) / n
    m["values"] = values
    return m


def _tolerance(a, b, shape, atol, rtol):
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        excess = diff - (atol + rtol * np.abs(b))
    mismatch = ~finite & ~_same_nonfinite(a, b)
    excess = np.where(finite, excess, np.where(mismatch, math.inf, -1.0))
    outside = (finite & (excess > 0)) | mismatch
    violations = int(outside.sum())
    worst = []
    if violations:
        index = np.nonzero(outside)[0]
        order = np.lexsort((index, -excess[index]))[:_WORST_ELEMENTS]
        for k in order:
            flat = int(index[k])
            va, vb = float(a[flat]), float(b[flat])
            multi = [int(i) for i in np.unravel_index(flat, shape)] if shape else []
            abs_diff = abs(va - vb) if math.isfinite(va) and math.isfinite(vb) else math.inf
            worst.append({"index": multi, "flat": flat, "a": _json_number(va),
                          "b": _json_number(vb), "abs_diff": _json_number(abs_diff)})
    return violations, worst


# Sides: folders of operators, read from a dump tree or from reference arrays.

class _Op:
    def __init__(self):
        self.name, self.type, self.original_names = "", "", []
        self.inputs, self.outputs = [], []  # (position, original_op, original_index)
        self.task_id, self.timestamp, self.path = 0, 0, ""
        self.input_files, self.output_files = [], []  # (path, member) or None


class _Side:
    def __init__(self, kind, root):
        self.kind, self.root, self.directory = kind, root, ""
        self.layout, self.time, self.device, self.model = UNKNOWN, "", -1, ""
        self.model_id, self.model_rank, self.iteration = -1, 0, -1
        self.ops = []


class _Filter:
    def __init__(self, op_types, match, iterations):
        self.op_types = [t for item in (op_types or []) for t in item.split(",") if t]
        self.pattern = match or ""
        self.regex = re.compile(match) if match else None
        self.ranges = None
        if iterations not in (None, ""):
            ranges = []
            for item in re.split(r"[,|]", str(iterations)):
                m = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
                if not m or (m.group(2) and int(m.group(2)) < int(m.group(1))):
                    raise ValueError("--iterations: '%s' is not an iteration N or a range N-M "
                                     "(N <= M, from 0); give e.g. 3-5 or 0,3-5,10" % item)
                ranges.append((int(m.group(1)), int(m.group(2) or m.group(1))))
            self.ranges = sorted(ranges)

    def type_ok(self, t):
        return not self.op_types or not t or t in self.op_types

    def name_ok(self, name, originals=()):
        if self.regex is None:
            return True
        return bool(self.regex.search(name)) or any(self.regex.search(o) for o in originals)

    def iteration_ok(self, it):
        if self.ranges is None:
            return True
        return it >= 0 and any(lo <= it <= hi for lo, hi in self.ranges)

    def describe(self):
        parts = []
        if self.op_types:
            parts.append("--op-type " + ",".join(self.op_types))
        if self.regex is not None:
            parts.append("--match '%s'" % self.pattern)
        if self.ranges is not None:
            parts.append("--iterations " + ",".join(
                str(lo) if lo == hi else "%d-%d" % (lo, hi) for lo, hi in self.ranges))
        return ", ".join(parts)


def _op_of_dump(entry):
    data = _read_file(entry.path, 16 << 30)
    f = _parse_dump(data, entry.path, header_only=True)
    op = _Op()
    op.name = f.op_name or entry.name.op_name
    op.type = f.attrs.get("op_type", entry.name.op_type)
    op.original_names = f.original_names
    op.inputs = [(i, "", 0) for i in range(len(f.inputs))]
    for i, t in enumerate(f.outputs):
        if t.original_op is not None and t.original_op.name:
            op.outputs.append((i, t.original_op.name, t.original_op.output_index))
        elif op.original_names:
            op.outputs.append((i, op.original_names[-1], i))
        else:
            op.outputs.append((i, "", i))
    op.task_id, op.timestamp, op.path = entry.name.task_id, entry.name.timestamp, entry.path
    return op


def _rank_model_ids(folders):
    ids = collections.defaultdict(set)
    for f in folders:
        ids[(f.time, f.device, f.model)].add(f.model_id)
    for f in folders:
        f.model_rank = sorted(ids[(f.time, f.device, f.model)]).index(f.model_id)


def _folder_key(s, with_device=True):
    return (s.device if with_device else -1, s.model, s.model_rank, s.iteration)


def _load_dump_side(tree, flt, model, notes):
    folders, models = [], set()
    with_tensors = in_iterations = 0
    filtered = 0
    for run in tree.folders:
        if not any(e.kind == TENSOR for e in run.files):
            continue
        with_tensors += 1
        models.add(run.model)
        if not flt.iteration_ok(run.iteration):
            continue
        in_iterations += 1
        if model and run.model != model:
            continue
        side = _Side("dump", tree.root)
        side.layout, side.directory, side.time = run.layout, run.directory, run.time
        side.device, side.model, side.model_id = run.device, run.model, run.model_id
        side.iteration = run.iteration
        for e in run.files:
            if e.kind != TENSOR:
                continue
            op = _op_of_dump(e)
            if not flt.type_ok(op.type) or not flt.name_ok(op.name, op.original_names):
                filtered += 1
                continue
            side.ops.append(op)
        folders.append(side)
    if not folders:
        if in_iterations == 0 and with_tensors > 0:
            present = sorted({f.iteration for f in tree.folders if f.iteration >= 0})
            raise LookupError("nothing under '%s' passes the filters: no dump folder of %s "
                              "(iterations present: %s)" % (tree.root, flt.describe(),
                                                            ",".join(map(str, present))))
        raise LookupError("no folder of '%s' holds model '%s' (models present: %s)" % (
            tree.root, model, ", ".join(sorted(models))))
    if not any(f.ops for f in folders):
        raise LookupError("no operator of '%s' passes %s (%d filtered out)" % (
            tree.root, flt.describe(), filtered))
    _rank_model_ids(folders)
    # The latest time folder of each folder key.
    latest = {}
    for i, f in enumerate(folders):
        k = _folder_key(f)
        if k not in latest or _time_order(f.time) > _time_order(folders[latest[k]].time):
            latest[k] = i
    if len(latest) != len(folders):
        older = sorted({f.time for i, f in enumerate(folders) if latest[_folder_key(f)] != i})
        notes.append("'%s' holds the same folders in several time folders; the latest of each is "
                     "compared, not those in %s (give a time folder as the path to compare "
                     "another run)" % (tree.root, ", ".join(older)))
        folders = [f for i, f in enumerate(folders) if latest[_folder_key(f)] == i]
    return folders, filtered


def _parse_tensor_name(stem):
    """(op, is_input, position, timestamp or None, explicit)."""
    tail, rest = [], stem
    for _ in range(3):
        dot = rest.rfind(".")
        if dot <= 0:
            break
        tail.insert(0, rest[dot + 1:])
        rest = rest[:dot]

    def is_kind(i):
        return i < len(tail) and tail[i] in ("output", "input")

    if len(tail) == 3 and is_kind(0) and _digits(tail[1]) and _digits(tail[2]):
        kind = 0
    elif len(tail) >= 2 and is_kind(len(tail) - 2) and _digits(tail[-1]):
        kind = len(tail) - 2
    else:
        return stem, False, 0, None, False
    if len(tail[kind + 1]) > 5:
        return stem, False, 0, None, False
    timestamp = None
    if kind + 2 < len(tail):
        timestamp = _number(tail[kind + 2], 64) if len(tail[kind + 2]) <= 19 else None
        if timestamp is None:
            return stem, False, 0, None, False
    cut = len(stem) - sum(len(t) + 1 for t in tail[kind:])
    return stem[:cut], tail[kind] == "input", int(tail[kind + 1]), timestamp, True


def _load_reference_side(tree, flt, model):
    placed, keys = {}, collections.defaultdict(dict)
    flat = _Side("reference", tree.root)
    flat.directory = tree.root
    arrays, filtered = 0, 0

    def add(prefix, stem, source, folder, by_key):
        op_text, is_input, position, timestamp, explicit = _parse_tensor_name(stem)
        converted = _parse_file_name(op_text) if explicit else None
        key = "%s%s#%s" % (prefix, op_text, "" if timestamp is None else timestamp)
        if key not in by_key:
            by_key[key] = len(folder.ops)
            op = _Op()
            op.name = converted.op_name if converted else op_text
            op.type = converted.op_type if converted else ""
            op.task_id = converted.task_id if converted else 0
            op.timestamp = converted.timestamp if converted else (timestamp or 0)
            op.path = prefix + op_text
            folder.ops.append(op)
        op = folder.ops[by_key[key]]
        refs = op.inputs if is_input else op.outputs
        files = op.input_files if is_input else op.output_files
        while len(refs) <= position:
            p = len(refs)
            refs.append((p, "" if is_input else op.name, p))
            files.append(None)
        files[position] = source

    for e in tree.entries:
        npy, npz = e.file_name.endswith(".npy"), e.file_name.endswith(".npz")
        if not npy and not npz:
            continue
        folder_path = e.path[:len(e.path) - len(e.file_name)]
        in_layout = e.layout == MODEL
        if in_layout and not flt.iteration_ok(e.iteration):
            continue
        if in_layout and model and e.model != model:
            continue
        folder, by_key = flat, keys[""]
        if in_layout:
            if folder_path not in placed:
                side = _Side("reference", tree.root)
                side.layout, side.directory, side.time = MODEL, folder_path[:-1], e.time
                side.device, side.model, side.model_id = e.device, e.model, e.model_id
                side.iteration = e.iteration
                placed[folder_path] = side
            folder, by_key = placed[folder_path], keys[folder_path]
        prefix = "" if in_layout else folder_path
        if npy:
            arrays += 1
            add(prefix, e.file_name[:-4], (e.path, None), folder, by_key)
            continue
        with np.load(e.path, allow_pickle=False) as archive:
            members = [m[:-4] if m.endswith(".npy") else m for m in archive.files]
        for member in members:
            arrays += 1
            add(prefix, member, (e.path, member), folder, by_key)

    def finish(folder):
        nonlocal filtered
        kept = []
        for op in folder.ops:
            if flt.name_ok(op.name) and flt.type_ok(op.type):
                kept.append(op)
            else:
                filtered += 1
        kept.sort(key=lambda o: (o.task_id, o.timestamp, o.name))
        folder.ops = kept

    folders = []
    if flat.ops:
        finish(flat)
        if flat.ops:
            folders.append(flat)
    for path in sorted(placed):
        finish(placed[path])
        if placed[path].ops:
            folders.append(placed[path])
    if not folders:
        if arrays:
            raise LookupError("no reference array of '%s' passes %s" % (tree.root,
                                                                        flt.describe()))
        raise LookupError("no tensor dump files and no .npy or .npz files under '%s'" % tree.root)
    _rank_model_ids(folders)
    return folders, filtered


def _load_side(path, flt, model):
    tree = open_tree(path)
    notes = []
    if tree.count(TENSOR):
        kind = "dump"
        folders, filtered = _load_dump_side(tree, flt, model, notes)
    elif tree.count(STATS):
        raise ValueError("'%s' holds stats dumps only (dump_data: stats); compare needs tensor "
                         "dumps" % path)
    else:
        kind = "reference"
        folders, filtered = _load_reference_side(tree, flt, model)
    return {"kind": kind, "root": path, "folders": folders, "notes": notes,
            "filtered": filtered}


_DTYPE_NAMES = {"float32": "float32", "float16": "float16", "float64": "float64",
                "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
                "uint8": "uint8", "bool": "bool"}


class _Loader:
    def __init__(self, side):
        self.side = side
        self.files = {}

    def clear(self):
        self.files = {}

    def load(self, op, is_input, position):
        """(values as float64, shape, dtype name, error)."""
        if self.side.kind == "reference":
            sources = op.input_files if is_input else op.output_files
            if position >= len(sources) or sources[position] is None:
                return None, [], "", "no such tensor"
            path, member = sources[position]
            try:
                if member is None:
                    array = np.load(path, allow_pickle=False)
                else:
                    with np.load(path, allow_pickle=False) as archive:
                        array = archive[member]
            except Exception as e:  # noqa: BLE001 - the tool reports any reading error
                return None, [], "", "'%s': %s" % (path, e)
            name = _DTYPE_NAMES.get(array.dtype.name)
            if name is None:
                return None, [], "", "'%s': not a valid .npy file: element type '%s' is not " \
                    "supported" % (path, array.dtype.str)
            return (np.ascontiguousarray(array).reshape(-1).astype(np.float64),
                    list(array.shape), name, "")
        if op.path not in self.files:
            try:
                self.files[op.path] = _parse_dump(_read_file(op.path, 16 << 30), op.path)
            except (OSError, DumpFormatError) as e:
                self.files[op.path] = e
        f = self.files[op.path]
        if isinstance(f, Exception):
            return None, [], "", str(f)
        tensors = f.inputs if is_input else f.outputs
        if position >= len(tensors):
            return None, [], "", "no such tensor"
        t = tensors[position]
        shape = list(t.shape)
        known = _NUMPY_TYPES.get(t.data_type, (None, None))[1]
        dtype = known if known else data_type_name(t.data_type)
        if known is None:
            return None, shape, dtype, "%s (data type %d) has no acldump tensor type" % (
                data_type_name(t.data_type), t.data_type)
        values = t.array.reshape(-1)
        if t.data_type == 2:
            values = values.astype(np.float32)
        return values.astype(np.float64), shape, dtype, ""


def _shape_text(shape):
    return "x".join(str(d) for d in shape) if shape else "[]"


def _compare_tensors(a, b, atol, rtol):
    va, shape_a, dtype_a, error_a = a
    vb, shape_b, dtype_b, error_b = b
    t = {"shape_a": shape_a, "shape_b": shape_b, "dtype_a": dtype_a, "dtype_b": dtype_b,
         "problem": "", "count": None, "ignored": None, "violations": None, "metrics": None,
         "worst": []}
    if error_a:
        t["problem"] = "A: " + error_a
    elif error_b:
        t["problem"] = "B: " + error_b
    elif shape_a != shape_b:
        t["problem"] = "shapes differ: %s vs %s" % (_shape_text(shape_a), _shape_text(shape_b))
    else:
        m = _metrics(va, vb)
        violations, worst = _tolerance(va, vb, shape_a, atol, rtol)
        t["count"], t["ignored"], t["violations"] = m["count"], m["ignored"], violations
        t["metrics"] = {k: _json_number(m["values"][k]) for k in METRICS}
        t["worst"] = worst
    return t


def _within(t):
    return not t["problem"] and t["violations"] == 0


def _verdict(tensors, io_kind):
    verdict = "not_compared"
    for t in tensors:
        if t["io"] != io_kind:
            continue
        if not _within(t):
            return "outside"
        verdict = "within"
    return verdict


def _identity(op):
    if not op["type"]:
        return "%s (task %d)" % (op["name"], op["task"])
    return "%s (%s, task %d)" % (op["name"], op["type"], op["task"])


def _describe_outputs(op):
    for t in op["tensors"]:
        if t["io"] == "input" or _within(t):
            continue
        if t["problem"]:
            return "output %d: %s" % (t["position"], t["problem"])
        text = "output %d is not (max |a-b| %s, %d of %d elements outside" % (
            t["position"], _format_number(_float(t["metrics"]["max_abs"])), t["violations"],
            t["count"])
        if t["worst"]:
            w = t["worst"][0]
            text += ", worst at [%s]: a %s, b %s" % (",".join(map(str, w["index"])),
                                                     _format_number(_float(w["a"])),
                                                     _format_number(_float(w["b"])))
        return text + ")"
    return ""


def _float(v):
    return float(v)  # also "nan", "inf", "-inf"


def _name_divergence(pair):
    ops = pair["operators"]
    earlier_outside, not_compared, upstream = False, [], None
    for i, op in enumerate(ops):
        if op["outputs"] == "not_compared":
            not_compared.append(i)
            continue
        if op["outputs"] != "outside":
            continue
        basis = None
        if op["inputs"] == "within":
            basis = "inputs_within"
        elif op["inputs"] == "not_compared" and not earlier_outside:
            basis = "earlier_within" if not not_compared else "earlier_not_compared"
        if basis:
            pair["first_divergence"], pair["basis"] = i, basis
            if basis == "inputs_within":
                why = "%s: its inputs are within the tolerance, " % _identity(op)
            elif basis == "earlier_within":
                why = ("%s: its inputs were not compared, but every earlier operator's outputs "
                       "are within the tolerance; " % _identity(op))
            else:
                pair["earlier_not_compared"] = list(not_compared)
                names = []
                for k in not_compared[:5]:
                    e = ops[k]
                    names.append(e["name"] if not e["type"] else "%s (%s)" % (e["name"],
                                                                             e["type"]))
                if len(not_compared) > 5:
                    names.append("...")
                why = ("%s is the first operator outside the tolerance, but its inputs were not "
                       "compared and %s %s not compared (%s), so the divergence may start "
                       "there; " % (_identity(op), _plural(len(not_compared), "earlier operator"),
                                    "was" if len(not_compared) == 1 else "were",
                                    ", ".join(names)))
            note = why + _describe_outputs(op)
            if op["type"] == "Data":
                note += ("; this is a graph input: the two sides ran on different inputs (give "
                         "both the same one, e.g. `dump run --input`)")
            pair["divergence_note"] = note
            return
        if upstream is None:
            upstream = i
        earlier_outside = True
    if upstream is not None:
        pair["divergence_note"] = (
            "none could be named: the first operator with outputs outside the tolerance, %s, has "
            "inputs outside it too, so the divergence starts upstream in an operator missing "
            "from the dump (dump with dump_mode all and no layer list)" % _identity(ops[upstream]))
    elif pair["tensors_compared"] == 0:
        pair["divergence_note"] = "none: no tensor of A has a counterpart in B"
    elif pair["tensors_outside"] > 0:
        for op in ops:
            if op["inputs"] != "outside":
                continue
            pair["divergence_note"] = (
                "none could be named from outputs: the first tensor outside the tolerance is an "
                "input of %s, so its producer diverges; dump outputs too (dump_mode all) to name "
                "it" % _identity(op))
            break
    else:
        note = "none: every compared tensor is within the tolerance"
        if pair["operators_not_compared"]:
            note += " (%s of A not compared)" % _plural(pair["operators_not_compared"],
                                                       "operator")
        pair["divergence_note"] = note


def _folder_json(side):
    placed = side.layout == MODEL
    return {"path": side.directory,
            "model": side.model if placed else None,
            "model_id": side.model_id if placed else None,
            "iteration": side.iteration if placed else None,
            "device": side.device if placed else None,
            "time": side.time if placed else None}


def _folder_label(side):
    if side.layout == MODEL:
        return "%s (id %d) iteration %d, device %d" % (side.model, side.model_id, side.iteration,
                                                      side.device)
    if side.kind == "reference":
        return "references in " + side.directory
    return "files in " + side.directory


def _compare_folders(a, b, atol, rtol, flt):
    by_name = collections.defaultdict(list)
    by_output = {}
    for i, op in enumerate(b.ops):
        by_name[op.name].append(i)
        for position, original, original_index in op.outputs:
            if original:
                by_output.setdefault((original, original_index), (i, position))
            by_output.setdefault((op.name, position), (i, position))
    occurrences = collections.defaultdict(int)
    used = [False] * len(b.ops)
    load_a, load_b = _Loader(a), _Loader(b)
    pair = {"a": _folder_json(a), "b": _folder_json(b), "tensors_compared": 0,
            "tensors_outside": 0, "operators_not_compared": 0, "first_divergence": None,
            "basis": None, "earlier_not_compared": [], "divergence_note": "", "only_in_b": [],
            "operators": []}
    for index, op in enumerate(a.ops):
        load_a.clear()
        load_b.clear()
        entry = {"index": index, "name": op.name, "type": op.type, "task": op.task_id,
                 "timestamp": op.timestamp, "original_names": op.original_names,
                 "match": "none", "b": "", "inputs": "not_compared",
                 "outputs": "not_compared", "tensors": []}

        def compare(other, is_input, pa, pb):
            t = _compare_tensors(load_a.load(op, is_input, pa), load_b.load(other, is_input, pb),
                                 atol, rtol)
            t["status"] = "within" if _within(t) else "outside"
            io_kind = "input" if is_input else "output"
            record = {"tensor": "%s %d" % (io_kind, pa), "io": io_kind, "position": pa,
                      "b": "%s %s %d" % (other.name, io_kind, pb)}
            for key in ("shape_a", "shape_b", "dtype_a", "dtype_b", "status", "problem",
                        "count", "ignored", "violations", "metrics", "worst"):
                record[key] = t[key]
            entry["tensors"].append(record)

        key = op.name if op.name in by_name else _escape_name(op.name)
        named = by_name.get(key)
        k = 0
        if named is not None:
            k = occurrences[key]
            occurrences[key] += 1
        if named is not None and k < len(named):
            other = b.ops[named[k]]
            used[named[k]] = True
            entry["match"], entry["b"] = "name", other.name
            for refs, is_input in ((op.inputs, True), (op.outputs, False)):
                other_refs = other.inputs if is_input else other.outputs
                other_files = other.input_files if is_input else other.output_files
                for position, _, _ in refs:
                    if position >= len(other_refs):
                        continue
                    if b.kind == "reference" and (position >= len(other_files)
                                                  or other_files[position] is None):
                        continue
                    compare(other, is_input, position, position)
        else:
            counterparts = []
            for position, original, original_index in op.outputs:
                producer = original or op.name
                found = by_output.get((producer, original_index))
                if found is None:
                    found = by_output.get((_escape_name(producer), original_index))
                if found is None:
                    continue
                other_index, other_position = found
                other = b.ops[other_index]
                used[other_index] = True
                if other.name not in counterparts:
                    counterparts.append(other.name)
                compare(other, False, position, other_position)
            if entry["tensors"]:
                entry["match"], entry["b"] = "original", ",".join(counterparts)
        entry["inputs"] = _verdict(entry["tensors"], "input")
        entry["outputs"] = _verdict(entry["tensors"], "output")
        for t in entry["tensors"]:
            pair["tensors_compared"] += 1
            if not _within(t):
                pair["tensors_outside"] += 1
        if not entry["tensors"]:
            pair["operators_not_compared"] += 1
        pair["operators"].append(entry)
    for i, op in enumerate(b.ops):
        if not used[i] and flt.type_ok(op.type) and flt.name_ok(op.name, op.original_names):
            pair["only_in_b"].append(op.name)
    _name_divergence(pair)
    return pair


def compare(a, b, atol=1e-3, rtol=1e-3, op_types=None, match=None, iterations=None, model=None):
    """Compares two dumps, or a dump and references, as `dump compare A B --json` does, and
    returns the same result as a dict (schema "acldump.compare/1"; docs/tool-reference.md
    describes every field).

    ``a``, ``b``: paths (a dump tree at any level, a folder or .npz of reference arrays);
    ``op_types`` (list of types), ``match`` (regular expression over operator names) and
    ``iterations`` ("3-5", "0,2") filter as --op-type, --match and --iterations do; ``model``
    as --model. Raises ValueError / LookupError where the tool exits 2 before comparing."""
    if atol < 0 or rtol < 0:
        raise ValueError("--atol and --rtol must not be negative")
    flt = _Filter(op_types, match, iterations)
    side_a = _load_side(os.fspath(a), flt, model)
    side_b = _load_side(os.fspath(b), flt, model)
    notes = ["A: " + n for n in side_a["notes"]] + ["B: " + n for n in side_b["notes"]]
    fa_list, fb_list = side_a["folders"], side_b["folders"]
    pairs, only_a, only_b = [], [], []
    b_flat = len(fb_list) == 1 and fb_list[0].layout != MODEL
    if len(fa_list) == 1 and len(fb_list) == 1:
        pairs.append((fa_list[0], fb_list[0]))
        fa, fb = fa_list[0], fb_list[0]
        if fa.layout == MODEL and fb.layout == MODEL and _folder_key(fa) != _folder_key(fb):
            notes.append("comparing two different folders: %s with %s" % (_folder_label(fa),
                                                                          _folder_label(fb)))
    elif b_flat:
        pairs = [(fa, fb_list[0]) for fa in fa_list]
        notes.append("every folder of A (%d) is compared with the references in %s" % (
            len(fa_list), side_b["root"]))
    else:
        devices_a = {f.device for f in fa_list}
        devices_b = {f.device for f in fb_list}
        with_device = not (len(devices_a) == 1 and len(devices_b) == 1)
        if not with_device and devices_a != devices_b:
            notes.append("device %d of A is paired with device %d of B" % (
                next(iter(devices_a)), next(iter(devices_b))))
        in_b = {}
        for f in fb_list:
            if f.layout == MODEL:
                in_b[_folder_key(f, with_device)] = f
        paired = set()
        for f in fa_list:
            other = in_b.get(_folder_key(f, with_device)) if f.layout == MODEL else None
            if other is None:
                only_a.append(f)
                continue
            pairs.append((f, other))
            paired.add(id(other))
        only_b = [f for f in fb_list if id(f) not in paired]
    pairs.sort(key=lambda p: (p[0].iteration, p[0].ops[0].timestamp if p[0].ops else 0,
                              p[0].model))
    results = [_compare_folders(fa, fb, atol, rtol, flt) for fa, fb in pairs]
    compared = sum(p["tensors_compared"] for p in results)
    outside = sum(p["tensors_outside"] for p in results)
    not_compared = sum(p["operators_not_compared"] for p in results)
    first_pair = next((i for i, p in enumerate(results) if p["tensors_outside"]), None)
    first = None
    if first_pair is not None:
        p = results[first_pair]
        note = p["divergence_note"] if len(results) == 1 else "in %s: %s" % (
            _folder_label(pairs[first_pair][0]), p["divergence_note"])
        if p["first_divergence"] is not None:
            op = p["operators"][p["first_divergence"]]
            first = {"pair": first_pair, "operator": op["index"], "name": op["name"],
                     "type": op["type"], "task": op["task"], "basis": p["basis"],
                     "folder": p["a"]}
    elif compared == 0:
        note = "none: no tensor of A has a counterpart in B"
    else:
        note = "none: every compared tensor is within the tolerance"
        if not_compared:
            note += " (%s of A not compared)" % _plural(not_compared, "operator")
    return {
        "schema": "acldump.compare/1",
        "a": {"path": side_a["root"], "kind": side_a["kind"], "folders": len(fa_list),
              "operators_filtered_out": side_a["filtered"]},
        "b": {"path": side_b["root"], "kind": side_b["kind"], "folders": len(fb_list),
              "operators_filtered_out": side_b["filtered"]},
        "tolerance": {"atol": atol, "rtol": rtol},
        "filters": flt.describe(),
        "verdict": "nothing_compared" if compared == 0 else ("fail" if outside else "pass"),
        "exit_code": 2 if compared == 0 else (1 if outside else 0),
        "tensors_compared": compared,
        "tensors_outside": outside,
        "operators_not_compared": not_compared,
        "first_divergence": first,
        "divergence_note": note,
        "notes": notes,
        "only_in_a": [_folder_json(f) for f in only_a],
        "only_in_b": [_folder_json(f) for f in only_b],
        "pairs": results,
    }

