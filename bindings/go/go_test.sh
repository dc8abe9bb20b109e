#!/bin/bash
# Builds and tests the Go module with Debian's go (cgo), offline, everything Go writes kept in
# $TEST_TMPDIR: go_test.sh <libacldump.so> <C headers...>. Working directory: the runfiles root.
set -euo pipefail
lib="$PWD/$1"
shift
include=""
for header in "$@"; do
  case "$header" in */acl/acl.h) include="$PWD/$(dirname "$(dirname "$header")")" ;; esac
done

work="$TEST_TMPDIR/go"
mkdir -p "$work/src"
cp -rL bindings/go/. "$work/src/"
export HOME="$work/home" GOPATH="$work/gopath" GOCACHE="$work/cache"
export GO111MODULE=on GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1
# The packages take their flags from `pkg-config acldump`: here, a .pc for the build tree's
# library (the release SDK ships its own).
mkdir -p "$work/pkgconfig"
cat > "$work/pkgconfig/acldump.pc" <<PC
Name: acldump
Description: acldump built by Bazel (for this test)
Version: 0
Libs: -L$(dirname "$lib") -l:libacldump.so -Wl,-rpath,$(dirname "$lib")
Cflags: -I$include
PC
export PKG_CONFIG_PATH="$work/pkgconfig"
export ACLDUMP_RUNFILES="$PWD"
cd "$work/src"
# unsafeptr: C addresses travel as uintptr by design (SWIG's generated code does it too).
/usr/bin/go vet -unsafeptr=false ./...
exec /usr/bin/go test -count=1 -v ./...
