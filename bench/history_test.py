"""The history file both gates append to, and its picture."""
import json
import os
import tempfile
import unittest
from unittest import mock

import history


class HistoryTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "history.jsonl")

    def tearDown(self):
        self.tmp.cleanup()

    def append(self, sha, figures, gate="counts"):
        with mock.patch.object(history, "commit_of_workspace", return_value=(sha, False)):
            history.append_entry(self.path, gate, figures)

    def test_runs_are_drawn_relative_to_their_first(self):
        self.append("aaaaaaa1", {"resnet18/no_observer": 1000, "resnet18/stats": 1100})
        self.append("bbbbbbb2", {"resnet18/no_observer": 1010, "resnet18/stats": 1100})
        self.append("ccccccc3", {"stats_vs_no_observer": 1.02, "writer_vs_raw_write_4k": 0.9},
                    gate="timed")
        entries = history.read_entries(self.path)
        self.assertEqual([e["commit"] for e in entries], ["aaaaaaa1", "bbbbbbb2", "ccccccc3"])
        out = os.path.join(self.tmp.name, "history.svg")
        history.draw(entries, out)
        with open(out) as f:
            svg = f.read()
        self.assertTrue(svg.startswith("<svg"))
        # One line per drawn figure: the no-observer count (a model's stats count is not drawn)
        # and the timed gate's stats ratio (the 4 KiB writer row is not drawn).
        self.assertEqual(svg.count("<polyline"), 2)
        self.assertIn("resnet18/no_observer", svg)
        self.assertNotIn("resnet18/stats<", svg)
        self.assertNotIn("writer_vs_raw_write_4k", svg)
        self.assertIn("bbbbbbb", svg)
        self.assertIn("Count gate: instructions, relative to the first run (2 runs)", svg)
        self.assertIn("Timed gate: ratios, relative to the first run (1 runs)", svg)

    def test_a_line_that_is_not_json_is_named(self):
        self.append("aaaaaaa1", {"x/no_observer": 1})
        with open(self.path, "a") as f:
            f.write("{not json\n")
        with self.assertRaises(SystemExit) as raised:
            history.read_entries(self.path)
        self.assertIn("history.jsonl:2: not JSON", str(raised.exception))

    def test_an_entry_without_figures_is_named(self):
        with open(self.path, "w") as f:
            f.write(json.dumps({"gate": "counts"}) + "\n")
        with self.assertRaises(SystemExit) as raised:
            history.read_entries(self.path)
        self.assertIn("history.jsonl:1: no 'figures' object", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
