import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped without one)")


def _have_gpu():
    try:
        import torch

        import fpxc
        return torch.cuda.is_available() and fpxc.has_gpu()
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _have_gpu():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def artifact_path(tmp_path_factory):
    """The hand-written artifact (hand_artifact.py), written to a temp folder."""
    import hand_artifact
    return hand_artifact.write(tmp_path_factory.mktemp("hand"))


def fpxc_path():
    """The fpxc that the build made ($FPX_FPXC, as scripts/test.sh sets it),
    or None (a GPU machine without MLIR)."""
    f = os.environ.get("FPX_FPXC")
    return f if f and os.access(f, os.X_OK) else None


@pytest.fixture(scope="session")
def prologue_artifact(tmp_path_factory):
    """test/gpu/specs/q_mxfp8_prologue.mlir compiled for sm_80 (its PTX JITs
    on every newer GPU): an MXFP8 row cast whose kernel calls the user
    function `fpx_user_scale`. Compiled here by $FPX_FPXC, else taken from
    the build's GPU-test artifacts ($FPX_GPU_ARTIFACTS, carried to a GPU
    machine as .art/gpu)."""
    spec = ROOT / "test/gpu/specs/q_mxfp8_prologue.mlir"
    fpxc = fpxc_path()
    if fpxc:
        stem = tmp_path_factory.mktemp("prologue") / "q_mxfp8_prologue"
        subprocess.run([fpxc, "compile", str(spec), "--target", "sm_80", "-o", str(stem)],
                       check=True)
        return stem.with_suffix(".json")
    for d in (os.environ.get("FPX_GPU_ARTIFACTS"), ROOT / "build/gpu-artifacts",
              ROOT / ".art/gpu"):
        if d and (pathlib.Path(d) / "sm_80/q_mxfp8_prologue.json").is_file():
            return pathlib.Path(d) / "sm_80/q_mxfp8_prologue.json"
    pytest.skip("needs fpxc (FPX_FPXC) or the GPU-test artifacts (FPX_GPU_ARTIFACTS) "
                "for q_mxfp8_prologue")
