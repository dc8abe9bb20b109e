"""The scale test: eight "devices" dump the bundled models for several iterations (eight
processes, each with its own device id), and `dump compare / stats / ls --scheduler` on a
LocalCluster of two workers over loopback give what the single-process commands give, byte for
byte; acldump.analysis gives the same through its client= argument. Failures are reported, not
lost: an unreadable file, a task that fails for good, a worker that dies, a scheduler that is
not there.

Usage: cluster_test.py DUMP_TOOL RUNNER TESTDATA WORK_DIR
"""

import contextlib
import glob
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import unittest

# Set by main: the LocalCluster's worker processes import this file again (multiprocessing's
# spawn), without the arguments.
DUMP = RUNNER = TESTDATA = WORK = None
DEVICES = 8
ITERATIONS = 3


def run(*argv, ok=(0,), cwd=None):
    proc = subprocess.run([DUMP] + list(argv), capture_output=True, text=True, cwd=cwd or WORK)
    if proc.returncode not in ok:
        raise AssertionError("dump %s: exit %d\n%s\n%s" % (" ".join(argv), proc.returncode,
                                                         proc.stdout[-3000:], proc.stderr[-3000:]))
    return proc


def dump_devices(root, data, models, layout="sdk"):
    """One `dump run` process per device, all at once, each in its own time folder."""
    os.makedirs(root)
    config = os.path.join(WORK, os.path.basename(root) + ".json")
    with open(config, "w") as f:
        json.dump({"dump": {"dump_path": root, "dump_data": data, "dump_layout": layout,
                            "dump_list": [{"model_name": m} for m, _ in models]}}, f)
    procs = []
    for device in range(DEVICES):
        argv = [DUMP, "run", "-c", config, "-n", str(ITERATIONS), "-d", str(device),
                "--seed", str(device), "-o", os.path.join(WORK, "outputs", str(device))]
        for _, model in models:
            argv += ["-m", os.path.join(TESTDATA, model)]
        procs.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      text=True))
    for p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, err


def perturb(path):
    """10.0f over the last 64 bytes: the tail of the last output."""
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.seek(size - 64)
        f.write(b"\x00\x00\x20\x41" * 16)


