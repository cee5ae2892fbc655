"""Scaled fp8 GEMM benchmark (issue 39): `fpxc.scaled_mm` (fpxc's sm_90a TMA +
wgmma lowering of `fpx.scaled_matmul`, e4m3 x e4m3, K-major, fp32
accumulation, bf16 out) as a user calls it, against the peers a PyTorch user
has, in one run on one GPU: `torch._scaled_mm` tensorwise and rowwise, and
bf16 `torch.mm`.

The operands are what `fpxc.quantize(x, "fp8_e4m3", block=(0, 0))` (per
tensor) and `block=(1, 0)` (per row) return, the peers get the same codes and
scales. fpxc's figures: the GPU time of `fpxc.scaled_mm` under CUDA graphs
(no host work) and its eager time per call back to back (the user's loop:
host work included where it is the bottleneck); with --artifacts also the
test spec's artifact called through `fpxc.load` (the same kernel, no
package dispatch), and the blockwise artifact (A 1x128, B 128x128) beside
`torch.nn.functional.scaled_mm` blockwise. Every fpxc result is checked against an fp32 matmul of
the dequantized operands (max |err| / max |ref|).

MXFP8 x MXFP8 (`fpxc.quantize(x, "mxfp8_e4m3")`: e8m0 1x32 scales; the
kernel promotes every k32 on the fp8 tensor cores, exact; with --artifacts
also the bf16 form, which dequantizes the codes exactly to bf16 on their way
into shared memory and runs bf16 wgmma) gets
a row of its own (--mx, on by default): `fpxc.scaled_mm` under CUDA graphs
and eager, beside the path a PyTorch user has on Hopper (cuBLAS has no MX
there): torch.compile of dequantize (codes times the e8m0 scales repeated
over their 32-blocks, to bf16) then the bf16 matmul, and the tensorwise
`torch._scaled_mm` of the same shape (issue 39's bar: >= 0.8x tensorwise,
>= 1.5x the dequantize path). NVFP4 x NVFP4 (`fpxc.quantize(x, "nvfp4")`:
fp4x2 codes, e4m3 1x16 scales, a global scale each; the bf16-form kernel)
gets one too (also --mx): `fpxc.scaled_mm` under CUDA graphs and eager,
beside torch.compile of its dequantize then the bf16 matmul. Both also
time their operands with blocked 128x4 scales (`scale_layout="blocked"`:
the same codes and scale values, so the result must be the same bits,
checked).

    python3 bench/gemm/scaled.py [--shapes MxNxK,...] [--artifacts .art/gpu/sm_90a] [--no-mx]
                                 [--out DIR]
"""
import argparse
import json
import os
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "quantize"))
from queued_timing import graph_us, queued_us  # noqa: E402

