#!/usr/bin/env python3
"""Generates the testdata models and their reference outputs.

The ONNX graphs are written node by node with onnx.helper (so node names are exactly what the
tests expect), with seeded random weights. Reference outputs come from an independent
implementation, PyTorch (Debian's python3-torch), evaluating the same computation with the same
weights. Every intermediate node output is saved too (reference/<model>/<node name>.npy), for
`dump compare` against another framework.

Not run by CI; run it by hand (`/usr/bin/python3 testdata/generate_models.py [MODEL ...]`) and
commit the files it writes. Needs: python3-onnx python3-torch python3-numpy.
"""
import math
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


class Builder:
    """Collects ONNX nodes/initializers and evaluates each node in torch as it is added."""

    def __init__(self, name, seed, opset):
        self.name = name
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.values = {}  # value name -> torch tensor
        self.node_outputs = {}  # node name -> numpy output (first output)

    def weight(self, name, shape, scale=None):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        scale = scale if scale is not None else 1.0 / math.sqrt(fan_in)
        value = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        return self.const(name, value)

    def const(self, name, value):
        self.initializers.append(numpy_helper.from_array(value, name))
        self.values[name] = torch.from_numpy(value)
        return name

    def node(self, op, name, inputs, result, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        self.values[name] = result
        self.node_outputs[name] = result.detach().numpy()
        return name

    def v(self, name):
        return self.values[name]


def conv_bn(b, x, name, cin, cout, k, stride, pad, relu):
    w = b.weight(f"{name}.w", (cout, cin, k, k))
    conv = b.node("Conv", name, [x, w],
                  F.conv2d(b.v(x), b.v(w), stride=stride, padding=pad),
                  kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4)
    bn_name = name.replace("conv", "bn")
    gamma = b.const(f"{bn_name}.gamma", (1 + 0.1 * b.rng.standard_normal(cout)).astype(np.float32))
    beta = b.const(f"{bn_name}.beta", (0.1 * b.rng.standard_normal(cout)).astype(np.float32))
    mean = b.const(f"{bn_name}.mean", (0.1 * b.rng.standard_normal(cout)).astype(np.float32))
    var = b.const(f"{bn_name}.var", (0.5 + b.rng.random(cout)).astype(np.float32))
    out = b.node("BatchNormalization", bn_name, [conv, gamma, beta, mean, var],
                 F.batch_norm(b.v(conv), b.v(mean), b.v(var), b.v(gamma), b.v(beta),
                              training=False, eps=1e-5), epsilon=1e-5)
    if relu:
        out = b.node("Relu", name.replace("conv", "relu"), [out], F.relu(b.v(out)))
    return out


def resnet_tiny():
    b = Builder("resnet_tiny", seed=20261130, opset=13)
    x = torch.from_numpy(b.rng.standard_normal((1, 3, 32, 32)).astype(np.float32))
    b.values["input"] = x
    h = conv_bn(b, "input", "conv1", 3, 16, 3, 1, 1, relu=True)
    h = b.node("MaxPool", "pool1", [h], F.max_pool2d(b.v(h), 2, 2), kernel_shape=[2, 2],
               strides=[2, 2])
    # Residual block with identity shortcut.
    r = conv_bn(b, h, "conv2", 16, 16, 3, 1, 1, relu=True)
    r = conv_bn(b, r, "conv3", 16, 16, 3, 1, 1, relu=False)
    h = b.node("Add", "add1", [r, h], b.v(r) + b.v(h))
    h = b.node("Relu", "relu_add1", [h], F.relu(b.v(h)))
    # Downsampling block with a projection shortcut.
    r = conv_bn(b, h, "conv4", 16, 32, 3, 2, 1, relu=True)
    r = conv_bn(b, r, "conv5", 32, 32, 3, 1, 1, relu=False)
    s = conv_bn(b, h, "conv_sc", 16, 32, 1, 2, 0, relu=False)
    h = b.node("Add", "add2", [r, s], b.v(r) + b.v(s))
    h = b.node("Relu", "relu_add2", [h], F.relu(b.v(h)))
    h = b.node("GlobalAveragePool", "gap", [h], F.adaptive_avg_pool2d(b.v(h), 1))
    h = b.node("Flatten", "flatten", [h], torch.flatten(b.v(h), 1), axis=1)
    w = b.weight("fc.w", (10, 32))
    bias = b.weight("fc.b", (10,), scale=0.1)
    logits = b.node("Gemm", "fc", [h, w, bias], F.linear(b.v(h), b.v(w), b.v(bias)), transB=1)
    prob = b.node("Softmax", "prob", [logits], F.softmax(b.v(logits), dim=-1), axis=-1)
    return b, {"input": x}, ["fc", "prob"]


def quantize_dequantize(b, name, h, scale, zero_point, np_type, axis=None):
    """QuantizeLinear then DequantizeLinear of h (per tensor, or per channel along `axis`).
    Rounding as ONNX says: x / scale, half to even, plus the zero point, saturated."""
    info = np.iinfo(np_type)
    s = b.const(f"{name}.scale", np.asarray(scale, dtype=np.float32))
    z = b.const(f"{name}.zero_point", np.asarray(zero_point, dtype=np_type))
    shape = [1] * b.v(h).dim()
    if axis is not None:
        shape[axis] = -1
    st, zt = b.v(s).reshape(shape), b.v(z).to(torch.int32).reshape(shape)
    attrs = {} if axis is None else {"axis": axis}
    q_value = torch.clamp(torch.round(b.v(h) / st) + zt, info.min, info.max)
    q = b.node("QuantizeLinear", f"{name}_q", [h, s, z],
               q_value.to(torch.uint8 if np_type == np.uint8 else torch.int8), **attrs)
    return b.node("DequantizeLinear", f"{name}_dq", [q, s, z],
                  (b.v(q).to(torch.int32) - zt).to(torch.float32) * st, **attrs)


def quantized_matmul_operands(b, name, h, w):
    """A QDQ model's MatMul operands: the activation uint8 per tensor (scale from this input's
    range), the weights int8 per output column (symmetric)."""
    lo, hi = min(0.0, float(b.v(h).min())), max(0.0, float(b.v(h).max()))
    scale = (hi - lo) / 255.0
    h = quantize_dequantize(b, f"{name}.input", h, scale, round(-lo / scale), np.uint8)
    w_scale = (b.v(w).abs().amax(dim=0) / 127.0).numpy()
    w = quantize_dequantize(b, f"{name}.w", w, w_scale, np.zeros(w_scale.shape), np.int8, axis=1)
    return h, w


def mlp_block(quantized=False):
    """A transformer-style block; `quantized` makes its QDQ copy (mlp_block_qdq): fc1 and fc2 read
    uint8 activations and int8 per-column weights through QuantizeLinear/DequantizeLinear, every
    other node the same, under the same names."""
    b = Builder("mlp_block_qdq" if quantized else "mlp_block", seed=7, opset=17)
    seq, hidden, inner = 8, 32, 64
    x = torch.from_numpy(b.rng.standard_normal((seq, hidden)).astype(np.float32))
    b.values["x"] = x
    gamma = b.const("ln1.gamma", (1 + 0.1 * b.rng.standard_normal(hidden)).astype(np.float32))
    beta = b.const("ln1.beta", (0.1 * b.rng.standard_normal(hidden)).astype(np.float32))
    h = b.node("LayerNormalization", "ln1", ["x", gamma, beta],
               F.layer_norm(x, (hidden,), b.v(gamma), b.v(beta), eps=1e-5), axis=-1, epsilon=1e-5)
    w1 = b.weight("fc1.w", (hidden, inner))
    b1 = b.weight("fc1.b", (inner,), scale=0.1)
    if quantized:
        h, w1 = quantized_matmul_operands(b, "fc1", h, w1)
    h = b.node("MatMul", "fc1", [h, w1], b.v(h) @ b.v(w1))
    h = b.node("Add", "fc1_bias", [h, b1], b.v(h) + b.v(b1))
    # GELU spelled out as ONNX primitives: 0.5 * x * (1 + erf(x / sqrt(2))).
    sqrt2 = b.const("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    one = b.const("one", np.array(1.0, dtype=np.float32))
    half = b.const("half", np.array(0.5, dtype=np.float32))
    t = b.node("Div", "gelu_div", [h, sqrt2], b.v(h) / b.v(sqrt2))
    t = b.node("Erf", "gelu_erf", [t], torch.erf(b.v(t)))
    t = b.node("Add", "gelu_add", [t, one], b.v(t) + b.v(one))
    t = b.node("Mul", "gelu_mul", [h, t], b.v(h) * b.v(t))
    h = b.node("Mul", "gelu", [t, half], b.v(t) * b.v(half))
    w2 = b.weight("fc2.w", (inner, hidden))
    b2 = b.weight("fc2.b", (hidden,), scale=0.1)
    if quantized:
        h, w2 = quantized_matmul_operands(b, "fc2", h, w2)
    h = b.node("MatMul", "fc2", [h, w2], b.v(h) @ b.v(w2))
    h = b.node("Add", "fc2_bias", [h, b2], b.v(h) + b.v(b2))
    r = b.node("Add", "residual", ["x", h], x + b.v(h))
    # Single-head self-attention without projections.
    kt = b.node("Transpose", "keys_t", [r], b.v(r).t(), perm=[1, 0])
    s = b.node("MatMul", "scores", [r, kt], b.v(r) @ b.v(kt))
    scale = b.const("scale", np.array(math.sqrt(hidden), dtype=np.float32))
    s = b.node("Div", "scores_scaled", [s, scale], b.v(s) / b.v(scale))
    p = b.node("Softmax", "attn", [s], F.softmax(b.v(s), dim=-1), axis=-1)
    a = b.node("MatMul", "context", [p, r], b.v(p) @ b.v(r))
    # A Constant feeding a Reshape (no output at run time; the Reshape aliases memory).
    shape = np.array([2, 4, hidden], dtype=np.int64)
    b.nodes.append(helper.make_node("Constant", [], ["split_shape"], name="split_shape",
                                    value=numpy_helper.from_array(shape)))
    b.values["split_shape"] = torch.from_numpy(shape)
    g = b.node("Reshape", "split_heads", [a, "split_shape"], b.v(a).reshape(2, 4, hidden))
    y = b.node("ReduceMean", "pooled", [g], b.v(g).mean(dim=1), axes=[1], keepdims=0)
    return b, {"x": x}, ["pooled"]


def ocr_tiny():
    """A PaddleOCR-detector-shaped model the way paddle2onnx writes it: every weight in a Constant
    node, symbolic input and output dimensions, Conv + BatchNormalization, HardSigmoid, Clip,
    Resize (nearest for the FPN, linear), ConvTranspose (the detection head's upsampling)."""
    b = Builder("ocr_tiny", seed=11, opset=11)
    x = torch.from_numpy(b.rng.standard_normal((1, 3, 16, 16)).astype(np.float32))
    b.values["x"] = x

    def constant(name, value):
        b.nodes.append(helper.make_node("Constant", [], [name], name=name,
                                        value=numpy_helper.from_array(value, name)))
        b.values[name] = torch.from_numpy(value)
        return name

    def weight(name, shape):
        fan_in = int(np.prod(shape[1:]))
        return constant(name, (b.rng.standard_normal(shape) / math.sqrt(fan_in)).astype(np.float32))

    def channel(name, n, base, spread):
        return constant(name, (base + spread * b.rng.random(n)).astype(np.float32))

    w = weight("conv1.w", (8, 3, 3, 3))
    h = b.node("Conv", "conv1", ["x", w], F.conv2d(x, b.v(w), padding=1),
               kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    params = [channel(f"bn1.{p}", 8, base, spread)
              for p, base, spread in (("scale", 0.5, 1), ("bias", -0.1, 0.2),
                                      ("mean", -0.1, 0.2), ("var", 0.5, 1))]
    h = b.node("BatchNormalization", "bn1", [h] + params,
               F.batch_norm(b.v(h), b.v(params[2]), b.v(params[3]), b.v(params[0]),
                            b.v(params[1]), training=False, eps=1e-5), epsilon=1e-5)
    lo = constant("clip.min", np.array(0.0, dtype=np.float32))
    hi = constant("clip.max", np.array(6.0, dtype=np.float32))
    h = b.node("Clip", "relu6", [h, lo, hi], torch.clamp(b.v(h), 0, 6))
    w2 = weight("conv2.w", (8, 8, 3, 3))
    d = b.node("Conv", "conv2", [h, w2], F.conv2d(b.v(h), b.v(w2), stride=2, padding=1),
               kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
    gate = b.node("HardSigmoid", "gate", [d], torch.clamp(0.2 * b.v(d) + 0.5, 0, 1),
                  alpha=0.2, beta=0.5)
    d = b.node("Mul", "se", [d, gate], b.v(d) * b.v(gate))
    roi = constant("resize.roi", np.array([], dtype=np.float32))
    up_scales = constant("up.scales", np.array([1, 1, 2, 2], dtype=np.float32))
    up = b.node("Resize", "up", [d, roi, up_scales],
                F.interpolate(b.v(d), scale_factor=2, mode="nearest"),
                mode="nearest", coordinate_transformation_mode="asymmetric",
                nearest_mode="floor")
    h = b.node("Add", "fpn_add", [h, up], b.v(h) + b.v(up))
    w3 = weight("deconv.w", (8, 4, 2, 2))
    b3 = channel("deconv.b", 4, -0.1, 0.2)
    t = b.node("ConvTranspose", "deconv", [h, w3, b3],
               F.conv_transpose2d(b.v(h), b.v(w3), b.v(b3), stride=2),
               kernel_shape=[2, 2], strides=[2, 2])
    lin_scales = constant("down.scales", np.array([1, 1, 0.75, 0.75], dtype=np.float32))
    t = b.node("Resize", "down", [t, roi, lin_scales],
               F.interpolate(b.v(t), size=(24, 24), mode="bilinear", align_corners=False),
               mode="linear", coordinate_transformation_mode="half_pixel")
    y = b.node("Sigmoid", "prob", [t], torch.sigmoid(b.v(t)))
    # Symbolic dims as paddle2onnx declares them (--input-shape "x:1,3,16,16" pins them).
    return b, {"x": x}, [y], {"x": ["batch", 3, "height", "width"],
                               y: ["batch", 4, "out_h", "out_w"]}


def save(builder, inputs, outputs, symbolic=None):
    symbolic = symbolic or {}
    graph_inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                                  symbolic.get(n, list(t.shape)))
                    for n, t in inputs.items()]
    graph_outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                                   symbolic.get(n, list(builder.v(n).shape)))
                     for n in outputs]
    graph = helper.make_graph(builder.nodes, builder.name, graph_inputs, graph_outputs,
                              builder.initializers)
    model = helper.make_model(graph, producer_name="acldump-testdata",
                              opset_imports=[helper.make_opsetid("", builder.opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, f"{builder.name}.onnx"))
    ref_dir = os.path.join(HERE, "reference", builder.name)
    os.makedirs(ref_dir, exist_ok=True)
    for name, tensor in inputs.items():
        np.save(os.path.join(HERE, f"{builder.name}.input.{name}.npy"), tensor.numpy())
        # The graph input is a tensor like any other: compared with the dump's Data operator.
        np.save(os.path.join(ref_dir, f"{name}.npy"), tensor.numpy())
    for name in outputs:
        np.save(os.path.join(HERE, f"{builder.name}.output.{name}.npy"), builder.node_outputs[name])
    for name, value in builder.node_outputs.items():
        np.save(os.path.join(ref_dir, f"{name}.npy"), value)


MODELS = {
    "resnet_tiny": resnet_tiny,
    "mlp_block": mlp_block,
    "mlp_block_qdq": lambda: mlp_block(quantized=True),
    "ocr_tiny": ocr_tiny,
}

if __name__ == "__main__":
    # generate_models.py [MODEL ...]: all of them by default.
    torch.set_num_threads(1)
    for name in sys.argv[1:] or MODELS:
        torch.manual_seed(0)
        with torch.no_grad():
            save(*MODELS[name]())
    print("written to", HERE)
