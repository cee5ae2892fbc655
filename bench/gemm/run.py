#!/usr/bin/env python3
"""Weight-only linear benchmark (issue 38): fpxc's fused dequant GEMM against
the peers a user has, in one run on one GPU.

For each weight shape (N, K) and token count M: y = x @ (w * s)^T with bf16
x and y, the weight as fp8 codes with one fp32 scale per output channel.
Prints, per row: fpxc's GPU time under CUDA graphs (weights rotated through
enough buffers that L2 holds none), the eager call's time, the packed weight
+ scale bytes streamed per second and their ratio to the same run's
device-to-device copy bandwidth (TFLOP/s from M >= 256), then the peers:
bf16 cuBLAS (torch.mm on the dequantized weight) and torch.compile of the
dequantize-then-matmul a user writes (`x @ (w.to(bf16) * s).T`). Every fpxc
result is checked against an fp32 matmul of the dequantized weight
(relative Frobenius error <= 1e-2).

    python3 bench/gemm/run.py --artifacts .art/gemm/sm_90a [--shapes 28672x8192,...]
        [--ms 1,4,16,64] [--peers cublas,compile] [--out DIR]

The artifacts are fpxc compiles of bench/gemm/specs/*.mlir (dynamic shapes):
    for s in bench/gemm/specs/*.mlir; do
      build/compiler/tools/fpxc compile $s --target sm_90a --cubin -o .art/gemm/sm_90a/$(basename $s .mlir)
    done
"""
import argparse
import json
import os
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "quantize"))
from queued_timing import copy_bandwidth, graph_us, queued_us  # noqa: E402

SHAPES = [(4096, 4096), (14336, 4096), (4096, 14336), (28672, 8192), (8192, 28672)]
MS = [1, 4, 16, 64, 256, 4096]
FORMATS = {"fp8_e4m3": (torch.float8_e4m3fn, "wo_fp8_e4m3_bf16"),
           "fp8_e5m2": (torch.float8_e5m2, "wo_fp8_e5m2_bf16")}


