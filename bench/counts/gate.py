#!/usr/bin/env python3
"""Instruction-count gate: `bazel run //bench/counts:gate` (and `bazel test //bench/counts:gate_test`).

Runs the cases of count_cases under callgrind, twice, in two processes at once. Each case counts
the instructions of one measured region (one model execution, a stats pass over 4 MiB, ...) on
the thread that runs it, with one intra-op thread and the SIMD targets pinned to AVX2, so a count
is the same from run to run whatever else the machine does. The gate then

- checks itself: a case whose two runs differ by more than --max-run-spread (0.1 %) is a defect of
  the gate (something on the measured path is not deterministic), reported as such (exit 3);
- compares each case with bench/counts/baseline.json: more than its tolerance (0.5 %) above the
  baseline fails (exit 1) and prints the functions whose own counts moved most, against the
  baseline's profile, so the regression is located, not only flagged; more than the tolerance
  below is reported as an improvement to record in the baseline;
- computes ratios from the same run (dump off / no observer, instructions per dumped node, ...)
  and checks them against the limits in the baseline.

--update-baseline writes the measured counts and profiles into the workspace's baseline (run it
with `bazel run`); commit that on its own, with the reason in the message. --history FILE
appends this run's counts and ratios, keyed by commit, for bench/history.py.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import callgrind_profile  # noqa: E402
import history  # noqa: E402

# A `rep movsb` / `rep stosb` counts one instruction per byte under valgrind, while a vector loop
# counts one per 32 bytes: glibc picks between them by size and by what the CPU reports, so both
# thresholds are pinned out of reach and copies count as the vector loops they compare with.
GLIBC_TUNABLES = ("glibc.cpu.x86_rep_movsb_threshold=0x40000000:"
                  "glibc.cpu.x86_rep_stosb_threshold=0x40000000")

MODES = ("no_observer", "dump_off", "not_selected", "step_not_selected", "stats", "tensor_all",
         "stats_packed", "tensor_all_packed")
QUIET_MODES = ("dump_off", "not_selected", "step_not_selected")
WRITING_MODES = ("stats", "tensor_all", "stats_packed", "tensor_all_packed")
# Functions kept in a baseline's profile: those with at least this share of the case.
PROFILE_CUT = 0.001
TOP_MOVERS = 8
# Functions are named by their first characters in profiles (C++ names run long).
NAME_LIMIT = 160


class GateError(Exception):
    """The gate could not measure (not a regression): setup, valgrind or binary failures."""


def runfile(name):
    for base in (os.environ.get("RUNFILES_DIR"), os.getcwd(), HERE):
        if not base:
            continue
        for candidate in (os.path.join(base, "acldump", "bench", "counts", name),
                          os.path.join(base, "bench", "counts", name), os.path.join(base, name)):
            if os.path.exists(candidate):
                return candidate
    raise GateError(f"cannot find {name} in the runfiles (run the gate through bazel)")


def runfiles_root(binary):
    """The folder the case binary reads testdata/ from."""
    for base in (os.environ.get("RUNFILES_DIR"), os.getcwd()):
        if base and os.path.exists(os.path.join(base, "acldump", "testdata")):
            return os.path.join(base, "acldump")
        if base and os.path.exists(os.path.join(base, "testdata")):
            return base
    runfiles = binary + ".runfiles"
    if os.path.exists(os.path.join(runfiles, "acldump", "testdata")):
        return os.path.join(runfiles, "acldump")
    raise GateError("cannot find testdata/ beside the case binary")


def valgrind():
    path = shutil.which("valgrind")
    if not path:
        raise GateError("valgrind is not installed (Debian package valgrind; ./bazelw installs it)")
    return path


class Run:
    """The profiles and case descriptions of one process of count_cases under callgrind."""

    def __init__(self, cases, profiles):
        self.cases = cases  # name -> {"units", "unit", "nodes"}
        self.profiles = profiles  # name -> callgrind_profile.Profile

    def value(self, name):
        return self.profiles[name].total / self.cases[name]["units"]


def measure(binary, pattern, work_dir, extra_env):
    """Runs the cases matching `pattern` once under callgrind; returns a Run."""
    os.makedirs(work_dir)
    dumps = os.path.join(work_dir, "dumps")
    os.makedirs(dumps)
    # The same few variables everywhere: reading the environment (getenv) costs what its size
    # is, which differs between `bazel run`, `bazel test` and machines.
    env = dict(PATH="/usr/bin:/bin", LANG="C.UTF-8", GLIBC_TUNABLES=GLIBC_TUNABLES,
               ACLDUMP_INTRA_OP_THREADS="1", DNNL_MAX_CPU_ISA="AVX2", ACLDUMP_BENCH_DIR=dumps,
               ACLDUMP_COUNTS_DATA=runfiles_root(binary))
    env.update(extra_env)
    out = os.path.join(work_dir, "cg.out")
    # One file per thread and dump: the cases run on the main thread (01). Counting is off on
    # every other thread, but without separate files their calls would be counted into the
    # main thread's call graph.
    cmd = [valgrind(), "--tool=callgrind", "--separate-threads=yes", "--collect-atstart=no",
           "--instr-atstart=no", f"--callgrind-out-file={out}", binary, f"--cases={pattern}"]
    # A working directory of the same length everywhere, for the same reason.
    proc = subprocess.run(cmd, cwd=work_dir, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise GateError(f"{os.path.basename(binary)} exited with {proc.returncode} under "
                        f"valgrind:\n{tail}")
    cases = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[0] == "case":
            cases[parts[1]] = {"units": float(parts[2]), "unit": parts[3], "nodes": int(parts[4])}
    profiles = {}
    for path in glob.glob(out + ".*-01"):
        profile = callgrind_profile.normalize_allocator(callgrind_profile.read(path))
        if profile.name is not None:
            profiles[profile.name] = profile
    missing = sorted(set(cases) - set(profiles))
    if missing:
        raise GateError(f"callgrind wrote no counts for {', '.join(missing)} (is the binary "
                        "built with the client requests?)")
    return Run(cases, profiles)


def measure_twice(binary, pattern, work_dir, extra_env, jobs):
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(measure, binary, pattern, os.path.join(work_dir, f"run{k}"),
                               extra_env) for k in (1, 2)]
        return [f.result() for f in futures]


def per_unit_profile(run, name, cut=PROFILE_CUT, keep=()):
    """Functions' own counts per unit, the ones under `cut` of the case (and not in `keep`)
    summed as one row."""
    profile, units = run.profiles[name], run.cases[name]["units"]
    kept, other = {}, 0
    for function, count in profile.functions.items():
        key = function[:NAME_LIMIT]
        if count >= cut * profile.total or key in keep:
            kept[key] = kept.get(key, 0) + count
        else:
            other += count
    kept = {k: round(v / units) for k, v in kept.items()}
    kept["(functions under the profile's cut)"] = round(other / units)
    return kept


def ratios(values, cases):
    """Ratios and per-node figures from one run: (name -> value)."""
    out = {}
    families = sorted({n.split("/")[0] for n in values if n.endswith("/no_observer")})
    for family in families:
        base = values[f"{family}/no_observer"]
        for mode in MODES[1:]:
            name = f"{family}/{mode}"
            if name not in values:
                continue
            out[f"{family}_{mode}_vs_no_observer"] = values[name] / base
            if mode in WRITING_MODES and cases[name]["nodes"] > 0:
                out[f"{family}_{mode}_per_node"] = (values[name] - base) / cases[name]["nodes"]
    # What a checksum adds to the statistics pass it rides in.
    for dtype in ("f32", "f16"):
        plain, hashed = f"stats_kernel/{dtype}", f"stats_kernel/{dtype}_checksum"
        if plain in values and hashed in values:
            out[f"stats_kernel_{dtype}_checksum_vs_stats"] = values[hashed] / values[plain]
    return out


def within(limit, value):
    return value <= limit["max"] if "max" in limit else value >= limit["min"]


def movers(current, baseline_functions, count=TOP_MOVERS):
    """The functions whose own counts moved most, largest change first."""
    rows = []
    for function in set(current) | set(baseline_functions):
        before = baseline_functions.get(function)
        delta = current.get(function, 0) - (before or 0)
        if delta:
            rows.append((delta, before is None, function))
    rows.sort(key=lambda r: -abs(r[0]))
    return rows[:count]


def report(runs, baseline, args):
    """Prints the report; returns the exit code (0 pass, 1 regression, 3 gate defect)."""
    first, second = runs
    names = [n for n in first.cases]
    values = {n: first.value(n) for n in names}
    tolerance = baseline.get("tolerance", 0.005)
    base_cases = baseline.get("cases", {})
    defects, regressed, improved, unknown = [], [], [], []
    print(f"\n{'case':36} {'instructions':>15} {'per':>9} {'baseline':>15} {'change':>8}  verdict")
    for name in names:
        a, b = first.value(name), second.value(name)
        spread = abs(a - b) / max(a, b, 1)
        base = base_cases.get(name, {}).get("instructions")
        change = None if not base else values[name] / base - 1
        verdict = "ok"
        if spread > args.max_run_spread:
            verdict = f"GATE DEFECT: the two runs differ by {spread:.3%} ({a:,.0f} vs {b:,.0f})"
            defects.append(name)
        elif base is None:
            verdict = "NO BASELINE (run --update-baseline)"
            unknown.append(name)
        elif change > base_cases[name].get("tolerance", tolerance):
            verdict = f"REGRESSED (limit +{base_cases[name].get('tolerance', tolerance):.1%})"
            regressed.append(name)
        elif change < -base_cases[name].get("tolerance", tolerance):
            verdict = "improved: record it with --update-baseline"
            improved.append(name)
        shown_change = "-" if change is None else f"{change:+.2%}"
        shown_base = "-" if base is None else f"{base:,.0f}"
        print(f"{name:36} {values[name]:15,.0f} {first.cases[name]['unit']:>9} {shown_base:>15} "
              f"{shown_change:>8}  {verdict}")

    measured = ratios(values, first.cases)
    limits = baseline.get("ratios", {})
    failing_ratios = []
    print(f"\n{'ratio (instructions, same run)':46} {'measured':>12} {'limit':>12}  verdict")
    for name, value in measured.items():
        limit = limits.get(name)
        shown = "-" if limit is None else (
            f"<= {limit['max']}" if "max" in limit else f">= {limit['min']}")
        verdict = "info" if limit is None else ("ok" if within(limit, value) else "REGRESSED")
        if verdict == "REGRESSED":
            failing_ratios.append(name)
        print(f"{name:46} {value:12.4f} {shown:>12}  {verdict}")

    for name in regressed + improved:
        base = base_cases[name]
        # Cut as the baseline's profile was, so that the rows under the cut compare.
        current = per_unit_profile(first, name, keep=base.get("functions", {}))
        print(f"\n{name}: {values[name] / base['instructions'] - 1:+.2%} against the baseline; "
              "the functions whose own counts moved most (per "
              f"{first.cases[name]['unit']}):")
        for delta, new, function in movers(current, base.get("functions", {})):
            note = "  (not in the baseline's profile)" if new else ""
            print(f"  {delta:+15,.0f}  {function}{note}")

    if args.json_out:
        with open(history.workspace_path(args.json_out), "w") as f:
            json.dump({"counts": values, "ratios": measured}, f, indent=1, sort_keys=True)
    if args.history:
        append_history(args.history, values, measured)
    if args.update_baseline:
        update_baseline(first, baseline, names, args.max_run_spread,
                        args.update_baseline == "all")

    print()
    if defects:
        print(f"GATE DEFECT in {len(defects)} case(s): {', '.join(defects)}. Two runs of the same "
              "binary must count the same; find what on the measured path is not deterministic.")
        return 3
    failed = regressed + failing_ratios + unknown
    if improved:
        print(f"{len(improved)} case(s) improved past the tolerance: {', '.join(improved)}. "
              "Record them with --update-baseline, in a commit of their own.")
    if failed and not args.update_baseline:
        print(f"{len(failed)} check(s) failed: {', '.join(failed)}. A regression is fixed, or "
              "accepted by updating the baseline in its own commit that says why.")
        return 1
    print(f"all {len(names)} cases within their baselines, all ratios within their limits "
          f"(runs agree within {args.max_run_spread:.1%})")
    return 0


def append_history(path, values, measured):
    history.append_entry(path, "counts", {**{n: round(v) for n, v in values.items()},
                                          **{n: round(v, 6) for n, v in measured.items()}})


def update_baseline(run, baseline, names, spread, everything):
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not workspace:
        raise GateError("--update-baseline writes into the workspace: run it with bazel run")
    path = os.path.join(workspace, "bench", "counts", "baseline.json")
    cases = dict(baseline.get("cases", {}))
    for name in names:
        old = cases.get(name, {}).get("instructions")
        # Cases that did not move past the runs' own spread keep their lines: the commit
        # shows what changed.
        if old and not everything and abs(run.value(name) / old - 1) <= spread:
            continue
        kept = {k: v for k, v in cases.get(name, {}).items() if k == "tolerance"}
        cases[name] = {"instructions": round(run.value(name)), "unit": run.cases[name]["unit"],
                       **kept, "functions": per_unit_profile(run, name)}
    baseline = dict(baseline, cases=dict(sorted(cases.items())))
    with open(path, "w") as f:
        json.dump(baseline, f, indent=1)
        f.write("\n")
    print(f"wrote {path}: commit it on its own, saying why the counts changed")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=".*", help="regex of the case names to run")
    parser.add_argument("--binary", default=None, help="the case binary (default: count_cases)")
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--env", action="append", default=[],
                        help="NAME=VALUE for the case binary (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="processes at once (the runs)")
    parser.add_argument("--max-run-spread", type=float, default=0.001)
    parser.add_argument("--json-out", default=None)
    parser.add_argument("--history", default=None,
                        help="append this run's counts and ratios (keyed by commit) to FILE")
    parser.add_argument("--update-baseline", nargs="?", const="changed", choices=("changed", "all"),
                        help="write the measured counts into the workspace's baseline: the "
                             "cases that moved past --max-run-spread (default), or all")
    parser.add_argument("--keep", default=None, help="keep callgrind's files in this folder")
    args = parser.parse_args(argv)
    try:
        binary = os.path.abspath(args.binary or runfile("count_cases"))
        with open(args.baseline or runfile("baseline.json")) as f:
            baseline = json.load(f)
        extra_env = dict(item.split("=", 1) for item in args.env)
        # Always /tmp/acldump-counts-XXXXXXXX: the paths the cases use (dump_path, pack folders)
        # have the same length under `bazel run` and `bazel test`, and on every machine, so
        # the string work on them counts the same.
        work_dir = tempfile.mkdtemp(prefix="acldump-counts-", dir="/tmp")
        try:
            runs = measure_twice(binary, args.cases, work_dir, extra_env, args.jobs)
            print(f"count gate: {len(runs[0].cases)} cases, 2 runs each under callgrind "
                  "(instructions of the measured region on its own thread; one intra-op "
                  "thread; AVX2)")
            return report(runs, baseline, args)
        finally:
            if args.keep:
                shutil.copytree(work_dir, history.workspace_path(args.keep), dirs_exist_ok=True)
            shutil.rmtree(work_dir, ignore_errors=True)
    except GateError as e:
        print(f"count gate: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
