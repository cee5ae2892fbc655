"""Runs one fpxc function a few times on random data, for ncu / sanitizers.

  python3 bench/quantize/profile_kernel.py --artifact .art/sm_90a/mxfp8_e4m3_cols.json \
      --shape 16384,8192 [--fpx-path .art/pyfpx] [--reps 3] [--per-matrix]
"""
import argparse
import os
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--artifact", required=True)
    ap.add_argument("--function", default=None)
    ap.add_argument("--shape", default="16384,8192")
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--fpx-path", default=".art/pyfpx")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--per-matrix", action="store_true",
                    help="the second input: one amax per matrix of the batch")
    args = ap.parse_args()
    if args.fpx_path and os.path.isdir(args.fpx_path):   # else the installed package
        sys.path.insert(0, args.fpx_path)
    import torch
    import fpxc

    art = fpxc.load(args.artifact)
    names = list(art.functions)
    fn = art.functions[args.function or names[0]]
    shape = [int(s) for s in args.shape.split(",")]
    x = torch.randn(shape, device="cuda", dtype=getattr(torch, args.dtype))
    extra = [7] if fn.scalars else []
    # A second input is the tensor amax (the NVFP4 cast-only functions), or
    # with --per-matrix one amax per matrix of a batch (E, M, K).
    tensors = [x]
    if len(fn.inputs) > 1:
        tensors.append(x.float().abs().amax(dim=(-2, -1)) if args.per_matrix
                       else x.float().abs().amax().reshape(()))
    for _ in range(args.reps):
        fn(*tensors, *extra)
    torch.cuda.synchronize()
    print("ran", fn.name, shape, args.reps, "times")


if __name__ == "__main__":
    main()
