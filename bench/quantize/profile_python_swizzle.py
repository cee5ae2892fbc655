"""Where a fpx.swizzle_scales call's host time goes: the wall time per call
of the package's layers on small CUDA scales (the GPU work is tiny, so the
host sets the pace), whole and with 8 groups, then cProfile's top entries of
the grouped call.

  python3 bench/quantize/profile_python_swizzle.py [--calls 2000]

Rows: fpx.swizzle_scales (its checks, then the cached plan), with check=True
for groups (the ends copied to the host), ops.swizzle_scales_impl (the plan:
operands, allocation, launch), the native launch alone on prepared
arguments, and small torch ops for scale.
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
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    s = torch.randint(0, 256, (512, 32), dtype=torch.uint8, device="cuda")
    ends = torch.tensor([40, 40, 100, 250, 256, 300, 500, 512], dtype=torch.int32, device="cuda")
    sync = torch.cuda.synchronize
    for g in (None, ends):
        fpxc.swizzle_scales(s, g)  # caches the plan
    plan = ops._swizzle_plans[(s.device, 512, 32, 8)]
    e8 = s.view(torch.float8_e8m0fnu)
    out = torch.empty(plan.out[0], dtype=plan.out[1], device=s.device)
    ins = [(e8.data_ptr(),) + plan.ins[0], (ends.data_ptr(),) + plan.ins[1]]
    outs = [(out.data_ptr(), plan.out[2], plan.out[0], [])]
    stream = torch.cuda.current_stream().cuda_stream
    rows = [
        ("fpx.swizzle_scales, whole", lambda: fpxc.swizzle_scales(s)),
        ("fpx.swizzle_scales, 8 groups", lambda: fpxc.swizzle_scales(s, ends, check=False)),
        ("  the same, check=True", lambda: fpxc.swizzle_scales(s, ends)),
        ("ops.swizzle_scales_impl, 8 groups", lambda: ops.swizzle_scales_impl(s, ends)),
        ("native launch, 8 groups (prepared)", lambda: plan.launch(stream, ins, outs, [])),
        ("torch.empty_like(s)", lambda: torch.empty_like(s)),
        ("torch.abs(s.float()) (two ops)", lambda: torch.abs(s.float())),
    ]
    print("fpx.swizzle_scales on 512x32 byte scales: host time per call")
    for name, fn in rows:
        print(f"{name:<36} {per_call_us(fn, args.calls, sync):8.1f} us a call")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.calls):
        fpxc.swizzle_scales(s, ends, check=False)
    sync()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
