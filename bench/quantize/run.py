#!/usr/bin/env python3
"""The runner of the quantize benchmarks and their device recipes: one mode a
suite, each printing its table, each meant for one device call. The pages in
docs/results/ are made from its output (bench/README.md has the usage).

  python3 bench/quantize/run.py [--out DIR] [--art DIR] [--setup auto] [--dry-run] MODE [options]

Modes:
  cast        the cast benchmark (bench_quantize.py): every spec against the copy
              and its peers (torch.compile, eager, Triton)     docs/results/quantize.md
  experts     3-D experts (E, N, K) for E = 1 .. 256, or sizes (1, M, 5120)   experts.md
  per-row     the fp8 per-row cast across row lengths K                       per-row.md
  dequantize  fpxc.dequantize to bf16, every format                           dequantize.md
  swizzle     fpxc.swizzle_scales, whole and per group; bundles side by side  swizzle.md
  python      NVFP4 through the package (amax computed / given / returned),
              host time per call, A/B of two kernel bundles                   python.md
  ab          artifact sets timed A B .. B A through the cast benchmark
  variants    any artifacts of one bf16 input timed side by side (time_variants.py)
  triton-rows fpxc's row cast and the Triton peer's alternated at one shape
  ncu         Nsight Compute on bench kernels: opcodes, stalls, sections, dram,
              launch, swizzle, triton (clocks left alone)
  pattern     pattern_ceiling.cu / pattern_tma.cu (nvcc): access-pattern ceilings
  check       GPU tests (ctest), the package's GPU suite, compute-sanitizer,
              check_cols_gpu.py                                               checks.md

Setup on the GPU machine (no MLIR there):
the repository root is the working directory, logs go under --out ($OUT, else
gpu-out/), and --setup auto makes the fpxc package importable: installed
already, else the prebuilt one in ART/pyfpx (build_pyfpx.sh), else
`pip install ./python-bindings` with the header-only deps carried in .deps.
Carry .deps and .art (ART/sm_90a: build_artifacts.sh --cubin; ART/gpu: a copy of
build/gpu-artifacts for `check`).

--dry-run runs a mode's Python benchmark on the CPU (fake CUDA events, the CPU
numerics core standing in for kernels: the flow, checks and tables, not the
timings) and prints the shell commands of the GPU-only steps instead of running
them; python-bindings/tests/test_bench_scripts.py calls it.
"""
import argparse
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TOOLS = ROOT / "docs" / "results" / "tools"
PY = sys.executable or "python3"
PEERS = ("compile", "eager", "triton")
EXPERTS = "1,2,4,8,16,32,64,128,256"
PER_ROW_KS = "512,1024,2048,4096,5120,7168,8192,16384,28672,65536"
NCU_OPCODES = ("sass__inst_executed_per_opcode,smsp__inst_executed.sum,"
               "smsp__issue_active.avg.pct_of_peak_sustained_active,"
               "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,"
               "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,"
               "sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,"
               "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,"
               "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,"
               "dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,"
               "sm__warps_active.avg.pct_of_peak_sustained_active")
NCU_DRAM = ("gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
            "dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,"
            "lts__t_sectors_op_write.sum,lts__t_sectors_op_read_lookup_miss.sum,"
            "lts__t_sectors_op_write_lookup_miss.sum,lts__t_requests_op_write.sum,"
            "lts__t_requests_op_read.sum")
NCU_LAUNCH = ("gpu__time_duration.sum,launch__grid_size,launch__block_size,"
              "launch__registers_per_thread,launch__waves_per_multiprocessor,"
              "launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,"
              "sm__warps_active.avg.pct_of_peak_sustained_active,"
              "dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,"
              "dram__bytes_write.sum,sm__cycles_active.avg,sm__cycles_elapsed.max")
NCU_SECTIONS = {
    "sections": ["SpeedOfLight", "Occupancy", "LaunchStats", "WarpStateStats",
                 "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis", "InstructionStats",
                 "SchedulerStats"],
    "stalls": ["WarpStateStats", "SourceCounters", "Occupancy", "SchedulerStats",
               "SpeedOfLight", "MemoryWorkloadAnalysis", "LaunchStats"],
    "swizzle": ["SpeedOfLight", "Occupancy", "WarpStateStats", "MemoryWorkloadAnalysis",
                "LaunchStats"],
}


