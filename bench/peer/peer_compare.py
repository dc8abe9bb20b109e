#!/usr/bin/python3
"""Side-by-side dump overhead: PyTorch forward hooks vs acldump, same ResNet-18, same input.

PyTorch 1.13 (Debian python3-torch + python3-torchvision): (a) no hooks, (b) hooks that
numpy.save every leaf module's output, (c) hooks that compute statistics with numpy.
acldump (libacldump.so through ctypes, i.e. the C ABI): (a) no dump, (b) tensor dump of every
output, (c) stats dump of every output. Both single-threaded, alternating iteration by
iteration, medians of --iterations runs. Not part of CI (the torch packages are large).

Run from the workspace root after building the library and the converter:
  ./bazelw build //bindings/c:libacldump.so //tools:convert
  /usr/bin/python3 bench/peer/peer_compare.py [--iterations 20] [--out-dir /tmp/peer]
"""
import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np
import torch
import torchvision


def directory_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


class Acl:
    """Just enough of the C ABI, through ctypes."""

    def __init__(self, library):
        self.lib = ctypes.CDLL(library)
        self.lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        self.lib.aclCreateDataBuffer.restype = ctypes.c_void_p
        self.lib.aclCreateDataBuffer.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        self.lib.aclmdlCreateDataset.restype = ctypes.c_void_p
        self.lib.aclmdlAddDatasetBuffer.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib.aclmdlExecute.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p]

    def check(self, code, what):
        if code != 0:
            raise RuntimeError(f"{what}: {code} {self.lib.aclGetRecentErrMsg().decode()}")

    def load(self, om_path):
        model_id = ctypes.c_uint32()
        self.check(self.lib.aclmdlLoadFromFile(om_path.encode(), ctypes.byref(model_id)), "load")
        return model_id.value

    def dataset(self, arrays):
        dataset = self.lib.aclmdlCreateDataset()
        for a in arrays:
            buffer = self.lib.aclCreateDataBuffer(a.ctypes.data, a.nbytes)
            self.check(self.lib.aclmdlAddDatasetBuffer(dataset, buffer), "add buffer")
        return dataset


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--out-dir", default=None)
    parser.add_argument("--library", default="bazel-bin/bindings/c/libacldump.so")
    parser.add_argument("--convert", default="bazel-bin/tools/convert")
    args = parser.parse_args()
    torch.set_num_threads(1)
    os.environ.setdefault("ACLDUMP_INTRA_OP_THREADS", "1")
    work = args.out_dir or tempfile.mkdtemp(prefix="acldump-peer-")
    os.makedirs(work, exist_ok=True)

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    onnx_path = os.path.join(work, "resnet18.onnx")
    om_path = os.path.join(work, "resnet18.om")
    torch.onnx.export(model, x, onnx_path, opset_version=13, input_names=["input"],
                      output_names=["output"])
    subprocess.run([args.convert, onnx_path, om_path], check=True, stdout=subprocess.DEVNULL)

    # PyTorch hooks.
    leaves = [m for m in model.modules() if not list(m.children())]
    torch_dump = os.path.join(work, "torch_dump")
    counter = {"n": 0}

    def save_hook(module, inputs, output):
        counter["n"] += 1
        np.save(os.path.join(torch_dump, f"{counter['n']}.npy"), output.detach().numpy())

    def stats_hook(module, inputs, output):
        a = output.detach().numpy()
        finite = a[np.isfinite(a)]
        (finite.max(), finite.min(), finite.mean(), np.isnan(a).sum(), np.isposinf(a).sum(),
         np.isneginf(a).sum(), np.linalg.norm(finite))

    def torch_run(hook):
        handles = [m.register_forward_hook(hook) for m in leaves] if hook else []
        if hook is save_hook:
            shutil.rmtree(torch_dump, ignore_errors=True)
            os.makedirs(torch_dump)
        start = time.perf_counter()
        with torch.no_grad():
            model(x)
        elapsed = time.perf_counter() - start
        for h in handles:
            h.remove()
        return elapsed

    # acldump through the C ABI.
    acl = Acl(args.library)
    acl.check(acl.lib.aclInit(None), "aclInit")
    xin = x.numpy().copy()
    out = np.zeros((1, 1000), dtype=np.float32)
    configs = {}
    for mode in ("tensor", "stats"):
        dump_dir = os.path.join(work, f"acl_{mode}")
        os.makedirs(dump_dir, exist_ok=True)
        configs[mode] = (os.path.join(work, f"acl_{mode}.json"), dump_dir)
        with open(configs[mode][0], "w") as f:
            json.dump({"dump": {"dump_path": dump_dir, "dump_data": mode,
                                "dump_list": [{"model_name": "resnet18"}]}}, f)
    models = {"none": acl.load(om_path)}
    # One dump session; each config binds to the model loaded after it.
    acl.check(acl.lib.aclmdlInitDump(), "InitDump")
    for mode, (config, _) in configs.items():
        acl.check(acl.lib.aclmdlSetDump(config.encode()), "SetDump")
        models[mode] = acl.load(om_path)
    inputs, outputs = acl.dataset([xin]), acl.dataset([out])

    def acl_run(mode):
        start = time.perf_counter()
        acl.check(acl.lib.aclmdlExecute(models[mode], inputs, outputs), "execute")
        return time.perf_counter() - start

    variants = {
        "torch: no hooks": lambda: torch_run(None),
        "torch: numpy.save every leaf output": lambda: torch_run(save_hook),
        "torch: numpy stats every leaf output": lambda: torch_run(stats_hook),
        "acldump: no dump": lambda: acl_run("none"),
        "acldump: tensor dump every output": lambda: acl_run("tensor"),
        "acldump: stats dump every output": lambda: acl_run("stats"),
    }
    for run in variants.values():  # warm-up
        run()
    times = {name: [] for name in variants}
    for _ in range(args.iterations):
        for name, run in variants.items():
            times[name].append(run())
    acl_flush_start = time.perf_counter()
    acl.check(acl.lib.aclmdlFinalizeDump(), "FinalizeDump")
    flush = time.perf_counter() - acl_flush_start
    acl.lib.aclFinalize()

    torch_bytes = directory_bytes(torch_dump)
    acl_bytes = directory_bytes(configs["tensor"][1]) / (args.iterations + 1)
    medians = {name: statistics.median(t) * 1e3 for name, t in times.items()}
    written = {"torch: numpy.save every leaf output": torch_bytes,
               "acldump: tensor dump every output": acl_bytes}
    print(f"ResNet-18 1x3x224x224, 1 thread, median of {args.iterations} alternating iterations")
    print(f"{'variant':40} {'ms':>8} {'vs own baseline':>16} {'MB/iter':>8} {'dump GB/s':>10}")
    for name, ms in medians.items():
        base = medians["torch: no hooks"] if name.startswith("torch") else medians["acldump: no dump"]
        size = written.get(name)
        extra = f"{size / 1e6:8.1f} {size / 1e9 / (ms / 1e3):10.2f}" if size else f"{'-':>8} {'-':>10}"
        print(f"{name:40} {ms:8.1f} {ms / base:15.2f}x {extra}")
    print(f"acldump final flush of everything queued (FinalizeDump): {flush * 1e3:.1f} ms")

if __name__ == "__main__":
    main()
