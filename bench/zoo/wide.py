#!/usr/bin/env python3
"""The wide zoo: every model export_wide.py knows, exported, converted, run by acldump and by
ONNX Runtime on the same seeded input, and compared output by output.

Usage (wide.sh installs what it needs, builds, then calls this):
  wide.py --work DIR --bin BAZEL_BIN --node-path NODE_MODULES [--models a,b] [--readme README]
          [--merge]

Prints one table row per model as it goes, then the table, the counts, and the operators that
stop models from converting, by how many models each blocks (and how many it alone blocks: the
models it would unlock). A model matches when every output has cosine >= 0.99999 and max error
relative to the largest reference value <= 1e-4 (compare.py). Detection models are compared as
sets of detections (compare.py --detection: NMS and TopK order tied scores arbitrarily); both
engines giving no detection is a match whose row says so, and when a detection model misses,
ONNX Runtime runs it again with basic graph optimisation and the reason adds how many detections
its own two levels agree on. Quantized copies run on ONNX Runtime with basic graph optimisation
(its full level computes their MatMuls in int8 with quantized activations). --readme writes the
tables into bench/README.md between <!-- wide-zoo-begin/end --> and the rows to WORK/wide.json
(a run without --readme, as of WIDE_MODELS without WIDE_MERGE, writes WORK/wide-partial.json
and leaves both alone). --merge replaces those models' rows in the README's table (the last whole
run's and the merges since; a row's missing operators come from WORK/wide.json where it holds
the same row, else from its reason) and rewrites the tables. Exports and runs that take longer
than --timeout seconds are misses with that reason.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def run_text(cmd, timeout, env=None):
    """(return code, output lines) of a command; None for the code when it timed out."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, [f"took more than {timeout} s"]
    return proc.returncode, (proc.stderr.strip() or proc.stdout.strip()).splitlines()


def run(cmd, timeout, env=None):
    """(ok, last line of the output) of a command; a timeout is a failure."""
    code, text = run_text(cmd, timeout, env)
    return code == 0, text[-1] if text else ""


EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception)\b: ")


def first_error(cmd, timeout, env=None):
    """Like run(), but for Python tracebacks: the exception line, not the last frame (PyTorch's
    exporter prints the graph after it), and what killed a process that printed nothing."""
    code, text = run_text(cmd, timeout, env)
    if code == 0:
        return True, ""
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        cause = " (out of memory?)" if name == "SIGKILL" else ""
        return False, f"killed by {name}{cause}"
    starts = [i for i, line in enumerate(text) if EXCEPTION_LINE.match(line)]
    if not starts:
        return False, (text[-1] if text else "")[:300]
    # The exception's message to the end, on one line, graph dumps in it (quoted IR, its
    # "[Caused by ...]" and "Inputs:" parts) left out.
    message = " ".join(" ".join(text[starts[-1]:]).split())
    message = re.sub(r"`[^`]{80,}`", "`...`", message)
    message = re.split(r" \[Caused by | Inputs: ", message)[0]
    return False, message[:300]


# The list ends at ". docs/operators.md", or where a reason cut short (a README row) ends.
UNSUPPORTED = re.compile(r"unsupported op types?: (.*?)(?:\. docs/operators\.md|$)")
ENTRY = re.compile(r"([\w.]+) \((\d+) nodes?, first ")


def missing_operators(message):
    match = UNSUPPORTED.search(message)
    return [m.group(1) for m in ENTRY.finditer(match.group(1))] if match else []


def inputs_of(work, name):
    files = sorted(f for f in os.listdir(work)
                   if f.startswith(f"{name}.input_") and f.endswith(".npy"))
    return [os.path.join(work, f) for f in files]


