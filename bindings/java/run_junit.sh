#!/bin/bash
# Runs JUnit 4 test classes with Debian's JDK and JUnit: run_junit.sh <jar> <tests jar>
# <libacldump_jni.so> <test class>... Working directory: the runfiles root (testdata/ is there).
set -euo pipefail
jar="$1" tests="$2" jni="$3"
shift 3
exec /usr/bin/java -Xcheck:jni -Djava.library.path="$(dirname "$jni")" \
  -cp "$jar:$tests:/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar" \
  org.junit.runner.JUnitCore "$@"
