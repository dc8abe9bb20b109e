#!/usr/bin/env python3
"""The wide zoo's speed against ONNX Runtime: steady-state time at each thread count, first-run
latency and peak memory of a fresh process, what dumping every output costs, and where the time
goes by op type.

Usage (wide_speed.sh builds and calls this):
  wide_speed.py --work DIR --bin BIN --node-path NODE_MODULES [--models a,b] [--threads 1,2]
                [--rounds 3] [--seconds 1.0] [--first-runs 3] [--steps speed,first,dump,profile]
                [--readme README]

For every model (exported and converted into WORK as wide.py does, when not there yet):
- **speed**: both engines in their own processes, interleaved rounds (timing.py's method): the
  median run of a round, the fastest round; acldump / ONNX Runtime at each thread count;
- **first run**: --first-runs fresh processes per engine, alternating: the time from loading the
  model file (acldump) or creating the session (ONNX Runtime) to the end of the first execution,
  the fastest of them; and the peak resident memory after two more executions, less the memory
  before the load (the engine's own runtime, Node.js's for ONNX Runtime, is not the model's), the
  median of them; both at one thread;
- **dump cost**: every output dumped in the packed layout, stats and full tensors, against no
  dump (zoo_dump_cost, one intra-op thread);
- **profile**: one thread, each engine's time by op type (acldump's observer, ONNX Runtime's
  profiler; fused nodes count under their op type, and op types the engines fuse differently
  as one family: MatMul/Gemm, the layer norms, Gelu); the family acldump is furthest behind on
  goes into the table, the whole comparison into WORK/wide-speed-profiles/MODEL.txt.
--steps measures only some of these; the rest of each model's row is kept from the last run.
ONNX Runtime runs with all graph optimisations (its default), quantized copies too: its fastest.
Results are kept per model in WORK/wide-speed.json (a run of a few models replaces theirs) and the
table, over every model there, goes to stdout and with --readme into bench/README.md between
<!-- wide-speed-begin/end -->.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"
sys.path.insert(0, HERE)
from timing import geomean, write_readme  # noqa: E402
from wide import inputs_of  # noqa: E402

# Op types compared as one: the two engines fuse differently (ONNX Runtime runs MatMul + Add as
# Gemm, acldump as MatMul with a bias; its layer norms are three op types; its QuickGelu is
# x * Sigmoid(alpha * x), which with alpha 1 is what acldump runs as Swish).
FAMILIES = {"MatMul": "MatMul/Gemm", "Gemm": "MatMul/Gemm", "FusedMatMul": "MatMul/Gemm",
            "FusedGemm": "MatMul/Gemm", "FusedConv": "Conv", "NhwcFusedConv": "Conv",
            "NhwcConv": "Conv", "SimplifiedLayerNormalization": "LayerNormalization",
            "SkipLayerNormalization": "LayerNormalization",
            "SkipSimplifiedLayerNormalization": "LayerNormalization",
            "FastGelu": "Gelu", "BiasGelu": "Gelu", "QuickGelu": "Swish"}
STEPS = ("speed", "first", "dump", "profile")


def run_json(cmd, env, timeout):
    """The JSON of the command's last line of output; RuntimeError if it fails or prints none."""
    name = os.path.basename(cmd[0 if cmd[0] != "node" else 1])
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{name}: took more than {timeout} s")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{name}: {done.stderr.strip()[-400:] or 'no output'}")
    return json.loads(lines[-1])


class Model:
    def __init__(self, args, name):
        self.name = name
        self.onnx = os.path.join(args.work, f"{name}.onnx")
        self.om = os.path.join(args.work, f"{name}.om")
        self.inputs = inputs_of(args.work, name)

    def commands(self, args, mode, runs, threads):
        ort = ["node", os.path.join(HERE, "ort_run.js"), f"--{mode}", str(runs), "--threads",
               str(threads), self.onnx, "-"] + self.inputs
        acl = [os.path.join(args.bin, "bench/zoo/zoo_run"), f"--{mode}", str(runs), "--threads",
               str(threads), self.om, "-"] + self.inputs
        return ort, acl


def prepare(args, model):
    """Exports and converts what WORK does not hold yet; the reason if the model cannot run."""
    if not os.path.exists(model.onnx) or not model.inputs:
        done = subprocess.run([PYTHON, os.path.join(HERE, "export_wide.py"), args.work,
                               model.name], capture_output=True, text=True)
        if done.returncode != 0:
            return "not exported: " + (done.stderr.strip().splitlines() or [""])[-1][:200]
        model.inputs = inputs_of(args.work, model.name)
    if not os.path.exists(model.om) or os.path.getmtime(model.om) < os.path.getmtime(model.onnx):
        done = subprocess.run([os.path.join(args.bin, "tools/convert"), model.onnx, model.om],
                              capture_output=True, text=True)
        if done.returncode != 0:
            return "does not convert: " + (done.stderr.strip().splitlines() or [""])[-1][-200:]
    return None


