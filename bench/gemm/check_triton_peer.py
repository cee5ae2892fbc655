#!/usr/bin/env python3
"""Checks bench/gemm/triton_peer.py, the Triton peer of run.py, for every format.

    TRITON_INTERPRET=1 python3 bench/gemm/check_triton_peer.py --interpret
        # both kernels (split-K at M = 5, tiled at M = 80) under Triton's CPU
        # interpreter with f16 x (the interpreter has no bf16 arithmetic)
    python3 bench/gemm/check_triton_peer.py --compile 90
        # both kernels of every format through Triton's compiler and ptxas for
        # sm_90, bf16 and f16 x (no GPU needed)
    python3 bench/gemm/check_triton_peer.py --gpu
        # both kernels on the GPU in five configurations (GPU_CONFIGS), bf16
        # and f16 x, and the decode on every code (the GPU's fp8 conversions)

Each output is compared with an fp32 matmul of the weight the package
dequantizes (fpxc.PackedWeight.dequantize: the numerics core's values, the
codes decoded by lookup): relative Frobenius error <= 1e-2. N = 96 and an
odd M leave partial tiles. --interpret and --gpu first check the kernels'
decode itself (the code tile decoded and block-scaled in registers, as the
GEMMs run it) on every code of each format against the package's
WeightFormat.decode, bit for bit in x's dtype. Prints one line a check;
exits 1 on any failure.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402

import triton_peer as T  # noqa: E402

TOL = 1e-2
GPU_CONFIGS = (
    dict(BLOCK_M=16, BLOCK_N=64, BLOCK_K=128, SPLIT_K=1, num_warps=4, num_stages=4),
    dict(BLOCK_M=16, BLOCK_N=128, BLOCK_K=256, SPLIT_K=8, num_warps=8, num_stages=3),
    dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=256, SPLIT_K=4, num_warps=4, num_stages=3),
    dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=4, num_stages=4),
    dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, GROUP_M=8, num_warps=8, num_stages=3))

if T.triton is not None:
    import triton
    import triton.language as tl
    from triton_peer import _weight_tile

    @triton.jit
    def _tile_kernel(w_ptr, s_ptr, out_ptr, N, K, stride_wn, stride_sn, FMT: tl.constexpr,
                     EBITS: tl.constexpr, MBITS: tl.constexpr, FP8: tl.constexpr,
                     DST_M: tl.constexpr, FIX: tl.constexpr, PACK: tl.constexpr,
                     GROUP: tl.constexpr, SCALE: tl.constexpr, TENSOR_SCALE: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        """out (N, K) = the GEMMs' decoded, block-scaled weight tiles."""
        offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
        kb = tl.program_id(1)
        n_ok = offs_n < N
        w = _weight_tile(w_ptr, s_ptr, offs_n, n_ok, kb, K, stride_wn, stride_sn,
                         out_ptr.dtype.element_ty, BLOCK_N, BLOCK_K, EBITS, MBITS, FP8,
                         DST_M, FIX, PACK, GROUP, SCALE, "")
        k = kb * BLOCK_K + tl.arange(0, BLOCK_K)
        tl.store(out_ptr + offs_n[None, :] * K + k[:, None], w,
                 mask=n_ok[None, :] & (k < K)[:, None])


