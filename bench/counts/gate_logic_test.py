"""The count gate's reading of callgrind files, its allocator normalisation and its verdicts,
on synthetic profiles (the real runs are gate_test and planted_regression_test)."""
import argparse
import contextlib
import io
import json
import os
import tempfile
import unittest
from unittest import mock

import callgrind_profile
import gate

# A dump of one region: main_work calls malloc 3 times (900 instructions with what malloc
# calls) and helper once; helper is named by its id the second time; 7 instructions ran in
# code generated at run time (no symbol: named by an address that moves).
CALLGRIND_FILE = """version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  count_cases --cases=.*
part: 3

desc: I1 cache:
desc: Trigger: Client Request: model/no_observer

positions: line
events: Ir
summary: 1507

ob=(1) /bin/count_cases
fl=(1) ???
fn=(1) main_work
0 500
cob=(2) /lib/libc.so.6
cfi=(2) ???
cfn=(2) malloc
calls=3 0
0 900
cfn=(3) helper
calls=1 0
0 100

ob=(2)
fl=(2)
fn=(2)
0 850
cfn=(4) _int_malloc.constprop.0
calls=3 0
0 50

fn=(4)
0 50

fn=(3)
0 60
fn=(5) helper'2
0 40

ob=(3) ???
fn=(6) 0x00000000154bf000
0 7

totals: 1507
"""


def profile(name, functions, calls=None):
    return callgrind_profile.Profile(name, sum(functions.values()), dict(functions), calls or {})


def run_of(values, nodes=10):
    """A gate.Run whose case `name` has one function, `work`, of `values[name]` instructions."""
    cases = {n: {"units": 1.0, "unit": "execution", "nodes": nodes} for n in values}
    return gate.Run(cases, {n: profile(n, {"work": v}) for n, v in values.items()})


def args(**overrides):
    base = dict(max_run_spread=0.001, json_out=None, history=None, update_baseline=None)
    base.update(overrides)
    return argparse.Namespace(**base)


VALUES = {"model/no_observer": 1_000_000, "model/dump_off": 1_000_000,
          "model/stats": 1_050_000}
BASELINE = {
    "tolerance": 0.005,
    "ratios": {"model_dump_off_vs_no_observer": {"max": 1.002},
               "model_stats_per_node": {"max": 7000}},
    "cases": {n: {"instructions": v, "unit": "execution", "functions": {"work": v}}
              for n, v in VALUES.items()},
}


def report(first, second=None, baseline=BASELINE, **kw):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = gate.report([first, second or first], baseline, args(**kw))
    return code, out.getvalue()


class CallgrindFileTest(unittest.TestCase):

    def setUp(self):
        fd, self.path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write(CALLGRIND_FILE)

    def tearDown(self):
        os.unlink(self.path)

    def test_own_counts_leave_out_what_callees_cost(self):
        p = callgrind_profile.read(self.path)
        self.assertEqual(p.name, "model/no_observer")
        self.assertEqual(p.total, 1507)
        # helper and helper'2 (a recursion level) are one function.
        self.assertEqual(p.functions, {"main_work": 500, "malloc": 850,
                                       "_int_malloc.constprop.0": 50, "helper": 100,
                                       "(code generated at run time: oneDNN's kernels)": 7})
        self.assertEqual(p.calls[("main_work", "malloc")], [3, 900])
        self.assertEqual(p.calls[("main_work", "helper")], [1, 100])

    def test_allocator_calls_count_as_a_fixed_weight(self):
        p = callgrind_profile.normalize_allocator(callgrind_profile.read(self.path), weight=50)
        # 1507 - 900 (malloc's inclusive cost) + 3 calls x 50.
        self.assertEqual(p.total, 757)
        self.assertEqual(p.functions, {"main_work": 500, "helper": 100,
                                       "(code generated at run time: oneDNN's kernels)": 7,
                                       "malloc (calls x 50)": 150})
        self.assertTrue(callgrind_profile.is_allocator("_int_free.isra.0"))
        self.assertFalse(callgrind_profile.is_allocator("operator new(unsigned long)"))


