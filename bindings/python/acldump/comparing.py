"""compare: pairs two sides and reports what `dump compare --json` reports."""

import collections
import os

from acldump.trees import MODEL
from acldump.compare_metrics import (METRICS, _escape_name, _format_number, _json_number,
                                     _metrics, _plural, _tolerance)
from acldump.compare_sides import _Filter, _Loader, _folder_key, _load_side
from acldump.compare_stats import (BY_NAMES, compare_records, parse_stat_tolerance,
                                   stats_difference_text)

def _shape_text(shape):
    return "x".join(str(d) for d in shape) if shape else "[]"


def _compare_tensors(a, b, atol, rtol):
    va, shape_a, dtype_a, error_a = a
    vb, shape_b, dtype_b, error_b = b
    t = {"shape_a": shape_a, "shape_b": shape_b, "dtype_a": dtype_a, "dtype_b": dtype_b,
         "problem": "", "count": None, "ignored": None, "violations": None, "metrics": None,
         "worst": []}
    if error_a:
        t["problem"] = "A: " + error_a
    elif error_b:
        t["problem"] = "B: " + error_b
    elif shape_a != shape_b:
        t["problem"] = "shapes differ: %s vs %s" % (_shape_text(shape_a), _shape_text(shape_b))
    else:
        m = _metrics(va, vb)
        violations, worst = _tolerance(va, vb, shape_a, atol, rtol)
        t["count"], t["ignored"], t["violations"] = m["count"], m["ignored"], violations
        t["metrics"] = {k: _json_number(m["values"][k]) for k in METRICS}
        t["worst"] = worst
    return t


def _within(t):
    return not t["problem"] and t["violations"] == 0


def _verdict(tensors, io_kind):
    verdict = "not_compared"
    for t in tensors:
        if t["io"] != io_kind:
            continue
        if not _within(t):
            return "outside"
        verdict = "within"
    return verdict


def _identity(op):
    if not op["type"]:
        return "%s (task %d)" % (op["name"], op["task"])
    return "%s (%s, task %d)" % (op["name"], op["type"], op["task"])


def _describe_outputs(op):
    for t in op["tensors"]:
        if t["io"] == "input" or _within(t):
            continue
        if t["problem"]:
            return "output %d: %s" % (t["position"], t["problem"])
        if t["by"] != "tensors":
            return "output %d is not (%s)" % (t["position"], stats_difference_text(t))
        text = "output %d is not (max |a-b| %s, %d of %d elements outside" % (
            t["position"], _format_number(_float(t["metrics"]["max_abs"])), t["violations"],
            t["count"])
        if t["worst"]:
            w = t["worst"][0]
            text += ", worst at [%s]: a %s, b %s" % (",".join(map(str, w["index"])),
                                                     _format_number(_float(w["a"])),
                                                     _format_number(_float(w["b"])))
        return text + ")"
    return ""


def _float(v):
    return float(v)  # also "nan", "inf", "-inf"