class Runner:
    """Runs (or, dry, prints) the steps of a mode; each step's output goes to
    the terminal and to OUT/NAME.txt."""

    def __init__(self, args):
        self.args = args
        self.out = pathlib.Path(args.out).resolve()
        self.art = pathlib.Path(args.art)
        self.env = dict(os.environ)
        self.status = 0
        self.ready = False

    def bench_art(self):
        return str(self.art / "sm_90a")

    # -- setup -------------------------------------------------------------
    def setup_package(self):
        """Makes `import fpxc` work in the steps (--setup)."""
        if self.ready or self.args.dry_run or self.args.setup == "none":
            self.ready = True
            return
        self.ready = True
        mode = self.args.setup
        pyfpx = self.art / "pyfpx"
        if mode == "auto":
            ok = subprocess.run([PY, "-c", "import fpxc"], env=self.env,
                                capture_output=True).returncode == 0
            mode = "none" if ok else ("pyfpx" if pyfpx.is_dir() else "pip")
        if mode == "pyfpx":
            self.env["PYTHONPATH"] = os.pathsep.join(
                [str(pyfpx.resolve())] + [p for p in [self.env.get("PYTHONPATH")] if p])
            print(f"setup: the fpxc package from {pyfpx}")
        elif mode == "pip":
            print("setup: pip install ./python-bindings (FPX_DEPS_INCLUDE=.deps)")
            env = dict(self.env, FPX_DEPS_INCLUDE=str(ROOT / ".deps"))
            if (self.art / "kernels").is_dir() and "FPX_BUNDLE_DIR" not in env:
                # the bundle the package ships (build/python-bindings/kernels, carried)
                env["FPX_BUNDLE_DIR"] = str((self.art / "kernels").resolve())
            self.out.mkdir(parents=True, exist_ok=True)
            with open(self.out / "pip.log", "w") as log:
                r = subprocess.run([PY, "-m", "pip", "install", "-q", "--no-build-isolation",
                                    "./python-bindings"], cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
            if r.returncode:
                print((self.out / "pip.log").read_text()[-3000:])
                sys.exit("setup: pip install failed")

    # -- steps -------------------------------------------------------------
    def sh(self, name, argv, env=None, timeout=None, cwd=None, check=True):
        """A step run in a subprocess; returns its output (None when dry)."""
        env = dict(self.env, **(env or {}))
        shown = " ".join(shlex.quote(str(a)) for a in argv)
        extra = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in (env.items())
                         if os.environ.get(k) != v and k != "PYTHONPATH")
        if self.args.dry_run:
            print(f"dry run: {extra + ' ' if extra else ''}{shown}")
            return None
        self.out.mkdir(parents=True, exist_ok=True)
        print(f"=== {name}: {shown}", flush=True)
        try:
            r = subprocess.run([str(a) for a in argv], cwd=cwd or ROOT, env=env, timeout=timeout,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            text, rc = r.stdout, r.returncode
        except subprocess.TimeoutExpired as exc:
            text = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            text += f"\n(timed out after {timeout} s)\n"
            rc = 124
        (self.out / f"{name}.txt").write_text(text)
        print(text, end="" if text.endswith("\n") else "\n", flush=True)
        if rc and check:
            print(f"=== {name}: exit {rc}")
            self.status = 1
        return text

    def module(self, name, script, argv, env=None, timeout=None):
        """A benchmark module of this folder: a subprocess on the GPU; on the
        CPU under --dry-run, its main() in this process."""
        if self.args.dry_run:
            return self.dry_module(script, argv)
        self.setup_package()
        return self.sh(name, [PY, HERE / script, *argv], env=env, timeout=timeout)

    def dry_module(self, script, argv):
        import torch
        sys.path.insert(0, str(HERE))
        from queued_timing import HostEvent
        torch.cuda.Event = HostEvent
        torch.cuda.synchronize = lambda *a: None
        torch.cuda.get_device_name = lambda *a: "CPU dry run"
        mod = __import__(pathlib.Path(script).stem)
        cpu = ["--device", "cpu", "--copy-mib", "1"] if "--device" not in argv else []
        return mod.main([*cpu, *argv])


def peer_flags(peers, have=PEERS):
    chosen = set(p for p in peers.split(",") if p) if peers != "all" else set(have)
    unknown = chosen - set(PEERS)
    if unknown:
        sys.exit(f"run.py: unknown peers {sorted(unknown)} (choose from {','.join(PEERS)})")
    return [f"--no-{p}" for p in have if p not in chosen]


# -- modes ------------------------------------------------------------------
def mode_cast(r, a):
    argv = ["--artifacts", a.artifacts or r.bench_art(), "--out", str(r.out / "cast")]
    argv += peer_flags(a.peers)
    for flag in ("cases", "shapes", "shapes_3d"):
        if getattr(a, flag):
            argv += [f"--{flag.replace('_', '-')}", getattr(a, flag)]
    argv += [f for f, on in (("--quick", a.quick), ("--no-2d", a.no_2d), ("--no-3d", a.no_3d),
                             ("--no-check", a.no_check), ("--static-3d", a.static_3d),
                             ("--reuse-outputs", a.reuse_outputs)) if on]
    argv += a.extra
    if r.args.dry_run:
        # bench_quantize.py's whole flow on the CPU (dryrun_cpu.py replaces
        # torch.cuda's functions for good: run it as this process's last act)
        sys.path.insert(0, str(HERE))
        import dryrun_cpu
        return dryrun_cpu.main(argv)
    r.module("cast", "bench_quantize.py", argv)
    if a.sass:
        lines = []
        for cubin in sorted(pathlib.Path(argv[1]).glob("*.cubin")):
            sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
            n = sum(1 for l in sass.splitlines() if l.strip().startswith("/*") and l.strip()[6:8] == "*/")
            lines.append(f"sass {cubin.stem} {n}")
        (r.out / "sass-counts.txt").write_text("\n".join(lines) + "\n")
        print("\n".join(lines))
    return r.status


def mode_experts(r, a):
    if a.sizes:
        shapes = ",".join(f"1x{m}x{a.k_sizes}" for m in a.sizes.split(","))
        flags = ["--no-compile", "--no-eager", "--no-triton", "--no-check"]
    else:
        shapes = ",".join(f"{e}x{a.nk}" for e in a.experts.split(","))
        flags = peer_flags(a.peers)
        if "--no-eager" not in flags:
            flags.append("--no-eager")  # eager peers take minutes at E = 256
        if a.no_check:
            flags.append("--no-check")
    out = r.out / "experts"
    argv = ["--artifacts", a.artifacts or r.bench_art(), "--out", str(out), "--no-2d",
            "--shapes-3d", shapes, "--cases", "mxfp8_e4m3_experts,mxfp8_e4m3_floor",
            *flags, *a.extra]
    if r.args.dry_run:
        sys.path.insert(0, str(HERE))
        import dryrun_cpu
        return dryrun_cpu.main(argv)
    r.module("experts", "bench_quantize.py", argv)
    if (out / "results.json").exists():
        r.sh("experts-table", [PY, TOOLS / "current_table.py", f"run={out / 'results.json'}"])
        tool = "plot_sizes.py" if a.sizes else "plot_sweep.py"
        r.sh("experts-plot", [PY, TOOLS / tool, out / "results.json", r.out / "experts.png"],
             check=False)
    return r.status


def per_row_table(results, out_md, out_png):
    """The per-row sweep's table (K against each implementation's time, GB/s
    and % of copy) and plot, from bench_quantize.py's results.json."""
    res = json.load(open(results))
    copy = res["copy_gbs"]
    series = {}
    for row in res["rows"]:
        if "gbs" in row:
            series.setdefault(row["impl"], []).append(
                (row["input_shape"][-1], row["gbs"], row["median_ms"] * 1e3))
    dev = res["env"].get("device")
    lines = [f"# fp8 per-row cast against row length K, {dev}", "",
             f"copy {copy:.0f} GB/s (1 GiB, read + written); fpxc commit {res['env'].get('commit')}",
             "", "| K | " + " | ".join(f"{n} us | GB/s | % copy" for n in series) + " |",
             "|---|" + "---|---|---|" * len(series)]
    for k in sorted({k for s in series.values() for k, _, _ in s}):
        cells = []
        for s in series.values():
            hit = [(g, u) for kk, g, u in s if kk == k]
            cells += ([f"{hit[0][1]:.1f}", f"{hit[0][0]:.0f}", f"{100 * hit[0][0] / copy:.1f}"]
                      if hit else ["", "", ""])
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    pathlib.Path(out_md).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for name, s in series.items():
            s.sort()
            ax.plot([k for k, _, _ in s], [g for _, g, _ in s], marker="o", label=name)
        ax.axhline(copy, color="k", ls="--", lw=1, label=f"copy {copy:.0f} GB/s")
        ax.axhline(0.9 * copy, color="k", ls=":", lw=1, label="90% of copy")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("row length K (elements; 2^27 / K rows of bf16)")
        ax.set_ylabel("GB/s (bf16 in + e4m3 out + scales)")
        ax.set_title(f"fp8 per-row cast on {dev}")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out_png, dpi=100)
    except Exception as exc:  # noqa: BLE001 (no matplotlib: the table is the result)
        print("plot skipped:", exc)


