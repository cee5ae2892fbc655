"""Plots a bench/gemm/run.py results file: weight GB/s against M per format
and shape, beside bf16 cuBLAS (its bf16 weight bytes a second), the Triton
fp8 peer and the copy; with `tflops`, TFLOP/s against M beside bf16 cuBLAS
(the prefill view: M >= 64).

    python3 bench/gemm/plot.py OUT/gemm/gemm.json docs/results/img/gemm-h200.png [tflops]
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst, mode="gbs"):
    d = json.load(open(src))
    tf = mode == "tflops"
    shapes = sorted({(r["N"], r["K"]) for r in d["rows"]}, key=lambda s: -s[0] * s[1])
    formats = list(dict.fromkeys(r["format"] for r in d["rows"]))
    fig, axs = plt.subplots(1, len(shapes), figsize=(4.5 * len(shapes), 4.2), sharey=True,
                            squeeze=False)
    for ax, (n, k) in zip(axs[0], shapes):
        rows = [r for r in d["rows"] if (r["N"], r["K"]) == (n, k)]
        for fmt in formats:
            rr = [r for r in rows if r["format"] == fmt]
            ax.plot([r["M"] for r in rr], [r["tflops" if tf else "gbs"] for r in rr], "o-",
                    label=f"fpxc {fmt}")
        rr = [r for r in rows if r["format"] == formats[0]]
        # bf16 cuBLAS: its TFLOP/s, or its bf16 weight bytes a second
        work = [2 * r["M"] * n * k / 1e6 if tf else 2 * n * k / 1e3 for r in rr]
        ax.plot([r["M"] for r in rr], [w / r["cublas_us"] for w, r in zip(work, rr)], "k--",
                label="bf16 cuBLAS")
        tr = [r for r in rows if r.get("triton_us")]
        if tr:
            ax.plot([r["M"] for r in tr],
                    [r["tflops" if tf else "gbs"] * r["fpx_us"] / r["triton_us"] for r in tr],
                    "s:", label=f"Triton peer ({tr[0]['format']})")
        if not tf:
            ax.axhline(d["copy_gbs"], color="gray", lw=0.8)
            ax.text(rows[0]["M"], d["copy_gbs"] * 1.01, "copy", color="gray")
        ax.set_xscale("log", base=2)
        ax.set_title(f"N x K = {n}x{k}")
        ax.set_xlabel("M (tokens)")
    axs[0][0].set_ylabel("TFLOP/s" if tf else "weight GB/s (packed codes + scales)")
    axs[0][0].legend(fontsize=8)
    fig.suptitle(f"Weight-only GEMM, {d['device']}: " +
                 ("TFLOP/s against M" if tf else "weight bytes streamed a second against M"))
    fig.tight_layout()
    fig.savefig(dst, dpi=90)


if __name__ == "__main__":
    main(*sys.argv[1:4])
