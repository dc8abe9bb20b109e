"""Analysing dump trees of many devices and hosts, in this process or on a Dask cluster.

    from acldump import analysis
    tree = analysis.open_tree(["/shared/run_a", "/shared/run_b"])   # pandas.DataFrame
    stats = analysis.stats(tree)                                     # dask.dataframe.DataFrame
    stats[stats["Nan Count"] > 0].compute()
    result = analysis.compare("/shared/run_a", "/shared/run_b")      # dump compare --json

    from distributed import Client
    client = Client("tcp://scheduler:8786")
    result = analysis.compare("/shared/run_a", "/shared/run_b", client=client)

Everything is computed by the `dump` tool (`acldump` when installed), the same code the command
line runs: this module splits the work into tasks and runs them. Without a client it works in this
process (and its threads); with one, the tasks run on the cluster's workers, which need the same
acldump release installed and the dump folders at the same paths (a shared file system).

With a client, the tool itself submits its tasks to the client's scheduler (as `--scheduler`
does on the command line), so the client must be of a cluster reachable over the network.
"""

import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import uuid
import warnings

__all__ = ["ToolError", "compare", "find_tool", "locate", "open_tree", "replay", "stats"]

# What `dump ls --json` gives each entry, in the DataFrame's column order.
TREE_COLUMNS = [
    "root", "path", "relative", "folder", "file_name", "kind", "layout", "time", "device",
    "model", "model_id", "iteration", "op_type", "op_name", "task_id", "stream_id",
    "timestamp_us", "bytes", "packed",
]

# The columns of `stats`: where a row comes from, then the stats CSV's own.
STATS_PREFIX = ["Time", "Device", "Model", "Model ID", "Iteration", "Op Type", "Op Name",
                "Task ID", "Stream ID", "Timestamp"]
STATS_COLUMNS = ["Input/Output", "Index", "Data Size", "Data Type", "Format", "Shape",
                 "Max Value", "Min Value", "Avg Value", "Count", "Nan Count",
                 "Negative Inf Count", "Positive Inf Count", "l2norm"]
_STATS_NUMBERS = ["Device", "Model ID", "Iteration", "Task ID", "Stream ID", "Timestamp",
                  "Index", "Data Size", "Max Value", "Min Value", "Avg Value", "Count",
                  "Nan Count", "Negative Inf Count", "Positive Inf Count", "l2norm"]


class ToolError(RuntimeError):
    """The dump tool failed: ``argv``, ``returncode`` and its ``stderr``."""

    def __init__(self, argv, returncode, stderr):
        super().__init__("%s exited with %d: %s" % (" ".join(argv[:3]), returncode,
                                                     stderr.strip() or "(no message)"))
        self.argv, self.returncode, self.stderr = argv, returncode, stderr


def find_tool():
    """The `dump` tool: $ACLDUMP_TOOL; the one beside this package in a Bazel tree; the wheel's
    `acldump` command in this Python's environment; else `acldump` on PATH."""
    tool = os.environ.get("ACLDUMP_TOOL")
    if tool:
        return tool
    package = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(package, "..", "..", "..", "tools", "dump"),  # runfiles
                      os.path.join(sysconfig.get_paths()["scripts"], "acldump")):  # the wheel
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    tool = shutil.which("acldump")
    if tool:
        return tool
    raise FileNotFoundError("the acldump tool was not found: install the acldump release (its "
                            "bin/acldump on PATH) or set ACLDUMP_TOOL to the dump tool")


def _scheduler_of(client):
    if client is None:
        return None
    address = client.scheduler.address if hasattr(client, "scheduler") else str(client)
    if not address or address.startswith("inproc://"):
        raise ValueError("the tool's workers reach a scheduler over the network: give a "
                         "client of a cluster with a tcp:// address (LocalCluster(processes="
                         "True) or a scheduler started with dask-scheduler), not %r" % address)
    return address


def _run(argv, ok_codes=(0,), progress=False):
    """Runs the tool (its results go to files); with `progress`, its messages (a cluster run's
    progress lines) are passed on to this process's stderr as they come."""
    lines = []
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          errors="replace") as proc:
        for line in proc.stderr:
            lines.append(line)
            if progress:
                sys.stderr.write(line)
                sys.stderr.flush()
    if proc.returncode not in ok_codes:
        raise ToolError(argv, proc.returncode, "".join(lines))
    proc.stderr = "".join(lines)
    return proc


def _cluster_args(client, scratch):
    address = _scheduler_of(client)
    if address is None:
        return []
    return ["--scheduler", address] + (["--scratch", os.fspath(scratch)] if scratch else [])


# ---------------------------------------------------------------------------
# open_tree: an index of one or many dump roots.

