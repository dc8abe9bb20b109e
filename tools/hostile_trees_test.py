"""The tools against hostile dump trees and planted outputs, second round.

- Forged packs whose record names are paths ("/abs", "../x", names with a newline or a NUL):
  every command that reads a tree lists, reads and writes nothing outside the tree and says
  what it skipped, locally as on the reading API.
- Record names too long for a file in the packed layout: hashed with mapping.csv, as the SDK
  layout names files, and readable by every command.
- Files a command names itself (convert's .npy files, reference's and run's outputs, convert
  --to csv's default file): a planted symlink, FIFO or folder there is refused, not followed.
- Inputs that are not regular files, and an empty --scheduler address.
"""
import glob
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import unittest

RUNFILES = os.path.join(os.environ["TEST_SRCDIR"], "acldump")
DUMP = os.path.join(RUNFILES, "tools", "dump")
CONVERT = os.path.join(RUNFILES, "tools", "convert")
RESNET = os.path.join(RUNFILES, "testdata", "resnet_tiny.om")
RESNET_ONNX = os.path.join(RUNFILES, "testdata", "resnet_tiny.onnx")
MLP_ONNX = os.path.join(RUNFILES, "testdata", "mlp_block.onnx")
ONNX_PROTO = "/usr/include/onnx/onnx.proto"
WORK = os.path.join(os.environ["TEST_TMPDIR"], "hostile")


def run(*args, ok=(0,), timeout=120, **kw):
    proc = subprocess.run([DUMP, *args], capture_output=True, text=True, errors="replace",
                          cwd=WORK, timeout=timeout, **kw)
    if proc.returncode not in ok:
        raise AssertionError("dump %s: exit %d, expected %s\n%s%s" % (
            " ".join(args), proc.returncode, ok, proc.stdout[-2000:], proc.stderr[-2000:]))
    return proc


def dump_model(model, name, folder, layout="packed", data="tensor"):
    os.makedirs(folder, exist_ok=True)
    config = os.path.join(WORK, "%s-%s-%s.json" % (os.path.basename(folder), layout, data))
    with open(config, "w") as f:
        json.dump({"dump": {"dump_path": folder, "dump_layout": layout, "dump_data": data,
                            "dump_list": [{"model_name": name}]}}, f)
    run("run", "--model", model, "--config", config)
    return folder


def iteration_folders(tree):
    return sorted(os.path.dirname(p) for p in glob.glob(os.path.join(tree, "**", "dump.pack"),
                                                         recursive=True))


def frame(name, data):
    name = name.encode("utf-8", "surrogateescape") if isinstance(name, str) else name
    return b"ADPK" + struct.pack("<IQ", len(name), len(data)) + name + data


def everything_below(folder):
    found = set()
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            found.add(os.path.join(root, name))
    return found


class HostileTreesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        cls.clean = dump_model(RESNET, "resnet_tiny", os.path.join(WORK, "clean"))
        cls.forged = os.path.join(WORK, "forged")
        shutil.copytree(cls.clean, cls.forged)
        # A valid dump file's bytes: what the forged records hold, and the file planted where a
        # tool that followed a forged name would read.
        folder = iteration_folders(cls.forged)[0]
        records = json.loads(run("ls", cls.forged, "--json", "-").stdout)["entries"]
        tensor = next(e for e in records if e["kind"] == "tensor")
        show = run("show", tensor["path"])
        cls.record_bytes = cls.read_record(tensor["path"])
        cls.secret = os.path.join(WORK, "secret", "Conv.secret.7.0.1764806400000000")
        os.makedirs(os.path.dirname(cls.secret))
        with open(cls.secret, "wb") as f:
            f.write(cls.record_bytes)
        cls.hostile_names = [
            cls.secret,  # absolute
            "../../../../../secret/Conv.escape.8.0.1764806400000000",
            "Conv.line\nbreak.9.0.1764806400000000",
            "Conv.nul\x00byte.10.0.1764806400000000",
            "..",
        ]
        # Appended after the pack's index frame: the index no longer describes the pack, so
        # readers scan its frames and meet every forged record.
        with open(os.path.join(folder, "dump.pack"), "ab") as f:
            for name in cls.hostile_names:
                f.write(frame(name, cls.record_bytes))
        assert show.returncode == 0

    @staticmethod
    def read_record(path):
        """A packed record's bytes, through the tool (convert --to sdk of its folder)."""
        out = tempfile.mkdtemp(dir=WORK)
        run("convert", os.path.dirname(path), "--to", "sdk", "--out", out)
        found = glob.glob(os.path.join(out, "**", os.path.basename(path)), recursive=True)
        with open(found[0], "rb") as f:
            return f.read()

    def assert_no_hostile_output(self, text):
        for word in ("secret", "escape", "break", "byte"):
            self.assertNotIn("Conv.%s" % word, text)

    def test_ls_skips_and_names_every_forged_record(self):
        proc = run("ls", self.forged)
        self.assertEqual(proc.stderr.count("is not a file name"), len(self.hostile_names),
                         proc.stderr)
        for why in ("it holds '/'", "it holds a control character", "it holds a NUL",
                    "'.' and '..' name folders"):
            self.assertIn(why, proc.stderr)
        self.assert_no_hostile_output(proc.stdout)
        # The packs themselves are the layout's files, not strangers.
        self.assertNotIn("other file", proc.stdout)
        clean = run("ls", self.clean)
        self.assertEqual(proc.stdout.replace(self.forged, "T"), clean.stdout.replace(self.clean, "T"))
        listing = json.loads(run("ls", self.forged, "--json", "-").stdout)
        for entry in listing["entries"]:
            self.assertTrue(entry["path"].startswith(self.forged), entry["path"])

    def test_stats_and_compare_read_nothing_outside_the_tree(self):
        stats = run("stats", self.forged)
        # Every forged record is a skipped line; the statistics are the clean tree's.
        self.assertEqual(stats.stdout.count("is not a file name"), len(self.hostile_names))
        kept = "".join(line + "\n" for line in stats.stdout.splitlines()
                       if "is not a file name" not in line)
        self.assertNotIn("Conv.escape", kept)
        self.assertNotIn("Conv.secret", kept)
        self.assertEqual(kept.replace(self.forged, "T"),
                         run("stats", self.clean).stdout.replace(self.clean, "T"))
        compare = run("compare", self.clean, self.forged)
        self.assertEqual(compare.returncode, 0)
        self.assertEqual(compare.stdout.count("is not a file name"), len(self.hostile_names),
                         compare.stdout)
        kept = "".join(line + "\n" for line in compare.stdout.splitlines()
                       if "is not a file name" not in line)
        self.assertNotIn("Conv.escape", kept)
        self.assertNotIn("Conv.secret", kept)

    def test_convert_writes_nothing_outside_its_output(self):
        before = everything_below(WORK)
        for to, out in (("npy", "out_npy"), ("sdk", "out_sdk")):
            run("convert", self.forged, "--to", to, "--out", os.path.join(WORK, out))
        run("convert", self.forged, "--to", "csv", "--out", os.path.join(WORK, "out.csv"))
        after = everything_below(WORK)
        new = {p for p in after - before
               if not p.startswith(os.path.join(WORK, "out_")) and p != os.path.join(WORK, "out.csv")}
        self.assertEqual(new, set())
        for path in after:
            self.assertNotIn("\n", path)
            self.assertNotIn("escape", path)
        with open(self.secret, "rb") as f:
            self.assertEqual(f.read(), self.record_bytes)
        self.assertFalse(glob.glob(os.path.join(WORK, "secret", "*.npy")))

    def test_the_reading_api_refuses_the_same_names(self):
        if os.environ.get("ASAN_OPTIONS"):
            # The bindings' library, built with the sanitizer, cannot join an interpreter.
            self.skipTest("the Python bindings do not load under AddressSanitizer")
        env = dict(os.environ, PYTHONPATH=os.path.join(RUNFILES, "bindings", "python"))
        code = ("import acldump.reading as r, sys; t = r.open_tree(sys.argv[1]); "
                "print(len([e for e in t.entries if e.packed])); print('\\n'.join(t.problems))")
        proc = subprocess.run(["/usr/bin/python3", "-c", code, self.forged], capture_output=True,
                              text=True, env=env)
        if "No module named" in proc.stderr and "numpy" in proc.stderr:
            self.skipTest("numpy is missing for the reading API")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        clean = subprocess.run(["/usr/bin/python3", "-c", code, self.clean], capture_output=True,
                               text=True, env=env)
        self.assertEqual(proc.stdout.splitlines()[0], clean.stdout.splitlines()[0])
        self.assertEqual(proc.stdout.count("is not a file name"), len(self.hostile_names),
                         proc.stdout)


