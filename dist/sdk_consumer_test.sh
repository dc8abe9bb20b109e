#!/usr/bin/env bash
# The SDK tarball as a user meets it: unpacked into a temporary folder, with nothing from Bazel's
# output folders on any path, consumed by CMake (find_package), by pkg-config, by a program linked
# with -lascendcl, and through its tool. Each runs the bundled model with a dump config and the
# dump files are checked.
# Usage: sdk_consumer_test.sh <tarball> <version> <acllite_style.cpp> <image.jpg> <user-guide.md>
#        <guide_commands.sh>
set -euo pipefail
tarball="$1"; version="$2"; major="${version%%.*}"
acllite_cpp="$(realpath "$3")"; jpeg="$(realpath "$4")"; guide="$(realpath "$5")"
guide_script="$(realpath "$6")"
work="$TEST_TMPDIR/consumer"
rm -rf "$work"; mkdir -p "$work"
cp "$tarball" "$work/"
cd "$work"
tar xf "$(basename "$tarball")"
sdk="$work/acldump-$version-linux-x86_64"
[ -d "$sdk" ] || { echo "the tarball does not unpack into acldump-$version-linux-x86_64/" >&2; exit 1; }
# A clean environment for everything the consumers run.
clean() { env -i PATH=/usr/bin:/bin HOME="$work" LANG=C "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== the library: SONAME, links, exported symbols, dependencies"
lib="$sdk/lib/libacldump.so.$version"
# (grep -q reads from variables: under pipefail, a writer cut short by grep -q fails the pipe.)
dynamic=$(readelf -d "$lib")
grep -q "(SONAME).*\[libacldump.so.$major\]" <<<"$dynamic" || fail "SONAME is not libacldump.so.$major"
[ "$(readlink "$sdk/lib/libacldump.so.$major")" = "libacldump.so.$version" ] || fail "libacldump.so.$major link"
[ "$(readlink "$sdk/lib/libacldump.so")" = "libacldump.so.$major" ] || fail "libacldump.so link"
exported=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}')
if printf '%s\n' "$exported" | grep -qv "^acl[A-Za-z0-9_]*@@ACLDUMP_$major\$"; then
  fail "symbols other than acl*@@ACLDUMP_$major are exported: $(printf '%s\n' "$exported" | grep -v '^acl' | head -3)"
fi
# abseil, protobuf, fmt and Highway are linked in: neither the library nor the tools need their
# shared libraries, from the system or from the SDK.
for binary in "$lib" "$sdk/bin/acldump" "$sdk/bin/acldump-convert"; do
  deps=$(clean ldd "$binary")
  if grep -q "not found" <<<"$deps"; then fail "$binary: unresolved dependencies: $deps"; fi
  if grep -E 'libabsl|libprotobuf|libfmt|libhwy' <<<"$deps"; then
    fail "$(basename "$binary") needs a library it should link statically"
  fi
done
[ ! -e "$sdk/lib/acldump" ] || fail "the SDK still carries private shared libraries"
echo "system libraries the library uses:"
clean ldd "$lib" | awk '{print "  " $1}'

echo "== the tools"
[ "$(clean "$sdk/bin/acldump" --version)" = "dump (acldump) $version" ] || fail "acldump --version"
[ "$(clean "$sdk/bin/acldump-convert" --version)" = "convert (acldump) $version" ] || fail "convert --version"
mkdir demo
(cd demo && clean "$sdk/bin/acldump" > out.txt 2>&1) || { cat demo/out.txt; fail "bin/acldump without arguments"; }
grep -q "ran the bundled ResNet-style model" demo/out.txt || { cat demo/out.txt; fail "no demo summary"; }
[ "$(find demo/acldump_output/dump -type f -name 'Softmax.prob.*' | wc -l)" -eq 2 ] || fail "the demo did not dump prob twice"

echo "== the user guide's release commands, as written, from the unpacked folder"
bash "$guide_script" "$guide" "$sdk" "$sdk/bin" "$work" || fail "the user guide's release commands"

model="$sdk/share/acldump/testdata/resnet_tiny.om"
# Runs a consumer program on the bundled model dumping layer prob, and checks the one dump file.
check_dump() {
  local name="$1"; shift
  local out="$work/dump_$name"
  mkdir -p "$out"
  printf '{"dump":{"dump_path":"%s","dump_list":[{"model_name":"resnet_tiny","layer":["prob"]}]}}' \
    "$out" > "$work/acl_$name.json"
  [ "$(clean "$@" "$model" "$work/acl_$name.json")" = "done" ] || fail "$name did not run"
  local files
  files=$(find "$out" -type f -name 'Softmax.prob.*')
  [ "$(printf '%s\n' "$files" | grep -c .)" -eq 1 ] || fail "$name: expected one prob dump file"
  # The dump file is read back by the SDK's own tool: one output, [1,10] float.
  clean "$sdk/bin/acldump" show "$files" > "$work/show_$name.txt" || fail "$name: dump show"
  grep -q "^op *prob  (type Softmax)" "$work/show_$name.txt" || { cat "$work/show_$name.txt"; fail "$name: not prob"; }
  grep -q "DT_FLOAT  ND  shape \[1,10\]" "$work/show_$name.txt" || { cat "$work/show_$name.txt"; fail "$name: shape"; }
  echo "$name: dumped $(basename "$files")"
}