def speed(args, model, threads, env):
    def median_ms(cmd):
        return statistics.median(run_json(cmd, env, args.timeout)["ms"])
    ort, acl = model.commands(args, "time", 3, threads)
    probe = max(median_ms(ort), median_ms(acl))
    runs = max(3, min(200, int(args.seconds * 1000 / max(probe, 1e-3))))
    ort, acl = model.commands(args, "time", runs, threads)
    best = {"ort": math.inf, "acldump": math.inf}
    for r in range(args.rounds):
        order = [("ort", ort), ("acldump", acl)]
        for side, cmd in (order if r % 2 == 0 else order[::-1]):
            best[side] = min(best[side], median_ms(cmd))
    return {"ort_ms": best["ort"], "acldump_ms": best["acldump"],
            "ratio": best["acldump"] / best["ort"]}


def first_run(args, model, env):
    ort, acl = model.commands(args, "first-run", 2, 1)
    seen = {"ort": [], "acldump": []}
    for r in range(args.first_runs):
        order = [("ort", ort), ("acldump", acl)]
        for side, cmd in (order if r % 2 == 0 else order[::-1]):
            seen[side].append(run_json(cmd, env, args.timeout))
    out = {}
    for side, runs in seen.items():
        out[f"{side}_first_ms"] = min(r["load_ms"] + r["first_run_ms"] for r in runs)
        out[f"{side}_load_ms"] = min(r["load_ms"] for r in runs)
        out[f"{side}_rss_mb"] = statistics.median(r["peak_rss_mb"] - r["rss_before_mb"]
                                                  for r in runs)
    out["first_ratio"] = out["acldump_first_ms"] / out["ort_first_ms"]
    out["rss_ratio"] = out["acldump_rss_mb"] / max(out["ort_rss_mb"], 1e-3)
    return out


def dump_cost(args, model, env):
    cmd = [os.path.join(args.bin, "bench/zoo/zoo_dump_cost"), "--rounds", str(args.rounds),
           "--seconds", str(args.seconds), "--only", "stats_packed,tensor_all_packed", model.om]
    r = run_json(cmd, env, args.timeout)
    base = r["no_observer_ms"]
    return {"nodes": r["nodes"], "stats_ratio": r["stats_packed_ms"] / base,
            "tensors_ratio": r["tensor_all_packed_ms"] / base,
            "tensor_mb": r["tensor_all_packed_mb"]}


def by_family(profile):
    """[(family, acldump ms, ORT ms)], the largest gap (acldump - ORT) first."""
    merged = {}
    for side, index in (("acldump", 0), ("ort", 1)):
        for op, ms in profile[side].items():
            merged.setdefault(FAMILIES.get(op, op), [0.0, 0.0])[index] += ms
    return sorted(((op, a, o) for op, (a, o) in merged.items()), key=lambda r: r[1] - r[2],
                  reverse=True)


def behind(profile):
    if not profile:
        return ""
    op, a, o = by_family(profile)[0]
    return f"{op} {a - o:+.2f} ms" if a > o else ""


def profile(args, model, env):
    ort, acl = model.commands(args, "profile", 5, 1)
    result = {"ort": run_json(ort, env, args.timeout)["by_type"],
              "acldump": run_json(acl, env, args.timeout)["by_type"]}
    lines = [f"{model.name}: time per run by op type, one thread (acldump / ONNX Runtime)",
             f"{'op type':<28} {'acldump ms':>11} {'ORT ms':>9} {'gap ms':>9}"]
    lines += [f"{op:<28} {a:>11.3f} {o:>9.3f} {a - o:>+9.3f}" for op, a, o in by_family(result)]
    folder = os.path.join(args.work, "wide-speed-profiles")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{model.name}.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return result


def measure(args, name, env, row):
    """Takes the chosen steps' measures into `row` (a model's earlier row: the others stay)."""
    model = Model(args, name)
    reason = prepare(args, model)
    if reason:
        # The model's earlier measures stay; the row says why none were taken.
        row.setdefault("failures", {})["prepare"] = reason
        row["reason"] = "; ".join(f"{k}: {v}" for k, v in row["failures"].items())
        return row
    steps = []
    if "speed" in args.steps:
        steps += [(f"{t}t", lambda t=t: speed(args, model, t, env)) for t in args.thread_counts]
    if "first" in args.steps:
        steps.append(("first", lambda: first_run(args, model, env)))
    if "dump" in args.steps:
        steps.append(("dump", lambda: dump_cost(args, model, env)))
    if "profile" in args.steps:
        steps.append(("profile", lambda: profile(args, model, env)))
    failures = {}
    for key, step in steps:
        row.pop(key, None)
        try:
            row[key] = step()
        except (RuntimeError, ValueError, KeyError, IndexError) as e:
            failures[key] = str(e)[:200]
    row["failures"] = {k: v for k, v in row.get("failures", {}).items()
                       if k not in dict(steps) and k != "prepare"}
    row["failures"].update(failures)
    row["reason"] = "; ".join(f"{k}: {v}" for k, v in row["failures"].items())
    return row


