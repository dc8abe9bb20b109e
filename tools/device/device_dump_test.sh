#!/usr/bin/env bash
# Runs device_dump_test.py with Debian's python3 (it has numpy) on the tools from runfiles: as a
# test (into $TEST_TMPDIR), or with `bazel run` into the folder given (the docs' device demo).
set -euo pipefail
work="${1:-${TEST_TMPDIR:-}/device}"
if [[ -n "${BUILD_WORKING_DIRECTORY:-}" && "$work" != /* ]]; then
  work="$BUILD_WORKING_DIRECTORY/$work"
fi
cd "${TEST_SRCDIR:-${RUNFILES_DIR:-$0.runfiles}}/acldump"
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 tools/device/device_dump_test.py "$PWD/tools/dump" "$PWD/tools/convert" \
  "$work"
