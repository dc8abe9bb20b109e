#!/usr/bin/env python3
"""Benchmark regression gate: `bazel run //bench:check`.

Runs the benchmark suites with short repetitions, computes the ratios that matter from numbers
measured in the same run (absolute times vary between machines), and compares them with the
thresholds in bench/baseline.json. Prints a table; exits 1 when a ratio is past its threshold in
--confirm measurements in a row (a failing ratio's suite is re-run to tell noise from regression).

Refreshing: thresholds are targets, not last measurements. Change bench/baseline.json only with a
reason in the commit message (a new target, or a documented miss in bench/README.md); never to
make a regression pass silently.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import history as bench_history  # noqa: E402


def runfile(name):
    for base in (os.environ.get("RUNFILES_DIR"), os.path.join(os.getcwd()), HERE):
        if not base:
            continue
        for candidate in (os.path.join(base, "acldump", "bench", name), os.path.join(base, "bench", name),
                          os.path.join(base, name)):
            if os.path.exists(candidate):
                return candidate
    sys.exit(f"check: cannot find the benchmark binary {name}")


def run(binary, bench_filter, repetitions, min_time):
    cmd = [runfile(binary), f"--benchmark_filter={bench_filter}", "--benchmark_format=json",
           f"--benchmark_repetitions={repetitions}", f"--benchmark_min_time={min_time}",
           "--benchmark_report_aggregates_only=false",
           # Repetitions of different variants interleave, so drifts (page-cache writeback,
           # other load) hit every variant alike.
           "--benchmark_enable_random_interleaving=true"]
    print("running", " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd)),
          file=sys.stderr, flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         cwd=os.environ.get("RUNFILES_DIR_ACLDUMP", os.getcwd())).stdout
    results = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"]
        results.setdefault(name, []).append(b)
    return results


def best(results, name, field):
    """The best repetition: on a shared machine noise only ever adds time (or removes bytes/s),
    so the best run is the closest to what the code costs."""
    values = [b[field] for b in results[name] if field in b]
    if not values:
        sys.exit(f"check: {name} has no {field}")
    return max(values) if field == "bytes_per_second" else min(values)


# Which suite each gated ratio comes from, so that a failing ratio re-measures only its suite.
SUITES = {
    "executor": ("executor_bench", "ResNet18|MobileNetV2|TransformerEncoder|TinyOps1000", 0.0),
    "stats": ("stats_bench", ".", 0.0),
    # Paired raw/writer iterations; at least half a second each so that 4 MiB files get several.
    "writer": ("writer_bench", ".", 0.5),
}


def run_suite(suite, args):
    binary, bench_filter, min_time = SUITES[suite]
    return run(binary, bench_filter, args.repetitions, max(args.min_time, min_time))


def compute(results):
    """Ratios (and TinyOps per-node figures) from one result set per suite."""
    ex, st, wr = results["executor"], results["stats"], results["writer"]

    def model(mode, family="BM_ResNet18"):
        key = next(k for k in ex if k.startswith(f"{family}/{mode}/"))
        return best(ex, key, "real_time")

    def fastest(mode, family="BM_ResNet18"):
        """Fastest single iteration: for modes that write nothing, sub-percent gates need the
        code's cost, not the VM's noise (a 22 ms run varies by 1-2% between repetitions)."""
        key = next(k for k in ex if k.startswith(f"{family}/{mode}/"))
        return best(ex, key, "fastest_us")

    def rate(results, prefix):
        key = next(k for k in results if k.startswith(prefix))
        return best(results, key, "bytes_per_second")

    def paired(results, prefix, counter="writer_vs_raw"):
        """Median over repetitions of each repetition's median ratio of paired runs."""
        key = next(k for k in results if k.startswith(prefix))
        return statistics.median(b[counter] for b in results[key])

    measured = {
        "dump_off_vs_no_observer": ("executor", fastest("dump_off") / fastest("no_observer")),
        "not_selected_vs_no_observer":
            ("executor", fastest("not_selected") / fastest("no_observer")),
        "step_not_selected_vs_no_observer":
            ("executor", fastest("step_not_selected") / fastest("no_observer")),
        "stats_vs_no_observer": ("executor", model("stats") / model("no_observer")),
        "tensor_all_vs_no_observer": ("executor", model("tensor_all") / model("no_observer")),
        "tensor_5_layers_vs_no_observer":
            ("executor", model("tensor_5_layers") / model("no_observer")),
        "stats_packed_vs_no_observer":
            ("executor", model("stats_packed") / model("no_observer")),
        "tensor_all_packed_vs_no_observer":
            ("executor", model("tensor_all_packed") / model("no_observer")),
        # The checksum taken in the statistics' pass (dump_stats [..., "Checksum"]).
        "stats_checksum_packed_vs_no_observer":
            ("executor", model("stats_checksum_packed") / model("no_observer")),
        # Every output compared with a checksum baseline; nothing differs.
        "baseline_packed_vs_no_observer":
            ("executor", model("baseline_packed") / model("no_observer")),
        # A flight recorder: a ring of 8 executions' inputs, output checksums and every
        # operator output's statistics, kept in memory; nothing triggers.
        "recorder_vs_no_observer": ("executor", model("recorder") / model("no_observer")),
        **{f"{name}_{mode}_vs_no_observer":
           ("executor", model(mode, family) / model("no_observer", family))
           for name, family in (("mobilenet_v2", "BM_MobileNetV2"),
                                ("transformer", "BM_TransformerEncoder"))
           for mode in ("stats", "tensor_all", "stats_packed", "tensor_all_packed",
                        "stats_checksum_packed", "baseline_packed", "recorder")},
        # Nothing selected costs nothing on the zoo models either (fastest iterations).
        **{f"{name}_{mode}_vs_no_observer":
           ("executor", fastest(mode, family) / fastest("no_observer", family))
           for name, family in (("mobilenet_v2", "BM_MobileNetV2"),
                                ("transformer", "BM_TransformerEncoder"))
           for mode in ("dump_off", "not_selected")},
        "tiny_ops_stats_vs_no_observer":
            ("executor", model("stats", "BM_TinyOps1000") /
             model("no_observer", "BM_TinyOps1000")),
        "tiny_ops_stats_packed_vs_no_observer":
            ("executor", model("stats_packed", "BM_TinyOps1000") /
             model("no_observer", "BM_TinyOps1000")),
        "tiny_ops_tensor_all_packed_vs_no_observer":
            ("executor", model("tensor_all_packed", "BM_TinyOps1000") /
             model("no_observer", "BM_TinyOps1000")),
        # What dumping costs the thread running the model, per dumped node: its own CPU time
        # (blocked time, waiting for the writer, left out) over no observer, on 1,000 tiny ops.
        **{f"tiny_ops_{mode}_exec_us_per_node":
           ("executor", (best(ex, f"BM_TinyOps1000/{mode}/manual_time", "exec_cpu_us") -
                         best(ex, "BM_TinyOps1000/no_observer/manual_time", "exec_cpu_us"))
            / 1000.0)
           for mode in ("stats", "tensor_all")},
        "tiny_ops_dump_off_vs_no_observer":
            ("executor", fastest("dump_off", "BM_TinyOps1000") /
             fastest("no_observer", "BM_TinyOps1000")),
        # A tensor dump of every output onto a disk far slower than the model, under
        # "dump_backpressure": "drop" with a 1 ms budget: the p99 of each execution's waits for
        # the writer (median over repetitions), against the budget.
        "drop_1ms_waited_p99_vs_budget":
            ("executor", statistics.median(
                b["waited_p99_us"] for b in ex[next(
                    k for k in ex if k.startswith("BM_DropPolicyLatency/ResNet18"))]) / 1000.0),
        "stats_f32_vs_memcpy": ("stats", rate(st, "BM_StatsFloat32") / rate(st, "BM_Memcpy")),
        "stats_f16_vs_memcpy": ("stats", rate(st, "BM_StatsFloat16") / rate(st, "BM_Memcpy")),
        "writer_vs_raw_write_4k": ("writer", paired(wr, "BM_WriterVsRawWrite/4096/")),
        "writer_vs_raw_write_256k": ("writer", paired(wr, "BM_WriterVsRawWrite/262144/")),
        "writer_vs_raw_write_4m": ("writer", paired(wr, "BM_WriterVsRawWrite/4194304/")),
        # The writer against the same-run floor of complete-or-absent files (O_TMPFILE + linkat).
        **{f"writer_vs_floor_{name}":
           ("writer", paired(wr, f"BM_WriterVsRawWrite/{size}/", "writer_vs_floor"))
           for name, size in (("4k", 4096), ("256k", 262144), ("4m", 4194304))},
    }
    # TinyOps1000 reports microseconds per iteration of 1,000 nodes: that is nanoseconds per node.
    # Modes that write nothing: fastest iteration; modes that write: mean including the flush.
    per_node = {mode: fastest(mode, "BM_TinyOps1000") for mode in
                ("no_observer", "dump_off", "not_selected", "step_not_selected")}
    per_node.update({mode: model(mode, "BM_TinyOps1000") for mode in
                     ("stats", "tensor_all", "tensor_5_layers", "stats_packed",
                      "tensor_all_packed")})
    latency = (model("no_observer"), model("tensor_all"))
    return measured, per_node, latency, noise_bands(ex, st, wr, measured)


