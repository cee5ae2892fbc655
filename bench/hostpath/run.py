#!/usr/bin/env python3
"""Host cost of an fpxc op against torch's own (issue 37).

    python3 bench/hostpath/run.py [--out DIR] [--dry-run] [--format F] [--small N]
                                  [--sizes 1024,4096,8192] [--calls N] [--no-compile]
                                  [--breakdown]

Per method, on bf16 tensors:
  host us/call   many calls of a small (N x N) cast timed with time.perf_counter
                 (the GPU is not the bottleneck at that size), one sync at the end;
  b2b us/call    back-to-back calls at each size, perf_counter around them and a sync;
  GPU us/call    the same calls captured in a CUDA graph and replayed (kernel time
                 without the host), for the fpx and torch casts.
Methods: fpx eager (fpxc.quantize), fpx inside torch.compile(fullgraph=True),
fpx inside torch.compile(mode="reduce-overhead") (inductor's CUDA graphs),
torch.ops.fpxc.quantize.default directly, the Python plan eager calls ran before issue 37
(ops.quantize_planned), torch's x.to(torch.float8_e4m3fn) (eager and
compiled), torchao's compiled to_mx when torchao imports (a printed line otherwise).
Targets printed: host <= 15 us a call for fpx eager and compiled; back to back at
4096x4096 within 1.3x of the fpx kernel's GPU time.

--dry-run runs the whole flow on CPU tensors (small sizes, few calls, the
aot_eager backend, no CUDA graphs): the numbers mean nothing there.
Writes OUT/results.json and OUT/hostpath.md (default OUT: $OUT, else gpu-out/).
"""

import argparse
import json
import os
import pathlib
import sys
import time

import torch

HOST_TARGET_US = 15.0
B2B_RATIO_TARGET = 1.3


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--format", default="mxfp8_e4m3")
    p.add_argument("--small", type=int, default=256, help="the host-time shape (N x N)")
    p.add_argument("--sizes", default="1024,4096,8192", help="back-to-back shapes (N x N)")
    p.add_argument("--calls", type=int, default=2000, help="calls a host-time measurement")
    p.add_argument("--b2b-calls", type=int, default=200, help="calls a back-to-back measurement")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile methods")
    p.add_argument("--breakdown", action="store_true",
                   help="also the parts of a call: a one-tensor aten op through the same "
                        "OpOverload path (the dispatcher's floor), the fpx op's raw C++ "
                        "overload (no Python frame), three output allocations")
    return p.parse_args(argv)


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def per_call_us(fn, calls, device, repeats=3):
    """The best of `repeats` runs of `calls` calls, us a call (perf_counter
    around the calls and one sync)."""
    for _ in range(3):
        fn()
    sync(device)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync(device)
        best = min(best, (time.perf_counter() - t0) / calls * 1e6)
    return best


def graph_us(fn, device, calls=20, replays=10):
    """GPU us a call: `calls` calls captured in one CUDA graph, replayed."""
    s = torch.cuda.Stream(device)
    s.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream(device).wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    g.replay()
    sync(device)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(replays):
        g.replay()
    end.record()
    sync(device)
    return start.elapsed_time(end) * 1e3 / (replays * calls)


def _no_plan():
    raise SystemExit("no Python plan for the cast: its first call did not run a bundled kernel")


