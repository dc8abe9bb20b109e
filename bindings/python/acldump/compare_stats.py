"""compare by statistics or checksum: the records of stats CSVs, the same records computed from
tensors (rounded as the stats writer rounds them), and the comparison of two records, as the
tool does them."""

import csv
import io
import math

try:
    import numpy as np
except ImportError:  # arrays need numpy; reading a tree's index does not
    np = None

from acldump.compare_metrics import _format_number
from acldump.dump_files import DumpFormatError

MAX_STATS_CSV_BYTES = 64 << 20
BY_NAMES = ("auto", "tensors", "stats", "checksum")
_TOLERATED = ("Max", "Min", "Avg", "L2norm")
# Data type numbers whose Max and Min the stats writer prints as integers.
_INTEGER_TYPES = {3, 4, 5, 6, 7, 8, 9, 10, 11}
_KEYS = ("count", "max", "min", "avg", "l2norm", "nan", "negative_inf", "positive_inf",
         "checksum")


def parse_stat_tolerance(text, rtol):
    """"Avg=1e-5" or "Avg=1e-5,1e-4" -> (column, atol, rtol); as `--stat-tolerance`."""
    if "=" not in text:
        raise ValueError("stat tolerance '%s' is not COLUMN=ATOL[,RTOL] (e.g. Avg=1e-5)" % text)
    column, numbers = text.split("=", 1)
    if column not in _TOLERATED:
        raise ValueError("stat tolerance '%s': '%s' is not a statistic with a tolerance (Max, "
                         "Min, Avg, L2norm; counts and checksums compare exactly)"
                         % (text, column))

    def number(part, what):
        try:
            value = float(part)
        except ValueError:
            value = -1.0
        if not value >= 0 or math.isinf(value):
            raise ValueError("%s '%s' is not a non-negative number" % (what, part))
        return value

    atol_text, comma, rtol_text = numbers.partition(",")
    atol = number(atol_text, "atol")
    if comma:
        rtol = number(rtol_text, "rtol")
    return column, atol, rtol


def _optional(cell, parse, row, column):
    if cell in ("", "NA"):
        return None
    try:
        return parse(cell)
    except ValueError:
        raise DumpFormatError("row %d: %s '%s' is not a number" % (row, column, cell)) from None


def _count(text):
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def _hex64(text):
    value = int(text, 16)
    if not 0 <= value < 1 << 64 or text.strip() != text or text.startswith(("0x", "+", "-")):
        raise ValueError(text)
    return value


def read_stats_csv(text):
    """[(is_input, index, record)] of a stats CSV's rows; a record is a dict of dtype, shape and
    the statistics (None where the file has no such column or NA)."""
    rows = [r for r in csv.reader(io.StringIO(text)) if r]
    if not rows:
        raise DumpFormatError("the stats CSV is empty")
    header = rows[0]
    column = {name: i for i, name in enumerate(header)}
    out = []
    for r, row in enumerate(rows[1:], start=1):
        if len(row) != len(header):
            raise DumpFormatError("row %d has %d fields, the header %d" % (r, len(row),
                                                                            len(header)))

        def cell(name):
            return row[column[name]] if name in column else ""

        if "Input/Output" not in column:
            raise DumpFormatError("no column 'Input/Output'")
        direction = cell("Input/Output")
        if direction not in ("Input", "Output"):
            raise DumpFormatError("row %d: Input/Output is '%s', not Input or Output"
                                  % (r, direction))
        index = _optional(cell("Index"), _count, r, "Index")
        if index is None or index > 65535:
            raise DumpFormatError("row %d: Index is missing or above 65535" % r)
        shape_text = cell("Shape")
        shape = ([] if shape_text in ("", "-") else
                 [_optional(d, _count, r, "Shape") for d in shape_text.split("x")])
        record = {"dtype": cell("Data Type"), "shape": shape,
                  "count": _optional(cell("Count"), _count, r, "Count"),
                  "max": _optional(cell("Max Value"), float, r, "Max Value"),
                  "min": _optional(cell("Min Value"), float, r, "Min Value"),
                  "avg": _optional(cell("Avg Value"), float, r, "Avg Value"),
                  "l2norm": _optional(cell("l2norm"), float, r, "l2norm"),
                  "nan": _optional(cell("Nan Count"), _count, r, "Nan Count"),
                  "negative_inf": _optional(cell("Negative Inf Count"), _count, r,
                                            "Negative Inf Count"),
                  "positive_inf": _optional(cell("Positive Inf Count"), _count, r,
                                            "Positive Inf Count"),
                  "checksum": None}
        if "Checksum" in column and cell("Checksum"):
            try:
                record["checksum"] = _hex64(cell("Checksum"))
            except ValueError:
                raise DumpFormatError("row %d: Checksum '%s' is not a 64-bit hexadecimal number"
                                      % (r, cell("Checksum"))) from None
        out.append((direction == "Input", index, record))
    return out


def _written(value, data_type):
    """The value as the stats writer prints it, read back: integers exactly, else six
    significant digits."""
    if math.isnan(value) or math.isinf(value):
        return value
    if data_type in _INTEGER_TYPES and value == math.trunc(value) and -2.0**63 <= value < 2.0**64:
        return float(int(value))
    return float("%.6g" % value)


def _checksum(data):
    try:
        import xxhash  # noqa: PLC0415 - only tensors compared with checksums need it
    except ImportError:
        return None
    return xxhash.xxh3_64_intdigest(bytes(data))


