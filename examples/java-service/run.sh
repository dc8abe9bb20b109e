#!/bin/bash
# `./bazelw run //examples/java-service -- [flags]`: the service Bazel built, with the JNI library
# from the runfiles and -model testdata's resnet_tiny.om unless a -model flag says otherwise;
# relative paths in the flags are taken from where Bazel was run.
#   run.sh <java-service.jar> <acldump.jar> <libacldump_jni.so> <resnet_tiny.om> [flags]
set -euo pipefail
service="$PWD/$1" acldump="$PWD/$2" jni="$PWD/$3" model="$PWD/$4"
shift 4
cd "${BUILD_WORKING_DIRECTORY:-.}"
exec /usr/bin/java -Djava.library.path="$(dirname "$jni")" -cp "$service:$acldump" \
  com.acldump.examples.service.InferenceService -model "$model" "$@"
