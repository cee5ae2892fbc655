"""fpx.swizzle_scales on the GPU: byte scales (rows, cols) to the blocked
128x4 layout, whole and per group of rows (MoE: G groups of random sizes),
beside a device-to-device copy and the peers a user has, measured in the same
run. The peers: the PyTorch formulation of the layout (pad, view, permute:
torchao's to_blocked, bench_quantize.to_blocked), eager and through
torch.compile; for groups, that formulation on each group (the ends known on
the host) written into the same upper-bound result.

  python3 bench/quantize/bench_swizzle.py [--shapes 65536x224,16384x256] [--groups 0,8,64,256]

The default shapes include 32768x90 (K = 2880: rows of scales not a whole
number of words, the kernel's byte path).

Prints per shape and group count two times a call: the GPU's (calls
replayed from a CUDA graph, no host work; "n/a" where a call cannot be
captured) and an eager call's (the mean of calls queued back to back: at
these sizes the host work of a call can set the pace). The calls rotate
through enough inputs that together they are twice the L2 cache (at most
20), so the GPU reads them from memory, as the copy does, not from the L2. GB/s (scales read + the result written, its upper-bound rows
included) and the ratio to the copy bandwidth are of the GPU time; each
peer's two times and fpx's speedup over each; PASS when fpx's result equals
the peer's byte for byte.
"""
import argparse
import warnings

import torch

import fpxc
import bench_quantize  # to_blocked (this script's folder is on sys.path)
from queued_timing import add_dry_run_options, copy_bandwidth, graph_us, queued_us  # this script's folder is on sys.path


def group_ends(rows, groups, seed):
    """`groups` ends of random group sizes (some empty) summing to rows."""
    g = torch.Generator().manual_seed(seed)
    w = torch.rand(groups, generator=g) * (torch.rand(groups, generator=g) > 0.1)
    w[-1] += 1e-3
    ends = torch.cumsum(w / w.sum() * rows, 0).round().to(torch.int64).clamp(max=rows)
    ends[-1] = rows
    return ends.to(torch.int32)


def grouped_peer(s, ends_host, upper):
    """The PyTorch layout on each group, into the upper-bound result."""
    cols = -(-s.shape[1] // 4) * 4
    out = torch.zeros(upper, cols, dtype=torch.uint8, device=s.device)
    at, begin = 0, 0
    for end in ends_host:
        if end > begin:
            b = bench_quantize.to_blocked(s[begin:end])
            out[at:at + b.shape[0]] = b
            at += b.shape[0]
        begin = end
    return out


def inputs_beyond_l2(dev, nbytes, most=20):
    """How many inputs of `nbytes` the timed calls rotate through: together
    twice the L2 cache (2 without a GPU), at most `most` (graph_us's calls)."""
    if dev.type != "cuda":
        return 2
    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    return min(most, max(2, -(-2 * l2 // nbytes)))


def _us(v):
    return f"{v:9.1f} us" if v is not None else "      n/a   "


def _ratio(peer, fpxc):
    return f"{peer / fpxc:6.2f}x" if peer is not None and fpxc is not None else "    n/a"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="65536x224,16384x256,131072x224,32768x90")
    ap.add_argument("--groups", default="0,8,64,256")
    ap.add_argument("--no-compile", action="store_true")
    add_dry_run_options(ap)
    a = ap.parse_args(argv)
    dev = torch.device(a.device)
    bench_quantize._import_torch()
    # a CPU fallback inside fpx would be an error here
    warnings.filterwarnings("error", message="fpx: no prebuilt kernel")
    copy, line = copy_bandwidth(dev, a.copy_mib)
    print(line)
    compiled = None if a.no_compile else torch.compile(bench_quantize.to_blocked)
    for shape in a.shapes.split(","):
        rows, cols = (int(v) for v in shape.split("x"))
        g = torch.Generator(device=dev).manual_seed(rows + cols)
        xs = [torch.randint(0, 256, (rows, cols), dtype=torch.uint8, device=dev, generator=g)
              for _ in range(inputs_beyond_l2(dev, rows * cols))]
        for groups in (int(v) for v in a.groups.split(",")):
            ends = group_ends(rows, groups, rows + groups).to(dev) if groups else None
            ends_host = ends.cpu().tolist() if groups else None
            upper = -(-(rows + 128 * groups) // 128) * 128
            fn = lambda i: fpxc.swizzle_scales(xs[i % len(xs)], ends, check=False)  # noqa: E731
            out = fn(0)
            nbytes = xs[0].numel() + out.numel()
            gus, us = graph_us(fn), queued_us(fn)
            label = f"{shape} G={groups}" if groups else f"{shape} whole"
            line = f"fpx.swizzle_scales {label:22s} GPU {_us(gus)}"
            if gus is not None:
                gbs = nbytes / gus / 1e3
                line += f" {gbs:7.0f} GB/s {100 * gbs / copy:5.1f}% of copy"
            print(f"{line} | eager call {_us(us)}", flush=True)
            if groups:
                peers = [("torch eager, a group at a time",
                          lambda i: grouped_peer(xs[i % len(xs)], ends_host, upper))]
            else:
                peers = [("torch eager to_blocked", lambda i: bench_quantize.to_blocked(xs[i % len(xs)]))]
                if compiled is not None:
                    peers.append(("torch.compile to_blocked", lambda i: compiled(xs[i % len(xs)])))
            for name, peer in peers:
                want = peer(0)
                ok = torch.equal(out.view(torch.uint8), want)
                reps = 10 if groups else 30
                pg, pus = graph_us(peer, reps=reps), queued_us(peer, reps=reps)
                print(f"    peer {name:32s} GPU {_us(pg)} fpx {_ratio(pg, gus)} | eager call "
                      f"{_us(pus)} fpx {_ratio(pus, us)}  {'PASS' if ok else 'FAIL'}", flush=True)


if __name__ == "__main__":
    main()
