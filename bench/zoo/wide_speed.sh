#!/usr/bin/env bash
# The wide zoo's speed against ONNX Runtime. One command:
#   bench/zoo/wide_speed.sh [WORK_DIR]
# times every model of the wide zoo (wide.sh's models; exported and converted into WORK_DIR when
# not there yet) with both engines at 1 and 2 intra-op threads, their first-run latency and peak
# memory in fresh processes, what dumping every output costs in the packed layout, and where each
# model's time goes by op type; the table goes into bench/README.md (wide_speed.py says how).
# WIDE_MODELS=a,b times only those: their rows replace theirs in WORK_DIR/wide-speed.json and the
# README's table is rewritten from it. WIDE_SPEED_ARGS passes options to wide_speed.py (e.g.
# "--rounds 1 --seconds 0.3" for a quick look). Run it on a calm machine: nothing else running.
#
# Needs (installed when missing; not part of CI): as wide.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Sets $work (the first argument), $deps, $python, $bin and $all_models.
source "$root/bench/zoo/wide_prepare.sh"

models="${WIDE_MODELS:-$all_models}"
# shellcheck disable=SC2086
"$python" "$root/bench/zoo/wide_speed.py" --work "$work" --bin "$bin" \
  --node-path "$deps/node_modules" --models "$models" --readme "$root/bench/README.md" \
  ${WIDE_SPEED_ARGS:-}
