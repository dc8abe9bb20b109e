#!/usr/bin/env bash
# The HTML report of `dump compare` renders in headless Chromium (Debian's
# `chromium`): a screenshot is taken (kept in the test's undeclared outputs)
# and the rendered DOM shows what a reader needs: the verdict, one table row per
# tensor, a chart per metric, the first diverging tensor's histogram, scatter
# and worst elements, and a table that filters and sorts.
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

chrome() {  # chrome ARGS... [URL]: the report, or the URL given last
  local url="file://$WORK/report.html"
  if [[ "${!#}" == file://* ]]; then
    url="${!#}"
    set -- "${@:1:$#-1}"
  fi
  # HOME and the profile in the sandbox; no network, no background services.
  HOME="$WORK" timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
    --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --disable-dev-shm-usage \
    --user-data-dir="$WORK/profile" --window-size=1200,900 "$@" \
    "$url" 2>>chromium.log
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
expect() {  # expect WHAT PATTERN (extended regex) in the rendered DOM
  grep -qE -- "$2" dom.html || fail "the page does not show $1 ($2)"
}
# 15 operators, every one compared (the graph input against the reference input.npy).
rows=$(grep -o '<tr class="op-row' dom.html | wc -l)
[[ $rows == 15 ]] || fail "the rendered table has $rows rows, expected 15"
expect "the verdict" 'id="verdict">FAIL: 15 tensors compared, 1 outside the tolerance<'
expect "conv3bn3 as the first divergence" \
  '<tr class="op-row first" data-op="conv3bn3" data-status="outside">'
expect "the graph input compared" '<tr class="op-row" data-op="input" data-status="within">'
expect "a row for prob" '<tr class="op-row" data-op="prob" data-status="within">'
expect "the first divergence called out" \
  'First diverging operator:</b> conv3bn3 \(Conv, task 3\): its inputs were not compared, but every earlier operator.s outputs are within the tolerance; output 0 is not'
# A chart per default metric against execution order, one point per compared tensor.
for metric in cosine max_abs mean_abs rmse max_rel; do
  expect "the $metric chart" "<svg id=\"chart-$metric\" class=\"chart\""
done
# The first diverging tensor: a histogram of |a-b|, an a-vs-b scatter and the worst elements
# with their multi-dimensional index and both values.
expect "the diverging tensor" 'First diverging tensor: conv3bn3 output 0 against bn3 output 0'
expect "the histogram's outliers" '<title>\|a-b\| in \[1e0\.[0-9]+, 1e1\.[0-9]+\): 16</title>'
points=$(sed -n '/<svg id="scatter"/,/<\/svg>/p' dom.html | grep -o '<circle' | wc -l)
((points >= 1000)) || fail "the scatter plot has $points points"
expect "the worst element" '<tr><td class="text">\[0,15,15,4\]</td><td>10</td><td>-0\.7997[0-9]*</td>'
expect "the row count" 'id="shown">15 of 15 rows<'

# Filter and sort, as the page's own controls do (their state rides in the URL's fragment):
# only the tensor outside the tolerance stays visible.
chrome --dump-dom "file://$WORK/report.html#status=outside&sort=max_abs:desc" >filtered.html
grep -q 'id="shown">1 of 15 rows<' filtered.html || fail "the status filter shows $(grep -o 'id="shown">[^<]*' filtered.html)"
visible=$(grep -o '<tr class="op-row[^>]*>' filtered.html | grep -vc 'display: none' || true)
[[ $visible == 1 ]] || fail "$visible rows visible with status=outside"
grep -qE '<th data-key="max_abs"[^>]* class="sorted-desc"' filtered.html || fail "not sorted by max_abs"
chrome --dump-dom "file://$WORK/report.html#filter=relu&sort=index:desc" >relu.html
grep -q 'id="shown">5 of 15 rows<' relu.html || fail "the text filter shows $(grep -o 'id="shown">[^<]*' relu.html)"
echo "report renders: $rows rows, charts, histogram, $points scatter points, worst elements"