def check_model(args, name, family):
    work = args.work
    row = {"model": name, "family": family, "converts": "", "outputs": 0, "max_abs": None,
           "max_rel": None, "cosine": None, "matches": False, "reason": "", "missing": []}
    onnx_path = os.path.join(work, f"{name}.onnx")
    if not os.path.exists(onnx_path) or not inputs_of(work, name):
        ok, msg = first_error([PYTHON, os.path.join(HERE, "export_wide.py"), work, name],
                              args.timeout)
        if not ok:
            row["converts"] = "not exported"
            row["reason"] = f"export: {msg}"
            return row
    inputs = inputs_of(work, name)
    om = os.path.join(work, f"{name}.om")
    ok, msg = run([os.path.join(args.bin, "tools/convert"), onnx_path, om], args.timeout)
    if not ok:
        row["converts"] = "no"
        row["missing"] = missing_operators(msg)
        # The message after "convert: <path>.onnx: ".
        row["reason"] = msg.split(".onnx: ", 1)[-1][:300]
        return row
    row["converts"] = "yes"
    ours, theirs = os.path.join(work, f"{name}.acldump"), os.path.join(work, f"{name}.ort")
    for d in (ours, theirs):
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
    env = dict(os.environ, NODE_PATH=args.node_path)
    if family == "quantized copy":
        # ONNX Runtime's full optimisation rewrites DequantizeLinear + MatMul into its int8
        # kernels, which quantize the float activations too: not the model's arithmetic.
        env["ORT_OPTIMIZATION"] = "basic"
    ok, msg = run(["node", os.path.join(HERE, "ort_run.js"), onnx_path, theirs] + inputs,
                  args.timeout, env)
    if not ok:
        row["reason"] = f"ONNX Runtime: {msg}"
        return row
    ok, msg = run([os.path.join(args.bin, "bench/zoo/zoo_run"), om, ours] + inputs, args.timeout)
    if not ok:
        row["reason"] = f"acldump run: {msg}"
        return row
    detection = ["--detection"] if family == "detection" else []
    m = compare(ours, theirs, detection)
    row.update(outputs=m["outputs"], max_abs=m["max_abs"], max_rel=m["max_rel"],
               cosine=m["cosine"], matches=m["matches"], reason=m["reason"],
               note=m.get("note", ""))
    if detection and not m["matches"] and (m.get("detections") or {}).get("onnxruntime"):
        # How far ONNX Runtime's own two optimisation levels agree on this model's detections.
        basic = os.path.join(work, f"{name}.ort-basic")
        os.makedirs(basic, exist_ok=True)
        for f in os.listdir(basic):
            os.remove(os.path.join(basic, f))
        ok, msg = run(["node", os.path.join(HERE, "ort_run.js"), onnx_path, basic] + inputs,
                      args.timeout, dict(env, ORT_OPTIMIZATION="basic"))
        if ok:
            b = compare(basic, theirs, detection)["detections"] or {}
            row["reason"] += f"; ONNX Runtime's basic and full optimisation levels agree on " \
                             f"{b.get('matched', 0)} of {b.get('onnxruntime', 0)}"
            if b.get("acldump", 0) != b.get("onnxruntime", 0):
                row["reason"] += f" (basic gives {b.get('acldump', 0)})"
    return row


