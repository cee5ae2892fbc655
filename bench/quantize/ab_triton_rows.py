#!/usr/bin/env python3
"""fpxc's MXFP8 row cast and the Triton peer's, alternated A B A B ... at one
shape, each timed as bench_quantize.py times a case (settled, 200 event-timed
calls over rotated inputs), and once more with each call's outputs given
(no allocation) -- to tell a difference between the kernels from one left by
the call before (L2 state, clocks).

    python3 bench/quantize/ab_triton_rows.py --shape 8192,5120 [--rounds 3]
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_quantize as B  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shape", default="8192,5120")
    p.add_argument("--artifacts", default=str(B.REPO / ".art" / "sm_90a"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--after-compile", action="store_true",
                   help="first run the torch.compile'd reference at the shape (as the "
                        "benchmark does before its Triton peer)")
    p.add_argument("--offsets-mb", default="",
                   help="instead: both with out=, the codes placed at these offsets (MiB) "
                        "into one pool allocated after the inputs")
    a = p.parse_args()
    B._import_torch()
    torch = B.torch
    import fpxc
    import triton_peers as T
    m, k = (int(v) for v in a.shape.split(","))
    kfn = fpxc.load(str(Path(a.artifacts) / "mxfp8_e4m3_floor.json")).mxfp8_e4m3_floor
    timer = B.Timer()
    timer.calibrate()
    n = max(3, min(8, B._cdiv(4 * B.L2_BYTES, m * k * 2)))
    inputs = [B.make_input((m, k), 11 + i) for i in range(n)]
    nbytes = m * k * 2 + m * k + m * k // 32
    qo = torch.empty(m, k, dtype=torch.float8_e4m3fn, device="cuda")
    so = torch.empty(m, k // 32, dtype=torch.uint8, device="cuda")
    so8 = so.view(torch.float8_e8m0fnu) if hasattr(torch, "float8_e8m0fnu") else so
    if a.after_compile:
        # dynamic shapes, as the benchmark compiles its 3D-shape references
        ref = torch.compile(lambda x: B.ref_mx(x, "e4m3", "floor"), dynamic=True)
        t = timer.run(ref, inputs, warmup=2, max_reps=200)
        print(f"torch.compile ref first: {t['median_ms'] * 1e3:.1f} us")
    T.mx_rows(inputs[0])                          # autotune once
    cfg = T._mx_rows_kernel.best_config

    def triton_out(x):
        T.mx_rows_launch(x, qo, so, "floor", cfg.kwargs["BM"], cfg.kwargs["BK"], cfg.num_warps)

    impls = {
        "fpxc": lambda x: kfn(x),
        "triton": lambda x: T.mx_rows(x),
        "fpxc out=": lambda x: kfn(x, out=[qo, so8]),
        "triton out=": triton_out,
    }
    print(f"shape {m}x{k}, {n} inputs, {nbytes / 1e6:.1f} MB a call; triton {cfg}; "
          f"inputs at {[hex(x.data_ptr()) for x in inputs]}, out= codes at {hex(qo.data_ptr())}")
    if a.offsets_mb:
        offs = [float(v) for v in a.offsets_mb.split(",")]
        pool = torch.empty(int((max(offs) + 1) * 2**20) + m * k, dtype=torch.uint8, device="cuda")
        print(f"inputs at {[hex(x.data_ptr()) for x in inputs]}, pool at {hex(pool.data_ptr())}")
        for off in offs:
            o = int(off * 2**20)
            qo = pool[o:o + m * k].view(torch.float8_e4m3fn).view(m, k)
            for name in ("fpxc out=", "triton out=", "fpxc out=", "triton out="):
                f = (lambda x: kfn(x, out=[qo, so8])) if name.startswith("fpxc") else triton_out
                t = timer.run(f, inputs, warmup=2, max_reps=200, settle_s=0.05)
                print(f"codes at pool + {off:6.2f} MiB {name:12s} {t['median_ms'] * 1e3:7.1f} us "
                      f"{nbytes / t['median_ms'] / 1e6:6.0f} GB/s", flush=True)
        return
    for r in range(a.rounds):
        order = list(impls) if r % 2 == 0 else list(reversed(impls))
        for name in order:
            t = timer.run(impls[name], inputs, warmup=2, max_reps=200, settle_s=0.1)
            out = impls[name](inputs[0])          # where an allocating call's codes land
            where = f" codes at {hex(out[0].data_ptr())}" if out else ""
            print(f"round {r} {name:12s} {t['median_ms'] * 1e3:7.1f} us "
                  f"(p10 {t['p10_ms'] * 1e3:.1f}, p90 {t['p90_ms'] * 1e3:.1f}) "
                  f"{nbytes / t['median_ms'] / 1e6:6.0f} GB/s{where}", flush=True)


if __name__ == "__main__":
    main()
