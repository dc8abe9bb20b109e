"""The acl package's generated layer (bindings/calls.py): what its rows give beyond the calls
acl_test.py exercises (run by run_python.sh from the runfiles root)."""

import pydoc
import unittest

import acl


class GeneratedCallsTest(unittest.TestCase):

    def setUp(self):
        self.addCleanup(acl.finalize)

    def test_get_soc_name_at_the_top_level_as_in_pyacl(self):
        self.assertEqual(acl.get_soc_name(), "acldump_cpu")  # before acl.init
        self.assertEqual(acl.rt.get_soc_name(), "acldump_cpu")
        self.assertEqual(acl.get_soc_name.__module__, "acl")

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
