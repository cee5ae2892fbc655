"""Builds the fpxc._fpx extension with CMake (nanobind), no scikit-build needed,
and puts the AOT kernel bundle (fpxc/kernels/<target>/) into the package.

The bundle is a build output of fpxc (python-bindings/Bundle.cmake), never
kept in git. Where it comes from, first match:
  1. $FPX_BUNDLE_DIR: a bundle directory (<target>/index.json + artifacts);
  2. a source distribution (scripts/dist.sh): its own fpxc/kernels;
  3. a checkout with a configured build (build/, or $FPX_BUILD_DIR) that
     generates it: `cmake --build build --target fpx-bundle` (a no-op when
     it is up to date with fpxc), then build/python-bindings/kernels;
  4. an fpxc ($FPX_FPXC, else build/compiler/tools/fpxc): build_bundle.py
     --set core compiles it here;
  5. none: the package installs without kernels (every call runs the CPU
     reference; FPX_KERNEL_DIR can point at a bundle later), with a warning.

`python3 setup.py sdist` (scripts/dist.sh) writes a source distribution that
builds on a machine without MLIR: the package, the extension's sources, the
runtime and numerics sources, the header-only dependencies (nlohmann/json,
xxHash) and the bundle.

Environment knobs:
  FPX_SOURCE_DIR    the fpxc checkout (default: the parent of this folder, or
                    this folder in a source distribution)
  FPX_DEPS_INCLUDE  folder holding nlohmann/json.hpp and xxhash.h when they
                    are not installed system-wide
  FPX_BUILD_DIR     the CMake build of the checkout (default: build/)
  FPX_BUNDLE_DIR, FPX_FPXC   the bundle, or the fpxc that makes it (above)
  CUDA_HOME         CUDA toolkit (for cuda.h / nvrtc.h / cuda_runtime_api.h headers only)

The extension links the libtorch of the torch this Python imports (its ops
are C++, src/TorchOps.cpp): build with --no-build-isolation, once per torch.
  CMAKE_ARGS        extra CMake arguments
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import warnings

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = pathlib.Path(__file__).resolve().parent
# What python-bindings/Bundle.cmake generates (the set the package ships).
BUNDLE_SET, BUNDLE_TARGETS = "core", "sm_90a,sm_100a"


def is_sdist():
    return (HERE / "PKG-INFO").is_file()


def source_dir():
    if os.environ.get("FPX_SOURCE_DIR"):
        return pathlib.Path(os.environ["FPX_SOURCE_DIR"]).resolve()
    if (HERE / "runtime" / "CMakeLists.txt").exists():  # a source distribution
        return HERE
    return HERE.parent


def fpxc_version():
    """The one version: `project(fpxc VERSION x.y.z ...)` in the checkout's
    CMakeLists.txt (the extension's __version__ comes from the same line);
    in a source distribution, the version it was made with (PKG-INFO)."""
    if is_sdist():
        m = re.search(r"^Version: *([0-9.]+)", (HERE / "PKG-INFO").read_text(), re.M)
        if m:
            return m.group(1)
    top = source_dir() / "CMakeLists.txt"
    try:
        m = re.search(r"^project\(fpxc VERSION ([0-9.]+)", top.read_text(), re.M)
    except OSError as e:
        raise RuntimeError(f"cannot read the version from {top}: {e}; set FPX_SOURCE_DIR "
                           "to the fpxc checkout (pip must build in-tree)") from None
    if not m:
        raise RuntimeError(f"no `project(fpxc VERSION ...)` line in {top}")
    return m.group(1)


def deps_include():
    """The header-only dependencies: $FPX_DEPS_INCLUDE, else those a source
    distribution carries (deps/), else none (the system's)."""
    if os.environ.get("FPX_DEPS_INCLUDE"):
        return os.environ["FPX_DEPS_INCLUDE"]
    if (HERE / "deps" / "nlohmann" / "json.hpp").exists():
        return str(HERE / "deps")
    return None


def is_bundle(d):
    return d is not None and d.is_dir() and any(d.glob("*/index.json"))


def checkout_bundle(scratch):
    """The bundle of a checkout (steps 3 and 4 above), or None."""
    src = source_dir()
    build = pathlib.Path(os.environ.get("FPX_BUILD_DIR", src / "build")).resolve()
    cache = build / "CMakeCache.txt"
    if cache.is_file() and "FPX_BUILD_BUNDLE:BOOL=ON" in cache.read_text(errors="replace"):
        print(f"fpxc: bringing the kernel bundle of {build} up to date", flush=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "fpx-bundle"], check=True)
        return build / "python-bindings" / "kernels"
    fpxc = os.environ.get("FPX_FPXC") or str(build / "compiler" / "tools" / "fpxc")
    builder = src / "python-bindings" / "tools" / "build_bundle.py"
    if os.access(fpxc, os.X_OK) and builder.is_file():
        out = scratch / "kernels"
        print(f"fpxc: compiling the kernel bundle with {fpxc}", flush=True)
        subprocess.run([sys.executable, str(builder), "--set", BUNDLE_SET, "--targets",
                        BUNDLE_TARGETS, "--out", str(out), "--fpxc", fpxc, "--strict"],
                       check=True)
        return out
    return None


def find_bundle(scratch):
    if os.environ.get("FPX_BUNDLE_DIR"):
        d = pathlib.Path(os.environ["FPX_BUNDLE_DIR"]).resolve()
        if not is_bundle(d):
            raise RuntimeError(f"FPX_BUNDLE_DIR={d} holds no <target>/index.json")
        return d
    if is_sdist():
        d = HERE / "fpxc" / "kernels"
        return d if is_bundle(d) else None
    d = checkout_bundle(scratch)
    return d if is_bundle(d) else None


def copy_bundle(bundle, dest):
    """Copies the per-target folders (index.json, .json, .ptx, .cubin)."""
    if dest.exists():
        shutil.rmtree(dest)
    for index in sorted(bundle.glob("*/index.json")):
        out = dest / index.parent.name
        out.mkdir(parents=True)
        for f in index.parent.iterdir():
            if f.suffix in (".json", ".ptx", ".cubin"):
                shutil.copy2(f, out / f.name)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        source = source_dir()
        if not (source / "runtime" / "CMakeLists.txt").exists():
            raise RuntimeError(f"fpxc sources not found at {source}; set FPX_SOURCE_DIR "
                               "to the checkout (pip must build in-tree)")
        out_dir = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        import nanobind

        args = [
            f"-S{HERE}", f"-B{build_dir}",
            f"-DFPX_SOURCE_DIR={source}",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-Dnanobind_DIR={nanobind.cmake_dir()}",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DCMAKE_LIBRARY_OUTPUT_DIRECTORY={out_dir}",
            # (numerics/ reads it from ../CMakeLists.txt, which a source
            # distribution does not have)
            f"-DFPX_VERSION={fpxc_version()}",
        ]
        if deps_include():
            args.append(f"-DFPX_DEPS_INCLUDE={deps_include()}")
        try:
            subprocess.run(["ninja", "--version"], check=True, capture_output=True)
            args.append("-GNinja")
        except (OSError, subprocess.CalledProcessError):
            pass
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(["cmake", *args], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_fpx",
                        "-j", str(os.cpu_count() or 2)], check=True)


