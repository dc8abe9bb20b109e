"""Dump files: the format's data types, its protobuf header decoded by hand (no protobuf
needed), and a file's tensors as numpy arrays."""

import collections
import re
import struct

try:
    import numpy as np
except ImportError:  # arrays need numpy; reading a tree's index does not
    np = None

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
    5: ("<i2", "int16"), 6: ("<u2", "uint16"), 7: ("<i4", "int32"), 8: ("<i8", "int64"),
    9: ("<u4", "uint32"), 10: ("<u8", "uint64"), 11: ("?", "bool"), 12: ("<f8", "float64"),
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


# ---------------------------------------------------------------------------
# Dump file names: {op_type}.{op_name}.{task}.{stream}.{timestamp}.

FileName = collections.namedtuple("FileName", "op_type op_name task_id stream_id timestamp")


def _digits(s):
    return bool(s) and all("0" <= c <= "9" for c in s)


def _number(s, bits):
    if not _digits(s):
        return None
    value = int(s)
    return value if value < (1 << bits) else None


def _parse_file_name(name):
    parts = name.split(".")
    if len(parts) != 5 or not parts[0] or not parts[1]:
        return None
    task, stream, stamp = _number(parts[2], 32), _number(parts[3], 32), _number(parts[4], 64)
    if task is None or stream is None or stamp is None:
        return None
    return FileName(parts[0], parts[1], task, stream, stamp)