def mode_per_row(r, a):
    shapes = ",".join(f"{a.elements // int(k)}x{k}" for k in a.ks.split(","))
    out = r.out / f"per-row{a.tag}"
    argv = ["--artifacts", a.artifacts or r.bench_art(), "--out", str(out), "--no-3d",
            "--shapes", shapes, "--cases", "fp8_per_row", "--no-eager",
            *[f for f in peer_flags(a.peers) if f != "--no-eager"], *a.extra]
    if r.args.dry_run:
        sys.path.insert(0, str(HERE))
        import dryrun_cpu
        return dryrun_cpu.main(argv)
    r.module(f"per-row{a.tag}", "bench_quantize.py", argv)
    if (out / "results.json").exists():
        per_row_table(out / "results.json", r.out / f"per-row{a.tag}.md",
                      r.out / f"per-row{a.tag}.png")
    return r.status


def bundles_in_order(bundles):
    """The tree's bundle ("tree") and variants' (directories), A B .. B A."""
    dirs = [b for b in bundles.split(",") if b]
    return dirs + dirs[::-1] if len(dirs) > 1 else dirs


def bundle_env(b):
    if b in ("", "tree"):
        return {}
    return {"FPX_KERNEL_DIR": str(pathlib.Path(b).resolve())}


def mode_dequantize(r, a):
    argv = ["--shapes", a.shapes, *peer_flags(a.peers, ("compile",))]
    if a.formats:
        argv += ["--formats", a.formats]
    for i, b in enumerate(bundles_in_order(a.bundles or "tree"), 1):
        r.module(f"dequantize{i}-{pathlib.Path(b).name}", "bench_dequantize.py", argv,
                 env=bundle_env(b))
    return r.status


