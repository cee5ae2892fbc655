"""Plots bench_quantize.py's results.json: GB/s per case and shape, fpxc beside
the best peer of the same run, with the copy bandwidth as a line.

  python3 docs/results/tools/plot_quantize.py RESULTS.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    d = json.load(open(src))
    rows = d["rows"]
    keys, fpxc, peer, peer_name = [], {}, {}, {}
    for r in rows:
        k = f'{r["case"]}\n{r["shape"]}'
        if k not in keys:
            keys.append(k)
        if r["impl"] == "fpxc":
            fpxc[k] = r["gbs"]
        elif r.get("gbs") and "compile" in r["impl"]:
            if r["gbs"] > peer.get(k, 0):
                peer[k], peer_name[k] = r["gbs"], r["impl"]
    keys = [k for k in keys if k in fpxc]
    fig, ax = plt.subplots(figsize=(max(10, 0.55 * len(keys)), 5.5))
    xs = range(len(keys))
    ax.bar([x - 0.2 for x in xs], [fpxc[k] for k in keys], 0.4, label="fpxc")
    ax.bar([x + 0.2 for x in xs], [peer.get(k, 0) for k in keys], 0.4,
           label="torch.compile reference (same run)")
    ax.axhline(d["copy_gbs"], color="k", ls="--", lw=1,
               label=f'device-to-device copy {d["copy_gbs"]:.0f} GB/s')
    ax.axhline(0.9 * d["copy_gbs"], color="grey", ls=":", lw=1, label="90% of copy")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(keys, rotation=90, fontsize=7)
    ax.set_ylabel("GB/s (bytes read + written)")
    ax.set_title(f'fpxc casts on {d["env"]["device"]} ({d["date"]})')
    ax.legend(fontsize=8, loc="lower left", framealpha=0.9)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