class ForgedIndexAndStatsTest(unittest.TestCase):
    """Forged names that an index frame describes exactly (the reader trusts the index, not a
    scan) and forged statistic.csv rows."""

    @classmethod
    def setUpClass(cls):
        os.makedirs(WORK, exist_ok=True)
        cls.work = tempfile.mkdtemp(dir=WORK, prefix="index")
        cls.tree = dump_model(RESNET, "resnet_tiny", os.path.join(cls.work, "tensors"))
        folder = iteration_folders(cls.tree)[0]
        names = [n for n in json.loads(run("ls", cls.tree, "--json", "-").stdout)["entries"]
                 if n["packed"]]
        keep = names[0]
        data = HostileTreesTest.read_record(keep["path"])
        records = [(keep["file_name"], data), ("../../../Conv.escape.1.0.1764806400000000", data),
                   (os.path.join(cls.work, "Conv.absolute.2.0.1764806400000000"), data)]
        body, lines = b"", b""
        for name, payload in records:
            lines += b"%d,%d,%s\n" % (len(body), 16 + len(name.encode()) + len(payload),
                                      name.encode())
            body += frame(name, payload)
        index = b"ADPI" + struct.pack("<IQ", 0, len(lines) + 8) + lines + struct.pack("<Q", len(body))
        with open(os.path.join(folder, "dump.pack"), "wb") as f:
            f.write(body + index)
        cls.stats = dump_model(RESNET, "resnet_tiny", os.path.join(cls.work, "stats"),
                               data="stats")
        csv_path = glob.glob(os.path.join(cls.stats, "**", "statistic.csv"), recursive=True)[0]
        with open(csv_path) as f:
            text = f.read()
        first_row = text.splitlines()[1].split(",")
        # A model folder's statistic.csv: the iteration, then the record's identity.
        assert text.startswith("Iteration,Op Type,"), text[:40]
        forged = [first_row[0], 'Conv', '"line\nbreak"'] + first_row[3:]
        with open(csv_path, "a") as f:
            f.write(",".join(forged) + "\n")

    def test_names_an_index_describes_are_refused_too(self):
        proc = run("ls", self.tree)
        self.assertEqual(proc.stderr.count("is not a file name"), 2, proc.stderr)
        self.assertNotIn("escape", proc.stdout)
        self.assertNotIn("absolute", proc.stdout)
        out = os.path.join(self.work, "npy")
        run("convert", self.tree, "--out", out)
        for path in everything_below(self.work):
            self.assertNotIn("escape", path)
        self.assertFalse(glob.glob(os.path.join(self.work, "*.npy")))

    def test_a_forged_stats_row_is_refused_and_the_rest_read(self):
        proc = run("stats", self.stats)
        self.assertIn("skipped: ", proc.stdout)
        self.assertIn("it holds a control character", proc.stdout)
        self.assertEqual(proc.stdout.count("line"), 1, proc.stdout)  # only in its skipped line
        out = os.path.join(self.work, "stats_sdk")
        run("convert", self.stats, "--to", "sdk", "--out", out)
        for path in everything_below(out):
            self.assertNotIn("\n", path)


