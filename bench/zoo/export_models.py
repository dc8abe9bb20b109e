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


class LstmTagger(torch.nn.Module):
    """A 2-layer LSTM (batch first) and a per-step linear head, over a [1, 32, 64] sequence."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(64, 128, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(128, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


class GruEncoder(torch.nn.Module):
    """A bidirectional GRU returning its sequence and final states, over [24, 2, 64]."""

    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(64, 96, bidirectional=True)

    def forward(self, x):
        y, h = self.gru(x)
        return y, h


class RnnRelu(torch.nn.Module):
    """A 2-layer Elman RNN with ReLU, over [16, 1, 32]."""

    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.RNN(32, 48, num_layers=2, nonlinearity="relu")

    def forward(self, x):
        return self.rnn(x)[0]


class EinsumAttention(torch.nn.Module):
    """Single-head attention written with torch.einsum, as hand-written transformers are."""

    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(64, 3 * 64)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = torch.einsum("bqd,bkd->bqk", q, k) / 8.0
        return torch.einsum("bqk,bkd->bqd", scores.softmax(-1), v)


class MultiheadAttention(torch.nn.Module):
    """nn.MultiheadAttention (8 heads, d_model 128) as self-attention over [1, 20, 128]."""

    def __init__(self):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(128, 8, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


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
    "lstm_tagger": lambda: (LstmTagger(), (1, 32, 64)),
    "gru_encoder": lambda: (GruEncoder(), (24, 2, 64)),
    "rnn_relu": lambda: (RnnRelu(), (16, 1, 32)),
    "einsum_attention": lambda: (EinsumAttention(), (2, 12, 64)),
    "multihead_attention": lambda: (MultiheadAttention(), (1, 20, 128)),
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
