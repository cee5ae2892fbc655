"""Plots bench_dequantize.py's log: % of the copy bandwidth per format and
shape, fpxc beside torch.compile and eager PyTorch of the same run.

  python3 docs/results/tools/plot_dequantize.py bench-dequantize.log OUT.png
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROW = re.compile(r"^(\S+)\s+(\d+x\d+)\s+(fpxc|torch eager|torch\.compile)\s+([\d.]+) us\s+(\d+) GB/s"
                 r"\s+([\d.]+)% of copy")


def main(src, dst):
    pct, keys = {}, []
    copy = ""
    for line in open(src):
        if "device-to-device copy" in line:
            copy = line.split(":", 1)[1].split(";")[0].strip()
        m = ROW.match(line)
        if not m:
            continue
        k = f"{m[1]}\n{m[2]}"
        if k not in keys:
            keys.append(k)
        pct[(k, m[3])] = float(m[6])
    who = ["fpxc", "torch.compile", "torch eager"]
    colors = {"fpxc": "#1f77b4", "torch.compile": "#ff7f0e", "torch eager": "#bbbbbb"}
    fig, ax = plt.subplots(figsize=(max(10, 0.75 * len(keys)), 5.5))
    w = 0.27
    for i, name in enumerate(who):
        xs = [j + (i - 1) * w for j, k in enumerate(keys) if (k, name) in pct]
        ys = [pct[(k, name)] for k in keys if (k, name) in pct]
        ax.bar(xs, ys, w, label=name, color=colors[name])
    ax.axhline(100, color="k", lw=0.8, ls="--")
    ax.axhline(90, color="g", lw=0.8, ls=":", label="90% of copy")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([k.replace("\n", " ") for k in keys], fontsize=7, rotation=40,
                       ha="right")
    ax.set_ylabel("% of device-to-device copy bandwidth")
    ax.set_title(f"dequantize to bf16, one H200 ({copy.replace('device-to-device copy', 'copy')});"
                 " no orange/grey bar: no plain-PyTorch peer", fontsize=9)
    ax.set_ylim(0, 115)
    ax.legend(fontsize=8, loc="upper center", ncol=4)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(*sys.argv[1:3])
