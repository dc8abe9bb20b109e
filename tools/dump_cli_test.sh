#!/usr/bin/env bash
# End-to-end tests of the `dump` binary on the testdata models: every command,
# exit codes, and the compare acceptance cases (a perturbed copy of a dump,
# the PyTorch references, a fused against an unfused conversion).
set -euo pipefail

RUNFILES="${TEST_SRCDIR}/acldump"
DUMP="$RUNFILES/tools/dump"
CONVERT="$RUNFILES/tools/convert"
TD="$RUNFILES/testdata"
WORK="${TEST_TMPDIR}/work"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"

source "$RUNFILES/tools/cli_test_lib.sh"
count_files() { find "$1" -maxdepth 1 -type f "${@:2}" | wc -l; }
config() {  # config FILE DUMP_PATH MODE DATA [extra json]
  mkdir -p "$2"
  cat >"$1" <<EOF
{"dump": {"dump_path": "$2", "dump_list": [{"model_name": "resnet_tiny"}],
          "dump_mode": "$3", "dump_data": "$4"${5:-}}}
EOF
}
# Overwrites the last 64 bytes (the last output's tail) with 10.0f values.
perturb() {
  local size
  size=$(stat -c %s "$1")
  printf '\x00\x00\x20\x41%.0s' {1..16} |
    dd of="$1" bs=1 seek=$((size - 64)) conv=notrunc status=none
}

