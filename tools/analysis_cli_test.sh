#!/usr/bin/env bash
# End-to-end tests of the analysis workflow on the bundled model: whole-tree
# compare of multi-iteration runs, runs that select nothing, machine-readable
# results, the filters of compare / stats / ls / convert, and references made
# by `dump reference`.
set -euo pipefail

RUNFILES="${TEST_SRCDIR}/acldump"
DUMP="$RUNFILES/tools/dump"
TD="$RUNFILES/testdata"
PYTHON=/usr/bin/python3
WORK="${TEST_TMPDIR}/analysis"
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"

source "$RUNFILES/tools/cli_test_lib.sh"
config() {  # config FILE DUMP_PATH [extra json in the dump section] [extra json in the list item]
  mkdir -p "$2"
  cat >"$1" <<EOF
{"dump": {"dump_path": "$2", "dump_list": [{"model_name": "resnet_tiny"${4:-}}]${3:-}}}
EOF
}
# Overwrites the last 64 bytes (the last output's tail) with 10.0f values.
perturb() {
  local size
  size=$(stat -c %s "$1")
  printf '\x00\x00\x20\x41%.0s' {1..16} |
    dd of="$1" bs=1 seek=$((size - 64)) conv=notrunc status=none
}
MODEL="$TD/resnet_tiny.onnx"
INPUT="$TD/resnet_tiny.input.input.npy"

echo "== compare two run roots of a 3-iteration run, a difference planted in iteration 1"
config a.json a
expect_exit 0 run_a -- "$DUMP" run -m "$MODEL" -c a.json -i "$INPUT" --iterations 3
cp -r a b
perturb "$(echo b/2*/0/resnet_tiny/1/1/Add.add2.*)"
expect_exit 0 same -- "$DUMP" compare a a
expect_grep same.out "result: 45 tensors compared in 3 folder pairs, 0 outside the tolerance -> PASS"
expect_exit 1 tree -- "$DUMP" compare a b
expect_grep tree.out "folder pairs (3):"
expect_grep tree.out "first diverging operator: in resnet_tiny (id 1) iteration 1, device 0: add2 (Add, task 9)"
expect_grep tree.out "result: 45 tensors compared in 3 folder pairs, 1 outside the tolerance -> FAIL"
expect_no_grep tree.out "PASS"
# Planted in iterations 2 and 0 as well: the first by iteration is named.
cp -r b c
perturb "$(echo c/2*/0/resnet_tiny/1/2/Conv.conv3bn3.*)"
expect_exit 1 tree2 -- "$DUMP" compare a c
expect_grep tree2.out "2 outside the tolerance"
expect_grep tree2.out "first diverging operator: in resnet_tiny (id 1) iteration 1, device 0: add2"
perturb "$(echo c/2*/0/resnet_tiny/1/0/Relu.relu_add1.*)"
expect_exit 1 tree3 -- "$DUMP" compare a c
expect_grep tree3.out "first diverging operator: in resnet_tiny (id 1) iteration 0, device 0: relu_add1 (Relu"
# A difference only in the last iteration still fails the whole tree.
cp -r a d
perturb "$(echo d/2*/0/resnet_tiny/1/2/Relu.relu_add2.*)"
expect_exit 1 last -- "$DUMP" compare a d
expect_grep last.out "iteration 2, device 0: relu_add2 (Relu"
# Folders on one side only are named; the pairs present are still compared.
rm -r b/2*/0/resnet_tiny/1/2
expect_exit 1 one_side -- "$DUMP" compare a b
expect_grep one_side.out "folders only in A (1): resnet_tiny (id 1) iteration 2, device 0"
expect_grep one_side.out "30 tensors compared in 2 folder pairs, 1 outside the tolerance -> FAIL"

