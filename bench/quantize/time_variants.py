#!/usr/bin/env python3
"""Times fpxc functions of one bf16 input (2-D) side by side, for exploring
variants of a kernel: each artifact at each shape, in the order given and
then reversed (A B C C B A), with bench_quantize's timer and its 1 GiB
copy as the reference. Bytes counted: the input read plus every output
written. No correctness check (check_cols_gpu.py, the GPU tests and the
benchmark do that).

    python3 bench/quantize/time_variants.py --shapes 16384x8192,131072x7168 \
        A.json B.json ...
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_quantize as B  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="16384x8192,131072x7168")
    p.add_argument("artifacts", nargs="+")
    a = p.parse_args()
    import fpxc
    B._import_torch()
    torch = B.torch
    timer = B.Timer()
    timer.calibrate()
    nbytes = 2**30
    src = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy = 2 * nbytes / (timer.run(lambda x: dst.copy_(x), [src], reps=30)["median_ms"] * 1e-3)
    del src, dst
    print(f"copy {copy / 1e9:.0f} GB/s")
    fns = []
    for path in a.artifacts:
        art = fpxc.load(path)
        name = next(iter(art.functions))
        fns.append((Path(path).parent.name + "/" + name, art.functions[name]))
    shapes = [tuple(int(v) for v in s.split("x")) for s in a.shapes.split(",")]
    for shape in shapes:
        xs = [B.make_input(shape, seed) for seed in range(3)]
        for label, fn in fns + fns[::-1]:
            extra = [1] * len(fn.scalars)  # (a seed)
            outs = fn(xs[0], *extra)
            moved = B._bytes_of(xs[0]) + sum(B._bytes_of(o) for o in outs)
            r = timer.run(lambda x: fn(x, *extra), xs)
            gbs = moved / (r["median_ms"] * 1e-3)
            print(f"{label:40s} {'x'.join(map(str, shape)):12s} {r['median_ms'] * 1e3:8.1f} us "
                  f"{gbs / 1e9:6.0f} GB/s {100 * gbs / copy:5.1f}% of copy", flush=True)


if __name__ == "__main__":
    sys.exit(main())