class LongNamesTest(unittest.TestCase):
    """Operators named past 255 bytes: the packed layout hashes their record names."""

    @classmethod
    def setUpClass(cls):
        os.makedirs(WORK, exist_ok=True)
        cls.work = tempfile.mkdtemp(dir=WORK, prefix="long")
        text = subprocess.run(["protoc", "--decode=onnx.ModelProto",
                               "--proto_path=" + os.path.dirname(ONNX_PROTO), ONNX_PROTO],
                              stdin=open(MLP_ONNX, "rb"), capture_output=True, check=True).stdout
        # Every node gets a 300-character name (initializers and attributes keep theirs).
        lines, n, in_node = [], 0, False
        for line in text.decode().splitlines():
            if line == "  node {":
                n, in_node = n + 1, True
            elif line == "  }":
                in_node = False
            elif in_node and line.startswith("    name: "):
                line = '    name: "%s%d"' % ("n" * 300, n)
            lines.append(line)
        model = os.path.join(cls.work, "long.onnx")
        with open(model, "wb") as f:
            f.write(subprocess.run(["protoc", "--encode=onnx.ModelProto",
                                    "--proto_path=" + os.path.dirname(ONNX_PROTO), ONNX_PROTO],
                                   input="\n".join(lines).encode(), capture_output=True,
                                   check=True).stdout)
        om = os.path.join(cls.work, "long.om")
        subprocess.run([CONVERT, model, om, "--no-fusion"], check=True, capture_output=True)
        cls.packed = dump_model(om, "long", os.path.join(cls.work, "packed"))
        cls.sdk = dump_model(om, "long", os.path.join(cls.work, "sdk"), layout="sdk")
        cls.stats = dump_model(om, "long", os.path.join(cls.work, "stats"), data="stats")

    def test_records_are_hashed_and_mapped(self):
        folder = iteration_folders(self.packed)[0]
        with open(os.path.join(folder, "mapping.csv")) as f:
            mapped = [line.split(",", 1) for line in f.read().splitlines()]
        self.assertTrue(mapped)
        for hashed, name in mapped:
            self.assertTrue(hashed.isdigit(), hashed)
            self.assertGreater(len(name), 255)

    def test_every_command_reads_them(self):
        ls = run("ls", self.packed)
        self.assertIn("n" * 300, ls.stdout)
        self.assertNotIn("warning", ls.stderr)
        compare = run("compare", self.sdk, self.packed)
        self.assertIn("pass", compare.stdout.lower())
        stats = run("stats", self.packed)
        self.assertNotIn("problem", stats.stdout.lower() + stats.stderr.lower())
        stats_tree = run("stats", self.stats)
        self.assertIn("n" * 300, stats_tree.stdout)
        listing = json.loads(run("ls", self.packed, "--json", "-").stdout)
        tensor = next(e for e in listing["entries"] if e["kind"] == "tensor")
        run("show", tensor["path"])
        out = os.path.join(self.work, "as_sdk")
        run("convert", self.packed, "--to", "sdk", "--out", out)
        self.assertEqual(run("compare", self.sdk, out).returncode, 0)
        run("convert", self.packed, "--out", os.path.join(self.work, "as_npy"))
        self.assertTrue(glob.glob(os.path.join(self.work, "as_npy", "**", "*.npy"),
                                  recursive=True))