echo "== two devices, the second run in the same second (its time folder gets _1)"
config dv.json dv
config dv1.json dv1
expect_exit 0 run_dv0 -- "$DUMP" run -m "$MODEL" -c dv.json -i "$INPUT" --iterations 2 --device 0
expect_exit 0 run_dv1 -- "$DUMP" run -m "$MODEL" -c dv1.json -i "$INPUT" --iterations 2 --device 1
T=$(ls dv)
mv "dv1/$(ls dv1)" "dv/${T}_1"
expect_exit 0 ls_dv -- "$DUMP" ls dv --summary
expect_no_grep ls_dv.out "not in the dump layout"
expect_grep ls_dv.out "${T}_1/  (time)  30 files"
cp -r dv dv2
perturb "$(echo dv2/"${T}"_1/1/resnet_tiny/1/1/Add.add2.*)"
expect_exit 1 devices -- "$DUMP" compare dv dv2
expect_grep devices.out "A: dv (4 folders, 60 operators)"
expect_grep devices.out "60 tensors compared in 4 folder pairs, 1 outside the tolerance -> FAIL"
expect_grep devices.out "first diverging operator: in resnet_tiny (id 1) iteration 1, device 1: add2 (Add"
# The same folders in two time folders: the later one ({time}_1) is compared, with a note.
mkdir later && cp -r "a/$(ls a)" "later/$(ls a)" && cp -r "d/$(ls d)" "later/$(ls a)_1"
expect_exit 1 latest -- "$DUMP" compare later a
expect_grep latest.out "the latest of each is compared, not those in $(ls a)"
expect_grep latest.out "iteration 2, device 0: relu_add2"

echo "== machine-readable compare results"
expect_exit 1 json -- "$DUMP" compare a b --json result.json --csv result.csv
expect_json result.json 'j["schema"]' "acldump.compare/1"
expect_json result.json 'j["verdict"], j["exit_code"]' "('fail', 1)"
expect_json result.json 'j["first_divergence"]["name"], j["first_divergence"]["folder"]["iteration"]' "('add2', 1)"
expect_json result.json 'len(j["pairs"]), [f["iteration"] for f in j["only_in_a"]]' "(2, [2])"
expect_json result.json 'j["tensors_compared"], j["tensors_outside"]' "(30, 1)"
head -1 result.csv >header.csv
expect_grep header.csv "pair,model,model_id,iteration,device,folder_a,folder_b,op_index,task,op,type,match,b_op,tensor,b_tensor,status,problem,shape_a,shape_b,dtype_a,dtype_b,count,ignored,violations,cosine,max_abs"
expect_grep header.csv "worst_index,worst_a,worst_b,first_divergence"
[[ $(($(wc -l <result.csv) - 1)) == 30 ]] || fail "result.csv holds $(($(wc -l <result.csv) - 1)) rows, expected 30"
[[ $(grep -c ',outside,' result.csv) == 1 ]] || fail "result.csv: not one row outside"
grep -q '^1,resnet_tiny,1,1,0,.*,add2,Add,.*,outside,.*,1,tensors,$' result.csv || fail "result.csv: add2 of iteration 1 not the first divergence"
# --json - is the only thing on stdout.
expect_exit 1 json_stdout -- "$DUMP" compare a b --json -
expect_json json_stdout.out 'j["exit_code"]' "1"

echo "== filters: --op-type, --match, --iterations"
expect_exit 0 f_iter -- "$DUMP" compare a b --iterations 0
expect_grep f_iter.out "15 tensors compared, 0 outside the tolerance -> PASS"
expect_exit 1 f_iter1 -- "$DUMP" compare a b --iterations 1-2
expect_grep f_iter1.out "15 tensors compared, 1 outside"
expect_exit 0 f_type -- "$DUMP" compare a b --op-type Conv,Relu
expect_grep f_type.out "tensors compared in 2 folder pairs, 0 outside the tolerance -> PASS"
expect_no_grep f_type.out "add2"
expect_exit 1 f_match -- "$DUMP" compare a b --match '^add'
expect_grep f_match.out "4 tensors compared in 2 folder pairs, 1 outside"
expect_exit 2 f_typo -- "$DUMP" compare a b --op-type Conf
expect_grep f_typo.err "did you mean 'Conv' for 'Conf'?"
expect_exit 2 f_none -- "$DUMP" compare a b --iterations 7
expect_grep f_none.err "no dump folder of iteration 7 (iterations present: 0,1,2)"
expect_exit 2 f_regex -- "$DUMP" compare a b --match '('
config l.json l
expect_exit 0 run_l -- "$DUMP" run -m "$MODEL" -c l.json --iterations 12
# Run without --input (random numbers) against references made from the bundled input: the
# graph input is named as the first divergence, with the fix.
expect_exit 1 random_vs_reference -- "$DUMP" compare l/2*/0/resnet_tiny/1/0 "$TD/reference/resnet_tiny"
expect_grep random_vs_reference.out "first diverging operator: input (Data, task 0)"
expect_grep random_vs_reference.out "this is a graph input: the two sides ran on different inputs (give both the same one, e.g. \`dump run --input\`)"
# The run's summary lists a few folders, not every iteration.
expect_grep run_l.out "... 8 more folders ..."
[[ $(wc -l <run_l.out) -le 14 ]] || fail "the summary of 12 iterations has $(wc -l <run_l.out) lines"
expect_exit 0 ls_summary -- "$DUMP" ls l --summary
expect_grep ls_summary.out "iterations 0-11  (12 folders)  180 files"
[[ $(wc -l <ls_summary.out) -le 8 ]] || fail "ls --summary of 12 iterations prints $(wc -l <ls_summary.out) lines"
expect_exit 0 ls_filter -- "$DUMP" ls l --summary --iterations 3-5 --op-type Conv
expect_grep ls_filter.out "l: 18 dump files"
expect_grep ls_filter.out "iterations 3-5  (3 folders)  18 files"
for command in ls stats convert; do
  expect_exit 1 "${command}_typo" -- "$DUMP" "$command" a --op-type Conf
  expect_grep "${command}_typo.err" "did you mean 'Conv' for 'Conf'?"