def _name_divergence(pair):
    ops = pair["operators"]
    earlier_outside, not_compared, upstream = False, [], None
    for i, op in enumerate(ops):
        if op["outputs"] == "not_compared":
            not_compared.append(i)
            continue
        if op["outputs"] != "outside":
            continue
        basis = None
        if op["inputs"] == "within":
            basis = "inputs_within"
        elif op["inputs"] == "not_compared" and not earlier_outside:
            basis = "earlier_within" if not not_compared else "earlier_not_compared"
        if basis:
            pair["first_divergence"], pair["basis"] = i, basis
            if basis == "inputs_within":
                why = "%s: its inputs are within the tolerance, " % _identity(op)
            elif basis == "earlier_within":
                why = ("%s: its inputs were not compared, but every earlier operator's outputs "
                       "are within the tolerance; " % _identity(op))
            else:
                pair["earlier_not_compared"] = list(not_compared)
                names = []
                for k in not_compared[:5]:
                    e = ops[k]
                    names.append(e["name"] if not e["type"] else "%s (%s)" % (e["name"],
                                                                             e["type"]))
                if len(not_compared) > 5:
                    names.append("...")
                why = ("%s is the first operator outside the tolerance, but its inputs were not "
                       "compared and %s %s not compared (%s), so the divergence may start "
                       "there; " % (_identity(op), _plural(len(not_compared), "earlier operator"),
                                    "was" if len(not_compared) == 1 else "were",
                                    ", ".join(names)))
            note = why + _describe_outputs(op)
            if op["type"] == "Data":
                note += ("; this is a graph input: the two sides ran on different inputs (give "
                         "both the same one, e.g. `dump run --input`)")
            pair["divergence_note"] = note
            return
        if upstream is None:
            upstream = i
        earlier_outside = True
    if upstream is not None:
        pair["divergence_note"] = (
            "none could be named: the first operator with outputs outside the tolerance, %s, has "
            "inputs outside it too, so the divergence starts upstream in an operator missing "
            "from the dump (dump with dump_mode all and no layer list)" % _identity(ops[upstream]))
    elif pair["tensors_compared"] == 0:
        pair["divergence_note"] = "none: no tensor of A has a counterpart in B"
    elif pair["tensors_outside"] > 0:
        for op in ops:
            if op["inputs"] != "outside":
                continue
            pair["divergence_note"] = (
                "none could be named from outputs: the first tensor outside the tolerance is an "
                "input of %s, so its producer diverges; dump outputs too (dump_mode all) to name "
                "it" % _identity(op))
            break
    else:
        note = "none: every compared tensor is within the tolerance"
        if pair["operators_not_compared"]:
            note += " (%s of A not compared)" % _plural(pair["operators_not_compared"],
                                                       "operator")
        pair["divergence_note"] = note


def _folder_json(side):
    placed = side.layout == MODEL
    return {"path": side.directory,
            "model": side.model if placed else None,
            "model_id": side.model_id if placed else None,
            "iteration": side.iteration if placed else None,
            "device": side.device if placed else None,
            "time": side.time if placed else None}


def _folder_label(side):
    if side.layout == MODEL:
        return "%s (id %d) iteration %d, device %d" % (side.model, side.model_id, side.iteration,
                                                      side.device)
    if side.kind == "reference":
        return "references in " + side.directory
    return "files in " + side.directory


