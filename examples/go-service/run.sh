#!/bin/bash
# `./bazelw run //examples/go-service -- [flags]`: the service Bazel built, with libacldump.so
# from the runfiles and -model testdata's resnet_tiny.om unless a -model flag says otherwise;
# relative paths in the flags are taken from where Bazel was run.
#   run.sh <service> <libacldump.so> <resnet_tiny.om> [flags]
set -euo pipefail
service="$PWD/$1" lib="$PWD/$2" model="$PWD/$3"
shift 3
export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cd "${BUILD_WORKING_DIRECTORY:-.}"
exec "$service" -model "$model" "$@"