def mode_swizzle(r, a):
    argv = ["--shapes", a.shapes, "--groups", a.groups, *peer_flags(a.peers, ("compile",))]
    for i, b in enumerate(bundles_in_order(a.bundles or "tree"), 1):
        r.module(f"swizzle{i}-{pathlib.Path(b).name}", "bench_swizzle.py", argv,
                 env=bundle_env(b), timeout=None if r.args.dry_run else 300)
    if a.host and not r.args.dry_run:
        r.module("swizzle-host", "profile_python_swizzle.py", [])
    if a.plot and not r.args.dry_run:
        logs = [f"{pathlib.Path(b).name}={r.out / f'swizzle{i}-{pathlib.Path(b).name}.txt'}"
                for i, b in enumerate(bundles_in_order(a.bundles or "tree"), 1)]
        r.sh("swizzle-plot", [PY, TOOLS / "plot_swizzle.py", r.out / "swizzle.png", *logs],
             check=False)
    return r.status


def mode_python(r, a):
    argv = ["--shapes", a.shapes, "--rounding", a.rounding, *peer_flags(a.peers, ("compile",))]
    log = []
    for i, b in enumerate(bundles_in_order(a.bundles or "tree"), 1):
        text = r.module(f"python{i}-{pathlib.Path(b).name}", "bench_python_amax.py", argv,
                        env=bundle_env(b))
        if a.bundles and isinstance(text, str):  # alternated bundles: the log plot_ab.py reads
            log += [f"=== ab{i}-{pathlib.Path(b).name}.txt", text]
    if log:
        (r.out / "python-ab.log").write_text("\n".join(log) + "\n")
        r.sh("python-ab-plot", [PY, TOOLS / "plot_ab.py", r.out / "python-ab.log",
                                r.out / "python-ab.png"], check=False)
    if a.host and not r.args.dry_run:
        for f in a.host_formats.split(","):
            r.module(f"python-host-{f}", "profile_python_quantize.py", ["--format", f])
    return r.status


def mode_ab(r, a):
    sets = [s for s in a.sets.split(",") if s]
    if len(sets) < 2:
        sys.exit("run.py ab: --sets needs two artifact directories or more (A,B[,C...])")
    order = sets + sets[::-1]
    flags = (["--shapes-3d", a.shapes_3d] if a.shapes_3d else ["--no-3d"])
    if a.shapes:
        flags += ["--shapes", a.shapes]
    log = []
    for i, d in enumerate(order, 1):
        label = f"ab{i}-{pathlib.Path(d).name}"
        argv = ["--artifacts", d, "--out", str(r.out / f"ab{i}"), "--cases", a.cases,
                "--no-compile", "--no-eager", *(["--no-triton"] if not a.triton else []),
                *flags, *a.extra]
        if r.args.dry_run:
            print("dry run:", PY, HERE / "bench_quantize.py", *argv)
            continue
        r.setup_package()
        text = r.sh(label, [PY, HERE / "bench_quantize.py", *argv]) or ""
        marks = [l[10:] for l in text.splitlines()
                 if re.search(r"\] (fpxc |device-to-device|check .*(FAIL|ERROR))", l)]
        log += [f"=== {label}.txt", *marks]   # the marks docs/results/tools/plot_ab.py reads
    if log:
        (r.out / "ab.log").write_text("\n".join(log) + "\n")
        r.sh("ab-plot", [PY, TOOLS / "plot_ab.py", r.out / "ab.log", r.out / "ab.png"], check=False)
    if a.tests:
        r.sh("ab-tests", ["bash", "test/gpu/run_on_gpu.sh", a.tests],
             env={"OUT": str(r.out / "ab-tests")})
    for stem in (a.ncu.split(",") if a.ncu else []):
        for side, d in (("A", sets[0]), ("B", sets[1])):
            ncu_one(r, f"ncu-opcodes-{stem}-{side}", "opcodes", f"^{stem}_quantize",
                    [PY, HERE / "profile_kernel.py", "--artifact", f"{d}/{stem}.json",
                     "--shape", "16384,8192", "--reps", "2"])
    return r.status


