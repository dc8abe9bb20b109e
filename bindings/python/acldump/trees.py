"""Dump trees: where each file sits in the layout, what it is, and the tree as folders."""

import csv
import json
import os

from acldump.dump_files import DumpFormatError, FileName, _digits, _number, _parse_file_name
from acldump.packs import (MERGED_STATS_FILE, PACK_FILE, read_dump, read_pack, split_merged_stats,
                           why_not_a_record_name)

# ---------------------------------------------------------------------------
# Dump trees: {time}/{device}/{model}/{model_id}/{iteration}/{op_type}.{op_name}.{task}.{stream}.
# {timestamp}, hashed names resolved through mapping.csv.

TENSOR, STATS, OVERFLOW, OTHER = "tensor", "stats", "overflow", "other"
MODEL, SINGLE_OP, EXCEPTION, UNKNOWN = "model", "single_op", "exception", "unknown"
_LAYOUT_ORDER = {MODEL: 0, SINGLE_OP: 1, EXCEPTION: 2, UNKNOWN: 3}


def _is_time_folder(name):
    """YYYYMMDDHHMMSS, or with _N appended when another run had taken that second's folder."""
    return (len(name) >= 14 and _digits(name[:14]) and
            (len(name) == 14 or (len(name) > 15 and name[14] == "_" and _digits(name[15:]))))


def _time_order(name):
    """Creation order of time folders: the 14 digits, then the number after "_" (none first)."""
    return (name[:14], int(name[15:]) if len(name) > 15 else 0)


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


# Written by a run with dump_baseline in each iteration folder that departed from the baseline.
BASELINE_SUMMARY_FILE = "baseline_diff.json"


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

    def baseline_diffs(self):
        """The summaries a run with dump_baseline wrote (baseline_diff.json, one per iteration
        that departed from its baseline), in layout order: dicts as in the file, with "path"
        added. Empty when nothing differed (or the run had no baseline)."""
        found = [e for e in self.entries if e.file_name == BASELINE_SUMMARY_FILE]
        found.sort(key=lambda e: (e.time or "", e.device, e.model or "", e.model_id,
                                  e.iteration))
        summaries = []
        for e in found:
            with open(e.path, encoding="utf-8") as f:
                try:
                    summary = json.load(f)
                except ValueError as error:
                    raise ValueError("%s: not a baseline summary (%s)" % (e.path, error))
            summary["path"] = e.path
            summaries.append(summary)
        return summaries

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
        packed = _open_packed_iteration_folder(path)
        if packed is not None:
            return packed
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
        entries.append(e)
        if e.file_name in (PACK_FILE, MERGED_STATS_FILE):
            entries.extend(_packed_entries(e, absolute, mapping_of(directory), problems))
    # A model folder too long for the file system has a hashed name that its
    # device folder's mapping.csv resolves.
    for e in entries:
        if e.layout == MODEL and _digits(e.model):
            directory = os.path.dirname(os.path.normpath(os.path.abspath(e.path)))
            device = os.path.dirname(os.path.dirname(os.path.dirname(directory)))
            e.model = mapping_of(device).get(e.model, e.model)
    tree = DumpTree(path, entries)
    tree.problems = problems
    return tree


def _open_packed_iteration_folder(path):
    """`path`, an iteration folder not on disk, as the records its model folder's pack and
    statistic.csv name "{iteration}/..."; None when the model folder has neither."""
    folder = os.path.normpath(path)
    model, iteration = os.path.split(folder)
    if not (_digits(iteration) and (os.path.isfile(os.path.join(model, PACK_FILE)) or
                                    os.path.isfile(os.path.join(model, MERGED_STATS_FILE)))):
        return None
    whole = open_tree(model)
    prefix = iteration + "/"
    entries = []
    for e in whole.entries:
        if e.packed and e.relative.startswith(prefix):
            e.relative = e.relative[len(prefix):]
            e.path = os.path.join(path, e.relative)
            entries.append(e)
    if not entries:
        return None
    tree = DumpTree(path, entries)
    tree.problems = whole.problems
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
        why = why_not_a_record_name(name)
        if why is not None:
            problems.append("%s: the record %r is not a file name (%s): refused"
                            % (container.path, name, why))
            continue
        e = Entry()
        for slot in Entry.__slots__:
            setattr(e, slot, getattr(container, slot))
        # "{iteration}/{file name}": a record of that iteration folder, kept in
        # its model folder's pack or statistic.csv.
        iteration, _, file_name = name.rpartition("/")
        e.file_name, e.bytes, e.packed = file_name, size, True
        e.path = os.path.join(os.path.dirname(container.path), name)
        e.relative = os.path.join(os.path.dirname(container.relative), name)
        if iteration:
            _place(os.path.join(os.path.dirname(absolute), iteration), e)
        e.kind, e.name = OTHER, None
        _classify(e, mapping)
        out.append(e)
    return out
