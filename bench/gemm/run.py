#!/usr/bin/env python3
"""Weight-only linear benchmark (issue 38): fpxc's fused dequant GEMM against
the peers a user has, in one run on one GPU.

For each weight shape (N, K) and token count M: y = x @ (w * s)^T with bf16
x and y, the weight quantized by fpxc.quantize_weight (codes in the
mma_tiles layout: fp8 with one fp32 scale per output channel, MXFP8 / MXFP4
with E8M0 block-32 scales, NVFP4 with ue4m3 block-16 scales and the tensor
scale). Prints, per row:
fpxc's GPU time under CUDA graphs (weights rotated through enough buffers
that L2 holds none), the eager call's time, the packed weight + scale bytes
streamed per second and their ratio to the same run's device-to-device copy
bandwidth (TFLOP/s from M >= 256), then the peers: bf16 cuBLAS (torch.mm on
the dequantized weight), torch.compile of the dequantize-then-matmul a user
writes (`x @ (w.to(bf16) * s).T`), and a Triton fused dequant-matmul
(bench/gemm/triton_peer.py, every format: split-K for M <= 64, autotuned;
skipped, with a note, where triton is not installed). Every fpxc, compile and
Triton result is checked against an fp32 matmul of the dequantized weight
(relative Frobenius error <= 1e-2). The bytes counted are fpxc's packed
codes and the scales (and NVFP4's 4-byte tensor scale). For the formats other
than per-channel fp8 the torch.compile peer is the dequantize a torch user
writes (a lookup of the code values, times the scales over their blocks;
4-bit codes two a byte) before the bf16 matmul. The Triton peer decodes in
registers the codes as a Triton user stores them: 8-bit one a byte, 4-bit two
a byte, 6- and 5-bit codes one a byte (no sub-byte gather in Triton), so for
those it streams more bytes than fpxc; its row then ends with the ratio,
e.g. `[1.32x bytes]`.

    python3 bench/gemm/run.py [--shapes 28672x8192,...] [--ms 1,4,16,64]
        [--formats fp8_e4m3,fp8_e5m2,mxfp8_e4m3,mxfp8_e5m2,mxfp4,nvfp4]
        [--peers cublas,compile,triton] [--out DIR]
        [--artifacts .art/gemm/sm_90a]

fpxc is called as a user calls it, fpxc.linear (the package's bundled
kernels); with --artifacts, the artifacts' functions are called directly
instead (fpxc compiles of bench/gemm/specs/*.mlir, dynamic shapes):
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

# The fp8 dtype the MXFP8 specs' codes have (the packed weight holds uint8).
ART_CODES = {"mxfp8_e4m3": torch.float8_e4m3fn, "mxfp8_e5m2": torch.float8_e5m2}
SHAPES = [(4096, 4096), (14336, 4096), (4096, 14336), (28672, 8192), (8192, 28672)]
MS = [1, 4, 16, 64, 256, 4096]
# format -> (the codes' torch dtype for the per-channel fp8 compile peer, or
# None: compile_peer's dequantize; the artifact function of bench/gemm/specs
# or test/gpu/specs). The Triton peer takes every format (triton_peer.FORMATS).
FORMATS = {"fp8_e4m3": (torch.float8_e4m3fn, "wo_fp8_e4m3_bf16"),
           "fp8_e5m2": (torch.float8_e5m2, "wo_fp8_e5m2_bf16"),
           "mxfp8_e4m3": (None, "wo_mxfp8_e4m3_bf16"),
           "mxfp8_e5m2": (None, "wo_mxfp8_e5m2_bf16"),
           "mxfp4": (None, "wo_mxfp4_bf16"),
           "nvfp4": (None, "wo_nvfp4_bf16"),
           "mxfp6_e2m3": (None, "wo_mxfp6_e2m3_bf16"),
           "mxfp6_e3m2": (None, "wo_mxfp6_e3m2_bf16"),
           "fp6_e3m2": (None, "wo_fp6_e3m2_bf16"),
           "fp5_e2m2": (None, "wo_fp5_e2m2_bf16")}


def weight_bytes(fmt, n, k):
    """Bytes a GEMM streams for an (n, k) weight: the packed codes and the
    scales (one byte an E8M0 / ue4m3 scale, four an fp32 one; NVFP4's tensor
    scale)."""
    import fpxc.linear  # noqa: F401 (the module; the package's `linear` is the function)
    f = sys.modules["fpxc.linear"].weight_format(fmt)
    codes = n * k * f.bits // 8
    scales = n * 4 if f.block[1] == 0 else n * (k // f.block[1])
    return codes + scales + (4 if f.global_scale else 0)


def compile_peer(fmt):
    """torch.compile of the dequantize-then-matmul a user writes for the
    block-scaled and narrow formats: the codes row-major (4-bit codes two a
    byte, low nibble first; 6- and 5-bit codes one a byte), a lookup of the
    code values times the scales repeated over their block (the package's
    WeightFormat.decode, plain torch ops), then bf16 x @ w.T. Returns
    (fn(x, codes, scales, g), codes from a PackedWeight)."""
    import fpxc.linear  # noqa: F401
    f = sys.modules["fpxc.linear"].weight_format(fmt)

    def deq(c, s, g):
        if f.bits == 4:
            c = torch.stack((c & 15, c >> 4), -1).flatten(-2)
        return f.decode(c, s, g).to(torch.bfloat16)

    def codes_of(p):
        c = p.unpacked_codes()
        return c[:, 0::2] | (c[:, 1::2] << 4) if f.bits == 4 else c
    return torch.compile(lambda x, c, s, g: x @ deq(c, s, g).T), codes_of


def weight_copies(packed, n):
    """n copies of a PackedWeight (distinct buffers, to rotate through)."""
    import fpxc

    def g():
        return None if packed.global_scale is None else packed.global_scale.clone()
    return [packed] + [fpxc.PackedWeight(packed.codes.clone(), packed.scales.clone(),
                                         packed.format, packed.shape, g())
                       for _ in range(n - 1)]


def rotations(bytes_per_set, l2_bytes):
    """Buffers to rotate through so that L2 holds none of them (3x L2)."""
    return max(2, -(-3 * l2_bytes // max(bytes_per_set, 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--artifacts", default=None,
                    help="folder of wo_*.json (fpxc compiles) to call instead of fpxc.linear")
    ap.add_argument("--shapes", default=",".join(f"{n}x{k}" for n, k in SHAPES))
    ap.add_argument("--ms", default=",".join(map(str, MS)))
    ap.add_argument("--formats", default="fp8_e4m3")
    ap.add_argument("--peers", default="cublas,compile,triton")
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
    tri = None
    if "triton" in peers:
        import triton_peer
        ok, why = triton_peer.available()
        if ok:
            tri = triton_peer
        else:
            print(f"triton peer: skipped, triton is not installed ({why})")
    rows = []
    hdr = (f"{'format':9} {'N':>6} {'K':>6} {'M':>5} | {'fpx us':>8} {'eager':>8} {'GB/s':>6} "
           f"{'%copy':>6} {'TF/s':>6} {'rel':>8} | {'cublas':>8} {'%copy':>6} {'x':>5} | "
           f"{'compile':>8} {'x':>5} | {'triton':>8} {'x':>5}")
    print(hdr)
    for fmt in a.formats.split(","):
        dtype, fn_name = FORMATS[fmt]
        art_call = None
        if a.artifacts:
            art = fpxc.load(str(pathlib.Path(a.artifacts) / f"{fn_name}.json"))
            art_call = getattr(art, fn_name)
        for n, k in shapes:
            wbytes = weight_bytes(fmt, n, k)
            nbuf = rotations(wbytes, l2)
            gen = torch.Generator(device=dev).manual_seed(n * 7 + k)
            # bf16 weights (as a model holds them): fpxc.quantize_weight runs the
            # bundled cast of the format, then packs into mma_tiles
            w = torch.randn(n, k, device=dev, generator=gen).to(torch.bfloat16)
            packed = weight_copies(fpxc.quantize_weight(w, format=fmt), nbuf)
            del w
            wdq = packed[0].dequantize()  # fp32, exactly the numerics core's values
            fp8_peers = dtype is not None
            # row-major, for the per-channel fp8 peers
            codes = packed[0].unpacked_codes()[:n, :k].view(dtype) if fp8_peers else None
            s = packed[0].scales[:n]
            if art_call is not None:
                def call(x, i):
                    p = packed[i % nbuf]
                    # (the specs take 8-bit codes as their fp8 type)
                    cd = dtype or ART_CODES.get(fmt)
                    ops = [p.codes.view(cd) if cd is not None else p.codes, p.scales]
                    if p.global_scale is not None:
                        ops.append(p.global_scale)
                    return art_call(x, *ops)
            else:
                def call(x, i):
                    return fpxc.linear(x, packed[i % nbuf])
            wbf = wdq.to(torch.bfloat16)
            nbuf_b = rotations(2 * n * k, l2)
            wbfs = [wbf.clone() for _ in range(nbuf_b)] if "cublas" in peers else []
            codes_r = [codes.clone() for _ in range(nbuf)] if fp8_peers and compiled else []
            # the Triton peer's weight as a Triton user stores it (6- and 5-bit
            # codes one a byte: more bytes than fpxc's planes)
            tri_w, tri_bytes = [], 0
            if tri and fmt not in tri.FORMATS:
                print(f"triton peer: skipped for {fmt}, triton_peer.py has no such format")
            elif tri:
                tw = tri.weight_of(packed[0])
                tri_bytes = tri.weight_bytes(fmt, n, k)
                tri_w = [tw] + [tuple(None if t is None else t.clone() for t in tw)
                                for _ in range(rotations(tri_bytes, l2) - 1)]
            s16 = s.to(torch.bfloat16) if fp8_peers else None
            # the other formats' torch.compile peer (dequantize, then bf16 mm)
            cpeer = None
            if compiled and not fp8_peers:
                cfn, codes_of = compile_peer(fmt)
                c0, g0 = codes_of(packed[0]), packed[0].global_scale
                cpeer = (cfn, [c0] + [c0.clone() for _ in range(nbuf - 1)], g0)
            for m in ms:
                x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
                y = call(x, 0)
                ref = x.float() @ wdq.T
                rel = ((y.float() - ref).norm() / ref.norm()).item()
                g_us = graph_us(lambda i: call(x, i), reps=max(20, 2 * nbuf))
                e_us = queued_us(lambda i: call(x, i))
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
                if compiled and fp8_peers:
                    compiled(x, codes_r[0], s16)
                    p_us = graph_us(lambda i: compiled(x, codes_r[i % nbuf], s16),
                                    reps=max(20, 2 * nbuf))
                    if p_us:
                        row.update(compile_us=p_us)
                        line += f" {p_us:8.1f} {p_us / g_us:4.2f}x"
                elif cpeer:
                    cfn, cr, g0 = cpeer
                    yc = cfn(x, cr[0], s, g0)
                    c_rel = ((yc.float() - ref).norm() / ref.norm()).item()
                    p_us = graph_us(lambda i: cfn(x, cr[i % nbuf], s, g0), reps=max(20, 2 * nbuf))
                    if p_us:
                        row.update(compile_us=p_us, compile_rel=c_rel)
                        line += f" {p_us:8.1f} {p_us / g_us:4.2f}x"
                        if c_rel > 1e-2:
                            line += f" (compile rel {c_rel:.1e})"
                else:
                    line += f" {'-':>8} {'-':>5}"
                if tri_w:
                    nt = len(tri_w)

                    def tcall(i):
                        return tri.wo_matmul(x, *tri_w[i % nt], format=fmt)
                    yt = tcall(0)
                    t_rel = ((yt.float() - ref).norm() / ref.norm()).item()
                    t_us = graph_us(tcall, reps=max(20, 2 * nt))
                    if t_us:
                        row.update(triton_us=t_us, triton_rel=t_rel, triton_bytes=tri_bytes)
                        line += f" | {t_us:8.1f} {t_us / g_us:4.2f}x"
                        if tri_bytes != wbytes:
                            line += f" [{tri_bytes / wbytes:.2f}x bytes]"
                        if t_rel > 1e-2:
                            line += f" (triton rel {t_rel:.1e})"
                    else:
                        line += " | triton: not captured in a CUDA graph"
                print(line + ("" if row["ok"] else "  FAIL"), flush=True)
                rows.append(row)
            del packed, wbfs, codes_r, tri_w, cpeer
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