def record_of_array(values, data, data_type, dtype_name, shape):
    """The record a stats dump of a tensor would hold: ``values`` its elements (numpy, any
    shape), ``data`` its bytes as they sit in memory, ``data_type`` its dump data type number."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    count = int(v.size)
    nan = int(np.count_nonzero(np.isnan(v)))
    positive_inf = int(np.count_nonzero(v == np.inf))
    negative_inf = int(np.count_nonzero(v == -np.inf))
    finite = v[np.isfinite(v)]
    record = {"dtype": dtype_name, "shape": list(shape), "count": count, "max": None,
              "min": None, "avg": None, "l2norm": None, "nan": nan,
              "negative_inf": negative_inf, "positive_inf": positive_inf,
              "checksum": _checksum(data)}
    if count == 0:
        return record
    if positive_inf:
        high = math.inf
    elif finite.size:
        high = float(finite.max())
    else:
        high = -math.inf if negative_inf else math.nan
    if negative_inf:
        low = -math.inf
    elif finite.size:
        low = float(finite.min())
    else:
        low = math.inf if positive_inf else math.nan
    if nan or (positive_inf and negative_inf):
        avg = math.nan
    elif positive_inf or negative_inf:
        avg = math.inf if positive_inf else -math.inf
    else:
        avg = float(finite.sum()) / finite.size if finite.size else math.nan
    if nan:
        l2norm = math.nan
    elif positive_inf or negative_inf:
        l2norm = math.inf
    else:
        l2norm = math.sqrt(float(np.dot(finite, finite)))
    record["max"], record["min"] = _written(high, data_type), _written(low, data_type)
    record["avg"], record["l2norm"] = _written(avg, -1), _written(l2norm, -1)
    return record


def _same_real(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


def _real_within(a, b, atol, rtol):
    if not math.isfinite(a) or not math.isfinite(b):
        return _same_real(a, b)
    return abs(a - b) <= atol + rtol * abs(b)


def compare_records(a, b, by, atol, rtol, stat_tolerances):
    """One tensor pair by statistics or checksum (``by``: "stats" or "checksum"); ``a`` and
    ``b`` are (record, error). Returns the fields `dump compare --json` gives the pair."""
    record_a, error_a = a
    record_b, error_b = b
    t = {"by": by, "stats": [], "shape_a": [], "shape_b": [], "dtype_a": "", "dtype_b": "",
         "problem": "", "count": None, "ignored": None, "violations": None, "metrics": None,
         "worst": []}
    if error_a or error_b:
        t["problem"] = "A: " + error_a if error_a else "B: " + error_b
        return t
    t["shape_a"], t["shape_b"] = record_a["shape"], record_b["shape"]
    t["dtype_a"] = record_a["dtype"] or "?"
    t["dtype_b"] = record_b["dtype"] or "?"
    if record_a["shape"] != record_b["shape"]:
        t["problem"] = "shapes differ: %s vs %s" % (_shape_text(record_a["shape"]),
                                                    _shape_text(record_b["shape"]))
        return t
    if by == "checksum" and (record_a["checksum"] is None or record_b["checksum"] is None):
        t["problem"] = ("%s has no checksum (dump with dump_data: checksum, or \"Checksum\" in "
                        "dump_stats; or compare --by stats)"
                        % ("A" if record_a["checksum"] is None else "B"))
        return t
    stats = t["stats"]
    ca, cb = record_a["checksum"], record_b["checksum"]
    if ca is not None and cb is not None:
        stats.append({"column": "Checksum", "a": "%016x" % ca, "b": "%016x" % cb,
                      "within": ca == cb})

    def count(column, key):
        x, y = record_a[key], record_b[key]
        if x is not None and y is not None:
            stats.append({"column": column, "a": str(x), "b": str(y), "within": x == y})

    def real(column, key):
        x, y = record_a[key], record_b[key]
        if x is None or y is None:
            return
        atol_c, rtol_c = atol, rtol
        for name, tol_a, tol_r in stat_tolerances:
            if name == column:
                atol_c, rtol_c = tol_a, tol_r
        stats.append({"column": column, "a": _format_number(x), "b": _format_number(y),
                      "within": _real_within(x, y, atol_c, rtol_c)})

    count("Count", "count")
    real("Max", "max")
    real("Min", "min")
    real("Avg", "avg")
    real("L2norm", "l2norm")
    count("Nan", "nan")
    count("Negative Inf", "negative_inf")
    count("Positive Inf", "positive_inf")
    violations = sum(1 for d in stats if not d["within"]
                     and (by == "stats") == (d["column"] != "Checksum"))
    compared = any((d["column"] not in ("Checksum", "Count")) if by == "stats"
                   else d["column"] == "Checksum" for d in stats)
    if not compared:
        t["problem"] = "no statistic recorded on both sides"
        return t
    t["count"] = record_a["count"] if record_a["count"] is not None else 0
    t["violations"] = violations
    return t


def stats_difference_text(t):
    """"Checksum 1f.. vs 2e..; Max 1.5 vs 1.2": what differs in a pair compared by statistics
    or checksum."""
    parts = ["%s %s vs %s" % (d["column"], d["a"], d["b"]) for d in t["stats"]
             if not d["within"] and not (t["by"] == "stats" and d["column"] == "Checksum")]
    if not parts:
        return ""
    text = "; ".join(parts)
    statistics = any(d["column"] not in ("Checksum", "Count") for d in t["stats"])
    if t["by"] == "checksum" and len(parts) == 1 and statistics:
        text += ", statistics within the tolerance"
    return text


def _shape_text(shape):
    return "x".join(str(d) for d in shape) if shape else "[]"
