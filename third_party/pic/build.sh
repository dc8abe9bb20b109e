#!/usr/bin/env bash
# Builds position-independent static archives of abseil, protobuf, fmt and Highway, for linking
# into the released shared library with their symbols hidden. Debian ships static archives of
# these compiled for executables only (local-exec TLS relocations a shared library cannot hold),
# so they are rebuilt here from Debian's source packages of exactly the installed versions, with
# the installed headers (the ones the rest of the code compiles against) laid over the sources.
# apt-get fetches the sources through a private list (deb-src of the system's own suites) and
# verifies them against the archive's signed indexes; the system's apt configuration is untouched.
# Usage: build.sh <out_dir>   (writes <out_dir>/lib/*.a and <out_dir>/versions.txt)
set -euo pipefail
out="$(realpath -m "$1")"
work="$out/work"
rm -rf "$work" "$out/lib"
mkdir -p "$work/sources.list.d" "$work/lists/partial" "$work/cache/archives/partial" "$work/src" \
  "$out/lib"
log="$work/build.log"
fail() { echo "pic deps: $*" >&2; [ -f "$log" ] && tail -n 30 "$log" >&2; exit 1; }
for tool in apt-get dpkg-source cmake make g++; do
  command -v "$tool" >/dev/null || fail "$tool is missing (./bazelw installs it for //dist targets)"
done

# deb-src twins of the system's deb sources (deb822 .sources files and one-line .list entries).
for f in /etc/apt/sources.list.d/*.sources; do
  [ -e "$f" ] || continue
  sed 's/^Types:.*/Types: deb-src/' "$f" > "$work/sources.list.d/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -e "$f" ] || continue
  { grep -E '^deb ' "$f" || true; } | sed 's/^deb /deb-src /' >> "$work/sources.list.d/from-lists.list"
done
apt=(apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/sources.list.d"
     -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o Debug::NoLocking=1)
[ "$(id -u)" -eq 0 ] && apt+=(-o APT::Sandbox::User=root)
"${apt[@]}" update > "$log" 2>&1 || fail "apt-get update of the source indexes failed"

# source package, version (of the installed -dev package), folder
: > "$out/versions.txt"
fetch() {
  local dev="$1" source version
  read -r source version < <(dpkg-query -W -f='${source:Package} ${source:Version}\n' "$dev") \
    || fail "$dev is not installed"
  (cd "$work/src" && "${apt[@]}" source "$source=$version" >> "$log" 2>&1) \
    || fail "apt-get source $source=$version failed"
  echo "$source $version" >> "$out/versions.txt"
  local upstream="${version#*:}"
  upstream="${upstream%-*}"
  upstream="${upstream%+ds*}"
  upstream="${upstream%+dfsg*}"
  local dir
  dir=$(find "$work/src" -maxdepth 1 -mindepth 1 -type d -name "$source-$upstream*" | head -n 1)
  [ -n "$dir" ] || fail "no unpacked source for $source $version"
  echo "$dir"
}

# The installed headers over the source's: the archives must match what the code was compiled
# against, including options Debian sets at build time.
overlay_headers() {  # <source include dir> <installed include dir>
  (cd "$2" && find . -type f \( -name '*.h' -o -name '*.inc' \) -print0) |
    while IFS= read -r -d '' header; do
      if [ -e "$1/$header" ]; then cp "$2/$header" "$1/$header"; fi
    done
}

cmake_build() {  # <name> <source dir> <targets...> -- <cmake options...>
  local name="$1" src="$2"
  shift 2
  local targets=()
  while [ "$1" != "--" ]; do targets+=("$1"); shift; done
  shift
  # No build path in the objects (__FILE__, debug info): the archives are the same wherever built.
  local map="-ffile-prefix-map=$work=/pic"
  # -O2, as Debian builds its own copies.
  cmake -S "$src" -B "$work/build-$name" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$map" -DCMAKE_CXX_FLAGS="$map" \
    -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF \
    -DCMAKE_CXX_STANDARD=17 "$@" >> "$log" 2>&1 || fail "configuring $name failed"
  cmake --build "$work/build-$name" -j "$(nproc)" --target "${targets[@]}" >> "$log" 2>&1 \
    || fail "building $name failed"
  find "$work/build-$name" -name '*.a' -exec cp {} "$out/lib/" \;
}

abseil=$(fetch libabsl-dev)
overlay_headers "$abseil/absl" /usr/include/absl
cmake_build abseil "$abseil" statusor status cord synchronization time strings \
  str_format_internal hash raw_hash_set city low_level_hash bad_variant_access \
  bad_optional_access -- -DABSL_PROPAGATE_CXX_STD=ON

protobuf=$(fetch libprotobuf-dev)
overlay_headers "$protobuf/src/google" /usr/include/google
cmake_build protobuf "$protobuf" libprotobuf -- -Dprotobuf_BUILD_TESTS=OFF \
  -Dprotobuf_BUILD_PROTOC_BINARIES=OFF -Dprotobuf_WITH_ZLIB=ON

fmt=$(fetch libfmt-dev)
overlay_headers "$fmt/include/fmt" /usr/include/fmt
cmake_build fmt "$fmt" fmt -- -DFMT_TEST=OFF -DFMT_DOC=OFF -DFMT_INSTALL=OFF

highway=$(fetch libhwy-dev)
overlay_headers "$highway/hwy" /usr/include/hwy
cmake_build highway "$highway" hwy -- -DHWY_ENABLE_TESTS=OFF -DHWY_ENABLE_EXAMPLES=OFF \
  -DHWY_ENABLE_CONTRIB=OFF

# Everything else is build residue.
rm -rf "$work"
echo "pic deps: $(ls "$out/lib" | wc -l) archives in $out/lib from $(tr '\n' ';' < "$out/versions.txt")" >&2
