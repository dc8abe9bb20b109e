#!/usr/bin/env python3
"""Exports one model of the wide zoo to ONNX (seeded random weights; nothing is downloaded).

Usage: export_wide.py OUT_DIR NAME   writes OUT_DIR/NAME.onnx and OUT_DIR/NAME.input_<k>.npy
       export_wide.py --list         prints every model name, one per line

The wide zoo is every model constructor of the installed torchvision (classification,
segmentation, detection, video, optical flow, quantized), the torch blocks of export_models.py
(recurrent, attention, transformer), and quantized copies of a few models made with the onnx
Python API: weight-only QDQ (int8 per output channel, DequantizeLinear before each Conv/MatMul/Gemm)
and dynamic quantization as ONNX Runtime's quantize_dynamic writes it (DynamicQuantizeLinear,
ConvInteger/MatMulInteger with int8 weights per tensor, Cast, Mul). Needs Debian's python3-torch, python3-torchvision,
python3-onnx.
"""
import functools
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402  (the zoo's blocks and weight randomisation)

FAMILIES = {
    "classification": torchvision.models,
    "segmentation": torchvision.models.segmentation,
    "detection": torchvision.models.detection,
    "video": torchvision.models.video,
    "optical_flow": torchvision.models.optical_flow,
    "quantization": torchvision.models.quantization,
}

# Input shapes other than [1, 3, 224, 224].
SHAPES = {
    "inception_v3": (1, 3, 299, 299),
    "quantized_inception_v3": (1, 3, 299, 299),
    "mvit_v1_b": (1, 3, 16, 224, 224),
    "mvit_v2_s": (1, 3, 16, 224, 224),
    "s3d": (1, 3, 16, 224, 224),
}
FAMILY_SHAPES = {
    "segmentation": (1, 3, 320, 320),
    "detection": (1, 3, 320, 320),
    "video": (1, 3, 8, 112, 112),
    "optical_flow": (2, 3, 128, 128),  # two frames, split by the wrapper
}
# Quantized copies: (source model, kind).
QUANTIZED_COPIES = {
    "resnet18_qdq": ("resnet18", "qdq"),
    "mobilenet_v2_qdq": ("mobilenet_v2", "qdq"),
    "mobilenet_v2_dynamic": ("mobilenet_v2", "dynamic"),
    "transformer_encoder_dynamic": ("transformer_encoder", "dynamic"),
    "lstm_tagger_qdq": ("lstm_tagger", "qdq"),
}


def torchvision_models():
    names = {}
    for family, module in FAMILIES.items():
        for name in torchvision.models.list_models(module):
            names[name] = family
    return names


class Flatten(torch.nn.Module):
    """Model outputs as a flat tuple of tensors (detection: list of dicts; segmentation: dict)."""

    def __init__(self, model, family):
        super().__init__()
        self.model = model
        self.family = family

    def forward(self, x):
        if self.family == "optical_flow":
            return self.model(x[0:1], x[1:2])[-1]
        if self.family == "detection":
            out = self.model([x[0]])[0]
            return tuple(out[k] for k in sorted(out))
        out = self.model(x)
        if isinstance(out, dict):
            return tuple(out[k] for k in sorted(out))
        return out


def build(name, family):
    kwargs = {"weights": None}
    if family == "quantization":
        # Quantized after the weights are randomised and calibrated on the input (quantize()):
        # torchvision's quantize=True asks for the fbgemm engine, which Debian's PyTorch lacks.
        kwargs["quantize"] = False
    if name in ("googlenet", "inception_v3", "quantized_googlenet", "quantized_inception_v3"):
        kwargs["init_weights"] = True
    if family == "detection":
        kwargs["weights_backbone"] = None
    if family == "segmentation":
        kwargs["weights_backbone"] = None
        kwargs["aux_loss"] = False
    model = torchvision.models.get_model(name, **kwargs)
    shape = SHAPES.get(name, FAMILY_SHAPES.get(family, (1, 3, 224, 224)))
    return Flatten(model, family), shape


def zero_symbolic(g, self):
    """aten::zero (what Tensor.zero_() exports as) as zeros of its input's shape: Debian's
    PyTorch 1.13 has no ONNX export for it, and Swin V2 zeroes part of a bias with it."""
    return g.op("ConstantOfShape", g.op("Shape", self),
                value_t=torch.tensor([0.0], dtype=torch.float32))


def on_float_values(function, x):
    """function (a data movement: chunk, view, transpose) applied to a per-tensor quantized x in
    a form PyTorch 1.13 can export: its exporter has no quantized Slice or Shape, which
    ShuffleNet V2's chunk and channel shuffle become. x is dequantized, moved and quantized again
    with its own scale and zero point, which gives back the same integers: the model's function
    is unchanged, bit for bit."""
    scale, zero_point, dtype = x.q_scale(), x.q_zero_point(), x.dtype
    out = function(x.dequantize())
    requantize = lambda t: torch.quantize_per_tensor(t, scale, zero_point, dtype)
    return [requantize(t) for t in out] if isinstance(out, (list, tuple)) else requantize(out)


def shufflenet_residual_forward(self, x):
    """QuantizableInvertedResidual.forward of torchvision 0.14, its data movement exportable."""
    if self.stride == 1:
        x1, x2 = on_float_values(lambda t: t.chunk(2, dim=1), x)
        out = self.cat.cat([x1, self.branch2(x2)], dim=1)
    else:
        out = self.cat.cat([self.branch1(x), self.branch2(x)], dim=1)
    return on_float_values(lambda t: torchvision.models.shufflenetv2.channel_shuffle(t, 2), out)


def quantize(flat, x):
    """Post-training static quantization as torchvision's quantize=True does it for x86 (fused
    Conv+BN+ReLU, per-channel int8 weights, uint8 activations from min/max observers), on the
    oneDNN engine (fbgemm's x86 successor) and calibrated on the input the comparison runs: the
    exported QDQ graph then carries activation ranges that fit its data."""
    from torch.ao import quantization as tq
    torch.backends.quantized.engine = "onednn"
    model = flat.model
    model.qconfig = tq.QConfig(activation=tq.default_observer,
                               weight=tq.default_per_channel_weight_observer)
    model.fuse_model()
    tq.prepare(model, inplace=True)
    with torch.no_grad():
        flat(x)
    tq.convert(model, inplace=True)
    residual = torchvision.models.quantization.shufflenetv2.QuantizableInvertedResidual
    for module in model.modules():
        if isinstance(module, residual):
            module.forward = shufflenet_residual_forward.__get__(module)


# Detection heads' output layers (by name suffix, in pipeline order) and the (mean, standard
# deviation) their outputs are given: logits of moderate spread and small box deltas, as a trained
# detector has.
DETECTION_HEAD_TARGETS = (
    ("rpn.head.cls_logits", (-3.0, 1.5)),  # objectness, sigmoid
    ("rpn.head.bbox_pred", (0.0, 0.3)),
    ("box_predictor.cls_score", (0.0, 1.5)),  # softmax over classes
    ("box_predictor.bbox_pred", (0.0, 0.3)),
    ("mask_predictor.mask_fcn_logits", (0.0, 1.5)),  # Mask R-CNN: per-pixel sigmoid
    ("classification_head.cls_logits", (-3.0, 1.5)),  # RetinaNet, FCOS: sigmoid
    ("regression_head.bbox_ctrness", (0.0, 1.0)),  # FCOS
    ("regression_head.bbox_reg", (0.0, 0.3)),  # RetinaNet: deltas
    ("classification_head.module_list.", (0.0, 1.5)),  # SSD, SSDLite: softmax
    ("regression_head.module_list.", (0.0, 0.3)),
)
# FCOS's box outputs are distances through a ReLU: positive, about one anchor size.
FCOS_BOX_TARGET = (1.0, 0.3)


def head_target(name):
    """The (mean, deviation) for the module called name, or None when it is no head's output."""
    parent, _, index = name.rpartition(".")
    for suffix, target in DETECTION_HEAD_TARGETS:
        if suffix.endswith("."):  # a list of per-level layers: suffix, then the level's index
            if (parent + ".").endswith(suffix) and index.isdigit():
                return target
        elif name.endswith(suffix):
            return target
    return None


def spread_detection_heads(flat, x):
    """Random weights leave a detector's scores degenerate: saturated at 1 (SSD300, RetinaNet,
    every RPN objectness of Faster R-CNN) or below every threshold (no detection at all), and
    its box deltas large enough to clip most boxes to the image. The comparison then tests how
    each engine orders ties, and the post-processing of actual detections not at all. Each
    head's output layer (a Conv or Linear, the last of its block) is rescaled, in pipeline order, so that its outputs on x have the mean and spread of
    DETECTION_HEAD_TARGETS, the spread coming from the data (one bias for all outputs): seeded
    random weights, scaled."""
    model = flat.model
    for name, module in model.named_modules():
        target = head_target(name)
        if target is None:
            continue
        if name.endswith("regression_head.bbox_reg") and "FCOS" in type(model).__name__:
            target = FCOS_BOX_TARGET
        last = [m for m in module.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))][-1]
        # The part of the output that depends on the data: a spread that came from the random
        # biases alone would give every position of a channel the same score.
        bias = last.bias.view(-1, *([1] * (2 if isinstance(last, torch.nn.Conv2d) else 0)))
        outputs = []
        hook = module.register_forward_hook(lambda m, i, o: outputs.append((o - bias).flatten()))
        flat(x)
        hook.remove()
        values = torch.cat(outputs)
        scale = target[1] / max(values.std().item(), 1e-12)
        last.weight.mul_(scale)
        last.bias.fill_(target[0] - scale * values.mean().item())