class BuildPy(build_py):
    """Puts the kernel bundle into the built package (fpxc/kernels)."""

    def run(self):
        super().run()
        dest = pathlib.Path(self.build_lib) / "fpxc" / "kernels"
        with tempfile.TemporaryDirectory(prefix="fpxc-bundle-") as scratch:
            bundle = find_bundle(pathlib.Path(scratch))
            if bundle is None:
                if dest.exists():  # a stale in-tree copy picked up as package data
                    shutil.rmtree(dest)
                warnings.warn("fpxc: no kernel bundle (no FPX_BUNDLE_DIR, no build/ with "
                              "fpxc, no FPX_FPXC): the package installs without kernels and "
                              "runs the CPU reference")
                return
            if bundle.resolve() != dest.resolve():
                copy_bundle(bundle, dest)
        n = sum(1 for _ in dest.glob("*/*.ptx"))
        print(f"fpxc: kernel bundle {bundle} ({n} PTX files) -> {dest}", flush=True)


class SDist(sdist):
    """A source distribution that builds without the compiler: the package,
    the extension's sources, runtime/ and numerics/, the header-only deps and
    the kernel bundle."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        base = pathlib.Path(base_dir)
        src = source_dir()

        def put(what, where):
            # (the release tree may hold hard links to the sources: replace, never write through)
            dest = base / where
            if dest.is_dir():
                shutil.rmtree(dest)
            elif dest.exists():
                dest.unlink()
            dest.parent.mkdir(parents=True, exist_ok=True)
            if what.is_dir():
                shutil.copytree(what, dest, ignore=shutil.ignore_patterns(
                    "__pycache__", "*.pyc", "build*"))
            else:
                shutil.copy2(what, dest)

        # The tests need the checkout (its specs, tools and build): not shipped.
        if (base / "tests").exists():
            shutil.rmtree(base / "tests")
        put(HERE / "CMakeLists.txt", "CMakeLists.txt")
        put(HERE / "src", "src")
        put(HERE / "include", "include")  # (the C++ API of the torch ops)
        put(src / "runtime", "runtime")
        put(src / "numerics", "numerics")
        dirs = ([deps_include()] if deps_include() else []) + ["/usr/include"]
        json_dir = next((pathlib.Path(d) for d in dirs
                         if (pathlib.Path(d) / "nlohmann" / "json.hpp").exists()), None)
        xxh_dir = next((pathlib.Path(d) for d in dirs
                        if (pathlib.Path(d) / "xxhash.h").exists()), None)
        if json_dir is None or xxh_dir is None:
            raise RuntimeError("sdist: nlohmann/json.hpp and xxhash.h are needed (install "
                               "nlohmann-json3-dev libxxhash-dev, or set FPX_DEPS_INCLUDE)")
        put(json_dir / "nlohmann", "deps/nlohmann")
        put(xxh_dir / "xxhash.h", "deps/xxhash.h")
        with tempfile.TemporaryDirectory(prefix="fpxc-bundle-") as scratch:
            bundle = find_bundle(pathlib.Path(scratch))
            if bundle is None:
                raise RuntimeError("sdist: no kernel bundle to ship (configure and build "
                                   "build/ with fpxc first: scripts/build.sh)")
            dest = base / "fpxc" / "kernels"
            if dest.exists():
                shutil.rmtree(dest)
            copy_bundle(bundle, dest)


setup(version=fpxc_version(), ext_modules=[CMakeExtension("fpxc._fpx")],
      cmdclass={"build_ext": CMakeBuild, "build_py": BuildPy, "sdist": SDist})