FAMILIES = {"mobilenet_v2_": "BM_MobileNetV2", "transformer_": "BM_TransformerEncoder",
            "tiny_ops_": "BM_TinyOps1000"}
QUIET = ("dump_off_", "not_selected_", "step_not_selected_")


def noise_bands(ex, st, wr, measured):
    """The run's own noise beside each gated figure, from the A/A pair of its suite: no observer
    measured twice (executor, per model family, by the same statistic as the figure), memcpy
    twice (stats), raw write() twice (writer, per file size). A ratio within its band of 1 is
    not known to differ from 1 in this run."""
    def aa(family, field):
        first = best(ex, next(k for k in ex if k.startswith(f"{family}/no_observer/")), field)
        again = best(ex, next(k for k in ex if k.startswith(f"{family}/no_observer_again/")),
                     field)
        return again, first

    def rate(prefix):
        key = next(k for k in st if k.startswith(prefix))
        return best(st, key, "bytes_per_second")

    bands = {}
    for name, (suite, _) in measured.items():
        if suite == "stats":
            bands[name] = abs(rate("BM_MemcpyAgain") / rate("BM_Memcpy") - 1)
        elif suite == "writer":
            size = {"4k": 4096, "256k": 262144, "4m": 4194304}[name.rsplit("_", 1)[1]]
            key = next(k for k in wr if k.startswith(f"BM_WriterVsRawWrite/{size}/"))
            bands[name] = abs(statistics.median(b["raw_vs_raw"] for b in wr[key]) - 1)
        else:
            family = next((f for p, f in FAMILIES.items() if name.startswith(p)), "BM_ResNet18")
            if name.endswith("_exec_us_per_node"):
                again, first = aa(family, "exec_cpu_us")
                bands[name] = abs(again - first) / 1000.0  # us over 1,000 nodes
            else:
                quiet = any(f"{q}vs_no_observer" in name for q in QUIET)
                again, first = aa(family, "fastest_us" if quiet else "real_time")
                bands[name] = abs(again / first - 1)
    return bands


