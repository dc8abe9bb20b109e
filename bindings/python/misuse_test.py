"""The misuse table (testdata/misuse_cases.json) in Python: each misuse gives the same aclError
code and message text as in C, Go and Java."""
import json
import os
import unittest

import numpy as np

import acl
import acldump

TABLE = "testdata/misuse_cases.json"


def zeros(spec):
    return np.zeros(spec["shape"], dtype=spec["dtype"])


class MisuseTableTest(unittest.TestCase):
    def test_every_case(self):
        with open(TABLE) as f:
            table = json.load(f)
        self.assertGreaterEqual(len(table["cases"]), 5)
        for case in table["cases"]:
            with self.subTest(case["name"]):
                self.run_case(table["model"], case)

    def run_case(self, model_path, case):
        expect = case["expect"]
        self.assertEqual(getattr(acl, expect["code_name"]), expect["code"])
        with acldump.session():
            model = acldump.Model(model_path)
            try:
                if case.get("before") == "close_model":
                    model.close()
                with self.assertRaises(acldump.AclError) as raised:
                    self.act(model, case)
            finally:
                model.close()
        self.assertEqual(raised.exception.code, expect["code"], raised.exception.message)
        self.assertIn(expect["message"], raised.exception.message)

    @staticmethod
    def act(model, case):
        args = case["args"]
        action = case["action"]
        if action == "run_positional":
            model.run(*[bytearray(spec["bytes"]) for spec in args["inputs"]])
        elif action == "run_named":
            model.run_named({name: None if spec is None else zeros(spec)
                             for name, spec in args["inputs"].items()})
        elif action == "execute_model_id":
            in_set, out_set = acl.mdl.create_dataset(), acl.mdl.create_dataset()
            try:
                ret = acl.mdl.execute(args["model_id"], in_set, out_set)
                if ret != acl.ACL_SUCCESS:
                    raise acldump.AclError(ret, acl.get_recent_err_msg())
            finally:
                acl.mdl.destroy_dataset(in_set)
                acl.mdl.destroy_dataset(out_set)
        else:
            raise AssertionError("unknown action %r" % action)


if __name__ == "__main__":
    unittest.main(verbosity=2)
