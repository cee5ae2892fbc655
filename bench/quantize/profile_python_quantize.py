"""Where a fpx.quantize call's host time goes: the wall time per call of the
package's layers on a small CUDA tensor (the GPU work is tiny, so the host
sets the pace), then cProfile's top entries.

  python3 bench/quantize/profile_python_quantize.py [--format nvfp4] [--calls 2000]
"""
import argparse
import cProfile
import pstats

import torch

import fpx
from fpx import bundle, ops
from host_timing import per_call_us  # this script's folder is on sys.path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", default="nvfp4")
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    x = torch.randn(256, 1024, device="cuda", dtype=torch.bfloat16)
    a = x.float().abs().max()
    kw = dict(format=args.format)
    amax_kw = dict(amax=a) if args.format == "nvfp4" else {}
    s, kind, rule, packing = ops._resolve(args.format, 1, 16 if args.format == "nvfp4" else 32,
                                          "", None, "rn", "row_major", "auto")
    br, bc = (1, 16) if args.format == "nvfp4" else (1, 32)
    options, xin = ops._bundle_options(x, s, kind, rule, "rn", packing, br, bc, "row_major",
                                       True, 0, 0, bool(amax_kw))
    kernel = bundle.find(options, x.device)
    ins = (xin, a.reshape(())) if amax_kw else (xin,)
    rows = [
        ("fpx.quantize", lambda: fpx.quantize(x, **kw, **amax_kw)),
        ("torch.ops.fpx.quantize", lambda: torch.ops.fpx.quantize(
            x, args.format, br, bc, "", "", "rn", "row_major", "auto", 0, True, 0, 0,
            amax_kw.get("amax"))),
        ("ops._quantize_cuda", lambda: ops._quantize_cuda(
            x, s, kind, rule, "rn", packing, br, bc, "row_major", 0, True, 0, 0,
            amax_kw.get("amax"))),
        ("bundle.find", lambda: bundle.find(options, x.device)),
        ("bundled kernel call", lambda: kernel(*ins)),
        ("torch.abs(x) (a torch op)", lambda: torch.abs(x)),
    ]
    for name, fn in rows:
        print(f"{name:<28} {per_call_us(fn, args.calls, torch.cuda.synchronize):8.1f} us a call")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.calls):
        fpx.quantize(x, **kw, **amax_kw)
    torch.cuda.synchronize()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(18)


if __name__ == "__main__":
    main()
