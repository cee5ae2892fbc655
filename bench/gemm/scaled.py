"""Scaled fp8 GEMM benchmark (issue 39): fpxc's sm_90a TMA + wgmma lowering of
`fpx.scaled_matmul` (fp8 e4m3 x e4m3, K-major, fp32 accumulation, bf16 out)
against the peers a PyTorch user has, in one run on one GPU:
`torch._scaled_mm` tensorwise and rowwise, and bf16 `torch.mm`.

fpxc's kernels are the artifacts of test/gpu/specs/sm_90a/smm_*.mlir (built
into build/gpu-artifacts/sm_90a by the CPU build; carried as .art/gpu), called
through `fpxc.load` as a user would. GPU time under CUDA graphs; every result
is checked against an fp32 matmul of the dequantized operands (max |err| /
max |ref|).

    python3 bench/gemm/scaled.py --artifacts .art/gpu/sm_90a [--shapes MxNxK,...] [--out DIR]
"""
import argparse
import json
import os
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "quantize"))
from queued_timing import graph_us  # noqa: E402

SHAPES = [(8192, 8192, 8192), (16384, 8192, 5120), (4096, 7168, 16384), (128, 7168, 16384)]
E4M3 = torch.float8_e4m3fn


def fp8(shape, gen):
    """e4m3 values of a normal distribution (scaled into e4m3's range)."""
    return (torch.randn(shape, generator=gen, device="cuda") * 8).to(E4M3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=".art/gpu/sm_90a")
    ap.add_argument("--shapes", default=",".join("x".join(map(str, s)) for s in SHAPES))
    ap.add_argument("--out", default=os.environ.get("OUT"))
    a = ap.parse_args()
    import fpxc
    art = pathlib.Path(a.artifacts)
    tensor = fpxc.load(str(art / "smm_e4m3_tensor_bf16.json")).functions["smm_e4m3_tensor_bf16"]
    row = fpxc.load(str(art / "smm_e5m2_e4m3_row_bf16.json"))  # (loads: the artifact set is whole)
    del row
    print(f"{torch.cuda.get_device_name()}; torch {torch.__version__}")
    print(f"{'M x N x K':>18} | {'fpxc us':>8} {'TFLOP/s':>8} {'err':>8} | {'_scaled_mm t':>12} "
          f"{'TFLOP/s':>8} {'fpxc/peer':>9} | {'rowwise':>8} {'TFLOP/s':>8} | {'bf16 mm':>8} {'TFLOP/s':>8}")
    rows = []
    for spec in a.shapes.split(","):
        m, n, k = map(int, spec.split("x"))
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        A, B = fp8((m, k), g), fp8((n, k), g)
        sa = torch.full((1, 1), 0.5, device="cuda")
        sb = torch.full((1, 1), 0.25, device="cuda")
        flop = 2.0 * m * n * k
        y = tensor(A, sa, B, sb)
        y = y[0] if isinstance(y, (tuple, list)) else y
        ref = (A.float() * sa) @ (B.float() * sb).T
        err = ((y.float() - ref).abs().max() / ref.abs().max()).item()
        us = graph_us(lambda i: tensor(A, sa, B, sb))
        t_us = graph_us(lambda i: torch._scaled_mm(A, B.T, sa.reshape(()), sb.reshape(()),
                                                   out_dtype=torch.bfloat16))
        ra = torch.full((m, 1), 0.5, device="cuda")
        rb = torch.full((1, n), 0.25, device="cuda")
        try:
            r_us = graph_us(lambda i: torch._scaled_mm(A, B.T, ra, rb, out_dtype=torch.bfloat16))
        except RuntimeError as e:  # rowwise needs a newer cuBLAS on some setups
            print(f"rowwise _scaled_mm: {e}")
            r_us = None
        Ab, Bb = A.to(torch.bfloat16), B.to(torch.bfloat16)
        b_us = graph_us(lambda i: Ab @ Bb.T)
        tf = lambda t: flop / t / 1e6 if t else float("nan")  # noqa: E731
        print(f"{spec:>18} | {us:8.1f} {tf(us):8.1f} {err:8.1e} | {t_us:12.1f} {tf(t_us):8.1f} "
              f"{t_us / us:9.2f} | {r_us or float('nan'):8.1f} {tf(r_us):8.1f} | {b_us:8.1f} "
              f"{tf(b_us):8.1f}")
        rows.append(dict(M=m, N=n, K=k, fpx_us=us, err=err, scaled_mm_tensor_us=t_us,
                         scaled_mm_row_us=r_us, bf16_us=b_us))
    if a.out:
        p = pathlib.Path(a.out)
        p.mkdir(parents=True, exist_ok=True)
        (p / "scaled.json").write_text(json.dumps(
            dict(device=torch.cuda.get_device_name(), rows=rows), indent=1))


if __name__ == "__main__":
    main()
