"""CPU dry runs of the package's benchmarks through their runner
(bench/quantize/run.py --dry-run): their whole flow, checks and tables on CPU
tensors with host-clock CUDA events, so that a recipe is known to run before
GPU time is spent on it. The timings mean nothing here."""
import importlib.util
import pathlib
import subprocess
import sys

import pytest
import torch

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "quantize"


@pytest.fixture
def scripts(monkeypatch):
    if not BENCH.is_dir():
        pytest.skip(f"no {BENCH} (the package's tests run outside the repository)")
    monkeypatch.syspath_prepend(str(BENCH))
    from queued_timing import HostEvent
    monkeypatch.setattr(torch.cuda, "Event", HostEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: None)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "CPU dry run")
    yield
    for name in ("bench_dequantize", "bench_python_amax", "bench_quantize", "bench_swizzle",
                 "queued_timing"):
        sys.modules.pop(name, None)


def runner():
    """bench/quantize/run.py as a module (its main(argv) is the command line)."""
    spec = importlib.util.spec_from_file_location("bench_quantize_run", BENCH / "run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_dequantize_dry_run(scripts, capsys):
    runner().main(["--dry-run", "dequantize", "--shapes", "64x256", "--peers", ""])
    import bench_dequantize
    out = capsys.readouterr().out
    assert "FAIL" not in out, out
    # every format checked against the CPU reference, and those with a
    # plain-PyTorch peer against it
    assert out.count("vs fpx CPU reference: PASS") == len(bench_dequantize.CASES), out
    peers = sum(bench_dequantize.peer_for(n, b, None) is not None
                for n, (_, b) in bench_dequantize.CASES.items())
    assert out.count("check vs eager peer: PASS") == peers, out
    assert "fpxc speedup vs compile" in out


def test_bench_dequantize_batches_dry_run(scripts, capsys):
    """Batches of matrices (ExMxK), every format: NVFP4 with a global scale
    per matrix and per-tensor fp8 with a scale per matrix, their peers
    scaling each matrix by its own."""
    runner().main(["--dry-run", "dequantize", "--shapes", "3x64x256", "--peers", ""])
    import bench_dequantize
    out = capsys.readouterr().out
    assert "FAIL" not in out, out
    peers = sum(bench_dequantize.peer_for(n, b, None) is not None
                for n, (_, b) in bench_dequantize.CASES.items())
    assert out.count("check vs eager peer: PASS") == peers, out


def test_bench_swizzle_dry_run(scripts, capsys):
    """Whole and grouped swizzles, each against its PyTorch peer byte for
    byte; no graph times without a GPU ("n/a")."""
    runner().main(["--dry-run", "swizzle", "--shapes", "300x10,256x8", "--groups", "0,3",
                   "--peers", ""])
    out = capsys.readouterr().out
    assert "FAIL" not in out, out
    assert out.count("fpx.swizzle_scales") == 4, out
    assert out.count("PASS") == 4, out
    assert "GPU       n/a" in out, out


def test_bench_python_amax_dry_run(scripts, capsys):
    runner().main(["--dry-run", "python", "--shapes", "64x256,2x64x256", "--peers", ""])
    out = capsys.readouterr().out
    # fpx with the amax computed, given, and given and returned, and the
    # eager peer, a shape (a matrix, a batch with g per matrix), each checked
    # against the reference (the returned amax against the input's)
    assert out.count("% of copy") == 8, out
    assert out.count("check vs eager reference: PASS") == 8, out
    assert out.startswith("CPU dry run: device-to-device copy 1 MiB"), out


def test_bench_python_amax_rs_dry_run(scripts, capsys):
    runner().main(["--dry-run", "python", "--shapes", "64x256,2x64x256", "--peers", "",
                   "--rounding", "rs"])
    out = capsys.readouterr().out
    # fpx stochastic (its codes checked against its own, scales against the
    # reference's) and the rn peer, a matrix and a batch
    assert out.count("nvfp4+rs") == 6, out
    assert out.count("check vs eager reference: PASS") == 8, out


def test_bench_quantize_dry_run(tmp_path):
    """bench_quantize.py's whole flow through `run.py --dry-run cast` (that is
    dryrun_cpu.py; a subprocess: it replaces torch.cuda's functions for good)
    on artifacts compiled here, for
    cases of each kind of check: a row cast, a column cast and 3D experts
    (the kernel's transposed layouts), a given amax, stochastic rounding,
    and delayed scaling (the amax returned checked against the one given,
    one given by another case's function)."""
    import os
    fpxc = os.environ.get("FPX_FPXC")
    if not BENCH.is_dir() or not fpxc or not os.path.exists(fpxc):
        pytest.skip("needs the repository and fpxc (FPX_FPXC)")
    cases = ["mxfp8_e4m3_floor", "mxfp8_e4m3_cols", "mxfp8_e4m3_experts", "nvfp4_cast",
             "nvfp4_rs_cast", "nvfp4_delayed", "nvfp4_rht_rs_delayed"]
    art = tmp_path / "art"
    art.mkdir()
    for c in cases + ["nvfp4_rht_rs"]:  # whose amax nvfp4_rht_rs_delayed is given
        subprocess.run([fpxc, "compile", str(BENCH / "specs" / f"{c}.mlir"), "--target",
                        "sm_90a", "-o", str(art / c)], check=True)
    run = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--dry-run", "--out", str(tmp_path / "out"),
         "cast", "--artifacts", str(art), "--quick", "--cases", ",".join(cases),
         "--peers", "triton"], capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    # each case against the CPU numerics core (7), and against the eager
    # reference (or, under rs, for repeatability) at each shape it runs at:
    # the quick 2D one (6 cases) and the 3D one (the row cast flat, experts)
    assert "checks 15/15 PASS; 0 errors" in out, out
    # the two delayed-scaling checks, each in the log and in the summary
    assert out.count("'recorded_amax_vs_given': 0") == 4, out