def methods(args, fpxc, device):
    """name -> (a function of x returning the cast, whether CUDA graphs can hold it)."""
    fmt = args.format
    backend = "aot_eager" if args.dry_run else "inductor"
    block = fpxc.ops.scheme(fmt, None).block
    out = {
        "fpx eager": (lambda x: fpxc.quantize(x, fmt), True),
        "torch.ops.fpxc.quantize": (
            lambda x, op=torch.ops.fpxc.quantize.default: op(
                x, fmt, block[0], block[1], "", "", "rn", "row_major", "auto", 0, True, 0, 0,
                None, "nan"), True),
        "torch x.to(float8_e4m3fn)": (lambda x: x.to(torch.float8_e4m3fn), True),
    }
    if args.breakdown:
        op = torch.ops.fpxc.quantize.default
        out["aten.abs.default (dispatcher floor)"] = (
            lambda x, a=torch.ops.aten.abs.default: a(x), True)
        out["fpx op, raw C++ overload"] = (
            lambda x, raw=op._op: raw(x, fmt, block[0], block[1], "", "", "rn", "row_major",
                                      "auto", 0, True, 0, 0, None, "nan"), True)
        out["3 x torch.empty (the outputs)"] = (
            lambda x: (torch.empty(x.shape, dtype=torch.uint8, device=x.device),
                       torch.empty((x.shape[0], x.shape[1] // 32), dtype=torch.uint8,
                                   device=x.device),
                       torch.empty((), dtype=torch.float32, device=x.device)), True)
    if not args.dry_run:
        # The Python plan the eager calls ran before issue 37 (the op's first
        # call leaves it in ops._plans): what the C++ path replaces.
        key = (fmt, block[0], block[1], "", "", "rn", "row_major", "auto", True, 0, 0, False,
               "nan")
        out["python plan (former eager path)"] = (
            lambda x: fpxc.ops.quantize_planned(x, key, 0, None) or _no_plan(), True)
    if not args.no_compile:
        out["fpx torch.compile"] = (torch.compile(
            lambda x: tuple(fpxc.quantize(x, fmt))[:2], fullgraph=True, backend=backend), False)
        if not args.dry_run:
            # inductor's CUDA graphs around the compiled cast (the op is capturable)
            out["fpx torch.compile reduce-overhead"] = (torch.compile(
                lambda x: tuple(fpxc.quantize(x, fmt))[:2], fullgraph=True,
                mode="reduce-overhead"), False)
        out["torch x.to(float8) torch.compile"] = (torch.compile(
            lambda x: x.to(torch.float8_e4m3fn), fullgraph=True, backend=backend), False)
        try:
            from torchao.prototype.mx_formats.mx_tensor import to_mx
        except Exception as e:  # noqa: BLE001 (any import failure: not installed here)
            print(f"torchao: not importable ({type(e).__name__}: {e}); its to_mx is skipped",
                  flush=True)
        else:
            out["torchao to_mx torch.compile"] = (torch.compile(
                lambda x: to_mx(x, torch.float8_e4m3fn, 32), fullgraph=True, backend=backend),
                False)
    return out


def kernel_parts(fn, x, calls, fpxc, device):
    """The C++ kernel's own parts of a planned call (fpxc._fpx._host_profile):
    {part: us a call}, printed beside the whole call's host time."""
    fn(x)
    sync(device)
    fpxc._fpx._host_profile(True)
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(x)
    sync(device)
    whole = (time.perf_counter() - t0) / calls * 1e6
    planned, parts = fpxc._fpx._host_profile_read()
    fpxc._fpx._host_profile(False)
    parts = dict(parts)
    inside = sum(parts.values())
    parts["outside the C++ kernel (Python, schema, dispatch, wrap)"] = whole - inside
    print(f"parts of the raw op call ({planned} of {calls} calls planned, {whole:.2f} us/call "
          f"with the profile on):", flush=True)
    for name, us in parts.items():
        print(f"  {name:58s} {us:6.2f} us", flush=True)
    return parts


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    import fpxc
    cuda = torch.cuda.is_available() and not args.dry_run
    if not cuda and not args.dry_run:
        raise SystemExit("no CUDA device: run on the GPU machine, or pass --dry-run")
    device = torch.device("cuda" if cuda else "cpu")
    small = 64 if args.dry_run else args.small
    sizes = [128] if args.dry_run else [int(s) for s in args.sizes.split(",") if s]
    calls = 20 if args.dry_run else args.calls
    b2b_calls = 5 if args.dry_run else args.b2b_calls
    gen = torch.Generator().manual_seed(0)
    results = {"device": torch.cuda.get_device_name(device) if cuda else "CPU dry run",
               "torch": torch.__version__, "fpxc": fpxc.__version__,
               "format": args.format, "host": {}, "b2b": {}, "gpu": {}}
    if cuda:
        results["cpp_plans_before"] = fpxc._fpx._plan_count()
    table = methods(args, fpxc, device)

    x = torch.randn(small, small, generator=gen).bfloat16().to(device)
    for name, (fn, _) in table.items():
        results["host"][name] = us = per_call_us(lambda: fn(x), calls, device)
        print(f"host  {name:36s} {small}x{small}: {us:8.2f} us/call", flush=True)
    if args.breakdown and cuda:
        results["kernel_parts"] = kernel_parts(table["fpx op, raw C++ overload"][0], x, calls,
                                               fpxc, device)
    for n in sizes:
        x = torch.randn(n, n, generator=gen).bfloat16().to(device)
        for name, (fn, graphable) in table.items():
            us = per_call_us(lambda: fn(x), b2b_calls, device)
            results["b2b"].setdefault(name, {})[n] = us
            line = f"b2b   {name:36s} {n}x{n}: {us:8.2f} us/call"
            if cuda and graphable:
                gus = graph_us(lambda: fn(x), device)
                results["gpu"].setdefault(name, {})[n] = gus
                line += f"   GPU (CUDA graph) {gus:8.2f} us/call"
            print(line, flush=True)
    if cuda:
        results["cpp_plans_after"] = fpxc._fpx._plan_count()

    verdicts = []
    for name in ("fpx eager", "fpx torch.compile"):
        if name in results["host"]:
            us = results["host"][name]
            verdicts.append((f"host {name} <= {HOST_TARGET_US:g} us", us <= HOST_TARGET_US,
                             f"{us:.2f} us"))
    n = 4096 if 4096 in sizes else sizes[-1]
    gpu = results["gpu"].get("fpx eager", {}).get(n)
    for name in ("fpx eager", "fpx torch.compile"):
        b2b = results["b2b"].get(name, {}).get(n)
        if b2b is not None and gpu:
            verdicts.append((f"b2b {name} at {n}^2 <= {B2B_RATIO_TARGET}x GPU time",
                             b2b <= B2B_RATIO_TARGET * gpu, f"{b2b:.2f} / {gpu:.2f} us = "
                             f"{b2b / gpu:.2f}x"))
    results["targets"] = [{"target": t, "met": ok, "value": v} for t, ok, v in verdicts]
    print("\ntargets" + (" (dry run: meaningless)" if args.dry_run else ""))
    for t, ok, v in verdicts:
        print(f"  {'MET ' if ok else 'MISS'} {t}: {v}")

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str))
    lines = [f"# fpxc host path: {results['device']}, torch {results['torch']}, "
             f"format {args.format}", "",
             f"| method | host us/call ({small}^2) | "
             + " | ".join(f"b2b us/call {s}^2" for s in sizes)
             + " | " + " | ".join(f"GPU us {s}^2" for s in sizes) + " |",
             "| --- " * (2 + 2 * len(sizes)) + "|"]
    for name in table:
        b2b = [f"{results['b2b'][name][s]:.2f}" for s in sizes]
        gpu = [f"{results['gpu'].get(name, {}).get(s, float('nan')):.2f}" for s in sizes]
        lines.append(f"| {name} | {results['host'][name]:.2f} | " + " | ".join(b2b) + " | "
                     + " | ".join(gpu) + " |")
    lines += ["", *(f"- {'met' if ok else 'MISSED'}: {t} ({v})" for t, ok, v in verdicts)]
    (out / "hostpath.md").write_text("\n".join(lines) + "\n")
    print(f"\nwrote {out / 'results.json'} and {out / 'hostpath.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