done
expect_exit 0 convert_filter -- "$DUMP" convert l --out npy --match 'relu' --iterations 2
n=$(find npy -name '*.npy' | wc -l)
[[ $n == 5 ]] || fail "convert --match relu --iterations 2 wrote $n arrays, expected 5"
find npy -name '*.npy' | grep -q '/2/Relu.relu_add1' || fail "convert: no relu_add1 of iteration 2"
config st.json st ', "dump_data": "stats"'
expect_exit 0 run_st -- "$DUMP" run -m "$MODEL" -c st.json -i "$INPUT" --iterations 3
expect_exit 0 stats_json -- "$DUMP" stats st --json stats.json --op-type Relu --iterations 1-2
expect_json stats.json 'j["schema"]' "acldump.stats/1"
expect_json stats.json 'sorted({r["op_type"] for r in j["rows"]}), sorted({r["iteration"] for r in j["rows"]})' "(['Relu'], [1, 2])"
expect_json stats.json 'len(j["rows"])' "4"
expect_json stats.json 'sorted(j["rows"][0].keys())' "['avg', 'data_type', 'device', 'file', 'index', 'io', 'iteration', 'max', 'min', 'model', 'model_id', 'nan', 'negative_inf', 'op_name', 'op_type', 'positive_inf', 'shape', 'stream', 'task', 'time', 'timestamp']"

echo "== run progress: on a terminal only, erased at the end"
expect_no_grep run_l.err $'\r'
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  ACLDUMP_PROGRESS_DELAY_MS=0 script -qec "'$DUMP' run -m '$MODEL' -c l.json --iterations 20 >/dev/null" \
    /dev/null >tty.txt || true
  expect_grep tty.txt "run resnet_tiny: iteration 1/20, 15 files, 197.7 KiB dumped,"
  expect_grep tty.txt " it/s"
  [[ "$(tail -c 4 tty.txt | od -An -tx1 | tr -d ' \n')" == "0d1b5b4b" ]] ||
    fail "the progress line is not erased at the end: $(tail -c 40 tty.txt | od -c | head -3)"
else
  echo "(no pseudo-terminal here: progress line not checked)"
fi

echo "== runs that select nothing: exit 3, the reason, the nearest names"
config typo.json typo '' ', "layer": ["conv3bn"]'
expect_exit 3 typo -- "$DUMP" run -m "$MODEL" -c typo.json
expect_grep typo.out "layer 'conv3bn' matches no operator of model 'resnet_tiny' (file 'resnet_tiny'); did you mean 'conv3bn3'"
expect_grep typo.out "dump files   none: nothing was dumped because"
expect_grep typo.err "the dump config selected nothing this run executes"
[[ -z "$(ls -A typo)" ]] || fail "a run that dumped nothing left $(ls -A typo)"
mkdir wrong
echo '{"dump": {"dump_path": "wrong", "dump_list": [{"model_name": "resnet"}]}}' >wrong.json
expect_exit 3 wrong_model -- "$DUMP" run -m "$MODEL" -c wrong.json
expect_grep wrong_model.out "no dump_list entry names this model"
expect_grep wrong_model.out "did you mean 'resnet_tiny' for 'resnet'?"
config step.json step ', "dump_step": "5"'
expect_exit 3 step -- "$DUMP" run -m "$MODEL" -c step.json --iterations 2
expect_grep step.out "dump_step '5' selects none of the iterations run (0-1"

