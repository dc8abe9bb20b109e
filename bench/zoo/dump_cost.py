#!/usr/bin/env python3
"""What dumping every operator output costs on the zoo models, SDK and packed layouts.

  dump_cost.py --work DIR --zoo-dump-cost BIN [--rounds 3] [--seconds 1.0]
      [--readme bench/README.md | --no-readme] model...

Each model runs in its own zoo_dump_cost process (one intra-op thread): without an observer, then
with stats and with full tensors of every output, in the SDK layout (one file per operator
execution) and the packed one (one file per iteration). A mode's time is per execution, including
the final flush, the fastest of its rounds. The ratios are to no observer; the summary rows give the
geometric mean and the worst. Dumps go below one folder that is removed only after the last model:
on ext4 without a journal, deleting thousands of files makes every file created in the next few
minutes slower, so removing each model's dumps before the next model would measure the cleanup.
The table goes into the README between zoo-dump-cost markers and, as JSON, to stdout.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import geomean, write_readme  # noqa: E402

MODES = [("stats", "stats, SDK"), ("tensor_all", "tensors, SDK"),
         ("stats_packed", "stats, packed"), ("tensor_all_packed", "tensors, packed")]


def measure(args, model, env):
    cmd = [args.zoo_dump_cost, "--rounds", str(args.rounds), "--seconds", str(args.seconds),
           os.path.join(args.work, f"{model}.om")]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(results, models):
    head = ["model", "nodes", "no dump ms", "tensor MB/run"] + [label for _, label in MODES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ok = [m for m in models if m in results]
    for model in models:
        r = results.get(model)
        if r is None:
            lines.append("| " + " | ".join([model, "", "failed", ""] + [""] * len(MODES)) + " |")
            continue
        base = r["no_observer_ms"]
        cells = [model, str(r["nodes"]), "%.2f" % base, "%.1f" % r["tensor_all_mb"]]
        cells += ["%.2fx" % (r[f"{mode}_ms"] / base) for mode, _ in MODES]
        lines.append("| " + " | ".join(cells) + " |")
    for label, fold in (("geomean", geomean), ("worst", max)):
        cells = [f"**{label}**", "", "", ""]
        for mode, _ in MODES:
            ratios = [results[m][f"{mode}_ms"] / results[m]["no_observer_ms"] for m in ok]
            cells.append("**%.2fx**" % fold(ratios) if ratios else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--zoo-dump-cost", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--readme")
    parser.add_argument("--no-readme", action="store_true")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds and --seconds must be positive")
    dumps = tempfile.mkdtemp(prefix="acldump-zoo-dumps-", dir=args.work)
    env = dict(os.environ, ACLDUMP_BENCH_DIR=dumps, ACLDUMP_BENCH_KEEP="1")
    results = {}
    try:
        for model in args.models:
            try:
                results[model] = r = measure(args, model, env)
                base = r["no_observer_ms"]
                print(f"dump cost: {model}: no dump {base:.2f} ms, " + ", ".join(
                    f"{label} {r[mode + '_ms'] / base:.2f}x" for mode, label in MODES),
                    file=sys.stderr)
            except (RuntimeError, ValueError) as e:
                print(f"dump cost: {model} failed: {e}", file=sys.stderr)
    finally:
        shutil.rmtree(dumps, ignore_errors=True)
    text = table(results, args.models)
    if args.readme and not args.no_readme:
        write_readme(args.readme, text, "zoo-dump-cost")
    print(json.dumps(results, indent=1))
    print(text, file=sys.stderr)
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main())