class ClusterTest(unittest.TestCase):
    cluster = None

    @classmethod
    def setUpClass(cls):
        from distributed import LocalCluster
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        models = [("resnet_tiny", "resnet_tiny.om"), ("mlp_block", "mlp_block.om")]
        cls.a = os.path.join(WORK, "a")
        dump_devices(cls.a, "tensor", models)
        cls.b = os.path.join(WORK, "b")
        shutil.copytree(cls.a, cls.b)
        # Device 5, iteration 2 diverges at add2 (and device 2, iteration 1 at its last op).
        perturb(glob.glob(os.path.join(cls.b, "*", "5", "resnet_tiny", "*", "2", "Add.add2.*"))[0])
        perturb(sorted(glob.glob(os.path.join(cls.b, "*", "2", "mlp_block", "*", "1", "*")))[-1])
        # A copy with a truncated file.
        cls.c = os.path.join(WORK, "c")
        shutil.copytree(cls.a, cls.c)
        truncated = sorted(glob.glob(os.path.join(cls.c, "*", "2", "resnet_tiny", "*", "1",
                                                  "Conv.*")))[0]
        with open(truncated, "r+b") as f:
            f.truncate(os.path.getsize(truncated) // 2)
        cls.stats_tree = os.path.join(WORK, "s")
        dump_devices(cls.stats_tree, "stats", models)
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
        cls.address = cls.cluster.scheduler_address
        assert cls.address.startswith("tcp://127.0.0.1:"), cls.address

    @classmethod
    def tearDownClass(cls):
        if cls.cluster is not None:
            cls.cluster.close()

    def both(self, command, *args, outputs=(), ok=(0,)):
        """Runs `command` in process and with --scheduler; returns both (proc, {output: bytes})."""
        results = []
        for mode, extra in (("local", []), ("cluster", ["--scheduler", self.address])):
            argv = [command] + list(args)
            files = {}
            for option, name in outputs:
                argv += [option, "%s-%s.%s" % (command, mode, name)]
            proc = run(*(argv + extra), ok=ok)
            for option, name in outputs:
                with open(os.path.join(WORK, "%s-%s.%s" % (command, mode, name)), "rb") as f:
                    files[name] = f.read()
            results.append((proc, files))
        return results

    def assertSameOutputs(self, local, cluster):
        (lp, lf), (cp, cf) = local, cluster
        self.assertEqual(lp.returncode, cp.returncode)
        self.assertEqual(lp.stdout.replace("-local.", "-X."), cp.stdout.replace("-cluster.", "-X."))
        self.assertEqual(sorted(lf), sorted(cf))
        for name in lf:
            self.assertEqual(lf[name], cf[name], "%s differs" % name)

    def test_the_trees_have_every_device(self):
        tree = json.loads(run("ls", self.a, "--json", "-").stdout)
        devices = {e["device"] for e in tree["entries"] if e["kind"] == "tensor"}
        self.assertEqual(devices, set(range(DEVICES)))
        iterations = {e["iteration"] for e in tree["entries"] if e["kind"] == "tensor"}
        self.assertEqual(iterations, set(range(ITERATIONS)))

    def test_compare_on_the_cluster_is_byte_identical(self):
        local, cluster = self.both("compare", self.a, self.b, "--report", "x.html",
                                   outputs=[("--json", "json"), ("--csv", "csv")], ok=(1,))
        self.assertSameOutputs(local, cluster)
        result = json.loads(cluster[1]["json"])
        self.assertEqual(result["verdict"], "fail")
        self.assertEqual(len(result["pairs"]), DEVICES * ITERATIONS * 2)
        first = result["first_divergence"]
        self.assertEqual(first["folder"]["device"], 2)  # iteration 1 before 2
        self.assertEqual(first["folder"]["iteration"], 1)
        self.assertEqual(first["folder"]["model"], "mlp_block")
        self.assertEqual(result["tensors_outside"], 2)
        perturbed = [p for p in result["pairs"] if p["a"]["device"] == 5
                     and p["a"]["iteration"] == 2 and p["a"]["model"] == "resnet_tiny"]
        self.assertEqual(perturbed[0]["tensors_outside"], 1)
        self.assertIn("tasks (100%)", cluster[0].stderr)  # progress
        self.assertRegex(cluster[0].stderr, r"compare: \d+ tasks in [\d.]+ s on 2 workers")

    def test_a_truncated_file_stops_compare_alike(self):
        local, cluster = self.both("compare", self.a, self.c, ok=(2,))
        self.assertSameOutputs(local, cluster)
        self.assertIn("runs past the end of the file", cluster[0].stderr)

    def test_relative_paths_mean_the_same_on_the_workers(self):
        # The workers' own working directory is elsewhere; tasks run in the client's.
        self.assertNotEqual(os.getcwd(), WORK)
        local, cluster = self.both("compare", "a", "b", outputs=[("--json", "json")], ok=(1,))
        self.assertSameOutputs(local, cluster)
        self.assertEqual(json.loads(cluster[1]["json"])["a"]["path"], "a")
        local, cluster = self.both("stats", "c", outputs=[("--json", "json")])
        self.assertSameOutputs(local, cluster)
        self.assertTrue(json.loads(cluster[1]["json"])["problems"][0].startswith("c/"))
        self.assertSameOutputs(*self.both("ls", "c", outputs=[("--json", "json")]))

    def test_compare_of_identical_trees_passes_on_the_cluster(self):
        local, cluster = self.both("compare", self.a, self.a, outputs=[("--json", "json")])
        self.assertSameOutputs(local, cluster)
        self.assertEqual(json.loads(cluster[1]["json"])["verdict"], "pass")

    def test_compare_device_on_the_cluster_gives_the_same(self):
        """compare-device hands its comparisons to the cluster as compare does: a CPU dump of
        the ONNX model (original names in every file) stands for the device's tree."""
        tree = os.path.join(WORK, "cpu_as_device")
        os.makedirs(tree)
        config = os.path.join(WORK, "cpu_as_device.json")
        with open(config, "w") as f:
            json.dump({"dump": {"dump_path": tree, "dump_mode": "all",
                                "dump_list": [{"model_name": "resnet_tiny"}]}}, f)
        model = os.path.join(TESTDATA, "resnet_tiny.onnx")
        x = os.path.join(TESTDATA, "resnet_tiny.input.input.npy")
        run("run", "-m", model, "-c", config, "-n", "2", "--input", x,
            "-o", os.path.join(WORK, "outputs", "cpu_as_device"))
        local, cluster = self.both("compare-device", tree, "--model", model,
                                   "--input", "input=" + x, outputs=[("--json", "json")])
        self.assertEqual(local[0].returncode, 0)
        self.assertEqual(cluster[0].returncode, 0)
        on_host, on_cluster = json.loads(local[1]["json"]), json.loads(cluster[1]["json"])
        self.assertEqual(on_host["verdict"], "pass")
        self.assertEqual(on_host["tensors_compared"], 2 * 15)  # 15 outputs, two iterations
        self.assertEqual(on_host, on_cluster)
        self.assertRegex(cluster[0].stderr, r"\d+ tasks in [\d.]+ s on 2 workers")

    def test_ls_on_the_cluster_is_byte_identical(self):
        local, cluster = self.both("ls", self.a, outputs=[("--json", "json")])
        self.assertSameOutputs(local, cluster)
        entries = json.loads(cluster[1]["json"])["entries"]
        self.assertEqual(len(entries), len(set(e["path"] for e in entries)))
        summary = self.both("ls", self.b, "--summary", "--op-type", "Conv")
        self.assertSameOutputs(*summary)

    def test_stats_on_the_cluster_is_byte_identical(self):
        for tree in (self.stats_tree, self.c):
            local, cluster = self.both("stats", tree,
                                       outputs=[("--json", "json"), ("--csv", "csv")])
            self.assertSameOutputs(local, cluster)
        # The truncated tensor file is reported by both, not skipped silently.
        problems = json.loads(cluster[1]["json"])["problems"]
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("/2/resnet_tiny/", problems[0])

    def test_python_analysis_gives_the_same_with_a_client(self):
        from distributed import Client
        from acldump import analysis
        os.environ["ACLDUMP_TOOL"] = DUMP
        local_tree = analysis.open_tree([self.a, self.stats_tree])
        self.assertEqual(set(local_tree["device"]), set(range(DEVICES)))
        self.assertEqual(len(local_tree), len(json.loads(run("ls", self.a, "--json", "-").stdout)
                                              ["entries"]) + len(json.loads(
                                                  run("ls", self.stats_tree, "--json", "-")
                                                  .stdout)["entries"]))
        local_stats = analysis.stats(local_tree[local_tree["root"] == self.stats_tree]).compute()
        local_compare = analysis.compare(self.a, self.b)
        with Client(self.address) as client:
            tree = analysis.open_tree([self.a, self.stats_tree], client=client)
            self.assertTrue(tree.equals(local_tree))
            lazy = analysis.stats(tree[tree["root"] == self.stats_tree])
            self.assertEqual(lazy.npartitions, DEVICES * ITERATIONS * 2)
            stats = lazy.compute()
            shown = io.StringIO()
            with contextlib.redirect_stderr(shown):
                self.assertEqual(analysis.compare(self.a, self.b, client=client), local_compare)
            self.assertRegex(shown.getvalue(), r"compare: \d+ tasks in [\d.]+ s on 2 workers")
        self.assertTrue(stats.reset_index(drop=True).equals(local_stats.reset_index(drop=True)))
        # The rows are those of `dump stats --csv`, a per-tensor statistic each.
        csv_rows = run("stats", self.stats_tree, "--csv", "all.csv").stdout
        with open(os.path.join(WORK, "all.csv")) as f:
            self.assertEqual(len(stats), sum(1 for _ in f) - 1)
        self.assertIn("merged table", csv_rows)
        self.assertEqual(int(stats["Nan Count"].sum()), 0)
        self.assertTrue((stats["Max Value"] >= stats["Min Value"]).all())
        self.assertEqual(local_compare["verdict"], "fail")

    def test_an_unreachable_scheduler_is_a_clear_error(self):
        env = dict(os.environ, ACLDUMP_SCHEDULER_TIMEOUT="2")
        proc = subprocess.run([DUMP, "compare", self.a, self.b, "--scheduler",
                               "tcp://127.0.0.1:9"], capture_output=True, text=True, env=env,
                              cwd=WORK)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("cannot reach the scheduler at tcp://127.0.0.1:9", proc.stderr)
        self.assertIn("the cluster run did not complete", proc.stderr)

    def test_a_scheduler_without_workers_is_a_bounded_error(self):
        from distributed import LocalCluster
        empty = LocalCluster(n_workers=0, processes=True, host="127.0.0.1",
                             dashboard_address=None)
        try:
            env = dict(os.environ, ACLDUMP_SCHEDULER_TIMEOUT="3")
            for command in ("ls", "stats"):
                start = time.monotonic()
                proc = subprocess.run([DUMP, command, self.a, "--scheduler",
                                       empty.scheduler_address], capture_output=True, text=True,
                                      env=env, cwd=WORK, timeout=120)
                self.assertLess(time.monotonic() - start, 60)
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertIn("has no workers (waited 3 s)", proc.stderr)
                # The path hint is about paths, not clusters.
                self.assertNotIn("give a dump_path", proc.stderr)
        finally:
            empty.close()

    def test_forged_record_names_are_refused_alike_on_the_cluster(self):
        forged = os.path.join(WORK, "forged")
        if not os.path.exists(forged):
            dump_devices(forged, "tensor", [("resnet_tiny", "resnet_tiny.om")], layout="packed")
            pack = sorted(glob.glob(os.path.join(forged, "**", "dump.pack"), recursive=True))[0]
            with open(pack, "ab") as f:
                for name in (b"../../Conv.escape.1.0.1764806400000000", b"/etc/passwd"):
                    f.write(b"ADPK" + struct.pack("<IQ", len(name), 4) + name + b"evil")
        local, cluster = self.both("ls", forged)
        self.assertSameOutputs(local, cluster)
        self.assertEqual(local[0].returncode, 0)
        for proc, _ in (local, cluster):
            self.assertEqual(proc.stderr.count("is not a file name"), 2, proc.stderr)
            self.assertNotIn("escape", proc.stdout)

    def test_the_runner_needs_a_python_with_dask(self):
        for python, message in (("/nonexistent/python3", "cannot start '/nonexistent/python3'"),
                                ("/bin/false", "the cluster run did not complete")):
            env = dict(os.environ, ACLDUMP_PYTHON=python)
            proc = subprocess.run([DUMP, "ls", self.a, "--scheduler", self.address],
                                  capture_output=True, text=True, env=env, cwd=WORK)
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn(message, proc.stderr)

    def test_paths_that_are_not_utf8_stay_off_the_cluster(self):
        latin1 = os.path.join(os.fsencode(WORK), b"r\xe9sultats")
        if not os.path.lexists(latin1):
            os.symlink(os.fsencode(self.a), latin1)
        proc = subprocess.run([os.fsencode(DUMP), b"ls", latin1, b"--scheduler",
                               os.fsencode(self.address)], capture_output=True, cwd=WORK)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(b"is not UTF-8, which a cluster's tasks cannot carry", proc.stderr)
        # Without a cluster the path works as any other.
        proc = subprocess.run([os.fsencode(DUMP), b"ls", latin1, b"--summary"],
                              capture_output=True, cwd=WORK)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_scratch_must_be_writable(self):
        proc = run("ls", self.a, "--scheduler", self.address, "--scratch",
                   os.path.join(WORK, "no", "such", "folder"), ok=(1,))
        self.assertIn("cannot create a task folder in", proc.stderr)
        self.assertIn("--scratch", proc.stderr)

    def test_failed_tasks_and_dead_workers_are_reported(self):
        """The runner alone: a task that fails for good leaves why; one whose worker dies the
        first time is retried on a fresh worker; the others complete."""
        folder = os.path.join(WORK, "runner")
        os.makedirs(folder)
        out = [os.path.join(folder, "out%d" % i) for i in range(3)]
        marker = os.path.join(folder, "killed-once")
        tasks = [
            {"argv": ["/bin/sh", "-c", "echo ok > %s" % out[0]], "output": out[0]},
            {"argv": ["/bin/sh", "-c", "echo cannot read x >&2; exit 3"], "output": out[1]},
            {"argv": ["/bin/sh", "-c", "if [ ! -e %s ]; then touch %s; kill -9 $PPID; sleep 30;"
                      " fi; echo ok > %s" % (marker, marker, out[2])], "output": out[2]},
        ]
        with open(os.path.join(folder, "tasks.json"), "w") as f:
            json.dump({"label": "runner test", "tasks": tasks}, f)
        proc = subprocess.run([sys.executable, RUNNER, "--scheduler", self.address, "--tasks",
                               os.path.join(folder, "tasks.json")], capture_output=True,
                              text=True, timeout=240)
        self.assertEqual(proc.returncode, 10, proc.stderr)  # some failed
        self.assertTrue(os.path.isfile(out[0]))
        self.assertFalse(os.path.exists(out[1]))
        with open(out[1] + ".error") as f:
            self.assertIn("cannot read x", f.read())
        self.assertTrue(os.path.isfile(marker))
        self.assertTrue(os.path.isfile(out[2]), proc.stderr)  # retried after the worker died
        self.assertIn("runner test: 3/3 tasks (100%), 1 failed", proc.stderr)


if __name__ == "__main__":
    DUMP, RUNNER, TESTDATA, WORK = sys.argv[1:5]
    del sys.argv[1:5]
    unittest.main(verbosity=2)