echo "== check-config creates nothing on disk, also as JSON"
config check.json check '' ', "layer": ["conv3bn"]'
expect_exit 0 check -- "$DUMP" check-config check.json --model "$MODEL" --json check_result.json
expect_json check_result.json 'j["schema"], j["valid"], j["acl_error_name"]' "('acldump.check-config/1', True, 'ACL_SUCCESS')"
expect_json check_result.json 'j["plan"]["selected"]' "False"
expect_json check_result.json '"conv3bn3" in j["warnings"][0]' "True"
config check2.json check
expect_exit 0 check2 -- "$DUMP" check-config check2.json --model "$MODEL" --json -
expect_json check2.out 'j["plan"]["files_per_iteration"], j["plan"]["selected"]' "(15, True)"
echo '{"dump": {"dump_path": "check", "dump_mode": "everything"}}' >invalid.json
expect_exit 1 invalid -- "$DUMP" check-config invalid.json --json invalid_result.json
expect_json invalid_result.json 'j["valid"], j["acl_error"], j["acl_error_name"], j["plan"]' \
  "(False, 100009, 'ACL_ERROR_INVALID_DUMP_CONFIG', None)"
expect_json invalid_result.json '"dump.dump_mode" in j["message"]' "True"
[[ -z "$(ls -A check)" ]] || fail "check-config created $(ls -A check)"
# The next run writes into a time folder of the layout, not {time}_1.
expect_exit 0 after_check -- "$DUMP" run -m "$MODEL" -c check2.json
expect_exit 0 after_check_ls -- "$DUMP" ls check
expect_no_grep after_check_ls.out "not in the dump layout"
ls check | grep -qE '^[0-9]{14}$' || fail "time folder after check-config: $(ls check)"

echo "== dump reference: every node's outputs, read back by compare"
expect_exit 0 reference -- "$DUMP" reference --model "$MODEL" --input "$INPUT" --out ref \
  --engine acldump-unfused
expect_grep reference.out "wrote    25 .npy files (24 nodes and the inputs)"
[[ -f ref/relu1.output.0.npy && -f ref/input.output.0.npy ]] || fail "reference names: $(ls ref | head -5)"
expect_exit 0 vs_reference -- "$DUMP" compare a ref
expect_grep vs_reference.out "45 tensors compared in 3 folder pairs, 0 outside the tolerance -> PASS"
expect_exit 1 vs_reference_b -- "$DUMP" compare b ref
expect_grep vs_reference_b.out "iteration 1, device 0: add2 (Add"
# Without onnxruntime-node the exact install command is printed (auto falls back).
expect_exit 0 reference_auto -- "$DUMP" reference --model "$MODEL" --input "$INPUT" --out ref2 \
  --ort-dir "$WORK/no_node_modules"
expect_grep reference_auto.out "npm install --ignore-scripts onnxruntime-node"
expect_exit 1 reference_ort -- "$DUMP" reference --model "$MODEL" --input "$INPUT" --out ref3 \
  --engine onnxruntime --ort-dir "$WORK/no_node_modules"
expect_grep reference_ort.err "npm install --ignore-scripts onnxruntime-node"
# References named as other tools name them: {op}.output.{i}.{timestamp}.npy, and one .npz.
mkdir ts
for f in ref/*.output.0.npy; do
  cp "$f" "ts/$(basename "$f" .npy).1700000000000.npy"
done
expect_exit 0 vs_ts -- "$DUMP" compare a/2*/0/resnet_tiny/1/0 ts
expect_grep vs_ts.out "15 tensors compared, 0 outside the tolerance -> PASS"
(cd ref && "$PYTHON" -c 'import glob, numpy as np; np.savez_compressed("../ref.npz", **{f[:-4]: np.load(f) for f in glob.glob("*.npy")})')
expect_exit 0 vs_npz -- "$DUMP" compare a/2*/0/resnet_tiny/1/0 ref.npz
expect_grep vs_npz.out "15 tensors compared, 0 outside the tolerance -> PASS"
# Fortran-ordered arrays are read as what they hold.
mkdir fortran
"$PYTHON" -c 'import glob, os, numpy as np
for f in glob.glob("ref/*.npy"):
    np.save("fortran/" + os.path.basename(f), np.asfortranarray(np.load(f)))'
