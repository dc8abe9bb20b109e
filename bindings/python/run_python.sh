#!/bin/bash
# Runs a Python file of this package with Debian's interpreter (which has numpy; the first
# python3 on PATH may not) and the packages from runfiles. Working directory: the runfiles root
# of the workspace, where testdata/ and bindings/python/ are.
set -euo pipefail
if [[ -n "${RUNFILES_DIR:-}" ]]; then
  cd "${RUNFILES_DIR}/acldump"
elif [[ -d "$0.runfiles/acldump" ]]; then
  cd "$0.runfiles/acldump"
fi
export PYTHONPATH="$PWD/bindings/python"
export PYTHONDONTWRITEBYTECODE=1
# Python would put the script's resolved directory (the source tree, without the generated
# extension) first on sys.path.
export PYTHONSAFEPATH=1
exec /usr/bin/python3 "$@"
