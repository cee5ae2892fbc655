#!/usr/bin/env python3
"""Issue 5 runtime benchmarks on the GPU machine (< 1 minute).

  * warm cache hit in process: fpx.compile(spec) when the spec is already
    compiled and loaded (native compile_spec, and the Python wrapper), and
    the AOT-bundle lookup a CUDA fpx.quantize call does (target < 20 us);
  * launch overhead from Python: an fpx kernel call (native launch with
    prepared arguments, KernelFunction with and without preallocated
    outputs, torch.ops.fpxc.quantize, fpx.quantize) against a bare torch op
    launching one CUDA kernel (target: fpx kernel call - bare op < 10 us).

The GPU machine has no fpxc; unless FPX_FPXC / PATH has one, fpx.compile
goes through a stand-in `fpxc` that copies a prebuilt bundle artifact, so
the cache path (key, disk cache, in-process map, module load) is the real
one and only the compiler process is replaced (cold compile time is
measured by bench/python/bench_compile.py on the build machine).

    python3 bench/python/bench_runtime.py [--out DIR] [--quick]

Writes DIR/bench_runtime.json and DIR/bench_runtime.md (DIR: --out, else
$OUT, else bench-results/).
"""

import argparse
import datetime
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

TARGETS = {"warm_compile_native_us": 20.0, "warm_compile_py_us": 20.0,
           "bundle_lookup_us": 20.0, "launch_overhead_fn_us": 10.0,
           "launch_overhead_native_us": 10.0}


def per_call_us(fn, n, repeats=7, sync=None):
    """Median over `repeats` of the mean wall time of n calls (host side;
    `sync` runs after each batch and is included, amortised over n)."""
    fn()
    if sync:
        sync()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if sync:
            sync()
        samples.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(samples), min(samples)


