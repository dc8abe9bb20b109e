#!/usr/bin/env python3
"""Exports the zoo's PyTorch models to ONNX with seeded random weights (nothing is downloaded).

Usage: export_models.py OUT_DIR [MODEL ...]. Writes OUT_DIR/<model>.onnx and a seeded input
OUT_DIR/<model>.input.npy for each model. Needs Debian's python3-torch and python3-torchvision.
"""
import os
import sys

import numpy as np
import torch
import torchvision


class TransformerEncoder(torch.nn.Module):
    """Two nn.TransformerEncoder layers, d_model 128, 4 heads, over a [1, 16, 128] sequence."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2,
                                                   enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


def vision(name, **kwargs):
    return lambda: (getattr(torchvision.models, name)(weights=None, **kwargs), (1, 3, 224, 224))


MODELS = {
    "resnet18": vision("resnet18"),
    "mobilenet_v2": vision("mobilenet_v2"),
    "mobilenet_v3_small": vision("mobilenet_v3_small"),
    "squeezenet1_1": vision("squeezenet1_1"),
    "shufflenet_v2_x1_0": vision("shufflenet_v2_x1_0"),
    "densenet121": vision("densenet121"),
    "efficientnet_b0": vision("efficientnet_b0"),
    "googlenet": vision("googlenet", aux_logits=False, init_weights=True),
    "vit_b_16": vision("vit_b_16"),
    "transformer_encoder": lambda: (TransformerEncoder(), (1, 16, 128)),
}


def randomize_batch_norm(model, generator):
    """Random running statistics, so folded BatchNormalization is not the identity."""
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            n = module.num_features
            module.running_mean.copy_(0.1 * torch.randn(n, generator=generator))
            module.running_var.copy_(0.5 + torch.rand(n, generator=generator))
            if module.affine:
                module.weight.data.copy_(1 + 0.1 * torch.randn(n, generator=generator))
                module.bias.data.copy_(0.1 * torch.randn(n, generator=generator))


def randomize_zero_weights(model, generator):
    """torchvision zero-initialises some layers (ViT's head): a zero output compares trivially."""
    for param in model.parameters():
        if param.dim() >= 2 and not param.detach().any():
            param.data.copy_(0.02 * torch.randn(param.shape, generator=generator))


def export(name, out_dir):
    torch.manual_seed(2024)
    generator = torch.Generator().manual_seed(2024)
    model, shape = MODELS[name]()
    model.eval()
    with torch.no_grad():
        randomize_batch_norm(model, generator)
        randomize_zero_weights(model, generator)
    x = torch.randn(*shape, generator=generator)
    path = os.path.join(out_dir, f"{name}.onnx")
    # Exported with gradients enabled: in no_grad mode PyTorch's attention takes a fused fast path
    # (aten::_native_multi_head_attention) that has no ONNX export.
    torch.onnx.export(model, (x,), path, input_names=["input"], output_names=["output"],
                      opset_version=14, do_constant_folding=True)
    np.save(os.path.join(out_dir, f"{name}.input.npy"), x.numpy())
    print("exported", path)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(2)
    for name in sys.argv[2:] or MODELS:
        export(name, out_dir)


if __name__ == "__main__":
    main()