expect_exit 0 vs_fortran -- "$DUMP" compare a/2*/0/resnet_tiny/1/0 fortran
expect_grep vs_fortran.out "15 tensors compared, 0 outside the tolerance -> PASS"

# The bundled mlp_block references hold a Fortran-ordered array (keys_t.npy): no divergence.
mkdir mb
echo '{"dump": {"dump_path": "mb", "dump_list": [{"model_name": "mlp_block"}]}}' >mb.json
expect_exit 0 run_mb -- "$DUMP" run -m "$TD/mlp_block.onnx" -c mb.json -i "$TD/mlp_block.input.x.npy"
expect_exit 0 vs_mlp -- "$DUMP" compare mb "$TD/reference/mlp_block"
expect_grep vs_mlp.out "keys_t"
expect_grep vs_mlp.out "result: 12 tensors compared, 0 outside the tolerance -> PASS"

# A QDQ copy of mlp_block (uint8 activations, int8 per-column weights into fc1 and fc2): its 8-bit
# tensors dump and compare exactly with PyTorch's, and compared with the float model operator by
# original name, the first divergence is the first quantized layer.
mkdir qdq qdq_stats
echo '{"dump": {"dump_path": "qdq", "dump_list": [{"model_name": "mlp_block_qdq"}]}}' >qdq.json
expect_exit 0 run_qdq -- "$DUMP" run -m "$TD/mlp_block_qdq.onnx" -c qdq.json \
  -i "$TD/mlp_block_qdq.input.x.npy"
expect_exit 0 qdq_vs_reference -- "$DUMP" compare qdq "$TD/reference/mlp_block_qdq"
grep -qE "fc1\.input_q +QuantizeLinear .* 8x32 +1 +0 +0 +0 +0 +ok" qdq_vs_reference.out ||
  fail "qdq_vs_reference.out: fc1.input_q (uint8) is not compared exactly"
expect_grep qdq_vs_reference.out "result: 16 tensors compared, 0 outside the tolerance -> PASS"
expect_exit 1 float_vs_qdq -- "$DUMP" compare mb qdq
expect_grep float_vs_qdq.out "operators of B not matched (4): fc1.input_q, fc1.input_dq, fc2.input_q, fc2.input_dq"
expect_grep float_vs_qdq.out "first diverging operator: fc1fc1_bias (Gemm"
echo '{"dump": {"dump_path": "qdq_stats", "dump_data": "stats", "dump_list": [{"model_name": "mlp_block_qdq"}]}}' >qdq_stats.json
expect_exit 0 run_qdq_stats -- "$DUMP" run -m "$TD/mlp_block_qdq.onnx" -c qdq_stats.json \
  -i "$TD/mlp_block_qdq.input.x.npy"
# The uint8 tensor's statistics (numpy over the reference: max 255, min 0, mean 124.05859375).
grep -h "^Output" qdq_stats/*/0/mlp_block_qdq/1/0/QuantizeLinear.fc1_input_q.*.csv >qdq_stats.row ||
  fail "no statistics file for fc1.input_q"
expect_grep qdq_stats.row "Output,0,256,DT_UINT8,ND,8x32,255,0,124.059,256,0,0,0"

# ONNX Runtime, when a folder where onnxruntime-node is installed is given
# (bazel test --test_env=ACLDUMP_ORT_DIR=DIR): the same references as the other engines.
if [[ -n "${ACLDUMP_ORT_DIR:-}" ]]; then
  expect_exit 0 reference_onnxruntime -- "$DUMP" reference --model "$MODEL" --input "$INPUT" \
    --out ort_ref --engine onnxruntime --ort-dir "$ACLDUMP_ORT_DIR"
  expect_grep reference_onnxruntime.out "engine   ONNX Runtime"
  expect_exit 0 vs_onnxruntime -- "$DUMP" compare a ort_ref
  expect_grep vs_onnxruntime.out "45 tensors compared in 3 folder pairs, 0 outside the tolerance -> PASS"
  expect_exit 0 ort_vs_unfused -- "$DUMP" compare ort_ref ref
else
  echo "(ACLDUMP_ORT_DIR not set: the onnxruntime engine is not exercised)"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all analysis checks passed"
