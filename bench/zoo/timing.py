#!/usr/bin/env python3
"""Times the zoo models with acldump and ONNX Runtime, side by side.

  timing.py --work DIR --zoo-run BIN --ort-run ort_run.js --node-path DIR \
      [--threads 1,2] [--rounds 3] [--seconds 1.0] [--readme bench/README.md] model...
  timing.py --write-table MARKER --readme bench/README.md < table.md

For every model, thread count and round, both engines run in their own process (ORT first in even
rounds, acldump first in odd ones): two warm-up runs, then as many runs as fill about --seconds.
A side's time is the median of its runs in a round, and the fastest of its rounds: a burst of
noise on this shared VM slows one round, not all. The ratio is acldump / ORT; the summary rows
give the geometric mean and the worst. The table goes into the README between zoo-timing markers
and, as JSON, to stdout.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys


def run_side(cmd, env):
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])["ms"]


def commands(args, model, threads, runs):
    inputs = [os.path.join(args.work, f"{model}.input.npy")]
    ort = ["node", args.ort_run, "--time", str(runs), "--threads", str(threads),
           os.path.join(args.work, f"{model}.onnx"), "-"] + inputs
    acl = [args.zoo_run, "--time", str(runs), "--threads", str(threads),
           os.path.join(args.work, f"{model}.om"), "-"] + inputs
    return ort, acl


def time_model(args, model, threads, env):
    # A first short run of each side sizes the runs of the timed rounds.
    ort_cmd, acl_cmd = commands(args, model, threads, 3)
    probe = max(statistics.median(run_side(ort_cmd, env)),
                statistics.median(run_side(acl_cmd, env)))
    runs = max(3, min(200, int(args.seconds * 1000 / max(probe, 1e-3))))
    ort_cmd, acl_cmd = commands(args, model, threads, runs)
    best = {"ort": math.inf, "acldump": math.inf}
    for r in range(args.rounds):
        order = [("ort", ort_cmd), ("acldump", acl_cmd)]
        if r % 2:
            order.reverse()
        for side, cmd in order:
            best[side] = min(best[side], statistics.median(run_side(cmd, env)))
    return {"ort_ms": best["ort"], "acldump_ms": best["acldump"],
            "ratio": best["acldump"] / best["ort"], "runs": runs}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def table(results, models, thread_counts):
    head = ["model"]
    for t in thread_counts:
        head += [f"ORT ms ({t}t)", f"acldump ms ({t}t)", f"acldump/ORT ({t}t)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for model in models:
        cells = [model]
        for t in thread_counts:
            m = results[model].get(str(t))
            cells += (["%.2f" % m["ort_ms"], "%.2f" % m["acldump_ms"], "%.2f" % m["ratio"]]
                      if m else ["", "", "failed"])
        lines.append("| " + " | ".join(cells) + " |")
    for label, fold in (("geomean", geomean), ("worst", max)):
        cells = [f"**{label}**"]
        for t in thread_counts:
            ratios = [results[m][str(t)]["ratio"] for m in models if str(t) in results[m]]
            cells += ["", "", "**%.2f**" % fold(ratios) if ratios else ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_readme(path, text, marker="zoo-timing"):
    """Puts `text` between the README's <!-- marker-begin/end --> lines (appended if absent)."""
    content = open(path).read()
    begin, end = f"<!-- {marker}-begin -->", f"<!-- {marker}-end -->"
    if begin in content and end in content:
        head, rest = content.split(begin, 1)
        content = head + begin + "\n" + text + "\n" + end + rest.split(end, 1)[1]
    else:
        content += "\n" + begin + "\n" + text + "\n" + end + "\n"
    with open(path + ".tmp", "w") as f:
        f.write(content)
    os.replace(path + ".tmp", path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work")
    parser.add_argument("--zoo-run")
    parser.add_argument("--ort-run")
    parser.add_argument("--node-path")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--readme")
    parser.add_argument("--no-readme", action="store_true")
    parser.add_argument("--write-table", metavar="MARKER",
                        help="only put the table read from stdin between MARKER's lines of "
                             "--readme (run.sh's accuracy table)")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    if args.write_table:
        write_readme(args.readme, sys.stdin.read().strip("\n"), args.write_table)
        return
    if not args.models:
        parser.error("name at least one model")
    for flag in ("work", "zoo_run", "ort_run", "node_path"):
        if getattr(args, flag) is None:
            parser.error(f"--{flag.replace('_', '-')} is required to time models")
    thread_counts = [int(t) for t in args.threads.split(",")]
    env = dict(os.environ, NODE_PATH=args.node_path)
    results = {}
    for model in args.models:
        results[model] = {}
        for t in thread_counts:
            try:
                results[model][str(t)] = time_model(args, model, t, env)
                m = results[model][str(t)]
                print(f"timing: {model} {t}t: ORT {m['ort_ms']:.2f} ms, acldump "
                      f"{m['acldump_ms']:.2f} ms, {m['ratio']:.2f}x", file=sys.stderr)
            except (RuntimeError, ValueError) as e:
                print(f"timing: {model} {t}t failed: {e}", file=sys.stderr)
    text = table(results, args.models, thread_counts)
    if args.readme and not args.no_readme:
        write_readme(args.readme, text)
    print(json.dumps(results, indent=1))
    print(text, file=sys.stderr)


if __name__ == "__main__":
    main()
