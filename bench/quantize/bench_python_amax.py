"""NVFP4 through the Python package: fpx.quantize computing the tensor amax
(amax pass + cast) against fpx.quantize(..., amax=a) (delayed scaling: the
cast alone), beside a device-to-device copy measured in the same run. Shapes
MxK, or ExNxK for a batch of expert matrices (a global scale per matrix: the
matrix kernels run once per matrix).

  python3 bench/quantize/bench_python_amax.py [--shapes 16384x8192,131072x7168]

Prints per shape and variant: time (the mean of calls queued back to back,
two inputs alternating so that L2 does not serve reads; the global scale's
small torch ops included, as a user gets them), GB/s (input + codes + scales, each once) and the
ratio to the copy bandwidth.
"""
import argparse
import warnings

import torch

import fpx
from queued_timing import add_dry_run_options, copy_bandwidth, queued_us  # this script's folder is on sys.path


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="16384x8192,131072x7168,8x8192x5120,64x2048x7168")
    add_dry_run_options(ap)
    args = ap.parse_args(argv)
    # A host fallback would time the CPU reference: make it an error.
    warnings.filterwarnings("error", message="fpx: no prebuilt kernel")
    dev = torch.device(args.device)
    copy_gbs, line = copy_bandwidth(dev, args.copy_mib)
    print(line)
    for spec in args.shapes.split(","):
        dims = [int(v) for v in spec.split("x")]
        xs = [torch.randn(*dims, device=dev, dtype=torch.bfloat16) for _ in range(2)]
        # A batch of matrices (E, N, K): one amax and global scale per matrix.
        amaxes = [x.float().abs().amax(dim=(-2, -1)) for x in xs]
        q = fpx.quantize(xs[0], format="nvfp4")
        moved = xs[0].numel() * 2 + q.data.numel() * q.data.element_size() + q.scales.numel()
        runs = {
            "amax computed (two passes)": lambda i: fpx.quantize(xs[i % 2], format="nvfp4"),
            "amax given (one pass)": lambda i: fpx.quantize(xs[i % 2], format="nvfp4",
                                                            amax=amaxes[i % 2]),
        }
        for name, fn in runs.items():
            us = queued_us(fn)
            gbs = moved / us / 1e3
            print(f"  nvfp4 {spec:>12} {name:<28} {us:8.1f} us {gbs:6.0f} GB/s "
                  f"{100 * gbs / copy_gbs:5.1f}% of copy")
        del xs


if __name__ == "__main__":
    main()
