"""The Python reading API (acldump.read_dump, open_tree, compare) gives what the `dump` tool gives:
compare() returns the dict `dump compare --json -` prints, for trees, references and filters;
read_dump's arrays are those `dump convert` writes; open_tree's folders are those `dump ls` lists.

Run by reading_api_test.sh with the `dump` binary's path as argv[1] and a scratch folder as argv[2].
"""

import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import unittest

import numpy as np

import acldump

DUMP = sys.argv[1]
WORK = sys.argv[2]
CONVERT = os.path.join(os.path.dirname(DUMP), "convert")
TD = os.path.join(os.getcwd(), "testdata")
MODEL = os.path.join(TD, "resnet_tiny.onnx")
INPUT = os.path.join(TD, "resnet_tiny.input.input.npy")


def tool(*args, check=True):
    result = subprocess.run([DUMP, *args], cwd=WORK, capture_output=True, text=True)
    if check and result.returncode not in (0, 1):
        raise AssertionError("dump %s: exit %d\n%s%s" % (" ".join(args), result.returncode,
                                                          result.stdout, result.stderr))
    return result


def run_dump(name, iterations, extra=""):
    os.makedirs(os.path.join(WORK, name), exist_ok=True)
    with open(os.path.join(WORK, name + ".json"), "w") as f:
        f.write('{"dump": {"dump_path": "%s", "dump_list": [{"model_name": "resnet_tiny"}]%s}}'
                % (name, extra))
    tool("run", "-m", MODEL, "-c", name + ".json", "-i", INPUT, "--iterations", str(iterations))


def perturb(path):
    """Overwrites the last 64 bytes (the last output's tail) with 10.0f values."""
    with open(path, "r+b") as f:
        f.seek(-64, os.SEEK_END)
        f.write(np.full(16, 10.0, "<f4").tobytes())


def assert_same(test, cli, py, where="result"):
    """Equal structures; floats equal or within 1e-12 relative (the same float64 operations,
    printed by C++ and parsed back)."""
    if isinstance(cli, dict):
        test.assertIsInstance(py, dict, where)
        test.assertEqual(list(cli.keys()), list(py.keys()), where)
        for k in cli:
            assert_same(test, cli[k], py[k], "%s.%s" % (where, k))
    elif isinstance(cli, list):
        test.assertIsInstance(py, list, where)
        test.assertEqual(len(cli), len(py), where)
        for i, (x, y) in enumerate(zip(cli, py)):
            assert_same(test, x, y, "%s[%d]" % (where, i))
    elif isinstance(cli, float) or isinstance(py, float):
        if cli is None or py is None:
            test.assertEqual(cli, py, where)
        elif math.isnan(cli) or math.isnan(py):
            test.assertTrue(math.isnan(cli) and math.isnan(py), "%s: %r vs %r" % (where, cli, py))
        else:
            test.assertTrue(math.isclose(cli, py, rel_tol=1e-12, abs_tol=1e-300),
                            "%s: %r vs %r" % (where, cli, py))
    else:
        test.assertEqual(cli, py, where)


class ReadingApiTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        os.chdir(WORK)
        run_dump("a", 3)
        shutil.copytree("a", "b")
        perturb(glob.glob("b/*/0/resnet_tiny/1/1/Add.add2.*")[0])
        shutil.rmtree(glob.glob("b/*/0/resnet_tiny/1/2")[0])
        run_dump("all", 1, ', "dump_mode": "all"')
        tool("reference", "--model", MODEL, "--input", INPUT, "--out", "ref",
             "--engine", "acldump-unfused")
        # The same model converted without fusion: operators pair by original names.
        os.makedirs("unfused_model")
        subprocess.run([CONVERT, MODEL, "unfused_model/resnet_tiny.om", "--no-fusion"],
                       check=True, capture_output=True)
        os.makedirs("unfused")
        with open("unfused.json", "w") as f:
            f.write('{"dump": {"dump_path": "unfused", "dump_mode": "all", '
                    '"dump_list": [{"model_name": "resnet_tiny"}]}}')
        tool("run", "-m", "unfused_model/resnet_tiny.om", "-c", "unfused.json", "-i", INPUT)
        # The packed layout: the same run as "a" (tensors) and as stats, each in one file per
        # iteration.
        run_dump("packed", 3, ', "dump_layout": "packed"')
        run_dump("packed_stats", 1, ', "dump_layout": "packed", "dump_data": "stats"')
        run_dump("sdk_stats", 1, ', "dump_data": "stats"')
        run_dump("sums", 3, ', "dump_data": "checksum"')
        run_dump("all_stats", 1, ', "dump_mode": "all", "dump_data": "stats", '
                 '"dump_stats": ["Max", "Min", "Avg", "L2norm", "Checksum"]')

    def same_as_cli(self, a, b, cli_args=(), **kwargs):
        cli = tool("compare", a, b, "--json", "-", *cli_args)
        expected = json.loads(cli.stdout)
        result = acldump.compare(a, b, **kwargs)
        assert_same(self, expected, result)
        self.assertEqual(cli.returncode, result["exit_code"])
        return result

    def test_compare_trees_as_the_cli(self):
        r = self.same_as_cli("a", "b")
        self.assertEqual(r["verdict"], "fail")
        self.assertEqual(r["first_divergence"]["name"], "add2")
        self.assertEqual(r["first_divergence"]["folder"]["iteration"], 1)
        self.assertEqual([f["iteration"] for f in r["only_in_a"]], [2])
        self.assertEqual(self.same_as_cli("a", "a")["verdict"], "pass")

    def test_compare_suffixed_time_folders_as_the_cli(self):
        # A second run in the same second writes to {time}_1: in the layout, and the latest.
        time = os.listdir("a")[0]
        if not os.path.exists("later"):
            shutil.copytree(os.path.join("a", time), os.path.join("later", time))
            shutil.copytree(os.path.join("b", time), os.path.join("later", time + "_1"))
        r = self.same_as_cli("later", "a")
        self.assertEqual(r["first_divergence"]["folder"]["time"], time + "_1")
        self.assertIn("the latest of each is compared, not those in " + time, r["notes"][0])
        self.assertEqual([f.time for f in acldump.open_tree("later").folders if f.files],
                         [time] * 3 + [time + "_1"] * 2)

    def test_compare_fused_with_unfused_as_the_cli(self):
        r = self.same_as_cli("all", "unfused")
        self.assertEqual(r["verdict"], "pass")
        matches = {o["match"] for o in r["pairs"][0]["operators"]}
        self.assertEqual(matches, {"name", "original"})
        self.assertIn("bn1", r["pairs"][0]["only_in_b"])
        self.same_as_cli("unfused", "all")

    def test_compare_with_references_as_the_cli(self):
        r = self.same_as_cli(glob.glob("all/*/0/resnet_tiny/1/0")[0],
                             os.path.join(TD, "reference", "resnet_tiny"))
        self.assertEqual((r["verdict"], r["tensors_compared"]), ("pass", 15))
        r = self.same_as_cli("a", "ref")
        self.assertEqual((r["verdict"], r["tensors_compared"]), ("pass", 45))

    def test_compare_with_tolerances_and_filters_as_the_cli(self):
        r = self.same_as_cli("a", "b", ["--op-type", "Add,Relu", "--iterations", "1-2"],
                             op_types=["Add", "Relu"], iterations="1-2")
        self.assertEqual(r["tensors_compared"], 4)
        self.same_as_cli("a", "b", ["--match", "relu", "--atol", "0", "--rtol", "0"],
                         match="relu", atol=0, rtol=0)
        self.same_as_cli("all", "b", ["--atol", "20"], atol=20)

    def test_compare_stats_and_checksums_as_the_cli(self):
        # Checksums against the tensors they were taken from: exact, every iteration.
        r = self.same_as_cli("sums", "a")
        self.assertEqual((r["verdict"], r["a"]["kind"], r["tensors_compared"]),
                         ("pass", "stats", 45))
        self.assertEqual({t["by"] for p in r["pairs"] for o in p["operators"]
                          for t in o["tensors"]}, {"checksum"})
        # The perturbed tensor (add2's output, iteration 1) is named by its checksum.
        r = self.same_as_cli("sums", "b")
        self.assertEqual(r["first_divergence"]["name"], "add2")
        self.assertEqual(r["first_divergence"]["folder"]["iteration"], 1)
        self.assertIn("Checksum", r["divergence_note"])
        # The SDK's stats columns (no checksum): by statistics.
        r = self.same_as_cli("sdk_stats", "a")
        self.assertEqual(r["verdict"], "pass")
        self.assertEqual({t["by"] for o in r["pairs"][0]["operators"] for t in o["tensors"]},
                         {"stats"})
        # Inputs and outputs with every statistic, against the unfused tensors: by checksum,
        # then by statistics with a tolerance per column.
        self.same_as_cli("all_stats", "all")
        r = self.same_as_cli("all_stats", "b", ["--by", "stats", "--stat-tolerance", "Avg=2",
                                                "--stat-tolerance", "L2norm=100,0"],
                             by="stats", stat_tolerances=["Avg=2", "L2norm=100,0"])
        self.assertEqual(r["stat_tolerances"], {"Avg": {"atol": 2, "rtol": 0.001},
                                                "L2norm": {"atol": 100, "rtol": 0}})
        # Packed stats against the SDK layout's.
        self.assertEqual(self.same_as_cli("packed_stats", "sdk_stats")["verdict"], "pass")
        self.same_as_cli("sums", "sdk_stats", ["--by", "checksum"], by="checksum")
        with self.assertRaisesRegex(ValueError, "holds stats dumps only"):
            acldump.compare("sums", "a", by="tensors")
        with self.assertRaisesRegex(ValueError, "'Nan' is not a statistic with a tolerance"):
            acldump.compare("sums", "a", stat_tolerances=["Nan=1"])

    def test_baseline_diffs_are_what_dump_run_reports(self):
        run_dump("bl_base", 1, ', "dump_data": "checksum"')
        run_dump("bl_same", 1, ', "dump_baseline": "bl_base"')
        self.assertEqual(acldump.open_tree(os.path.join(WORK, "bl_same")).baseline_diffs(), [])
        other = os.path.join(WORK, "bl_input.npy")
        np.save(other, np.load(INPUT) * 2)
        os.makedirs(os.path.join(WORK, "bl_other"), exist_ok=True)
        with open(os.path.join(WORK, "bl_other.json"), "w") as f:
            f.write('{"dump": {"dump_path": "bl_other", "dump_baseline": "bl_base", '
                    '"dump_list": [{"model_name": "resnet_tiny"}]}}')
        out = tool("run", "-m", MODEL, "-c", "bl_other.json", "-i", other).stdout
        diffs = acldump.open_tree(os.path.join(WORK, "bl_other")).baseline_diffs()
        self.assertEqual(len(diffs), 1)
        first = diffs[0]["first_difference"]
        self.assertEqual((diffs[0]["model"], diffs[0]["iteration"]), ("resnet_tiny", 0))
        self.assertEqual((first["op_name"], first["column"]), ("input", "Checksum"))
        self.assertIn("departs at 'input' (Data, output 0: Checksum %s in the baseline, %s now)"
                      % (first["baseline"], first["run"]), out)
        self.assertEqual(diffs[0]["tensors_written_for"], 1)
        self.assertEqual(diffs[0]["operators_differing"], len(diffs[0]["differences"]))

    def test_replay_is_what_the_cli_writes(self):
        from acldump import analysis
        os.environ["ACLDUMP_TOOL"] = DUMP
        self.addCleanup(os.environ.pop, "ACLDUMP_TOOL", None)
        run_dump("rp_all", 1, ', "dump_mode": "all"')
        conv = glob.glob(os.path.join(WORK, "rp_all", "2*", "0", "resnet_tiny", "*", "0",
                                      "Conv.conv1bn1relu1.*"))[0]
        result = analysis.replay(conv, MODEL)
        cli = json.loads(tool("replay", conv, "--model", MODEL, "--json", "-").stdout)
        assert_same(self, cli, result)
        self.assertTrue(result["reproduced"])
        self.assertEqual(result["float64_operators"], ["conv1", "bn1", "relu1"])
        self.assertEqual(result["outputs"][0]["fused_vs_dump"]["differing"], 0)
        with self.assertRaises(analysis.ToolError) as raised:
            analysis.replay(os.path.join(WORK, "missing_file"), MODEL)
        self.assertIn("missing_file", str(raised.exception))

    def test_locate_is_what_the_cli_writes(self):
        from acldump import analysis
        os.environ["ACLDUMP_TOOL"] = DUMP
        self.addCleanup(os.environ.pop, "ACLDUMP_TOOL", None)
        result = analysis.locate(MODEL, inputs=[INPUT], engine="acldump-unfused", atol=1e-9,
                                 rtol=0)
        cli = json.loads(tool("locate", "--model", MODEL, "--input", INPUT, "--engine",
                              "acldump-unfused", "--atol", "1e-9", "--rtol", "0", "--json",
                              "-").stdout)
        self.assertEqual(cli["first"], result["first"])
        self.assertEqual([s["op_name"] for s in cli["steps"]],
                         [s["op_name"] for s in result["steps"]])
        self.assertEqual(result["first"]["op_name"], "conv1bn1relu1")
        self.assertIsNone(analysis.locate(MODEL, inputs=[INPUT],
                                          engine="acldump-unfused")["first"])

    def test_malformed_stats_csvs_are_named_as_the_cli_names_them(self):
        folder = os.path.join("bad_stats", "20250101120000", "0", "net", "1", "0")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "Add.a.0.0.1.csv")
        header = "Input/Output,Index,Data Size,Data Type,Format,Shape,Count,Checksum\n"
        for row, message in (("Sideways,0,16,DT_FLOAT,ND,4,4,00000000000000aa",
                              "Input/Output is 'Sideways', not Input or Output"),
                             ("Output,0,16,DT_FLOAT,ND,4,4,zz",
                              "Checksum 'zz' is not a 64-bit hexadecimal number")):
            with open(path, "w") as f:
                f.write(header + row + "\n")
            cli = tool("compare", "bad_stats", "a", check=False)
            self.assertEqual(cli.returncode, 2)
            self.assertIn(message, cli.stderr)
            with self.assertRaisesRegex(ValueError, re.escape(message)):
                acldump.compare("bad_stats", "a")

    def test_read_dump_arrays_are_what_convert_writes(self):
        folder = glob.glob("all/*/0/resnet_tiny/1/0")[0]
        tool("convert", folder, "--out", "npy")
        files = sorted(glob.glob(folder + "/Conv.*"))
        self.assertEqual(len(files), 6)
        for path in files:
            f = acldump.read_dump(path)
            self.assertEqual(f.op_type, "Conv")
            self.assertEqual(os.path.basename(path).split(".")[1], f.op_name)
            for kind, tensors in (("input", f.inputs), ("output", f.outputs)):
                for i, t in enumerate(tensors):
                    written = np.load("npy/%s.%s.%d.npy" % (os.path.basename(path), kind, i))
                    self.assertEqual(list(t.array.shape), t.shape)
                    np.testing.assert_array_equal(t.array, written)
        first = acldump.read_dump(glob.glob(folder + "/Conv.conv1bn1relu1.*")[0])
        self.assertEqual(first.original_names, ["conv1", "bn1", "relu1"])
        self.assertEqual(first.outputs[0].data_type_name, "DT_FLOAT")
        np.testing.assert_array_equal(
            acldump.read_dump(glob.glob(folder + "/Data.input.*")[0]).outputs[0].array,
            np.load(INPUT))

    def test_read_dump_reads_legacy_layouts_as_convert_does(self):
        # Older writers put the data inside the header: with the 8-byte length prefix, or the
        # whole file a bare DumpData.
        def varint(n):
            out = b""
            while True:
                out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
                n >>= 7
                if not n:
                    return out

        def field(number, payload):  # length-delimited
            return varint(number << 3 | 2) + varint(len(payload)) + payload

        values = np.arange(6, dtype="<f4").reshape(2, 3) - 2.5
        shape = field(3, varint(1 << 3) + varint(2) + varint(1 << 3) + varint(3))
        output = varint(1 << 3) + varint(1) + shape + field(5, values.tobytes())
        header = field(1, b"1.0") + field(3, output) + field(6, b"legacy_op")
        os.makedirs("legacy", exist_ok=True)
        prefixed = "legacy/Relu.legacy_op.0.0.1700000000000000"
        bare = "legacy/Relu.legacy_bare.1.0.1700000000000001"
        with open(prefixed, "wb") as f:
            f.write(len(header).to_bytes(8, "little") + header)
        with open(bare, "wb") as f:
            f.write(header)
        tool("convert", "legacy", "--out", "legacy_npy")
        for path in (prefixed, bare):
            f = acldump.read_dump(path)
            self.assertTrue(f.legacy_format)
            self.assertEqual((f.version, f.op_name, f.op_type), ("1.0", "legacy_op", "Relu"))
            self.assertEqual(f.outputs[0].shape, [2, 3])
            np.testing.assert_array_equal(f.outputs[0].array, values)
            np.testing.assert_array_equal(
                f.outputs[0].array,
                np.load("legacy_npy/%s.output.0.npy" % os.path.basename(path)))

    def test_open_tree_indexes_what_ls_lists(self):
        tree = acldump.open_tree("a")
        folders = [f for f in tree.folders if f.files]
        self.assertEqual([(f.model, f.model_id, f.iteration, f.device) for f in folders],
                         [("resnet_tiny", 1, i, 0) for i in range(3)])
        self.assertEqual([len(f.files) for f in folders], [15, 15, 15])
        listed = tool("ls", "a", "--summary").stdout
        self.assertIn("a: %d dump files" % sum(len(f.files) for f in folders), listed)
        self.assertEqual([f.iteration for f in tree.select(iteration=1)], [1])
        names = [e.name.op_name for e in folders[0].files if e.name]
        self.assertIn("conv3bn3", names)

    def test_open_tree_reads_exception_folders_as_ls_does(self):
        folder = os.path.join("exception", "extra-info", "data-dump", "0")
        os.makedirs(folder)
        source = sorted(glob.glob("a/*/0/resnet_tiny/1/0/Add.add2.*"))[0]
        shutil.copy(source, os.path.join(folder, "Add.add2.5.20250101120000456"))
        shutil.copy(source, os.path.join(folder, "exception_info.0.6.20250101120000789"))
        tree = acldump.open_tree("exception")
        folders = [f for f in tree.folders if f.files]
        self.assertEqual([(f.layout, f.device) for f in folders], [("exception", 0)])
        self.assertEqual(folders[0].describe(), "exception dump, device 0")
        names = [(e.name.op_type, e.name.op_name, e.name.task_id) for e in folders[0].files]
        self.assertEqual(names, [("Add", "add2", 5), ("exception_info", "", 6)])
        self.assertIn("exception: 2 dump files", tool("ls", "exception", "--summary").stdout)
        self.assertTrue(np.array_equal(acldump.read_dump(folders[0].files[0].path).outputs[0].array,
                                       acldump.read_dump(source).outputs[0].array))

    def test_packed_dumps_read_as_the_sdk_layout(self):
        packed = acldump.open_tree("packed")
        sdk = acldump.open_tree("a")
        self.assertEqual(packed.problems, [])
        strip = lambda f: [e.file_name.rsplit(".", 1)[0] for e in f.files]  # no timestamp
        self.assertEqual([strip(f) for f in packed.folders], [strip(f) for f in sdk.folders])
        self.assertTrue(all(e.packed for f in packed.folders for e in f.files))
        # One pack (its index inside) per model folder, nothing else there: the records
        # of every iteration, named "{iteration}/{file name}".
        model_folders = {os.path.dirname(f.directory) for f in packed.folders}
        self.assertEqual(len(model_folders), 1)
        [model_folder] = model_folders
        self.assertEqual(os.listdir(model_folder), ["dump.pack"])
        with open(os.path.join(model_folder, "dump.pack"), "rb") as f:
            data = f.read()
        at = int.from_bytes(data[-8:], "little")
        self.assertEqual(data[at:at + 4], b"ADPI")
        names = [line.split(b",", 2)[2] for line in data[at + 16:-8].splitlines()]
        self.assertEqual(names, [("%d/%s" % (f.iteration, e.file_name)).encode()
                                 for f in packed.folders for e in f.files])
        for a, b in zip(packed.folders[0].files, sdk.folders[0].files):
            fa, fb = a.read(), acldump.read_dump(b.path)
            for x, y in zip(fa.outputs, fb.outputs):
                np.testing.assert_array_equal(x.array, y.array)
        # The tools read it as they read the SDK layout.
        self.assertEqual(self.same_as_cli("packed", "a")["verdict"], "pass")
        listed = tool("ls", "packed", "--summary").stdout
        self.assertIn("packed: 45 dump files", listed)
        shown = tool("show", packed.folders[0].files[1].path)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn("op       conv1bn1relu1  (type Conv)", shown.stdout)

    def test_read_pack_takes_the_index_frame_and_scans_without_it(self):
        from acldump.reading import read_pack

        def frame(magic, name, data):
            return magic + len(name).to_bytes(4, "little") + len(data).to_bytes(8, "little") \
                + name + data
        records = [(b"Add.add0.0.0.1000", b"abcdefghij"), (b"Relu.relu1.1.0.1001", b"01234567")]
        pack, lines = b"", b""
        for name, data in records:
            lines += b"%d,%d,%s\n" % (len(pack), 16 + len(name) + len(data), name)
            pack += frame(b"ADPK", name, data)
        indexed = pack + frame(b"ADPI", b"", lines + len(pack).to_bytes(8, "little"))
        expected = [("Add.add0.0.0.1000", 33, 10), ("Relu.relu1.1.0.1001", 78, 8)]
        os.makedirs("pack_frames", exist_ok=True)
        path = os.path.join("pack_frames", "dump.pack")
        with open(path, "wb") as f:
            f.write(indexed)
        self.assertEqual(read_pack(path), (expected, None))
        # Written again by a second session: the index frame sits between records.
        with open(path, "wb") as f:
            f.write(indexed + frame(b"ADPK", b"Add.add4.4.0.1004", b"xyz"))
        records, problem = read_pack(path)
        self.assertIsNone(problem)
        self.assertEqual([r[0] for r in records],
                         ["Add.add0.0.0.1000", "Relu.relu1.1.0.1001", "Add.add4.4.0.1004"])
        self.assertEqual(records[2][1:], (len(indexed) + 16 + 17, 3))
        # An earlier version's pack: no index frame, its lines in dump.pack.index.
        with open(path, "wb") as f:
            f.write(pack)
        with open(os.path.join("pack_frames", "dump.pack.index"), "wb") as f:
            f.write(lines)
        self.assertEqual(read_pack(path), (expected, None))

    def test_packed_converts_to_the_sdk_layout_byte_for_byte(self):
        shutil.rmtree("expanded", ignore_errors=True)
        result = tool("convert", "packed", "--to", "sdk", "--out", "expanded")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("expanded 45 packed records into files", result.stdout)
        expanded = acldump.open_tree("expanded")
        packed = acldump.open_tree("packed")
        names = lambda t: [e.relative for f in t.folders for e in f.files]
        self.assertEqual(names(expanded), names(packed))
        self.assertFalse(any(e.packed for e in expanded.entries))
        for folder in packed.folders:
            for e in folder.files:
                with open(os.path.join("expanded", e.relative), "rb") as f:
                    self.assertEqual(f.read(), acldump.packs._read_file(e.path, 1 << 30))
        again = tool("convert", "packed", "--to", "sdk", "--out", "expanded")
        self.assertEqual(again.returncode, 1)  # never overwrites
        sdk = tool("convert", "a", "--to", "sdk", "--out", "nothing")
        self.assertEqual(sdk.returncode, 1)
        self.assertIn("in the SDK layout already", sdk.stderr)

    def test_packed_stats_are_one_csv_per_model_folder(self):
        [folder] = acldump.open_tree("packed_stats").folders
        # No iteration folder on disk: its rows are in the model folder's statistic.csv.
        self.assertFalse(os.path.exists(folder.directory))
        model_folder = os.path.dirname(folder.directory)
        self.assertEqual(os.listdir(model_folder), ["statistic.csv"])
        with open(os.path.join(model_folder, "statistic.csv")) as f:
            header = f.readline()
            first_row = f.readline()
        self.assertTrue(header.startswith("Iteration,Op Type,Op Name,Task ID,Stream ID,"
                                          "Timestamp,Input/Output,Index,Data Size"), header)
        self.assertTrue(first_row.startswith("%d," % folder.iteration), first_row)
        # The iteration folder reads as if it existed, in Python and in the tool.
        self.assertEqual([e.relative for e in acldump.open_tree(folder.directory).entries],
                         [e.relative[len(str(folder.iteration)) + 1:] for e in
                          acldump.open_tree(model_folder).entries if e.packed])
        listed = tool("ls", folder.directory)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn("15 stats", listed.stdout)
        [sdk_folder] = acldump.open_tree("sdk_stats").folders
        self.assertEqual([e.kind for e in folder.files], ["stats"] * 15)
        # Each record reads back as the SDK layout's stats file (values of the same run
        # are equal; only the timestamps in the names differ).
        for a, b in zip(folder.files, sdk_folder.files):
            self.assertEqual(acldump.packs._read_file(a.path, 1 << 20),
                             acldump.packs._read_file(b.path, 1 << 20))
        cli = tool("stats", "packed_stats")
        sdk = tool("stats", "sdk_stats")
        self.assertEqual(cli.returncode, 0, cli.stderr)
        # The two runs' time folders may be a second apart.
        def same_time(text):
            return re.sub(r"\b\d{14}(_\d+)?\b", "{time}", text)
        self.assertEqual(same_time(cli.stdout.replace("packed_stats", "sdk_stats")),
                         same_time(sdk.stdout))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
