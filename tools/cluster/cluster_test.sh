#!/usr/bin/env bash
# Runs cluster_test.py with Debian's python3 (it has dask.distributed and pandas), the Python
# packages from runfiles (the LocalCluster's workers inherit them) and the `dump` binary.
set -euo pipefail
cd "${TEST_SRCDIR}/acldump"
export PYTHONPATH="$PWD/bindings/python"
export PYTHONDONTWRITEBYTECODE=1
# The tool starts the task runner with the first python3 on PATH that has dask.
export ACLDUMP_PYTHON=/usr/bin/python3
exec /usr/bin/python3 tools/cluster/cluster_test.py "$PWD/tools/dump" "$PWD/tools/cluster/runner.py" \
  "$PWD/testdata" "${TEST_TMPDIR}/cluster"
