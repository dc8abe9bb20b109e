#!/usr/bin/env python3
"""Both gates' results over commits: `bazel run //bench:history -- [--out bench/history.svg]`.

Each run of `//bench:check` or `//bench/counts:gate` given `--history FILE` appends one JSON line
(gate, commit, date, figures). This command draws them as an SVG picture: per gate, each figure
as a line over the runs in file order, normalised to its first run, so that a slow drift shows
before it crosses a limit. The counts panel shows the model cases in no observer mode and the
dump costs per node; the timed panel the gated ratios.
"""
import argparse
import datetime
import html
import json
import os
import subprocess
import sys

DEFAULT_HISTORY = os.path.join("bench", "history.jsonl")


def commit_of_workspace():
    """(sha, dirty) of the workspace `bazel run` was called in; (None, None) elsewhere."""
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not workspace:
        return None, None
    try:
        sha = subprocess.run(["git", "-C", workspace, "rev-parse", "HEAD"], check=True,
                             capture_output=True, text=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", workspace, "status", "--porcelain",
                                     "--untracked-files=no"], check=True, capture_output=True,
                                    text=True).stdout.strip())
        return sha, dirty
    except (OSError, subprocess.CalledProcessError):
        return None, None


def workspace_path(path):
    """A path given on the command line, relative to where `bazel run` was called."""
    if os.path.isabs(path):
        return path
    return os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd(), path)


def append_entry(path, gate, figures, **extra):
    """Appends one run of `gate` ("counts" or "timed") with its figures (name -> number)."""
    sha, dirty = commit_of_workspace()
    entry = {"gate": gate, "commit": sha, "dirty": dirty,
             "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "figures": figures, **extra}
    with open(workspace_path(path), "a") as f:
        f.write(json.dumps(entry, sort_keys=True) + "\n")


def read_entries(path):
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"history: {path}:{number}: not JSON ({e.msg}); "
                                 "remove or mend that line")
            if not isinstance(entry, dict) or not isinstance(entry.get("figures"), dict):
                raise SystemExit(f"history: {path}:{number}: no 'figures' object")
            entries.append(entry)
    return entries


TIMED_FIGURES = frozenset({
    "dump_off_vs_no_observer", "stats_vs_no_observer", "tensor_all_vs_no_observer",
    "mobilenet_v2_dump_off_vs_no_observer", "mobilenet_v2_stats_packed_vs_no_observer",
    "transformer_dump_off_vs_no_observer", "tiny_ops_stats_exec_us_per_node",
    "tiny_ops_tensor_all_exec_us_per_node", "stats_f32_vs_memcpy", "writer_vs_floor_256k"})


def chosen(gate, name):
    """The figures a panel draws (all of them would be unreadable): per model the execution
    without observer, the dump cost per record on the 1,000 tiny ops, and the other cases; the
    timed gate's main ratios."""
    if gate == "counts":
        return name.endswith("/no_observer") or name.startswith("tiny_ops_1000_") and \
            name.endswith("_per_node") or \
            name.startswith(("stats_kernel/", "pack_append/", "model_load/", "config_parse/"))
    return name in TIMED_FIGURES


PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22"]


def panel(entries, gate, title, top, width, height):
    """SVG elements of one panel: each figure over runs, as a ratio to its first value."""
    runs = [e for e in entries if e.get("gate") == gate]
    parts = [f'<text x="10" y="{top + 16}" font-size="14" font-weight="bold">'
             f'{html.escape(title)} ({len(runs)} runs)</text>']
    if not runs:
        parts.append(f'<text x="20" y="{top + 40}" font-size="12">no runs recorded</text>')
        return parts
    names = sorted({n for e in runs for n in e["figures"] if chosen(gate, n)})
    series = {}
    for name in names:
        first = next((e["figures"][name] for e in runs if e["figures"].get(name)), None)
        if first:
            series[name] = [e["figures"][name] / first if name in e["figures"] else None
                            for e in runs]
    values = [v for s in series.values() for v in s if v is not None] or [1.0]
    low, high = min(min(values), 0.98), max(max(values), 1.02)
    left, right, plot_top, plot_bottom = 60, width - 330, top + 30, top + height - 40

    def x(i):
        return left + (right - left) * (i / max(len(runs) - 1, 1))

    def y(v):
        return plot_bottom - (plot_bottom - plot_top) * (v - low) / (high - low)

    parts.append(f'<rect x="{left}" y="{plot_top}" width="{right - left}" '
                 f'height="{plot_bottom - plot_top}" fill="none" stroke="#999"/>')
    for v in sorted({low, 1.0, high}):
        parts.append(f'<line x1="{left}" x2="{right}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                     f'stroke="#ddd"/><text x="{left - 6}" y="{y(v) + 4:.1f}" font-size="10" '
                     f'text-anchor="end">{v:.3f}</text>')
    for i, e in enumerate(runs):
        label = (e.get("commit") or "?")[:7] + ("+" if e.get("dirty") else "")
        parts.append(f'<text x="{x(i):.1f}" y="{plot_bottom + 14}" font-size="9" '
                     f'text-anchor="middle">{html.escape(label)}</text>')
    for k, (name, points) in enumerate(series.items()):
        color = PALETTE[k % len(PALETTE)]
        dash = ' stroke-dasharray="5,3"' if k >= len(PALETTE) else ""
        coords = [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(points) if v is not None]
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5"{dash} '
                     f'points="{" ".join(coords)}"/>')
        for c in coords:
            cx, cy = c.split(",")
            parts.append(f'<circle cx="{cx}" cy="{cy}" r="2" fill="{color}"/>')
        legend_y = plot_top + 12 * k + 8
        if legend_y < plot_bottom + 20:
            parts.append(f'<rect x="{right + 12}" y="{legend_y - 7}" width="10" height="3" '
                         f'fill="{color}"/><text x="{right + 26}" y="{legend_y}" '
                         f'font-size="10">{html.escape(name[:48])}</text>')
    return parts


def draw(entries, out):
    width, height = 1000, 360
    parts = []
    parts += panel(entries, "counts", "Count gate: instructions, relative to the first run",
                   0, width, height)
    parts += panel(entries, "timed", "Timed gate: ratios, relative to the first run", height,
                   width, height)
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{2 * height}" '
           f'font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>'
           + "".join(parts) + "</svg>\n")
    with open(out, "w") as f:
        f.write(svg)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", default=DEFAULT_HISTORY)
    parser.add_argument("--out", default=os.path.join("bench", "history.svg"))
    args = parser.parse_args(argv)
    source = workspace_path(args.history)
    if not os.path.exists(source):
        raise SystemExit(f"history: {source} does not exist (run a gate with --history first)")
    entries = read_entries(source)
    out = workspace_path(args.out)
    draw(entries, out)
    print(f"history: {len(entries)} runs from {source} drawn in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
