#!/usr/bin/env python3
"""The wide zoo: every model export_wide.py knows, exported, converted, run by acldump and by
ONNX Runtime on the same seeded input, and compared output by output.

Usage (wide.sh installs what it needs, builds, then calls this):
  wide.py --work DIR --bin BAZEL_BIN --node-path NODE_MODULES [--models a,b] [--readme README]

Prints one table row per model as it goes, then the table, the counts, and the operators that
stop models from converting, by how many models each blocks (and how many it alone blocks: the
models it would unlock). A model matches when every output has cosine >= 0.99999 and max error
relative to the largest reference value <= 1e-4. Quantized copies run on ONNX Runtime with basic
graph optimisation (its full level computes their MatMuls in int8 with quantized activations). --readme writes the tables into bench/README.md
between <!-- wide-zoo-begin/end -->. Exports and runs that take longer than --timeout seconds are
misses with that reason.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def run(cmd, timeout, env=None):
    """(ok, last line of the output) of a command; a timeout is a failure."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return False, f"took more than {timeout} s"
    text = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
    last = text[-1] if text else ""
    return proc.returncode == 0, last


def first_error(cmd, timeout, env=None):
    """Like run(), but for Python tracebacks: the exception line, not the last frame."""
    ok, last = run(cmd, timeout, env)
    return ok, last[:300]


UNSUPPORTED = re.compile(r"unsupported op types?: (.*?)\. docs/operators\.md")
ENTRY = re.compile(r"([\w.]+) \((\d+) nodes?, first '[^']*'\)")


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
    proc = subprocess.run([PYTHON, os.path.join(HERE, "compare.py"), ours, theirs],
                          capture_output=True, text=True)
    m = json.loads(proc.stdout)
    row.update(outputs=m["outputs"], max_abs=m["max_abs"], max_rel=m["max_rel"],
               cosine=m["cosine"])
    row["matches"] = not m["error"] and m["cosine"] >= 0.99999 and m["max_rel"] <= 1e-4
    if m["error"]:
        row["reason"] = m["error"]
    elif not row["matches"]:
        row["reason"] = "outside the tolerance"
    return row


def render_row(r):
    num = lambda v, f: (f % v) if v is not None else ""
    matches = "yes" if r["matches"] else "no" + (f": {r['reason']}" if r["reason"] else "")
    cells = [r["model"], r["family"], r["converts"], str(r["outputs"] or ""),
             num(r["max_abs"], "%.2e"), num(r["max_rel"], "%.2e"), num(r["cosine"], "%.7f"),
             matches.replace("|", "\\|")]
    return "| " + " | ".join(cells) + " |"


def summary(rows):
    lines = ["| model | family | converts | outputs | max abs error | max rel error | cosine "
             "| matches |", "|---|---|---|---|---|---|---|---|"]
    lines += [render_row(r) for r in rows]
    matched = sum(r["matches"] for r in rows)
    converted = sum(r["converts"] == "yes" for r in rows)
    lines += ["", f"**{matched} of {len(rows)} models match ONNX Runtime** ({converted} convert; "
              f"{100.0 * matched / max(1, len(rows)):.1f} %).", ""]
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
                        help="replace these models' rows in WORK/wide.json and rewrite the "
                             "tables from all rows")
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
    if args.merge and os.path.exists(results):
        with open(results) as f:
            previous = json.load(f)
        fresh = {r["model"]: r for r in rows}
        rows = [fresh.pop(r["model"], r) for r in previous] + list(fresh.values())
    with open(results, "w") as f:
        json.dump(rows, f, indent=1)
    text = summary(rows)
    print(text)
    if args.readme:
        sys.path.insert(0, HERE)
        import timing
        timing.write_readme(args.readme, text, marker="wide-zoo")


if __name__ == "__main__":
    main()
