#!/bin/bash
# Builds or tests the Go service with Debian's go (cgo), offline; everything Go writes stays in a
# temporary folder. Bazel has no Go rules here (as for //bindings/go:acl_test):
#
#   go.sh build <out> <libacldump.so> <file>...           the service's executable (a genrule)
#   go.sh test <service> <libacldump.so> <file>...        go vet and go test (a test; working
#                                                         directory: the runfiles root)
#
# <file>s: the C headers (acl/acl.h among them), the module's files (bindings/go/...) and the
# service's (examples/go-service/...), laid out side by side as go.mod's replace expects.
set -euo pipefail
mode="$1" target="$PWD/$2" lib="$PWD/$3"
shift 3

work="$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/go-service.XXXXXX")"
[[ "$mode" == test ]] || trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
mkdir -p "$work/src/bindings/go" "$work/src/examples/go-service"
include=""
for f in "$@"; do
  case "$f" in
    # Bazel's include folder (with the generated acl_version.h), not the source one.
    */_virtual_includes/*/acl/acl.h) include="$PWD/$(dirname "$(dirname "$f")")" ;;
    *bindings/go/*) mkdir -p "$work/src/bindings/go/$(dirname "${f#*bindings/go/}")"
      cp -L "$f" "$work/src/bindings/go/${f#*bindings/go/}" ;;
    *examples/go-service/*) cp -L "$f" "$work/src/examples/go-service/" ;;
  esac
done
chmod -R u+w "$work/src"
[[ -n "$include" ]] || { echo "go.sh: no acl/acl.h among the files" >&2; exit 1; }

export HOME="$work/home" GOPATH="$work/gopath" GOCACHE="$work/cache"
export GO111MODULE=on GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1
# Both packages take their flags from `pkg-config acldump`: here, a .pc for the build tree's
# library. The executable finds it at run time through LD_LIBRARY_PATH (run.sh, the test).
mkdir -p "$work/pkgconfig"
cat > "$work/pkgconfig/acldump.pc" <<PC
Name: acldump
Description: acldump built by Bazel (for examples/go-service)
Version: 0
Libs: -L$(dirname "$lib") -l:libacldump.so
Cflags: -I$include
PC
export PKG_CONFIG_PATH="$work/pkgconfig"
cd "$work/src/examples/go-service"
case "$mode" in
  build)
    /usr/bin/go build -o "$target" .
    ;;
  test)
    export ACLDUMP_RUNFILES="$OLDPWD" GO_SERVICE_BIN="$target"
    export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    /usr/bin/go vet ./...
    exec /usr/bin/go test -count=1 -v ./...
    ;;
  *)
    echo "go.sh: unknown mode $mode (build or test)" >&2
    exit 1
    ;;
esac
