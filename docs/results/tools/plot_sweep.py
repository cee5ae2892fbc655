#!/usr/bin/env python3
"""Plots a bench_quantize.py results.json of 3D expert shapes as GB/s against
the expert count E (from the rows' "E=..." labels, so the same elements cast
as one tall matrix count too): one line per implementation (fpxc and the
same-run peers) for each named case, with the run's 1 GiB copy bandwidth,
90% of it, and the copy of the same bytes as each E's fpxc row.

  python3 docs/results/tools/plot_sweep.py RESULTS.json OUT.png [case ...]

Without cases: every case that has rows at more than one E.
"""
import json
import re
import sys


def experts(row):
    """E of a row labelled "E=... (...)", else None."""
    m = re.match(r"E=(\d+) ", row.get("shape", ""))
    return int(m.group(1)) if m else None


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = json.load(open(argv[0]))
    rows = [r for r in res["rows"] if r.get("gbs") and experts(r) is not None]
    cases = argv[2:] or sorted({r["case"] for r in rows})
    fig, ax = plt.subplots(figsize=(8, 5))
    for case in cases:
        impls = sorted({r["impl"] for r in rows if r["case"] == case},
                       key=lambda i: (i != "fpxc", i))
        for impl in impls:
            pts = sorted((experts(r), r["gbs"]) for r in rows
                         if r["case"] == case and r["impl"] == impl)
            if len(pts) < 2:
                continue
            es, gbs = zip(*pts)
            ax.plot(es, gbs, marker="o", linewidth=2.5 if impl == "fpxc" else 1.2,
                    label=f"{impl}: {case}")
    same = sorted({(experts(r), r["copy_same_gbs"]) for r in rows
                   if r["impl"] == "fpxc" and r.get("copy_same_gbs") and r["case"] == cases[0]})
    if len(same) > 1:
        es, gbs = zip(*same)
        ax.plot(es, gbs, color="k", linewidth=1, label="copy of the same bytes")
    copy = res["copy_gbs"]
    ax.axhline(copy, color="k", linestyle="--", linewidth=1, label=f"1 GiB copy {copy:.0f} GB/s")
    ax.axhline(0.9 * copy, color="gray", linestyle=":", linewidth=1, label="90% of copy")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("experts E")
    ax.set_ylabel("GB/s (input + output data + scales)")
    env = res.get("env", {})
    ax.set_title(f"3D expert casts against E on {env.get('gpu', env.get('device', 'GPU'))}")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(argv[1], dpi=120)
    print("wrote", argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
