"""Fails when the repository cites a document it does not contain, or cites internal
specifications by section or requirement number ("§2", "S4", "U3"), which readers of this
repository cannot look up. Scans README.md, docs/*.md and the C++ sources of every layer."""

import glob
import os
import re
import unittest

DOC_LINK = re.compile(r"\b((?:docs/|bench/|dist/)?[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.md)\b")
INTERNAL = re.compile(r"§|\b[SU][0-9]{1,2}\b|dump-format\.md")


def files():
  found = ["README.md"] + sorted(glob.glob("docs/*.md"))
  for root in ("base", "kernels", "runtime", "dump", "bindings", "tools", "dist"):
    for dirpath, _, names in os.walk(root):
      found += [os.path.join(dirpath, n) for n in sorted(names)
                if n.endswith((".cc", ".h", ".md", ".py", ".sh"))]
  return found


class DocsTest(unittest.TestCase):

  def test_the_scan_sees_the_repository(self):
    scanned = files()
    for expected in ("README.md", "docs/user-guide.md", "docs/tool-reference.md",
                     "docs/config-reference.md", "docs/dump-files.md",
                     "docs/c-api-reference.md", "tools/compare/compare.h",
                     "dump/format/dump_tree.h"):
      self.assertIn(expected, scanned)

  def test_cited_documents_exist(self):
    missing = []
    for path in files():
      with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
      for link in set(DOC_LINK.findall(text)):
        if link.startswith(("docs/", "bench/", "dist/")) or link == "README.md":
          target = link
        else:  # a page of docs/ naming a sibling
          target = os.path.join(os.path.dirname(path) or ".", link)
          if not path.startswith("docs/"):
            continue
        if not os.path.exists(target) and link != "README.md":
          missing.append("%s cites %s" % (path, link))
    self.assertEqual(missing, [])

  def test_no_internal_citations(self):
    found = []
    for path in files():
      with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
      for number, line in enumerate(lines, 1):
        if INTERNAL.search(line):
          found.append("%s:%d: %s" % (path, number, line.strip()))
    self.assertEqual(found, [])


if __name__ == "__main__":
  unittest.main()