def check_decode(dev, dtypes):
    """Every code of each format (with random block scales whose products
    stay in f16's range) through the kernels' decode, against the package's
    lookup decode, bit for bit."""
    import fpxc.linear  # noqa: F401 (the module; the package's `linear` is the function)
    L = sys.modules["fpxc.linear"]
    n, k = 48, 512
    bad = 0
    for fmt, f in T.FORMATS.items():
        gen = torch.Generator().manual_seed(7 + len(fmt))
        codes = torch.randperm(n * k, generator=gen).reshape(n, k) % (1 << f.bits)
        codes = codes.to(torch.uint8)
        wf = L.WEIGHT_FORMATS[fmt]
        if f.scale == "e8m0":  # 2^-6 .. 2^0
            sc = torch.randint(121, 128, (n, k // f.group), generator=gen, dtype=torch.uint8)
        elif f.scale == "ue4m3":  # every positive finite e4m3
            sc = torch.randint(1, 0x7F, (n, k // f.group), generator=gen, dtype=torch.uint8)
        else:
            sc = None
        ref = wf.decode(codes, torch.ones(n, 1) if sc is None else sc.view(wf.scale_dtype))
        stored = codes[:, 0::2] | (codes[:, 1::2] << 4) if f.pack == 2 else codes
        stored = stored.contiguous().to(dev)
        s_dev = stored if sc is None else sc.to(dev)
        for dtype in dtypes:
            out = torch.empty(n, k, dtype=dtype, device=dev)
            consts = T.format_constexprs(fmt, dtype)
            _tile_kernel[(triton.cdiv(n, 32), triton.cdiv(k, 128))](
                stored, s_dev, out, n, k, stored.stride(0), s_dev.stride(0), **consts,
                BLOCK_N=32, BLOCK_K=128)
            want = ref.to(dtype)
            eq = (out.cpu() == want) | (out.cpu().isnan() & want.isnan())
            what = "every code"
            if f.fp8 and dev == "cpu":
                # Triton's interpreter converts e5m2 subnormals and e4m3's
                # NaN wrongly (0 and 480; the GPU's cvt is exact): its fp8
                # codes are checked here where exponent and value are normal
                ex = (codes >> f.mbits) & ((1 << f.ebits) - 1)
                eq |= (ex == 0) | (ex == (1 << f.ebits) - 1) if f.fp8 == "e5m2" else \
                    (codes & 0x7F) == 0x7F
                what = "every normal code (interpreter)" if f.fp8 == "e5m2" else \
                    "every code but NaN (interpreter)"
            same = bool(eq.all())
            bad += not same
            print(f"{'PASS' if same else 'FAIL'} {fmt} {str(dtype)[6:]} decode of {what} "
                  f"vs WeightFormat.decode", flush=True)
    return bad


def check(dev, dtypes, ms, configs):
    import fpxc
    n, k = 96, 512
    bad = 0
    for fmt in T.FORMATS:
        gen = torch.Generator().manual_seed(len(fmt))
        w = torch.randn(n, k, generator=gen)
        w[:, :32] *= 64  # one block far from the rest (block scales do differ)
        packed = fpxc.quantize_weight(w, format=fmt)
        ref_w = packed.dequantize()
        codes, scales, g = (None if t is None else t.to(dev) for t in T.weight_of(packed))
        for dtype in dtypes:
            for m, cfg in zip(ms, configs):
                x = torch.randn(m, k, generator=gen).to(dtype)
                ref = x.float() @ ref_w.T
                y = T.wo_matmul(x.to(dev), codes, scales, g, format=fmt, config=cfg)
                rel = ((y.float().cpu() - ref).norm() / ref.norm()).item()
                ok = y.dtype == dtype and y.shape == (m, n) and rel <= TOL
                bad += not ok
                print(f"{'PASS' if ok else 'FAIL'} {fmt} {str(dtype)[6:]} M={m} N={n} K={k} "
                      f"rel {rel:.1e}", flush=True)
    return 1 if bad + check_decode(dev, dtypes) else 0


def compile_all(cc):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    target = GPUTarget("cuda", cc, 32)
    common = {"x_ptr": None, "w_ptr": "*u8", "s_ptr": None, "g_ptr": "*fp32", "M": "i32",
              "N": "i32", "K": "i32", "stride_xm": "i32", "stride_wn": "i32",
              "stride_sn": "i32"}
    jobs = []
    for fmt, f in T.FORMATS.items():
        for act in ("bf16", "fp16"):
            sig = dict(common, x_ptr=f"*{act}", s_ptr="*u8" if f.group else "*fp32")
            consts = T.format_constexprs(fmt, torch.bfloat16 if act == "bf16" else torch.float16)
            split = dict(sig, acc_ptr="*fp32")
            split = {k: split[k] for k in list(common)[:4] + ["acc_ptr"] + list(common)[4:]}
            jobs.append((T._wo_splitk.fn, split, dict(consts, BLOCK_M=16, BLOCK_N=64,
                                                       BLOCK_K=256, SPLIT_K=8), 4, 4))
            gemm = dict(sig, y_ptr=f"*{act}")
            gemm = {k: gemm[k] for k in list(common)[:4] + ["y_ptr"] + list(common)[4:]}
            gemm["stride_ym"] = "i32"
            jobs.append((T._wo_gemm.fn, gemm, dict(consts, BLOCK_M=128, BLOCK_N=128,
                                                     BLOCK_K=64, GROUP_M=8), 8, 3))
    for fn, sig, consts, warps, stages in jobs:
        sig = dict(sig, **{c: "constexpr" for c in consts})
        c = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts), target=target,
                           options={"num_warps": warps, "num_stages": stages})
        print(f"compiled {fn.__name__} {consts['FMT']} {sig['x_ptr'][1:]} for sm_{cc}: "
              f"{len(c.asm['cubin'])} bytes of cubin", flush=True)
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--compile", type=int, metavar="CC", help="compile both kernels for sm_CC")
    p.add_argument("--interpret", action="store_true", help="run under TRITON_INTERPRET=1")
    p.add_argument("--gpu", action="store_true", help="run the autotuned kernels on the GPU")
    a = p.parse_args()
    ok, why = T.available()
    if not ok:
        print(f"triton is not available ({why})")
        return 1
    if a.compile:
        return compile_all(a.compile)
    if a.interpret:
        # split-K (two K slices, atomics) and the tiled kernel, one config each
        return check("cpu", (torch.float16,), (5, 80), T.INTERPRET_CONFIGS)
    if a.gpu:
        # fixed configurations (autotuning 20 kernels a format would take
        # minutes; run.py checks the autotuned ones on every row): split-K with
        # one and several K slices, 4 and 8 warps, BLOCK_K 128 and 256, a
        # partial M tile; the tiled kernel with BLOCK_K 64 and 128
        return check("cuda", (torch.bfloat16, torch.float16), (1, 5, 40, 80, 300), GPU_CONFIGS)
    p.error("--compile CC, --interpret or --gpu")


if __name__ == "__main__":
    sys.exit(main())