def _listing(tool, root, cluster):
    with tempfile.TemporaryDirectory(prefix="acldump-ls-") as tmp:
        out = os.path.join(tmp, "ls.json")
        _run([tool, "ls", os.fspath(root), "--json", out] + cluster, progress=bool(cluster))
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def open_tree(paths, client=None, scratch=None):
    """Indexes one or many dump roots (each any level of a tree) as a pandas DataFrame, a row per
    file (TREE_COLUMNS: where it sits in the layout, its operator, task, timestamp, size). The
    roots are scanned in parallel; with `client` each root is scanned in parts by the cluster's
    workers. Files a scan could not read are in ``df.attrs["problems"]``."""
    import pandas as pd
    roots = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    tool = find_tool()
    cluster = _cluster_args(client, scratch)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(8, len(roots)))) as pool:
        listings = list(pool.map(lambda r: _listing(tool, r, cluster), roots))
    rows, problems = [], []
    for root, listing in zip(roots, listings):
        problems.extend(listing["problems"])
        for e in listing["entries"]:
            e = dict(e, root=os.fspath(root), folder=os.path.dirname(e["path"]))
            rows.append(e)
    frame = pd.DataFrame(rows, columns=TREE_COLUMNS)
    frame.attrs["problems"] = problems
    return frame


# ---------------------------------------------------------------------------
# stats: per-tensor statistics as a Dask DataFrame, a partition per dump folder.

def _folder_stats(tool, folder, files):
    """The rows `dump stats` merges for the files of one folder (its stats CSVs, or statistics
    computed from its tensor dumps). Runs where the partition is computed (a worker, or a local
    thread)."""
    import pandas as pd
    with tempfile.TemporaryDirectory(prefix="acldump-stats-") as tmp:
        out, rows = os.path.join(tmp, "stats.csv"), os.path.join(tmp, "stats.json")
        _run([tool, "stats", folder, "--csv", out, "--json", rows])
        frame = pd.read_csv(out, dtype=str, keep_default_na=False)
        with open(rows, encoding="utf-8") as f:
            origin = [row["file"] for row in json.load(f)["rows"]]
    # `dump stats` scans below the folder too: keep this folder's files, each once.
    frame = frame[[path in files for path in origin]].reset_index(drop=True)
    for column in STATS_PREFIX + STATS_COLUMNS:
        if column not in frame.columns:
            frame[column] = ""
    frame = frame[STATS_PREFIX + STATS_COLUMNS]
    for column in _STATS_NUMBERS:
        frame[column] = pd.to_numeric(frame[column].replace({"": None, "NA": None}),
                                      errors="coerce").astype("float64")
    frame.insert(0, "folder", folder)
    return frame


def _stats_meta():
    import pandas as pd
    meta = {"folder": pd.Series(dtype=object)}
    for column in STATS_PREFIX + STATS_COLUMNS:
        meta[column] = pd.Series(dtype="float64" if column in _STATS_NUMBERS else object)
    return pd.DataFrame(meta)


def stats(tree, client=None):
    """Per-tensor statistics of a tree (a DataFrame from open_tree, or paths) as a Dask
    DataFrame: one partition per dump folder, computed when asked (``.compute()``) by the
    `dump stats` code, from the stats CSVs or from the tensor dumps. Nothing is read before.
    Partitions are computed where Dask computes: on the cluster of the current
    distributed Client (the last one made, or ``with client:``), else in local threads;
    `client` scans the tree there too when `tree` is paths."""
    import dask
    import dask.dataframe as dd
    if not hasattr(tree, "columns"):
        tree = open_tree(tree, client=client)
    dumps = tree.loc[tree["kind"].isin(["stats", "tensor"]), ["folder", "path"]]
    if dumps.empty:
        raise ValueError("no stats CSV or tensor dump in the tree")
    tool = find_tool()
    parts = []
    for folder, paths in sorted(dumps.groupby("folder")["path"]):
        files = frozenset(paths)
        key = uuid.uuid5(uuid.NAMESPACE_URL, folder + "\0" + "\0".join(sorted(files)))
        parts.append(dask.delayed(_folder_stats, pure=True)(
            tool, folder, files, dask_key_name="acldump-stats-%s" % key))
    return dd.from_delayed(parts, meta=_stats_meta(), verify_meta=False)


# ---------------------------------------------------------------------------
# compare: `dump compare --json`, folder pair by folder pair on the cluster.

def compare(a, b, client=None, atol=1e-3, rtol=1e-3, op_types=None, match=None,
            iterations=None, model=None, scratch=None, progress=True, by="auto",
            stat_tolerances=None):
    """Compares two trees (or a tree and references) and returns what `dump compare --json`
    writes: verdict, first divergence, every folder pair's operators and metrics. With `client`,
    runs of (device, model, iteration) folder pairs are tasks on the cluster, whose progress is
    shown on stderr (unless `progress` is false); the result is the same, byte for byte.
    `by` and `stat_tolerances` ("COLUMN=ATOL[,RTOL]" each) as --by and --stat-tolerance."""
    tool = find_tool()
    argv = [tool, "compare", os.fspath(a), os.fspath(b), "--atol", repr(float(atol)),
            "--rtol", repr(float(rtol))]
    for t in ([op_types] if isinstance(op_types, str) else op_types or []):
        argv += ["--op-type", t]
    if match:
        argv += ["--match", match]
    if iterations is not None:
        argv += ["--iterations", str(iterations)]
    if model:
        argv += ["--model", model]
    argv += ["--by", by]
    for t in stat_tolerances or []:
        argv += ["--stat-tolerance", t]
    argv += _cluster_args(client, scratch)
    with tempfile.TemporaryDirectory(prefix="acldump-compare-") as tmp:
        out = os.path.join(tmp, "compare.json")
        proc = _run(argv + ["--json", out], ok_codes=(0, 1, 2, 4),
                    progress=progress and client is not None)
        if not os.path.isfile(out):
            raise ToolError(argv, proc.returncode, proc.stderr)
        if proc.returncode == 4:  # some cluster tasks failed for good: the notes say which
            warnings.warn("some folder pairs were not compared: %s" % proc.stderr.strip(),
                          RuntimeWarning, stacklevel=2)
        with open(out, encoding="utf-8") as f:
            return json.load(f)


