#!/usr/bin/env python3
"""Checks the Triton peers (triton_peers.py) without a GPU.

    python3 bench/quantize/check_triton_peers.py --compile 90     # every kernel through
        Triton's compiler and ptxas for sm_90 (what failed on the GPU machine before)
    TRITON_INTERPRET=1 python3 bench/quantize/check_triton_peers.py --interpret
        # run by Triton's CPU interpreter against bench_quantize's eager references:
        # scale codes and fp32 scales byte for byte, on inputs with NaN, inf, zero blocks
        # and magnitudes over 2^-40 .. 2^40, NVFP4's e2m1 encoding of every bf16 value, and
        # NVFP4 with stochastic rounding against fpx's CPU numerics core (exact e4m3 scales)
        # (the interpreter's own fp32 -> e4m3 rounding is not round-to-nearest-even, so
        # e4m3 codes and NVFP4's ue4m3 scales are checked on the GPU by the benchmark)

Prints one line a check and exits 1 on any mismatch.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def compile_all(cc):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.autotuner import Autotuner
    import triton_peers as T
    target = GPUTarget("cuda", cc, 32)
    rows = {"x_ptr": "*bf16", "q_ptr": "*fp8e4nv", "s_ptr": "*u8", "M": "i32", "K": "i32"}
    f32 = dict(rows, s_ptr="*fp32")
    tile = {"BM": "constexpr", "BK": "constexpr"}
    jobs = [(T._mx_rows_kernel, {**rows, "RCEIL": "constexpr", **tile},
             {"RCEIL": r, "BM": 16, "BK": 512}) for r in (False, True)]
    jobs += [(T._mx_cols_kernel, {**rows, **tile}, {"BM": 64, "BK": 128}),
             (T._fp8_1x128_kernel, {**f32, **tile}, {"BM": 8, "BK": 512}),
             (T._fp8_128x128_kernel, f32, {}),
             (T._fp8_rowwise_kernel, {**f32, **tile}, {"BM": 2, "BK": 8192}),
             (T._fp8_tensor_kernel, {**f32, "amax_ptr": "*fp32", **tile}, {"BM": 32, "BK": 256}),
             (T._mxfp4_rows_kernel, {**rows, "q_ptr": "*u8", **tile}, {"BM": 16, "BK": 512}),
             *[(T._nvfp4_kernel, {**rows, "q_ptr": "*u8", "s_ptr": "*fp8e4nv", "amax_ptr": "*fp32",
                                  "seed": "i64", "M": "i32", "K": "i32", "RS": "constexpr",
                                  "HAD": "constexpr", "SIGNS": "constexpr", **tile},
                {"RS": rs, "HAD": had, "SIGNS": 0x5A3C if had else 0, "BM": 16, "BK": 256})
               for rs, had in ((False, False), (True, False), (True, True))],
             (T._amax_rht_kernel, {"x_ptr": "*bf16", "amax_ptr": "*i32", "M": "i32", "K": "i32",
                                   "SIGNS": "constexpr", **tile},
              {"SIGNS": 0x5A3C, "BM": 16, "BK": 512}),
             (T._amax_kernel, {"x_ptr": "*bf16", "amax_ptr": "*i32", "N": "i32",
                               "BLOCK": "constexpr"}, {"BLOCK": 4096})]
    for kernel, sig, consts in jobs:
        fn = kernel.fn if isinstance(kernel, Autotuner) else kernel
        c = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts), target=target)
        print(f"compiled {fn.__name__} {consts} for sm_{cc}: "
              f"{len(c.asm['cubin'])} bytes of cubin")
    return 0


def interpret():
    import torch
    import bench_quantize as B
    B._import_torch()
    import triton_peers as T

    # NVFP4's element encoding on every bf16 value (as fp32): its scales go
    # through Triton's e4m3 conversion, which the interpreter does not round
    # as the GPU does
    y = torch.arange(0, 1 << 16, dtype=torch.int32).to(torch.int16).view(torch.bfloat16).float()
    codes = T.e2m1_codes(y)
    want = B.encode_small(y, 2, 1, 6.0)
    g = torch.Generator().manual_seed(3)
    x = torch.randn(64, 256, generator=g) * torch.exp2(torch.randint(-40, 40, (64, 1),
                                                                      generator=g).float())
    x = x.to(torch.bfloat16)
    x[1, 3], x[2, 40], x[3, 64:96], x[4, 7] = float("nan"), float("inf"), 0.0, -float("inf")
    x[5, :] = 0.0
    raw = lambda t: t.contiguous().view(-1).view(torch.uint8)  # noqa: E731
    checks = [("mx_rows floor scales", T.mx_rows(x, "floor")[1], B.ref_mx(x, "e4m3", "floor")[1]),
              ("mx_rows rceil scales", T.mx_rows(x, "rceil")[1], B.ref_mx(x, "e4m3", "rceil")[1]),
              ("mx_cols scales", T.mx_cols(x)[1], B.ref_mx_cols(x)[1]),
              ("mx_experts scales", T.mx_experts(x.view(2, 32, 256))[1],
               B.ref_mx_experts(x.view(2, 32, 256))[1]),
              ("fp8_1x128 scales", T.fp8_1x128(x)[1], B.ref_fp8_1x128(x)[1]),
              ("fp8_rowwise scales", T.fp8_rowwise(x)[1], B.ref_fp8_rowwise(x)[1]),
              ("fp8_per_tensor scale", T.fp8_per_tensor(x)[1], B.ref_fp8_tensor(x)[1])]
    # MXFP4: no e4m3 conversion on the way, so codes and scales both
    checks += [(f"mxfp4_rows {n}", got, want)
               for n, got, want in zip(("codes", "scales"), T.mxfp4_rows(x),
                                       B.ref_mx(x, "e2m1", "floor"))]
    checks.append(("nvfp4 e2m1 codes of every bf16", codes, want))
    # NVFP4 under stochastic rounding against fpx's CPU numerics core, on an
    # input whose block scales are exact in e4m3 (tensor amax 2688, so g = 1,
    # and each block's maximum 6 v for an e4m3 value v), where the
    # interpreter's e4m3 rounding cannot differ from the GPU's
    import fpxc
    v = torch.tensor([2.0 ** e * (1 + m / 8) for e in range(-6, 8) for m in range(8)])
    rows = torch.rand(64, 256, generator=g) * 2 - 1
    vb = v[torch.randint(0, v.numel(), (64, 16), generator=g)]
    xr = rows.view(64, 16, 16) * 6 * vb[:, :, None]
    xr[:, :, 0] = 6 * vb                     # each block's maximum
    xr[0, 0, 0] = 2688.0                     # the tensor's
    xr = xr.view(64, 256).to(torch.bfloat16)
    got = T.nvfp4(xr, seed=1234)
    ref = fpxc.quantize(xr, format="nvfp4", rounding="rs", seed=1234)
    checks += [("nvfp4 rs codes vs numerics core", got[0], ref.data),
               ("nvfp4 rs scales vs numerics core", got[1], ref.scales)]
    # The 16-point random Hadamard transform, through its amax (the transform
    # itself is not rounded to e4m3 on the way)
    hx = fpxc.hadamard(xr.float(), 16, 5)
    checks += [("hadamard16 vs numerics core", T.hadamard16(xr, 5), hx),
               ("hadamard16 amax vs numerics core", T.amax_rht(xr, 5).reshape(1),
                hx.abs().amax().reshape(1))]
    bad = 0
    for name, got, want in checks:
        same = got.shape == want.shape and bool((raw(got) == raw(want)).all())
        bad += not same
        print(f"{'PASS' if same else 'FAIL'} {name} {tuple(got.shape)}")
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--compile", type=int, metavar="CC", help="compile every kernel for sm_CC")
    p.add_argument("--interpret", action="store_true",
                   help="check scales under TRITON_INTERPRET=1")
    a = p.parse_args()
    if a.compile:
        return compile_all(a.compile)
    if a.interpret:
        return interpret()
    p.error("--compile CC or --interpret")


if __name__ == "__main__":
    sys.exit(main())
