"""Writes the per-language bindings of the ordinary C calls from bindings/calls.py.

    gen_bindings.py --table bindings/calls.py --header acl/acl.h ... <what to write>

  --swig FILE          SWIG directives of every row, per language (included by acl.i)
  --python DIR         DIR/_calls_{acl,mdl,rt,op,dump}.py: the pyACL functions
  --go-header FILE     the cgo helpers: one C function per row returning acldump_status
  --go FILE            package acldump's wrappers of those helpers
  --java-acl IN OUT    IN (Acl.java) with the rows' static methods at its marker line

The table is checked against the C declarations of the headers (parameter names, order,
types) before anything is written; an error names the row. Python 3 standard library only.

One file of about 850 lines on purpose: the four writers share the row model and the C-type
tables above them, and a Bazel genrule runs it as a single script with no package to import.
"""

import argparse
import importlib.util
import os
import re
import sys
import textwrap

PY_MODULES = ("acl", "mdl", "rt", "op", "dump")

# C types by what they are in the languages.
INT_TYPES = {"int", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t", "uint8_t",
             "uint16_t", "aclFloat16", "int8_t", "int16_t"}
FLOAT_TYPES = {"float"}
STRUCT_TYPES = {"aclmdlIODims", "aclmdlBatch", "aclmdlHW"}
SEQUENCE_ELEMENTS = {"int64_t", "float"}

# The classes a table row may give a parameter instead of the one its C type has.
OVERRIDES = {"path": "string", "fspath": "string", "buffer": "address", "rbuffer": "address",
             "bool": "int", "unsigned": "int"}

GO_KEYWORDS = {"break", "case", "chan", "const", "continue", "default", "defer", "else",
               "fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map",
               "package", "range", "return", "select", "struct", "switch", "type", "var"}

MARKER = "// @calls"


class TableError(Exception):
    pass


# ---- The C headers ----------------------------------------------------------------------------


def _strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return text


def normalize_type(text):
    """'const  aclmdlDesc*' -> 'const aclmdlDesc *'."""
    stars = text.count("*")
    words = text.replace("*", " ").split()
    return " ".join(words) + (" " + "*" * stars if stars else "")


def _split_top(text):
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    if current.strip():
        parts.append(current)
    return parts


class Param:
    def __init__(self, ctype, name):
        self.ctype = ctype
        self.name = name


class Declaration:
    def __init__(self, name, ret, params):
        self.name = name
        self.ret = ret
        self.params = params


