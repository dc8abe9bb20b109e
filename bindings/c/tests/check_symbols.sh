#!/bin/sh
# The shared library exports exactly the committed symbol list: an ABI change is a reviewed diff.
# Usage: check_symbols.sh libacldump.so exported_symbols.txt
set -eu
actual=$(nm -D --defined-only "$1" | awk '{print $3}' | sort)
if ! printf '%s\n' "$actual" | diff -u "$2" -; then
  echo "exported symbols differ from $2 (- expected, + actual)." >&2
  echo "If the change is intended, update bindings/c/exported_symbols.txt." >&2
  exit 1
fi
if printf '%s\n' "$actual" | grep -qv '^acl'; then
  echo "a non-acl symbol is exported" >&2
  exit 1
fi
echo "$(printf '%s\n' "$actual" | wc -l) acl* symbols exported, as committed"
