#!/usr/bin/env bash
# ./bazelw installs what the requested command needs: checked through BAZELW_LIST_PACKAGES, which
# prints the package list instead of installing and running Bazel.
set -euo pipefail
cd "$(dirname "$0")"
fail() { echo "FAIL: $*" >&2; exit 1; }
needs() { BAZELW_LIST_PACKAGES=1 ./bazelw "$@" | tr '\n' ' '; }
has() { [[ " $1 " == *" $2 "* ]]; }
expect() {  # expect "<command line>" +pkg -pkg ...
  local line="$1" list
  shift
  read -r -a argv <<<"$line"
  list=$(needs "${argv[@]}")
  for want in "$@"; do
    case "$want" in
      +*) has "$list" "${want#+}" || fail "'./bazelw $line' should install ${want#+}: $list" ;;
      -*) has "$list" "${want#-}" && fail "'./bazelw $line' should not install ${want#-}: $list" ;;
    esac
  done
  return 0
}

# The README's main command: the tool and the runtime, no bindings, browser, Go or fuzzing.
expect "run //tools:dump" +g++ +libprotobuf-dev +libdnnl-dev +bazel-bootstrap \
  -chromium -golang-go -swig -junit4 -cmake -clang -libonnx-testdata
# Program arguments after `--` are not targets.
expect "run //tools:dump -- compare //bindings/go //dist" -golang-go -cmake
# The README's test command: everything but the fuzzing toolchain.
expect "test //..." +chromium +golang-go +swig +junit4 +cmake +patchelf +libonnx-testdata -clang
expect "--yes test //..." +chromium
expect "test //bindings/go:acl_test" +golang-go +pkgconf +swig -chromium -junit4 -cmake
expect "test //bindings/..." +golang-go +junit4 +swig -chromium -cmake
expect "build //dist:sdk" +cmake +patchelf -chromium -junit4
expect "test tools/..." +chromium +swig -golang-go
expect "test //tools:reading_api_test" +swig +python3-dev -chromium
expect "test --config=fuzz //fuzz:all" +clang +libclang-rt-14-dev -chromium
# Where the targets cannot be told, everything.
expect "build" +chromium +golang-go
expect "query @system//:all" +chromium +golang-go
# Commands that build nothing need only the always-needed packages.
expect "version" +bazel-bootstrap -chromium -golang-go
echo "PASS"
