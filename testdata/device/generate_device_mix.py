#!/usr/bin/env python3
"""Writes device_mix.onnx: a small model whose device dump needs the layouts resnet_tiny's does not.

A 3-D convolution (NDC1HWC0 activations, a FRACTAL_Z_3D weight), a grouped 2-D convolution
(FRACTAL_Z with groups), an LSTM (the device's FRACTAL_ZN_LSTM weight) and a MatMul (FRACTAL_NZ).
Seeded random weights; the device dump test takes its reference from acldump's unfused run.

Not run by CI; run it by hand (`/usr/bin/python3 testdata/device/generate_device_mix.py`) and
commit what it writes. Needs python3-onnx and python3-numpy.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = np.random.default_rng(11)
    inits = []

    def weight(name, shape, scale=None):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        value = rng.standard_normal(shape) * (scale or 1.0 / np.sqrt(fan_in))
        inits.append(numpy_helper.from_array(value.astype(np.float32), name))
        return name

    def ints(name, values):
        inits.append(numpy_helper.from_array(np.array(values, np.int64), name))
        return name

    hidden = 16
    nodes = [
        helper.make_node("Conv", ["x", weight("conv3d.w", (8, 4, 3, 3, 3)),
                                  weight("conv3d.b", (8,), 0.1)], ["conv3d"],
                         name="conv3d", pads=[1] * 6),
        helper.make_node("Relu", ["conv3d"], ["relu3d"], name="relu3d"),
        helper.make_node("Reshape", ["relu3d", ints("shape_2d", [1, 32, 8, 8])], ["to_2d"],
                         name="to_2d"),
        helper.make_node("Conv", ["to_2d", weight("gconv.w", (32, 8, 3, 3)),
                                  weight("gconv.b", (32,), 0.1)], ["gconv"],
                         name="gconv", group=4, pads=[1] * 4),
        helper.make_node("Relu", ["gconv"], ["grelu"], name="grelu"),
        helper.make_node("Reshape", ["grelu", ints("shape_seq", [1, 32, 64])], ["to_seq"],
                         name="to_seq"),
        helper.make_node("Transpose", ["to_seq"], ["seq"], name="seq", perm=[2, 0, 1]),
        helper.make_node("LSTM", ["seq", weight("lstm.W", (1, 4 * hidden, 32)),
                                  weight("lstm.R", (1, 4 * hidden, hidden)),
                                  weight("lstm.B", (1, 8 * hidden), 0.1)], ["lstm"],
                         name="lstm", hidden_size=hidden),
        helper.make_node("Reshape", ["lstm", ints("shape_rows", [64, hidden])], ["rows"],
                         name="rows"),
        helper.make_node("MatMul", ["rows", weight("fc.w", (hidden, 10))], ["fc"], name="fc"),
        helper.make_node("Add", ["fc", weight("fc.b", (10,), 0.1)], ["y"], name="y"),
    ]
    graph = helper.make_graph(
        nodes, "device_mix",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="acldump testdata")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, "device_mix.onnx"))
    x = rng.standard_normal((1, 4, 4, 8, 8)).astype(np.float32)
    np.save(os.path.join(HERE, "device_mix.input.x.npy"), x)


if __name__ == "__main__":
    main()
