"""End-to-end tests of the Python bindings (run by run_python.sh from the runfiles root)."""

import gc
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np

import acl
import acldump
from acldump import read_dump

MODEL = "testdata/resnet_tiny.om"
INPUT = "testdata/resnet_tiny.input.input.npy"
PROB = "testdata/resnet_tiny.output.prob.npy"
DT_FLOAT = 1  # toolkit.dumpdata.OutputDataType


def write_config(directory, dump):
    path = os.path.join(directory, "acl.json")
    with open(path, "w") as f:
        json.dump({"dump": dump}, f)
    return path


def iteration_dirs(dump_path):
    """{iteration: [files]} of the single model dump under dump_path."""
    found = glob.glob(os.path.join(dump_path, "*", "*", "resnet_tiny", "*", "*"))
    return {os.path.basename(d): sorted(os.listdir(d)) for d in found if os.path.isdir(d)}


class PyAclShapeTest(unittest.TestCase):
    """The pyACL call shape: ints back, (value, ret) for out-parameters."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.addCleanup(acl.finalize)  # lets the next test init again if this one failed

    def test_dump_two_iterations(self):
        dump_path = os.path.join(self.tmp.name, "out")
        os.mkdir(dump_path)
        config = write_config(self.tmp.name, {"dump_path": dump_path,
                                              "dump_list": [{"model_name": "resnet_tiny"}]})
        self.assertEqual(acl.init(), 0)
        self.assertEqual(acl.mdl.init_dump(), 0)
        self.assertEqual(acl.mdl.set_dump(config), 0, acl.get_recent_err_msg())
        model_id, ret = acl.mdl.load_from_file(MODEL)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())

        desc = acl.mdl.create_desc()
        self.assertEqual(acl.mdl.get_desc(desc, model_id), 0)
        self.assertEqual(acl.mdl.get_num_inputs(desc), 1)
        self.assertEqual(acl.mdl.get_num_outputs(desc), 2)
        self.assertEqual(acl.mdl.get_input_name_by_index(desc, 0), "input")
        self.assertEqual(acl.mdl.get_output_name_by_index(desc, 1), "prob")
        self.assertEqual(acl.mdl.get_input_data_type(desc, 0), acl.ACL_FLOAT)
        dims, ret = acl.mdl.get_input_dims(desc, 0)
        self.assertEqual(ret, 0)
        self.assertEqual(dims, {"name": "input", "dimCount": 4, "dims": [1, 3, 32, 32]})
        self.assertEqual(acl.mdl.get_input_size_by_index(desc, 0), 3 * 32 * 32 * 4)
        dims, ret = acl.mdl.get_output_dims(desc, 5)
        self.assertEqual((dims, ret), (None, acl.ACL_ERROR_INVALID_PARAM))
        self.assertIn("out of range", acl.get_recent_err_msg())
        self.assertEqual(acl.mdl.destroy_desc(desc), 0)

        image = np.load(INPUT)
        fc = np.zeros((1, 10), np.float32)
        prob = np.zeros((1, 10), np.float32)
        inputs = acl.mdl.create_dataset()
        _, ret = acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(image))
        self.assertEqual(ret, 0)
        outputs = acl.mdl.create_dataset()
        for array in (fc, prob):
            _, ret = acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(array))
            self.assertEqual(ret, 0)
        gc.collect()  # the datasets keep their buffers' handles alive
        self.assertEqual(acl.mdl.get_dataset_num_buffers(outputs), 2)
        borrowed = acl.mdl.get_dataset_buffer(outputs, 1)
        self.assertEqual(acl.get_data_buffer_size_v2(borrowed), 40)
        self.assertEqual(acl.get_data_buffer_addr(borrowed), prob.ctypes.data)
        del borrowed  # borrowed: dropping it must not free the dataset's buffer
        gc.collect()
        for _ in range(2):
            self.assertEqual(acl.mdl.execute(model_id, inputs, outputs), 0,
                             acl.get_recent_err_msg())
        np.testing.assert_allclose(prob, np.load(PROB), rtol=1e-4, atol=1e-5)
        self.assertEqual(acl.mdl.destroy_dataset(inputs), 0)
        self.assertEqual(acl.mdl.destroy_dataset(outputs), 0)

        self.assertEqual(acl.mdl.finalize_dump(), 0, acl.get_recent_err_msg())
        self.assertEqual(acl.mdl.unload(model_id), 0)
        self.assertEqual(acl.finalize(), 0)

        iterations = iteration_dirs(dump_path)
        self.assertEqual(sorted(iterations), ["0", "1"])
        self.assertEqual(len(iterations["0"]), len(iterations["1"]))
        self.assertGreaterEqual(len(iterations["0"]), 14)
        for iteration, files in iterations.items():
            softmax = [f for f in files if f.startswith("Softmax.prob.")]
            self.assertEqual(len(softmax), 1, files)
            self.assertRegex(softmax[0], r"^Softmax\.prob\.\d+\.\d+\.\d{16}$")
        path = glob.glob(os.path.join(dump_path, "*", "*", "resnet_tiny", "*", "1",
                                      "Softmax.prob.*"))[0]
        dump = read_dump(path)
        self.assertEqual(dump.version, "2.0")
        self.assertEqual(dump.op_name, "prob")
        self.assertEqual(len(dump.outputs), 1)
        self.assertEqual(list(dump.outputs[0].shape), [1, 10])
        self.assertEqual(dump.outputs[0].data_type, DT_FLOAT)
        self.assertEqual(dump.outputs[0].size, 40)
        self.assertEqual(dump.outputs[0].array.dtype, np.float32)
        np.testing.assert_array_equal(dump.outputs[0].array.reshape(1, 10), prob)

    def run_model_twice(self, config):
        self.assertEqual(acl.mdl.init_dump(), 0)
        self.assertEqual(acl.mdl.set_dump(config), 0, acl.get_recent_err_msg())
        model_id, ret = acl.mdl.load_from_file(MODEL)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        image = np.load(INPUT)
        prob = np.zeros((1, 10), np.float32)
        inputs, outputs = acl.mdl.create_dataset(), acl.mdl.create_dataset()
        acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(image))
        for array in (np.zeros((1, 10), np.float32), prob):
            acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(array))
        for _ in range(2):
            self.assertEqual(acl.mdl.execute(model_id, inputs, outputs), 0,
                             acl.get_recent_err_msg())
        ret = acl.mdl.finalize_dump()
        self.message = acl.get_recent_err_msg()
        self.assertEqual(acl.mdl.unload(model_id), 0)
        return prob, ret

    def test_dump_to_a_callback(self):
        dump_path = os.path.join(self.tmp.name, "out")
        os.mkdir(dump_path)
        config = write_config(self.tmp.name, {"dump_path": dump_path,
                                              "dump_list": [{"model_name": "resnet_tiny"}]})
        files, ended, lock = {}, {}, threading.Lock()

        def collect(file_name, offset, data, is_last):
            with lock:
                content = files.setdefault(file_name, bytearray())
                self.assertEqual(offset, len(content))  # in file order
                content += data
                ended[file_name] = is_last

        self.addCleanup(acl.dump.unreg_callback)
        self.assertEqual(acl.dump.reg_callback(collect, 1), acl.ACL_ERROR_FAILURE)
        self.assertIn("must be 0", acl.get_recent_err_msg())
        self.assertEqual(acl.dump.reg_callback(collect), 0)
        self.assertEqual(acl.init(), 0)
        self.assertIsNone(acl.dump.get_path(acl.dump.DATA_DUMP))
        prob, ret = self.run_model_twice(config)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.assertEqual([f for _, _, names in os.walk(dump_path) for f in names], [])
        self.assertTrue(files)
        self.assertTrue(all(ended.values()))
        for name, content in files.items():
            self.assertTrue(name.startswith(dump_path + os.sep), name)
            with open(name, "wb") as f:  # where the file dump would have put it
                f.write(content)
        self.assertEqual(sorted(iteration_dirs(dump_path)), ["0", "1"])
        softmax = [n for n in files if os.path.basename(n).startswith("Softmax.prob.")]
        self.assertEqual(len(softmax), 2)
        np.testing.assert_array_equal(read_dump(softmax[0]).outputs[0].array.reshape(1, 10),
                                      prob)
        path, ret = acl.dump.get_exception_info_path()
        self.assertEqual((path, ret), (None, acl.ACL_ERROR_FAILURE))
        self.assertIn("needs exception dump", acl.get_recent_err_msg())

        # A callback that returns another value (or raises) refuses the chunk: finalize_dump
        # reports the file.
        acl.dump.unreg_callback()

        def refuse(file_name, offset, data, is_last):
            return 3

        self.assertEqual(acl.dump.reg_callback(refuse), 0)
        os.makedirs(os.path.join(self.tmp.name, "refused"))
        config = write_config(self.tmp.name, {
            "dump_path": os.path.join(self.tmp.name, "refused"),
            "dump_list": [{"model_name": "resnet_tiny"}]})
        _, ret = self.run_model_twice(config)
        self.assertEqual(ret, acl.ACL_ERROR_WRITE_FILE)
        self.assertIn("the callback returned 3", self.message)
        self.assertEqual(acl.finalize(), 0)

    def test_single_op_argument_dump(self):
        folder = os.path.join(self.tmp.name, "args")
        self.assertEqual(acl.dump.start_dump_args(0, folder), acl.ACL_ERROR_FAILURE)
        self.assertEqual(acl.dump.start_dump_args(acl.ACL_OP_DUMP_OP_AICORE_ARGS, folder), 0)
        self.addCleanup(acl.dump.stop_dump_args, acl.ACL_OP_DUMP_OP_AICORE_ARGS)
        self.assertEqual(acl.init(), 0)
        a = np.arange(4, dtype=np.float32)
        y = np.zeros(4, np.float32)
        desc = acl.create_tensor_desc(acl.ACL_FLOAT, [4], acl.ACL_FORMAT_ND)
        ret = acl.op.execute_v2("Add", [desc, desc],
                                [acl.create_data_buffer(a), acl.create_data_buffer(a)],
                                [desc], [acl.create_data_buffer(y)])
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.assertEqual(acl.dump.stop_dump_args(acl.ACL_OP_DUMP_OP_AICORE_ARGS), 0)
        with open(os.path.join(folder, "op_args.%d.jsonl" % os.getpid())) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual(len(lines), 1)
        self.assertEqual(lines[0]["op_type"], "Add")
        self.assertEqual(lines[0]["outputs"][0]["shape"], [4])

    def test_save_exception_info(self):
        config = write_config(self.tmp.name, {"dump_path": self.tmp.name,
                                              "dump_scene": "aic_err_norm_dump"})
        self.assertEqual(acl.init(), 0)
        self.assertEqual(acl.mdl.init_dump(), 0)
        self.assertEqual(acl.mdl.set_dump(config), 0, acl.get_recent_err_msg())
        path, ret = acl.dump.get_exception_info_path()
        self.assertEqual((path, ret), (os.path.join(self.tmp.name, "extra-info", "data-dump", "0"),
                                       0))
        self.assertEqual(acl.dump.get_path(acl.dump.AIC_ERR_NORM_DUMP),
                         os.path.join(self.tmp.name, "extra-info", "data-dump"))
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        ret = acl.dump.save_exception_info("mine", "tag1", [
            {"type": acl.dump.ACL_DUMP_TENSOR_INPUT, "data": x},
            {"type": acl.dump.ACL_DUMP_TENSOR_OUTPUT, "data": x * 2}])
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.assertEqual(acl.dump.save_exception_info("../x", "", [
            {"type": acl.dump.ACL_DUMP_TENSOR_INPUT, "data": x}]), acl.ACL_ERROR_INVALID_PARAM)
        saved = glob.glob(os.path.join(path, "mine.custom.*"))
        self.assertEqual(len(saved), 1)
        dump = read_dump(saved[0])
        self.assertEqual(dump.op_name, "mine")
        np.testing.assert_array_equal(dump.inputs[0].array.reshape(2, 3), x)
        np.testing.assert_array_equal(dump.outputs[0].array.reshape(2, 3), x * 2)
        self.assertEqual(acl.mdl.finalize_dump(), 0)
        self.assertEqual(acl.finalize(), 0)

    def test_set_dump_errors(self):
        self.assertEqual(acl.init(), 0)
        try:
            self.assertEqual(acl.mdl.set_dump(write_config(self.tmp.name, {})),
                             acl.ACL_ERROR_DUMP_NOT_RUN)
            self.assertNotEqual(acl.get_recent_err_msg(), "")
            self.assertEqual(acl.mdl.init_dump(), 0)
            doomed = acl.create_data_buffer(bytearray(4))
            missing = os.path.join(self.tmp.name, "no_such.json")
            self.assertEqual(acl.mdl.set_dump(missing), acl.ACL_ERROR_INVALID_FILE)
            message = acl.get_recent_err_msg()
            self.assertIn("no_such.json", message)
            # A handle freed by the garbage collector (aclDestroyDataBuffer) keeps the message.
            del doomed
            gc.collect()
            self.assertEqual(acl.get_recent_err_msg(), message)
            self.assertEqual(acl.mdl.set_dump(None), acl.ACL_ERROR_INVALID_PARAM)
            dataset = acl.mdl.create_dataset()
            self.assertEqual(acl.mdl.destroy_dataset(dataset), 0)
            self.assertEqual(acl.get_recent_err_msg(), "")
            self.assertEqual(acl.mdl.destroy_dataset(None), 0)  # NULL is allowed
            self.assertEqual(acl.mdl.finalize_dump(), 0)
            self.assertEqual(acl.get_recent_err_msg(), "")
        finally:
            self.assertEqual(acl.finalize(), 0)
        self.assertEqual(acl.finalize(), acl.ACL_ERROR_REPEAT_FINALIZE)

    def test_load_from_mem_and_runtime(self):
        self.assertEqual(acl.init(None), 0)
        try:
            with open(MODEL, "rb") as f:
                model_id, ret = acl.mdl.load_from_mem(f.read())
            self.assertEqual(ret, 0, acl.get_recent_err_msg())
            self.assertEqual(acl.mdl.unload(model_id), 0)
            self.assertEqual(acl.mdl.unload(model_id), acl.ACL_ERROR_INVALID_MODEL_ID)
            _, ret = acl.mdl.load_from_mem(b"not a model")
            self.assertNotEqual(ret, 0)
            _, ret = acl.mdl.load_from_file("no/such/model.om")
            self.assertEqual(ret, acl.ACL_ERROR_READ_MODEL_FAILURE)

            self.assertEqual(acl.rt.get_version(), (1, 0, 0, 0))
            self.assertEqual(acl.get_version(), (1, 0, 0, 0))
            self.assertEqual(acl.rt.set_device(3), 0)
            self.assertEqual(acl.rt.get_device(), (3, 0))
            self.assertEqual(acl.rt.reset_device(3), 0)
            address, ret = acl.rt.malloc(64)
            self.assertEqual(ret, 0)
            self.assertNotEqual(address, 0)
            buffer = acl.create_data_buffer(address, 64)
            self.assertEqual(acl.get_data_buffer_addr(buffer), address)
            self.assertEqual(acl.destroy_data_buffer(buffer), 0)
            self.assertEqual(acl.rt.free(address), 0)
            with self.assertRaises(TypeError):
                acl.create_data_buffer(b"read-only bytes")
            with self.assertRaises(ValueError):
                acl.create_data_buffer(bytearray(4), 8)
            self.assertEqual(acl.data_type_size(acl.ACL_FLOAT16), 2)
        finally:
            self.assertEqual(acl.finalize(), 0)

    def test_single_op(self):
        self.assertEqual(acl.init(), 0)
        try:
            a = np.arange(6, dtype=np.float32).reshape(2, 3)
            b = np.full((2, 3), 10, np.float32)
            c = np.zeros((2, 3), np.float32)
            descs = [acl.op.create_tensor_desc(acl.ACL_FLOAT, [2, 3], acl.ACL_FORMAT_ND)
                     for _ in range(3)]
            self.assertEqual(acl.op.get_tensor_desc_num_dims(descs[0]), 2)
            self.assertEqual(acl.op.get_tensor_desc_size(descs[0]), 24)
            buffers = [acl.create_data_buffer(x) for x in (a, b, c)]
            attr = acl.op.create_attr()
            ret = acl.op.execute_v2("Add", descs[:2], buffers[:2], descs[2:], buffers[2:], attr)
            self.assertEqual(ret, 0, acl.get_recent_err_msg())
            np.testing.assert_array_equal(c, a + b)
            ret = acl.op.execute_v2("NoSuchOp", descs[:2], buffers[:2], descs[2:], buffers[2:])
            self.assertEqual(ret, acl.ACL_ERROR_OP_NOT_FOUND)
            self.assertEqual(acl.op.set_attr_list_int(attr, "perm", [1, 0]), 0)
            acl.op.destroy_attr(attr)  # void in C
            self.assertIsNone(acl.op.destroy_tensor_desc(descs.pop()))
        finally:
            self.assertEqual(acl.finalize(), 0)


def count_files(directory, prefix):
    return sum(1 for _, _, files in os.walk(directory) for f in files if f.startswith(prefix))


class SampleFlowTest(unittest.TestCase):
    """bindings/python/sample_flow.py: the pyACL resnet50 samples' call sequences, each in a
    fresh process (a later aclInit must bring the first one's config content)."""

    def run_sample(self, work, init_config, set_dump=None):
        out = os.path.join(work, "probs.npy")
        args = [sys.executable, "bindings/python/sample_flow.py", MODEL, INPUT, out, init_config]
        if set_dump:
            args.append(set_dump)
        result = subprocess.run(args, capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "done\n")
        probs = np.load(out)
        self.assertEqual(probs.shape, (2, 10))  # the sync run, then the last async run
        for prob in probs:
            np.testing.assert_allclose(prob, np.load(PROB)[0], rtol=1e-4, atol=1e-5)
        return probs

    def check_dumps(self, dump_path, probs):
        iterations = iteration_dirs(dump_path)
        self.assertEqual(sorted(iterations), ["0", "1", "2"])  # 1 sync + 2 async executions
        self.assertEqual(len({len(files) for files in iterations.values()}), 1)
        for path in glob.glob(os.path.join(dump_path, "*", "*", "resnet_tiny", "*", "*",
                                           "Softmax.prob.*")):
            dump = read_dump(path)
            np.testing.assert_array_equal(dump.outputs[0].array.reshape(-1), probs[0])

    def test_dump_through_acl_init(self):
        with tempfile.TemporaryDirectory() as work:
            config = write_config(work, {"dump_path": work,
                                         "dump_list": [{"model_name": "resnet_tiny"}]})
            probs = self.run_sample(work, config)
            self.check_dumps(work, probs)

    def test_dump_through_set_dump(self):
        with tempfile.TemporaryDirectory() as work:
            init_config = os.path.join(work, "init.json")
            with open(init_config, "w") as f:
                f.write("{}")  # the samples' acl.json
            dump_path = os.path.join(work, "dump")
            os.mkdir(dump_path)
            config = write_config(work, {"dump_path": dump_path,
                                         "dump_list": [{"model_name": "resnet_tiny"}]})
            probs = self.run_sample(work, init_config, config)
            self.check_dumps(dump_path, probs)


class PyAclRuntimeTest(unittest.TestCase):
    """acl.rt, acl.util and the new acl.mdl calls: pyACL's shapes, and misuse."""

    def setUp(self):
        self.assertEqual(acl.init(), 0)
        self.addCleanup(acl.finalize)

    def test_util_feature_detection_and_pointers(self):
        for name in ("bytes_to_ptr", "ptr_to_bytes", "numpy_to_ptr", "ptr_to_numpy",
                     "start_thread", "stop_thread"):
            self.assertIn(name, dir(acl.util))
        data = bytes(range(16))
        address = acl.util.bytes_to_ptr(data)
        self.assertEqual(acl.util.ptr_to_bytes(address, 16), data)
        array = np.arange(6, dtype=np.float32).reshape(2, 3)
        view = acl.util.ptr_to_numpy(acl.util.numpy_to_ptr(array), (2, 3), 11)  # NPY_FLOAT32
        np.testing.assert_array_equal(view, array)
        self.assertEqual(acl.util.ptr_to_numpy(address, (4,), 23).dtype, np.float16)
        with self.assertRaises(ValueError):
            acl.util.ptr_to_numpy(address, (4,), 99)
        with self.assertRaises(ValueError):
            acl.util.numpy_to_ptr(np.zeros((4, 4), np.float32)[:, 1])

    def test_contexts_streams_and_memory(self):
        self.assertEqual(acl.rt.get_device(), (0, acl.ACL_ERROR_RT_CONTEXT_NULL))
        self.assertEqual(acl.rt.get_run_mode(), (1, 0))
        self.assertEqual(acl.rt.get_device_count(), (1024, 0))
        self.assertEqual(acl.rt.set_device(2), 0)
        context, ret = acl.rt.create_context(2)
        self.assertEqual(ret, 0)
        self.assertIsInstance(context, int)
        self.assertEqual(acl.rt.get_context(), (context, 0))
        stream, ret = acl.rt.create_stream()
        self.assertEqual(ret, 0)
        device, ret = acl.rt.malloc(64)
        host, ret2 = acl.rt.malloc_host(64)
        self.assertEqual((ret, ret2), (0, 0))
        source = np.arange(16, dtype=np.float32)
        self.assertEqual(acl.rt.memcpy(device, 64, acl.util.numpy_to_ptr(source), 64,
                                       acl.ACL_MEMCPY_HOST_TO_DEVICE), 0)
        self.assertEqual(acl.rt.memset_async(device, 64, 0, 8, stream), 0)
        self.assertEqual(acl.rt.memcpy_async(host, 64, device, 64,
                                             acl.ACL_MEMCPY_DEVICE_TO_HOST, stream), 0)
        self.assertEqual(acl.rt.synchronize_stream(stream), 0)
        copied = np.frombuffer(acl.util.ptr_to_bytes(host, 64), np.float32)
        np.testing.assert_array_equal(copied[2:], source[2:])
        np.testing.assert_array_equal(copied[:2], [0, 0])
        # Misuse: the SDK's codes, a message, no crash.
        self.assertEqual(acl.rt.memcpy(device, 32, host, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE),
                         acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertIn("exceeds destMax", acl.get_recent_err_msg())
        self.assertEqual(acl.rt.memcpy(host, 64, device, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE),
                         acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual(acl.rt.free(host), acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual(acl.rt.free_host(host), 0)
        self.assertEqual(acl.rt.free(device), 0)
        self.assertEqual(acl.rt.free(device), acl.ACL_ERROR_RT_PARAM_INVALID)
        free, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
        self.assertEqual(ret, 0)
        self.assertLessEqual(free, total)
        self.assertEqual(acl.rt.destroy_stream(stream), 0)
        self.assertEqual(acl.rt.destroy_stream(stream), acl.ACL_ERROR_RT_PARAM_INVALID)
        self.assertEqual(acl.rt.destroy_context(context), 0)
        self.assertEqual(acl.rt.set_context(context), acl.ACL_ERROR_RT_CONTEXT_NULL)
        self.assertEqual(acl.rt.reset_device(2), 0)

    def test_events_and_callbacks(self):
        self.assertEqual(acl.rt.set_device(0), 0)
        context, _ = acl.rt.get_context()
        stream, _ = acl.rt.create_stream()
        start, _ = acl.rt.create_event()
        end, _ = acl.rt.create_event()
        self.assertEqual(acl.rt.query_event_status(start), (0, 0))  # NOT_READY
        self.assertEqual(acl.rt.launch_callback(print, None, 1, stream),
                         acl.ACL_ERROR_RT_STREAM_NO_CB_REG)
        calls = []
        flag = {"run": True}

        def process(args):
            self.assertEqual(acl.rt.set_context(args[0]), 0)
            while flag["run"]:
                acl.rt.process_report(args[1])

        tid, ret = acl.util.start_thread(process, [context, 20])
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.subscribe_report(tid, stream), 0)
        self.assertEqual(acl.rt.record_event(start, stream), 0)
        for i in range(3):  # no-block, then blocking ones: all have run at the sync
            self.assertEqual(acl.rt.launch_callback(
                lambda data: calls.append((data, threading.get_ident())), i, 1 if i else 0,
                stream), 0)
        self.assertEqual(acl.rt.record_event(end, stream), 0)
        self.assertEqual(acl.rt.synchronize_event(end), 0)
        self.assertEqual(acl.rt.query_event_status(end), (1, 0))  # COMPLETE
        ms, ret = acl.rt.event_elapsed_time(start, end)
        self.assertEqual(ret, 0)
        self.assertGreaterEqual(ms, 0.0)
        self.assertEqual(acl.rt.synchronize_stream(stream), 0)
        self.assertEqual(acl.rt.unsubscribe_report(tid, stream), 0)
        flag["run"] = False
        self.assertEqual(acl.util.stop_thread(tid), 0)
        self.assertEqual([data for data, _ in calls], [0, 1, 2])
        self.assertEqual({thread for _, thread in calls}, {tid})
        with self.assertRaises(TypeError):
            acl.rt.launch_callback(42, None, 1, stream)
        self.assertEqual(acl.rt.process_report(0), acl.ACL_ERROR_INVALID_PARAM)
        for event in (start, end):
            self.assertEqual(acl.rt.destroy_event(event), 0)
        self.assertEqual(acl.rt.destroy_stream(stream), 0)

    def test_model_additions(self):
        self.assertEqual(acl.rt.set_device(0), 0)
        work, weight, ret = acl.mdl.query_size(MODEL)
        self.assertEqual(ret, 0)
        self.assertGreater(work, 0)
        with open(MODEL, "rb") as f:
            model_bytes = f.read()
        self.assertEqual(acl.mdl.query_size_from_mem(model_bytes, len(model_bytes)),
                         (work, weight, 0))
        address = acl.util.bytes_to_ptr(model_bytes)
        self.assertEqual(acl.mdl.query_size_from_mem(address, len(model_bytes)),
                         (work, weight, 0))
        self.assertEqual(acl.mdl.query_size("/tmp")[2], acl.ACL_ERROR_READ_MODEL_FAILURE)
        self.assertIn("is a directory", acl.get_recent_err_msg())
        work_ptr, _ = acl.rt.malloc(work)
        _, ret = acl.mdl.load_from_file_with_mem(MODEL, work_ptr, work - 1, 0, 0)
        self.assertEqual(ret, acl.ACL_ERROR_GE_PARAM_INVALID)
        model_id, ret = acl.mdl.load_from_mem_with_mem(address, len(model_bytes), work_ptr,
                                                       work, 0, 0)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        desc = acl.mdl.create_desc()
        self.assertEqual(acl.mdl.get_desc(desc, model_id), 0)
        self.assertEqual(acl.mdl.get_input_index_by_name(desc, "input"), (0, 0))
        self.assertEqual(acl.mdl.get_output_index_by_name(desc, "prob"), (1, 0))
        _, ret = acl.mdl.get_input_index_by_name(desc, "ascend_mbatch_shape_data")
        self.assertEqual(ret, acl.ACL_ERROR_INVALID_PARAM)
        self.assertEqual(acl.mdl.get_cur_output_dims(desc, 1),
                         ({"name": "prob", "dimCount": 2, "dims": [1, 10]}, 0))
        self.assertEqual(acl.mdl.get_input_dims_v2(desc, 0)[0]["dims"], [1, 3, 32, 32])
        self.assertEqual(acl.mdl.get_dynamic_batch(desc), ({"batchCount": 0, "batch": []}, 0))
        self.assertEqual(acl.mdl.get_dynamic_hw(desc, -1), ({"hwCount": 0, "hw": []}, 0))
        image = np.load(INPUT)
        fc = np.zeros((1, 10), np.float32)
        prob = np.zeros((1, 10), np.float32)
        inputs = acl.mdl.create_dataset()
        acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(image))
        outputs = acl.mdl.create_dataset()
        for array in (fc, prob):
            acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(array))
        self.assertEqual(acl.get_data_buffer_size(acl.mdl.get_dataset_buffer(outputs, 1)), 40)
        self.assertEqual(acl.mdl.execute_async(model_id, inputs, outputs, None), 0)
        self.assertEqual(acl.rt.synchronize_stream(None), 0)
        np.testing.assert_allclose(prob, np.load(PROB), rtol=1e-4, atol=1e-5)
        self.assertEqual(acl.rt.free(work_ptr), acl.ACL_ERROR_RT_MEMORY_FREE)  # in use
        self.assertEqual(acl.mdl.unload(model_id), 0)
        self.assertEqual(acl.rt.free(work_ptr), 0)

    def test_tensor_descs_at_the_top_level(self):
        desc = acl.create_tensor_desc(acl.ACL_FLOAT16, [2, 3], acl.ACL_FORMAT_NCHW)
        self.assertEqual(acl.get_tensor_desc_num_dims(desc), 2)
        self.assertEqual(acl.get_tensor_desc_dim_v2(desc, 1), (3, 0))
        self.assertEqual(acl.get_tensor_desc_format(desc), acl.ACL_FORMAT_NCHW)
        self.assertEqual(acl.get_tensor_desc_element_count(desc), 6)
        self.assertEqual(acl.get_tensor_desc_size(desc), 12)
        self.assertIsNone(acl.create_tensor_desc(999, [2], acl.ACL_FORMAT_ND))
        self.assertIn("999 is not an aclDataType", acl.get_recent_err_msg())
        self.assertEqual(acl.float16_to_float(acl.float_to_float16(1.5)), 1.5)


class PyAclGearsTest(unittest.TestCase):
    """A dynamic-batch model through pyACL: gears listed, selected, run and dumped per gear."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.addCleanup(acl.finalize)

    def test_every_gear_runs_and_dumps_its_shapes(self):
        dump_path = os.path.join(self.tmp.name, "out")
        os.mkdir(dump_path)
        config = write_config(self.tmp.name, {"dump_path": dump_path,
                                              "dump_list": [{"model_name": "ocr_tiny_batch"}]})
        self.assertEqual(acl.init(), 0)
        self.assertEqual(acl.mdl.init_dump(), 0)
        self.assertEqual(acl.mdl.set_dump(config), 0, acl.get_recent_err_msg())
        model_id, ret = acl.mdl.load_from_file("testdata/ocr_tiny_batch.om")
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        desc = acl.mdl.create_desc()
        self.assertEqual(acl.mdl.get_desc(desc, model_id), 0)
        self.assertEqual(acl.mdl.get_dynamic_batch(desc),
                         ({"batchCount": 3, "batch": [1, 2, 4]}, 0))
        self.assertEqual(acl.mdl.get_dynamic_hw(desc, -1), ({"hwCount": 0, "hw": []}, 0))
        index, ret = acl.mdl.get_input_index_by_name(desc, "ascend_mbatch_shape_data")
        self.assertEqual((index, ret), (1, 0))
        self.assertEqual(acl.mdl.get_input_dims(desc, 0)[0]["dims"], [-1, 3, 16, 16])
        image = np.load("testdata/ocr_tiny.input.x.npy")
        expected = np.load("testdata/ocr_tiny.output.prob.npy")
        x = np.zeros((4, 3, 16, 16), np.float32)
        gear = np.zeros(1, np.int64)
        y = np.zeros((4, 4, 24, 24), np.float32)
        self.assertEqual(acl.mdl.get_input_size_by_index(desc, 0), x.nbytes)
        self.assertEqual(acl.mdl.get_output_size_by_index(desc, 0), y.nbytes)
        inputs = acl.mdl.create_dataset()
        acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(x))
        acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(gear))
        outputs = acl.mdl.create_dataset()
        acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(y))
        for batch in (4, 1, 2):
            x[:batch] = image
            self.assertEqual(acl.mdl.set_dynamic_batch_size(model_id, inputs, index, batch), 0,
                             acl.get_recent_err_msg())
            self.assertEqual(gear[0], batch)
            dims, ret = acl.mdl.get_cur_output_dims(desc, 0)
            self.assertEqual((dims["dims"], ret), ([batch, 4, 24, 24], 0))
            self.assertEqual(acl.mdl.execute(model_id, inputs, outputs), 0,
                             acl.get_recent_err_msg())
            for b in range(batch):
                np.testing.assert_allclose(y[b], expected[0], rtol=1e-4, atol=1e-5)
        self.assertEqual(acl.mdl.set_dynamic_batch_size(model_id, inputs, index, 3),
                         acl.ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID)
        self.assertIn("batch [3] is not a gear", acl.get_recent_err_msg())
        self.assertEqual(acl.mdl.finalize_dump(), 0, acl.get_recent_err_msg())
        self.assertEqual(acl.mdl.unload(model_id), 0)
        acl.mdl.destroy_desc(desc)
        # One iteration per execution, each dumped with the shape of its gear.
        shapes = {}
        for path in glob.glob(os.path.join(dump_path, "**", "Sigmoid.prob.*"), recursive=True):
            header = read_dump(path)
            iteration = int(os.path.basename(os.path.dirname(path)))
            shapes[iteration] = list(header.outputs[0].shape)
        self.assertEqual(shapes, {0: [4, 4, 24, 24], 1: [1, 4, 24, 24], 2: [2, 4, 24, 24]})

    def test_dims_gears_as_pyacl_lists_and_sets_them(self):
        self.assertEqual(acl.init(), 0)
        model_id, ret = acl.mdl.load_from_file("testdata/ocr_tiny_dims.om")
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        desc = acl.mdl.create_desc()
        self.assertEqual(acl.mdl.get_desc(desc, model_id), 0)
        self.assertEqual(acl.mdl.get_input_dynamic_gear_count(desc, -1), (2, 0))
        dims, ret = acl.mdl.get_input_dynamic_dims(desc, -1, 2)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.assertEqual([gear["dims"] for gear in dims], [[1, 3, 16, 16], [2, 3, 32, 24]])
        self.assertEqual([gear["dimCount"] for gear in dims], [4, 4])
        self.assertEqual(acl.mdl.get_input_dynamic_dims(desc, -1, 1),
                         (None, acl.ACL_ERROR_INVALID_PARAM))
        # Room for more gears than the model has: its gears only.
        dims, ret = acl.mdl.get_input_dynamic_dims(desc, -1, 5)
        self.assertEqual((len(dims), ret), (2, 0))
        index, ret = acl.mdl.get_input_index_by_name(desc, "ascend_mbatch_shape_data")
        self.assertEqual((index, ret), (1, 0))
        image = np.load("testdata/ocr_tiny.input.x.npy")
        expected = np.load("testdata/ocr_tiny.output.prob.npy")
        x = np.zeros((2, 3, 32, 24), np.float32)
        gear = np.zeros(3, np.int64)
        y = np.zeros((2, 4, 48, 36), np.float32)
        inputs = acl.mdl.create_dataset()
        acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(x))
        acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(gear))
        outputs = acl.mdl.create_dataset()
        acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(y))
        x.reshape(-1)[:image.size] = image.reshape(-1)
        # pyACL's dict form.
        ret = acl.mdl.set_input_dynamic_dims(
            model_id, inputs, index, {"name": "", "dimCount": 4, "dims": [1, 3, 16, 16]})
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.assertEqual(list(gear), [1, 16, 16])
        self.assertEqual(acl.mdl.execute(model_id, inputs, outputs), 0, acl.get_recent_err_msg())
        np.testing.assert_allclose(y.reshape(-1)[:expected.size].reshape(expected.shape),
                                   expected, rtol=1e-4, atol=1e-5)
        # A list, and the errors.
        self.assertEqual(acl.mdl.set_input_dynamic_dims(model_id, inputs, index, [2, 3, 32, 24]),
                         0, acl.get_recent_err_msg())
        self.assertEqual(acl.mdl.get_cur_output_dims(desc, 0)[0]["dims"], [2, 4, 48, 36])
        self.assertEqual(acl.mdl.set_input_dynamic_dims(model_id, inputs, index, [2, 3, 32, 32]),
                         acl.ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID)
        self.assertIn("is not a gear of model", acl.get_recent_err_msg())
        with self.assertRaises(ValueError):
            acl.mdl.set_input_dynamic_dims(model_id, inputs, index,
                                           {"dimCount": 3, "dims": [1, 3, 16, 16]})
        with self.assertRaises(TypeError):
            acl.mdl.set_input_dynamic_dims(model_id, inputs, index, 5)
        self.assertEqual(acl.mdl.unload(model_id), 0)
        acl.mdl.destroy_desc(desc)


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def numpy_aipp(rgb_or_yuv, params):
    """The AIPP steps written with numpy: crop, color matrix (units of 1/256, rounded half away
    from zero, clamped), (pixel - mean - min) * var_reci, padding. Returns [3, H, W] float32."""
    x, y, w, h = params["crop"]
    channels = rgb_or_yuv[y:y + h, x:x + w, :].astype(np.int64)
    if params.get("matrix") is not None:
        matrix = np.array(params["matrix"], np.int64).reshape(3, 3)
        t = channels - np.array(params["input_bias"], np.int64)
        converted = round_half_away((np.einsum("rc,hwc->hwr", matrix, t) * 2 + 1) / 512.0)
        channels = np.clip(converted + np.array(params["output_bias"]), 0, 255)
    mean = np.array(params["mean"], np.float32)
    var_reci = np.array(params["var_reci"], np.float32)
    normalised = (channels.astype(np.float32) - mean) * var_reci
    top, bottom, left, right = params["padding"]
    out = np.full((h + top + bottom, w + left + right, 3), params["padding_value"], np.float32)
    out[top:top + h, left:left + w, :] = normalised
    return out.transpose(2, 0, 1)


def nv12_to_yuv(frame, width, height):
    """Per-pixel (Y, U, V) of an NV12 frame (U, V shared by each 2x2 block)."""
    y = frame[:width * height].reshape(height, width)
    uv = frame[width * height:].reshape(height // 2, width // 2, 2)
    uv = uv.repeat(2, axis=0).repeat(2, axis=1)
    return np.dstack([y, uv[:, :, 0], uv[:, :, 1]])


class PyAclAippTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.assertEqual(acl.init(), 0)
        self.addCleanup(acl.finalize)

    def run_model(self, path, buffers, out_index=1):
        """Loads `path`, runs it on the numpy arrays `buffers` and returns output out_index."""
        model_id, ret = acl.mdl.load_from_file(path)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.addCleanup(acl.mdl.unload, model_id)
        desc = acl.mdl.create_desc()
        self.assertEqual(acl.mdl.get_desc(desc, model_id), 0)
        inputs = acl.mdl.create_dataset()
        for array in buffers:
            acl.mdl.add_dataset_buffer(inputs, acl.create_data_buffer(array))
        outputs = acl.mdl.create_dataset()
        results = []
        for i in range(acl.mdl.get_num_outputs(desc)):
            results.append(np.zeros(acl.mdl.get_output_size_by_index(desc, i) // 4, np.float32))
            acl.mdl.add_dataset_buffer(outputs, acl.create_data_buffer(results[-1]))
        return model_id, inputs, lambda: (acl.mdl.execute(model_id, inputs, outputs),
                                          results[out_index])

    def reference(self, preprocessed):
        """resnet_tiny without AIPP on the numpy-preprocessed input."""
        _, _, run = self.run_model(MODEL, [np.ascontiguousarray(preprocessed[None])])
        ret, prob = run()
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        return prob.copy()

    def test_static_aipp_input_is_numpys_preprocessing_and_is_dumped(self):
        dump_path = os.path.join(self.tmp.name, "dump")
        os.mkdir(dump_path)
        config = write_config(self.tmp.name, {"dump_path": dump_path,
                                              "dump_list": [{"model_name": "resnet_tiny_aipp"}]})
        self.assertEqual(acl.mdl.init_dump(), 0)
        self.assertEqual(acl.mdl.set_dump(config), 0, acl.get_recent_err_msg())
        frame = np.random.default_rng(3).integers(0, 256, 40 * 36 * 3 // 2, dtype=np.uint8)
        model_id, _, run = self.run_model("testdata/resnet_tiny_aipp.om", [frame])
        self.assertEqual(acl.mdl.get_aipp_type(model_id, 0),
                         (acl.ACL_DATA_WITH_STATIC_AIPP, 0xFFFFFFFF, 0))
        info, ret = acl.mdl.get_first_aipp_info(model_id, 0)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.assertEqual((info["inputFormat"], info["srcImageSizeW"], info["srcImageSizeH"]),
                         (acl.ACL_YUV420SP_U8, 40, 36))
        self.assertEqual((info["cropSwitch"], info["loadStartPosW"], info["cropSizeH"]), (1, 4, 30))
        self.assertEqual(info["matrixR1C2"], -183)
        self.assertAlmostEqual(info["varReciChn1"], 0.0175, places=6)
        self.assertEqual(info["outDims"][0]["srcDims"]["dims"], [1, 54, 40, 1])
        self.assertEqual(info["outDims"][0]["aippOutdims"]["dims"], [1, 3, 32, 32])
        ret, prob = run()
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        prob = prob.copy()
        self.assertEqual(acl.mdl.finalize_dump(), 0, acl.get_recent_err_msg())
        expected = numpy_aipp(nv12_to_yuv(frame, 40, 36), {
            "crop": (4, 2, 32, 30), "matrix": [256, 0, 359, 256, -88, -183, 256, 454, 0],
            "input_bias": [0, 128, 128], "output_bias": [0, 0, 0], "mean": [124, 117, 104],
            "var_reci": [0.0171, 0.0175, 0.0174], "padding": (1, 1, 0, 0),
            "padding_value": 0.5})
        # The preprocessed input is the Aipp operator's output in the dump.
        dumped = glob.glob(os.path.join(dump_path, "**", "Aipp.aipp_input.*"), recursive=True)
        self.assertEqual(len(dumped), 1, dumped)
        np.testing.assert_allclose(read_dump(dumped[0]).outputs[0].array.reshape(3, 32, 32),
                                   expected, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(prob, self.reference(expected), rtol=1e-5, atol=1e-6)

    def test_dynamic_aipp_set_per_execution(self):
        # A 34x32 BGR image; the model wants the 32x32 at (1, 0) as RGB.
        image = np.random.default_rng(5).integers(0, 256, (32, 34, 3), dtype=np.uint8)
        images = np.zeros(4096, np.uint8)
        images[:image.size] = image.reshape(-1)
        size, ret = acl.mdl.get_aipp_data_size(1)
        self.assertEqual((size, ret), (160, 0))
        params = np.zeros(size, np.uint8)
        model_id, inputs, run = self.run_model("testdata/resnet_tiny_dynaipp.om", [images, params])
        desc = acl.mdl.create_desc()
        self.assertEqual(acl.mdl.get_desc(desc, model_id), 0)
        index, ret = acl.mdl.get_input_index_by_name(desc, acl.ACL_DYNAMIC_AIPP_NAME)
        self.assertEqual((index, ret), (1, 0))
        self.assertEqual(acl.mdl.get_aipp_type(model_id, 0),
                         (acl.ACL_DATA_WITH_DYNAMIC_AIPP, 1, 0))
        self.assertEqual(acl.mdl.get_aipp_type(model_id, 1),
                         (acl.ACL_DYNAMIC_AIPP_NODE, 0xFFFFFFFF, 0))
        self.assertEqual(acl.mdl.get_first_aipp_info(model_id, 0),
                         (None, acl.ACL_ERROR_NOT_STATIC_AIPP))
        # Executing before the parameters are set is refused with the call to make.
        ret, _ = run()
        self.assertNotEqual(ret, 0)
        self.assertIn("aclmdlSetInputAIPP", acl.get_recent_err_msg())
        aipp = acl.mdl.create_aipp(1)
        self.assertEqual(acl.mdl.set_aipp_input_format(aipp, acl.ACL_RGB888_U8), 0)
        self.assertEqual(acl.mdl.set_aipp_src_image_size(aipp, 34, 32), 0)
        self.assertEqual(acl.mdl.set_aipp_rbuv_swap_switch(aipp, 1), 0)
        self.assertEqual(acl.mdl.set_aipp_dtc_pixel_mean(aipp, 120, 110, 100, 0, 0), 0)
        self.assertEqual(acl.mdl.set_aipp_pixel_var_reci(aipp, 0.5, 0.25, 0.125, 1.0, 0), 0)
        # Without the crop the image does not fit the input: refused, naming the sizes.
        self.assertEqual(acl.mdl.set_input_aipp(model_id, inputs, index, aipp),
                         acl.ACL_ERROR_INVALID_PARAM)
        self.assertIn("is 34x32 (width x height); the model input is 32x32",
                      acl.get_recent_err_msg())
        self.assertEqual(acl.mdl.set_aipp_crop_params(aipp, 1, 1, 0, 32, 32, 0), 0)
        self.assertEqual(acl.mdl.set_aipp_scf_params(aipp, 1, 34, 32, 32, 32, 0),
                         acl.ACL_ERROR_FEATURE_UNSUPPORTED)
        self.assertEqual(acl.mdl.set_aipp_crop_params(aipp, 1, 1, 0, 32, 32, 1),
                         acl.ACL_ERROR_INVALID_PARAM)  # batch index 1 of 1
        self.assertEqual(acl.mdl.set_input_aipp(model_id, inputs, index, aipp), 0,
                         acl.get_recent_err_msg())
        self.assertEqual(params[0], 5)  # the device's code of RGB888_U8
        ret, prob = run()
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        prob = prob.copy()
        expected = numpy_aipp(image[:, :, ::-1], {
            "crop": (1, 0, 32, 32), "matrix": None, "mean": [120, 110, 100],
            "var_reci": [0.5, 0.25, 0.125], "padding": (0, 0, 0, 0), "padding_value": 0})
        np.testing.assert_allclose(prob, self.reference(expected), rtol=1e-5, atol=1e-6)
        # By the image input's index, the same.
        self.assertEqual(acl.mdl.set_aipp_by_input_index(model_id, inputs, 0, aipp), 0)
        self.assertEqual(acl.mdl.set_aipp_by_input_index(model_id, inputs, 1, aipp),
                         acl.ACL_ERROR_INVALID_PARAM)
        self.assertEqual(acl.mdl.destroy_aipp(aipp), 0)
        acl.mdl.destroy_desc(desc)


class PythonicTest(unittest.TestCase):
    def test_model_run_and_dump(self):
        with tempfile.TemporaryDirectory() as work:
            config = write_config(work, {"dump_path": work,
                                         "dump_list": [{"model_name": "resnet_tiny"}]})
            with acldump.session(), acldump.dump_session(config):
                with acldump.Model(MODEL) as model:
                    self.assertEqual([t.name for t in model.inputs], ["input"])
                    self.assertEqual(model.inputs[0].dims, (1, 3, 32, 32))
                    self.assertEqual([t.name for t in model.outputs], ["fc", "prob"])
                    fc, prob = model.run(np.load(INPUT))
                    self.assertEqual(prob.shape, (1, 10))
                    np.testing.assert_allclose(prob, np.load(PROB), rtol=1e-4, atol=1e-5)
                    with self.assertRaises(TypeError):
                        model.run(np.zeros((1, 3, 32, 32)))  # float64
                    with self.assertRaises(acldump.AclError) as raised:
                        model.run(np.zeros((1, 3, 16, 16), np.float32))
                    self.assertEqual(raised.exception.code, acl.ACL_ERROR_MODEL_INPUT_NOT_MATCH)
            self.assertEqual(sorted(iteration_dirs(work)), ["0"])

    def test_armed_dump_for_one_request_without_reload(self):
        image = np.load(INPUT)
        with tempfile.TemporaryDirectory() as work:
            config = write_config(work, {"dump_path": work, "dump_mode": "output",
                                         "dump_list": [{"model_name": "resnet_tiny"}]})
            with acldump.session(), acldump.Model(MODEL) as model:
                model.arm_dump(config, 1, tag="req-7")
                self.assertEqual(model.armed_dump_count("req-7"), (0, 1))
                plain = model.run(image)                       # iteration 0
                model.run(image, tag="req-6")                  # 1
                tagged = model.run(image, tag="req-7")         # 2: dumped
                model.run(image, tag="req-7")                  # 3: the arm is spent
                self.assertEqual(model.armed_dump_count("req-7"), (1, 0))
                for a, b in zip(plain, tagged):
                    np.testing.assert_array_equal(a, b)
                self.assertEqual(model.dump_drop_count(),
                                 {"records": 0, "bytes": 0, "iterations": 0})
                model.arm_dump(config)                         # untagged, until disarmed
                self.assertEqual(model.armed_dump_count(), (0, None))
                model.disarm_dump()
                with self.assertRaises(acldump.AclError) as raised:
                    model.disarm_dump("req-7")
                self.assertEqual(raised.exception.code, acl.ACL_ERROR_INVALID_PARAM)
                self.assertIn("for tag 'req-7' does not exist", str(raised.exception))
                with self.assertRaises(acldump.AclError) as raised:
                    model.run(image, tag="bad\ttag")
                self.assertIn("printable ASCII", str(raised.exception))
            requests = glob.glob(os.path.join(work, "*", "*", "*", "*", "*", "request.json"))
            self.assertEqual(len(requests), 1)
            with open(requests[0]) as f:
                request = json.load(f)
            self.assertEqual(request["request_tag"], "req-7")
            self.assertEqual(request["iteration"], 2)
            self.assertEqual(sorted(iteration_dirs(work)), ["2"])

    def test_recorder_replays_a_planted_nan_bit_for_bit(self):
        image = np.load(INPUT)
        with tempfile.TemporaryDirectory() as work:
            config = write_config(work, {"dump_path": work, "dump_mode": "output",
                                         "dump_list": [{"model_name": "resnet_tiny"}]})
            with acldump.session(), acldump.Model(MODEL) as model:
                model.start_recorder(config, 3, operator_stats=True)
                expected = model.run(image)                    # 0
                model.run(image)                               # 1
                bad = image.copy()
                bad.flat[5] = np.nan
                outputs = model.run(bad)                       # 2: triggers
                self.assertTrue(np.isnan(outputs[1]).all())
                model.wait_recorder(60)
                self.assertEqual(model.recorder_counts(),
                                 {"recorded": 3, "triggers": 1, "reports": 1,
                                  "reproduced": 1, "skipped": 0})
                report = model.last_recorder_report()
                self.assertTrue(report.reproduced)
                self.assertEqual(report.trigger_iteration, 2)
                summary = report.summary()
                self.assertEqual(summary["trigger"]["kind"], "non_finite_operator")
                self.assertEqual([e["iteration"] for e in summary["executions"]], [0, 1, 2])
                saved = np.load(os.path.join(report.directory,
                                             summary["executions"][2]["inputs"][0]))
                np.testing.assert_array_equal(saved, bad)      # NaN included
                self.assertTrue(summary["replay"]["reproduced"])
                # The replayed outputs were dumped: the replay's iteration folder.
                self.assertIn(str(summary["replay"]["iteration"]), iteration_dirs(work))
                # A call: the newest execution, whose outputs equal the first run's.
                again = model.run(image)
                for a, b in zip(expected, again):
                    np.testing.assert_array_equal(a, b)
                called = model.trigger_recorder("checking")
                self.assertTrue(called.reproduced)
                self.assertNotEqual(called.directory, report.directory)
                self.assertEqual(called.summary()["trigger"]["detail"], "checking")
                with self.assertRaises(acldump.AclError) as raised:
                    model.start_recorder(config)
                self.assertIn("already has a recorder", str(raised.exception))
                model.stop_recorder()
                with self.assertRaises(acldump.AclError) as raised:
                    model.trigger_recorder()
                self.assertEqual(raised.exception.code, acl.ACL_ERROR_INVALID_PARAM)
                self.assertIn("has no recorder", str(raised.exception))

    def test_outputs_whose_size_varies_come_back_with_this_executions_shape(self):
        scores = np.load("testdata/postprocess_tiny.input.scores.npy")
        boxes = np.load("testdata/postprocess_tiny.input.boxes.npy")
        with acldump.session():
            with acldump.Model("testdata/postprocess_tiny.onnx") as model:
                self.assertEqual(model.outputs[0].dims, (-1, 4))
                self.assertEqual(model.outputs[0].size, 0)
                for run, s in (("postprocess_tiny", scores),
                               ("postprocess_tiny_quiet",
                                np.load("testdata/postprocess_tiny_quiet.input.scores.npy"))):
                    outputs = model.run(s, boxes)
                    for name, value in zip(("boxes_out", "best", "cumsum", "above"), outputs):
                        expected = np.load("testdata/%s.output.%s.npy" % (run, name))
                        self.assertEqual(value.shape, expected.shape, (run, name))
                        np.testing.assert_array_equal(value, expected)

    def test_onnx_models_are_converted_in_process(self):
        with tempfile.TemporaryDirectory() as work:
            config = write_config(work, {"dump_path": work, "dump_list": [
                {"model_name": "resnet_tiny", "layer": ["prob"]}]})
            with acldump.session(), acldump.dump_session(config):
                # The dump model name is the .onnx file's name, as for an .om.
                with acldump.Model("testdata/resnet_tiny.onnx") as model:
                    fc, prob = model.run(np.load(INPUT))
                    np.testing.assert_allclose(prob, np.load(PROB), rtol=1e-4, atol=1e-5)
                with acldump.Model("testdata/ocr_tiny.onnx", input_shape="x:2,3,16,16") as model:
                    self.assertEqual(model.inputs[0].dims, (2, 3, 16, 16))
                    image = np.load("testdata/ocr_tiny.input.x.npy")
                    [prob] = model.run(np.repeat(image, 2, axis=0))
                    np.testing.assert_allclose(prob[1], np.load("testdata/ocr_tiny.output.prob.npy")[0],
                                               rtol=1e-4, atol=1e-5)
                with self.assertRaises(acldump.AclError) as raised:
                    acldump.Model("testdata/ocr_tiny.onnx", input_shape="x=2")
                self.assertEqual(raised.exception.code, acl.ACL_ERROR_INVALID_PARAM)
                self.assertIn("inputShape", raised.exception.message)
                bad = os.path.join(work, "bad.onnx")
                with open(bad, "wb") as f:
                    f.write(b"not a model \xff\xff")
                with self.assertRaises(acldump.AclError) as raised:
                    acldump.Model(bad)
                self.assertEqual(raised.exception.code, acl.ACL_ERROR_PARSE_MODEL)
                with self.assertRaisesRegex(ValueError, "input_shape applies to .onnx"):
                    acldump.Model(MODEL, input_shape="input:1,3,32,32")
            prob_files = glob.glob(os.path.join(work, "**", "Softmax.prob.*"), recursive=True)
            self.assertEqual(len(prob_files), 1, prob_files)
            self.assertIn(os.sep + "resnet_tiny" + os.sep, prob_files[0])
            # pyACL's shape of the same call.
            om = os.path.join(work, "r.om")
            self.assertEqual(acl.mdl.convert_onnx("testdata/resnet_tiny.onnx", om), acl.ACL_SUCCESS)
            with open(om, "rb") as f, open(MODEL, "rb") as g:
                self.assertEqual(f.read(), g.read())

    def test_dynamic_model_runs_at_the_gear_of_its_input(self):
        image = np.load("testdata/ocr_tiny.input.x.npy")
        expected = np.load("testdata/ocr_tiny.output.prob.npy")
        with acldump.session():
            with acldump.Model("testdata/ocr_tiny_batch.om") as model:
                self.assertEqual(model.gears, [(1,), (2,), (4,)])
                self.assertEqual(model.inputs[1].name, acldump.GEAR_INPUT)
                for batch in (2, 1, 4):
                    [prob] = model.run(np.repeat(image, batch, axis=0))
                    self.assertEqual(prob.shape, (batch, 4, 24, 24))
                    for b in range(batch):
                        np.testing.assert_allclose(prob[b], expected[0], rtol=1e-4, atol=1e-5)
                with self.assertRaisesRegex(ValueError, r"batch \(3,\) is not one of the "
                                                        r"model's gears"):
                    model.run(np.repeat(image, 3, axis=0))

    def test_errors_carry_code_and_message(self):
        with acldump.session():
            with self.assertRaises(acldump.AclError) as raised:
                acldump.dump_session(os.path.join(tempfile.gettempdir(), "no_such_acl.json"))
            self.assertEqual(raised.exception.code, acl.ACL_ERROR_INVALID_FILE)
            self.assertTrue(raised.exception.message)
            with self.assertRaises(acldump.AclError) as raised:
                acldump.Model("no/such/model.om")
            self.assertEqual(raised.exception.code, acl.ACL_ERROR_READ_MODEL_FAILURE)
        with self.assertRaises(acldump.AclError) as raised:
            acldump.Model(MODEL)
        self.assertEqual(raised.exception.code, acl.ACL_ERROR_UNINITIALIZE)
        self.assertIn("aclInit", raised.exception.message)


    def test_without_numpy(self):
        script = """
import sys
sys.modules["numpy"] = None  # as if numpy were not installed
import acldump
with acldump.session(), acldump.Model("testdata/resnet_tiny.om") as model:
    fc, prob = model.run(bytes(3 * 32 * 32 * 4))
print(type(prob).__name__, len(prob))
"""
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "bytearray 40\n")


class ExampleTest(unittest.TestCase):
    def test_example_runs(self):
        result = subprocess.run([sys.executable, "bindings/python/example.py"],
                                capture_output=True, text=True, check=True)
        self.assertIn("prob (1, 10) sums to 1.0", result.stdout)
        self.assertIn("error 100003 ", result.stdout)
        self.assertRegex(result.stdout, r"resnet_tiny/\d+/0 \d+ files")

    def test_readme_shows_the_example(self):
        with open("README.md") as f:
            readme = f.read()
        with open("bindings/python/example.py") as f:
            example = f.read()
        blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
        self.assertIn(example, blocks, "README's Python example must be bindings/python/example.py")


if __name__ == "__main__":
    unittest.main(verbosity=2)