def _compare_folders(a, b, atol, rtol, flt, by="auto", stat_tolerances=()):
    by_name = collections.defaultdict(list)
    by_output = {}
    for i, op in enumerate(b.ops):
        by_name[op.name].append(i)
        for position, original, original_index in op.outputs:
            if original:
                by_output.setdefault((original, original_index), (i, position))
            by_output.setdefault((op.name, position), (i, position))
    occurrences = collections.defaultdict(int)
    used = [False] * len(b.ops)
    load_a, load_b = _Loader(a), _Loader(b)
    pair = {"a": _folder_json(a), "b": _folder_json(b), "tensors_compared": 0,
            "tensors_outside": 0, "operators_not_compared": 0, "first_divergence": None,
            "basis": None, "earlier_not_compared": [], "divergence_note": "", "only_in_b": [],
            "operators": []}
    for index, op in enumerate(a.ops):
        load_a.clear()
        load_b.clear()
        entry = {"index": index, "name": op.name, "type": op.type, "task": op.task_id,
                 "timestamp": op.timestamp, "original_names": op.original_names,
                 "match": "none", "b": "", "inputs": "not_compared",
                 "outputs": "not_compared", "tensors": []}

        def compare(other, is_input, pa, pb):
            if by == "tensors" or (by == "auto" and "stats" not in (a.kind, b.kind)):
                t = _compare_tensors(load_a.load(op, is_input, pa),
                                     load_b.load(other, is_input, pb), atol, rtol)
                t["by"], t["stats"] = "tensors", []
            else:
                sa = load_a.load_stats(op, is_input, pa)
                sb = load_b.load_stats(other, is_input, pb)
                pair_by = by
                if by == "auto":
                    both = (not sa[1] and not sb[1] and sa[0]["checksum"] is not None
                            and sb[0]["checksum"] is not None)
                    pair_by = "checksum" if both else "stats"
                t = compare_records(sa, sb, pair_by, atol, rtol, stat_tolerances)
            t["status"] = "within" if _within(t) else "outside"
            io_kind = "input" if is_input else "output"
            record = {"tensor": "%s %d" % (io_kind, pa), "io": io_kind, "position": pa,
                      "b": "%s %s %d" % (other.name, io_kind, pb)}
            for key in ("shape_a", "shape_b", "dtype_a", "dtype_b", "status", "problem",
                        "count", "ignored", "violations", "metrics", "worst", "by", "stats"):
                record[key] = t[key]
            entry["tensors"].append(record)

        key = op.name if op.name in by_name else _escape_name(op.name)
        named = by_name.get(key)
        k = 0
        if named is not None:
            k = occurrences[key]
            occurrences[key] += 1
        if named is not None and k < len(named):
            other = b.ops[named[k]]
            used[named[k]] = True
            entry["match"], entry["b"] = "name", other.name
            for refs, is_input in ((op.inputs, True), (op.outputs, False)):
                other_refs = other.inputs if is_input else other.outputs
                other_files = other.input_files if is_input else other.output_files
                for position, _, _ in refs:
                    if position >= len(other_refs):
                        continue
                    if b.kind == "reference" and (position >= len(other_files)
                                                  or other_files[position] is None):
                        continue
                    compare(other, is_input, position, position)
        else:
            counterparts = []
            for position, original, original_index in op.outputs:
                producer = original or op.name
                found = by_output.get((producer, original_index))
                if found is None:
                    found = by_output.get((_escape_name(producer), original_index))
                if found is None:
                    continue
                other_index, other_position = found
                other = b.ops[other_index]
                used[other_index] = True
                if other.name not in counterparts:
                    counterparts.append(other.name)
                compare(other, False, position, other_position)
            if entry["tensors"]:
                entry["match"], entry["b"] = "original", ",".join(counterparts)
        entry["inputs"] = _verdict(entry["tensors"], "input")
        entry["outputs"] = _verdict(entry["tensors"], "output")
        for t in entry["tensors"]:
            pair["tensors_compared"] += 1
            if not _within(t):
                pair["tensors_outside"] += 1
        if not entry["tensors"]:
            pair["operators_not_compared"] += 1
        pair["operators"].append(entry)
    for i, op in enumerate(b.ops):
        if not used[i] and flt.type_ok(op.type) and flt.name_ok(op.name, op.original_names):
            pair["only_in_b"].append(op.name)
    _name_divergence(pair)
    return pair


