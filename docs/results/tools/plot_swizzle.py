"""Plots bench/quantize/bench_swizzle.py logs: GPU time per call (CUDA
graph replay) per shape and group count, one bar per fpx bundle (a log
each) and one per peer (from the first log), on a log scale.

  python3 docs/results/tools/plot_swizzle.py OUT.png NAME=LOG [NAME=LOG ...]
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FPX = re.compile(r"^fpx\.swizzle_scales (\S+ (?:whole|G=\d+))\s+GPU\s+([\d.]+) us")
PEER = re.compile(r"^\s+peer (.+?)\s+GPU\s+([\d.]+) us")


def parse(path):
    """{case: us} for fpx and {peer: {case: us}}."""
    fpx, peers, case = {}, {}, None
    for line in open(path):
        m = FPX.match(line)
        if m:
            case = m.group(1)
            fpx[case] = float(m.group(2))
            continue
        m = PEER.match(line)
        if m and case:
            name = "torch eager" if "eager" in m.group(1) else m.group(1)
            peers.setdefault(name, {})[case] = float(m.group(2))
    return fpx, peers


def main():
    out, runs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    series, peer_series = [], []
    for i, (name, path) in enumerate(runs):
        fpx, peers = parse(path)
        series.append((f"fpx {name}", fpx))
        if i == 0:
            peer_series = [(f"peer: {p}", v) for p, v in peers.items()]
    series += peer_series
    cases = list(series[0][1])
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(8, len(cases) * 1.1), 4.5))
    for k, (label, values) in enumerate(series):
        xs = [i + (k - (len(series) - 1) / 2) * width for i, c in enumerate(cases) if c in values]
        ax.bar(xs, [values[c] for c in cases if c in values], width, label=label)
    ax.set_yscale("log")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("GPU time per call, us (log)")
    ax.set_title("fpx.swizzle_scales to the blocked 128x4 layout (lower is better)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