SHAPES = [(8192, 8192, 8192), (16384, 8192, 5120), (4096, 7168, 16384), (128, 7168, 16384)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", default=None,
                    help="also time test/gpu/specs/sm_90a/smm_e4m3_tensor_bf16 from this "
                         "folder (e.g. .art/gpu/sm_90a) through fpxc.load")
    ap.add_argument("--shapes", default=",".join("x".join(map(str, s)) for s in SHAPES))
    ap.add_argument("--out", default=os.environ.get("OUT"))
    ap.add_argument("--no-mx", dest="mx", action="store_false",
                    help="skip the MXFP8 x MXFP8 and NVFP4 x NVFP4 rows and their "
                         "torch.compile peers")
    a = ap.parse_args()
    import fpxc
    raw = blockfn = None
    bf16fn = None
    if a.artifacts:
        art = pathlib.Path(a.artifacts)
        name = "smm_mxfp8_e4m3_bf16form_f32"  # MXFP8's bf16 form, f32 out
        if (art / f"{name}.json").is_file():
            bf16fn = fpxc.load(str(art / f"{name}.json")).functions[name]
        raw = fpxc.load(str(art / "smm_e4m3_tensor_bf16.json")).functions["smm_e4m3_tensor_bf16"]
        name = "smm_e4m3_block128_bf16"  # A 1x128, B 128x128 (DeepSeek-V3's blockwise)
        if (art / f"{name}.json").is_file():
            blockfn = fpxc.load(str(art / f"{name}.json")).functions[name]
    print(f"{torch.cuda.get_device_name()}; torch {torch.__version__}; fpxc {fpxc.__version__}")
    print("fpxc.scaled_mm: graph = GPU time under CUDA graphs, eager = back-to-back user calls; "
          "TFLOP/s of the graph time")
    print(f"{'M x N x K':>18} | {'tensor us':>9} {'TFLOP/s':>8} {'eager us':>8} {'err':>8} | "
          f"{'_scaled_mm':>10} {'TFLOP/s':>8} {'fpxc/peer':>9} | {'row us':>8} {'TFLOP/s':>8} "
          f"{'eager us':>8} {'err':>8} | {'row peer':>8} {'TFLOP/s':>8} {'fpxc/peer':>9} | "
          f"{'bf16 mm':>8} {'TFLOP/s':>8}" + (f" | {'raw art':>8}" if raw else ""))
    rows = []
    tf = lambda t, f: f / t / 1e6 if t else float("nan")  # noqa: E731
    for spec in a.shapes.split(","):
        m, n, k = map(int, spec.split("x"))
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        x = torch.randn(m, k, generator=g, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, generator=g, device="cuda", dtype=torch.bfloat16)
        flop = 2.0 * m * n * k
        r = dict(M=m, N=n, K=k)
        for kind, block in (("tensor", (0, 0)), ("row", (1, 0))):
            qa = fpxc.quantize(x, "fp8_e4m3", block=block)
            qb = fpxc.quantize(w, "fp8_e4m3", block=block)
            y = fpxc.scaled_mm(qa, qb)
            ref = (qa.data.float() * qa.scales) @ (qb.data.float() * qb.scales).T
            r[f"{kind}_err"] = ((y.float() - ref).abs().max() / ref.abs().max()).item()
            del ref
            r[f"{kind}_us"] = graph_us(lambda i: fpxc.scaled_mm(qa, qb))
            r[f"{kind}_eager_us"] = queued_us(lambda i: fpxc.scaled_mm(qa, qb))
            # the peer on the same codes and scales (its b is (K, N): qb's transpose)
            sa, sb = ((qa.scales.reshape(()), qb.scales.reshape(())) if kind == "tensor"
                      else (qa.scales, qb.scales.T))
            try:
                r[f"{kind}_peer_us"] = graph_us(lambda i: torch._scaled_mm(
                    qa.data, qb.data.T, sa, sb, out_dtype=torch.bfloat16))
            except RuntimeError as e:  # rowwise needs a newer cuBLAS on some setups
                print(f"{kind} _scaled_mm: {e}")
                r[f"{kind}_peer_us"] = None
            if kind == "tensor" and raw is not None:
                r["raw_us"] = graph_us(lambda i: raw(qa.data, qa.scales, qb.data, qb.scales))
        if blockfn is not None:
            blockwise(r, x, w, blockfn, fpxc)
        if a.mx:
            mxfp8(r, x, w, fpxc, bf16fn)
        if a.mx:
            nvfp4(r, x, w, fpxc)
        xb, wb = x, w
        r["bf16_us"] = graph_us(lambda i: xb @ wb.T)
        ratio = lambda p, f: p / f if p and f else float("nan")  # noqa: E731
        line = (f"{spec:>18} | {r['tensor_us']:9.1f} {tf(r['tensor_us'], flop):8.1f} "
                f"{r['tensor_eager_us']:8.1f} {r['tensor_err']:8.1e} | "
                f"{r['tensor_peer_us'] or float('nan'):10.1f} "
                f"{tf(r['tensor_peer_us'], flop):8.1f} "
                f"{ratio(r['tensor_peer_us'], r['tensor_us']):9.2f} | "
                f"{r['row_us']:8.1f} {tf(r['row_us'], flop):8.1f} {r['row_eager_us']:8.1f} "
                f"{r['row_err']:8.1e} | {r['row_peer_us'] or float('nan'):8.1f} "
                f"{tf(r['row_peer_us'], flop):8.1f} {ratio(r['row_peer_us'], r['row_us']):9.2f} | "
                f"{r['bf16_us']:8.1f} {tf(r['bf16_us'], flop):8.1f}")
        if raw is not None:
            line += f" | {r['raw_us']:8.1f}"
        print(line)
        if blockfn is not None:
            print(f"{'':>18} | blockwise 1x128 x 128x128: fpxc {r['block_us']:.1f} us "
                  f"{tf(r['block_us'], flop):.1f} TFLOP/s (err {r['block_err']:.1e}); "
                  f"torch blockwise {r['block_peer_us'] or float('nan'):.1f} us "
                  f"{tf(r['block_peer_us'], flop):.1f} TFLOP/s; fpxc/peer "
                  f"{ratio(r['block_peer_us'], r['block_us']):.2f}")
        if a.mx:
            print(f"{'':>18} | MXFP8 x MXFP8: fpxc {r['mx_us']:.1f} us "
                  f"{tf(r['mx_us'], flop):.1f} TFLOP/s, eager {r['mx_eager_us']:.1f} us "
                  f"(err {r['mx_err']:.1e}); torch.compile dequantize + bf16 mm "
                  f"{r['mx_compile_us'] or float('nan'):.1f} us "
                  f"{tf(r['mx_compile_us'], flop):.1f} TFLOP/s (err "
                  f"{r['mx_compile_err'] if r['mx_compile_err'] is not None else float('nan'):.1e})"
                  f"; fpxc/compile {ratio(r['mx_compile_us'], r['mx_us']):.2f}, "
                  f"fpxc/tensorwise _scaled_mm {ratio(r['tensor_peer_us'], r['mx_us']):.2f}; "
                  f"blocked scales {r['mx_blocked_us']:.1f} us "
                  f"({'same bits' if r['mx_blocked_same'] else 'OTHER BITS: FAIL'})")
            if bf16fn is not None:
                print(f"{'':>18} | MXFP8 bf16 form (artifact, f32 out): "
                      f"{r['mx_bf16form_us']:.1f} us {tf(r['mx_bf16form_us'], flop):.1f} TFLOP/s")
        if a.mx:
            print(f"{'':>18} | NVFP4 x NVFP4: fpxc {r['nv_us']:.1f} us "
                  f"{tf(r['nv_us'], flop):.1f} TFLOP/s, eager {r['nv_eager_us']:.1f} us "
                  f"(err {r['nv_err']:.1e}); torch.compile "
                  f"dequantize + bf16 mm {r['nv_compile_us'] or float('nan'):.1f} us "
                  f"{tf(r['nv_compile_us'], flop):.1f} TFLOP/s; fpxc/compile "
                  f"{ratio(r['nv_compile_us'], r['nv_us']):.2f}, fpxc/tensorwise _scaled_mm "
                  f"{ratio(r['tensor_peer_us'], r['nv_us']):.2f}; blocked scales "
                  f"{r['nv_blocked_us']:.1f} us "
                  f"({'same bits' if r['nv_blocked_same'] else 'OTHER BITS: FAIL'})")
        rows.append(r)
    if a.out:
        p = pathlib.Path(a.out)
        p.mkdir(parents=True, exist_ok=True)
        (p / "scaled.json").write_text(json.dumps(
            dict(device=torch.cuda.get_device_name(), torch=torch.__version__, rows=rows),
            indent=1))


