#!/usr/bin/env python3
"""Compares acldump's outputs with ONNX Runtime's for one model: one JSON line of metrics.

Usage: compare.py ACLDUMP_DIR ORT_DIR. Both folders hold output_<k>.npy. Per output: the largest
absolute difference, the largest difference relative to the reference's largest magnitude
(max|a - r| / max|r|), and the cosine similarity (in float64); the line reports the worst of each.
"""
import glob
import json
import os
import sys

import numpy as np


def main():
    ours, theirs = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(theirs, "output_*.npy")))
    result = {"outputs": len(files), "max_abs": 0.0, "max_rel": 0.0, "cosine": 1.0, "error": ""}
    if not files:
        result["error"] = "ONNX Runtime wrote no output"
    for ref_file in files:
        name = os.path.basename(ref_file)
        ours_file = os.path.join(ours, name)
        if not os.path.exists(ours_file):
            result["error"] = f"acldump wrote no {name}"
            break
        a = np.load(ours_file).astype(np.float64)
        r = np.load(ref_file).astype(np.float64)
        if a.shape != r.shape:
            result["error"] = f"{name}: shape {a.shape} vs {r.shape}"
            break
        if np.isnan(a).any() or np.isnan(r).any():
            same = np.array_equal(np.isnan(a), np.isnan(r))
            result["error"] = f"{name}: NaN ({'same' if same else 'different'} positions)"
        diff = np.abs(a - r)
        scale = np.abs(r).max() if r.size else 0.0
        result["max_abs"] = max(result["max_abs"], float(diff.max()) if r.size else 0.0)
        result["max_rel"] = max(result["max_rel"], float(diff.max() / scale) if scale else 0.0)
        if not np.abs(r).max(initial=0.0):
            result["error"] = f"{name}: the reference output is all zeros"
        denom = np.linalg.norm(a) * np.linalg.norm(r)
        cosine = float(np.dot(a.ravel(), r.ravel()) / denom) if denom else 1.0
        result["cosine"] = min(result["cosine"], cosine)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
