#!/usr/bin/env python3
"""Compares acldump's outputs with ONNX Runtime's for one model: one JSON line of metrics.

Usage: compare.py ACLDUMP_DIR ORT_DIR [--detection]. Both folders hold output_<k>.npy.

Per output: the largest absolute difference, the largest difference relative to the reference's
largest magnitude (max|a - r| / max|r|), and the cosine similarity (in float64); the line reports
the worst of each, and "matches" (cosine >= 0.99999 and max rel <= 1e-4 on every output, and no
error) with a "reason" when not. When an output's reference values lie on a grid of at most 256
levels (a quantized model's dequantized output), the reason says how many values are how many
grid steps off: an engine whose float arithmetic differs in the last bit rounds some values to
the neighbouring level, and every quantized layer after it passes that on.

--detection compares the outputs of a torchvision detection model (export_wide.py writes its
dict's values by sorted key: boxes [N, 4] first, scores [N] last, labels the one integer [N]
output, and per-detection outputs such as masks [N, 1, H, W] or keypoints [N, K, 3] between)
as a set of N detections, not element by element: NMS and TopK order tied scores arbitrarily
(and with exactly tied scores, which detections survive a cut is arbitrary too). Each acldump
detection is paired with a reference detection of the same label whose box and score are within
the tolerance (1e-4 of the reference output's largest magnitude), as many pairs as possible (a
maximum bipartite matching; among candidates the nearest first). The metrics are then those of
every output over the matched pairs, and the model matches when both engines give the same N,
all N are paired, and every output of the pairs is within the tolerance. Both engines giving no
detection at all is a match, with a "note" that says so.
"""
import glob
import json
import os
import re
import sys

import numpy as np

COSINE_MIN = 0.99999
REL_MAX = 1e-4


def metrics(a, r, scale=None):
    """(max abs, max rel, cosine) of a against r (same shape, float64). `scale`: the reference
    magnitude max rel is relative to (default: r's largest)."""
    if not r.size:
        return 0.0, 0.0, 1.0
    diff = float(np.abs(a - r).max())
    if scale is None:
        scale = float(np.abs(r).max())
    denom = np.linalg.norm(a) * np.linalg.norm(r)
    cosine = float(np.dot(a.ravel(), r.ravel()) / denom) if denom else 1.0
    return diff, (diff / scale if scale else 0.0), cosine


def output_files(folder):
    """output_<k>.npy of a folder, by k."""
    files = glob.glob(os.path.join(folder, "output_*.npy"))
    key = lambda f: int(re.search(r"output_(\d+)\.npy$", f).group(1))
    return sorted(files, key=key)


def elementwise(ours, theirs):
    files = output_files(theirs)
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
        max_abs, max_rel, cosine = metrics(a, r)
        result["max_abs"] = max(result["max_abs"], max_abs)
        result["max_rel"] = max(result["max_rel"], max_rel)
        result["cosine"] = min(result["cosine"], cosine)
        if not np.abs(r).max(initial=0.0):
            result["error"] = f"{name}: the reference output is all zeros"
        steps = quantization_steps(a, r) if max_rel > REL_MAX else None
        if steps:
            count, most, step = steps
            result.setdefault("quantized", []).append(
                f"{name}: {count} of {r.size} values are "
                f"{'1' if most == 1 else f'1 to {most}'} quantization step"
                f"{'s' if most > 1 else ''} ({step:.4g}) off, the others equal")
    return finish(result)


def quantization_steps(a, r):
    """When r's values lie on one grid of at most 256 levels (the output of DequantizeLinear),
    (values of a off r, the most grid steps any is off, the step); otherwise None."""
    if not (np.isfinite(a).all() and np.isfinite(r).all()):
        return None
    levels = np.unique(r)
    if not 2 <= levels.size <= 256:
        return None
    gaps = np.diff(levels)
    step = gaps.min()
    multiples = gaps / step
    off = np.abs(a - r) / step
    if np.abs(multiples - np.rint(multiples)).max() > 1e-3 or \
            np.abs(off - np.rint(off)).max() > 1e-3:
        return None
    count = int(np.count_nonzero(np.rint(off)))
    return (count, int(np.rint(off).max()), float(step)) if count else None


def finish(result):
    """Adds "matches" and "reason" to a result of metrics and "error"."""
    within = result["cosine"] is not None and result["cosine"] >= COSINE_MIN \
        and result["max_rel"] <= REL_MAX
    result["matches"] = not result["error"] and within
    result["reason"] = result["error"] or ("" if within else "outside the tolerance")
    if result.get("quantized") and not result["error"]:
        result["reason"] += ": " + "; ".join(result["quantized"])
    return result