def within(limit, value):
    if limit is None:
        return True
    return value <= limit["max"] if "max" in limit else value >= limit["min"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.2)
    parser.add_argument("--confirm", type=int, default=3,
                        help="a ratio regresses only when past its threshold in this many "
                             "measurements in a row (its suite is re-run for each)")
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--json-out", default=None, help="also write the measured ratios here")
    parser.add_argument("--history", default=None,
                        help="append this run's ratios (keyed by commit) to FILE, for "
                             "bench/history.py")
    args = parser.parse_args()
    baseline_path = args.baseline or runfile("baseline.json")
    with open(baseline_path) as f:
        baseline = json.load(f)["ratios"]

    # Every suite dumps below one folder, removed after the last one: on ext4 without a journal
    # each new file is allocated past every inode deleted in the last minutes, so a suite that
    # followed another's clean-up would measure that clean-up (file creation 30 us -> ~1 ms).
    saved = {k: os.environ.get(k) for k in ("ACLDUMP_BENCH_DIR", "ACLDUMP_BENCH_KEEP")}
    dumps = tempfile.mkdtemp(prefix="acldump-gate-", dir=saved["ACLDUMP_BENCH_DIR"])
    os.environ.update(ACLDUMP_BENCH_DIR=dumps, ACLDUMP_BENCH_KEEP="1")
    try:
        return gate(args, baseline)
    finally:
        shutil.rmtree(dumps, ignore_errors=True)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def gate(args, baseline):
    results = {suite: run_suite(suite, args) for suite in SUITES}
    measured, per_node, latency, noise = compute(results)
    history = {name: [value] for name, (_, value) in measured.items()}
    failing = [n for n, (_, v) in measured.items() if not within(baseline.get(n), v)]
    # On a shared or virtual machine one measurement past a threshold is as likely noise as a
    # regression; a regression reproduces, noise does not.
    for attempt in range(2, args.confirm + 1):
        if not failing:
            break
        print(f"past threshold: {', '.join(failing)}; measuring again ({attempt}/{args.confirm})",
              file=sys.stderr, flush=True)
        for suite in sorted({measured[n][0] for n in failing}):
            results[suite] = run_suite(suite, args)
        again, _, _, noise = compute(results)
        for name in failing:
            history[name].append(again[name][1])
        failing = [n for n in failing if not within(baseline.get(n), again[n][1])]

    print(f"\n{'ratio':40} {'measured':>10} {'noise':>9} {'limit':>14}  verdict")
    for name in measured:
        limit = baseline.get(name)
        values = history[name]
        shown = "-" if limit is None else (
            f"<= {limit['max']}" if "max" in limit else f">= {limit['min']}")
        if limit is None:
            verdict = "info"
        elif name in failing:
            verdict = f"REGRESSED ({len(values)} of {len(values)} measurements)"
        elif len(values) > 1:
            verdict = f"ok (confirmed: {' '.join(f'{v:.3f}' for v in values)})"
        else:
            verdict = "ok"
        if limit is not None and "target" in limit and not within(
                {k: limit["target"] for k in limit if k in ("min", "max")}, values[-1]):
            verdict += f"; target {limit['target']} missed: {limit['miss']}"
        band = noise[name]
        shown_noise = f"±{band:.3f}" if name.endswith("_per_node") else f"±{band:.1%}"
        if limit is not None and "max" in limit and not name.endswith("_per_node") and \
                values[-1] > limit["max"] and values[-1] - limit["max"] <= band * limit["max"]:
            verdict += " (past the limit by less than this run's noise)"
        print(f"{name:40} {values[-1]:10.3f} {shown_noise:>9} {shown:>14}  {verdict}")
    print(f"\nResNet-18 1x3x224x224 single thread: {latency[0]:.1f} ms plain, "
          f"{latency[1]:.1f} ms with every output dumped")
    print("per-node cost on 1,000 tiny ops (ns per node, incl. the op itself): " +
          ", ".join(f"{k} {v:.3f}" for k, v in per_node.items()))
    print("noise: each ratio's band is |A/A - 1| of its suite's identical pair in this run "
          "(no observer twice, memcpy twice, raw write() twice)")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"ratios": history, "noise": noise, "us_per_node": per_node}, f, indent=2)
    if args.history:
        bench_history.append_entry(args.history, "timed",
                                   {n: round(v[-1], 6) for n, v in history.items()},
                                   noise={n: round(v, 6) for n, v in noise.items()})
    if failing:
        print(f"\n{len(failing)} ratio(s) regressed past bench/baseline.json in "
              f"{args.confirm} measurements in a row: {', '.join(failing)}")
        return 1
    print("\nall ratios within bench/baseline.json")
    return 0

if __name__ == "__main__":
    sys.exit(main())
