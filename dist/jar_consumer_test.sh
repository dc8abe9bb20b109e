#!/usr/bin/env bash
# The jar as a Java user meets it: copied out of the workspace and run with only
# `-cp acldump-<version>.jar` (no java.library.path, no LD_LIBRARY_PATH): its native libraries
# are extracted from the jar and loaded, the model runs and the dump lands. The pom's
# coordinates are checked too.
# Usage: jar_consumer_test.sh <jar> <pom> <version> <Consumer.java> <resnet_tiny.om>
set -euo pipefail
jar="$1"; pom="$2"; version="$3"; consumer="$4"; model="$5"
work="$TEST_TMPDIR/jar_consumer"
rm -rf "$work"; mkdir -p "$work/out" "$work/tmp"
cp "$jar" "$pom" "$consumer" "$model" "$work/"
cd "$work"
clean() { env -i PATH=/usr/bin:/bin HOME="$work" LANG=C.UTF-8 "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

printf '{"dump":{"dump_path":"%s","dump_list":[{"model_name":"resnet_tiny","layer":["prob"]}]}}' \
  "$work/out" > acl.json
# java.io.tmpdir points into the test folder to check the extracted libraries are removed.
clean /usr/bin/java -Djava.io.tmpdir="$work/tmp" -cp "acldump-$version.jar" \
  Consumer.java resnet_tiny.om acl.json > run.txt 2>&1 || { cat run.txt; fail "the consumer did not run"; }
cat run.txt
grep -q "^version $version, prob sums to 1.000$" run.txt || fail "unexpected output"
[ "$(find out -type f -name 'Softmax.prob.*' | wc -l)" -eq 1 ] || fail "expected one prob dump file"
[ -z "$(ls -A tmp)" ] || fail "extracted libraries left behind: $(ls tmp)"

/usr/bin/python3 - "acldump-$version.pom" "$version" <<'PY' || fail "pom coordinates"
import sys, xml.etree.ElementTree as ET
ns = {"m": "http://maven.apache.org/POM/4.0.0"}
root = ET.parse(sys.argv[1]).getroot()
got = [root.find("m:" + k, ns).text for k in ("groupId", "artifactId", "version", "packaging")]
assert got == ["com.acldump", "acldump", sys.argv[2], "jar"], got
PY
manifest=$(unzip -p "acldump-$version.jar" META-INF/MANIFEST.MF)
grep -q "^Implementation-Version: $version" <<<"$manifest" || fail "manifest version"
echo "PASS: the jar works with nothing but itself on the class path"
