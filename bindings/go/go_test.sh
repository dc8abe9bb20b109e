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
export CGO_CFLAGS="-I$include -O2 -g"
export CGO_LDFLAGS="-L$(dirname "$lib") -l:libacldump.so -Wl,-rpath,$(dirname "$lib")"
export ACLDUMP_RUNFILES="$PWD"
cd "$work/src"
# unsafeptr: C addresses travel as uintptr by design (SWIG's generated code does it too).
/usr/bin/go vet -unsafeptr=false ./...
exec /usr/bin/go test -count=1 -v ./...