def detection_layout(outputs):
    """{boxes, labels, scores, extra: [k...]} output indices, or a message saying what is not
    in the layout export_wide.py writes for a detection model."""
    if len(outputs) < 3:
        return f"{len(outputs)} outputs, not boxes, labels and scores"
    n = outputs[0].shape[0] if outputs[0].ndim else -1
    if outputs[0].ndim != 2 or outputs[0].shape[1] != 4 or outputs[0].dtype.kind != "f":
        return f"output_0 is {outputs[0].dtype}{list(outputs[0].shape)}, not boxes [N, 4]"
    last = len(outputs) - 1
    if outputs[last].shape != (n,) or outputs[last].dtype.kind != "f":
        return f"output_{last} is {outputs[last].dtype}{list(outputs[last].shape)}, " \
               f"not scores [{n}]"
    labels = [k for k, o in enumerate(outputs) if o.shape == (n,) and o.dtype.kind in "iu"]
    if len(labels) != 1:
        return f"{len(labels)} integer outputs of shape [{n}], not one (labels)"
    extra = [k for k in range(1, last) if k != labels[0]]
    for k in extra:
        if not outputs[k].ndim or outputs[k].shape[0] != n:
            return f"output_{k} is {list(outputs[k].shape)}, not per detection [{n}, ...]"
    return {"boxes": 0, "labels": labels[0], "scores": last, "extra": extra}


def max_matching(candidates, n_ref):
    """A maximum matching of a bipartite graph (Kuhn's augmenting paths): candidates[i] lists
    the reference detections acldump detection i may pair with, nearest first. Returns ref_of,
    ref_of[i] = the reference detection paired with i or -1."""
    ours_of = [-1] * n_ref

    def augment(i, seen):
        for j in candidates[i]:
            if j in seen:
                continue
            seen.add(j)
            if ours_of[j] < 0 or augment(ours_of[j], seen):
                ours_of[j] = i
                return True
        return False

    sys.setrecursionlimit(max(1000, 4 * len(candidates) + 100))
    for i in range(len(candidates)):
        augment(i, set())
    ref_of = [-1] * len(candidates)
    for j, i in enumerate(ours_of):
        if i >= 0:
            ref_of[i] = j
    return ref_of


def fmt(v):
    return f"{v:.4g}"


def describe_unmatched(A, R, lay, ref_of, box_tol, score_tol):
    """What the reference detections left unpaired have in common: scores tied with other
    detections' (equal within the tolerance, so NMS and TopK order them arbitrarily), a tie at
    the lowest score kept (which tied detections survive the cut is arbitrary), and how far the
    nearest unpaired acldump detection of the same label is."""
    boxes_a, labels_a, scores_a = (A[lay[k]].astype(np.float64) for k in
                                   ("boxes", "labels", "scores"))
    boxes_r, labels_r, scores_r = (R[lay[k]].astype(np.float64) for k in
                                   ("boxes", "labels", "scores"))
    paired = set(j for j in ref_of if j >= 0)
    left_r = [j for j in range(len(scores_r)) if j not in paired]
    left_a = [i for i in range(len(scores_a)) if ref_of[i] < 0]
    if not left_r:
        return f"{len(left_a)} acldump detection{'s' if len(left_a) > 1 else ''} unpaired"
    near = np.abs(scores_r[:, None] - scores_r[None, :]) <= score_tol
    tied = [j for j in left_r if near[j].sum() > 1]
    n = len(left_r)
    others = "the other one" if n == 1 else f"the {n} others"
    if not tied:
        why = f"{others} {'has' if n == 1 else 'have'} no tied score"
    else:
        lead = others if len(tied) == n else f"{len(tied)} of {others}"
        has = "has a score" if len(tied) == 1 else "have scores"
        why = f"{lead} {has} tied with other detections' (equal within the tolerance"
        lowest = scores_r.min()
        at_cut = int((scores_r == lowest).sum())
        if at_cut > 1 and any(scores_r[j] == lowest for j in left_r):
            why += f"; {at_cut} share the lowest score kept, {lowest:.8g}"
        why += ")"
    parts = [why]
    # The nearest unpaired acldump detection of the same label, for each unpaired reference one.
    box_off, score_off = [], []
    for j in left_r:
        same = [i for i in left_a if labels_a[i] == labels_r[j]]
        if not same:
            continue
        d_box = np.abs(boxes_a[same] - boxes_r[j]).max(axis=1)
        d_score = np.abs(scores_a[same] - scores_r[j])
        k = int(np.argmin(d_box / max(box_tol, 1e-30) + d_score / max(score_tol, 1e-30)))
        box_off.append(d_box[k])
        score_off.append(d_score[k])
    if box_off:
        if len(box_off) == 1:
            parts.append(f"the nearest unpaired acldump detection of the same label is "
                         f"{fmt(box_off[0])} off in the box (tolerance {fmt(box_tol)}), "
                         f"{fmt(score_off[0])} in the score (tolerance {fmt(score_tol)})")
        else:
            parts.append(f"the nearest unpaired acldump detections of the same label are up to "
                         f"{fmt(max(box_off))} off in the box (tolerance {fmt(box_tol)}), up to "
                         f"{fmt(max(score_off))} in the score (tolerance {fmt(score_tol)})")
    if len(box_off) < n:
        k = n - len(box_off)
        parts.append(f"{k} {'has' if k == 1 else 'have'} no unpaired acldump detection of "
                     f"{'its' if k == 1 else 'their'} label")
    return "; ".join(parts)


