"""Plots bench/gemm/grouped.py's JSON (--out DIR writes grouped.json):
TFLOP/s per case under CUDA graphs, fpxc beside each peer that ran.

  python3 docs/results/tools/plot_grouped.py grouped.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# (the bench's row key, the legend's name)
SERIES = [("fpxc", "fpxc (fpx.grouped_matmul)"),
          ("scaled_grouped_mm", "torch._scaled_grouped_mm"),
          ("grouped_mm_bf16", "torch._grouped_mm bf16"),
          ("scaled_mm_loop", "torch._scaled_mm loop")]


def main():
    data = json.load(open(sys.argv[1]))
    rows = data["rows"]
    fig, ax = plt.subplots(figsize=(14, 5))
    width = 0.8 / len(SERIES)
    for i, (key, name) in enumerate(SERIES):
        xs, ys = [], []
        for j, r in enumerate(rows):
            us = r.get(f"{key}_us")
            if us:
                xs.append(j + (i - (len(SERIES) - 1) / 2) * width)
                ys.append(r["flop"] / us / 1e6)
        ax.bar(xs, ys, width, label=name)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["case"] for r in rows], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("TFLOP/s (CUDA graphs)")
    ax.set_title(f"Grouped fp8 GEMM, G x M x N x K : split ({data['device']}, torch "
                 f"{data['torch']}; '-' peers: refused)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
