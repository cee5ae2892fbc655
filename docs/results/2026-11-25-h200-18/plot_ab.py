"""Plots the per-row A/B of this call from the bench logs: the kernels before
(`5a442f2`, two runs) and after (the long-row kernel), beside the peers and
the copy measured in the same runs. python3 plot_ab.py -> sweep-per-row-ab.png/.md"""
import re
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

def parse(path):
    copy, rows = None, {}
    for line in open(path):
        m = re.search(r"device-to-device copy .*?([\d.]+) GB/s", line)
        if m:
            copy = float(m.group(1))
        m = re.search(r"\] (fpxc|peer (.+?)) +fp8_per_row +(\d+)x(\d+) +([\d.]+) us.*?(\d+) GB/s", line)
        if m:
            name = "fpxc" if m.group(1) == "fpxc" else m.group(2).strip()
            rows.setdefault(name, {})[int(m.group(4))] = (float(m.group(5)), float(m.group(6)))
    return copy, rows

runs = {"before": "sweep-per-row-prev.log", "after": "sweep-per-row.log",
        "before (again)": "sweep-per-row-prev2.log"}
series, copies = {}, {}
for tag, path in runs.items():
    copy, rows = parse(path)
    copies[tag] = copy
    for name, pts in rows.items():
        series[f"fpxc {tag}" if name == "fpxc" else name] = (pts, copy)
ks = sorted(series["fpxc after"][0])
lines = ["| K | " + " | ".join(f"{n} % copy" for n in series) + " |",
         "|---|" + "---|" * len(series)]
for k in ks:
    lines.append(f"| {k} | " + " | ".join(
        f"{100 * s[0][k][1] / s[1]:.1f}" if k in s[0] else "" for s in series.values()) + " |")
open("sweep-per-row-ab.md", "w").write(
    "copy GB/s: " + ", ".join(f"{t} {c:.0f}" for t, c in copies.items()) + "\n\n" +
    "\n".join(lines) + "\n")
print("\n".join(lines))
fig, ax = plt.subplots(figsize=(7.5, 4.2))
for name, (pts, copy) in series.items():
    kk = sorted(pts)
    ax.plot(kk, [100 * pts[k][1] / copy for k in kk], marker="o",
            ls="--" if "before" in name else "-", label=name)
ax.axhline(90, color="k", ls=":", lw=1, label="90% of copy")
ax.set_xscale("log", base=2)
ax.set_xlabel("row length K (elements; 2^27 / K rows of bf16)")
ax.set_ylabel("% of the same run's copy bandwidth")
ax.set_title("fp8 per-row cast, NVIDIA H200: the long-row kernel")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig("sweep-per-row-ab.png", dpi=120)