class PlantedOutputsTest(unittest.TestCase):
    """Names a command derives are written by the dump writer's rule."""

    def setUp(self):
        os.makedirs(WORK, exist_ok=True)
        self.work = tempfile.mkdtemp(dir=WORK, prefix="planted")
        self.victim = os.path.join(self.work, "victim")
        with open(self.victim, "w") as f:
            f.write("precious")
        self.tree = dump_model(RESNET, "resnet_tiny", os.path.join(self.work, "tree"),
                               layout="sdk")

    def assert_victim_intact(self):
        with open(self.victim) as f:
            self.assertEqual(f.read(), "precious")

    def test_convert_refuses_a_symlink_a_fifo_and_a_folder_at_an_npy_name(self):
        listing = json.loads(run("ls", self.tree, "--json", "-").stdout)
        tensor = next(e for e in listing["entries"] if e["kind"] == "tensor")
        for plant in ("symlink", "fifo", "folder"):
            out = os.path.join(self.work, "npy_" + plant)
            target = os.path.join(out, tensor["relative"] + ".output.0.npy")
            os.makedirs(os.path.dirname(target))
            if plant == "symlink":
                os.symlink(self.victim, target)
            elif plant == "fifo":
                os.mkfifo(target)
            else:
                os.makedirs(target)
            proc = run("convert", self.tree, "--out", out, ok=(1,), timeout=60)
            self.assertIn("not followed" if plant == "symlink" else "not a regular file",
                          proc.stderr)
            self.assert_victim_intact()

    def test_a_read_only_file_at_an_npy_name_is_replaced_whole(self):
        out = os.path.join(self.work, "npy")
        run("convert", self.tree, "--out", out)
        npy = sorted(glob.glob(os.path.join(out, "**", "*.npy"), recursive=True))[0]
        os.chmod(npy, 0o444)
        with open(npy, "rb") as f:
            first = f.read()
        run("convert", self.tree, "--out", out)
        with open(npy, "rb") as f:
            self.assertEqual(f.read(), first)
        self.assertFalse(glob.glob(os.path.join(out, "**", "*.tmp"), recursive=True))

    def test_run_and_reference_refuse_a_planted_symlink(self):
        out = os.path.join(self.work, "outputs")
        os.makedirs(out)
        os.symlink(self.victim, os.path.join(out, "resnet_tiny.output.prob.npy"))
        config = os.path.join(self.work, "none.json")
        with open(config, "w") as f:
            json.dump({"dump": {}}, f)
        proc = run("run", "--model", RESNET, "--config", config, "--output-dir", out, ok=(1,))
        self.assertIn("is a symlink: not followed", proc.stderr)
        self.assert_victim_intact()
        refs = os.path.join(self.work, "refs")
        os.makedirs(refs)
        os.symlink(self.victim, os.path.join(refs, "conv1.output.0.npy"))
        proc = run("reference", "--model", RESNET_ONNX, "--engine", "acldump-unfused",
                   "--out", refs, ok=(1,))
        self.assertIn("is a symlink: not followed", proc.stderr)
        self.assert_victim_intact()

    def test_convert_to_sdk_refuses_a_planted_symlink(self):
        packed = dump_model(RESNET, "resnet_tiny", os.path.join(self.work, "packed"))
        victim_dir = os.path.join(self.work, "victim_dir")
        os.makedirs(victim_dir)
        out = os.path.join(self.work, "sdk")
        os.makedirs(out)
        time_folder = os.listdir(packed)[0]
        os.symlink(victim_dir, os.path.join(out, time_folder))
        proc = run("convert", packed, "--to", "sdk", "--out", out, ok=(1,))
        self.assertIn("not followed", proc.stderr)
        self.assertEqual(os.listdir(victim_dir), [])

    def test_convert_to_csv_refuses_a_symlink_at_its_default_name(self):
        # The default file is {tree's name}_stats.csv in the working directory.
        os.symlink(self.victim, os.path.join(WORK, "tree_stats.csv"))
        proc = run("convert", self.tree, "--to", "csv", ok=(1,))
        self.assertIn("is a symlink: not followed", proc.stderr)
        self.assert_victim_intact()


class InputsTest(unittest.TestCase):

    def test_reference_names_a_fifo_and_a_device_for_what_they_are(self):
        os.makedirs(WORK, exist_ok=True)
        fifo = os.path.join(WORK, "model.fifo")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        for model in (fifo, "/dev/zero"):
            proc = run("reference", "--model", model, "--out", os.path.join(WORK, "r"),
                       ok=(1,), timeout=30)
            self.assertIn("is not a regular file (it is a device, FIFO or socket)", proc.stderr)
            self.assertNotIn("does not exist", proc.stderr)

    def test_an_empty_scheduler_address_is_a_usage_error(self):
        os.makedirs(WORK, exist_ok=True)
        for command in ("ls", "stats"):
            proc = run(command, WORK, "--scheduler", "", ok=(2,))
            self.assertIn("needs the scheduler's address", proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
