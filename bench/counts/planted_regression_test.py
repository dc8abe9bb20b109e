"""The count gate catches planted regressions and names the planted function first.

Each planted binary is count_cases with one product function wrapped (see planted_*.cc): 1 % more
instructions on every execution with dump off, or a second pass over every tensor whose statistics
are computed. The gate must fail on the cases that run the planted code, pass the others, and put
the planted function at the top of each failing case's report.
"""
import contextlib
import io
import json
import os
import re
import unittest

import gate


def binary(name):
    return gate.runfile(name)


def run_gate(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = gate.main(list(args))
    return code, out.getvalue()


def verdict(report, case):
    """The verdict column of `case` in the report's case table."""
    for line in report.splitlines():
        if line.startswith(case + " "):
            return line
    raise AssertionError(f"{case} is not in the report:\n{report}")


def first_mover(report, case):
    """The first function listed under "`case`: ... moved most"."""
    lines = report.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{case}: ") and "moved most" in line:
            return lines[i + 1]
    raise AssertionError(f"no list of moved functions for {case}:\n{report}")


class PlantedRegressionTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(gate.runfile("baseline.json")) as f:
            cls.baseline = json.load(f)["cases"]

    def test_one_percent_more_on_the_dump_off_path_fails_with_the_planted_function_first(self):
        one_percent = round(self.baseline["resnet_tiny/dump_off"]["instructions"] / 100)
        code, report = run_gate("--binary", binary("count_cases_planted_dump_off"),
                                "--cases", "^resnet_tiny/(no_observer|dump_off)$",
                                "--env", f"ACLDUMP_PLANTED_INSTRUCTIONS={one_percent}")
        self.assertEqual(code, 1, report)
        line = verdict(report, "resnet_tiny/dump_off")
        self.assertIn("REGRESSED", line)
        change = float(re.search(r"([+-]\d+\.\d+)%", line).group(1))
        self.assertAlmostEqual(change, 1.0, delta=0.1, msg=line)
        self.assertIn("PlantedDumpOffWork", first_mover(report, "resnet_tiny/dump_off"))
        self.assertIn("not in the baseline's profile",
                      first_mover(report, "resnet_tiny/dump_off"))

    def test_the_wrapper_without_planted_work_passes(self):
        # The same binary with no work planted: the failure above is the planted work's.
        code, report = run_gate("--binary", binary("count_cases_planted_dump_off"),
                                "--cases", "^resnet_tiny/dump_off$",
                                "--env", "ACLDUMP_PLANTED_INSTRUCTIONS=0")
        self.assertEqual(code, 0, report)
        self.assertIn("ok", verdict(report, "resnet_tiny/dump_off"))

    def test_a_second_pass_in_the_stats_fails_stats_cases_only(self):
        code, report = run_gate("--binary", binary("count_cases_planted_stats_pass"),
                                "--cases", "^resnet_tiny/(no_observer|stats|stats_packed)$")
        self.assertEqual(code, 1, report)
        self.assertTrue(verdict(report, "resnet_tiny/no_observer").rstrip().endswith("ok"))
        for case in ("resnet_tiny/stats", "resnet_tiny/stats_packed"):
            self.assertIn("REGRESSED", verdict(report, case))
            self.assertIn("PlantedStatsPassWork", first_mover(report, case))
        # The same-run ratio fails too, whatever the baseline says.
        self.assertRegex(report, r"resnet_tiny_stats_vs_no_observer .* REGRESSED")


if __name__ == "__main__":
    unittest.main()
