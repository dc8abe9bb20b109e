#!/usr/bin/env bash
# The Go module as a Go user meets it: the SDK tarball and the module unpacked outside the
# workspace, a service with its own go.mod (require + replace) built with plain `go build`,
# offline, cgo flags from `pkg-config acldump`, then run on the bundled model with a dump config.
# Usage: go_consumer_test.sh <sdk tarball> <go module tarball> <version> <main.go>
set -euo pipefail
sdk_tar="$1"; module_tar="$2"; version="$3"; main_go="$4"
work="$TEST_TMPDIR/go_consumer"
rm -rf "$work"; mkdir -p "$work/service" "$work/out"
tar xf "$sdk_tar" -C "$work"
tar xf "$module_tar" -C "$work"
cp "$main_go" "$work/service/main.go"
sdk="$work/acldump-$version-linux-x86_64"
module="$work/acldump-go-$version"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f "$module/acl/acl.go" ] && [ -f "$module/acl/acl_wrap.c" ] || fail "the module lacks SWIG's output"
if find "$module" -name '*_test.go' | grep -q .; then fail "the module ships tests"; fi

cd "$work/service"
cat > go.mod <<MOD
module example.com/service

go 1.19

require github.com/acldump/acldump-go v$version

replace github.com/acldump/acldump-go => ../acldump-go-$version
MOD
libdir=$(PKG_CONFIG_PATH="$sdk/lib/pkgconfig" pkg-config --variable=libdir acldump)
# Only what the README tells a Go user to set; nothing from the build tree.
clean() {
  env -i PATH=/usr/bin:/bin HOME="$work/home" GOPATH="$work/gopath" GOCACHE="$work/cache" \
    GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 \
    PKG_CONFIG_PATH="$sdk/lib/pkgconfig" CGO_LDFLAGS="-Wl,-rpath,$libdir" "$@"
}
clean /usr/bin/go build -o service . > build.log 2>&1 || { cat build.log; fail "go build"; }
grep -q "(NEEDED).*\[libacldump.so.${version%%.*}\]" <<<"$(readelf -d service)" || fail "service does not link libacldump.so.${version%%.*}"

printf '{"dump":{"dump_path":"%s","dump_list":[{"model_name":"resnet_tiny","layer":["prob"]}]}}' \
  "$work/out" > acl.json
env -i PATH=/usr/bin:/bin ./service "$sdk/share/acldump/testdata/resnet_tiny.om" acl.json > run.txt 2>&1 \
  || { cat run.txt; fail "the service did not run"; }
cat run.txt
grep -q "^version $version, prob sums to 1.000$" run.txt || fail "unexpected output"
[ "$(find "$work/out" -type f -name 'Softmax.prob.*' | wc -l)" -eq 1 ] || fail "expected one prob dump file"
echo "PASS: a Go service builds with go build against the SDK and the module"