def cell(value, fmt="%.2f"):
    return fmt % value if value is not None else ""


def table(results, thread_counts):
    head = ["model"]
    for t in thread_counts:
        head += [f"ORT ms {t}t", f"acldump ms {t}t", f"ratio {t}t"]
    head += ["first run ORT ms", "first run acldump ms", "ratio", "peak RSS ORT MB",
             "peak RSS acldump MB", "ratio", "stats dump", "tensor dump", "most behind on"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    columns = {}
    for name, r in results.items():
        cells = [name]
        for t in thread_counts:
            s = r.get(f"{t}t")
            cells += [cell(s and s["ort_ms"]), cell(s and s["acldump_ms"]), cell(s and s["ratio"])]
            if s:
                columns.setdefault(f"{t}t", []).append(s["ratio"])
        f = r.get("first")
        cells += [cell(f and f["ort_first_ms"], "%.0f"), cell(f and f["acldump_first_ms"], "%.0f"),
                  cell(f and f["first_ratio"]), cell(f and f["ort_rss_mb"], "%.0f"),
                  cell(f and f["acldump_rss_mb"], "%.0f"), cell(f and f["rss_ratio"])]
        if f:
            columns.setdefault("first", []).append(f["first_ratio"])
            columns.setdefault("rss", []).append(f["rss_ratio"])
        d = r.get("dump")
        cells += [cell(d and d["stats_ratio"], "%.2fx"), cell(d and d["tensors_ratio"], "%.2fx")]
        if d:
            columns.setdefault("stats", []).append(d["stats_ratio"])
            columns.setdefault("tensors", []).append(d["tensors_ratio"])
        slowest = behind(r.get("profile"))
        cells.append("; ".join(x for x in (slowest, r["reason"]) if x).replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    for label, fold in (("geomean", geomean), ("worst", max)):
        cells = [f"**{label}**"]
        bold = lambda key, fmt="%.2f": (("**" + fmt + "**") % fold(columns[key])
                                        if columns.get(key) else "")
        for t in thread_counts:
            cells += ["", "", bold(f"{t}t")]
        cells += ["", "", bold("first"), "", "", bold("rss"), bold("stats", "%.2fx"),
                  bold("tensors", "%.2fx"), ""]
        lines.append("| " + " | ".join(cells) + " |")
    timed = len(columns.get(f"{thread_counts[0]}t", []))
    lines += ["", f"{len(results)} models, {timed} timed."]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--bin", required=True,
                        help="a folder with tools/convert, bench/zoo/zoo_run and zoo_dump_cost")
    parser.add_argument("--node-path", required=True)
    parser.add_argument("--models", default="")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--first-runs", type=int, default=3)
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--steps", default=",".join(STEPS),
                        help="what to measure (the rest of a model's row is kept): "
                             + ",".join(STEPS))
    parser.add_argument("--readme")
    args = parser.parse_args()
    if args.rounds < 1 or args.seconds <= 0 or args.first_runs < 1:
        parser.error("--rounds, --seconds and --first-runs must be positive")
    try:
        args.thread_counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        parser.error(f"--threads {args.threads}: expected counts such as 1,2")
    args.steps = args.steps.split(",")
    unknown = [s for s in args.steps if s not in STEPS]
    if unknown:
        parser.error(f"--steps: {','.join(unknown)} not among {','.join(STEPS)}")
    listed = subprocess.run([PYTHON, os.path.join(HERE, "export_wide.py"), "--list"],
                            capture_output=True, text=True, check=True).stdout.split()
    names = args.models.split(",") if args.models else listed
    # The dumps stay on disk (emptied) until the run is over: files deleted by
    # one model's process make the next one's file creation slow on ext4
    # without a journal (it skips inodes freed in the last minutes), which
    # would be charged to that model's dump.
    dumps = os.path.join(args.work, "wide-speed-dumps")
    env = dict(os.environ, NODE_PATH=args.node_path, ACLDUMP_BENCH_DIR=dumps,
               ACLDUMP_BENCH_KEEP="1")
    store = os.path.join(args.work, "wide-speed.json")
    results = {}
    if os.path.exists(store):
        with open(store) as f:
            results = json.load(f)
    try:
        for name in names:
            results[name] = measure(args, name, env, results.get(name, {}))
            print(f"wide speed: {name}: {json.dumps(results[name])}", file=sys.stderr,
                  flush=True)
            with open(store + ".tmp", "w") as f:
                json.dump(results, f, indent=1)
            os.replace(store + ".tmp", store)
    finally:
        shutil.rmtree(dumps, ignore_errors=True)
    order = {name: i for i, name in enumerate(listed)}
    ordered = dict(sorted(results.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    text = table(ordered, args.thread_counts)
    print(text)
    if args.readme:
        write_readme(args.readme, text, marker="wide-speed")


if __name__ == "__main__":
    main()