SHIM = """#!/bin/sh
# Stand-in for fpxc on a machine without MLIR: serves `compile` by copying
# the prebuilt artifact named on the spec's `// artifact:` line.
if [ "$1" = "--version" ]; then echo "fpxc 0.0.0 (bench stand-in)"; exit 0; fi
spec="$2"; out=""
while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done
art=$(sed -n 's|^// artifact: ||p' "$spec" | head -1)
[ -f "$art" ] || { echo "stand-in fpxc: no artifact line in $spec" >&2; exit 1; }
dir=$(dirname "$out"); stem=$(basename "$art" .json); src=$(dirname "$art")
cp "$art" "$dir/" && cp "$src/$stem.ptx" "$dir/"
"""


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT") or str(ROOT / "bench-results"))
    ap.add_argument("--quick", action="store_true", help="fewer iterations")
    args = ap.parse_args(argv)
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    scale = 0.2 if args.quick else 1.0

    import torch

    import fpxc
    from fpxc import bundle, ops
    from fpxc._native import _fpx

    rows = []
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "host": platform.node(), "python": platform.python_version(),
               "torch": torch.__version__, "fpxc": fpxc.__version__}
    try:
        results["commit"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                           capture_output=True, text=True).stdout.strip()
    except OSError:
        pass

    def record(key, value, what, target=None):
        results[key] = round(value, 3)
        ok = "" if target is None else ("PASS" if value < target else "FAIL")
        rows.append((what, f"{value:.2f}", "" if target is None else f"< {target:g}", ok))

    gpu = torch.cuda.is_available() and fpxc.has_gpu()
    if not gpu:
        print("bench_runtime: no CUDA GPU; only the host-side lookups are measured", file=sys.stderr)
    dev = torch.device("cuda", torch.cuda.current_device()) if gpu else None
    if gpu:
        results["device"] = torch.cuda.get_device_name(dev)
        results["driver"] = _fpx.driver_version()

    # The artifact every measurement uses: MXFP8 e4m3 1x32 rceil, bf16.
    opts = {"op": "quantize", "format": "mxfp8_e4m3", "block": [1, 32], "rule": "rceil",
            "rounding": "rn", "scale_layout": "row_major", "packing": "none",
            "input_dtype": "bf16", "rank": 2}
    target = (bundle._device_targets(dev)[0] if gpu else "sm_90a")
    entry = next((e for e in bundle.entries()
                  if e.target == target and bundle.options_key(e.options) == bundle.options_key(opts)),
                 None)
    if entry is None:
        print(f"bench_runtime: no bundled artifact for {target}", file=sys.stderr)
        return 1
    results["artifact"] = entry.path

    # --- warm cache hit in process ------------------------------------------
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="fpx-bench-"))
    env_before = {k: os.environ.get(k) for k in ("FPX_FPXC", "FPX_CACHE_DIR")}
    os.environ["FPX_CACHE_DIR"] = str(tmp / "cache")
    have_fpxc = bool(os.environ.get("FPX_FPXC") or shutil.which("fpxc"))
    if not have_fpxc:
        shim = tmp / "fpxc"
        shim.write_text(SHIM)
        shim.chmod(0o755)
        os.environ["FPX_FPXC"] = str(shim)
    results["fpxc"] = os.environ.get("FPX_FPXC") or shutil.which("fpxc")
    spec = (f"// artifact: {entry.path}\n"
            + "func.func @bench(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {\n"
              "  %q, %s = fpx.quantize %x {\n"
              "      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}\n"
              "    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>\n"
              "  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>\n}\n")
    t0 = time.perf_counter()
    first = _fpx.compile_spec(spec, target, [])  # cold: process + disk cache store
    record("first_compile_ms", (time.perf_counter() - t0) * 1e3,
           "first fpx.compile (ms; " + ("fpxc" if have_fpxc else "stand-in fpxc, no MLIR here") + ")")
    keep = fpxc.compile(spec, target=target)  # noqa: F841  (keeps the module alive)
    n = int(20000 * scale)
    med, _ = per_call_us(lambda: _fpx.compile_spec(spec, target, []), n)
    record("warm_compile_native_us", med, "warm compile_spec hit in process (us)",
           TARGETS["warm_compile_native_us"])
    med, _ = per_call_us(lambda: fpxc.compile(spec, target=target), int(n / 4))
    record("warm_compile_py_us", med, "warm fpx.compile hit in process (us, + Artifact wrapper)",
           TARGETS["warm_compile_py_us"])
    del first
    for k, v in env_before.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v

    if gpu:
        bundle.find(opts, dev)
        med, _ = per_call_us(lambda: bundle.find(opts, dev), n)
        record("bundle_lookup_us", med, "AOT bundle lookup (us)", TARGETS["bundle_lookup_us"])

    # --- launch overhead ------------------------------------------------------
    if gpu:
        kernel = bundle.find(opts, dev)
        fn = kernel.fn
        x = torch.randn(128, 256, device=dev).bfloat16()
        y = torch.empty_like(x)
        q, s = fn(x)
        stream = torch.cuda.current_stream(dev).cuda_stream
        refs = [(x.data_ptr(), "bf16", list(x.shape), list(x.stride()))]
        out_refs = [(q.data_ptr(), "f8e4m3fn", list(q.shape), list(q.stride())),
                    (s.data_ptr(), "f8e8m0fnu", list(s.shape), list(s.stride()))]
        sync = torch.cuda.synchronize
        n = int(20000 * scale)
        bare, _ = per_call_us(lambda: torch.neg(x, out=y), n, sync=sync)
        record("bare_torch_op_us", bare, "bare torch op, preallocated out (torch.neg(x, out=y))")
        cast, _ = per_call_us(lambda: x.to(torch.float8_e4m3fn), n, sync=sync)
        record("torch_cast_us", cast, "torch cast allocating its output (x.to(float8))")
        nat, _ = per_call_us(lambda: fn._fn.launch(stream, refs, out_refs, []), n, sync=sync)
        record("fpx_native_launch_us", nat, "fpx native launch, prepared arguments")
        fo, _ = per_call_us(lambda: fn(x, out=(q, s)), n, sync=sync)
        record("fpx_fn_out_us", fo, "fpx KernelFunction call, preallocated outputs")
        fa, _ = per_call_us(lambda: fn(x), n, sync=sync)
        record("fpx_fn_alloc_us", fa, "fpx KernelFunction call, allocating outputs")
        op, _ = per_call_us(lambda: torch.ops.fpxc.quantize(x, "mxfp8_e4m3", 1, 32, "", "rceil", "rn",
                                                           "row_major", "auto", 0, True),
                            int(n / 2), sync=sync)
        record("fpx_custom_op_us", op, "torch.ops.fpxc.quantize (custom-op dispatch)")
        hq, _ = per_call_us(lambda: fpxc.quantize(x, format="mxfp8_e4m3", rule="rceil"), int(n / 2),
                            sync=sync)
        record("fpx_quantize_us", hq, "fpx.quantize (high level, CUDA)")
        record("launch_overhead_native_us", nat - bare,
               "overhead: native launch - bare torch op (us)", TARGETS["launch_overhead_native_us"])
        record("launch_overhead_fn_us", fo - bare,
               "overhead: KernelFunction(out=) - bare torch op (us)", TARGETS["launch_overhead_fn_us"])
        record("launch_overhead_fn_alloc_us", fa - cast,
               "overhead: KernelFunction (allocating) - torch cast (us)")
        record("launch_overhead_quantize_us", hq - cast,
               "overhead: fpx.quantize - torch cast (us)")
        # Correctness of what was timed.
        torch.cuda.synchronize()
        ref = fpxc.quantize(x.cpu(), format="mxfp8_e4m3", rule="rceil")
        results["checked_equal_to_reference"] = bool(
            torch.equal(q.cpu().view(torch.uint8), ref.data.view(torch.uint8))
            and torch.equal(s.cpu().view(torch.uint8), ref.scales.view(torch.uint8)))
    shutil.rmtree(tmp, ignore_errors=True)

    width = max(len(r[0]) for r in rows)
    lines = [f"{'measurement':<{width}}  {'value':>9}  {'target':>7}  result"]
    lines += [f"{w:<{width}}  {v:>9}  {t:>7}  {ok}" for w, v, t, ok in rows]
    print("\n".join(lines))
    results["rows"] = [dict(zip(("what", "value", "target", "result"), r)) for r in rows]
    (out_dir / "bench_runtime.json").write_text(json.dumps(results, indent=2) + "\n")
    md = [f"# fpx runtime benchmarks ({results['date']})", "",
          f"device: {results.get('device', 'none')}, driver {results.get('driver', '-')}, "
          f"torch {results['torch']}, commit {results.get('commit', '?')}", "",
          "| measurement | value (us unless noted) | target | result |", "| --- | ---: | --- | --- |"]
    md += [f"| {w} | {v} | {t} | {ok} |" for w, v, t, ok in rows]
    (out_dir / "bench_runtime.md").write_text("\n".join(md) + "\n")
    print(f"wrote {out_dir}/bench_runtime.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