# Models exported without PyTorch's ONNX shape inference: for MViT V2 it allocates a 10 GB tensor
# and the export runs out of memory. Without it, the graph has no intermediate shapes, and splits
# it would have made constant are computed at run time (SplitToSequence).
WITHOUT_SHAPE_INFERENCE = {"mvit_v2_s"}


def export_torch(name, out_dir, model, shape, opset):
    torch.onnx.register_custom_op_symbolic("aten::zero", zero_symbolic, opset)
    torch.manual_seed(2024)
    generator = torch.Generator().manual_seed(2024)
    model.eval()
    with torch.no_grad():
        export_models.randomize_batch_norm(model, generator)
        export_models.randomize_zero_weights(model, generator)
    x = torch.randn(*shape, generator=generator)
    if getattr(model, "family", None) == "quantization":
        quantize(model, x)
    if getattr(model, "family", None) == "detection":
        with torch.no_grad():
            spread_detection_heads(model, x)
    path = os.path.join(out_dir, f"{name}.onnx")
    if name in WITHOUT_SHAPE_INFERENCE:
        # torch.onnx.export takes no such option in PyTorch 1.13; its _export does.
        torch.onnx.utils._export = functools.partial(torch.onnx.utils._export,
                                                     onnx_shape_inference=False)
    torch.onnx.export(model, (x,), path, input_names=["input"], opset_version=opset,
                      do_constant_folding=True)
    np.save(os.path.join(out_dir, f"{name}.input_0.npy"), x.numpy())
    return path