echo "== no arguments: the bundled model with the built-in config"
mkdir default && pushd default >/dev/null
expect_exit 0 default -- "$DUMP"
expect_grep default.out "ran 1 model, 2 iterations each, on device 0"
# The demo runs on the bundled input, the one the PyTorch references were made from.
expect_grep default.out "input float32[1,3,32,32] from testdata/resnet_tiny.input.input.npy"
expect_grep default.out "model dump of 1 model, outputs, tensor, every step"
expect_grep default.out "per iteration with dump"
expect_grep default.out " without ("
expect_grep default.out "30 new"
expect_grep default.out "Next, try:"
expect_grep default.out "compare acldump_output/"
expect_grep default.out "ls acldump_output/dump --summary"
popd >/dev/null
ITER0=$(echo "$WORK"/default/acldump_output/dump/2*/0/resnet_tiny/*/0)
ITER1=$(echo "$WORK"/default/acldump_output/dump/2*/0/resnet_tiny/*/1)
[[ $(count_files "$ITER0") == 15 ]] || fail "iteration 0 holds $(count_files "$ITER0") files"
[[ $(count_files "$ITER1") == 15 ]] || fail "iteration 1 holds $(count_files "$ITER1") files"
# One output folder: the dump tree, the config and the model outputs beside the dump, never
# inside dump_path.
[[ -f default/acldump_output/outputs/resnet_tiny.output.prob.npy ]] || fail "no model output"
[[ ! -e default/acldump_output/dump/outputs ]] || fail "outputs inside dump_path"
folders=$(find default -mindepth 1 -maxdepth 1 -type d -printf '%f ')
[[ "$folders" == "acldump_output " ]] || fail "the default run wrote more than one folder: $folders"
[[ -f default/acldump_output/acl.json ]] || fail "no saved config"

echo "== compare against the PyTorch references (independent implementation)"
expect_exit 0 reference -- "$DUMP" compare "$ITER0" "$TD/reference/resnet_tiny" \
  --atol 1e-3 --rtol 1e-3 --metrics all
expect_grep reference.out "result: 15 tensors compared, 0 outside the tolerance -> PASS"
# The graph input is compared like any tensor (the references hold input.npy).
expect_grep reference.out "input          Data               output 0  input output 0"
expect_grep reference.out "conv1bn1relu1  Conv"
expect_grep reference.out "relu1 output 0"
expect_grep reference.out "first diverging operator: none"
expect_no_grep reference.err $'\r'  # no progress line when not a terminal
expect_exit 0 iterations -- "$DUMP" compare "$ITER0" "$ITER1" --atol 0 --rtol 0
expect_grep iterations.out "15 tensors compared, 0 outside"

# On a terminal (a pseudo-terminal from `script`), a progress line is drawn.
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  ACLDUMP_PROGRESS_DELAY_MS=0 script -qec "'$DUMP' compare '$ITER0' '$ITER1' >/dev/null" /dev/null >tty.txt || true
  expect_grep tty.txt "compare 15/15 (100%)"
else
  echo "(no pseudo-terminal here: progress line not checked)"
fi

echo "== run: .onnx model, given input, dump_mode all, outputs as .npy"
config all.json all all tensor
expect_exit 0 run -- "$DUMP" run --model "$TD/resnet_tiny.onnx" --config all.json \
  --input "$TD/resnet_tiny.input.input.npy" --iterations 1 --device 3 --output-dir out
expect_grep run.out "on device 3"
expect_grep run.out "input float32[1,3,32,32] from"
expect_grep run.out "out/resnet_tiny.output.prob.npy"
# The same summary as JSON, alone on stdout.
config all_json.json all_json all tensor
expect_exit 0 run_json -- "$DUMP" run --model "$TD/resnet_tiny.om" --config all_json.json --json -
expect_json run_json.out 'j["schema"], j["files"], len(j["folders"]), j["dump_error"]' \
  "('acldump.run/1', 15, 1, None)"
expect_json run_json.out 'j["models"][0]["name"], j["models"][0]["outputs"][1]' \
  "('resnet_tiny', 'acldump_output/outputs/resnet_tiny.output.prob.npy')"
ALL=$(echo "$WORK"/all/2*/3/resnet_tiny/*/0)
[[ $(count_files "$ALL") == 15 ]] || fail "mode all wrote $(count_files "$ALL") files"
# The written outputs are the dumped outputs of fc and prob, bit for bit.
mkdir outputs_by_op
cp out/resnet_tiny.output.fc.npy outputs_by_op/fc.npy
cp out/resnet_tiny.output.prob.npy outputs_by_op/prob.npy
expect_exit 0 outputs -- "$DUMP" compare "$ALL" outputs_by_op --atol 0 --rtol 0
expect_grep outputs.out "2 tensors compared, 0 outside"
# Random inputs are seeded: two runs agree.
config r1.json r1 output tensor
config r2.json r2 output tensor
expect_exit 0 random1 -- "$DUMP" run -m "$TD/resnet_tiny.om" -c r1.json --seed 7
expect_exit 0 random2 -- "$DUMP" run -m "$TD/resnet_tiny.om" -c r2.json --seed 7
expect_grep random1.out "random (seed 7)"
expect_exit 0 seeded -- "$DUMP" compare r1 r2 --atol 0 --rtol 0

echo "== compare: a perturbed copy names the perturbed operator first"
cp -r all perturbed
PERTURBED=$(echo "$WORK"/perturbed/2*/3/resnet_tiny/*/0)
perturb "$(echo "$PERTURBED"/Conv.conv3bn3.*)"
expect_exit 1 perturbed -- "$DUMP" compare "$PERTURBED" "$ALL" --report perturbed.html
expect_grep perturbed.out "first diverging operator: conv3bn3 (Conv, task 3): its inputs are within the tolerance, output 0 is not"
expect_grep perturbed.out "1 outside the tolerance -> FAIL"
expect_grep perturbed.out "<- first divergence"
[[ -s perturbed.html ]] || fail "no HTML report"
expect_grep perturbed.html 'class="op-row first" data-op="conv3bn3"'
# Output-only dump: the execution-order rule.
cp -r default/acldump_output/dump outonly
OUT0=$(echo "$WORK"/outonly/2*/0/resnet_tiny/*/0)
perturb "$(echo "$OUT0"/Add.add1.*)"
expect_exit 1 outonly -- "$DUMP" compare "$OUT0" "$ITER0"
expect_grep outonly.out "first diverging operator: add1 (Add, task 4): its inputs were not compared"

echo "== compare: fused model against its unfused conversion (original names)"
mkdir unfused_model
"$CONVERT" "$TD/resnet_tiny.onnx" unfused_model/resnet_tiny.om --no-fusion >/dev/null
config unfused.json unfused output tensor
expect_exit 0 unfused_run -- "$DUMP" run -m unfused_model/resnet_tiny.om -c unfused.json \
  -i "$TD/resnet_tiny.input.input.npy"
expect_exit 0 fused_vs_unfused -- "$DUMP" compare "$ITER0" unfused
expect_grep fused_vs_unfused.out "relu1 output 0"
expect_grep fused_vs_unfused.out "original"
expect_grep fused_vs_unfused.out "operators of B not matched (9): conv1, bn1, conv2"
expect_grep fused_vs_unfused.out "-> PASS"

echo "== a quantized (QDQ) model: groups on 8-bit values by default, float with --no-qdq-fusion"
QDQ="$TD/qdq/qdq_resnet.onnx"
expect_exit 0 qdq_convert -- "$CONVERT" "$QDQ" qdq_fused.om
expect_grep qdq_convert.out "10 nodes (6 fused, 1 no-task)"
expect_exit 0 qdq_convert_float -- "$CONVERT" "$QDQ" qdq_float.om --no-qdq-fusion
expect_grep qdq_convert_float.out "27 nodes (1 fused, 1 no-task)"
for kind in fused float; do
  mkdir -p "qdq_$kind"
  cat >"qdq_$kind.json" <<EOF
{"dump": {"dump_path": "qdq_$kind", "dump_list": [{"model_name": "qdq_resnet"}],
          "dump_mode": "output", "dump_data": "tensor"}}
EOF
  expect_exit 0 "qdq_run_$kind" -- "$DUMP" run -m "qdq_$kind.om" -c "qdq_$kind.json" \
    -i "$TD/qdq/qdq_resnet.input.x.npy"
done
# A fused group's dump is its last member's output, the 8-bit values: matched by original name
# with the same values in the float-path run, equal on this model.
expect_exit 0 qdq_compare -- "$DUMP" compare qdq_fused qdq_float
expect_grep qdq_compare.out "conv1relu1_q     QLinearConv               output 0  relu1_cast output 0  original"
expect_grep qdq_compare.out "10 tensors compared, 0 outside the tolerance -> PASS"

echo "== check-config"
expect_exit 0 check -- "$DUMP" check-config all.json --model "$TD/resnet_tiny.onnx"
expect_grep check.out "all.json: valid (aclmdlSetDump returns ACL_SUCCESS)"
expect_grep check.out "conv1,bn1,relu1  inputs+outputs"
expect_grep check.out "estimated per dumped iteration: 15 files"
expect_grep check.out "never dumped: flatten"
cat >layers.json <<EOF
{"dump": {"dump_path": "all", "dump_list": [{"model_name": "resnet_tiny",
          "layer": ["relu1", "flatten", "nosuch"]}], "dump_step": "0|3-5"}}
EOF
expect_exit 0 layers -- "$DUMP" check-config layers.json --model "$TD/resnet_tiny.om"
expect_grep layers.out "iterations: steps 0|3-5"
expect_grep layers.out "estimated per dumped iteration: 2 files"
expect_grep layers.out "layer 'flatten' of model 'resnet_tiny' (file 'resnet_tiny') is a no-task Flatten node"
expect_grep layers.out "layer 'nosuch' matches no operator"
mkdir -p watch
cat >watcher.json <<EOF
{"dump": {"dump_path": "watch", "dump_scene": "watcher",
          "dump_list": [{"layer": ["conv1bn1relu1", "pool1"], "watcher_nodes": ["add1", "relu1"]}]}}
EOF
expect_exit 0 watcher -- "$DUMP" check-config watcher.json --model "$TD/resnet_tiny.om"
expect_grep watcher.out "watcher dump of the outputs of add1, relu1 after each of conv1bn1relu1, pool1 runs"
expect_grep watcher.out "selected by dump_scene watcher (1 watcher nodes, 2 layers)"
expect_grep watcher.out "pool1_To_add1"
expect_grep watcher.out "estimated per dumped iteration: 3 files"
expect_grep watcher.out "watcher node 'relu1' of model 'resnet_tiny' was fused into operator 'conv1bn1relu1'"
expect_exit 0 watcher_run -- "$DUMP" run -m "$TD/resnet_tiny.om" -c watcher.json --iterations 1
WATCH=$(echo "$WORK"/watch/2*/0/resnet_tiny/*/0)
[[ $(count_files "$WATCH") == 3 ]] || fail "the watcher wrote $(count_files "$WATCH") files"
[[ -n $(find "$WATCH" -name 'Add.pool1_To_add1.1.0.*') ]] || fail "no pool1_To_add1 file"
(cd "$RUNFILES" && "$DUMP" check-config testdata/configs/bad/mode_invalid.json \
  >"$WORK/invalid.out" 2>"$WORK/invalid.err") && fail "invalid config accepted" || true
expect_grep invalid.err "dump.dump_mode: invalid dump_mode 'outputs'"
expect_grep invalid.err "[aclmdlSetDump returns ACL_ERROR_INVALID_DUMP_CONFIG (100009)]"
expect_grep invalid.err "hint: "
[[ $(wc -l <invalid.err) == 2 ]] || fail "an error is one line plus a hint"
expect_exit 1 missing_config -- "$DUMP" check-config no_such.json
expect_grep missing_config.err "ACL_ERROR_INVALID_FILE (100003)"

echo "== ls / show"
expect_exit 0 ls -- "$DUMP" ls default/acldump_output
expect_grep ls.out "resnet_tiny/  (model)"
expect_grep ls.out "0/  (iteration)  15 files"
expect_grep ls.out "conv1bn1relu1  tensor"
expect_grep ls.out "3 other files (not dump files): acl.json, outputs/resnet_tiny.output.fc.npy"
expect_exit 0 ls_summary -- "$DUMP" ls default/acldump_output --summary
expect_no_grep ls_summary.out "Conv.conv1bn1relu1"
expect_exit 0 show -- "$DUMP" show "$(echo "$ITER0"/Conv.conv1bn1relu1.*)" --head 4
expect_grep show.out "op       conv1bn1relu1  (type Conv)"
expect_grep show.out "original conv1,bn1,relu1"
expect_grep show.out "output 0: DT_FLOAT  NCHW  shape [1,16,32,32]"
expect_grep show.out "original op relu1:0"
expect_grep show.out "count 16384  min 0"
expect_grep show.out "first 4:"
expect_exit 0 show_json -- "$DUMP" show "$(echo "$ITER0"/Conv.conv1bn1relu1.*)" --json
/usr/bin/python3 - show_json.out <<'PYEOF2' || fail "show --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "acldump.show/1" and d["op"] == "conv1bn1relu1", d
assert d["original_names"] == ["conv1", "bn1", "relu1"], d["original_names"]
assert d["outputs"][0]["shape"] == [1, 16, 32, 32] and d["outputs"][0]["stats"]["count"] == 16384
PYEOF2

echo "== help, and a tool that speaks the name it was installed under"
expect_exit 0 help_show -- "$DUMP" help show
expect_grep help_show.out "--json"
expect_exit 2 help_unknown -- "$DUMP" help frobnicate
expect_grep help_unknown.err "help: error: no command 'frobnicate'"
mkdir -p installed && ln -sf "$DUMP" installed/acldump
expect_exit 0 installed_help -- installed/acldump help compare
expect_grep installed_help.out "Example: installed/acldump compare"
expect_no_grep installed_help.out "bazel run"
expect_exit 2 installed_error -- installed/acldump show
expect_grep installed_error.err "acldump show: error: FILE is required"
expect_grep installed_error.err "see \`installed/acldump help show\`"
expect_exit 1 installed_hint -- installed/acldump show no_such_file
expect_grep installed_hint.err "\`acldump ls DIR\` lists them"
expect_no_grep installed_hint.err "\`dump ls"
expect_exit 0 installed_compare_help -- installed/acldump help compare
expect_grep installed_compare_help.out "(\`acldump reference\`"
expect_exit 1 show_bad -- "$DUMP" show default/acldump_output/acl.json
expect_grep show_bad.err "dump show: error:"

echo "== convert"
expect_exit 0 convert -- "$DUMP" convert "$ITER0" --out npy0
expect_grep convert.out "converted 15 dump files to 15 .npy files"
[[ $(find npy0 -name '*.output.0.npy' | wc -l) == 15 ]] || fail "convert wrote the wrong files"
# The converted folder is a valid B for compare, matched by converted name.
expect_exit 0 converted -- "$DUMP" compare "$ITER0" npy0 --atol 0 --rtol 0
expect_grep converted.out "15 tensors compared, 0 outside"

echo "== stats (a stats dump), convert --to csv"
config stats.json st all stats
expect_exit 0 stats_run -- "$DUMP" run -m "$TD/resnet_tiny.om" -c stats.json -n 2 \
  -i "$TD/resnet_tiny.input.input.npy"
expect_exit 0 stats -- "$DUMP" stats st --csv merged.csv --top 3
expect_grep stats.out "stats of 90 tensors from 30 files"
expect_grep stats.out "NaN/Inf: none"
expect_grep stats.out "operators ranked by NaN/Inf count, then largest |value| (top 3 of 15)"
[[ $(wc -l <merged.csv) == 91 ]] || fail "merged.csv has $(wc -l <merged.csv) lines"
expect_exit 0 to_csv -- "$DUMP" convert st --to csv --out st.csv
expect_grep to_csv.out "wrote 90 rows (30 stats CSV, 0 tensor dumps)"
cmp -s merged.csv st.csv || fail "stats --csv and convert --to csv differ"
# A stats dump compares with the tensors of the same run by statistics (no checksum column).
expect_exit 0 compare_stats -- "$DUMP" compare st "$ITER0"
expect_grep compare_stats.out "compared by: checksum where both sides have one"
expect_grep compare_stats.out "15 tensors compared, 0 outside the tolerance"
# The tensors' statistics are rounded as the stats writer rounds them: equal, even with no
# tolerance.
expect_exit 0 compare_stats_exact -- "$DUMP" compare "$ITER0" st --by stats --atol 0 --rtol 0
expect_grep compare_stats_exact.out "15 tensors compared, 0 outside the tolerance"
expect_exit 2 compare_by_tensors -- "$DUMP" compare "$ITER0" st --by tensors
expect_grep compare_by_tensors.err "holds stats dumps only"
expect_exit 2 compare_by_bad -- "$DUMP" compare "$ITER0" st --by bytes
expect_grep compare_by_bad.err "--by bytes is not one of auto, tensors, stats, checksum"
expect_exit 2 compare_stat_tol_bad -- "$DUMP" compare "$ITER0" st --stat-tolerance Nan=1
expect_grep compare_stat_tol_bad.err "counts and checksums compare exactly"

echo "== checksums: equal across thread counts and layouts; one ulp is a difference"
for layout in sdk packed; do
  for threads in 1 2; do
    config "sums_$layout$threads.json" "sums_$layout$threads" all checksum \
      ", \"dump_layout\": \"$layout\""
    ACLDUMP_INTRA_OP_THREADS=$threads expect_exit 0 "sums_run_$layout$threads" -- \
      "$DUMP" run -m "$TD/resnet_tiny.om" -c "sums_$layout$threads.json" \
      -i "$TD/resnet_tiny.input.input.npy"
  done
done
for other in sums_sdk2 sums_packed1 sums_packed2; do
  expect_exit 0 "sums_vs_$other" -- "$DUMP" compare sums_sdk1 "$other" --atol 0 --rtol 0
  expect_grep "sums_vs_$other.out" "0 outside the tolerance -> PASS"
done
# Against the tensors of the default run (outputs): their checksums are computed.
expect_exit 0 sums_vs_tensors -- "$DUMP" compare sums_sdk1 "$ITER0"
expect_grep sums_vs_tensors.out "15 tensors compared, 0 outside the tolerance"
# The lowest bit of add2's last output element (the last 4 bytes of its file).
cp -r "$ITER0" ulp
add2=$(echo ulp/Add.add2.*)
size=$(stat -c %s "$add2")
last=$(od -An -t u1 -j $((size - 4)) -N 1 "$add2" | tr -d ' ')
printf "\\$(printf '%03o' $((last ^ 1)))" |
  dd of="$add2" bs=1 seek=$((size - 4)) conv=notrunc status=none
expect_exit 1 sums_ulp -- "$DUMP" compare sums_sdk1 ulp
expect_grep sums_ulp.out "first diverging operator: add2 (Add, task 9)"
expect_grep sums_ulp.out "output 0 is not (Checksum "
# A checksum dump holds no statistics to compare by.
expect_exit 1 sums_ulp_stats -- "$DUMP" compare sums_sdk1 ulp --by stats
expect_grep sums_ulp_stats.out "no statistic recorded on both sides"

echo "== baseline diff while running: nothing written when equal, the departure named"
cat >bdiff_same.json <<EOF
{"dump": {"dump_path": "bdiff_same", "dump_list": [{"model_name": "resnet_tiny"}],
          "dump_baseline": "sums_sdk1"}}
EOF
mkdir -p bdiff_same
expect_exit 0 bdiff_same -- "$DUMP" run -m "$TD/resnet_tiny.om" -c bdiff_same.json \
  -i "$TD/resnet_tiny.input.input.npy"
expect_grep bdiff_same.out "compared with the baseline"
expect_grep bdiff_same.out "baseline     every compared operator matches"
[[ $(find bdiff_same -type f -not -name acl.json | wc -l) == 0 ]] ||
  fail "a run equal to its baseline wrote $(find bdiff_same -type f | head -3)"
cp "$TD/resnet_tiny.input.input.npy" other_input.npy
perturb other_input.npy
cat >bdiff_other.json <<EOF
{"dump": {"dump_path": "bdiff_other", "dump_list": [{"model_name": "resnet_tiny"}],
          "dump_baseline": "sums_packed1", "dump_baseline_tensors": "2"}}
EOF
mkdir -p bdiff_other
expect_exit 0 bdiff_other -- "$DUMP" run -m "$TD/resnet_tiny.om" -c bdiff_other.json \
  -i other_input.npy
expect_grep bdiff_other.out "resnet_tiny (iteration 0) departs at 'input' (Data, output 0: Checksum"
expect_grep bdiff_other.out "tensors of 2 written"
[[ $(find bdiff_other -name baseline_diff.json | wc -l) == 1 ]] || fail "no baseline_diff.json"
# The tensors written are ordinary dump files: the tools read them.
expect_exit 0 bdiff_ls -- "$DUMP" ls bdiff_other
expect_grep bdiff_ls.out "Data"
# A baseline of another model is refused at load, by name.
cat >bdiff_bad.json <<EOF
{"dump": {"dump_path": "bdiff_other", "dump_list": [{"model_name": "mlp_block"}],
          "dump_baseline": "sums_sdk1"}}
EOF
expect_exit 1 bdiff_bad -- "$DUMP" run -m "$TD/mlp_block.om" -c bdiff_bad.json
expect_grep bdiff_bad.err "holds no run of model 'mlp_block'"

echo "== replay: an operator from its dump, bit for bit, and against float64"
config replay_all.json replay_all all tensor
expect_exit 0 replay_run -- "$DUMP" run -m "$TD/resnet_tiny.onnx" -c replay_all.json \
  -i "$TD/resnet_tiny.input.input.npy"
conv=$(echo replay_all/2*/0/resnet_tiny/*/0/Conv.conv1bn1relu1.*)
expect_exit 0 replay -- "$DUMP" replay "$conv" -m "$TD/resnet_tiny.onnx" --json replay.json
expect_grep replay.out "replay of conv1bn1relu1 (Conv; from conv1, bn1, relu1)"
expect_grep replay.out "fused kernel vs dump     reproduced bit for bit"
expect_grep replay.out "float64    conv1, bn1, relu1"
expect_grep replay.json '"reproduced": true'
# A dump of outputs only cannot be replayed, and says what to dump.
expect_exit 1 replay_outputs_only -- "$DUMP" replay "$(echo "$ITER0"/Conv.conv1bn1relu1.*)" \
  -m "$TD/resnet_tiny.onnx"
expect_grep replay_outputs_only.err 'replay needs a dump of "dump_mode": "all"'

echo "== locate: bisection to the first operator outside the tolerance"
expect_exit 0 locate_clean -- "$DUMP" locate -m "$TD/resnet_tiny.onnx" \
  -i "$TD/resnet_tiny.input.input.npy" --engine acldump-unfused
expect_grep locate_clean.out "nothing departs"
# At a tolerance below float32 rounding, the first operator already departs:
# found in ceil(log2(14)) + 1 = 5 runs.
expect_exit 1 locate_tight -- "$DUMP" locate -m "$TD/resnet_tiny.onnx" \
  -i "$TD/resnet_tiny.input.input.npy" --engine acldump-unfused --atol 1e-9 --rtol 0 \
  --json locate.json
expect_grep locate_tight.out "first operator outside the tolerance: conv1bn1relu1 (Conv, position 0)"
expect_grep locate_tight.out "found in 5 runs"
expect_grep locate.json '"schema": "acldump.locate/1"'
expect_exit 2 locate_om -- "$DUMP" locate -m "$TD/resnet_tiny.om"
expect_grep locate_om.err "is not an ONNX model"

echo "== help and usage errors"
for command in run check-config ls show convert compare stats replay locate; do
  expect_exit 0 "help_$command" -- "$DUMP" "$command" --help
  expect_grep "help_$command.out" "Example: $DUMP $command"
done
expect_exit 0 help -- "$DUMP" --help
expect_grep help.out "Workflow:"
expect_exit 2 no_args -- "$DUMP" compare
expect_grep no_args.err "dump compare: error: A is required"
expect_grep no_args.err "hint: see \`dump help compare\`"
expect_exit 2 bad_option -- "$DUMP" run --model x.om --config c.json --frobnicate
expect_exit 2 bad_command -- "$DUMP" frobnicate
expect_exit 2 bad_metric -- "$DUMP" compare "$ITER0" "$ITER1" --metrics cosine,nope
expect_grep bad_metric.err "unknown metric 'nope'"
expect_exit 2 compare_missing -- "$DUMP" compare no_such_dir "$ITER1"
expect_exit 1 ls_missing -- "$DUMP" ls no_such_dir
expect_grep ls_missing.err "hint:"
expect_exit 1 run_missing_model -- "$DUMP" run -m no_such.om -c all.json
expect_grep run_missing_model.err "model file 'no_such.om' does not exist"
expect_exit 1 run_bad_input -- "$DUMP" run -m "$TD/resnet_tiny.om" -c all.json \
  -i "$TD/mlp_block.input.x.npy"
expect_grep run_bad_input.err "input 'input' is float32[1,3,32,32] but"

echo "== convert: dynamic batch and image size gears"
expect_exit 0 gears -- "$CONVERT" "$TD/ocr_tiny.onnx" gears.om \
  --input-shape "x:-1,3,16,16" --dynamic-batch-size 1,2,4 --json gears.json
expect_grep gears.out "converted 'ocr_tiny': 3 batch gears [1] [2] [4] -> gears.om"
expect_grep gears.json '"gear_kind": "batch"'
expect_exit 0 hw_gears -- "$CONVERT" "$TD/ocr_tiny.onnx" hw.om \
  --input-shape "x:1,3,-1,-1" --dynamic-image-size "16,16;32,24"
expect_grep hw_gears.out "2 image size gears [16,16] [32,24]"
expect_exit 2 gears_one -- "$CONVERT" "$TD/ocr_tiny.onnx" bad.om \
  --input-shape "x:-1,3,16,16" --dynamic-batch-size 4
expect_grep gears_one.err '--dynamic-batch-size "4": 1 gear given; give 2 to 100'
expect_exit 2 gears_both -- "$CONVERT" "$TD/ocr_tiny.onnx" bad.om \
  --dynamic-batch-size 1,2 --dynamic-image-size "16,16;32,32"
expect_exit 1 gears_where -- "$CONVERT" "$TD/ocr_tiny.onnx" bad.om \
  --dynamic-batch-size 1,2
expect_grep gears_where.err "input 'x' [-1,3,-1,-1]: with dynamic batch sizes only dimension 0"
expect_exit 1 minus_one -- "$CONVERT" "$TD/ocr_tiny.onnx" bad.om --input-shape "x:-1,3,16,16"
expect_grep minus_one.err "= -1 (dynamic), which needs --dynamic-batch-size"
[[ ! -e bad.om ]] || fail "a failed conversion wrote bad.om"
expect_exit 1 run_gears -- "$DUMP" run -m gears.om -c all.json
expect_grep run_gears.err "is a dynamic model (3 batch gears); the tools run static models"

echo "== a list built in a Loop: unrolled at convert time, each iteration dumped"
expect_exit 0 list_loop -- "$CONVERT" "$TD/list_loop.onnx" list_loop.om
mkdir -p list_dump
cat >list_loop.json <<EOF
{"dump": {"dump_path": "$WORK/list_dump", "dump_mode": "output",
          "dump_list": [{"model_name": "list_loop", "layer": ["add"]}]}}
EOF
expect_exit 0 list_loop_run -- "$DUMP" run -m list_loop.om -c list_loop.json -n 1
LIST_ITER=$(echo "$WORK"/list_dump/2*/0/list_loop/*/0)
for i in 0 1 2; do
  [[ $(count_files "$LIST_ITER" -name "Add.loop_body_${i}_add.*") == 1 ]] ||
    fail "iteration $i of the unrolled loop body was not dumped"
done
expect_exit 0 list_loop_show -- "$DUMP" show "$LIST_ITER"/Add.loop_body_2_add.*
expect_grep list_loop_show.out "op       loop/body/2/add  (type Add)"
expect_grep list_loop_show.out "original add,loop/body/add"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all checks passed"
