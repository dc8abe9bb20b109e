"""compare's sides: folders of operators read from a dump tree or from reference arrays, and
their tensors."""

import collections
import re

try:
    import numpy as np
except ImportError:  # arrays need numpy; reading a tree's index does not
    np = None

from acldump.compare_stats import MAX_STATS_CSV_BYTES, read_stats_csv, record_of_array
from acldump.dump_files import (DumpFormatError, _NUMPY_TYPES, _digits, _number, _parse_dump,
                                _parse_file_name, data_type_name)
from acldump.packs import _read_file
from acldump.trees import MODEL, STATS, TENSOR, UNKNOWN, _time_order, open_tree

# Sides: folders of operators, read from a dump tree or from reference arrays.

class _Op:
    def __init__(self):
        self.name, self.type, self.original_names = "", "", []
        self.inputs, self.outputs = [], []  # (position, original_op, original_index)
        self.task_id, self.timestamp, self.path = 0, 0, ""
        self.input_files, self.output_files = [], []  # (path, member) or None
        self.input_stats, self.output_stats = [], []  # stats dumps: a record per tensor


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


def _op_of_stats(entry):
    try:
        text = _read_file(entry.path, MAX_STATS_CSV_BYTES).decode("utf-8")
        tensors = read_stats_csv(text)
    except (UnicodeDecodeError, DumpFormatError) as e:
        raise DumpFormatError("%s: %s" % (entry.path, e)) from None
    op = _Op()
    op.name, op.type = entry.name.op_name, entry.name.op_type
    for is_input, index, record in tensors:
        refs = op.inputs if is_input else op.outputs
        stats = op.input_stats if is_input else op.output_stats
        while len(refs) <= index:
            refs.append((len(refs), "", len(refs)))
            stats.append(None)
        stats[index] = record
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


def _load_dump_side(tree, flt, model, notes, kind=TENSOR):
    folders, models = [], set()
    with_tensors = in_iterations = 0
    filtered = 0
    for run in tree.folders:
        if not any(e.kind == kind for e in run.files):
            continue
        with_tensors += 1
        models.add(run.model)
        if not flt.iteration_ok(run.iteration):
            continue
        in_iterations += 1
        if model and run.model != model:
            continue
        side = _Side("stats" if kind == STATS else "dump", tree.root)
        side.layout, side.directory, side.time = run.layout, run.directory, run.time
        side.device, side.model, side.model_id = run.device, run.model, run.model_id
        side.iteration = run.iteration
        for e in run.files:
            if e.kind != kind:
                continue
            op = _op_of_stats(e) if kind == STATS else _op_of_dump(e)
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
        kind = "stats"
        folders, filtered = _load_dump_side(tree, flt, model, notes, STATS)
    else:
        kind = "reference"
        folders, filtered = _load_reference_side(tree, flt, model)
    return {"kind": kind, "root": path, "folders": folders, "notes": notes,
            "filtered": filtered}


_DTYPE_NAMES = {"float32": "float32", "float16": "float16", "float64": "float64",
                "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
                "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
                "bool": "bool"}


# The dump data type of each reference array type.
_DUMP_DATA_TYPES = {"float32": 1, "float16": 2, "int8": 3, "uint8": 4, "int16": 5,
                    "uint16": 6, "int32": 7, "int64": 8, "uint32": 9, "uint64": 10, "bool": 11,
                    "float64": 12}


class _Loader:
    def __init__(self, side):
        self.side = side
        self.files = {}

    def clear(self):
        self.files = {}

    def load_stats(self, op, is_input, position):
        """(the tensor's statistics record, error): a stats side's, or computed from the
        tensor as a stats dump would record them."""
        if self.side.kind == "stats":
            stats = op.input_stats if is_input else op.output_stats
            if position >= len(stats) or stats[position] is None:
                return None, "no such tensor"
            return stats[position], ""
        values, shape, dtype, error, data, data_type = self._read(op, is_input, position)
        if error:
            return None, error
        return record_of_array(values, data, data_type, data_type_name(data_type), shape), ""

    def load(self, op, is_input, position):
        """(values as float64, shape, dtype name, error)."""
        values, shape, dtype, error, _, data_type = self._read(op, is_input, position)
        if not error:
            if data_type == 2:
                values = values.astype(np.float32)
            values = values.reshape(-1).astype(np.float64)
        return values, shape, dtype, error

    def _read(self, op, is_input, position):
        """(array, shape, dtype name, error, bytes in memory, dump data type number)."""
        if self.side.kind == "reference":
            sources = op.input_files if is_input else op.output_files
            if position >= len(sources) or sources[position] is None:
                return None, [], "", "no such tensor", b"", 0
            path, member = sources[position]
            try:
                if member is None:
                    array = np.load(path, allow_pickle=False)
                else:
                    with np.load(path, allow_pickle=False) as archive:
                        array = archive[member]
            except Exception as e:  # noqa: BLE001 - the tool reports any reading error
                return None, [], "", "'%s': %s" % (path, e), b"", 0
            name = _DTYPE_NAMES.get(array.dtype.name)
            if name is None:
                return None, [], "", "'%s': not a valid .npy file: element type '%s' is not " \
                    "supported" % (path, array.dtype.str), b"", 0
            array = np.ascontiguousarray(array)
            return (array, list(array.shape), name, "", array.astype(array.dtype.newbyteorder("<"))
                    .tobytes(), _DUMP_DATA_TYPES[name])
        if op.path not in self.files:
            try:
                self.files[op.path] = _parse_dump(_read_file(op.path, 16 << 30), op.path)
            except (OSError, DumpFormatError) as e:
                self.files[op.path] = e
        f = self.files[op.path]
        if isinstance(f, Exception):
            return None, [], "", str(f), b"", 0
        tensors = f.inputs if is_input else f.outputs
        if position >= len(tensors):
            return None, [], "", "no such tensor", b"", 0
        t = tensors[position]
        shape = list(t.shape)
        known = _NUMPY_TYPES.get(t.data_type, (None, None))[1]
        dtype = known if known else data_type_name(t.data_type)
        if known is None:
            return None, shape, dtype, "%s (data type %d) has no acldump tensor type" % (
                data_type_name(t.data_type), t.data_type), b"", t.data_type
        return t.array, shape, dtype, "", t.data, t.data_type
