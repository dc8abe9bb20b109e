#!/bin/sh
# Runs a test program with its arguments (Bazel resolves $(location) paths for us).
exec "$@"