class Headers:
    """The functions, enums, opaque handles and void * typedefs the headers declare."""

    def __init__(self, paths):
        self.functions = {}
        self.enums = set()
        self.handles = set()
        self.addresses = set()
        self.origin = {}  # function -> the path of the header declaring it
        for path in paths:
            before = set(self.functions)
            with open(path, encoding="utf-8") as f:
                self._parse(_strip(f.read()))
            self.origin.update((name, path) for name in set(self.functions) - before)

    def _parse(self, text):
        for match in re.finditer(r"typedef\s+enum\s*\w*\s*\{[^}]*\}\s*(\w+)\s*;", text):
            self.enums.add(match.group(1))
        for match in re.finditer(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", text):
            self.handles.add(match.group(2))
        for match in re.finditer(r"typedef\s+void\s*\*\s*(\w+)\s*;", text):
            self.addresses.add(match.group(1))
        pattern = r"ACL_FUNC_VISIBILITY\s+([\w\s\*]*?)\s*(\w+)\s*\((.*?)\)\s*;"
        for match in re.finditer(pattern, text, flags=re.S):
            ret, name, params = match.groups()
            ret_stars = ret.count("*")
            parsed = []
            for item in _split_top(params):
                item = " ".join(item.split())
                if item in ("", "void"):
                    continue
                found = re.match(r"^(.*?)(\w+)\s*(\[\])?$", item)
                if "(" in item or not found:
                    parsed.append(Param(item, None))  # a function pointer: special calls only
                    continue
                ctype = normalize_type(found.group(1) + ("*" if found.group(3) else ""))
                parsed.append(Param(ctype, found.group(2)))
            ret = normalize_type(ret.replace("*", "") + "*" * ret_stars)
            self.functions[name] = Declaration(name, ret, parsed)


# ---- The table --------------------------------------------------------------------------------


def snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def load_table(path):
    spec = importlib.util.spec_from_file_location("acl_calls_table", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Arg:
    """One item of a row: a C parameter (or a count and its array) with its role and class."""

    def __init__(self, role, names, cls, py_name, default, ctypes, element=None):
        self.role = role  # "in" or "out"
        self.names = names  # C names: one, or (count, array)
        self.cls = cls
        self.py_name = py_name
        self.default = default
        self.ctypes = ctypes  # C types, as declared
        self.element = element  # a sequence's element type

    @property
    def name(self):
        return self.names[-1]

    @property
    def ctype(self):
        return self.ctypes[-1]

    def pointee(self):
        """The type an out-parameter points at."""
        assert self.ctype.endswith("*")
        return normalize_type(self.ctype[:-1])


class Row:
    def __init__(self, call, decl, args, result, errors):
        self.call = call
        self.c = call.c
        self.decl = decl
        self.args = args
        self.result = result  # "code", "void" or a class
        self.errors = errors
        self.ins = [a for a in args if a.role == "in"]
        self.outs = [a for a in args if a.role == "out"]

    def go_name(self):
        return _name(self.call.go)

    def java_name(self):
        return _name(self.call.java)


def _name(value):
    if value is None:
        return None
    return value if isinstance(value, str) else value[0]


def _doc(value):
    return None if value is None or isinstance(value, str) else value[1]


ITEM = re.compile(r"^(?:(out|inout)\s+)?(\w+)(?:\+(\w+))?(?::(\w+))?(?:\s+as\s+(\w+))?"
                  r"(?:\s*=\s*(.+))?$")


class Model:
    def __init__(self, table, headers):
        self.headers = headers
        # The calls of headers the bindings leave out (the table's UNBOUND_HEADERS): not rows,
        # not special, unknown to the generator.
        unbound = getattr(table, "UNBOUND_HEADERS", {})
        self.unbound = sorted(
            name for name, path in headers.origin.items()
            if any(path.replace(os.sep, "/").endswith("/" + h) or path == h for h in unbound))
        for name in self.unbound:
            del headers.functions[name]
        self.rows = []
        self.special = {s.c: s for s in table.SPECIAL}
        seen = set()
        for call in table.CALLS:
            if call.c in seen or call.c in self.special:
                raise TableError("%s: listed twice" % call.c)
            seen.add(call.c)
            self.rows.append(self._row(call))
        for special in table.SPECIAL:
            if special.c not in headers.functions:
                raise TableError("%s: special, but no header declares it" % special.c)
        missing = sorted(set(headers.functions) - seen - set(self.special))
        if missing:
            raise TableError("declared but neither a row nor special: %s" % ", ".join(missing))
        names = [("py", n) for entry in list(table.CALLS) + list(table.SPECIAL) for n in entry.py]
        names += [("go", r.go_name()) for r in self.rows if r.go_name()]
        names += [("java", r.java_name()) for r in self.rows if r.java_name()]
        twice = sorted({"%s %s" % n for n in names if names.count(n) > 1})
        if twice:
            raise TableError("names given twice: %s" % ", ".join(twice))
        self._check_shared_typemaps()

    # -- classes of C types --

    def value_class(self, ctype, c):
        base = ctype.replace("const ", "")
        if ctype == "const char *":
            return "string"
        if base == "void *" or base in self.headers.addresses:
            return "address"
        if base.endswith(" *") and base[:-2] in self.headers.handles:
            return "handle"
        if base in INT_TYPES:
            return "int"
        if base in FLOAT_TYPES:
            return "float"
        if base in self.headers.enums:
            return "enum"
        raise TableError("%s: no binding class for the C type %r" % (c, ctype))

    def out_class(self, ctype, c, name):
        if not ctype.endswith("*") or ctype.startswith("const "):
            raise TableError("%s: out-parameter %s is %r, not a pointer to write"
                             % (c, name, ctype))
        pointee = normalize_type(ctype[:-1])
        if pointee in STRUCT_TYPES:
            return "struct"
        cls = self.value_class(pointee, c)
        if cls in ("string", "handle"):
            raise TableError("%s: out-parameter %s of %r is not supported" % (c, name, ctype))
        return cls

    def _row(self, call):
        decl = self.headers.functions.get(call.c)
        if decl is None:
            raise TableError("%s: no header declares it" % call.c)
        params = list(decl.params)
        args = []
        items = [i.strip() for i in call.params.split(",")] if call.params.strip() else []
        for item in items:
            match = ITEM.match(item)
            if not match:
                raise TableError("%s: cannot read the parameter %r" % (call.c, item))
            role, first, second, cls, py_name, default = match.groups()
            if role == "inout":
                raise TableError("%s: %s: inout is not supported (no C call has one yet)"
                                 % (call.c, first))
            role = role or "in"
            names = [first] + ([second] if second else [])
            declared = []
            for name in names:
                if not params or params[0].name != name:
                    raise TableError("%s: the parameter %r is not the header's next one (%s)"
                                     % (call.c, name, params[0].name if params else "none"))
                declared.append(params.pop(0).ctype)
            element = None
            if second:
                element = normalize_type(declared[1].replace("const ", "")[:-1])
                if role != "in" or declared[0] != "int" or element not in SEQUENCE_ELEMENTS \
                        or not declared[1].startswith("const "):
                    raise TableError("%s: %s+%s is not an int count and a const array of %s"
                                     % (call.c, first, second, " or ".join(SEQUENCE_ELEMENTS)))
                derived = "seq"
            elif role == "out":
                derived = self.out_class(declared[0], call.c, first)
            else:
                derived = self.value_class(declared[0], call.c)
            buffer = {"void *": "buffer", "const void *": "rbuffer"}.get(declared[0])
            if cls is None:
                cls = derived
            elif cls != derived and (role == "out" or OVERRIDES.get(cls) != derived or
                                     (OVERRIDES[cls] == "address" and cls != buffer)):
                raise TableError("%s: %s cannot be of class %r (its C type is %r)"
                                 % (call.c, first, cls, declared[0]))
            args.append(Arg(role, names, cls, py_name or snake(names[-1]), default, declared,
                            element))
        if params:
            raise TableError("%s: the header has more parameters: %s"
                             % (call.c, ", ".join(p.name or p.ctype for p in params)))
        if decl.ret == "aclError":
            result = "code"
        elif decl.ret == "void":
            result = "void"
        else:
            result = self.value_class(decl.ret, call.c)
        errors = call.errors
        if result == "code":
            if errors is not None:
                raise TableError("%s: errors= is for calls without an aclError" % call.c)
        elif errors not in ("message", "null", "none"):
            raise TableError('%s: returns %s: say errors="message", "null" or "none"'
                             % (call.c, decl.ret))
        if errors == "null" and result not in ("string", "handle", "address"):
            raise TableError('%s: errors="null" is for calls returning a pointer' % call.c)
        outs = [a for a in args if a.role == "out"]
        if outs and result != "code":
            raise TableError("%s: out-parameters need an aclError result" % call.c)
        if call.new and result != "handle":
            raise TableError("%s: new=True is for calls returning a handle" % call.c)
        for name in call.py:
            if name.count(".") > 1 or ("." in name and name.split(".")[0] not in PY_MODULES[1:]):
                raise TableError("%s: py name %r: a top-level name or one of %s"
                                 % (call.c, name, ", ".join(m + ".NAME" for m in PY_MODULES[1:])))
        if call.doc and ('"""' in call.doc or "\\" in call.doc or call.doc.rstrip()[-1] == '"'):
            raise TableError('%s: a docstring cannot hold """ or \\, nor end with "' % call.c)
        if "*/" in (_doc(call.java) or ""):
            raise TableError("%s: a javadoc cannot hold */" % call.c)
        row = Row(call, decl, args, result, errors)
        if row.java_name() and (len(outs) > 1 or any(a.cls in ("struct", "seq") for a in args)):
            raise TableError("%s: a Java method returns one value (and takes no arrays)" % call.c)
        if row.go_name() and any(a.cls == "struct" for a in args):
            raise TableError("%s: an exported Go function cannot return a C struct" % call.c)
        return row

    # -- typemaps applied by parameter name --

    def by_name(self):
        """{(C types, names): (an Arg, its row's call)} of the parameters whose typemaps SWIG
        applies by name: out-parameters, count+array pairs, void * addresses."""
        keys = {}
        for row in self.rows:
            for arg in row.args:
                if arg.role == "out" or arg.cls == "seq" or \
                        arg.ctype.replace("const ", "") == "void *":
                    key = (tuple(arg.ctypes), tuple(arg.names))
                    first, origin = keys.setdefault(key, (arg, row.c))
                    if (first.role, first.cls) != (arg.role, arg.cls):
                        raise TableError("%s and %s: %s is %s %s in one and %s %s in the other"
                                         % (origin, row.c, arg.name, first.role, first.cls,
                                            arg.role, arg.cls))
        return keys

    def _check_shared_typemaps(self):
        keys = self.by_name()
        rows = {row.c: row for row in self.rows}
        used = {name: set() for name in self.special}
        for decl in self.headers.functions.values():
            params = decl.params
            for i in range(len(params)):
                for (ctypes, names), (arg, origin) in keys.items():
                    role, cls = arg.role, arg.cls
                    window = params[i:i + len(names)]
                    if tuple(p.ctype for p in window) != ctypes or \
                            tuple(p.name for p in window) != names:
                        continue
                    if decl.name in rows:
                        mine = [a for a in rows[decl.name].args if tuple(a.names) == names]
                        if not mine or (mine[0].role, mine[0].cls) != (role, cls):
                            raise TableError("%s: %s gets the %s %s typemap of %s; give it the "
                                             "same role and class" % (decl.name, names[-1], role,
                                                                      cls, origin))
                    elif decl.name in self.special:
                        if names[-1] not in self.special[decl.name].shares:
                            raise TableError("%s (special) would get the typemap of %s's %s: "
                                             "list it in shares= or rename" % (decl.name, origin,
                                                                               names[-1]))
                        used[decl.name].add(names[-1])
        for name, special in self.special.items():
            stale = set(special.shares) - used[name]
            if stale:
                raise TableError("%s: shares %s, which no row's typemap reaches"
                                 % (name, ", ".join(sorted(stale))))


# ---- SWIG -------------------------------------------------------------------------------------

PY_OUT_CONVERT = {"int32_t": "PyLong_FromLong", "int": "PyLong_FromLong",
                  "uint32_t": "PyLong_FromUnsignedLong", "size_t": "PyLong_FromSize_t",
                  "int64_t": "PyLong_FromLongLong", "uint64_t": "PyLong_FromUnsignedLongLong",
                  "uint8_t": "PyLong_FromUnsignedLong", "uint16_t": "PyLong_FromUnsignedLong",
                  "aclFloat16": "PyLong_FromUnsignedLong", "float": "PyFloat_FromDouble",
                  "int8_t": "PyLong_FromLong", "int16_t": "PyLong_FromLong"}
PY_SEQUENCE_CONVERT = {"int64_t": "PyLong_AsLongLong", "float": "PyFloat_AsDouble"}
JAVA_OUT = {"int32_t": "int32_t", "int": "int", "uint32_t": "uint32_t",
            "size_t": "unsigned long", "int64_t": "long long", "uint64_t": "long long",
            "uint8_t": "unsigned char", "uint16_t": "unsigned short",
            "aclFloat16": "unsigned short", "float": "float", "int8_t": "signed char",
            "int16_t": "short"}
JAVA_ARRAY = {"int64_t": ("jlongArray", "jlong", "long", "Long"),
              "float": ("jfloatArray", "jfloat", "float", "Float")}
GO_OUT = {"int32_t": "int32", "int": "int32", "uint32_t": "uint32", "size_t": "int64",
          "int64_t": "int64", "uint64_t": "uint64", "uint8_t": "uint8", "uint16_t": "uint16",
          "aclFloat16": "uint16", "float": "float32", "int8_t": "int8", "int16_t": "int16"}
GO_SLICE = {"int64_t": "int64", "float": "float32"}


def _cdecl(ctype, name):
    return "%s%s%s" % (ctype, "" if ctype.endswith("*") else " ", name)


def _decl(arg):
    return ", ".join(_cdecl(t, n) for t, n in zip(arg.ctypes, arg.names))


def swig(model):
    keys = model.by_name()
    args = [keys[k][0] for k in sorted(keys, key=lambda k: (k[1], k[0]))]
    py, java, go = [], [], []
    for arg in args:
        decl = _decl(arg)
        if arg.cls == "seq":
            py.append("ACL_PY_SEQUENCE(%s, %s, %s)"
                      % (arg.element, PY_SEQUENCE_CONVERT[arg.element], decl))
            java.append("ACL_JAVA_ARRAY(%s, const %s, %s)"
                        % (", ".join(JAVA_ARRAY[arg.element]), arg.element, decl))
            go.append("ACL_GO_SLICE(%s, %s, %s)" % (arg.element, GO_SLICE[arg.element], decl))
        elif arg.role == "in":
            # void * and const void * by name: addresses, or Python buffers.
            const = "const " if arg.ctype.startswith("const ") else ""
            named = {"address": "ADDRESS_IN", "buffer": "WRITABLE_IN", "rbuffer": "BUFFER_IN"}
            py.append("%%apply %svoid *%s { %s };" % (const, named[arg.cls], decl))
            java.append("%%apply %svoid *ADDRESS_IN { %s };" % (const, decl))
        elif arg.cls == "struct":
            py.append("%%apply %s *STRUCT_OUT { %s };" % (arg.pointee(), decl))
        elif arg.cls == "address":
            py.append("%%apply void **ADDRESS_OUT { %s };" % decl)
            java.append("%%apply void **ADDRESS_OUT { %s };" % decl)
            go.append("ACL_GO_OUT(void *, uintptr, %s)" % decl)
        else:
            pointee = arg.pointee()
            if arg.cls == "enum":
                py.append("ACL_PY_OUT(%s, PyLong_FromLong, %s)" % (pointee, decl))
                java.append("ACL_JAVA_ENUM_OUT(%s, %s)" % (pointee, decl))
                go.append("ACL_GO_OUT(%s, int32, %s)" % (pointee, decl))
            else:
                py.append("ACL_PY_OUT(%s, %s, %s)" % (pointee, PY_OUT_CONVERT[pointee], decl))
                java.append("%%apply %s *OUTPUT { %s };" % (JAVA_OUT[pointee], decl))
                go.append("ACL_GO_OUT(%s, %s, %s)" % (pointee, GO_OUT[pointee], decl))
    for row in model.rows:
        if row.errors == "message":
            java.append("ACL_JAVA_CHECKED(%s)" % row.c)
    lines = ["// Generated by bindings/gen_bindings.py from bindings/calls.py: do not edit.",
             "// The typemaps of the table's rows, applied by parameter name (the generator checks",
             "// that no other call has a parameter of the same type and name).", ""]
    lines += ["%%newobject %s;" % row.c for row in model.rows if row.call.new]
    for condition, body in (("#if defined(SWIGPYTHON)", py), ("#elif defined(SWIGJAVA)", java),
                            ("#elif defined(SWIGGO)", go)):
        lines.append(condition)
        lines += body
    lines.append("#endif")
    return "\n".join(lines) + "\n"


# ---- Python -----------------------------------------------------------------------------------

PY_CONVERT = {"path": "_path({})", "fspath": "_os.fspath({})", "address": "_address({})",
              "buffer": "_address({})", "rbuffer": "_address({})", "seq": "list({})",
              "bool": "1 if {} else 0", "unsigned": "{} % (1 << 64)"}

PY_HELPERS = {
    "_path": ["def _path(value):",
              "    return None if value is None else _os.fspath(value)"],
    "_address": ["def _address(value):",
                 '    """An address or runtime handle: an int (0 for NULL), None or a buffer."""',
                 "    return None if value is None or (isinstance(value, int) and value == 0) "
                 "else value"],
}


def wrap(text, first, rest, width=100):
    """Lines of `text` (whitespace collapsed) within `width`, after the prefixes."""
    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=first,
                         subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False)


def _py_docstring(doc):
    lines = wrap(doc + '"""', '    """', "    ")
    return "\n".join(lines)


def python(model):
    """{module: source} of the generated modules."""
    functions = {m: [] for m in PY_MODULES}
    for row in model.rows:
        for full in row.call.py:
            module, name = full.split(".") if "." in full else ("acl", full)
            functions[module].append((name, row))
    sources = {}
    for module, entries in functions.items():
        public = "acl" if module == "acl" else "acl." + module
        body, helpers, uses_os = [], set(), False
        for name, row in entries:
            params = []
            call_args = []
            for arg in row.ins:
                params.append(arg.py_name + ("=" + arg.default if arg.default else ""))
                template = PY_CONVERT.get(arg.cls, "{}")
                call_args.append(template.format(arg.py_name))
                if template.startswith("_path") or template.startswith("_os"):
                    uses_os = True
                helpers.update(h for h in PY_HELPERS if template.startswith(h))
            body += ["", "", "def %s(%s):" % (name, ", ".join(params))]
            if row.call.doc:
                body.append(_py_docstring(row.call.doc))
            call = "_c.%s(%s)" % (row.c, ", ".join(call_args))
            if row.outs:
                outs = [a.py_name for a in row.outs]
                body.append("    ret, %s = %s" % (", ".join(outs), call))
                body.append("    return %s, ret" % ", ".join(outs))
            else:
                body.append("    return " + call)
        names = [name for name, _ in entries]
        head = ['"""Generated by bindings/gen_bindings.py from bindings/calls.py: the ordinary '
                "calls of %s.\n\nDo not edit: change the table.\n\"\"\"" % public, ""]
        if uses_os:
            head.append("import os as _os")
            head.append("")
        head.append("from . import aclswig as _c")
        for helper in sorted(helpers):
            head += ["", ""] + PY_HELPERS[helper]
        tail = ["", "", "__all__ = ["] + ['    "%s",' % n for n in names] + ["]",
                "# help() lists them under the module that exports them.",
                "for _name in __all__:",
                "    globals()[_name].__module__ = %r" % public]
        sources[module] = "\n".join(head + body + tail) + "\n"
    return sources


# ---- Go ---------------------------------------------------------------------------------------

GO_TYPE = {"int32_t": "int", "int": "int", "size_t": "int", "uint32_t": "uint32",
           "int64_t": "int64", "uint64_t": "uint64", "uint8_t": "uint8", "uint16_t": "uint16",
           "aclFloat16": "uint16", "float": "float32", "int8_t": "int8", "int16_t": "int16"}


def _go_ident(name):
    return name + "_" if name in GO_KEYWORDS else name


def _cap(name):
    return name[0].upper() + name[1:]


def go_header(model):
    lines = ["/* Generated by bindings/gen_bindings.py from bindings/calls.py: do not edit.",
             " * One helper per row of the table: it makes the call and returns its status with",
             " * the recent error message copied (calls.h). Handles and addresses travel as",
             " * uintptr_t. */",
             "#ifndef ACLDUMP_GO_CALLS_GEN_H_",
             "#define ACLDUMP_GO_CALLS_GEN_H_",
             "",
             '#include "calls.h"',
             "",
             "/* The deprecated calls are rows too. */",
             '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
             ""]
    for row in model.rows:
        params, call_args, pre, post = [], [], [], []
        for arg in row.args:
            if arg.cls == "seq":
                params.append(_decl(arg))
                call_args += arg.names
            elif arg.role == "in" and arg.cls in ("handle", "address", "buffer", "rbuffer"):
                params.append("uintptr_t " + arg.name)
                call_args.append("(%s)%s" % (arg.ctype, arg.name))
            elif arg.role == "in":
                params.append(_decl(arg))
                call_args.append(arg.name)
            elif arg.cls == "address":
                params.append("uintptr_t *" + arg.name)
                pre.append("  %s = NULL;" % _cdecl(arg.pointee(), arg.name + "_value"))
                call_args.append("&%s_value" % arg.name)
                post.append("  *%s = (uintptr_t)%s_value;" % (arg.name, arg.name))
            else:
                params.append(_decl(arg))
                call_args.append(arg.name)
        call = "%s(%s)" % (row.c, ", ".join(call_args))
        body = list(pre)
        if row.result == "code":
            if post:
                body.append("  acldump_status status = acldump_status_of(%s);" % call)
                body += post
                body.append("  return status;")
            else:
                body.append("  return acldump_status_of(%s);" % call)
        elif row.result == "void":
            body.append("  %s;" % call)
        elif row.result == "string":
            params.append("const char **result")
            body.append("  *result = %s;" % call)
        elif row.result in ("handle", "address"):
            params.append("uintptr_t *result")
            body.append("  *result = (uintptr_t)%s;" % call)
        else:
            params.append(_cdecl(row.decl.ret + " *", "result"))
            body.append("  *result = %s;" % call)
        if row.result in ("string", "handle", "address") and row.errors != "none":
            body.append("  return acldump_status_of_handle((const void *)*result);")
        elif row.result != "code":
            body.append("  return %s;" % ("acldump_status_of_message()" if row.errors == "message"
                                          else "acldump_status_of(ACL_SUCCESS)"))
        lines.append("static inline acldump_status acldump_gen_%s(%s) {"
                     % (row.c, ", ".join(params) or "void"))
        lines += body
        lines += ["}", ""]
    lines.append("#endif /* ACLDUMP_GO_CALLS_GEN_H_ */")
    return "\n".join(lines) + "\n"


def _go_in(arg):
    """(Go parameter type, statements before the call, C arguments)."""
    name = _go_ident(arg.name)
    var = "c" + _cap(arg.name)
    if arg.cls in ("handle", "address", "buffer", "rbuffer"):
        return "uintptr", [], ["C.uintptr_t(%s)" % name]
    if arg.cls in ("string", "path", "fspath"):
        if arg.default == "None":  # optional: "" is NULL
            return "string", ["var %s *C.char" % var,
                              'if %s != "" {' % name,
                              "\t%s = C.CString(%s)" % (var, name),
                              "\tdefer C.free(unsafe.Pointer(%s))" % var,
                              "}"], [var]
        return "string", ["%s := C.CString(%s)" % (var, name),
                          "defer C.free(unsafe.Pointer(%s))" % var], [var]
    if arg.cls == "seq":
        element = "C." + arg.element
        return "[]" + GO_SLICE[arg.element], [
            "var %s *%s" % (var, element),
            "if len(%s) > 0 {" % name,
            "\t%s = (*%s)(unsafe.Pointer(&%s[0]))" % (var, element, name),
            "}"], ["C.%s(len(%s))" % (arg.ctypes[0], name), var]
    if arg.cls == "bool":
        return "bool", ["var %s C.%s" % (var, arg.ctype),
                        "if %s {" % name, "\t%s = 1" % var, "}"], [var]
    if arg.cls == "enum":
        return "int", [], ["C.%s(%s)" % (arg.ctype, name)]
    return GO_TYPE[arg.ctype], [], ["C.%s(%s)" % (arg.ctype, name)]


def _go_value(cls, ctype):
    """(Go type, zero value, conversion template from the C value)."""
    if cls in ("handle", "address"):
        return "uintptr", "0", "uintptr(%s)"
    if cls == "string":
        return "string", '""', "C.GoString(%s)"
    if cls == "enum":
        return "int", "0", "int(%s)"
    if cls == "struct":
        return "C." + ctype, "C.%s{}" % ctype, "%s"
    go_type = GO_TYPE[ctype]
    return go_type, "0", go_type + "(%s)"


def go(model):
    body = []
    for row in model.rows:
        params, pre, c_args, results = [], [], [], []
        for arg in row.args:
            if arg.role == "in":
                go_type, statements, values = _go_in(arg)
                params.append("%s %s" % (_go_ident(arg.name), go_type))
                pre += statements
                c_args += values
            else:
                var = "c" + _cap(arg.name)
                pointee = arg.pointee()
                c_type = "C.uintptr_t" if arg.cls == "address" else "C." + pointee
                pre.append("var %s %s" % (var, c_type))
                c_args.append("&" + var)
                results.append(_go_value(arg.cls, pointee) + (var,))
        if row.result not in ("code", "void"):
            c_type = {"string": "*C.char", "handle": "C.uintptr_t",
                      "address": "C.uintptr_t"}.get(row.result, "C." + row.decl.ret)
            pre.append("var cResult %s" % c_type)
            c_args.append("&cResult")
            results.insert(0, _go_value(row.result, row.decl.ret) + ("cResult",))
        reports = row.result == "code" or row.errors in ("message", "null")
        types = [r[0] for r in results] + (["error"] if reports else [])
        signature = "(%s)" % ", ".join(types) if len(types) > 1 else "".join(types)
        call = "C.acldump_gen_%s(%s)" % (row.c, ", ".join(c_args))
        lines = ["func %s(%s) %s {" % (row.c, ", ".join(params), signature)]
        lines += ["\t" + s for s in pre]
        values = [template % var for _, _, template, var in results]
        if reports and not results:
            lines.append("\treturn check(%s)" % call)
        elif reports:
            lines.append("\tif err := check(%s); err != nil {" % call)
            lines.append("\t\treturn %s" % ", ".join([r[1] for r in results] + ["err"]))
            lines.append("\t}")
            lines.append("\treturn %s" % ", ".join(values + ["nil"]))
        else:
            lines.append("\tcheck(%s)" % call)
            if values:
                lines.append("\treturn %s" % ", ".join(values))
        lines.append("}")
        body += [""] + lines
        exported = row.go_name()
        if exported:
            doc = _doc(row.call.go) or "%s is %s." % (exported, row.c)
            names = ", ".join(_go_ident(a.name) for a in row.ins)
            body.append("")
            body += wrap(doc, "// ", "// ")
            body.append("func %s(%s) %s { return %s(%s) }"
                        % (exported, ", ".join(params), signature, row.c, names))
    uses_unsafe = any("unsafe." in line for line in body)
    head = ["// Generated by bindings/gen_bindings.py from bindings/calls.py: do not edit.",
            "",
            "package acldump",
            "",
            "// The table's calls, each named as its C function, returning its out-parameters",
            "// and an *Error carrying the code and the message copied in the same cgo call.",
            "",
            '// #include "calls_gen.h"',
            'import "C"']
    if uses_unsafe:
        head += ["", 'import "unsafe"']
    return "\n".join(head + body) + "\n"


# ---- Java -------------------------------------------------------------------------------------

JAVA_TYPE = {"int32_t": "int", "int": "int", "uint32_t": "long", "size_t": "long",
             "int64_t": "long", "uint64_t": "long", "uint8_t": "short", "uint16_t": "int",
             "aclFloat16": "int", "float": "float", "int8_t": "byte", "int16_t": "short"}
JAVA_OUT_ARRAY = {"int32_t": "int", "int": "int", "uint32_t": "long", "size_t": "long",
                  "int64_t": "long", "uint64_t": "long", "uint8_t": "short", "uint16_t": "int",
                  "aclFloat16": "int", "float": "float", "int8_t": "byte", "int16_t": "short"}


def _java_type(cls, ctype):
    base = normalize_type(ctype.replace("const ", ""))
    if cls in ("string", "path", "fspath"):
        return "String"
    if cls in ("address", "buffer", "rbuffer"):
        return "long"
    if cls == "handle":
        return "com.acldump.swig." + _cap(base[:-2])
    if cls == "enum":
        return "com.acldump.swig." + _cap(base)
    if cls == "bool":
        return "boolean"
    return JAVA_TYPE[base]


def java_methods(model):
    lines = []
    for row in model.rows:
        name = row.java_name()
        if not name:
            continue
        params, args, pre = [], [], []
        for arg in row.args:
            if arg.role == "in":
                params.append("%s %s" % (_java_type(arg.cls, arg.ctype), arg.name))
                args.append("(short) (%s ? 1 : 0)" % arg.name if arg.cls == "bool" else arg.name)
            else:
                element = "long" if arg.cls == "address" else \
                    "int" if arg.cls == "enum" else JAVA_OUT_ARRAY[arg.pointee()]
                pre.append("%s[] %s = new %s[1];" % (element, arg.name, element))
                args.append(arg.name)
        call = "AclNative.%s(%s);" % (row.c, ", ".join(args))
        if row.outs:
            out = row.outs[0]
            ret = "long" if out.cls == "address" else "int" if out.cls == "enum" else \
                JAVA_OUT_ARRAY[out.pointee()]
            body = pre + [call, "return %s[0];" % out.name]
        elif row.result in ("code", "void"):
            ret, body = "void", [call]
        else:
            ret, body = _java_type(row.result, row.decl.ret), ["return " + call]
        doc = _doc(row.call.java) or "%s." % row.c
        lines.append("")
        if len(wrap(doc, "  /** ", "", width=97)) == 1:
            lines.append("  /** %s */" % " ".join(doc.split()))
        else:
            lines += ["  /**"] + wrap(doc, "   * ", "   * ") + ["   */"]
        lines.append("  public static %s %s(%s) {" % (ret, name, ", ".join(params)))
        lines += ["    " + line for line in body]
        lines.append("  }")
    return lines


def java_acl(model, template):
    out, found = [], False
    for line in template.split("\n"):
        if line.strip().startswith(MARKER):
            found = True
            out.append("  // Generated from bindings/calls.py: its rows with a java name.")
            out += java_methods(model)
            continue
        out.append(line)
    if not found:
        raise TableError("the Java template has no %r line" % MARKER)
    return "\n".join(out)


# ---- Main -------------------------------------------------------------------------------------


def write(path, text):
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--table", required=True)
    parser.add_argument("--header", action="append", default=[])
    parser.add_argument("--swig")
    parser.add_argument("--python")
    parser.add_argument("--go-header")
    parser.add_argument("--go")
    parser.add_argument("--java-acl", nargs=2, metavar=("TEMPLATE", "OUT"))
    args = parser.parse_args(argv)
    try:
        model = Model(load_table(args.table), Headers(args.header))
        if args.java_acl:
            with open(args.java_acl[0], encoding="utf-8") as f:
                java = java_acl(model, f.read())
    except TableError as e:
        sys.exit("gen_bindings.py: %s: %s" % (args.table, e))
    if args.swig:
        write(args.swig, swig(model))
    if args.python:
        for module, source in python(model).items():
            write(os.path.join(args.python, "_calls_%s.py" % module), source)
    if args.go_header:
        write(args.go_header, go_header(model))
    if args.go:
        write(args.go, go(model))
    if args.java_acl:
        write(args.java_acl[1], java)


if __name__ == "__main__":
    main()
