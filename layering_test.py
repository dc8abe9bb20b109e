"""Fails when an #include points up the layers of the architecture.

base < kernels < runtime < dump/format < dump < bindings/c < tools: a package
includes only from its own layer and the layers below it (dump/format sits
beside runtime: it may use kernels and base, never runtime or the engine).
Inside them: runtime/host (devices, streams, memory) knows nothing but base,
runtime/media (image headers) nothing of the project at all;
in tools, common and cluster sit under the job packages, and only tools/cli
(the programs) includes the command layer.
"""

import os
import re
import sys
import unittest

# Package -> the top-level include prefixes it may use.
_TOOL_JOBS = {"tools", "tools/common", "tools/cluster"}
_ENGINE = {"base", "kernels", "runtime", "dump/format", "dump", "bindings",
           "bindings/c", "acl"}
ALLOWED = {
    "base": {"base"},
    "kernels": {"base", "kernels"},
    "runtime/host": {"base", "runtime/host"},
    "runtime/media": {"runtime/media"},
    "runtime": {"base", "kernels", "runtime", "runtime/host"},
    "dump/format": {"base", "kernels", "dump/format"},
    "dump": {"base", "kernels", "runtime", "dump/format", "dump"},
    "bindings/c": {"base", "kernels", "runtime", "runtime/host", "runtime/media",
                   "dump/format", "dump", "bindings", "bindings/c", "acl"},
    "tools/common": {"base", "kernels", "dump/format", "dump", "acl",
                     "tools/common"},
    "tools/cluster": {"base", "kernels", "dump/format", "acl",
                      "tools/common", "tools/cluster"},
    "tools": _ENGINE | {"runtime/host"} | _TOOL_JOBS,
    "tools/cli": _ENGINE | {"runtime/host", "tools/cli"} | _TOOL_JOBS,
}
# The C ABI only translates: of the runtime it sees the loader, the loaded
# model and what it is described with, single-op execution, the request an
# execution runs for, and the host runtime, never the internals (model file,
# passes, memory plan, converter).
C_ABI_RUNTIME_HEADERS = {
    "runtime/model_loader.h", "runtime/model_registry.h",
    "runtime/geared_model.h", "runtime/compiled_model.h", "runtime/graph.h",
    "runtime/single_op.h", "runtime/request_tag.h",
}
C_ABI_RUNTIME_PREFIXES = ("runtime/host/", "runtime/media/")

OURS = ("base/", "kernels/", "runtime/", "dump/", "bindings/", "tools/",
        "bench/", "fuzz/", "acl/")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def package_of(path):
  """The most specific package in ALLOWED that holds `path`."""
  best = None
  for package in ALLOWED:
    if path.startswith(package + "/") and (best is None or
                                           len(package) > len(best)):
      best = package
  return best


def layer_of(include):
  """The ALLOWED key an include belongs to ("dump/format" before "dump");
  the top-level directory for headers outside ALLOWED (acl/, bindings/)."""
  return package_of(include) or include.split("/", 1)[0]


def violations(root):
  found = []
  for directory, _, files in os.walk(root):
    for name in files:
      if not name.endswith((".cc", ".h")):
        continue
      full = os.path.join(directory, name)
      relative = os.path.relpath(full, root)
      package = package_of(relative)
      if package is None:
        continue
      with open(full, encoding="utf-8", errors="replace") as f:
        text = f.read()
      for include in INCLUDE.findall(text):
        if not include.startswith(OURS):
          continue  # a system or third-party header, or a local one
        if name.endswith("_test.cc") and include.startswith("bench/"):
          continue  # tests run the benchmarks' rebuilt zoo models
        if layer_of(include) not in ALLOWED[package]:
          found.append(f"{relative}: #include \"{include}\" points up "
                       f"from {package}")
        elif (package == "bindings/c" and include.startswith("runtime/") and
              include not in C_ABI_RUNTIME_HEADERS and
              not include.startswith(C_ABI_RUNTIME_PREFIXES)):
          found.append(f"{relative}: #include \"{include}\" reaches into "
                       f"the runtime's internals (the C ABI goes through "
                       f"runtime/model_loader.h)")
  return found


class LayeringTest(unittest.TestCase):

  def test_no_include_points_up(self):
    root = os.path.join(os.environ["TEST_SRCDIR"], "acldump")
    checked = [p for p in ALLOWED if os.path.isdir(os.path.join(root, p))]
    self.assertEqual(len(checked), len(ALLOWED), "sources missing from data")
    self.assertEqual(violations(root), [])

  def test_the_check_catches_an_upward_include(self):
    import tempfile
    with tempfile.TemporaryDirectory() as root:
      os.makedirs(os.path.join(root, "kernels"))
      with open(os.path.join(root, "kernels", "bad.cc"), "w") as f:
        f.write('#include "dump/writer.h"\n#include "base/strings.h"\n')
      os.makedirs(os.path.join(root, "dump", "format"))
      with open(os.path.join(root, "dump", "format", "bad.h"), "w") as f:
        f.write('#include "runtime/graph.h"\n#include "kernels/dtype.h"\n')
      os.makedirs(os.path.join(root, "bindings", "c"))
      with open(os.path.join(root, "bindings", "c", "bad.cc"), "w") as f:
        f.write('#include "runtime/model_file.h"\n'
                '#include "runtime/model_loader.h"\n'
                '#include "runtime/host/stream.h"\n')
      os.makedirs(os.path.join(root, "runtime", "host"))
      with open(os.path.join(root, "runtime", "host", "bad.cc"), "w") as f:
        f.write('#include "runtime/graph.h"\n#include "base/strings.h"\n')
      os.makedirs(os.path.join(root, "tools", "report"))
      with open(os.path.join(root, "tools", "report", "bad.cc"), "w") as f:
        f.write('#include "tools/cli/command.h"\n'
                '#include "tools/common/cli_util.h"\n')
      self.assertEqual(sorted(violations(root)), [
          'bindings/c/bad.cc: #include "runtime/model_file.h" reaches into '
          'the runtime\'s internals (the C ABI goes through '
          'runtime/model_loader.h)',
          'dump/format/bad.h: #include "runtime/graph.h" points up from '
          'dump/format',
          'kernels/bad.cc: #include "dump/writer.h" points up from kernels',
          'runtime/host/bad.cc: #include "runtime/graph.h" points up from '
          'runtime/host',
          'tools/report/bad.cc: #include "tools/cli/command.h" points up '
          'from tools',
      ])


if __name__ == "__main__":
  unittest.main()
