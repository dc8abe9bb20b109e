"""The gate's arithmetic and its confirmation rule, on synthetic benchmark results."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

import check

MODES = ("no_observer", "dump_off", "not_selected", "step_not_selected", "stats", "tensor_all",
         "tensor_5_layers", "stats_packed", "tensor_all_packed", "stats_checksum_packed",
         "baseline_packed", "recorder")


def executor_results(dump_off_us=1000.0, stats_ms=1.02, again=1.004):
    """`again`: the A/A pair's ratio (no observer measured a second time)."""
    results = {}
    for family in ("BM_ResNet18", "BM_MobileNetV2", "BM_TransformerEncoder", "BM_TinyOps1000"):
        for mode in MODES + ("no_observer_again",):
            fastest = dump_off_us if mode == "dump_off" else 1000.0
            real = {"stats": stats_ms, "tensor_all": 1.2, "tensor_5_layers": 1.01}.get(mode, 1.0)
            if mode == "no_observer_again":
                fastest, real = 1000.0 * again, again
            # Two repetitions: the gate takes the best of each.
            # Executing-thread CPU per iteration: 1,000 us more than no observer when dumping.
            cpu = 1100.0 if mode in ("stats", "tensor_all") else 100.0
            results[f"{family}/{mode}/manual_time"] = [
                {"real_time": real * 1.5, "fastest_us": fastest * 1.5, "exec_cpu_us": cpu * 2},
                {"real_time": real, "fastest_us": fastest, "exec_cpu_us": cpu},
            ]
    # The drop policy's waits: p99 of 900 us against a 1 ms budget (median of three).
    results["BM_DropPolicyLatency/ResNet18/min_time:3.000/manual_time"] = [
        {"real_time": 22.0, "waited_p99_us": us} for us in (850.0, 900.0, 1200.0)]
    return results


def stats_results():
    return {"BM_Memcpy": [{"bytes_per_second": 20e9}],
            "BM_MemcpyAgain": [{"bytes_per_second": 19e9}],
            "BM_StatsFloat32": [{"bytes_per_second": 30e9}, {"bytes_per_second": 40e9}],
            "BM_StatsFloat16": [{"bytes_per_second": 15e9}]}


def writer_results(ratio_4m=0.9):
    return {f"BM_WriterVsRawWrite/{size}/manual_time": [
        {"writer_vs_raw": r, "writer_vs_floor": 1.0 / r, "raw_vs_raw": 1.02}
        for r in ((0.85, 0.9, 0.95) if size != 4194304 else
                  (ratio_4m - 0.1, ratio_4m, ratio_4m + 0.3))]
        for size in (4096, 262144, 4194304)}


BASELINE = {"ratios": {
    "dump_off_vs_no_observer": {"max": 1.005},
    "stats_vs_no_observer": {"max": 1.05},
    "stats_f32_vs_memcpy": {"min": 0.5},
    "writer_vs_raw_write_4m": {"min": 0.8},
    "writer_vs_raw_write_256k": {"min": 0.7, "target": 0.95, "miss": "documented"},
}}


