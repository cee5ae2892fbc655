#!/usr/bin/env bash
# One device call: the fp8 per-row cast (block [1, *], fp8_per_row) across
# row lengths K = 512 .. 65536 at 2^27 elements (256 MiB of bf16 in), beside
# the Triton rowwise peer and the torch.compile'd reference, and the 1 GiB
# copy; writes sweep-per-row.png (GB/s against K) and sweep-per-row.md.
# Rows up to 2048 elements are held in registers by teams of threads; longer
# ones are staged whole in shared memory (two a CTA up to 4096 elements, else
# one) up to half an SM's shared memory less 4 KiB; longer rows keep their
# last 2048 vectors in registers and stage the first ones, up to the whole
# budget, reading up to 4096 vectors between twice (where such rows leave an
# SM one CTA, one CTA an SM casts every G-th row, copying the next one in as
# it converts); rows longer than that are read twice by teams of 256 threads.
#   carry: .deps .art/sm_90a     usage: bash bench/quantize/sweep_per_row.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
source bench/quantize/ensure_fpx.sh
ks=${KS:-512,1024,2048,4096,5120,7168,8192,16384,28672,65536}
shapes=$(echo "$ks" | tr ',' '\n' | awk '{printf "%s%dx%d", (NR > 1 ? "," : ""), 134217728 / $1, $1}')
ART=${ART:-.art/sm_90a}  # artifacts; TAG names a variant's output files
TAG=${TAG:-}
EXTRA=${EXTRA:-}         # more bench_quantize.py options, e.g. --no-compile --no-triton
python3 bench/quantize/bench_quantize.py --artifacts "$ART" --out /tmp/sweep-per-row$TAG \
  --no-3d --shapes "$shapes" --cases fp8_per_row --no-eager $EXTRA > "$OUT/sweep-per-row$TAG.log" 2>&1
status=$?
grep -E "\] (fpxc |peer |device-to-device)|PASS|FAIL" "$OUT/sweep-per-row$TAG.log" | cut -c11-
python3 - "$OUT" "$TAG" <<'PY'
import json, sys
out, tag = sys.argv[1], sys.argv[2]
r = json.load(open(f"/tmp/sweep-per-row{tag}/results.json"))
copy = r["copy_gbs"]
series = {}
for row in r["rows"]:
    k = row["input_shape"][-1]
    if "gbs" in row:
        series.setdefault(row["impl"], []).append((k, row["gbs"], row["median_ms"] * 1e3))
lines = [f"# fp8 per-row cast against row length K (M*K = 2^27), {r['env'].get('device')}", "",
         f"copy {copy:.0f} GB/s (1 GiB, read + written); fpxc commit {r['env'].get('commit')}", "",
         "| K | " + " | ".join(f"{n} us | GB/s | % copy" for n in series) + " |",
         "|---|" + "---|---|---|" * len(series)]
ks = sorted({k for s in series.values() for k, _, _ in s})
for k in ks:
    cells = []
    for s in series.values():
        hit = [(g, u) for kk, g, u in s if kk == k]
        cells += [f"{hit[0][1]:.1f}", f"{hit[0][0]:.0f}", f"{100 * hit[0][0] / copy:.1f}"] if hit else ["", "", ""]
    lines.append(f"| {k} | " + " | ".join(cells) + " |")
open(f"{out}/sweep-per-row{tag}.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, s in series.items():
        s.sort()
        ax.plot([k for k, _, _ in s], [g for _, g, _ in s], marker="o", label=name)
    ax.axhline(copy, color="k", ls="--", lw=1, label=f"copy {copy:.0f} GB/s")
    ax.axhline(0.9 * copy, color="k", ls=":", lw=1, label="90% of copy")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("row length K (elements; M = 2^27 / K rows of bf16)")
    ax.set_ylabel("GB/s (bf16 in + e4m3 out + scales)")
    ax.set_title(f"fp8 per-row cast on {r['env'].get('device')}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{out}/sweep-per-row{tag}.png", dpi=120)
except Exception as exc:  # noqa: BLE001
    print("plot skipped:", exc)
PY
exit $status
