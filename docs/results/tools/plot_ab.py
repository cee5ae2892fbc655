"""Plots an A/B log of `bench/quantize/run.py ab` (OUT/ab.log: its fpxc lines) or of
`run.py python --bundles A,B` (OUT/python-ab.log: bench_python_amax.py's fpx lines), runs marked
"=== abN-LABEL.txt": % of the copy bandwidth per case and shape, one bar per
label (the mean of that label's runs).

  python3 docs/results/tools/plot_ab.py AB.log OUT.png [LABEL=NAME ...]
"""
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RUN = re.compile(r"^=== ab\d+-(\S+)\.txt")
ROW = re.compile(r"^(?:\[[^]]*\] )?fpxc (\S+)\s+((?:E=\d+ \()?\d+(?:x\d+)+\)?)\s+([\d.]+) us "
                 r".*?([\d.]+)% of copy")
# bench_python_amax.py: format, shape, variant (its peers are not plotted)
PY_ROW = re.compile(r"^\s+(\S+)\s+(\d+(?:x\d+)+) (amax .+?)\s+([\d.]+) us .*?([\d.]+)% of copy")


def main(src, dst, names):
    pct = defaultdict(list)
    keys, labels = [], []
    label = None
    for line in open(src):
        m = RUN.match(line)
        if m:
            label = m[1]
            if label not in labels:
                labels.append(label)
            continue
        m = ROW.match(line)
        if m and label:
            k, p = f"{m[1]}\n{m[2]}", m[4]
        elif label and (m := PY_ROW.match(line)):
            variant = (m[3].replace("amax computed (two passes)", "two passes")
                       .replace("amax given (one pass)", "amax given")
                       .replace("amax given and returned", "given+returned"))
            k, p = f"{m[1]}\n{variant}\n{m[2]}", m[5]
        else:
            continue
        if k not in keys:
            keys.append(k)
        pct[(k, label)].append(float(p))
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(keys)), 4.5))
    w = 0.8 / len(labels)
    for i, lab in enumerate(labels):
        ys = [sum(pct[(k, lab)]) / len(pct[(k, lab)]) if pct[(k, lab)] else 0 for k in keys]
        ax.bar([x + i * w for x in range(len(keys))], ys, w, label=names.get(lab, lab))
    ax.axhline(90, color="gray", lw=0.8, ls="--")
    ax.set_xticks([x + w * (len(labels) - 1) / 2 for x in range(len(keys))])
    ax.set_xticklabels(keys, fontsize=7)
    ax.set_ylabel("% of the 1 GiB device-to-device copy")
    ax.set_ylim(0, 110)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], dict(a.split("=", 1) for a in sys.argv[3:]))