def detection(ours, theirs):
    ref_files = output_files(theirs)
    result = {"outputs": len(ref_files), "max_abs": None, "max_rel": None, "cosine": None,
              "error": "", "note": "", "detections": None}
    if not ref_files:
        result["error"] = "ONNX Runtime wrote no output"
        return finish(result)
    R, A = [], []
    for ref_file in ref_files:
        name = os.path.basename(ref_file)
        if not os.path.exists(os.path.join(ours, name)):
            result["error"] = f"acldump wrote no {name}"
            return finish(result)
        R.append(np.load(ref_file))
        A.append(np.load(os.path.join(ours, name)))
    lay = detection_layout(R)
    if isinstance(lay, str):
        result["error"] = f"not detection outputs: {lay}"
        return finish(result)
    for k, (a, r) in enumerate(zip(A, R)):
        if a.shape[1:] != r.shape[1:] or a.dtype.kind != r.dtype.kind or (k and not a.ndim) \
                or (a.ndim and a.shape[0] != A[0].shape[0]):
            result["error"] = f"output_{k}: {a.dtype}{list(a.shape)} vs {r.dtype}{list(r.shape)}"
            return finish(result)
        if np.isnan(a.astype(np.float64)).any() or np.isnan(r.astype(np.float64)).any():
            result["error"] = f"output_{k}: NaN"
            return finish(result)
    n_a, n_r = len(A[0]), len(R[0])
    result["detections"] = {"acldump": n_a, "onnxruntime": n_r, "matched": 0}
    if n_a == 0 and n_r == 0:
        result["note"] = "no detections on either engine (random weights)"
        result["matches"], result["reason"] = True, ""
        return result
    boxes_a, labels_a, scores_a = (A[lay[k]].astype(np.float64) for k in
                                   ("boxes", "labels", "scores"))
    boxes_r, labels_r, scores_r = (R[lay[k]].astype(np.float64) for k in
                                   ("boxes", "labels", "scores"))
    box_tol = REL_MAX * float(np.abs(boxes_r).max(initial=0.0))
    score_tol = REL_MAX * float(np.abs(scores_r).max(initial=0.0))
    candidates = []
    for i in range(n_a):
        d_box = np.abs(boxes_r - boxes_a[i]).max(axis=1) if n_r else np.zeros(0)
        d_score = np.abs(scores_r - scores_a[i])
        ok = np.nonzero((labels_r == labels_a[i]) & (d_box <= box_tol) &
                        (d_score <= score_tol))[0]
        dist = d_box[ok] / max(box_tol, 1e-30) + d_score[ok] / max(score_tol, 1e-30)
        candidates.append([int(j) for j in ok[np.argsort(dist, kind="stable")]])
    ref_of = max_matching(candidates, n_r)
    pairs_a = [i for i in range(n_a) if ref_of[i] >= 0]
    pairs_r = [ref_of[i] for i in pairs_a]
    matched = len(pairs_a)
    result["detections"]["matched"] = matched
    # Every output over the matched pairs; max rel against the whole reference output's scale.
    worst = {"max_abs": 0.0, "max_rel": 0.0, "cosine": 1.0}
    outside = []
    for k, (a, r) in enumerate(zip(A, R)):
        scale = float(np.abs(r.astype(np.float64)).max(initial=0.0))
        max_abs, max_rel, cosine = metrics(a[pairs_a].astype(np.float64),
                                           r[pairs_r].astype(np.float64), scale)
        worst["max_abs"] = max(worst["max_abs"], max_abs)
        worst["max_rel"] = max(worst["max_rel"], max_rel)
        worst["cosine"] = min(worst["cosine"], cosine)
        if matched and (max_rel > REL_MAX or cosine < COSINE_MIN):
            what = {lay["boxes"]: "boxes", lay["scores"]: "scores", lay["labels"]: "labels"}.get(
                k, f"output_{k} ({list(r.shape[1:])} per detection)")
            outside.append(f"{what}: max rel "
                           f"{max_rel:.2e}, cosine {cosine:.7f}")
    if matched:
        result.update(worst)
    if n_a != n_r:
        count = f"acldump gives {n_a} detections, ONNX Runtime {n_r}; {matched} match"
    else:
        count = f"{matched} of {n_r} detections match"
    count += " (label, box and score within 1e-4 of the largest)"
    parts = []
    if matched < max(n_a, n_r):
        parts = [count, describe_unmatched(A, R, lay, ref_of, box_tol, score_tol)]
    elif outside:
        parts = [count]
    if outside:
        parts.append("on the matched pairs, " + "; ".join(outside))
    result["error"] = "; ".join(p for p in parts if p)
    result = finish(result)
    if result["matches"]:
        result["note"] = f"{n_r} of {n_r} detections, compared as a set"
    return result


def main():
    args = [a for a in sys.argv[1:] if a != "--detection"]
    if len(args) != 2:
        sys.exit(__doc__)
    if "--detection" in sys.argv[1:]:
        print(json.dumps(detection(*args)))
    else:
        print(json.dumps(elementwise(*args)))


if __name__ == "__main__":
    main()
