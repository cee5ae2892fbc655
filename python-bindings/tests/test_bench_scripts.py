"""CPU dry runs of the package's benchmark scripts (bench/quantize): their
whole flow, checks and tables on CPU tensors with host-clock CUDA events, so
that a script is known to run before GPU time is spent on it. The timings
mean nothing here."""
import pathlib
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


def test_bench_dequantize_dry_run(scripts, capsys):
    import bench_dequantize
    bench_dequantize.main(["--device", "cpu", "--copy-mib", "1", "--shapes", "64x256",
                           "--no-compile"])
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
    import bench_dequantize
    bench_dequantize.main(["--device", "cpu", "--copy-mib", "1", "--shapes", "3x64x256",
                           "--no-compile"])
    out = capsys.readouterr().out
    assert "FAIL" not in out, out
    peers = sum(bench_dequantize.peer_for(n, b, None) is not None
                for n, (_, b) in bench_dequantize.CASES.items())
    assert out.count("check vs eager peer: PASS") == peers, out


def test_bench_swizzle_dry_run(scripts, capsys):
    """Whole and grouped swizzles, each against its PyTorch peer byte for
    byte; no graph times without a GPU ("n/a")."""
    import bench_swizzle
    bench_swizzle.main(["--device", "cpu", "--copy-mib", "1", "--shapes", "300x10,256x8",
                        "--groups", "0,3", "--no-compile"])
    out = capsys.readouterr().out
    assert "FAIL" not in out, out
    assert out.count("fpx.swizzle_scales") == 4, out
    assert out.count("PASS") == 4, out
    assert "GPU       n/a" in out, out


def test_bench_python_amax_dry_run(scripts, capsys):
    import bench_python_amax
    bench_python_amax.main(["--device", "cpu", "--copy-mib", "1", "--shapes", "64x256,2x64x256",
                            "--no-compile"])
    out = capsys.readouterr().out
    # fpx with the amax computed, given, and given and returned, and the
    # eager peer, a shape (a matrix, a batch with g per matrix), each checked
    # against the reference (the returned amax against the input's)
    assert out.count("% of copy") == 8, out
    assert out.count("check vs eager reference: PASS") == 8, out
    assert out.startswith("CPU dry run: device-to-device copy 1 MiB"), out


def test_bench_python_amax_rs_dry_run(scripts, capsys):
    import bench_python_amax
    bench_python_amax.main(["--device", "cpu", "--copy-mib", "1", "--shapes", "64x256,2x64x256",
                            "--no-compile", "--rounding", "rs"])
    out = capsys.readouterr().out
    # fpx stochastic (its codes checked against its own, scales against the
    # reference's) and the rn peer, a matrix and a batch
    assert out.count("nvfp4+rs") == 6, out
    assert out.count("check vs eager reference: PASS") == 8, out


def test_bench_quantize_dry_run(tmp_path):
    """bench_quantize.py's whole flow through dryrun_cpu.py (a subprocess: it
    replaces torch.cuda's functions for good) on artifacts compiled here, for
    cases of each kind of check: a row cast, a column cast and 3D experts
    (the kernel's transposed layouts), a given amax, stochastic rounding,
    and delayed scaling (the amax returned checked against the one given,
    one given by another case's function)."""
    import os
    import subprocess
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
        [sys.executable, str(BENCH / "dryrun_cpu.py"), "--artifacts", str(art), "--out",
         str(tmp_path / "out"), "--quick", "--cases", ",".join(cases), "--no-compile",
         "--no-eager"], capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    # each case against the CPU numerics core (7), and against the eager
    # reference (or, under rs, for repeatability) at each shape it runs at:
    # the quick 2D one (6 cases) and the 3D one (the row cast flat, experts)
    assert "checks 15/15 PASS; 0 errors" in out, out
    # the two delayed-scaling checks, each in the log and in the summary
    assert out.count("'recorded_amax_vs_given': 0") == 4, out


def _triton_check(args, env_extra):
    """bench/quantize/check_triton_peers.py in a subprocess (TRITON_INTERPRET
    is read when the kernels are decorated, at import)."""
    import os
    import subprocess
    if not BENCH.is_dir():
        pytest.skip(f"no {BENCH} (the package's tests run outside the repository)")
    pytest.importorskip("triton", reason="the Triton peers need triton (torch's CUDA wheels bring it)")
    env = dict(os.environ, **env_extra)
    r = subprocess.run([sys.executable, str(BENCH / "check_triton_peers.py"), *args],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


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