def mode_variants(r, a):
    argv = ["--shapes", a.shapes, *[str(pathlib.Path(p).resolve()) for p in a.artifacts]]
    if r.args.dry_run:
        print("dry run:", PY, HERE / "time_variants.py", *argv)
        return 0
    return r.module("variants", "time_variants.py", argv)


def mode_triton_rows(r, a):
    argv = ["--shape", a.shape, "--artifacts", a.artifacts or r.bench_art(), "--rounds", str(a.rounds)]
    if a.after_compile:
        argv.append("--after-compile")
    if r.args.dry_run:
        print("dry run:", PY, HERE / "ab_triton_rows.py", *argv)
        return 0
    return r.module("triton-rows", "ab_triton_rows.py", argv)


def ncu_one(r, name, what, kernel, target_argv, launch_skip=1, launch_count=1):
    argv = ["ncu", "--clock-control", "none", "--kernel-name", f"regex:{kernel}",
            "--launch-skip", str(launch_skip), "--launch-count", str(launch_count)]
    if what == "opcodes":
        argv += ["--metrics", NCU_OPCODES, "--print-metric-instances", "details"]
    elif what == "dram":
        argv += ["--metrics", NCU_DRAM]
    elif what in ("launch", "triton"):
        argv += ["--metrics", NCU_LAUNCH]
    else:
        for s in NCU_SECTIONS[what]:
            argv += ["--section", s]
        if what == "stalls":
            argv += ["--import-source", "no", "--print-details", "all"]
    r.setup_package()
    return r.sh(name, argv + [str(t) for t in target_argv], check=False)


def mode_ncu(r, a):
    art = a.artifacts or r.bench_art()
    for target in a.targets:
        stem, _, shape = target.partition(":")
        if a.what == "swizzle":
            rows, cols = (int(v) for v in (stem or "131072x224").split("x"))
            groups = int(shape or 0)
            code = ("import torch, fpxc\n"
                    f"s = torch.randint(0, 256, ({rows}, {cols}), dtype=torch.uint8, device='cuda')\n"
                    f"g = {groups}\n"
                    f"ends = (torch.arange(1, g + 1, device='cuda') * {rows} // g).to(torch.int32) if g else None\n"
                    "for _ in range(3):\n    fpxc.swizzle_scales(s, ends, check=False)\n"
                    "torch.cuda.synchronize()\n")
            ncu_one(r, f"ncu-swizzle-{rows}x{cols}-g{groups}", "swizzle", "swizzle",
                    [PY, "-c", code], launch_skip=2, launch_count=2)
            continue
        if a.what == "triton":
            # KEY:SHAPE of triton_peers.PEERS; the configuration its autotuner picks
            key, shp = stem, shape or "8192,5120"
            cfg = ""
            if not r.args.dry_run:
                out = subprocess.run([PY, HERE / "profile_triton_peer.py", "--key", key, "--shape", shp],
                                     capture_output=True, text=True, cwd=ROOT, env=r.env).stdout
                cfg = next((l.split()[1] for l in out.splitlines() if l.startswith("config ")), "")
            ncu_one(r, f"ncu-triton-{key}-{shp.replace(',', 'x')}", "triton",
                    a.kernel or "_" + "_".join(key.split("_")[:2]),
                    [PY, HERE / "profile_triton_peer.py", "--key", key, "--shape", shp,
                     *(["--config", cfg] if cfg else []), "--reps", "6"], launch_skip=2, launch_count=3)
            continue
        shape = (shape or "16384,8192").replace("x", ",")
        kernel = a.kernel or (f"^{stem}_quantize" if a.what in ("opcodes", "stalls") else f"^{stem}_")
        ncu_one(r, f"ncu-{a.what}-{stem}-{shape.replace(',', 'x')}", a.what, kernel,
                [PY, HERE / "profile_kernel.py", "--artifact", f"{art}/{stem}.json", "--shape", shape,
                 "--reps", "2", *(["--per-matrix"] if a.per_matrix else [])])
    return r.status


