"""NVFP4 through the Python package: fpx.quantize computing the tensor amax
(amax pass + cast) against fpx.quantize(..., amax=a) (delayed scaling: the
cast alone), beside a device-to-device copy and the peers a user has,
measured in the same run. Shapes MxK, or ExNxK for a batch of expert
matrices (a global scale per matrix, in one launch where the matrices are a
multiple of 8192 elements).

  python3 bench/quantize/bench_python_amax.py [--shapes 16384x8192,131072x7168] [--no-compile]
      [--rounding rs]

Prints per shape and variant: time (the mean of calls queued back to back,
two inputs alternating so that L2 does not serve reads), GB/s (input + codes
+ scales, each once) and the ratio to the copy bandwidth. The peers: the
plain-PyTorch NVFP4 reference of bench_quantize.py (its amax computed), eager
and through torch.compile, once per matrix of a batch (what a user of it
writes for a global scale per matrix). Every variant's codes and scales are
checked against the eager reference (a line's end: PASS, or FAIL with how
many code bytes and scales differ). With --rounding rs fpx rounds
stochastically (seed 7): its scales are checked against the reference's,
its codes against its own (the same seed twice, with and without the amax
given) and they must differ from the rn codes and from another seed's; the
peers stay rn.
"""
import argparse
import warnings

import torch

import fpxc
import bench_quantize  # the plain-PyTorch reference casts (this script's folder is on sys.path)
from queued_timing import add_dry_run_options, copy_bandwidth, queued_us  # this script's folder is on sys.path


def nvfp4_peer(ref):
    """The NVFP4 reference `ref` on a matrix, or on each matrix of a batch:
    [(codes, scales, amax), ...]."""
    return lambda x: [ref(x)] if x.dim() == 2 else [ref(m) for m in x]


differing_bytes = bench_quantize._mismatch  # how many bytes of a and b differ


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="16384x8192,131072x7168,8x8192x5120,64x2048x7168")
    ap.add_argument("--no-compile", action="store_true", help="no torch.compile peer")
    ap.add_argument("--rounding", choices=("rn", "rs"), default="rn",
                    help="fpx's element rounding (rs: stochastic, seed 7; the peers stay "
                         "rn, torch has no rs)")
    add_dry_run_options(ap)
    args = ap.parse_args(argv)
    bench_quantize._import_torch()
    eager = nvfp4_peer(bench_quantize.ref_nvfp4)
    compiled = nvfp4_peer(torch.compile(bench_quantize.ref_nvfp4, dynamic=False))
    dev = torch.device(args.device)
    copy_gbs, line = copy_bandwidth(dev, args.copy_mib)
    print(line)
    with warnings.catch_warnings():
        # A host fallback would time the CPU reference: make it an error.
        warnings.filterwarnings("error", message="fpx: no prebuilt kernel")
        for spec in args.shapes.split(","):
            run_shape(spec, dev, copy_gbs, eager, None if args.no_compile else compiled,
                      args.rounding)


def run_shape(spec, dev, copy_gbs, eager, compiled, rounding="rn"):
    dims = [int(v) for v in spec.split("x")]
    xs = [torch.randn(*dims, device=dev, dtype=torch.bfloat16) for _ in range(2)]
    # A batch of matrices (E, N, K): one amax and global scale per matrix.
    amaxes = [x.float().abs().amax(dim=(-2, -1)) for x in xs]
    kw = dict(format="nvfp4", rounding=rounding, seed=7)
    q = fpxc.quantize(xs[0], **kw)
    moved = xs[0].numel() * 2 + q.data.numel() * q.data.element_size() + q.scales.numel()
    # Delayed scaling: the cast from a given amax returning this input's too
    # (one kernel, for a matrix and for a batch with an amax per matrix).
    returned = {}

    def given_and_returned(i):
        q, returned[i % 2] = fpxc.quantize(xs[i % 2], amax=amaxes[i % 2], return_amax=True, **kw)
        return q

    runs = {
        "amax computed (two passes)": lambda i: fpxc.quantize(xs[i % 2], **kw),
        "amax given (one pass)": lambda i: fpxc.quantize(xs[i % 2], amax=amaxes[i % 2], **kw),
        "amax given and returned": given_and_returned,
        "peer: PyTorch eager": lambda i: eager(xs[i % 2]),
    }
    if compiled is not None:
        runs["peer: torch.compile"] = lambda i: compiled(xs[i % 2])
    # Every variant computes the same codes and scales (the given amaxes are
    # the matrices' own): each is checked against the eager reference first.
    want = eager(xs[0])
    want_codes = torch.stack([w[0] for w in want]).view(q.data.shape)
    want_scales = torch.stack([w[1] for w in want]).view(q.scales.shape)
    # Under rs fpx's codes are checked instead against its own: the same seed
    # twice, and the two fpx variants (same amaxes, same seed) alike; and they
    # must differ from the rn codes and from another seed's (a kernel that
    # rounded to nearest, or ignored the seed, fails).
    rs_codes = q.data if rounding == "rs" else None
    if rs_codes is not None:
        other_seed = fpxc.quantize(xs[0], **dict(kw, seed=8)).data
    for name, fn in runs.items():
        got = fn(0)
        peer = isinstance(got, list)
        if peer:  # per matrix
            got = (torch.stack([w[0] for w in got]), torch.stack([w[1] for w in got]))
        if rs_codes is None or peer:
            bad_codes = differing_bytes(got[0].reshape(want_codes.shape), want_codes)
        else:
            bad_codes = (differing_bytes(got[0], rs_codes)
                         + differing_bytes(fn(0)[0], rs_codes))
        bad_scales = differing_bytes(got[1].reshape(want_scales.shape), want_scales)
        verdict = ("PASS" if bad_codes + bad_scales == 0 else
                   f"FAIL ({bad_codes} of {want_codes.numel()} code bytes, "
                   f"{bad_scales} of {want_scales.numel()} scales differ)")
        if name == "amax given and returned" and differing_bytes(returned[0], amaxes[0]):
            verdict = "FAIL (the returned amax is not this input's)"
        if rs_codes is not None and not peer:
            if differing_bytes(got[0].reshape(want_codes.shape), want_codes) == 0:
                verdict = "FAIL (the codes are the rn reference's: no stochastic rounding)"
            elif differing_bytes(got[0], other_seed) == 0:
                verdict = "FAIL (another seed gives the same codes)"
        us = queued_us(fn)
        gbs = moved / us / 1e3
        fmt = "nvfp4" if rounding == "rn" or peer else "nvfp4+rs"
        print(f"  {fmt:<8} {spec:>12} {name:<28} {us:8.1f} us {gbs:6.0f} GB/s "
              f"{100 * gbs / copy_gbs:5.1f}% of copy  check vs eager reference: "
              f"{verdict}")

if __name__ == "__main__":
    main()