# ---------------------------------------------------------------------------
# Device (NPU) dumps: `dump convert` and `dump compare-device`.

def read_device_dump(path):
    """Every tensor of a device dump (a file or a folder), read back from the device's layouts
    (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...) to the original model's layout and shape, as `dump
    convert` writes them: {(file name, "input"|"output", index): numpy array}. 8-bit floats come
    back as float32, unsigned integers in the next wider signed type."""
    import numpy as np  # arrays need numpy; the rest of this module does not
    tool = find_tool()
    path = os.fspath(path)
    with tempfile.TemporaryDirectory(prefix="acldump-device-") as tmp:
        _run([tool, "convert", path, "--out", tmp])
        tensors = {}
        pattern = re.compile(r"^(.*)\.(input|output)\.(\d+)\.npy$")
        for folder, _, files in os.walk(tmp):
            for name in files:
                m = pattern.match(name)
                if m:
                    key = (m.group(1), m.group(2), int(m.group(3)))
                    tensors[key] = np.load(os.path.join(folder, name))
        return tensors


def compare_device(device, model, graph=None, inputs=None, out=None, atol=1e-3, rtol=1e-3,
                   engine="acldump-unfused", client=None, scratch=None):
    """`dump compare-device --json`: the device dump against this runtime's run of the original
    ONNX model, operators matched by original name (and the converter graph `graph`); `inputs`
    as --input (default: read from the dump). Returns the JSON dict (verdict, first divergence,
    every operator's metrics); the SDK-style result CSV is written into `out`."""
    tool = find_tool()
    argv = [tool, "compare-device", os.fspath(device), "--model", os.fspath(model),
            "--atol", repr(float(atol)), "--rtol", repr(float(rtol)), "--engine", engine]
    if graph:
        argv += ["--graph", os.fspath(graph)]
    for i in inputs or []:
        argv += ["--input", os.fspath(i)]
    argv += _cluster_args(client, scratch)
    with tempfile.TemporaryDirectory(prefix="acldump-compare-device-") as tmp:
        argv += ["--out", os.fspath(out) if out else tmp]
        result = os.path.join(tmp, "compare.json")
        proc = _run(argv + ["--json", result], ok_codes=(0, 1, 2, 4))
        if not os.path.isfile(result):
            raise ToolError(argv, proc.returncode, proc.stderr)
        with open(result, encoding="utf-8") as f:
            return json.load(f)


# ---------------------------------------------------------------------------
# replay: `dump replay --json`.

def _json_of(argv):
    """Runs a command that exits 0 or 1 with a verdict and returns the JSON it writes."""
    with tempfile.TemporaryDirectory(prefix="acldump-%s-" % argv[1]) as tmp:
        out = os.path.join(tmp, "result.json")
        proc = _run(argv + ["--json", out], ok_codes=(0, 1))
        if not os.path.isfile(out):
            raise ToolError(argv, proc.returncode, proc.stderr)
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def replay(dump_file, model, input_shape=None):
    """Re-runs the operator of one dump file (a dump of dump_mode "all") from its dumped inputs
    and returns what `dump replay --json` writes: whether the fused kernel reproduces the dumped
    outputs bit for bit ("reproduced"), and with an .onnx model each output's distance from its
    original operators run unfused in float64. Raises ToolError when the file cannot be
    replayed (the tool's message says why)."""
    argv = [find_tool(), "replay", os.fspath(dump_file), "--model", os.fspath(model)]
    if input_shape:
        argv += ["--input-shape", input_shape]
    return _json_of(argv)


# ---------------------------------------------------------------------------
# locate: `dump locate --json`.

def locate(model, inputs=None, reference=None, engine="auto", atol=1e-3, rtol=1e-3, seed=0,
           input_shape=None):
    """Bisects to the first operator whose output departs from a reference (made by `engine`
    from the same inputs, or the `reference` folder or dump tree given) and returns what
    `dump locate --json` writes: the steps taken and "first" (None when nothing departs)."""
    argv = [find_tool(), "locate", "--model", os.fspath(model), "--atol", repr(float(atol)),
            "--rtol", repr(float(rtol)), "--seed", str(seed), "--engine", engine]
    for path in inputs or []:
        argv += ["--input", os.fspath(path)]
    if reference:
        argv += ["--reference", os.fspath(reference)]
    if input_shape:
        argv += ["--input-shape", input_shape]
    return _json_of(argv)
