"""Device dumps end to end, built from the public description of the device's files only.

An encoder written here (a hand-made protobuf writer and numpy layout transforms, nothing shared
with the reader) turns CPU runs of two models into the dump trees a device would write for their
fused graphs. testdata/resnet_tiny.onnx: float16 tensors in NC1HWC0 (NC1HWC0_C04 for the
3-channel input; two outputs in NHWC), FRACTAL_Z weights (one each in FRACTAL_Z_C04, HWCN and
C1HWNCoC0), FRACTAL_NZ matrices. testdata/device/device_mix.onnx: NDC1HWC0 activations and a
FRACTAL_Z_3D weight (a 3-D convolution), a grouped convolution's FRACTAL_Z weight (groups in
sub_format), an LSTM's FRACTAL_ZN_LSTM weight and a batched FRACTAL_NZ output. Both: fused
operators (many-to-one), a Cast the device added with a name too long for a file (hashed, in
mapping.csv), an overflow record, half the operators naming their original operator only in
the converter graph JSON written beside it. Then, for each:
  - `dump convert` reads every tensor back to the encoder's logical tensor, bit for bit;
  - `dump compare-device` matches every operator and finds nothing outside the tolerance;
  - its result CSV has the SDK's columns, and each metric equals a numpy computation;
  - a perturbation planted in one device operator is found there, named with its original;
  - without the graph or inputs the command says what to give.
"""

import csv
import glob
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np

TOOL, CONVERT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

FORMATS = {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "NC1HWC0_C04": 12,
           "FRACTAL_Z_C04": 13, "HWCN": 16, "C1HWNCoC0": 25, "FRACTAL_NZ": 29, "NCDHW": 30,
           "NDC1HWC0": 32, "FRACTAL_Z_3D": 33, "FRACTAL_ZN_LSTM": 38}
DT_FLOAT, DT_FLOAT16, DT_UINT8 = 1, 2, 4

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def run(*args, expect=(0,)):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if done.returncode not in expect:
        print(done.stdout, done.stderr)
        raise SystemExit(f"{args[:2]} exited {done.returncode}, expected {expect}")
    return done


# ---------------------------------------------------------------------------
# Protobuf, by hand (the wire format: varints and length-delimited fields).

def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value) if value else b""


