"""The acl package's generated layer (bindings/calls.py): what its rows give beyond the calls
acl_test.py exercises (run by run_python.sh from the runfiles root)."""

import os
import pydoc
import subprocess
import sys
import unittest

import acl


class GeneratedCallsTest(unittest.TestCase):

    def setUp(self):
        self.addCleanup(acl.finalize)

    def test_get_soc_name_at_the_top_level_as_in_pyacl(self):
        self.assertEqual(acl.get_soc_name(), "acldump_cpu")  # before acl.init
        self.assertEqual(acl.rt.get_soc_name(), "acldump_cpu")
        self.assertEqual(acl.get_soc_name.__module__, "acl")

    def test_app_log_as_pyacl_with_the_callers_place(self):
        program = "\n".join([
            "import acl",
            "def load_model():",
            "    acl.app_log(0, 'below the level')",
            "    acl.app_log(1, 'model loaded: %d inputs' % 2)",
            "    return acl.app_log(3, {'not': 'a str'})",
            "assert load_model() is None",
            "try:",
            "    acl.app_log('1', 'x')",
            "except TypeError as e:",
            "    print(e)",
        ])
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              env=dict(os.environ, ASCEND_GLOBAL_LOG_LEVEL="1"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr.splitlines(), [
            "[INFO] <string>:4 load_model: model loaded: 2 inputs",
            "[ERROR] <string>:5 load_model: {'not': 'a str'}",
        ])
        self.assertIn("log_level must be an int", done.stdout)
        # The default level shows errors only.
        env = {k: v for k, v in os.environ.items() if k != "ASCEND_GLOBAL_LOG_LEVEL"}
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              env=env)
        self.assertEqual(done.stderr.splitlines(),
                         ["[ERROR] <string>:5 load_model: {'not': 'a str'}"])

    def test_handles_compare_hash_and_convert_by_address_as_pyacl_ints(self):
        dataset = acl.mdl.create_dataset()
        memory = bytearray(16)
        buffer = acl.create_data_buffer(memory)
        other = acl.create_data_buffer(bytearray(8))
        _, ret = acl.mdl.add_dataset_buffer(dataset, buffer)
        self.assertEqual(ret, 0)
        first = acl.mdl.get_dataset_buffer(dataset, 0)
        second = acl.mdl.get_dataset_buffer(dataset, 0)
        self.assertIsNot(first, second)
        self.assertEqual(first, second)
        self.assertEqual(first, buffer)
        self.assertEqual(hash(first), hash(second))
        self.assertEqual(len({first, second, buffer}), 1)
        self.assertEqual({buffer: "input 0"}[second], "input 0")
        self.assertNotEqual(first, other)
        self.assertIsInstance(int(first), int)
        self.assertNotEqual(int(first), 0)
        self.assertEqual(int(first), int(buffer))
        self.assertEqual(first, int(first))
        self.assertNotEqual(first, 0)
        self.assertEqual("%x" % first, "%x" % int(first))  # __index__
        self.assertNotEqual(first, "a string")
        self.assertNotEqual(int(dataset), int(first))
        desc = acl.create_tensor_desc(acl.ACL_FLOAT, [1, 2], acl.ACL_FORMAT_ND)
        self.assertEqual(desc, int(desc))
        self.assertEqual(acl.mdl.destroy_dataset(dataset), 0)

    def test_op_cast_and_set_model_dir_as_pyacl(self):
        import numpy as np
        self.assertEqual(acl.init(), 0)
        x = np.array([1.5, -2.7, 3.9], np.float32)
        y = np.zeros(3, np.int32)
        src = acl.create_tensor_desc(acl.ACL_FLOAT, [3], acl.ACL_FORMAT_ND)
        dst = acl.create_tensor_desc(acl.ACL_INT32, [3], acl.ACL_FORMAT_ND)
        ret = acl.op.cast(src, acl.create_data_buffer(x), dst, acl.create_data_buffer(y), 0, None)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.assertEqual(y.tolist(), [1, -2, 3])
        # A constant input: acl.set_tensor_const, then no buffer.
        const = np.array([10, 20, 30], np.float32)
        self.assertEqual(acl.set_tensor_const(src, acl.util.numpy_to_ptr(const), const.nbytes), 0)
        out = np.zeros(3, np.float32)
        ret = acl.op.execute_v2("Add", [src, src], [None, acl.create_data_buffer(x)], [src],
                                [acl.create_data_buffer(out)], None, None)
        self.assertEqual(ret, 0, acl.get_recent_err_msg())
        self.assertEqual(out.tolist(), (x + const).tolist())
        self.assertNotEqual(acl.op.set_model_dir("/nonexistent/op_models"), 0)
        self.assertIn("is not a folder", acl.get_recent_err_msg())
        folder = os.environ.get("TEST_TMPDIR", "/tmp")
        self.assertEqual(acl.op.set_model_dir(folder), 0, acl.get_recent_err_msg())
        self.assertEqual(acl.op.set_model_dir(folder), acl.ACL_ERROR_REPEAT_INITIALIZE)

    def test_query_event_is_the_older_event_status(self):
        self.assertEqual(acl.init(), 0)
        self.assertEqual(acl.rt.set_device(0), 0)
        self.addCleanup(acl.rt.reset_device, 0)
        stream, ret = acl.rt.create_stream()
        self.assertEqual(ret, 0)
        event, ret = acl.rt.create_event()
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.query_event(event), (acl.ACL_EVENT_STATUS_NOT_READY, 0))
        self.assertEqual(acl.rt.record_event(event, stream), 0)
        self.assertEqual(acl.rt.synchronize_event(event), 0)
        self.assertEqual(acl.rt.query_event(event), (acl.ACL_EVENT_STATUS_COMPLETE, 0))
        self.assertEqual(acl.rt.query_event_status(event),
                         (acl.ACL_EVENT_RECORDED_STATUS_COMPLETE, 0))
        self.assertEqual(acl.rt.destroy_event(event), 0)
        status, ret = acl.rt.query_event(event)
        self.assertEqual(status, 0)  # out-parameters stay 0 on failure
        self.assertNotEqual(ret, 0)
        self.assertTrue(acl.get_recent_err_msg())
        self.assertEqual(acl.rt.destroy_stream(stream), 0)

    def test_help_lists_the_generated_functions_under_their_module(self):
        for module, name in ((acl, "create_tensor_desc"), (acl.rt, "set_device"),
                             (acl.mdl, "load_from_file"), (acl.op, "set_attr_list_int"),
                             (acl.dump, "get_path")):
            self.assertEqual(getattr(module, name).__module__, module.__name__)
            self.assertIn(name + "(", pydoc.render_doc(module, renderer=pydoc.plaintext))

    def test_python_arguments_are_converted_as_the_table_says(self):
        # "path": os.PathLike; "bool": any truth value; "seq": any iterable; defaults.
        import pathlib

        self.assertEqual(acl.init(pathlib.Path("/nonexistent/acl.json")),
                         acl.ACL_ERROR_INVALID_FILE)
        self.assertEqual(acl.init(), 0)
        attr = acl.op.create_attr()
        self.assertEqual(acl.op.set_attr_bool(attr, "flag", "yes"), 0)
        self.assertEqual(acl.op.set_attr_list_int(attr, "axes", iter([1, 2])), 0)
        desc = acl.create_tensor_desc(acl.ACL_FLOAT, (2, 3), acl.ACL_FORMAT_ND)
        self.assertEqual(acl.get_tensor_desc_element_count(desc), 6)
        self.assertEqual(acl.rt.set_device(0), 0)
        self.addCleanup(acl.rt.reset_device, 0)
        address, ret = acl.rt.malloc(16)  # policy defaults to ACL_MEM_MALLOC_HUGE_FIRST
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.free(address), 0)
        self.assertEqual(acl.rt.free(0), acl.ACL_ERROR_INVALID_PARAM)  # 0 is NULL


if __name__ == "__main__":
    unittest.main()