class VerdictTest(unittest.TestCase):

    def test_counts_at_their_baselines_pass(self):
        code, out = report(run_of(VALUES))
        self.assertEqual(code, 0, out)
        self.assertIn("all 3 cases within their baselines", out)
        self.assertRegex(out, r"model_dump_off_vs_no_observer +1\.0000 +<= 1\.002 +ok")
        # (1,050,000 - 1,000,000) / 10 nodes.
        self.assertRegex(out, r"model_stats_per_node +5000\.0000 +<= 7000 +ok")

    def test_one_percent_more_fails_and_names_the_function_that_grew(self):
        values = dict(VALUES, **{"model/stats": 1_060_500})
        first = run_of(values)
        first.profiles["model/stats"] = profile(
            "model/stats", {"work": 1_048_500, "NewHelper()": 10_000, "grown": 2_000})
        code, out = report(first)
        self.assertEqual(code, 1, out)
        self.assertRegex(out, r"model/stats .* \+1\.00%  REGRESSED \(limit \+0\.5%\)")
        movers = out.split("model/stats: +1.00% against the baseline")[1].splitlines()
        self.assertIn("+10,000  NewHelper()  (not in the baseline's profile)", movers[1])
        self.assertIn("+2,000  grown", movers[2])
        self.assertIn("-1,500  work", movers[3])
        self.assertIn("1 check(s) failed: model/stats", out)

    def test_a_run_under_the_tolerance_is_an_improvement_to_record(self):
        code, out = report(run_of(dict(VALUES, **{"model/stats": 1_030_000})))
        self.assertEqual(code, 0, out)
        self.assertIn("improved: record it with --update-baseline", out)
        self.assertIn("1 case(s) improved past the tolerance: model/stats", out)

    def test_two_runs_that_disagree_are_a_defect_of_the_gate(self):
        second = run_of(dict(VALUES, **{"model/dump_off": 1_002_000}))
        code, out = report(run_of(VALUES), second)
        self.assertEqual(code, 3, out)
        self.assertIn("GATE DEFECT: the two runs differ by 0.200%", out)

    def test_a_ratio_past_its_limit_fails_whatever_the_baseline(self):
        values = dict(VALUES, **{"model/dump_off": 1_003_000})
        baseline = json.loads(json.dumps(BASELINE))
        baseline["cases"]["model/dump_off"]["instructions"] = 1_003_000
        code, out = report(run_of(values), baseline=baseline)
        self.assertEqual(code, 1, out)
        self.assertRegex(out, r"model_dump_off_vs_no_observer +1\.0030 +<= 1\.002 +REGRESSED")

    def test_a_case_without_a_baseline_fails(self):
        code, out = report(run_of(dict(VALUES, **{"model/tensor_all": 1_020_000})))
        self.assertEqual(code, 1, out)
        self.assertIn("NO BASELINE (run --update-baseline)", out)


class RecordsTest(unittest.TestCase):

    def test_update_baseline_keeps_limits_and_tolerances(self):
        with tempfile.TemporaryDirectory() as workspace:
            os.makedirs(os.path.join(workspace, "bench", "counts"))
            baseline = json.loads(json.dumps(BASELINE))
            baseline["cases"]["model/stats"]["tolerance"] = 0.02
            # dump_off moved by less than the runs' spread: its line stays as it was.
            values = dict(VALUES, **{"model/stats": 1_200_000, "model/dump_off": 1_000_500})
            with mock.patch.dict(os.environ, BUILD_WORKSPACE_DIRECTORY=workspace):
                code, out = report(run_of(values), baseline=baseline, update_baseline="changed")
            self.assertEqual(code, 0, out)
            with open(os.path.join(workspace, "bench", "counts", "baseline.json")) as f:
                written = json.load(f)
        self.assertEqual(written["ratios"], BASELINE["ratios"])
        self.assertEqual(written["tolerance"], 0.005)
        stats = written["cases"]["model/stats"]
        self.assertEqual(stats["instructions"], 1_200_000)
        self.assertEqual(stats["tolerance"], 0.02)
        self.assertEqual(stats["functions"]["work"], 1_200_000)
        self.assertEqual(written["cases"]["model/dump_off"]["instructions"], 1_000_000)

    def test_history_appends_one_line_per_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "history.jsonl")
            with mock.patch.object(gate.history, "commit_of_workspace",
                                   return_value=("abc123", False)):
                for _ in range(2):
                    report(run_of(VALUES), history=path)
            with open(path) as f:
                lines = [json.loads(line) for line in f]
        self.assertEqual(len(lines), 2)
        self.assertEqual(lines[0]["gate"], "counts")
        self.assertEqual(lines[0]["commit"], "abc123")
        self.assertEqual(lines[0]["figures"]["model/stats"], 1_050_000)
        self.assertAlmostEqual(lines[0]["figures"]["model_stats_vs_no_observer"], 1.05)


if __name__ == "__main__":
    unittest.main()
