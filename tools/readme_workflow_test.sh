#!/usr/bin/env bash
# The README's workflow, copied command by command from README.md (the shell
# blocks between <!-- workflow-begin --> and <!-- workflow-end -->, the same in
# docs/user-guide.md), runs as written on the bundled model: `./bazelw run //tools:dump --` becomes the
# built binary, the commands run in a fresh folder holding `testdata/`, and
# every command must succeed (compare: within the tolerance).
set -euo pipefail

RUNFILES="${TEST_SRCDIR}/acldump"
DUMP="$RUNFILES/tools/dump"
README="$RUNFILES/README.md"
WORK="${TEST_TMPDIR}/workflow"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
ln -s "$RUNFILES/testdata" testdata

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The fenced sh blocks of the workflow, without their list indentation.
awk '/<!-- workflow-begin -->/ {on = 1} /<!-- workflow-end -->/ {on = 0}
     on && /^ *```sh$/ {block = 1; next}
     on && block && /^ *```$/ {block = 0; print "# --- end of block"; next}
     on && block {sub(/^   /, ""); print}' "$README" >workflow.sh
workflow_of() { sed -n '/<!-- workflow-begin -->/,/<!-- workflow-end -->/p' "$1"; }
[[ "$(workflow_of "$README")" == "$(workflow_of "$RUNFILES/docs/user-guide.md")" ]] ||
  fail "docs/user-guide.md and README.md hold different workflows"
[[ $(grep -c '^# --- end of block' workflow.sh) == 3 ]] ||
  fail "expected 3 shell blocks in the README's workflow, found: $(cat workflow.sh)"
grep -q './bazelw run //tools:dump -- compare' workflow.sh || fail "no compare in the workflow"
sed 's|^\./bazelw run //tools:dump --|"$DUMP"|' workflow.sh >commands.sh
if grep -n 'bazelw\|<[a-z_]*>' commands.sh; then
  fail "the workflow has commands or placeholders a reader cannot run as written"
fi

echo "== running the README workflow"
cat commands.sh
rc=0
DUMP="$DUMP" bash -euo pipefail -x commands.sh >workflow.out 2>workflow.err || rc=$?
if [[ $rc != 0 ]]; then
  sed 's/^/    /' workflow.out workflow.err >&2
  fail "the README workflow stopped with exit $rc"
fi

echo "== what it produced"
check() {  # check FILE PATTERN: a fixed string the workflow's output must hold
  grep -qF -- "$2" "$1" || {
    sed 's/^/    /' "$1" >&2
    fail "$1 lacks '$2'"
  }
}
check workflow.out "input      input float32[1,3,32,32] from testdata/resnet_tiny.input.input.npy"
[[ -s all_stats.csv ]] || fail "no all_stats.csv"
python3 -c 'import json; j = json.load(open("all_stats.json")); assert j["schema"] == "acldump.stats/1"
assert sorted({r["iteration"] for r in j["rows"]}) == list(range(10)), "not 10 iterations"' ||
  fail "all_stats.json"
check workflow.out "valid (aclmdlSetDump returns ACL_SUCCESS)"
# Step 3 dumps iteration 3 of the named layers only.
[[ "$(ls layers_dump/*/0/resnet_tiny/*)" == 3 ]] || fail "layers_dump iterations: $(ls layers_dump/*/0/resnet_tiny/*)"
# Both compares pass, with the graph input and the named layers compared.
[[ $(grep -c -- '-> PASS' workflow.out) == 2 ]] || fail "not two compares that pass"
check workflow.out "conv3bn3   Conv  output 0  bn3 output 0"
[[ -s compare.html ]] || fail "no compare.html"
python3 -c 'import json; j = json.load(open("compare.json")); assert j["verdict"] == "pass", j["verdict"]
assert j["tensors_compared"] > 0 and j["tensors_outside"] == 0' || fail "compare.json"
[[ -s compare.csv ]] || fail "no compare.csv"
[[ -f my_reference/relu_add1.output.0.npy ]] || fail "dump reference wrote $(ls my_reference | head)"
echo "the README workflow passes as written"
