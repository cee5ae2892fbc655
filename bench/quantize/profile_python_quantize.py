"""Where a fpx.quantize call's host time goes: the wall time per call of the
package's layers on a small CUDA tensor (the GPU work is tiny, so the host
sets the pace), then cProfile's top entries.

  python3 bench/quantize/profile_python_quantize.py [--format nvfp4] [--calls 2000]

Rows: fpx.quantize (a signature that ran before: its cached plan),
ops._quantize_impl (the checked path: option checks, dispatch key, bundle
lookup, plan built anew), torch.ops.fpxc.quantize (the same behind torch's
dispatcher, what torch.compile and autograd see), the plan alone (allocation
and launch), and one small torch op for scale. NVFP4 runs with a given amax
(one kernel); the two-pass cast is one launch more. Last, fpx.dequantize of
the result (for NVFP4 with its g, read by the kernel on the device).
"""
import argparse
import cProfile
import pstats

import torch

import fpxc
from fpxc import ops
from host_timing import per_call_us  # this script's folder is on sys.path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", default="nvfp4")
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    x = torch.randn(256, 1024, device="cuda", dtype=torch.bfloat16)
    nv = args.format == "nvfp4"
    a = x.float().abs().max() if nv else None
    s = ops.scheme(args.format)
    br, bc = s.block
    opts = (args.format, br, bc, "", "", "rn", "row_major", "auto")
    impl_args = (x,) + opts + (0, True, 0, 0, a)
    fpxc.quantize(x, format=args.format, amax=a)  # caches the plan
    plan = ops._plans[ops._plan_key(x, opts + (True, 0, 0, nv))]
    q = fpxc.quantize(x, format=args.format, amax=a)
    rows = [
        ("fpx.quantize", lambda: fpxc.quantize(x, format=args.format, amax=a)),
        ("ops._quantize_impl (checked)", lambda: ops._quantize_impl(*impl_args)),
        ("torch.ops.fpxc.quantize", lambda: torch.ops.fpxc.quantize(*impl_args)),
        ("the plan alone", lambda: plan(x, a, 0)),
        ("torch.abs(x) (a torch op)", lambda: torch.abs(x)),
        ("fpx.dequantize", lambda: fpxc.dequantize(q, format=args.format, dtype=torch.bfloat16)),
    ]
    print(f"{args.format} 256x1024 bf16{' (amax given)' if nv else ''}: host time per call")
    for name, fn in rows:
        print(f"{name:<30} {per_call_us(fn, args.calls, torch.cuda.synchronize):8.1f} us a call")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.calls):
        fpxc.quantize(x, format=args.format, amax=a)
    torch.cuda.synchronize()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
