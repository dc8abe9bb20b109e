"""compare's metrics and tolerance, in the same order and float64 operations as the tool."""

import math
import re

try:
    import numpy as np
except ImportError:  # arrays need numpy; reading a tree's index does not
    np = None

# ---------------------------------------------------------------------------
# compare: what `dump compare --json` reports.

_EPSILON = 2.220446049250313e-16  # DBL_EPSILON
_FLT_EPSILON = 1.1920928955078125e-07
_WORST_ELEMENTS = 5
METRICS = ["cosine", "max_abs", "mean_abs", "rmse", "rel_euclidean", "max_rel", "mean_rel",
           "acc_rel", "kl", "std_a", "std_b", "rel_lt_0.001", "rel_lt_0.005"]


def _format_number(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    return "%.6g" % v


def _json_number(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _plural(n, noun):
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def _escape_name(name):
    return re.sub(r"[ ./\\]", "_", name)


def _seq_sum(values):
    # Left to right, as the tool's loops add.
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def _population_std(v):
    if v.size == 0:
        return 0.0
    mean = _seq_sum(v) / v.size
    return math.sqrt(_seq_sum((v - mean) * (v - mean)) / v.size)


def _distribution(v):
    lo, hi = float(v.min()), float(v.max())
    span = hi - lo
    scaled = (v - lo) / span if span != 0 else v
    p = np.maximum(scaled, _FLT_EPSILON)
    return p / _seq_sum(p)


def _kl(x, y):
    if x.size == 0:
        return 0.0
    p, q = _distribution(x), _distribution(y)
    ratio = p / q
    logs = np.fromiter((math.log(r) for r in ratio), dtype=np.float64, count=ratio.size)
    return max(_seq_sum(p * logs), 0.0)


def _same_nonfinite(a, b):
    both_nan = np.isnan(a) & np.isnan(b)
    same_inf = np.isinf(a) & (a == b)
    return both_nan | same_inf


def _metrics(a, b):
    m = {"count": int(a.size), "ignored": 0}
    finite = np.isfinite(a) & np.isfinite(b)
    same = ~finite & _same_nonfinite(a, b)
    m["ignored"] = int(same.sum())
    values = dict.fromkeys(METRICS, 0.0)
    values["cosine"] = 1.0
    values["rel_lt_0.001"] = values["rel_lt_0.005"] = 1.0
    if bool((~finite & ~same).any()):
        for k in METRICS:
            values[k] = math.nan
        m["values"] = values
        return m
    x, y = a[finite], b[finite]
    n = x.size
    if n == 0:
        m["values"] = values
        return m
    d = x - y
    xx, yy = _seq_sum(x * x), _seq_sum(y * y)
    ad = np.abs(d)
    values["max_abs"] = float(ad.max())
    sum_abs, sum_sq = _seq_sum(ad), _seq_sum(d * d)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rel = np.where(np.abs(y) > _EPSILON, np.abs(x / y - 1), 0.0)
    values["max_rel"] = max(float(rel.max()), 0.0)
    acc_rel = _seq_sum(rel)
    norm_x, norm_y = math.sqrt(xx), math.sqrt(yy)
    if norm_x <= _EPSILON and norm_y <= _EPSILON:
        values["cosine"] = 1.0
    elif norm_x <= _EPSILON or norm_y <= _EPSILON:
        values["cosine"] = math.nan
    else:
        values["cosine"] = min(_seq_sum((x / norm_x) * (y / norm_y)), 1.0)
    values["mean_abs"] = sum_abs / n
    values["rmse"] = math.sqrt(sum_sq / n)
    values["rel_euclidean"] = 0.0 if yy <= _EPSILON else math.sqrt(sum_sq / yy)
    values["acc_rel"] = acc_rel
    values["mean_rel"] = acc_rel / n
    values["kl"] = _kl(x, y)
    values["std_a"] = _population_std(x)
    values["std_b"] = _population_std(y)
    values["rel_lt_0.001"] = int((rel < 0.001).sum()) / n
    values["rel_lt_0.005"] = int((rel < 0.005).sum()) / n
    m["values"] = values
    return m


def _tolerance(a, b, shape, atol, rtol):
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        excess = diff - (atol + rtol * np.abs(b))
    mismatch = ~finite & ~_same_nonfinite(a, b)
    excess = np.where(finite, excess, np.where(mismatch, math.inf, -1.0))
    outside = (finite & (excess > 0)) | mismatch
    violations = int(outside.sum())
    worst = []
    if violations:
        index = np.nonzero(outside)[0]
        order = np.lexsort((index, -excess[index]))[:_WORST_ELEMENTS]
        for k in order:
            flat = int(index[k])
            va, vb = float(a[flat]), float(b[flat])
            multi = [int(i) for i in np.unravel_index(flat, shape)] if shape else []
            abs_diff = abs(va - vb) if math.isfinite(va) and math.isfinite(vb) else math.inf
            worst.append({"index": multi, "flat": flat, "a": _json_number(va),
                          "b": _json_number(vb), "abs_diff": _json_number(abs_diff)})
    return violations, worst