def compare(ours, theirs, flags):
    proc = subprocess.run([PYTHON, os.path.join(HERE, "compare.py"), ours, theirs] + flags,
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def render_row(r):
    num = lambda v, f: (f % v) if v is not None else ""
    if r["matches"]:
        matches = "yes" + (f": {r['note']}" if r.get("note") else "")
    else:
        matches = "no" + (f": {r['reason']}" if r["reason"] else "")
    cells = [r["model"], r["family"], r["converts"], str(r["outputs"] or ""),
             num(r["max_abs"], "%.2e"), num(r["max_rel"], "%.2e"), num(r["cosine"], "%.7f"),
             matches.replace("|", "\\|")]
    return "| " + " | ".join(cells) + " |"


TABLE_BEGIN = "<!-- wide-zoo-begin -->"


def readme_rows(readme, results):
    """The rows of the README's wide-zoo table, each parsed back into a row (a row of `results`,
    WORK/wide.json, where that renders to the same line: it has the full list of missing
    operators; otherwise the missing operators are read from the reason). Every parsed row must
    render back to its line exactly."""
    text = open(readme).read()
    if TABLE_BEGIN not in text:
        return []
    table = text.split(TABLE_BEGIN, 1)[1].split("<!-- wide-zoo-end -->", 1)[0]
    known = {}
    if os.path.exists(results):
        with open(results) as f:
            known = {r["model"]: r for r in json.load(f)}
    rows = []
    lines = table.strip().splitlines()
    # The first table: its header, the separator, then a row a line up to the blank line.
    for line in lines[2:lines.index("") if "" in lines else len(lines)]:
        cells = [c.replace("\\|", "|") for c in line[2:-2].split(" | ")]
        model, family, converts, outputs, max_abs, max_rel, cosine, matches = cells
        num = lambda v: float(v) if v else None
        yes = matches == "yes" or matches.startswith("yes: ")
        tail = matches.split(": ", 1)[1] if ": " in matches else ""
        row = {"model": model, "family": family, "converts": converts,
               "outputs": int(outputs) if outputs else 0, "max_abs": num(max_abs),
               "max_rel": num(max_rel), "cosine": num(cosine), "matches": yes,
               "reason": "" if yes else tail, "note": tail if yes else "",
               "missing": missing_operators(tail) if converts == "no" else []}
        if model in known and render_row(known[model]) == line:
            row = known[model]
        if render_row(row) != line:
            sys.exit(f"wide.py: the README's row of {model} does not parse back to itself:\n"
                     f"{line}\n{render_row(row)}")
        rows.append(row)
    return rows


def summary(rows):
    lines = ["| model | family | converts | outputs | max abs error | max rel error | cosine "
             "| matches |", "|---|---|---|---|---|---|---|---|"]
    lines += [render_row(r) for r in rows]
    matched = sum(r["matches"] for r in rows)
    converted = sum(r["converts"] == "yes" for r in rows)
    empty = sum(r["matches"] and r.get("note", "").startswith("no detections") for r in rows)
    which = "is a detection model" if empty == 1 else "are detection models"
    lines += ["", f"**{matched} of {len(rows)} models match ONNX Runtime** ({converted} convert; "
              f"{100.0 * matched / max(1, len(rows)):.1f} %" +
              (f"; {empty} of the matches {which} with no detections on either engine"
               if empty else "") + ").", ""]
    blocking = {}
    for r in rows:
        for op in r["missing"]:
            entry = blocking.setdefault(op, {"models": 0, "alone": 0})
            entry["models"] += 1
            entry["alone"] += len(r["missing"]) == 1
    if blocking:
        lines += ["| missing operator | models using it | models it alone blocks |",
                  "|---|---|---|"]
        for op, e in sorted(blocking.items(), key=lambda kv: (-kv[1]["models"], kv[0])):
            lines.append(f"| {op} | {e['models']} | {e['alone']} |")
    else:
        lines.append("No missing operator keeps a model from converting.")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", required=True)
    parser.add_argument("--bin", required=True, help="bazel-bin with tools/convert and zoo_run")
    parser.add_argument("--node-path", required=True)
    parser.add_argument("--models", default="")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--readme")
    parser.add_argument("--merge", action="store_true",
                        help="replace these models' rows in the README's table (with --readme) "
                             "and rewrite the tables from all rows")
    args = parser.parse_args()
    listed = subprocess.run([PYTHON, os.path.join(HERE, "export_wide.py"), "--list"],
                            capture_output=True, text=True, check=True).stdout.split()
    families = json.loads(subprocess.run(
        [PYTHON, "-c", "import json, sys; sys.path.insert(0, sys.argv[1]); import export_wide; "
         "print(json.dumps(export_wide.torchvision_models()))", HERE],
        capture_output=True, text=True, check=True).stdout)
    names = args.models.split(",") if args.models else listed
    rows = []
    for name in names:
        family = families.get(name, "quantized copy" if name.endswith(("_qdq", "_dynamic"))
                              else "torch block")
        row = check_model(args, name, family)
        print(render_row(row), file=sys.stderr, flush=True)
        rows.append(row)
    results = os.path.join(args.work, "wide.json")
    if args.merge:
        previous = readme_rows(args.readme, results) if args.readme else []
        if not previous and os.path.exists(results):
            with open(results) as f:
                previous = json.load(f)
        fresh = {r["model"]: r for r in rows}
        rows = [fresh.pop(r["model"], r) for r in previous] + list(fresh.values())
    partial = not args.readme
    with open(os.path.join(args.work, "wide-partial.json") if partial else results, "w") as f:
        json.dump(rows, f, indent=1)
    text = summary(rows)
    print(text)
    if args.readme:
        sys.path.insert(0, HERE)
        import timing
        timing.write_readme(args.readme, text, marker="wide-zoo")


if __name__ == "__main__":
    main()