def per_channel_int8(w, axis):
    """Symmetric int8 per-channel quantization of an initializer along `axis`."""
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    scale = np.abs(moved).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


def quantize_weights_qdq(model):
    """Each float Conv/MatMul/Gemm weight initializer becomes int8 + DequantizeLinear."""
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    nodes = []
    for node in graph.node:
        if node.op_type in ("Conv", "MatMul", "Gemm") and len(node.input) > 1 \
                and node.input[1] in inits:
            w = numpy_helper.to_array(inits[node.input[1]])
            if w.dtype == np.float32 and w.ndim >= 2:
                # Conv: per output channel (axis 0); MatMul [K, N]: per column (axis 1); Gemm
                # with transB: per row.
                trans_b = any(a.name == "transB" and a.i for a in node.attribute)
                axis = 0 if node.op_type == "Conv" or trans_b else w.ndim - 1
                q, scale = per_channel_int8(w, axis)
                base = node.input[1]
                graph.initializer.append(numpy_helper.from_array(q, base + "_int8"))
                graph.initializer.append(numpy_helper.from_array(scale, base + "_scale"))
                graph.initializer.append(
                    numpy_helper.from_array(np.zeros(scale.shape, np.int8), base + "_zero_point"))
                nodes.append(helper.make_node(
                    "DequantizeLinear", [base + "_int8", base + "_scale", base + "_zero_point"],
                    [base + "_dq"], name=base + "_dq", axis=axis))
                node.input[1] = base + "_dq"
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    used = {i for n in graph.node for i in n.input}
    keep = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    return model


