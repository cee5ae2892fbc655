#!/usr/bin/env python3
"""Column-block casts (`transposed`) on the GPU against fpx's CPU numerics
core, byte for byte, at row counts that end inside a staged output unit
(M = 8, 16 or 24 mod 32) and column counts that end inside a tile. A quick
device-call check of the column kernel's staging and tail stores for block
heights and row counts the C++ GPU tests do not take, beside the ones they do.

    python3 bench/quantize/check_cols_gpu.py --artifacts DIR [--only STEM,...]

Each artifact DIR/STEM.json is one function of x; its outputs are compared
with fpx.quantize(x.cpu(), **kwargs). Exits 1 on any differing byte.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_quantize as B  # noqa: E402

CASES = {
    # stem: (fpx.quantize keyword arguments, block height)
    "q_mxfp4_cols8": (dict(format="mxfp4", block=(8, 1), rule="floor"), 8),
    "q_mxfp8_cols8": (dict(format="mxfp8_e4m3", block=(8, 1), rule="floor"), 8),
    "nvfp4_16x1": (dict(format="nvfp4", block=(16, 1)), 16),
    "mxfp4_cols": (dict(format="mxfp4", block=(32, 1), rule="floor", packing="fp4x2"), 32),
    "mxfp8_e4m3_cols": (dict(format="mxfp8_e4m3", block=(32, 1), rule="floor"), 32),
    # blocks taller than 32 rows: 32-row segments whose maxima meet in
    # shared memory (GPU-test specs)
    "q_fp8_cols128": (dict(format="fp8_e4m3", block=(128, 1)), 128),
    "q_mxfp4_cols64": (dict(format="mxfp4", block=(64, 1), rule="floor"), 64),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--artifacts", required=True)
    p.add_argument("--fpx-path", default="")
    p.add_argument("--only", default="", help="comma-separated stems (default: every case)")
    a = p.parse_args()
    if a.fpx_path:
        sys.path.insert(0, a.fpx_path)
    import fpxc
    import torch
    B._import_torch()
    bad = 0
    for stem, (kw, bm) in CASES.items():
        if a.only and stem not in a.only.split(","):
            continue
        path = Path(a.artifacts) / f"{stem}.json"
        if not path.exists():
            print(f"FAIL {stem}: no artifact {path}")
            bad += 1
            continue
        fn = fpxc.load(path).functions[stem]
        for m in sorted({bm, 3 * bm, 5 * bm, 17 * bm, 33 * bm, 129 * bm}):
            for k in (8, 136, 520):
                x = B.make_input((m, k), m * 1000 + k)
                x[0, : min(k, 4)] = 0  # an all-zero start of a block
                outs = fn(x)
                torch.cuda.synchronize()
                q = fpxc.quantize(x.cpu(), **kw)
                got = {"data": B._mismatch(outs[0].transpose(-1, -2).cpu(), q.data),
                       "scales": B._mismatch(outs[1].cpu(), q.scales)}
                ok = all(v == 0 for v in got.values())
                bad += not ok
                print(f"{'PASS' if ok else 'FAIL'} {stem:16s} {m}x{k}: {got}", flush=True)
    print(f"{bad} failing shapes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
