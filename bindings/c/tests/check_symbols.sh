#!/bin/sh
# The shared library exports exactly the committed symbol list, each under the release's version
# node (ACLDUMP_<major>): an ABI change is a reviewed diff.
# Usage: check_symbols.sh libacldump.so exported_symbols.txt
set -eu
# The version node itself is an absolute (A) symbol; every other one is an entry point.
versioned=$(nm -D --defined-only "$1" | awk '$2 != "A" {print $3}' | sort)
unversioned=$(printf '%s\n' "$versioned" | grep -v '@@ACLDUMP_[0-9][0-9]*$' || true)
if [ -n "$unversioned" ]; then
  echo "symbols without the ACLDUMP_<major> version node:" >&2
  printf '%s\n' "$unversioned" >&2
  exit 1
fi
nodes=$(nm -D --defined-only "$1" | awk '$2 == "A" {print $3}')
if [ "$(printf '%s\n' "$nodes" | wc -l)" -ne 1 ]; then
  echo "expected one version node, found: $nodes" >&2
  exit 1
fi
actual=$(printf '%s\n' "$versioned" | sed 's/@@.*//')
if ! printf '%s\n' "$actual" | diff -u "$2" -; then
  echo "exported symbols differ from $2 (- expected, + actual)." >&2
  echo "If the change is intended, update bindings/c/exported_symbols.txt." >&2
  exit 1
fi
if printf '%s\n' "$actual" | grep -qv '^acl'; then
  echo "a non-acl symbol is exported" >&2
  exit 1
fi
echo "$(printf '%s\n' "$actual" | wc -l) acl* symbols exported under $nodes, as committed"
