#!/bin/bash
# Runs ServiceLoadTest with Debian's JDK and JUnit: run_test.sh <java-service.jar>
# <java-service-tests.jar> <acldump.jar> <libacldump_jni.so>. Working directory: the runfiles
# root (testdata/ is there).
set -euo pipefail
service="$PWD/$1" tests="$PWD/$2" acldump="$PWD/$3" jni_dir="$(dirname "$PWD/$4")"
exec /usr/bin/java -Djava.library.path="$jni_dir" \
  -Dservice.classpath="$service:$acldump" -Dservice.library.path="$jni_dir" \
  -cp "$service:$tests:$acldump:/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar" \
  org.junit.runner.JUnitCore com.acldump.examples.service.ServiceLoadTest