def blocked(r, key, fmt, x, w, y, fpxc):
    """The same GEMM with the operands' scales in the blocked 128x4 layout
    (fpxc.quantize(..., scale_layout="blocked"): the same codes and scale
    values, so the result must be y's bits): r[key + "_blocked_us"] under
    CUDA graphs, r[key + "_blocked_same"] whether the bits are y's."""
    qa = fpxc.quantize(x, fmt, scale_layout="blocked")
    qb = fpxc.quantize(w, fmt, scale_layout="blocked")
    r[f"{key}_blocked_same"] = bool(torch.equal(fpxc.scaled_mm(qa, qb), y))
    r[f"{key}_blocked_us"] = graph_us(lambda i: fpxc.scaled_mm(qa, qb))


def _deq_mx(c, s):
    """The dequantize a torch user writes for MXFP8: codes times their e8m0
    scales (to float: 2^(e - 127)) repeated over 32 of K, in bf16."""
    return (c.float() * s.float().repeat_interleave(32, dim=1)).to(torch.bfloat16)


_compiled_mx = None


def mxfp8(r, x, w, fpxc, bf16form=None):
    """MXFP8 x MXFP8: fpxc.scaled_mm (graph and eager) and the
    torch.compile'd dequantize-then-bf16-matmul peer on the same codes; with
    `bf16form` (the smm_mxfp8_e4m3_bf16form_f32 artifact) also the bf16
    form."""
    global _compiled_mx
    qa = fpxc.quantize(x, "mxfp8_e4m3")
    qb = fpxc.quantize(w, "mxfp8_e4m3")
    y = fpxc.scaled_mm(qa, qb)
    da = fpxc.dequantize(qa, format="mxfp8_e4m3")
    db = fpxc.dequantize(qb, format="mxfp8_e4m3")
    ref = da @ db.T
    r["mx_err"] = ((y.float() - ref).abs().max() / ref.abs().max()).item()
    del da, db
    r["mx_us"] = graph_us(lambda i: fpxc.scaled_mm(qa, qb))
    r["mx_eager_us"] = queued_us(lambda i: fpxc.scaled_mm(qa, qb))
    blocked(r, "mx", "mxfp8_e4m3", x, w, y, fpxc)
    if bf16form is not None:
        r["mx_bf16form_us"] = graph_us(lambda i: bf16form(qa.data, qa.scales, qb.data, qb.scales))
    if _compiled_mx is None:
        _compiled_mx = torch.compile(lambda a, sa, b, sb: _deq_mx(a, sa) @ _deq_mx(b, sb).T)
    try:
        z = _compiled_mx(qa.data, qa.scales, qb.data, qb.scales)
        r["mx_compile_err"] = ((z.float() - ref).abs().max() / ref.abs().max()).item()
        r["mx_compile_us"] = graph_us(
            lambda i: _compiled_mx(qa.data, qa.scales, qb.data, qb.scales))
    except (RuntimeError, TypeError) as e:  # (a torch without e8m0 -> float)
        print(f"torch.compile MXFP8 peer: {type(e).__name__}: {e}")
        r["mx_compile_us"] = r["mx_compile_err"] = None
    del ref


