#!/usr/bin/env python3
"""Plots runs of `bench/quantize/run.py per-row` (their bench logs) against one
another: % of each run's own copy bandwidth against the row length K, one line
per run's fpxc (and per peer a run measured), and a markdown table beside.

  python3 docs/results/tools/plot_sweep_ab.py OUT_STEM TITLE LABEL=LOG [LABEL=LOG ...]

writes OUT_STEM.png and OUT_STEM.md. Labels containing "before" are dashed.
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COPY = re.compile(r"device-to-device copy .*?([\d.]+) GB/s")
ROW = re.compile(r"\] (fpxc|peer (.+?)) +fp8_per_row +(\d+)x(\d+) +([\d.]+) us.*?(\d+) GB/s")


def parse(path):
    copy, rows = None, {}
    for line in open(path):
        m = COPY.search(line)
        if m:
            copy = float(m.group(1))
        m = ROW.search(line)
        if m:
            name = "fpxc" if m.group(1) == "fpxc" else m.group(2).strip()
            rows.setdefault(name, {})[int(m.group(4))] = float(m.group(6))
    return copy, rows


def main():
    stem, title, runs = sys.argv[1], sys.argv[2], [a.split("=", 1) for a in sys.argv[3:]]
    series = {}  # name -> ({K: % of copy})
    copies = []
    for label, path in runs:
        copy, rows = parse(path)
        copies.append(f"{label} {copy:.0f}")
        for name, pts in rows.items():
            key = f"fpxc {label}" if name == "fpxc" else name
            series[key] = {k: 100 * g / copy for k, g in pts.items()}
    ks = sorted({k for s in series.values() for k in s})
    lines = ["copy GB/s: " + ", ".join(copies), "",
             "| K | " + " | ".join(f"{n}, % of copy" for n in series) + " |",
             "|---|" + "---|" * len(series)]
    for k in ks:
        lines.append(f"| {k} | " + " | ".join(
            f"{s[k]:.1f}" if k in s else "" for s in series.values()) + " |")
    open(stem + ".md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for name, s in series.items():
        kk = sorted(s)
        ax.plot(kk, [s[k] for k in kk], marker="o", ls="--" if "before" in name else "-",
                label=name)
    ax.axhline(90, color="k", ls=":", lw=1, label="90% of copy")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("row length K (elements; 2^27 / K rows of bf16)")
    ax.set_ylabel("% of the same run's copy bandwidth")
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(stem + ".png", dpi=120)


if __name__ == "__main__":
    main()