def compare(a, b, atol=1e-3, rtol=1e-3, op_types=None, match=None, iterations=None, model=None,
            by="auto", stat_tolerances=None):
    """Compares two dumps, or a dump and references, as `dump compare A B --json` does, and
    returns the same result as a dict (schema "acldump.compare/1"; docs/tool-reference.md
    describes every field).

    ``a``, ``b``: paths (a dump tree at any level, a folder or .npz of reference arrays);
    ``op_types`` (list of types), ``match`` (regular expression over operator names) and
    ``iterations`` ("3-5", "0,2") filter as --op-type, --match and --iterations do; ``model``
    as --model. ``by`` ("auto", "tensors", "stats", "checksum") and ``stat_tolerances`` (a list
    of "COLUMN=ATOL[,RTOL]") as --by and --stat-tolerance: stats dumps compare by checksum or
    statistics. Raises ValueError / LookupError where the tool exits 2 before comparing."""
    if atol < 0 or rtol < 0:
        raise ValueError("--atol and --rtol must not be negative")
    if by not in BY_NAMES:
        raise ValueError("--by %s is not one of auto, tensors, stats, checksum" % by)
    tolerances = [parse_stat_tolerance(t, rtol) for t in stat_tolerances or []]
    flt = _Filter(op_types, match, iterations)
    side_a = _load_side(os.fspath(a), flt, model)
    side_b = _load_side(os.fspath(b), flt, model)
    if by == "tensors":
        for side in (side_a, side_b):
            if side["kind"] == "stats":
                raise ValueError("--by tensors: '%s' holds stats dumps only" % side["root"])
    notes = ["A: " + n for n in side_a["notes"]] + ["B: " + n for n in side_b["notes"]]
    fa_list, fb_list = side_a["folders"], side_b["folders"]
    pairs, only_a, only_b = [], [], []
    b_flat = len(fb_list) == 1 and fb_list[0].layout != MODEL
    if len(fa_list) == 1 and len(fb_list) == 1:
        pairs.append((fa_list[0], fb_list[0]))
        fa, fb = fa_list[0], fb_list[0]
        if fa.layout == MODEL and fb.layout == MODEL and _folder_key(fa) != _folder_key(fb):
            notes.append("comparing two different folders: %s with %s" % (_folder_label(fa),
                                                                          _folder_label(fb)))
    elif b_flat:
        pairs = [(fa, fb_list[0]) for fa in fa_list]
        notes.append("every folder of A (%d) is compared with the references in %s" % (
            len(fa_list), side_b["root"]))
    else:
        devices_a = {f.device for f in fa_list}
        devices_b = {f.device for f in fb_list}
        with_device = not (len(devices_a) == 1 and len(devices_b) == 1)
        if not with_device and devices_a != devices_b:
            notes.append("device %d of A is paired with device %d of B" % (
                next(iter(devices_a)), next(iter(devices_b))))
        in_b = {}
        for f in fb_list:
            if f.layout == MODEL:
                in_b[_folder_key(f, with_device)] = f
        paired = set()
        for f in fa_list:
            other = in_b.get(_folder_key(f, with_device)) if f.layout == MODEL else None
            if other is None:
                only_a.append(f)
                continue
            pairs.append((f, other))
            paired.add(id(other))
        only_b = [f for f in fb_list if id(f) not in paired]
    pairs.sort(key=lambda p: (p[0].iteration, p[0].ops[0].timestamp if p[0].ops else 0,
                              p[0].model))
    results = [_compare_folders(fa, fb, atol, rtol, flt, by, tolerances) for fa, fb in pairs]
    compared = sum(p["tensors_compared"] for p in results)
    outside = sum(p["tensors_outside"] for p in results)
    not_compared = sum(p["operators_not_compared"] for p in results)
    first_pair = next((i for i, p in enumerate(results) if p["tensors_outside"]), None)
    first = None
    if first_pair is not None:
        p = results[first_pair]
        note = p["divergence_note"] if len(results) == 1 else "in %s: %s" % (
            _folder_label(pairs[first_pair][0]), p["divergence_note"])
        if p["first_divergence"] is not None:
            op = p["operators"][p["first_divergence"]]
            first = {"pair": first_pair, "operator": op["index"], "name": op["name"],
                     "type": op["type"], "task": op["task"], "basis": p["basis"],
                     "folder": p["a"]}
    elif compared == 0:
        note = "none: no tensor of A has a counterpart in B"
    else:
        note = "none: every compared tensor is within the tolerance"
        if not_compared:
            note += " (%s of A not compared)" % _plural(not_compared, "operator")
    return {
        "schema": "acldump.compare/1",
        "a": {"path": side_a["root"], "kind": side_a["kind"], "folders": len(fa_list),
              "operators_filtered_out": side_a["filtered"]},
        "b": {"path": side_b["root"], "kind": side_b["kind"], "folders": len(fb_list),
              "operators_filtered_out": side_b["filtered"]},
        "tolerance": {"atol": atol, "rtol": rtol},
        "filters": flt.describe(),
        "verdict": "nothing_compared" if compared == 0 else ("fail" if outside else "pass"),
        "exit_code": 2 if compared == 0 else (1 if outside else 0),
        "tensors_compared": compared,
        "tensors_outside": outside,
        "operators_not_compared": not_compared,
        "first_divergence": first,
        "divergence_note": note,
        "notes": notes,
        "only_in_a": [_folder_json(f) for f in only_a],
        "only_in_b": [_folder_json(f) for f in only_b],
        "pairs": results,
        "by": by,
        "stat_tolerances": {column: {"atol": t_atol, "rtol": t_rtol}
                            for column, t_atol, t_rtol in tolerances},
    }