def mode_pattern(r, a):
    src = HERE / ("pattern_tma.cu" if a.tma else "pattern_ceiling.cu")
    exe = pathlib.Path("/tmp") / src.stem
    build = ["nvcc", "-std=c++17", "-O3", "-gencode=arch=compute_90a,code=sm_90a", "-o", exe, src]
    if a.tma:
        build.append("-lcuda")
    r.sh(f"{src.stem}-build", build)
    dims = [d for s in a.shapes.split(",") if s for d in s.split("x")]
    for i in range(a.repeat):
        r.sh(f"{src.stem}{i + 1}", [exe, *dims])
    return r.status


def mode_check(r, a):
    gpu_art = str((r.art / "gpu").resolve())
    if a.ctest is not None:
        r.sh("ctest", ["bash", "test/gpu/run_on_gpu.sh", *([a.ctest] if a.ctest else [])],
             env={"OUT": str(r.out / "ctest"), "FPX_GPU_JOBS": str(a.jobs)}, timeout=a.timeout)
    if a.python is not None:
        if a.python:
            r.setup_package()
            r.sh("pytest-gpu", [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                "python-bindings/tests/test_gpu.py", "-k", a.python],
                 env=bundle_env(a.kernels or "tree"), timeout=a.timeout)
        else:  # the whole suite on the full bundle (.art/kernels-full.tar.xz)
            r.sh("pytest-gpu", ["bash", "test/gpu/full_check.sh", "python"],
                 env={"OUT": str(r.out / "python")}, timeout=a.timeout)
    if a.cols:
        # check_cols_gpu.py over the bench's column artifacts and the GPU test's
        dirs = [d for d in a.cols.split(",") if d]
        stage = pathlib.Path("/tmp/fpx-cols")
        if not r.args.dry_run:
            import shutil
            shutil.rmtree(stage, ignore_errors=True)
            stage.mkdir(parents=True)
            for d in dirs:
                for f in pathlib.Path(d).glob("*"):
                    if f.suffix in (".json", ".ptx", ".cubin") and ("cols" in f.name or d == dirs[0]):
                        shutil.copy(f, stage)
        r.setup_package()
        r.sh("check-cols", [PY, HERE / "check_cols_gpu.py", "--artifacts", stage,
                            *(["--only", a.only] if a.only else [])], cwd="/tmp", timeout=a.timeout)
    if a.sanitize:
        env = {"OUT": str(r.out / "sanitize"), "SANITIZE_TOOLS": a.sanitize.replace(",", " "),
               "SANITIZE_TIMEOUT_S": str(a.timeout or 150)}
        if a.programs:
            env["SANITIZE_TESTS"] = a.programs.replace(",", " ")
        if a.cases:
            env["FPX_GPU_CASES"] = a.cases
        if a.kernel_ns:
            # only kernels whose names hold the string instrumented (racecheck
            # on the whole quantize test does not finish in a device call)
            prog = (a.programs or "FPxGpuQuantizeKernelTest").split(",")[0]
            for tool in a.sanitize.split(","):
                r.sh(f"{tool}-{prog}-{a.kernel_ns}", [
                    "bash", "-c",
                    f"[ -d build-gpu ] || bash test/gpu/run_on_gpu.sh Gpu.AddOneOnTwoStreams >/dev/null 2>&1; "
                    f"ninja -C build-gpu >/dev/null 2>&1; exe=$(find build-gpu -name {prog} -type f "
                    f"-perm -u+x | head -1); compute-sanitizer --tool {tool} --kernel-name "
                    f"kns={a.kernel_ns} --error-exitcode 3 $exe --gtest_filter='*/0'"],
                    env={"FPX_GPU_ARTIFACTS": gpu_art, **({"FPX_GPU_CASES": a.cases} if a.cases else {})},
                    timeout=a.timeout)
        else:
            r.sh("sanitize", ["bash", "test/gpu/sanitize.sh"], env=env)
    if not any(v not in (None, "", False) for v in (a.ctest, a.python, a.cols, a.sanitize)):
        sys.exit("run.py check: name a step (--ctest, --python, --cols, --sanitize)")
    return r.status


