#!/usr/bin/env bash
# The HTML report of `dump compare` renders in headless Chromium (Debian's
# `chromium`): a screenshot is taken (kept in the test's undeclared outputs)
# and the rendered DOM holds one table row per compared tensor, the error
# chart and the first diverging operator.
set -euo pipefail

RUNFILES="${TEST_SRCDIR}/acldump"
DUMP="$RUNFILES/tools/dump"
TD="$RUNFILES/testdata"
WORK="${TEST_TMPDIR}/render"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"

CHROMIUM=/usr/bin/chromium
if [[ ! -x "$CHROMIUM" ]]; then
  echo "FAIL: $CHROMIUM is missing: ./bazelw installs it (third_party/debian-packages.txt)" >&2
  exit 1
fi

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# A dump of every output, and a copy with conv3bn3's output perturbed.
mkdir dump
cat >acl.json <<EOF
{"dump": {"dump_path": "dump", "dump_list": [{"model_name": "resnet_tiny"}]}}
EOF
"$DUMP" run --model "$TD/resnet_tiny.om" --config acl.json \
  --input "$TD/resnet_tiny.input.input.npy" >run.out
cp -r dump perturbed
file=$(echo perturbed/2*/0/resnet_tiny/*/0/Conv.conv3bn3.*)
size=$(stat -c %s "$file")
printf '\x00\x00\x20\x41%.0s' {1..16} | dd of="$file" bs=1 seek=$((size - 64)) conv=notrunc status=none

rc=0
"$DUMP" compare perturbed/2*/0/resnet_tiny/*/0 "$TD/reference/resnet_tiny" \
  --report report.html >compare.out || rc=$?
[[ $rc == 1 ]] || fail "compare exited $rc, expected 1"
[[ -s report.html ]] || fail "no report written"
if grep -qE '(src|href)="(https?:)?//' report.html; then
  fail "the report fetches something from the network"
fi

chrome() {
  # HOME and the profile in the sandbox; no network, no background services.
  HOME="$WORK" timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
    --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --disable-dev-shm-usage \
    --user-data-dir="$WORK/profile" --window-size=1200,900 "$@" \
    "file://$WORK/report.html" 2>>chromium.log
}

chrome --screenshot="$WORK/report.png" >/dev/null
[[ -s report.png ]] || fail "no screenshot (chromium.log: $(tail -3 chromium.log))"
[[ "$(head -c 8 report.png | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] ||
  fail "the screenshot is not a PNG"
if [[ -n "${TEST_UNDECLARED_OUTPUTS_DIR:-}" ]]; then
  cp report.png report.html "$TEST_UNDECLARED_OUTPUTS_DIR/"
fi

chrome --dump-dom >dom.html
[[ -s dom.html ]] || fail "empty DOM (chromium.log: $(tail -3 chromium.log))"
# 15 operators (the Data op has no reference: one "no counterpart" row).
rows=$(grep -o 'class="op-row' dom.html | wc -l)
[[ $rows == 15 ]] || fail "the rendered table has $rows rows, expected 15"
grep -q '<tr class="op-row first" data-op="conv3bn3">' dom.html ||
  fail "conv3bn3 is not marked as the first divergence"
grep -q '<tr class="op-row" data-op="prob">' dom.html || fail "no row for prob"
grep -q 'id="error-chart"' dom.html || fail "no error chart"
bars=$(grep -o '<rect [^>]*class="bar' dom.html | wc -l)
[[ $bars == 14 ]] || fail "the chart has $bars bars, expected 14"
grep -q 'First diverging operator:</b> conv3bn3 (Conv, task 3)' dom.html ||
  fail "the first divergence is not called out"
echo "report renders: $rows rows, $bars bars"