echo "== CMake: find_package(acldump $major.0 CONFIG REQUIRED)"
cp -r "$sdk/share/acldump/examples" cmake_src
clean cmake -S cmake_src -B cmake_build -DCMAKE_PREFIX_PATH="$sdk" > cmake.log 2>&1 || { cat cmake.log; fail "cmake configure"; }
clean cmake --build cmake_build > build.log 2>&1 || { cat build.log; fail "cmake build"; }
check_dump cmake "$work/cmake_build/dump_layers"
# A request for another major version is refused.
mkdir wrong && sed 's/find_package(acldump 1.0/find_package(acldump 99.0/' cmake_src/CMakeLists.txt > wrong/CMakeLists.txt
cp cmake_src/dump_layers.c wrong/
if clean cmake -S wrong -B wrong_build -DCMAKE_PREFIX_PATH="$sdk" > wrong.log 2>&1; then
  fail "find_package(acldump 99.0) accepted version $version"
fi

echo "== the NPU SDK's layout: a samples-style CMakeLists after source set_env.sh"
mkdir samples_src
cp "$sdk/share/acldump/examples/dump_layers.c" samples_src/main.c
cat > samples_src/CMakeLists.txt <<'CMAKE'
# As the Ascend samples write it: headers from $DDK_PATH/runtime/include, ascendcl from
# $NPU_HOST_LIB (runtime/lib64/stub), no package config.
cmake_minimum_required(VERSION 3.5.1)
project(sample C)
set(INC_PATH $ENV{DDK_PATH})
set(LIB_PATH $ENV{NPU_HOST_LIB})
include_directories(${INC_PATH}/runtime/include/)
link_directories(${LIB_PATH})
add_executable(main main.c)
target_link_libraries(main ascendcl stdc++)
CMAKE
clean bash -c "source '$sdk/set_env.sh' && cmake -S samples_src -B samples_build && cmake --build samples_build" \
  > samples.log 2>&1 || { cat samples.log; fail "a samples-style build with set_env.sh"; }
[ "$(clean bash -c "source '$sdk/set_env.sh' && echo \$ASCEND_TOOLKIT_HOME")" = "$sdk" ] \
  || fail "set_env.sh's ASCEND_TOOLKIT_HOME"
check_dump samples_layout bash -c "source '$sdk/set_env.sh' && exec '$work/samples_build/main' \"\$@\"" main

echo "== an acllite-style C++ program (acl_dvpp.h, aclInit(NULL)), dumped through ACLDUMP_CONFIG"
mkdir lite_src
cp "$acllite_cpp" lite_src/main.cpp
# acllite's CMakeLists define ENABLE_DVPP_INTERFACE, which acl_dvpp.h requires, as the SDK's does.
sed 's/project(sample C)/project(sample CXX)\nadd_definitions(-DENABLE_DVPP_INTERFACE)/; s/main.c)/main.cpp)/' \
  samples_src/CMakeLists.txt > lite_src/CMakeLists.txt
clean bash -c "source '$sdk/set_env.sh' && cmake -S lite_src -B lite_build && cmake --build lite_build" \
  > lite.log 2>&1 || { cat lite.log; fail "the acllite-style C++ program does not build"; }
mkdir lite_dump
printf '{"dump":{"dump_path":"%s","dump_list":[{"model_name":"resnet_tiny","layer":["prob"]}]}}' \
  "$work/lite_dump" > lite.json
clean bash -c "source '$sdk/set_env.sh' && ACLDUMP_CONFIG='$work/lite.json' \
  '$work/lite_build/main' '$model' '$jpeg'" > lite_run.txt 2>&1 \
  || { cat lite_run.txt; fail "the acllite-style C++ program"; }
grep -q "^acllite-style: ok$" lite_run.txt || { cat lite_run.txt; fail "acllite-style result"; }
grep -q "^jpeg [0-9]*x[0-9]*, 3 components$" lite_run.txt || { cat lite_run.txt; fail "jpeg info"; }
[ "$(find lite_dump -type f -name 'Softmax.prob.*' | wc -l)" -eq 1 ] \
  || { find lite_dump; fail "ACLDUMP_CONFIG did not dump the acllite-style C++ program"; }

echo "== pkg-config"
export_pc="PKG_CONFIG_PATH=$sdk/lib/pkgconfig"
[ "$(clean env "$export_pc" pkg-config --modversion acldump)" = "$version" ] || fail "pkg-config --modversion"
flags=$(clean env "$export_pc" pkg-config --cflags --libs acldump)
libdir=$(clean env "$export_pc" pkg-config --variable=libdir acldump)
clean cc -std=c99 -o pc_dump_layers "$sdk/share/acldump/examples/dump_layers.c" $flags -Wl,-rpath,"$libdir"
grep -q "(NEEDED).*\[libacldump.so.$major\]" <<<"$(readelf -d pc_dump_layers)" || fail "the program does not record libacldump.so.$major"
check_dump pkg_config "$work/pc_dump_layers"
# aclrtGetVersion reports the release, as the headers do.
cat > version.c <<'C'
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"
int main(void) {
  int32_t major, minor, patch;
  char text[64];
  if (aclrtGetVersion(&major, &minor, &patch) != ACL_SUCCESS) return 1;
  snprintf(text, sizeof text, "%d.%d.%d", major, minor, patch);
  printf("%s\n", text);
  return strcmp(text, ACLDUMP_VERSION_STRING) != 0;
}
C
clean cc -std=c99 -o version version.c $flags -Wl,-rpath,"$libdir"
[ "$(clean ./version)" = "$version" ] || fail "aclrtGetVersion does not report $version"

echo "== a program built for the SDK: -lascendcl"
clean cc -std=c99 -o ascend_dump_layers "$sdk/share/acldump/examples/dump_layers.c" -I"$sdk/include" \
  -L"$sdk/lib" -lascendcl -Wl,-rpath,"$sdk/lib"
check_dump ascendcl "$work/ascend_dump_layers"
echo "PASS: the SDK works from outside the build tree"
