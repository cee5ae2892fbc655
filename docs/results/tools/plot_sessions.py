#!/usr/bin/env python3
"""% of copy per cast, one session's fpxc figures beside an earlier one's,
against the issue's 90% line. Each side is a bench_quantize.py results.json
or a bench log (its final table).

    python3 docs/results/tools/plot_sessions.py BEFORE AFTER OUT.png

e.g. the plot of docs/results/2026-11-22-h200-4:
    python3 docs/results/tools/plot_sessions.py docs/results/2026-11-22-h200-3/bench.log \\
        docs/results/2026-11-22-h200-4/bench.log docs/results/2026-11-22-h200-4/quantize.png
"""
import json
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def json_rows(path):
    rows = json.loads(path.read_text())["rows"]
    return {(r["case"], r["shape"]): r["pct_copy"] for r in rows
            if r["impl"] == "fpxc" and r.get("pct_copy")}


def table_rows(path):
    """(case, shape) -> % copy from a bench log's final table."""
    out = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and re.fullmatch(r"[a-z0-9_]+", cells[0] or "-"):
            try:
                out[(cells[0], cells[1])] = float(cells[4])
            except ValueError:
                pass
    return out


def figures(path):
    path = pathlib.Path(path)
    return json_rows(path) if path.suffix == ".json" else table_rows(path)


def main(before_path, after_path, out_path):
    before, after = figures(before_path), figures(after_path)
    keys = [k for k in after if k in before] + [k for k in after if k not in before]
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(keys) + 1.5))
    for i, k in enumerate(keys):
        if k in before:
            ax.barh(i - 0.2, before[k], height=0.4, color="#bbbbbb",
                    label="previous session" if i == 0 else None)
        ax.barh(i + 0.2, after[k], height=0.4,
                color="#2a7ab9" if after[k] >= 90 else "#d9822b",
                label="this session" if i == 0 else None)
        ax.text(after[k] + 0.5, i + 0.2, f"{after[k]:.1f}", va="center", fontsize=7)
    ax.axvline(90, color="k", ls=":", lw=1, label="target: 90% of copy")
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([f"{c} {s}" for c, s in keys], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("% of the device-to-device copy rate measured in the same run (H200)")
    ax.set_title("fpxc casts: previous session vs this one (orange: below 90%)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    print("wrote", out_path, len(keys), "rows")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
