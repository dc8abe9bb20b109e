#!/usr/bin/env bash
# Runs reading_api_test.py with Debian's python3 (it has numpy), the Python packages from
# runfiles and the `dump` binary to compare against.
set -euo pipefail
cd "${TEST_SRCDIR}/acldump"
export PYTHONPATH="$PWD/bindings/python"
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 tools/reading_api_test.py "$PWD/tools/dump" "${TEST_TMPDIR}/reading"