# -- arguments ----------------------------------------------------------------
def parse(argv):
    p = argparse.ArgumentParser(prog="bench/quantize/run.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Each mode's options: run.py MODE --help. bench/README.md "
                                       "says what each measures.")
    p.add_argument("--out", default=os.environ.get("OUT") or str(ROOT / "gpu-out"),
                   help="logs, results.json, tables and plots (default $OUT, else gpu-out/)")
    p.add_argument("--art", default=str(ROOT / ".art"),
                   help="the carried artifacts: ART/sm_90a (bench specs), ART/gpu (GPU tests), "
                        "ART/pyfpx (a prebuilt package) (default .art)")
    p.add_argument("--setup", choices=("auto", "pip", "pyfpx", "none"), default="auto",
                   help="how the steps import fpxc: auto = installed, else ART/pyfpx, else pip "
                        "install ./python-bindings with .deps (default auto)")
    p.add_argument("--dry-run", action="store_true",
                   help="on the CPU: the Python benchmarks' flow and checks with fakes; GPU-only "
                        "steps printed, not run")
    sub = p.add_subparsers(dest="mode", required=True, metavar="MODE")

    def peers_arg(q, default="all", choices="compile,eager,triton"):
        q.add_argument("--peers", default=default,
                       help=f"peers timed in the same run, comma-separated from {choices}, or "
                            f"'all' or '' (default {default})")

    q = sub.add_parser("cast", help="the cast benchmark (bench_quantize.py)")
    q.add_argument("--artifacts", default="", help="bench artifacts (default ART/sm_90a)")
    q.add_argument("--cases", default="", help="spec names, comma-separated (default all)")
    q.add_argument("--shapes", default="", help="2-D shapes, e.g. 16384x8192,131072x7168")
    q.add_argument("--shapes-3d", default="", help="3-D shapes ExNxK,...")
    peers_arg(q)
    for f in ("quick", "no-2d", "no-3d", "no-check", "static-3d", "reuse-outputs"):
        q.add_argument(f"--{f}", action="store_true")
    q.add_argument("--sass", action="store_true", help="also count each cubin's SASS instructions")
    q.add_argument("extra", nargs="*", help="after --: more bench_quantize.py options")
    q.set_defaults(run=mode_cast)

    q = sub.add_parser("experts", help="3-D expert sweep over E, or sizes (1, M, K)")
    q.add_argument("--artifacts", default="")
    q.add_argument("--experts", default=EXPERTS, help=f"E list (default {EXPERTS})")
    q.add_argument("--nk", default="2048x7168", help="N x K of each expert (default 2048x7168)")
    q.add_argument("--sizes", default="", help="M list: (1, M, --k-sizes) instead, fpxc alone")
    q.add_argument("--k-sizes", default="5120")
    peers_arg(q, "compile,triton", "compile,triton")
    q.add_argument("--no-check", action="store_true", help="(an 80 GB GPU at E = 256)")
    q.add_argument("extra", nargs="*")
    q.set_defaults(run=mode_experts)

    q = sub.add_parser("per-row", help="fp8 per-row cast across row lengths K")
    q.add_argument("--artifacts", default="")
    q.add_argument("--ks", default=PER_ROW_KS)
    q.add_argument("--elements", type=int, default=1 << 27, help="elements a shape (default 2^27)")
    q.add_argument("--tag", default="", help="suffix of the output files (variants)")
    peers_arg(q, "compile,triton", "compile,triton")
    q.add_argument("extra", nargs="*")
    q.set_defaults(run=mode_per_row)

    q = sub.add_parser("dequantize", help="fpxc.dequantize to bf16 (bench_dequantize.py)")
    q.add_argument("--shapes", default="16384x8192,131072x7168", help="MxK or ExMxK, comma-separated")
    q.add_argument("--formats", default="")
    q.add_argument("--bundles", default="", help="kernel bundles A,B timed A B B A ('tree' = the package's)")
    peers_arg(q, "compile", "compile")
    q.set_defaults(run=mode_dequantize)

    q = sub.add_parser("swizzle", help="fpxc.swizzle_scales (bench_swizzle.py)")
    q.add_argument("--shapes", default="65536x224,16384x256,131072x224,32768x90")
    q.add_argument("--groups", default="0,8,64,256")
    q.add_argument("--bundles", default="", help="tree,DIR,...: bundles timed in order, then reversed")
    q.add_argument("--host", action="store_true", help="also the host profile of a call")
    q.add_argument("--plot", action="store_true", help="docs/results/tools/plot_swizzle.py of the logs")
    peers_arg(q, "compile", "compile")
    q.set_defaults(run=mode_swizzle)

    q = sub.add_parser("python", help="NVFP4 through the package (bench_python_amax.py)")
    q.add_argument("--shapes", default="16384x8192,131072x7168,8x8192x5120,64x2048x7168")
    q.add_argument("--rounding", choices=("rn", "rs"), default="rn")
    q.add_argument("--bundles", default="", help="A,B: two kernel bundles, A B B A")
    q.add_argument("--host", action="store_true", help="also host time per call (profile_python_quantize.py)")
    q.add_argument("--host-formats", default="nvfp4,mxfp8_e4m3")
    peers_arg(q, "compile", "compile")
    q.set_defaults(run=mode_python)

    q = sub.add_parser("ab", help="artifact sets A B .. B A through the cast benchmark")
    q.add_argument("--sets", required=True, help="artifact directories A,B[,C...]")
    q.add_argument("--cases", required=True)
    q.add_argument("--shapes", default="")
    q.add_argument("--shapes-3d", default="", help="ExNxK,... (default: no 3-D shapes)")
    q.add_argument("--triton", action="store_true", help="time the Triton peers too")
    q.add_argument("--tests", default="", help="then the GPU tests of this ctest regex")
    q.add_argument("--ncu", default="", help="then ncu opcode counts of these stems on A and B")
    q.add_argument("extra", nargs="*")
    q.set_defaults(run=mode_ab)

    q = sub.add_parser("variants", help="artifacts of one bf16 input side by side (time_variants.py)")
    q.add_argument("--shapes", default="16384x8192,131072x7168")
    q.add_argument("artifacts", nargs="+", help="artifact .json files, timed A B .. B A")
    q.set_defaults(run=mode_variants)

    q = sub.add_parser("triton-rows", help="fpxc's row cast and the Triton peer's alternated")
    q.add_argument("--artifacts", default="")
    q.add_argument("--shape", default="8192,5120")
    q.add_argument("--rounds", type=int, default=3)
    q.add_argument("--after-compile", action="store_true")
    q.set_defaults(run=mode_triton_rows)

    q = sub.add_parser("ncu", help="Nsight Compute on bench kernels")
    q.add_argument("--what", choices=("opcodes", "stalls", "sections", "dram", "launch", "swizzle",
                                      "triton"), default="sections")
    q.add_argument("--artifacts", default="", help="artifact directory (default ART/sm_90a; e.g. "
                                                   "python-bindings/kernels-full/sm_90a)")
    q.add_argument("--kernel", default="", help="kernel-name regex (default ^STEM_quantize / ^STEM_)")
    q.add_argument("--per-matrix", action="store_true", help="an amax per matrix (3-D shapes)")
    q.add_argument("targets", nargs="+",
                   help="STEM[:SHAPE] (SHAPE as M,K or E,N,K; default 16384,8192); swizzle: "
                        "ROWSxCOLS[:GROUPS]; triton: KEY[:M,K]")
    q.set_defaults(run=mode_ncu)

    q = sub.add_parser("pattern", help="access-pattern ceilings (nvcc)")
    q.add_argument("--tma", action="store_true", help="pattern_tma.cu instead of pattern_ceiling.cu")
    q.add_argument("--shapes", default="16384x8192,8192x5120,2048x7168")
    q.add_argument("--repeat", type=int, default=2, help="invocations (the first after large shapes settles)")
    q.set_defaults(run=mode_pattern)

    q = sub.add_parser("check", help="GPU tests, the package's GPU suite, sanitizers, column checks")
    q.add_argument("--ctest", nargs="?", const="", default=None, metavar="REGEX",
                   help="C++ GPU tests (test/gpu/run_on_gpu.sh; REGEX default all)")
    q.add_argument("--jobs", type=int, default=4, help="GPU tests at a time (FPX_GPU_JOBS)")
    q.add_argument("--python", nargs="?", const="", default=None, metavar="EXPR",
                   help="the package's GPU suite (-k EXPR on the installed bundle; without EXPR "
                        "the whole suite on the full bundle, ART/kernels-full.tar.xz)")
    q.add_argument("--kernels", default="", help="FPX_KERNEL_DIR for --python EXPR")
    q.add_argument("--sanitize", default="", help="memcheck,racecheck (test/gpu/sanitize.sh)")
    q.add_argument("--programs", default="", help="test programs, e.g. FPxGpuLayoutKernelTest")
    q.add_argument("--cases", default="", help="FPX_GPU_CASES: the quantize test's cases holding this")
    q.add_argument("--kernel-ns", default="", help="instrument only kernels whose names hold this "
                                                    "(e.g. cols), on the first --programs")
    q.add_argument("--cols", nargs="?", const="ART/sm_90a,ART/gpu/sm_90a", default="",
                   metavar="DIRS", help="check_cols_gpu.py over these artifact directories")
    q.add_argument("--only", default="", help="check_cols_gpu.py --only stems")
    q.add_argument("--timeout", type=int, default=None, help="seconds a step")
    q.set_defaults(run=mode_check)

    args = p.parse_args(argv)
    if getattr(args, "cols", ""):
        args.cols = args.cols.replace("ART", args.art)
    return args


def main(argv=None):
    args = parse(argv)
    os.chdir(ROOT)
    return args.run(Runner(args), args) or 0


if __name__ == "__main__":
    sys.exit(main())