def quantize_dynamic(model):
    """ONNX Runtime's quantize_dynamic form: activations quantized at run time
    (DynamicQuantizeLinear), uint8 x int8 products (ConvInteger, MatMulInteger), then
    Cast to float and a Mul by both scales (and the bias Add for Conv)."""
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    nodes = []
    for node in graph.node:
        eligible = node.op_type in ("Conv", "MatMul") and len(node.input) > 1 and \
            node.input[1] in inits and numpy_helper.to_array(inits[node.input[1]]).ndim >= 2
        if not eligible:
            nodes.append(node)
            continue
        w = numpy_helper.to_array(inits[node.input[1]])
        # Per tensor, as quantize_dynamic does by default (ONNX Runtime's ConvInteger takes no
        # other form).
        scale = np.float32(max(np.abs(w).max(), 1e-8) / 127.0)
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        p = node.name or node.output[0]
        graph.initializer.extend([
            numpy_helper.from_array(q, p + ".w_int8"),
            numpy_helper.from_array(np.array(0, np.int8), p + ".w_zero_point")])
        x = node.input[0]
        nodes.append(helper.make_node("DynamicQuantizeLinear", [x],
                                      [p + ".x_q", p + ".x_scale", p + ".x_zero_point"],
                                      name=p + ".x_quant"))
        if node.op_type == "Conv":
            conv = helper.make_node("ConvInteger", [p + ".x_q", p + ".w_int8", p + ".x_zero_point",
                                                    p + ".w_zero_point"], [p + ".int32"],
                                    name=p + ".conv_integer")
            conv.attribute.extend(node.attribute)
            nodes.append(conv)
        else:
            nodes.append(helper.make_node("MatMulInteger", [p + ".x_q", p + ".w_int8",
                                                            p + ".x_zero_point",
                                                            p + ".w_zero_point"],
                                          [p + ".int32"], name=p + ".matmul_integer"))
        graph.initializer.append(numpy_helper.from_array(np.array(scale), p + ".w_scale"))
        nodes.append(helper.make_node("Cast", [p + ".int32"], [p + ".float"], name=p + ".cast",
                                      to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Mul", [p + ".x_scale", p + ".w_scale"], [p + ".scale"],
                                      name=p + ".scale"))
        out = node.output[0]
        has_bias = node.op_type == "Conv" and len(node.input) > 2 and node.input[2]
        mul_out = p + ".scaled" if has_bias else out
        nodes.append(helper.make_node("Mul", [p + ".float", p + ".scale"], [mul_out],
                                      name=p + ".rescale"))
        if has_bias:
            b = numpy_helper.to_array(inits[node.input[2]]).reshape(1, -1, *([1] * (w.ndim - 2)))
            graph.initializer.append(numpy_helper.from_array(b.astype(np.float32), p + ".bias"))
            nodes.append(helper.make_node("Add", [mul_out, p + ".bias"], [out], name=p))
    del graph.node[:]
    graph.node.extend(nodes)
    used = {i for n in graph.node for i in n.input}
    keep = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    return model


def export(name, out_dir):
    torch.set_num_threads(1)
    if name in QUANTIZED_COPIES:
        source, kind = QUANTIZED_COPIES[name]
        export(source, out_dir)
        model = onnx.load(os.path.join(out_dir, f"{source}.onnx"))
        model = quantize_weights_qdq(model) if kind == "qdq" else quantize_dynamic(model)
        model.graph.name = name
        if model.opset_import[0].version < 13:
            model.opset_import[0].version = 13  # per-axis DequantizeLinear
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out_dir, f"{name}.onnx"))
        np.save(os.path.join(out_dir, f"{name}.input_0.npy"),
                np.load(os.path.join(out_dir, f"{source}.input_0.npy")))
        return
    if name in export_models.MODELS:
        model, shape = export_models.MODELS[name]()
        export_torch(name, out_dir, model, shape, 14)
        return
    family = torchvision_models()[name]
    model, shape = build(name, family)
    # Detection needs opset 11+ for its dynamic ops, optical flow 16 for GridSample.
    opset = 16 if family == "optical_flow" else 14
    export_torch(name, out_dir, model, shape, opset)


def all_names():
    blocks = [n for n in export_models.MODELS if n not in torchvision_models()]
    return list(torchvision_models()) + blocks + list(QUANTIZED_COPIES)


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(all_names()))
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    export(sys.argv[2], sys.argv[1])
    print("exported", sys.argv[2])


if __name__ == "__main__":
    main()