_E2M1 = None
_compiled_nv = None


def _deq_nv(c, s, g, table):
    """The dequantize a torch user writes for NVFP4: the two e2m1 codes of
    each byte (low nibble first) through a 16-entry table (on the codes'
    device: a host copy cannot be captured in a CUDA graph), times their e4m3
    scales repeated over 16 of K and the global scale, in bf16."""
    lo = (c & 0xF).long()
    hi = (c >> 4).long()
    v = table[torch.stack((lo, hi), dim=-1).flatten(-2)]
    return (v * s.float().repeat_interleave(16, dim=1) * g.float()).to(torch.bfloat16)


def nvfp4(r, x, w, fpxc):
    """NVFP4 x NVFP4: fpxc.scaled_mm (graph and eager) and the
    torch.compile'd dequantize-then-bf16-matmul peer on the same codes."""
    global _E2M1, _compiled_nv
    if _E2M1 is None:
        m = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
        _E2M1 = torch.tensor(m + [-v for v in m], dtype=torch.float32)
    qa = fpxc.quantize(x, "nvfp4")
    qb = fpxc.quantize(w, "nvfp4")
    ga, gb = qa.global_scale.reshape(()).float(), qb.global_scale.reshape(()).float()
    args = (qa.data, qa.scales, ga, qb.data, qb.scales, gb)
    y = fpxc.scaled_mm(qa, qb)
    da = fpxc.dequantize(qa, format="nvfp4")
    db = fpxc.dequantize(qb, format="nvfp4")
    ref = da.float() @ db.float().T
    r["nv_err"] = ((y.float() - ref).abs().max() / ref.abs().max()).item()
    del da, db
    r["nv_us"] = graph_us(lambda i: fpxc.scaled_mm(qa, qb))
    r["nv_eager_us"] = queued_us(lambda i: fpxc.scaled_mm(qa, qb))
    blocked(r, "nv", "nvfp4", x, w, y, fpxc)
    if _compiled_nv is None:
        _compiled_nv = torch.compile(
            lambda a, sa, ga, b, sb, gb, t: _deq_nv(a, sa, ga, t) @ _deq_nv(b, sb, gb, t).T)
    table = _E2M1.to(x.device)
    try:
        z = _compiled_nv(*args, table)
        r["nv_compile_err"] = ((z.float() - ref).abs().max() / ref.abs().max()).item()
        r["nv_compile_us"] = graph_us(lambda i: _compiled_nv(*args, table))
    except (RuntimeError, TypeError) as e:
        print(f"torch.compile NVFP4 peer: {type(e).__name__}: {e}")
        r["nv_compile_us"] = r["nv_compile_err"] = None
    del ref


def blockwise(r, x, w, kernel, fpxc):
    """The blockwise artifact (A 1x128, B 128x128 fp32 scales: fpxc.quantize
    block=(1, 128) and (128, 128)) beside torch's blockwise scaled_mm on the
    same codes and scales (cuBLAS: A's scales outer-dim-major, B's transposed
    as its operand is)."""
    qa = fpxc.quantize(x, "fp8_e4m3", block=(1, 128))
    qb = fpxc.quantize(w, "fp8_e4m3", block=(128, 128))
    y = kernel(qa.data, qa.scales, qb.data, qb.scales)
    da = fpxc.dequantize(qa, format="fp8_e4m3", block=(1, 128))
    db = fpxc.dequantize(qb, format="fp8_e4m3", block=(128, 128))
    ref = da @ db.T
    r["block_err"] = ((y.float() - ref).abs().max() / ref.abs().max()).item()
    del ref, da, db
    r["block_us"] = graph_us(lambda i: kernel(qa.data, qa.scales, qb.data, qb.scales))
    sa = qa.scales.t().contiguous().t()
    try:
        from torch.nn.functional import ScalingType, scaled_mm
        r["block_peer_us"] = graph_us(lambda i: scaled_mm(
            qa.data, qb.data.T, sa, ScalingType.BlockWise1x128, qb.scales.T,
            ScalingType.BlockWise128x128, output_dtype=torch.bfloat16))
    except (ImportError, RuntimeError, TypeError) as e:
        print(f"torch blockwise scaled_mm: {type(e).__name__}: {e}")
        r["block_peer_us"] = None


if __name__ == "__main__":
    main()