def pack_mma_tiles(codes):
    """N x K 8-bit codes -> the mma_tiles layout (docs/formats.md): tiles of
    16 rows x 32 columns; lane 4g+t holds rows g, g+8 at k = 8t..8t+7, its
    byte 4w + b being row g + 8(b/2) at k = 8t + 2w + b%2."""
    n, k = codes.shape
    v = codes.view(torch.uint8).reshape(n // 16, 2, 8, k // 32, 4, 4, 2)
    # dims: rt, upper, g, kt, t, w, e  ->  rt, kt, g, t, w, upper, e
    return v.permute(0, 3, 2, 4, 5, 1, 6).contiguous().view(n, k).view(codes.dtype)


def rotations(bytes_per_set, l2_bytes):
    """Buffers to rotate through so that L2 holds none of them (3x L2)."""
    return max(2, -(-3 * l2_bytes // max(bytes_per_set, 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--artifacts", required=True, help="folder of wo_*.json (fpxc compiles)")
    ap.add_argument("--shapes", default=",".join(f"{n}x{k}" for n, k in SHAPES))
    ap.add_argument("--ms", default=",".join(map(str, MS)))
    ap.add_argument("--formats", default="fp8_e4m3")
    ap.add_argument("--peers", default="cublas,compile")
    ap.add_argument("--out", default=None, help="write results.json here")
    a = ap.parse_args()
    import fpxc

    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    copy_gbs, copy_line = copy_bandwidth(dev)
    print(copy_line)
    peers = set(filter(None, a.peers.split(",")))
    shapes = [tuple(int(v) for v in s.split("x")) for s in a.shapes.split(",")]
    ms = [int(m) for m in a.ms.split(",")]
    compiled = torch.compile(lambda x, w, s: x @ (w.to(torch.bfloat16) * s).T) \
        if "compile" in peers else None
    rows = []
    hdr = (f"{'format':9} {'N':>6} {'K':>6} {'M':>5} | {'fpx us':>8} {'eager':>8} {'GB/s':>6} "
           f"{'%copy':>6} {'TF/s':>6} {'rel':>8} | {'cublas':>8} {'%copy':>6} {'x':>5} | "
           f"{'compile':>8} {'x':>5}")
    print(hdr)
    for fmt in a.formats.split(","):
        dtype, fn_name = FORMATS[fmt]
        art = fpxc.load(str(pathlib.Path(a.artifacts) / f"{fn_name}.json"))
        call = getattr(art, fn_name)
        for n, k in shapes:
            wbytes = n * k + n * 4
            nbuf = rotations(wbytes, l2)
            gen = torch.Generator(device=dev).manual_seed(n * 7 + k)
            w32 = torch.randn(n, k, device=dev, generator=gen)
            s = (w32.abs().amax(dim=1, keepdim=True) / torch.finfo(dtype).max).float()
            codes = (w32 / s).to(dtype)
            del w32
            packed = [pack_mma_tiles(codes).clone() for _ in range(nbuf)]
            scales = [s.clone() for _ in range(nbuf)]
            wdq = (codes.float() * s)
            wbf = wdq.to(torch.bfloat16)
            nbuf_b = rotations(2 * n * k, l2)
            wbfs = [wbf.clone() for _ in range(nbuf_b)] if "cublas" in peers else []
            codes_r = [codes.clone() for _ in range(nbuf)] if compiled else []
            s16 = s.to(torch.bfloat16)
            for m in ms:
                x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
                y = call(x, packed[0], scales[0])
                ref = x.float() @ wdq.T
                rel = ((y.float() - ref).norm() / ref.norm()).item()
                g_us = graph_us(lambda i: call(x, packed[i % nbuf], scales[i % nbuf]),
                                reps=max(20, 2 * nbuf))
                e_us = queued_us(lambda i: call(x, packed[i % nbuf], scales[i % nbuf]))
                gbs = wbytes / g_us / 1e3
                tf = 2 * m * n * k / g_us / 1e6
                row = dict(format=fmt, N=n, K=k, M=m, fpx_us=g_us, eager_us=e_us, gbs=gbs,
                           copy_pct=100 * gbs / copy_gbs, tflops=tf, rel=rel, ok=rel <= 1e-2)
                line = (f"{fmt:9} {n:6} {k:6} {m:5} | {g_us:8.1f} {e_us:8.1f} {gbs:6.0f} "
                        f"{row['copy_pct']:5.1f}% {tf:6.1f} {rel:8.1e} |")
                if wbfs:
                    c_us = graph_us(lambda i: torch.mm(x, wbfs[i % nbuf_b].T), reps=max(20, 2 * nbuf_b))
                    row.update(cublas_us=c_us, cublas_copy_pct=100 * 2 * n * k / c_us / 1e3 / copy_gbs)
                    line += f" {c_us:8.1f} {row['cublas_copy_pct']:5.1f}% {c_us / g_us:4.2f}x |"
                if compiled:
                    compiled(x, codes_r[0], s16)
                    p_us = graph_us(lambda i: compiled(x, codes_r[i % nbuf], s16),
                                    reps=max(20, 2 * nbuf))
                    if p_us:
                        row.update(compile_us=p_us)
                        line += f" {p_us:8.1f} {p_us / g_us:4.2f}x"
                print(line + ("" if row["ok"] else "  FAIL"), flush=True)
                rows.append(row)
            del packed, scales, wbfs, codes_r
            torch.cuda.empty_cache()
    if a.out:
        out = pathlib.Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "gemm.json").write_text(json.dumps(dict(
            device=torch.cuda.get_device_name(), copy_gbs=copy_gbs, rows=rows), indent=1))
    bad = [r for r in rows if not r["ok"]]
    print(f"{len(rows) - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
