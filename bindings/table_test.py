"""The bindings come from one table: every exported C call is a row of bindings/calls.py or
special (with a reason), and the built layer of each language exposes every row.

Runs from the runfiles root: the table, the headers, the Python packages (with the extension),
acldump.jar and the Go module's files are there.
"""

import glob
import importlib
import inspect
import os
import re
import subprocess
import sys
import types
import unittest

sys.path.insert(0, "bindings")
sys.path.insert(0, "bindings/python")

import gen_bindings  # noqa: E402

TABLE = gen_bindings.load_table("bindings/calls.py")
HEADERS = sys.argv[1:]  # the C headers (BUILD passes them)


def model(table=TABLE):
    return gen_bindings.Model(table, gen_bindings.Headers(HEADERS))


def py_function(name):
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module("acl." + module if module else "acl"), attr, None)


def go_functions(directory):
    found = set()
    for path in glob.glob(os.path.join(directory, "*.go")):
        if path.endswith("_test.go"):
            continue
        with open(path, encoding="utf-8") as f:
            found.update(re.findall(r"^func (\w+)\(", f.read(), flags=re.M))
    return found


def java_methods(jar, cls):
    """{name: [declaration line]} of the public methods of a class in the jar (javap)."""
    out = subprocess.run(["/usr/bin/javap", "-public", "-cp", jar, cls], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    methods = {}
    for line in out.splitlines():
        found = re.search(r"(\w+)\(", line)
        if found and "(" in line:
            methods.setdefault(found.group(1), []).append(line.strip())
    return methods


class TableTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.model = model()
        with open("bindings/c/exported_symbols.txt", encoding="utf-8") as f:
            cls.exported = {line.strip() for line in f if line.strip()}

    def test_every_exported_call_is_a_row_or_special(self):
        rows = {row.c for row in self.model.rows}
        special = set(self.model.special)
        self.assertEqual(rows & special, set())
        unbound = set(self.model.unbound)
        self.assertEqual(sorted(self.exported - rows - special - unbound), [],
                         "neither row nor special")
        self.assertEqual(sorted(unbound - self.exported), [], "unbound but not exported")
        self.assertIn("acldvppMalloc", unbound)
        self.assertEqual(sorted((rows | special) - self.exported), [], "not exported")
        for entry in TABLE.SPECIAL:
            self.assertTrue(entry.reason.strip(), entry.c)
        # The table is the rule, special the exception.
        self.assertGreater(len(rows), 3 * len(special))

    def test_python_exposes_every_row_as_the_table_says(self):
        for row in self.model.rows:
            for name in row.call.py:
                with self.subTest(name=name):
                    function = py_function(name)
                    self.assertIsInstance(function, types.FunctionType)
                    self.assertIn(row.c, function.__code__.co_names)
                    self.assertEqual(list(inspect.signature(function).parameters),
                                     [arg.py_name for arg in row.ins])
                    self.assertEqual(function.__module__,
                                     "acl" + ("." + name.split(".")[0] if "." in name else ""))
                    doc = inspect.getdoc(function)
                    self.assertEqual(doc and " ".join(doc.split()),
                                     row.call.doc and " ".join(row.call.doc.split()))
        for entry in TABLE.SPECIAL:
            for name in entry.py:
                self.assertTrue(callable(py_function(name)), name)

    def test_java_exposes_every_row(self):
        jar = "bindings/java/acldump.jar"
        native = java_methods(jar, "com.acldump.swig.AclNative")
        acl = java_methods(jar, "com.acldump.Acl")
        for row in self.model.rows:
            with self.subTest(call=row.c):
                self.assertIn(row.c, native)
                if row.java_name():
                    declarations = acl.get(row.java_name(), [])
                    self.assertTrue(any("public static" in d for d in declarations), declarations)

    def test_go_exposes_every_row(self):
        package = go_functions("bindings/go")
        raw = go_functions("bindings/go/acl")
        for row in self.model.rows:
            with self.subTest(call=row.c):
                self.assertIn(row.c, package)  # the wrapper that copies the message
                self.assertIn(row.c[0].upper() + row.c[1:], raw)  # SWIG's
                if row.go_name():
                    self.assertIn(row.go_name(), package)


class GeneratorTest(unittest.TestCase):
    """The generator refuses a table that disagrees with the headers."""

    def table(self, *calls, special=None):
        return types.SimpleNamespace(CALLS=list(TABLE.CALLS) + list(calls),
                                     SPECIAL=special if special is not None else TABLE.SPECIAL,
                                     UNBOUND_HEADERS=TABLE.UNBOUND_HEADERS)

    def refuses(self, table, message):
        with self.assertRaisesRegex(gen_bindings.TableError, message):
            model(table)

    def without(self, c):
        return types.SimpleNamespace(
            CALLS=[call for call in TABLE.CALLS if call.c != c],
            SPECIAL=TABLE.SPECIAL, UNBOUND_HEADERS=TABLE.UNBOUND_HEADERS)

    def replaced(self, call):
        return types.SimpleNamespace(
            CALLS=[call if old.c == call.c else old for old in TABLE.CALLS],
            SPECIAL=TABLE.SPECIAL, UNBOUND_HEADERS=TABLE.UNBOUND_HEADERS)

    def test_every_declared_call_must_be_listed(self):
        self.refuses(self.without("aclrtGetDevice"), "neither a row nor special: aclrtGetDevice")
        # Unless its header is left out with a reason.
        no_unbound = types.SimpleNamespace(CALLS=TABLE.CALLS, SPECIAL=TABLE.SPECIAL)
        self.refuses(no_unbound, "neither a row nor special: acldvppClearHist")

    def test_parameters_follow_the_header(self):
        self.refuses(self.replaced(TABLE.Call("aclrtGetDevice", "out device", py="rt.get_device")),
                     "'device' is not the header's next one")
        self.refuses(self.replaced(TABLE.Call("aclrtMalloc", "out devPtr, size", py="rt.malloc")),
                     "more parameters: policy")

    def test_calls_without_an_aclerror_say_how_they_fail(self):
        self.refuses(self.replaced(TABLE.Call("aclmdlGetNumInputs", "modelDesc",
                                              py="mdl.get_num_inputs")), 'say errors=')

    def test_an_out_parameter_must_be_written_through_a_pointer(self):
        self.refuses(self.replaced(TABLE.Call("aclrtSetDevice", "out deviceId",
                                              py="rt.set_device")), "not a pointer")

    def test_a_class_must_fit_the_c_type(self):
        self.refuses(self.replaced(TABLE.Call(
            "aclrtMemcpy", "dst:rbuffer, destMax, src:rbuffer, count, kind", py="rt.memcpy")),
            "dst cannot be of class 'rbuffer'")
        self.refuses(self.replaced(TABLE.Call("aclrtSetDevice", "deviceId:path",
                                              py="rt.set_device")),
                     "deviceId cannot be of class 'path'")

    def test_each_name_is_given_once(self):
        self.refuses(self.replaced(TABLE.Call("aclrtGetDeviceCount", "out count",
                                              py="rt.get_device")),
                     "names given twice: py rt.get_device")

    def test_typemaps_by_name_cannot_reach_another_call(self):
        # aclmdlLoadFromMem shares modelId's typemap; without saying so it is refused.
        special = [s if s.c != "aclmdlLoadFromMem" else TABLE.Special(s.c, s.reason, py=s.py)
                   for s in TABLE.SPECIAL]
        self.refuses(self.table(special=special), "aclmdlLoadFromMem .* modelId")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