class GateTest(unittest.TestCase):

    def gate(self, suites, extra_args=()):
        """Runs main() with `suites[name]` yielding one result set per call; returns
        (exit code, output, calls per suite, what --json-out wrote)."""
        calls = {}
        binaries = {"executor_bench": "executor", "stats_bench": "stats",
                    "writer_bench": "writer"}

        def fake_run(binary, bench_filter, repetitions, min_time):
            suite = binaries[binary]
            calls[suite] = calls.get(suite, 0) + 1
            return suites[suite](calls[suite])

        with tempfile.TemporaryDirectory() as tmp:
            baseline = os.path.join(tmp, "baseline.json")
            with open(baseline, "w") as f:
                json.dump(BASELINE, f)
            ratios = os.path.join(tmp, "ratios.json")
            out = io.StringIO()
            argv = ["check", "--baseline", baseline, "--json-out", ratios, *extra_args]
            with mock.patch.object(check, "run", fake_run), mock.patch.object(sys, "argv", argv), \
                    contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                code = check.main()
            with open(ratios) as f:
                written = json.load(f)
        return code, out.getvalue(), calls, written

    def test_ratios_from_best_repetitions(self):
        code, out, calls, written = self.gate({
            "executor": lambda n: executor_results(),
            "stats": lambda n: stats_results(),
            "writer": lambda n: writer_results()})
        ratios = written["ratios"]
        self.assertEqual(code, 0, out)
        self.assertEqual(calls, {"executor": 1, "stats": 1, "writer": 1})
        self.assertAlmostEqual(ratios["stats_vs_no_observer"][0], 1.02)
        self.assertAlmostEqual(ratios["stats_f32_vs_memcpy"][0], 2.0)
        self.assertAlmostEqual(ratios["tensor_all_vs_no_observer"][0], 1.2)
        # Median of the per-repetition paired ratios.
        self.assertAlmostEqual(ratios["writer_vs_raw_write_4m"][0], 0.9)
        # 1,000 us more CPU over 1,000 nodes: 1 us per dumped node.
        self.assertAlmostEqual(ratios["tiny_ops_stats_exec_us_per_node"][0], 1.0)
        # writer / floor: the median repetition's figure, as for writer / raw.
        self.assertAlmostEqual(ratios["writer_vs_floor_256k"][0], 1 / 0.9)
        # The drop policy's p99 wait: the median repetition's, over the 1 ms budget.
        self.assertAlmostEqual(ratios["drop_1ms_waited_p99_vs_budget"][0], 0.9)
        self.assertIn("all ratios within bench/baseline.json", out)
        # A documented miss passes its gate but says so.
        self.assertIn("ok; target 0.95 missed: documented", out)

    def test_noise_that_does_not_reproduce_passes_after_re_measuring_only_its_suite(self):
        code, out, calls, written = self.gate({
            "executor": lambda n: executor_results(),
            "stats": lambda n: stats_results(),
            "writer": lambda n: writer_results(0.6 if n == 1 else 0.9)})
        ratios = written["ratios"]
        self.assertEqual(code, 0, out)
        self.assertEqual(calls, {"executor": 1, "stats": 1, "writer": 2})
        self.assertEqual([round(v, 3) for v in ratios["writer_vs_raw_write_4m"]], [0.6, 0.9])
        self.assertIn("ok (confirmed: 0.600 0.900)", out)

    def test_a_regression_that_reproduces_fails(self):
        code, out, calls, written = self.gate({
            "executor": lambda n: executor_results(dump_off_us=1100.0),
            "stats": lambda n: stats_results(),
            "writer": lambda n: writer_results()})
        ratios = written["ratios"]
        self.assertEqual(code, 1, out)
        self.assertEqual(calls["executor"], 3)
        self.assertEqual(calls["writer"], 1)
        self.assertEqual([round(v, 3) for v in ratios["dump_off_vs_no_observer"]], [1.1] * 3)
        self.assertIn("REGRESSED (3 of 3 measurements)", out)
        self.assertIn("in 3 measurements in a row: dump_off_vs_no_observer", out)

    def test_each_ratio_is_shown_with_its_suites_noise_band(self):
        code, out, _, written = self.gate({
            "executor": lambda n: executor_results(again=1.004),
            "stats": lambda n: stats_results(),
            "writer": lambda n: writer_results()})
        self.assertEqual(code, 0, out)
        noise = written["noise"]
        # No observer measured twice: 1.004 by the fastest iteration and by the mean.
        self.assertAlmostEqual(noise["dump_off_vs_no_observer"], 0.004)
        self.assertAlmostEqual(noise["mobilenet_v2_stats_packed_vs_no_observer"], 0.004)
        # memcpy twice (19 against 20 GB/s); raw write() twice (1.02).
        self.assertAlmostEqual(noise["stats_f32_vs_memcpy"], 0.05)
        self.assertAlmostEqual(noise["writer_vs_raw_write_4m"], 0.02)
        # Executing-thread CPU per node: the pair's difference over 1,000 nodes.
        self.assertAlmostEqual(noise["tiny_ops_stats_exec_us_per_node"], 0.0)
        self.assertRegex(out, r"dump_off_vs_no_observer +1\.000 +±0\.4% +<= 1\.005  ok")
        self.assertRegex(out, r"stats_f32_vs_memcpy +2\.000 +±5\.0% +>= 0\.5  ok")
        self.assertIn("noise: each ratio's band is |A/A - 1|", out)

    def test_a_miss_smaller_than_the_noise_says_so(self):
        # dump off 0.8 % slower, limit 0.5 %: past it, but by less than the 1 % A/A band.
        code, out, _, _ = self.gate({
            "executor": lambda n: executor_results(dump_off_us=1008.0, again=1.01),
            "stats": lambda n: stats_results(),
            "writer": lambda n: writer_results()})
        self.assertEqual(code, 1, out)
        self.assertRegex(out, r"dump_off_vs_no_observer +1\.008 +±1\.0% .*REGRESSED \(3 of 3 "
                              r"measurements\) \(past the limit by less than this run's noise\)")

    def test_history_appends_the_ratios_and_their_noise(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "history.jsonl")
            with mock.patch.object(check.bench_history, "commit_of_workspace",
                                   return_value=("f00d", True)):
                self.gate({"executor": lambda n: executor_results(),
                           "stats": lambda n: stats_results(),
                           "writer": lambda n: writer_results()}, ("--history", path))
            with open(path) as f:
                entry = json.loads(f.read())
        self.assertEqual((entry["gate"], entry["commit"], entry["dirty"]), ("timed", "f00d", True))
        self.assertAlmostEqual(entry["figures"]["stats_vs_no_observer"], 1.02)
        self.assertAlmostEqual(entry["noise"]["dump_off_vs_no_observer"], 0.004)


if __name__ == "__main__":
    unittest.main()
