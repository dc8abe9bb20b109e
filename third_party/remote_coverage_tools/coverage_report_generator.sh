#!/bin/sh
echo "coverage reports are not generated inside Bazel here; use gcov/lcov" >&2
exit 0
