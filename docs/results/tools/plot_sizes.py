#!/usr/bin/env python3
"""Plots a bench_quantize.py results.json of one case family at growing
sizes (`bench/quantize/run.py experts --sizes`) as % of the run's 1 GiB copy against
the bytes each call moves: one line per fpxc case, and the copy of the same
bytes (the ceiling a kernel of that size reaches, launch and tail included).

  python3 docs/results/tools/plot_sizes.py RESULTS.json OUT.png
"""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    res = json.load(open(src))
    lines, same = defaultdict(list), {}
    for r in res["rows"]:
        if r.get("impl") != "fpxc" or "pct_copy" not in r:
            continue
        mb = r["bytes"] / 1e6
        lines[r["case"]].append((mb, r["pct_copy"]))
        same[mb] = 100 * r["copy_same_gbs"] / res["copy_gbs"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for case, pts in lines.items():
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"fpxc {case}")
    xs = sorted(same)
    ax.plot(xs, [same[x] for x in xs], "k--", lw=1, label="copy of the same bytes")
    ax.axhline(90, color="gray", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel("MB moved per call (read + written)")
    ax.set_ylabel(f"% of the 1 GiB copy ({res['copy_gbs']:.0f} GB/s)")
    ax.set_ylim(40, 105)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
