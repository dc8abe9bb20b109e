#!/usr/bin/env bash
# Runs the user guide's "From a release" commands as written, one by one, from the folder they are
# written for (the unpacked tarball, or a virtual environment's prefix) with the installed commands
# first on PATH and nothing else of the environment. Exits 1 at the first that fails, with its output.
# Usage: guide_commands.sh <user-guide.md> <folder> <bin folder> <home>
set -euo pipefail
guide="$1"; folder="$2"; bin="$3"; home="$4"
commands=$(awk '/^### From a release/{f=1} f&&/^```sh/{g=1;next} g&&/^```/{exit} g' "$guide")
if [ "$(grep -c . <<<"$commands")" -lt 3 ]; then
  echo "FAIL: no release commands found in $guide" >&2
  exit 1
fi
while IFS= read -r line; do
  command="${line%%#*}"
  [ -n "${command// /}" ] || continue
  if ! output=$(cd "$folder" && env -i PATH="$bin:/usr/bin:/bin" HOME="$home" LANG=C.UTF-8 \
      bash -c "$command" 2>&1); then
    printf '%s\n' "$output" >&2
    echo "FAIL: the guide's '$command'" >&2
    exit 1
  fi
  echo "guide: $command"
done <<<"$commands"
