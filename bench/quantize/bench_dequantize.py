"""Dequantize through the Python package (fpx.dequantize on CUDA tensors, the
bundled fpxc kernels) to bf16, beside a device-to-device copy and the peers a
user has, all measured in the same run.

  python3 bench/quantize/bench_dequantize.py [--shapes 16384x8192,131072x7168]
                                             [--formats mxfp8_e4m3,...]

Shapes ExMxK are batches of matrices (experts): NVFP4's then have one global
scale per matrix, as a batch quantize returns them.

Per format and shape: time (the mean of calls queued back to back, two
inputs alternating so that L2 does not serve reads; the package's host work
overlaps the kernels), GB/s (codes + scales read, bf16 values written, each
once), the ratio to the copy bandwidth, and the same for the peers: the
reference dequantize in plain PyTorch (decode by the dtype's own conversion or
a 16-entry table for fp4, times the block's scale, rounded to bf16), eager
and through torch.compile. Checks: fpx's values equal the eager peer's
(NaNs meet NaNs) at the benchmarked shape, and the package's CPU reference
at a small one.
"""
import argparse

import torch

import fpxc
from queued_timing import add_dry_run_options, copy_bandwidth, queued_us  # this script's folder is on sys.path

E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]
# name: fpx.quantize keywords, block length along K (0: one scale per tensor)
CASES = {
    "mxfp8_e4m3": (dict(format="mxfp8_e4m3"), 32),
    "mxfp8_e5m2": (dict(format="mxfp8_e5m2"), 32),
    "mxfp6_e2m3_4p2": (dict(format="mxfp6_e2m3", packing="planes"), 32),
    "mxfp6_e2m3_interleaved": (dict(format="mxfp6_e2m3", packing="interleaved"), 32),
    "mxfp8_e4m3_blocked": (dict(format="mxfp8_e4m3", scale_layout="blocked"), 32),
    "mxfp4": (dict(format="mxfp4"), 32),
    "nvfp4": (dict(format="nvfp4"), 16),
    "nvfp4_blocked": (dict(format="nvfp4", scale_layout="blocked"), 16),
    "fp8_e4m3_1x128": (dict(format="fp8_e4m3", block=(1, 128)), 128),
    "fp8_e4m3_tensor": (dict(format="fp8_e4m3", block=(None, None)), 0),
}


def fp4_values(codes, lut):
    """fp4x2 bytes (element 2i in the low nibble) -> float32 values."""
    lo, hi = lut[(codes & 15).long()], lut[(codes >> 4).long()]
    return torch.stack([lo, hi], -1).reshape(*codes.shape[:-1], -1)


def peer_for(name, block, lut):
    """The plain-PyTorch dequantize of a case, or None (fp6 4+2 unpacking
    and blocked 128x4 scales have no plain-PyTorch peer here)."""
    if name.startswith("mxfp6") or name.endswith("blocked"):
        return None

    def dq(data, scales, g):
        v = fp4_values(data, lut) if data.dtype == torch.uint8 else data.float()
        shape, k = v.shape, v.shape[-1]
        s = scales.float()
        if g is not None:  # one, or one per matrix of a batch
            s = s * (g.view(-1, 1, 1) if s.dim() == 3 else g)
        if block == 0:  # one scale, or one per matrix of a batch
            return (v * s.reshape(-1, *[1] * (v.dim() - 1))).reshape(shape).to(torch.bfloat16)
        v = v.reshape(-1, k // block, block) * s.reshape(-1, k // block, 1)
        return v.reshape(shape).to(torch.bfloat16)
    return dq


def same_values(a, b):
    na, nb = a.isnan(), b.isnan()
    return bool(torch.equal(na, nb)) and bool(torch.equal(a[~na].view(torch.int16),
                                                          b[~nb].view(torch.int16)))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="16384x8192,131072x7168")
    ap.add_argument("--formats", default=",".join(CASES))
    ap.add_argument("--no-compile", action="store_true", help="no torch.compile peer")
    add_dry_run_options(ap)
    args = ap.parse_args(argv)
    dev = torch.device(args.device)
    copy_gbs, line = copy_bandwidth(dev, args.copy_mib)
    print(line)
    lut = torch.tensor(E2M1, device=dev)
    names = args.formats.split(",")
    # Small-shape check against the package's CPU reference.
    small = torch.randn(256, 1024, dtype=torch.bfloat16) * 3
    for name in names:
        kw, _ = CASES[name]
        q = fpxc.quantize(small, **kw)
        want = fpxc.dequantize(q, dtype=torch.bfloat16, **kw)
        have = fpxc.dequantize(q.to(dev), dtype=torch.bfloat16, **kw)
        print(f"check {name:<18} 256x1024 vs fpx CPU reference: "
              f"{'PASS' if same_values(have.cpu(), want) else 'FAIL'}")
    rows = []
    for spec in args.shapes.split(","):
        dims = [int(v) for v in spec.split("x")]
        xs = [torch.randn(*dims, device=dev, dtype=torch.bfloat16) for _ in range(2)]
        n = xs[0].numel()
        for name in names:
            kw, block = CASES[name]
            qs = [fpxc.quantize(x, **kw) for x in xs]
            q = qs[0]
            moved = (q.data.numel() * q.data.element_size()
                     + q.scales.numel() * q.scales.element_size() + n * 2)
            runs = {"fpxc": lambda i: fpxc.dequantize(qs[i % 2], dtype=torch.bfloat16, **kw)}
            peer = peer_for(name, block, lut)
            ok = "-"
            if peer is not None:
                # A fresh compilation per case and shape, for this shape
                # (the one function's code would otherwise hit dynamo's
                # recompile limit and fall back to eager, or be compiled for
                # dynamic shapes).
                runs["torch eager"] = lambda i: peer(*qs[i % 2][:3])
                if not args.no_compile:
                    torch._dynamo.reset()
                    compiled = torch.compile(peer, dynamic=False)
                    runs["torch.compile"] = lambda i: compiled(*qs[i % 2])
                ok = "PASS" if same_values(runs["fpxc"](0), peer(*q[:3])) else "FAIL"
            for who, fn in runs.items():
                us = queued_us(fn)
                gbs = moved / us / 1e3
                rows.append((name, spec, who, us, gbs, 100 * gbs / copy_gbs))
                print(f"{name:<18} {spec:>12} {who:<14} {us:8.1f} us {gbs:6.0f} GB/s "
                      f"{100 * gbs / copy_gbs:5.1f}% of copy"
                      + (f"   check vs eager peer: {ok}" if who == "fpxc" else ""))
            del qs, q
        del xs
        if dev.type == "cuda":
            torch.cuda.empty_cache()
    print("\nformat             shape        | fpxc us  % copy | eager us | compile us | fpxc speedup vs compile")
    for name in names:
        for spec in args.shapes.split(","):
            r = {who: (us, pct) for n, s, who, us, _, pct in rows if n == name and s == spec}
            f = r["fpxc"]
            e = r.get("torch eager", (float("nan"),))[0]
            c = r.get("torch.compile", (float("nan"),))[0]
            print(f"{name:<18} {spec:<12} | {f[0]:7.1f} {f[1]:6.1f}% | {e:8.1f} | {c:10.1f} | "
                  f"{c / f[0]:5.2f}x")


if __name__ == "__main__":
    main()
