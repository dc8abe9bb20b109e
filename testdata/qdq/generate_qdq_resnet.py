#!/usr/bin/env python3
"""Writes qdq_resnet.onnx, a residual block quantized the way PyTorch exports quantized models
(QuantizeLinear -> Cast -> DequantizeLinear around every operator; Conv+Relu, the residual Add,
GlobalAveragePool and the classifier Gemm each between a DequantizeLinear and a QuantizeLinear;
int8 per-channel weights, int32 biases), its input, and ONNX Runtime's output for that input.

The reference is ONNX Runtime at its default optimization level, which runs each group on the
8-bit values (QLinearConv, QLinearAdd, QLinearGlobalAveragePool, QGemm): the arithmetic the
converter reproduces. Not run by CI; run by hand and commit what it writes. Needs python3-onnx,
python3-numpy and onnxruntime-node (NODE_PATH pointing at its node_modules, as bench/zoo/deps.sh
installs it).
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2027)
nodes, inits = [], []


def const(name, value):
    inits.append(numpy_helper.from_array(np.asarray(value), name))
    return name


def quantize(name, x, scale, zero_point):
    """Q (uint8) -> Cast to uint8 -> DQ, as PyTorch writes it; the dequantized value's name."""
    s = const(f"{name}.scale", np.float32(scale))
    z = const(f"{name}.zero_point", np.uint8(zero_point))
    nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [f"{name}_q"], name=f"{name}_q"))
    nodes.append(helper.make_node("Cast", [f"{name}_q"], [f"{name}_cast"], name=f"{name}_cast",
                                  to=TensorProto.UINT8))
    nodes.append(helper.make_node("DequantizeLinear", [f"{name}_cast", s, z], [f"{name}_dq"],
                                  name=f"{name}_dq"))
    return f"{name}_dq"


def weights(name, shape, x_scale, axis=0):
    """int8 weights per output channel and an int32 bias of scale x_scale * w_scale, each
    dequantized; their names."""
    # |w| <= 63: ONNX Runtime's AVX2 kernels (no VNNI) add pairs of uint8 x int8 products in int16
    # with saturation, which 255 * 63 * 2 stays below (PyTorch's x86 models keep activations
    # within 0..127 for the same reason); the reference is then the exact integer result.
    w = rng.integers(-63, 64, shape, dtype=np.int8)
    w_scale = (rng.random(shape[0]) * 0.02 + 0.005).astype(np.float32)
    b = rng.integers(-2000, 2000, shape[0], dtype=np.int32)
    b_scale = (np.float32(x_scale) * w_scale).astype(np.float32)
    for tensor, scale, zero, suffix in ((w, w_scale, np.zeros(shape[0], np.int8), "w"),
                                        (b, b_scale, np.zeros(shape[0], np.int32), "b")):
        nodes.append(helper.make_node(
            "DequantizeLinear",
            [const(f"{name}.{suffix}", tensor), const(f"{name}.{suffix}_scale", scale),
             const(f"{name}.{suffix}_zero_point", zero)],
            [f"{name}.{suffix}_dq"], name=f"{name}.{suffix}_dq", axis=axis if suffix == "w" else 0))
    return f"{name}.w_dq", f"{name}.b_dq"


x_scale, h_scale, r_scale = 0.031, 0.047, 0.053
x = quantize("input", "x", x_scale, 128)
w, b = weights("conv1", (8, 3, 3, 3), x_scale)
nodes.append(helper.make_node("Conv", [x, w, b], ["conv1"], name="conv1", pads=[1, 1, 1, 1]))
nodes.append(helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"))
h = quantize("relu1", "relu1", h_scale, 0)
w, b = weights("conv2", (8, 8, 3, 3), h_scale)
nodes.append(helper.make_node("Conv", [h, w, b], ["conv2"], name="conv2", pads=[1, 1, 1, 1]))
c2 = quantize("conv2", "conv2", 0.061, 119)
nodes.append(helper.make_node("Add", [c2, h], ["residual"], name="residual"))
nodes.append(helper.make_node("Relu", ["residual"], ["relu2"], name="relu2"))
r = quantize("relu2", "relu2", r_scale, 0)
nodes.append(helper.make_node("GlobalAveragePool", [r], ["pool"], name="pool"))
p = quantize("pool", "pool", 0.011, 0)
nodes.append(helper.make_node("Flatten", [p], ["flat"], name="flat"))
w, b = weights("fc", (10, 8), 0.011)
nodes.append(helper.make_node("Gemm", ["flat", w, b], ["fc"], name="fc", transB=1))
logits = quantize("fc", "fc", 0.029, 131)
nodes.append(helper.make_node("Identity", [logits], ["logits"], name="logits"))
# The second Conv's quantized output is a model output too: 512 values on which a float
# computation of the Conv lands a quantization step away from the integer one now and then.
nodes.append(helper.make_node("DequantizeLinear", ["conv2_cast", "conv2.scale", "conv2.zero_point"],
                              ["features"], name="features"))

graph = helper.make_graph(
    nodes, "qdq_resnet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10]),
     helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 8, 8, 8])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(HERE, "qdq_resnet.onnx"))
x_value = rng.standard_normal((1, 3, 8, 8)).astype(np.float32) * 2
np.save(os.path.join(HERE, "qdq_resnet.input.x.npy"), x_value)

script = r"""
const ort = require('onnxruntime-node'), fs = require('fs');
const [model, input, out_dir] = process.argv.slice(1);
(async () => {
  const b = fs.readFileSync(input);
  const x = new Float32Array(b.buffer, b.byteOffset, b.length / 4);
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: 1});
  const r = await s.run({x: new ort.Tensor('float32', x, [1, 3, 8, 8])});
  for (const name of ['logits', 'features'])
    fs.writeFileSync(`${out_dir}/${name}.raw`, Buffer.from(r[name].data.buffer));
})();
"""
raw_input = os.path.join(HERE, "x.raw")
x_value.tofile(raw_input)
try:
    subprocess.run(["node", "-e", script, os.path.join(HERE, "qdq_resnet.onnx"), raw_input, HERE],
                   check=True)
    for name, shape in (("logits", (1, 10)), ("features", (1, 8, 8, 8))):
        raw = os.path.join(HERE, f"{name}.raw")
        np.save(os.path.join(HERE, f"qdq_resnet.output.{name}.npy"),
                np.fromfile(raw, dtype=np.float32).reshape(shape))
        os.remove(raw)
finally:
    os.remove(raw_input)
print("wrote", HERE, file=sys.stderr)
