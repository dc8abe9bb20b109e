#!/usr/bin/env bash
# The wheel as a user meets it: installed with pip into a fresh virtual environment outside the
# workspace (nothing from Bazel's output folders on any path), then the README's Python example
# runs, and a script loads an .onnx model, dumps it and reads the dump back.
# Usage: wheel_consumer_test.sh <wheel> <version> <example.py> <resnet_tiny.om> <resnet_tiny.onnx>
#        <input.npy> <prob.npy> <acllite_style.py> <user-guide.md> <guide_commands.sh>
set -euo pipefail
wheel="$1"; version="$2"; example="$3"; om="$4"; onnx="$5"; input="$6"; prob="$7"; acllite="$8"
guide="$(realpath "$9")"; guide_script="$(realpath "${10}")"
work="$TEST_TMPDIR/wheel_consumer"
rm -rf "$work"; mkdir -p "$work/testdata"
cp "$wheel" "$work/"
cp "$example" "$om" "$onnx" "$input" "$prob" "$acllite" "$work/testdata/"
cd "$work"
clean() { env -i PATH=/usr/bin:/bin HOME="$work" LANG=C.UTF-8 PYTHONNOUSERSITE=1 "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# Debian's numpy is a system package; the wheel itself brings everything else.
clean /usr/bin/python3 -m venv --system-site-packages venv
clean venv/bin/pip install --no-index --no-cache-dir --quiet "$(basename "$wheel")" \
  || fail "pip install --no-index of the wheel"
[ "$(clean venv/bin/pip show acldump | sed -n 's/^Version: //p')" = "$version" ] || fail "pip show version"

echo "== the commands: acldump alone runs its bundled demo, acldump-convert the shipped model"
mkdir demo
(cd demo && clean ../venv/bin/acldump > out.txt 2>&1) || { cat demo/out.txt; fail "acldump without arguments"; }
grep -q "ran the bundled ResNet-style model" demo/out.txt || { cat demo/out.txt; fail "no demo summary"; }
[ "$(find demo/acldump_output/dump -type f -name 'Softmax.prob.*' | wc -l)" -eq 2 ] \
  || fail "the demo did not dump prob twice"
grep -q "Example: ../venv/bin/acldump" <(cd demo && clean ../venv/bin/acldump help ls) \
  || fail "the help does not name the installed command"
shared="$(clean venv/bin/python -c 'import sys; print(sys.prefix)')/share/acldump/testdata"
clean venv/bin/acldump-convert "$shared/resnet_tiny.onnx" converted.om > convert.txt \
  || { cat convert.txt; fail "acldump-convert of the shipped ONNX model"; }
grep -q "converted 'resnet_tiny'" convert.txt || fail "acldump-convert's summary"

echo "== the user guide's release commands, as written, from the environment's prefix"
prefix="$(clean venv/bin/python -c 'import sys; print(sys.prefix)')"
bash "$guide_script" "$guide" "$prefix" "$work/venv/bin" "$work" || fail "the user guide's release commands"

echo "== the README's example"
clean venv/bin/python testdata/example.py > example.txt 2>&1 || { cat example.txt; fail "example.py"; }
cat example.txt
grep -q "^prob (1, 10) sums to 1.0$" example.txt || fail "the example's prob"
grep -Eq "resnet_tiny/[0-9]+/0 [0-9]+ files$" example.txt || fail "the example's dump listing"

echo "== .onnx in process, dump, and the reading API"
cat > check.py <<'PY'
import json, os, sys, sysconfig
import numpy as np
import acl, acldump

version, site = sys.argv[1], sys.argv[2]
assert acldump.__version__ == version, acldump.__version__
# The packages are the installed ones, with their native library inside the environment.
for module in (acl, acldump):
    assert os.path.realpath(module.__file__).startswith(os.path.realpath(site)), module.__file__
os.makedirs("out")
with open("acl.json", "w") as f:
    json.dump({"dump": {"dump_path": "out", "dump_list": [{"model_name": "resnet_tiny"}]}}, f)
with acldump.session(), acldump.dump_session("acl.json"):
    with acldump.Model("testdata/resnet_tiny.onnx") as model:
        fc, prob = model.run(np.load("testdata/resnet_tiny.input.input.npy"))
np.testing.assert_allclose(prob, np.load("testdata/resnet_tiny.output.prob.npy"), rtol=1e-4, atol=1e-5)
tree = acldump.open_tree("out")
[folder] = tree.folders
ops = [e.op_name for e in folder.files]
assert "prob" in ops, ops
dumped = folder.files[ops.index("prob")].read()
np.testing.assert_allclose(dumped.outputs[0].array, prob, rtol=0, atol=0)
print("ok: %s, %d dump files, prob read back bit-exact" % (acldump.__version__, len(ops)))

# The dump tool comes as the environment's `acldump` command, and acldump.analysis runs it.
from acldump import analysis
tool = analysis.find_tool()
assert tool == os.path.join(sysconfig.get_paths()["scripts"], "acldump"), tool
result = analysis.compare("out", "out")
assert result["verdict"] == "pass" and result["tensors_compared"] > 0, result["verdict"]
print("ok: analysis.compare through %s" % tool)
PY
site=$(clean venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
clean venv/bin/python check.py "$version" "$site" || fail "check.py"
echo "== an acllite-style program, unmodified, dumped through ACLDUMP_CONFIG"
mkdir lite_dump
printf '{"dump":{"dump_path":"%s","dump_list":[{"model_name":"resnet_tiny","layer":["prob"]}]}}' \
  "$work/lite_dump" > lite.json
clean env ACLDUMP_CONFIG="$work/lite.json" ASCEND_GLOBAL_LOG_LEVEL=1 venv/bin/python \
  testdata/acllite_style.py testdata/resnet_tiny.om testdata/resnet_tiny.input.input.npy \
  testdata/resnet_tiny.output.prob.npy > lite.txt 2>&1 || { cat lite.txt; fail "acllite_style.py"; }
grep -q "^acllite-style: ok$" lite.txt || { cat lite.txt; fail "acllite_style.py's result"; }
grep -q "inference done, top class" lite.txt || { cat lite.txt; fail "acl.app_log at INFO"; }
[ "$(find lite_dump -type f -name 'Softmax.prob.*' | wc -l)" -eq 1 ] \
  || { find lite_dump; fail "ACLDUMP_CONFIG did not dump the acllite-style program"; }

echo "== the acldump command"
clean venv/bin/acldump --version | grep -qx "dump (acldump) $version" || fail "venv/bin/acldump --version"
clean venv/bin/acldump ls out --summary | grep -q "resnet_tiny" || fail "venv/bin/acldump ls"
echo "PASS: the wheel works from a virtual environment"