def field_bytes(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def shape_message(dims):
    return field_bytes(1, b"".join(varint(d) for d in dims)) if dims else b""


def tensor_message(t, is_output):
    """OpOutput (fields 1-8) or OpInput (1-7, no original_op)."""
    body = field_varint(1, t["dtype"]) + field_varint(2, FORMATS[t["format"]])
    body += field_bytes(3, shape_message(t["device_shape"]))
    if is_output and t.get("original"):
        name, index = t["original"]
        original = field_bytes(1, name.encode()) + field_varint(2, index)
        original += field_varint(3, t["dtype"]) + field_varint(4, FORMATS[t["origin_format"]])
        body += field_bytes(4, original)
    size_field, shape_field, sub_format_field = (6, 7, 8) if is_output else (5, 6, 7)
    body += field_varint(size_field, len(t["bytes"]))
    body += field_bytes(shape_field, shape_message(t["logical"].shape))
    body += field_varint(sub_format_field, t.get("groups", 1) if t.get("groups", 1) > 1 else 0)
    return body


def dump_file(op_name, inputs, outputs, time_us):
    header = field_bytes(1, b"2.0") + field_varint(2, time_us)
    for t in outputs:
        header += field_bytes(3, tensor_message(t, True))
    for t in inputs:
        header += field_bytes(4, tensor_message(t, False))
    header += field_bytes(6, op_name.encode())
    payload = b"".join(t["bytes"] for t in inputs + outputs)
    return struct.pack("<Q", len(header)) + header + payload


# ---------------------------------------------------------------------------
# Device layouts, from logical tensors (numpy pads with zeros and transposes).

def ceil(a, b):
    return -(-a // b)


def to_nc1hwc0(x, c0):
    n, c, h, w = x.shape
    padded = np.zeros((n, ceil(c, c0) * c0, h, w), x.dtype)
    padded[:, :c] = x
    return padded.reshape(n, ceil(c, c0), c0, h, w).transpose(0, 1, 3, 4, 2)


def to_fractal_z(x, c0=16):
    n, c, h, w = x.shape
    n1, c1 = ceil(n, 16), ceil(c, c0)
    padded = np.zeros((n1 * 16, c1 * c0, h, w), x.dtype)
    padded[:n, :c] = x
    blocks = padded.reshape(n1, 16, c1, c0, h, w).transpose(2, 4, 5, 0, 1, 3)
    return blocks.reshape(c1 * h * w, n1, 16, c0)


def to_fractal_nz(x, c0=16):
    h, w = x.shape[-2:]
    h1, w1 = ceil(h, 16), ceil(w, c0)
    padded = np.zeros(x.shape[:-2] + (h1 * 16, w1 * c0), x.dtype)
    padded[..., :h, :w] = x
    split = padded.reshape(x.shape[:-2] + (h1, 16, w1, c0))
    batch = len(x.shape) - 2
    order = tuple(range(batch)) + (batch + 2, batch, batch + 1, batch + 3)
    return split.transpose(order)


def to_fractal_z_c04(x, c0=16):
    """C padded to 4, (h, w, c) flattened and tiled by the cube's C0."""
    n, c, h, w = x.shape
    padded = np.zeros((n, 4, h, w), x.dtype)
    padded[:, :c] = x
    k = padded.transpose(0, 2, 3, 1).reshape(n, 4 * h * w)
    n1, k1 = ceil(n, 16), ceil(4 * h * w, c0)
    tiles = np.zeros((n1 * 16, k1 * c0), x.dtype)
    tiles[:n, :4 * h * w] = k
    return tiles.reshape(n1, 16, k1, c0).transpose(2, 0, 1, 3)


def to_ndc1hwc0(x, c0=16):
    n, c, d, h, w = x.shape
    padded = np.zeros((n, ceil(c, c0) * c0, d, h, w), x.dtype)
    padded[:, :c] = x
    return padded.reshape(n, ceil(c, c0), c0, d, h, w).transpose(0, 3, 1, 4, 5, 2)


def to_fractal_z_3d(x, c0=16):
    """[D·C1·H·W, N1, 16, C0]."""
    n, c, d, h, w = x.shape
    n1, c1 = ceil(n, 16), ceil(c, c0)
    padded = np.zeros((n1 * 16, c1 * c0, d, h, w), x.dtype)
    padded[:n, :c] = x
    blocks = padded.reshape(n1, 16, c1, c0, d, h, w).transpose(4, 2, 5, 6, 0, 1, 3)
    return blocks.reshape(d * c1 * h * w, n1, 16, c0)


def lcm(a, b):
    return a * b // np.gcd(a, b)


def to_fractal_z_groups(x, groups, c0=16):
    """A grouped convolution's weight, as the converter packs it: e_mult groups share one
    diagonal block of cin_opt x cout_opt."""
    n, cin, h, w = x.shape
    cout = n // groups
    e_mult = min(lcm(lcm(cin, c0) // cin, lcm(cout, 16) // cout), groups)
    cin_opt = ceil(e_mult * cin, c0) * c0
    cout_opt = ceil(e_mult * cout, 16) * 16
    c1 = cin_opt // c0
    out = np.zeros((ceil(groups, e_mult) * c1 * h * w, cout_opt // 16, 16, c0), x.dtype)
    flat = out.reshape(-1)
    for g in range(groups):
        e = g % e_mult
        for co in range(cout):
            dst_co = e * cout + co
            for ci in range(cin):
                dst_ci = e * cin + ci
                for hi in range(h):
                    for wi in range(w):
                        index = ((((g // e_mult) * c1 + dst_ci // c0) * h * w + hi * w + wi)
                                 * cout_opt * c0 + dst_co * c0 + dst_ci % c0)
                        flat[index] = x[g * cout + co, ci, hi, wi]
    return out


def to_fractal_zn_lstm(x):
    """The LSTM's [input + hidden, 4·hidden] weight: the input rows and the hidden rows each
    padded to 16, each gate's columns padded to 16, then 16 x 16 blocks (n0, c0)."""
    rows, cols = x.shape
    hidden = cols // 4
    inp = rows - hidden
    ci, ch = ceil(inp, 16), ceil(hidden, 16)
    padded = np.zeros(((ci + ch) * 16, 4 * ch * 16), x.dtype)
    for gate in range(4):
        block = x[:, gate * hidden:(gate + 1) * hidden]
        padded[:inp, gate * ch * 16:gate * ch * 16 + hidden] = block[:inp]
        padded[ci * 16:ci * 16 + hidden, gate * ch * 16:gate * ch * 16 + hidden] = block[inp:]
    return padded.reshape(ci + ch, 16, 4 * ch, 16).transpose(0, 2, 3, 1)


def to_c1hwncoc0(x, c0=16):
    """Each channel on the diagonal of its C0 x C0 block."""
    n, c, h, w = x.shape
    out = np.zeros((ceil(c, c0), h, w, n, c0, c0), x.dtype)
    for ch in range(c):
        out[ch // c0, :, :, :, ch % c0, ch % c0] = x[:, ch].transpose(1, 2, 0)
    return out


# The layout of particular weights and activations, so that the tree holds more than the
# common ones: the 3-channel conv1 weight in FRACTAL_Z_C04, conv2's in HWCN, conv3's in
# C1HWNCoC0, and relu1's and pool1's outputs in NHWC. pool1's [1,16,16,16] reads the same
# as NCHW and as NHWC: its file names the original format (NCHW), its consumers' inputs
# cannot (a dump input has no such field), so only the converter graph tells them apart.
RESNET = {
    "name": "resnet_tiny", "onnx": "testdata/resnet_tiny.onnx",
    "input_npy": "testdata/resnet_tiny.input.input.npy", "input_c0": 4,
    "special": {"conv1bn1.weight": "FRACTAL_Z_C04", "conv2bn2.weight": "HWCN",
                "conv3bn3.weight": "C1HWNCoC0", "relu1": "NHWC", "pool1": "NHWC"},
    "perturb": ("conv2bn2relu2", "relu2"), "min_tensors": 40}
# The LSTM's output [seq, directions, batch, hidden] in FRACTAL_NZ over its last two axes.
MIX = {
    "name": "device_mix", "onnx": "testdata/device/device_mix.onnx",
    "input_npy": "testdata/device/device_mix.input.x.npy", "input_c0": 16,
    "special": {"lstm": "FRACTAL_NZ"}, "perturb": ("gconvgrelu", "grelu"), "min_tensors": 20}


def folder_of(model):
    return f"20260101000000/0/{model['name']}/1/0"


def ambiguous(t):
    """A plain NHWC tensor whose shape reads as NCHW too: a reader without the graph,
    and a dump input has no original format, takes it as stored."""
    return t["format"] == "NHWC" and list(t["logical"].shape) == t["device_shape"]


def stored(t):
    """The device tensor as stored."""
    dtype = np.float16 if t["dtype"] == DT_FLOAT16 else np.float32
    return np.frombuffer(t["bytes"], dtype).reshape(t["device_shape"])


def device_tensor(logical, weight=False, c0=16, special=None, groups=1):
    """The device form of a float16 (or float32) logical tensor."""
    if special == "FRACTAL_ZN_LSTM":
        fmt, device = special, to_fractal_zn_lstm(logical)
    elif special == "FRACTAL_NZ":
        fmt, device = special, to_fractal_nz(logical)
    elif logical.ndim == 4 and weight and groups > 1:
        fmt, device = "FRACTAL_Z", to_fractal_z_groups(logical, groups)
    elif logical.ndim == 5:
        fmt = "FRACTAL_Z_3D" if weight else "NDC1HWC0"
        device = to_fractal_z_3d(logical) if weight else to_ndc1hwc0(logical)
    elif special == "FRACTAL_Z_C04":
        fmt, device = special, to_fractal_z_c04(logical)
    elif special == "HWCN":
        fmt, device = special, logical.transpose(2, 3, 1, 0)
    elif special == "C1HWNCoC0":
        fmt, device = special, to_c1hwncoc0(logical)
    elif special == "NHWC":
        fmt, device = special, logical.transpose(0, 2, 3, 1)
    elif logical.ndim == 4 and weight:
        fmt, device = "FRACTAL_Z", to_fractal_z(logical)
    elif logical.ndim == 4:
        fmt = "NC1HWC0_C04" if c0 == 4 else "NC1HWC0"
        device = to_nc1hwc0(logical, c0)
    elif logical.ndim == 2:
        fmt, device = "FRACTAL_NZ", to_fractal_nz(logical)
    else:
        fmt, device = "ND", logical
    device = np.ascontiguousarray(device)
    return {"dtype": DT_FLOAT16 if logical.dtype == np.float16 else DT_FLOAT,
            "format": fmt, "device_shape": list(device.shape), "logical": logical,
            "bytes": device.tobytes(), "groups": groups, "origin_format": plain_format(logical)}


def plain_format(logical):
    return {4: "NCHW", 5: "NCDHW"}.get(logical.ndim, "ND")


def graph_tensor(t, origin=None):
    attrs = [{"key": "origin_format", "value": {"s": t["origin_format"]}},
             {"key": "origin_shape", "value": {"list": {"i": list(t["logical"].shape)}}}]
    if origin:
        attrs += [{"key": "_datadump_origin_name", "value": {"s": origin[0]}},
                  {"key": "_datadump_origin_output_index", "value": {"i": origin[1]}}]
    return {"dtype": "DT_FLOAT16" if t["dtype"] == DT_FLOAT16 else "DT_FLOAT",
            "layout": t["format"], "shape": {"dim": t["device_shape"]}, "attr": attrs}


def overflow_record():
    record = struct.pack("<IIIIII", 0x5A5A5A5A, 1, 1, 0, 0, 56)
    record += struct.pack("<QQQQQQQ", 1, 0, 3, 0, 0, 0, 1)
    return record + bytes(2048 - len(record))


# ---------------------------------------------------------------------------

def build_device_tree(model, work, root, ref, fused, perturb=None):
    """The device's dump tree of the fused graph and its converter JSON; returns the
    expected logical tensors by (file name, 'input'|'output', index), what a reader
    without the graph gives where that differs from the logical tensor, and the JSON's path."""
    folder = os.path.join(root, folder_of(model))
    os.makedirs(folder)
    special = model["special"]
    rng = np.random.default_rng(5)
    producer = {}  # tensor name -> device op producing it
    expected, read_without_graph = {}, {}
    x_name = fused["inputs"][0]["name"]
    x32 = ref[x_name]
    graph_ops = [{"name": x_name, "type": "Data", "input": [""],
                  "output_desc": [graph_tensor(device_tensor(x32))]}]
    time_us = 1767225600000000
    # The device's Cast of the float32 input to float16, its name too long for a file.
    cast_name = "trans_Cast_0_" + "x" * 300
    cast_in = {"dtype": DT_FLOAT, "format": plain_format(x32), "device_shape": list(x32.shape),
               "logical": x32, "bytes": x32.tobytes(), "origin_format": plain_format(x32)}
    cast_out = device_tensor(x32.astype(np.float16), c0=model["input_c0"])
    hashed = "1234567890123456789"
    with open(os.path.join(folder, hashed), "wb") as f:
        f.write(dump_file(cast_name, [cast_in], [cast_out], time_us))
    with open(os.path.join(folder, "mapping.csv"), "w") as f:
        f.write(f"{hashed},Cast.{cast_name}.1.0.{time_us}\n")
    expected[(hashed, "input", 0)] = cast_in["logical"]
    expected[(hashed, "output", 0)] = cast_out["logical"]
    graph_ops.append({"name": cast_name, "type": "Cast", "input": [f"{x_name}:0"],
                      "attr": [{"key": "_datadump_original_op_names",
                                "value": {"list": {"val_type": "VT_LIST_STRING"}}}],
                      "output_desc": [graph_tensor(cast_out, (x_name, 0))]})
    producer[x_name] = cast_name
    activations = {x_name: cast_out}
    initializers = {i["name"]: i for i in fused["initializers"]}

    def weight(name, shape, **layout):
        value = rng.standard_normal(shape).astype(np.float16)
        graph_ops.append({"name": name, "type": "Const", "input": []})
        tensor = device_tensor(value, weight=True, **layout)
        graph_ops[-1]["output_desc"] = [graph_tensor(tensor)]
        return tensor, f"{name}:0"

    for task, node in enumerate(fused["nodes"], start=2):
        time_us += 10
        inputs, edges = [], []
        names = node["inputs"]
        if node["op_type"] == "LSTM":
            # The device's LSTM takes W and R as one [input + hidden, 4·hidden] weight.
            w, r = (initializers[n]["shape"] for n in names[1:3])
            tensor, edge = weight(f"{node['name']}.weight", [w[2] + r[2], w[1]],
                                  special="FRACTAL_ZN_LSTM")
            inputs.append(activations[names[0]])
            edges.append(f"{producer[names[0]]}:0")
            inputs.append(tensor)
            edges.append(edge)
            names = names[3:]
        for name in names:
            if name in initializers:
                shape = initializers[name]["shape"]
                groups = 1
                if node["op_type"] == "Conv" and len(shape) == 4 and inputs:
                    groups = inputs[0]["logical"].shape[1] // shape[1]
                tensor, edge = weight(name, shape, special=special.get(name), groups=groups)
                inputs.append(tensor)
                edges.append(edge)
            else:
                inputs.append(activations[name])
                edges.append(f"{producer[name]}:0")
        original = node["original_names"][-1]
        value = ref[node["outputs"][0]].astype(np.float16)
        if node["name"] == perturb:
            value = (value.astype(np.float32) * 1.1 + 0.05).astype(np.float16)
        out = device_tensor(value, special=special.get(node["outputs"][0]))
        # Half the files name their original operator (and with it the original
        # format); the graph names all.
        out["original"] = (original, 0) if task % 2 == 0 or ambiguous(out) else None
        activations[node["outputs"][0]] = out
        producer[node["outputs"][0]] = node["name"]
        file_name = f"{node['op_type']}.{node['name']}.{task}.0.{time_us}"
        with open(os.path.join(folder, file_name), "wb") as f:
            f.write(dump_file(node["name"], inputs, [out], time_us))
        for i, t in enumerate(inputs):
            expected[(file_name, "input", i)] = t["logical"]
            if ambiguous(t):
                read_without_graph[(file_name, "input", i)] = stored(t)
        expected[(file_name, "output", 0)] = out["logical"]
        graph_ops.append({
            "name": node["name"], "type": node["op_type"], "input": edges,
            "attr": [{"key": "_datadump_original_op_names",
                      "value": {"list": {"s": node["original_names"]}}}],
            "input_desc": [graph_tensor(t) for t in inputs],
            "output_desc": [graph_tensor(out, (original, 0))]})
    # The overflow check's record, as the device writes it beside the tensors.
    record = overflow_record()
    overflow = {"dtype": DT_UINT8, "format": "ND", "device_shape": [len(record)],
                "logical": np.frombuffer(record, np.uint8), "bytes": record,
                "origin_format": "ND"}
    with open(os.path.join(folder, f"Opdebug.Node_OpDebug.99.0.{time_us + 100}"), "wb") as f:
        f.write(dump_file("Node_OpDebug", [], [overflow], time_us + 100))
    graph_path = os.path.join(work, "device_graph.json")
    with open(graph_path, "w") as f:
        json.dump({"name": model["name"],
                   "graph": [{"name": model["name"], "op": graph_ops}]}, f)
    return expected, read_without_graph, graph_path


def numpy_metrics(a, b):
    """The SDK's ten metrics as acldump documents them (a under test, b the truth)."""
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    eps = np.finfo(np.float64).eps
    d = a - b
    big = np.abs(b) > eps
    rel = np.zeros_like(a)
    rel[big] = np.abs(a[big] / b[big] - 1)

    def dist(v):
        span = v.max() - v.min()
        p = (v - v.min()) / span if span != 0 else v.copy()
        p = np.maximum(p, np.finfo(np.float32).eps)
        return p / p.sum()

    p, q = dist(a), dist(b)
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return {
        "CosineSimilarity": min(float(np.dot(a / na, b / nb)), 1.0),
        "MaxAbsoluteError": np.abs(d).max(),
        "AccumulatedRelativeError": rel.sum(),
        "RelativeEuclideanDistance": np.sqrt((d * d).sum() / (b * b).sum()),
        "KullbackLeiblerDivergence": max(float((p * np.log(p / q)).sum()), 0.0),
        "StandardDeviation": (a.mean(), a.std(), b.mean(), b.std()),
        "MeanAbsoluteError": np.abs(d).mean(),
        "RootMeanSquareError": np.sqrt((d * d).mean()),
        "MaxRelativeError": rel.max(),
        "MeanRelativeError": rel.mean(),
    }


def close(text, value):
    return abs(float(text) - value) <= 2e-6 + 1e-6 * abs(value)


def prepare(model, work):
    """acldump's unfused reference run of the model and its fused graph."""
    ref_dir = os.path.join(work, "ref")
    run(TOOL, "reference", "--engine", "acldump-unfused", "--model", model["onnx"], "--input",
        model["input_npy"], "--out", ref_dir)
    ref = {os.path.basename(p)[:-len(".output.0.npy")]: np.load(p)
           for p in glob.glob(os.path.join(ref_dir, "*.output.0.npy"))}
    run(CONVERT, model["onnx"], os.path.join(work, "fused.om"), "--json",
        os.path.join(work, "fused.json"))
    with open(os.path.join(work, "fused.json")) as f:
        fused = json.load(f)
    check(any(len(n["original_names"]) > 1 for n in fused["nodes"]),
          f"{model['name']}: the graph fuses operators")
    return ref, fused


def check_model(model, work):
    """Steps 1-4 on one model; returns the tree, its expected tensors and the graph."""
    name = model["name"]
    ref, fused = prepare(model, work)
    root = os.path.join(work, "device")
    expected, read_without_graph, graph = build_device_tree(model, work, root, ref, fused)
    formats = {FORMATS_BY_NUMBER[f] for f in tensor_formats(root)}
    print(f"{name}: {len(expected)} tensors in {', '.join(sorted(formats))}")

    # 1. Every tensor back, bit for bit, in its original layout.
    npy = os.path.join(work, "npy")
    run(TOOL, "convert", root, "--out", npy)
    for (file_name, kind, index), logical in expected.items():
        path = os.path.join(npy, folder_of(model), f"{file_name}.{kind}.{index}.npy")
        if not os.path.exists(path):
            check(False, f"convert wrote no {path}")
            continue
        got = np.load(path)
        logical = read_without_graph.get((file_name, kind, index), logical)
        check(got.dtype == logical.dtype and got.shape == logical.shape and
              got.tobytes() == logical.tobytes(),
              f"{file_name} {kind} {index}: {got.dtype}{got.shape} differs from the "
              f"encoder's {logical.dtype}{logical.shape}")
    check(len(expected) > model["min_tensors"], f"{name}: only {len(expected)} tensors encoded")

    # 2. The device run against the CPU run: everything matched and within the tolerance.
    out = os.path.join(work, "compare")
    done = run(TOOL, "compare-device", root, "--model", model["onnx"], "--graph", graph,
               "--out", out, "--json", os.path.join(out, "result.json"))
    print(done.stdout)
    x_name = fused["inputs"][0]["name"]
    check(f"input     {x_name}=" in done.stdout, f"{name}: the model input was taken from the dump")
    check("many-to-one" in done.stdout, f"{name}: fused operators are reported many-to-one")
    check("device-only (no ground truth): trans_Cast_0_xxx" in done.stdout,
          f"{name}: the device's Cast is listed as device-only")
    with open(os.path.join(out, "result.json")) as f:
        result = json.load(f)
    check(result["verdict"] == "pass" and result["tensors_outside"] == 0,
          f"{name}: nothing outside the tolerance")
    check(result["tensors_compared"] >= len(fused["nodes"]) * 2,
          f"{name}: every output and activation input compared: {result['tensors_compared']}")

    # 3. The SDK's CSV, every metric against numpy.
    csvs = glob.glob(os.path.join(out, "result_*.csv"))
    check(len(csvs) == 1, f"one result CSV: {csvs}")
    with open(csvs[0]) as f:
        rows = list(csv.reader(f))
    check(rows[0] == ["Index", "OpType", "NPUDump", "DataType", "Address", "GroundTruth",
                      "DataType", "Address", "TensorIndex", "Shape", "CosineSimilarity",
                      "MaxAbsoluteError", "AccumulatedRelativeError",
                      "RelativeEuclideanDistance", "KullbackLeiblerDivergence",
                      "StandardDeviation", "MeanAbsoluteError", "RootMeanSquareError",
                      "MaxRelativeError", "MeanRelativeError", "CompareFailReason"],
          f"CSV header: {rows[0]}")
    by_op = {}
    for (file_name, kind, index), logical in expected.items():
        by_op[(file_name.split(".")[1] if "." in file_name else None, kind, index)] = logical
    checked = 0
    for row in rows[1:]:
        op, kind, index = row[8].rsplit(":", 2)
        if row[5] == "*":
            check(kind == "input" or op.startswith("trans_Cast"),
                  f"only weights and the device's Cast lack a ground truth: {row[:10]}")
            continue
        device_value = by_op.get((op, kind, int(index)))
        truth = os.path.join(out, f"{name}.golden", f"{row[5]}.output.0.npy")
        if device_value is None or not os.path.exists(truth):
            continue
        m = numpy_metrics(device_value, np.load(truth))
        for column, metric in enumerate(rows[0][10:20], start=10):
            if metric == "StandardDeviation":
                values = [float(v) for v in
                          row[column].replace("(", "").replace(")", "").replace(";", ",")
                          .split(",")]
                ok = all(close(str(v), w) for v, w in zip(values, m[metric]))
            else:
                ok = close(row[column], m[metric])
            check(ok, f"{row[8]} {metric}: CSV {row[column]}, numpy {m[metric]}")
        checked += 1
    check(checked >= len(fused["nodes"]), f"{name}: metrics checked on {checked} rows")

    # 4. A perturbation planted in one device operator is found there.
    device_op, original = model["perturb"]
    planted = os.path.join(work, "planted")
    build_device_tree(model, work, planted, ref, fused, perturb=device_op)
    done = run(TOOL, "compare-device", planted, "--model", model["onnx"], "--graph", graph,
               "--out", os.path.join(work, "compare_planted"), "--json", "-", expect=(1,))
    result = json.loads(done.stdout)
    first = result["first_divergence"]
    check(first is not None and first["name"] == device_op,
          f"{name}: first divergence at the planted operator: {first}")
    op = result["pairs"][first["pair"]]["operators"][first["operator"]]
    check(original in json.dumps(op), f"{name}: matched to its original operator: {op}")
    return root, expected, read_without_graph, graph, planted, fused


def tensor_formats(root):
    """The format numbers of every tensor in the tree, read from the headers here."""
    formats = set()
    for path in glob.glob(os.path.join(root, "**", "*"), recursive=True):
        if os.path.isfile(path) and not path.endswith(".csv"):
            formats.update(formats_in_file(path))
    return formats


def formats_in_file(path):
    """Field 2 (format) of every OpOutput (3) and OpInput (4) in a length-prefixed header."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack_from("<Q", data)
    header = data[8:8 + length]

    def fields(buf):
        i = 0
        while i < len(buf):
            key, i = read_varint(buf, i)
            number, wire = key >> 3, key & 7
            if wire == 0:
                value, i = read_varint(buf, i)
            elif wire == 2:
                size, i = read_varint(buf, i)
                value, i = buf[i:i + size], i + size
            else:
                raise ValueError(f"wire type {wire} in {path}")
            yield number, value

    return {v for n, t in fields(header) if n in (3, 4)
            for k, v in fields(t) if k == 2}


def read_varint(buf, i):
    value = shift = 0
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i


FORMATS_BY_NUMBER = {number: name for name, number in FORMATS.items()}


def main():
    marker = os.path.join(WORK, ".acldump-device-demo")
    if os.path.exists(WORK) and os.listdir(WORK) and not os.path.exists(marker):
        raise SystemExit(f"{WORK} exists and was not made by this script: give a new folder")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    open(marker, "w").close()
    for model in (RESNET, MIX):
        for key in ("onnx", "input_npy"):
            model[key] = os.path.abspath(model[key])

    root, expected, read_without_graph, graph, planted, fused = check_model(RESNET, WORK)
    mix_work = os.path.join(WORK, "device_mix")
    os.makedirs(mix_work)
    check_model(MIX, mix_work)
    # Every layout of the device's the reader knows is in one of the two trees.
    seen = tensor_formats(root) | tensor_formats(os.path.join(mix_work, "device"))
    check({FORMATS[f] for f in FORMATS if f not in ("NCHW", "NCDHW")} <= seen,
          f"layouts never written: {set(FORMATS) - {FORMATS_BY_NUMBER[f] for f in seen}}")

    # 5. Without the graph the inputs must be given; with them the outputs that name their
    #    original operator still compare.
    model, fused_nodes = RESNET["onnx"], len(fused["nodes"])
    done = run(TOOL, "compare-device", root, "--model", model, "--out",
               os.path.join(WORK, "no_graph"), expect=(2,))
    check("does not hold the model input 'input'" in done.stderr and
          "--input NAME=FILE.npy" in done.stderr, f"missing-input message: {done.stderr}")
    done = run(TOOL, "compare-device", root, "--model", model, "--input", RESNET["input_npy"],
               "--out", os.path.join(WORK, "no_graph"), "--json", "-")
    result = json.loads(done.stdout)
    check(result["tensors_outside"] == 0 and result["tensors_compared"] >= fused_nodes // 2,
          f"outputs naming their original compare without the graph: "
          f"{result['tensors_compared']}")

    # 6. The Python API gives the same.
    sys.path.insert(0, os.path.join(os.getcwd(), "bindings", "python"))
    import acldump.analysis as analysis
    os.environ["ACLDUMP_TOOL"] = TOOL
    tensors = analysis.read_device_dump(os.path.join(root, folder_of(RESNET)))
    for (file_name, kind, index), logical in expected.items():
        key = (file_name, kind, index)
        logical = read_without_graph.get(key, logical)
        check(key in tensors and tensors[key].tobytes() == logical.tobytes(),
              f"read_device_dump {key}")
    same = analysis.compare_device(planted, model, graph=graph,
                                   out=os.path.join(WORK, "py_compare"))
    check(same["first_divergence"]["name"] == RESNET["perturb"][0],
          f"compare_device names the planted operator: {same['first_divergence']}")

    if failures:
        raise SystemExit(f"{len(failures)} failures")
    print("device dump test: OK")
    print(f"device tree: {root}\nconverter graph: {graph}\nwith a planted error: {planted}")
    print(f"and of device_mix (3-D and grouped convolutions, an LSTM): {mix_work}")


if __name__ == "__main__":
    main()
