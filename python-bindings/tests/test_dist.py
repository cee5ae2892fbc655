"""The source distribution for GPU machines without MLIR (scripts/dist.sh):
what it holds, built from this checkout and its build. Installing it is
`scripts/dist.sh --check` (a fresh virtual environment, a few minutes)."""

import pathlib
import subprocess
import sys
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "build" / "python-bindings" / "kernels"


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    if not any(BUNDLE.glob("*/index.json")):
        pytest.skip("needs the build's kernel bundle (build/python-bindings/kernels)")
    tmp = tmp_path_factory.mktemp("sdist")
    subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(tmp),
                    "sdist", "--dist-dir", str(tmp)], cwd=ROOT / "python-bindings", check=True,
                   capture_output=True)
    (path,) = tmp.glob("fpxc-*.tar.gz")
    return path


def test_the_sdist_builds_without_the_compiler(sdist):
    assert sdist.stat().st_size < 60 * 2**20
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for need in ("PKG-INFO", "pyproject.toml", "setup.py", "CMakeLists.txt", "README.md",
                 "src/Module.cpp", "fpxc/__init__.py", "fpxc/bundle.py",
                 "runtime/CMakeLists.txt", "numerics/CMakeLists.txt",
                 "deps/nlohmann/json.hpp", "deps/xxhash.h"):
        assert need in names, need
    assert not any(n.startswith(("build", "tests/")) or "__pycache__" in n for n in names)


def test_the_sdist_ships_the_builds_bundle(sdist):
    """Every file of build/python-bindings/kernels, byte for byte (that
    bundle is what fpxc compiles now: test_bundle.py, Bundle.cmake)."""
    want = {f"fpxc/kernels/{p.relative_to(BUNDLE)}": p.read_bytes()
            for p in BUNDLE.glob("*/*") if p.suffix in (".json", ".ptx", ".cubin")}
    with tarfile.open(sdist) as tar:
        got = {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers()
               if m.isfile() and "/fpxc/kernels/" in m.name}
    assert {"fpxc/kernels/sm_90a/index.json", "fpxc/kernels/sm_100a/index.json"} <= set(got)
    assert got.keys() == want.keys()
    assert [k for k in got if got[k] != want[k]] == []
