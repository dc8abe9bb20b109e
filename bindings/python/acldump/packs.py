"""The packed layout: records in a folder's dump.pack, stats rows in its statistic.csv; and
read_dump, which reads a record as if its own file existed."""

import csv
import io
import os

from acldump.dump_files import DumpFormatError, _parse_dump, _parse_file_name

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
_ITERATION_COLUMN = "Iteration"
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


def why_not_a_record_name(name):
    """why_not_a_file_name for a packed record's name, which may also be
    "{iteration}/{file name}" in a model folder's pack or statistic.csv."""
    iteration, slash, file_name = name.partition("/")
    if not slash:
        return why_not_a_file_name(name)
    if not (iteration.isascii() and iteration.isdigit() and len(iteration) <= 20):
        return "it holds '/' (only an iteration number may come before one)"
    return why_not_a_file_name(file_name)


def read_pack(path):
    """The records of a dump.pack: ([(name, data offset, data bytes)], problem), from its index
    when that describes the pack exactly, else by scanning the frames (problem: what a truncated
    or corrupt tail made the scan skip, or None). Records whose names are not file names
    (why_not_a_record_name) are left out and said in the problem."""
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
        why = why_not_a_record_name(record[0])
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
    # A model folder's statistic.csv has the iteration first: its records are
    # named "{iteration}/{file name}".
    first = 1 if rows and rows[0][:1] == [_ITERATION_COLUMN] else 0
    if not rows or rows[0][first:first + 5] != _MERGED_STATS_COLUMNS:
        raise DumpFormatError("'%s' does not start with the columns %s (or %s,%s)"
                              % (path, ",".join(_MERGED_STATS_COLUMNS), _ITERATION_COLUMN,
                                 ",".join(_MERGED_STATS_COLUMNS)))
    identity = first + 5
    header = ",".join(rows[0][identity:]) + "\n"
    out = {}
    for row in rows[1:]:
        if not row:
            continue
        if len(row) != len(rows[0]):
            raise DumpFormatError("'%s': a row has %d fields, the header %d"
                                  % (path, len(row), len(rows[0])))
        name = (row[0] + "/" if first else "") + ".".join(row[first:identity]) + ".csv"
        out.setdefault(name, header)
        out[name] += ",".join(row[identity:]) + "\n"
    return out


def _read_packed(path, limit):
    folder, name = os.path.split(path)
    # The folder's own pack or statistic.csv, then its model folder's, which
    # names the record "{iteration}/{file name}".
    model, iteration = os.path.split(folder)
    places = [(folder, name)]
    if why_not_a_record_name(iteration + "/" + name) is None:
        places.append((model, iteration + "/" + name))
    for place, record_name in places:
        data = _read_packed_in(place, record_name, name, path, limit)
        if data is not None:
            return data
    return None


def _read_packed_in(folder, name, file_name, path, limit):
    if file_name.endswith(".csv"):
        merged = os.path.join(folder, MERGED_STATS_FILE)
        if file_name == MERGED_STATS_FILE or not os.path.isfile(merged):
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


def read_dump(path):
    """Reads a dump file (the 2.0 layout, or a legacy one with the data inside the header) and
    returns a DumpFile with its header fields and a numpy array per input and output."""
    path = os.fspath(path)
    f = _parse_dump(_read_file(path, 16 << 30), path)
    name = _parse_file_name(os.path.basename(path))
    f.op_type = f.attrs.get("op_type", name.op_type if name else "")
    return f
