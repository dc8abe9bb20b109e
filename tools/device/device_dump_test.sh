#!/usr/bin/env bash
# Runs device_dump_test.py with Debian's python3 (it has numpy) on the tools from runfiles.
set -euo pipefail
cd "${TEST_SRCDIR}/acldump"
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 tools/device/device_dump_test.py "$PWD/tools/dump" "$PWD/tools/convert" \
  "${TEST_TMPDIR}/device"
