#!/usr/bin/env python3
"""Generates postprocess_tiny: a detection post-processing model whose output sizes depend on the
input, with control flow, and its reference outputs.

NonMaxSuppression picks boxes, Gather takes them, an If gives the best score (or 0 when nothing
was picked), a Loop sums the picked scores one by one (a scan output per iteration), and NonZero
lists the scores above 0.5. The references are computed here with numpy, independently of the
runtime. Not run by CI; run it by hand (`/usr/bin/python3 testdata/generate_postprocess.py`) and
commit the files it writes. Needs: python3-onnx python3-numpy.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def iou(a, b):
    ya0, xa0, ya1, xa1 = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    yb0, xb0, yb1, xb1 = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    inter = max(0.0, min(ya1, yb1) - max(ya0, yb0)) * max(0.0, min(xa1, xb1) - max(xa0, xb0))
    union = (ya1 - ya0) * (xa1 - xa0) + (yb1 - yb0) * (xb1 - xb0) - inter
    return inter / union if union > 0 else 0.0


def nms(boxes, scores, max_boxes, iou_threshold, score_threshold):
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    picked = []
    for i in order:
        if scores[i] <= score_threshold or len(picked) == max_boxes:
            continue
        if all(iou(boxes[i], boxes[j]) <= iou_threshold for j in picked):
            picked.append(i)
    return picked


def model():
    scores = helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, 6])
    boxes = helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 6, 4])
    inits = [
        numpy_helper.from_array(np.array([4], np.int64), "max_boxes"),
        numpy_helper.from_array(np.array([0.5], np.float32), "iou"),
        numpy_helper.from_array(np.array([0.2], np.float32), "score_min"),
        numpy_helper.from_array(np.array([6, 4], np.int64), "boxes_shape"),
        numpy_helper.from_array(np.array([6], np.int64), "scores_shape"),
        numpy_helper.from_array(np.array(2, np.int64), "box_column"),
        numpy_helper.from_array(np.array(0, np.int64), "zero_i"),
        numpy_helper.from_array(np.array(0.5, np.float32), "half"),
        numpy_helper.from_array(np.array(0.0, np.float32), "zero_f"),
    ]
    then_branch = helper.make_graph(
        [helper.make_node("ReduceMax", ["picked_scores"], ["best_then"], name="max",
                          keepdims=0)],
        "then", [], [helper.make_tensor_value_info("best_then", TensorProto.FLOAT, [])])
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["zero_f"], ["best_else"], name="none")],
        "else", [], [helper.make_tensor_value_info("best_else", TensorProto.FLOAT, [])])
    body = helper.make_graph(
        [
            helper.make_node("Gather", ["picked_scores", "i"], ["score_i"], name="take", axis=0),
            helper.make_node("Add", ["running", "score_i"], ["running_out"], name="accumulate"),
            helper.make_node("Identity", ["running_out"], ["partial"], name="emit"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("running", TensorProto.FLOAT, []),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("running_out", TensorProto.FLOAT, []),
            helper.make_tensor_value_info("partial", TensorProto.FLOAT, []),
        ])
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_boxes", "iou", "score_min"],
                         ["selected"], name="nms"),
        helper.make_node("Gather", ["selected", "box_column"], ["box_index"], name="box_index",
                         axis=1),
        helper.make_node("Reshape", ["boxes", "boxes_shape"], ["boxes_2d"], name="boxes_2d"),
        helper.make_node("Gather", ["boxes_2d", "box_index"], ["boxes_out"], name="pick_boxes",
                         axis=0),
        helper.make_node("Reshape", ["scores", "scores_shape"], ["scores_1d"], name="scores_1d"),
        helper.make_node("Gather", ["scores_1d", "box_index"], ["picked_scores"],
                         name="pick_scores", axis=0),
        helper.make_node("Shape", ["box_index"], ["count_1d"], name="count"),
        helper.make_node("Squeeze", ["count_1d"], ["count"], name="count_scalar"),
        helper.make_node("Greater", ["count", "zero_i"], ["any"], name="any"),
        helper.make_node("If", ["any"], ["best"], name="best", then_branch=then_branch,
                         else_branch=else_branch),
        helper.make_node("Loop", ["count", "", "zero_f"], ["total", "cumsum"], name="sum",
                         body=body),
        helper.make_node("Greater", ["scores_1d", "half"], ["high"], name="high"),
        helper.make_node("NonZero", ["high"], ["above"], name="above"),
    ]
    outputs = [
        helper.make_tensor_value_info("boxes_out", TensorProto.FLOAT, ["K", 4]),
        helper.make_tensor_value_info("best", TensorProto.FLOAT, []),
        helper.make_tensor_value_info("cumsum", TensorProto.FLOAT, ["K"]),
        helper.make_tensor_value_info("above", TensorProto.INT64, [1, "N"]),
    ]
    graph = helper.make_graph(nodes, "postprocess_tiny", [scores, boxes], outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="acldump testdata")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def reference(scores, boxes):
    s = scores.reshape(6)
    b = boxes.reshape(6, 4)
    picked = nms(b, s, 4, 0.5, 0.2)
    picked_scores = s[picked].astype(np.float32)
    best = np.array(picked_scores.max() if picked else 0.0, np.float32)
    cumsum = np.cumsum(picked_scores, dtype=np.float32) if picked else np.zeros(0, np.float32)
    return {
        "boxes_out": b[picked].astype(np.float32).reshape(len(picked), 4),
        "best": best,
        "cumsum": cumsum,
        "above": np.array(np.nonzero(s > 0.5), np.int64),
    }


def main():
    onnx.save(model(), os.path.join(HERE, "postprocess_tiny.onnx"))
    # Boxes 0 and 1 overlap (IoU 0.81): 1 is suppressed; box 5 scores too low.
    scores = np.array([[[0.9, 0.8, 0.7, 0.3, 0.6, 0.1]]], np.float32)
    boxes = np.array([[[0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30],
                       [0, 20, 10, 30], [20, 0, 30, 10], [40, 40, 50, 50]]], np.float32)
    np.save(os.path.join(HERE, "postprocess_tiny.input.scores.npy"), scores)
    np.save(os.path.join(HERE, "postprocess_tiny.input.boxes.npy"), boxes)
    for name, value in reference(scores, boxes).items():
        np.save(os.path.join(HERE, f"postprocess_tiny.output.{name}.npy"), value)
    # Nothing above the score threshold: no box, the If's else branch, a Loop of no iteration.
    quiet = np.full((1, 1, 6), 0.1, np.float32)
    np.save(os.path.join(HERE, "postprocess_tiny_quiet.input.scores.npy"), quiet)
    for name, value in reference(quiet, boxes).items():
        np.save(os.path.join(HERE, f"postprocess_tiny_quiet.output.{name}.npy"), value)


if __name__ == "__main__":
    main()