def test_runner_help_and_gpu_steps_dry(tmp_path):
    """run.py --help, and the GPU-only recipes printed, not run, under
    --dry-run (the GPU tests, sanitizers, Nsight Compute, an A/B)."""
    if not BENCH.is_dir():
        pytest.skip(f"no {BENCH} (the package's tests run outside the repository)")
    run = [sys.executable, str(BENCH / "run.py")]
    r = subprocess.run(run + ["--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "per-row" in r.stdout and "check" in r.stdout, r.stdout + r.stderr
    dry = run + ["--dry-run", "--out", str(tmp_path)]
    for argv, want in (
            (["check", "--ctest", "QuantizeKernels", "--sanitize", "memcheck,racecheck"],
             ["test/gpu/run_on_gpu.sh QuantizeKernels", "test/gpu/sanitize.sh",
              "SANITIZE_TOOLS='memcheck racecheck'"]),
            (["check", "--sanitize", "racecheck", "--cases", "cols", "--kernel-ns", "cols"],
             ["kns=cols", "FPX_GPU_CASES=cols"]),
            (["ncu", "--what", "stalls", "nvfp4_cast"],
             ["ncu --clock-control none", "regex:^nvfp4_cast_quantize", "WarpStateStats"]),
            (["ab", "--sets", "A,B", "--cases", "nvfp4_cast"], ["--artifacts A", "--artifacts B"]),
            (["variants", "a.json", "b.json"], ["time_variants.py"])):
        r = subprocess.run(dry + argv, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr
        for w in want:
            assert w in r.stdout, (argv, w, r.stdout)
    r = subprocess.run(dry + ["ab", "--sets", "A,B", "--cases", "x"], capture_output=True,
                       text=True, timeout=60)
    order = [l.split("--artifacts ")[1].split()[0] for l in r.stdout.splitlines() if "--artifacts" in l]
    assert order == ["A", "B", "B", "A"], r.stdout  # drift on the machine shows
    assert not any(tmp_path.iterdir())  # a dry run writes nothing


def _check_script(script, args, env_extra, timeout):
    """A bench check script (bench/<suite>/<name>.py) in a subprocess
    (TRITON_INTERPRET is read when the Triton kernels are decorated, at
    import): it must exit 0. Returns its output."""
    import os
    if not script.parent.is_dir():
        pytest.skip(f"no {script.parent} (the package's tests run outside the repository)")
    pytest.importorskip("triton", reason="the Triton peers need triton (torch's CUDA wheels bring it)")
    env = dict(os.environ, **env_extra)
    r = subprocess.run([sys.executable, str(script), *args],
                       capture_output=True, text=True, env=env, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def _triton_check(args, env_extra):
    """bench/quantize/check_triton_peers.py."""
    return _check_script(BENCH / "check_triton_peers.py", args, env_extra, 600)


def test_triton_peers_compile_for_sm90():
    """Every Triton peer kernel through Triton's compiler and ptxas for sm_90,
    as on the GPU machine (a kernel reading a non-constexpr global compiled
    under the interpreter and failed there)."""
    out = _triton_check(["--compile", "90"], {})
    assert out.count("compiled _") == 13, out


def test_triton_peers_scales_match_references():
    """The Triton peers' scales equal the benchmark's eager references byte for
    byte under Triton's CPU interpreter (NaN, inf and zero blocks included)."""
    out = _triton_check(["--interpret"], {"TRITON_INTERPRET": "1"})
    assert out.count("PASS") == 14 and "FAIL" not in out, out


GEMM = BENCH.parent / "gemm"
# bench/gemm/triton_peer.py's formats (its FORMATS)
GEMM_FORMATS = 10


def _gemm_triton_check(args, env_extra):
    """bench/gemm/check_triton_peer.py; no FAIL in its output."""
    out = _check_script(GEMM / "check_triton_peer.py", args, env_extra, 900)
    assert "FAIL" not in out, out
    return out


def test_gemm_triton_peer_interpreted():
    """The weight-only GEMM's Triton peer (bench/gemm/triton_peer.py), split-K
    and tiled, for every format under Triton's CPU interpreter with f16 x:
    within 1e-2 of an fp32 matmul of the package's dequantized weight, and its
    in-register decode equal to WeightFormat.decode on every code."""
    out = _gemm_triton_check(["--interpret"], {"TRITON_INTERPRET": "1"})
    assert out.count("PASS") == 3 * GEMM_FORMATS, out


def test_gemm_triton_peer_compiles_for_sm90():
    """Both kernels of every format through Triton's compiler and ptxas for
    sm_90, bf16 and f16 x (what the interpreter does not check)."""
    out = _gemm_triton_check(["--compile", "90"], {})
    assert out.count("compiled _") == 4 * GEMM_FORMATS, out


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_gemm_triton_peer_on_gpu():
    """Both kernels on the GPU in five configurations, bf16 and f16 x, M = 1,
    5, 40, 80, 300, and their decode on every code (the GPU's fp8 conversions
    included)."""
    out = _gemm_triton_check(["--gpu"], {})
    assert out.count("PASS") == 2 * 6 * GEMM_FORMATS, out


def test_bench_hostpath_dry_run(tmp_path):
    """bench/hostpath/run.py (issue 37's host cost) on the CPU: every method
    timed at the host shape and the back-to-back one, the tables and the
    targets written."""
    import json
    run = BENCH.parent / "hostpath" / "run.py"
    if not run.is_file():
        pytest.skip(f"no {run} (the package's tests run outside the repository)")
    done = subprocess.run([sys.executable, str(run), "--dry-run", "--no-compile", "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    methods = {"fpx eager", "torch.ops.fpxc.quantize", "torch x.to(float8_e4m3fn)"}
    assert set(results["host"]) == methods and set(results["b2b"]) == methods
    assert all(us > 0 for us in results["host"].values())
    assert [t["target"] for t in results["targets"]] == ["host fpx eager <= 15 us"]
    assert "| fpx eager |" in (tmp_path / "hostpath.md").read_text()


def test_bench_grouped_gemm_dry_run():
    """bench/gemm/grouped.py --dry-run on the CPU: every default case's
    group sizes sum to M (one empty group in the uneven splits), the FLOPs
    are 2 M N K, and its error check passes a per-group fp32 product and
    fails one with B's groups rotated; a bad case stops it."""
    run = BENCH.parent / "gemm" / "grouped.py"
    if not run.is_file():
        pytest.skip(f"no {run} (the package's tests run outside the repository)")
    done = subprocess.run([sys.executable, str(run), "--dry-run", "--artifacts", "/nonexistent"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [ln.split("|") for ln in done.stdout.splitlines() if ln.count("|") == 4
            and ln.split("|")[0].strip()[0].isdigit()]
    assert len(rows) == 26, done.stdout
    for case, _, sizes, flops, _ in rows:
        g, m, n, k = map(int, case.split(":")[0].split("x"))
        empty, last = map(int, sizes.split()[1:])
        assert last == m and (empty == 1) == case.strip().endswith("uneven"), (case, sizes)
        assert float(flops.split()[0]) == pytest.approx(2 * m * n * k / 1e9, abs=0.05)
    assert done.stdout.rstrip().endswith("dry run: OK")
    bad = subprocess.run([sys.executable, str(run), "--dry-run", "--cases", "8x100x4"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "bad case" in bad.stderr
