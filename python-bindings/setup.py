"""Builds the fpxc._fpx extension with CMake (nanobind), no scikit-build needed.

Environment knobs:
  FPX_SOURCE_DIR    the fpxc checkout (default: the parent of this folder)
  FPX_DEPS_INCLUDE  folder holding nlohmann/json.hpp and xxhash.h when they
                    are not installed system-wide
  CUDA_HOME         CUDA toolkit (for cuda.h / nvrtc.h headers only)
  CMAKE_ARGS        extra CMake arguments
"""

import os
import pathlib
import re
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = pathlib.Path(os.environ.get("FPX_SOURCE_DIR", HERE.parent)).resolve()


def fpxc_version():
    """The one version: `project(fpxc VERSION x.y.z ...)` in the checkout's
    CMakeLists.txt (the extension's __version__ comes from the same line)."""
    top = SOURCE / "CMakeLists.txt"
    try:
        m = re.search(r"^project\(fpxc VERSION ([0-9.]+)", top.read_text(), re.M)
    except OSError as e:
        raise RuntimeError(f"cannot read the version from {top}: {e}; set FPX_SOURCE_DIR "
                           "to the fpxc checkout (pip must build in-tree)") from None
    if not m:
        raise RuntimeError(f"no `project(fpxc VERSION ...)` line in {top}")
    return m.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        source = SOURCE
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
        ]
        if os.environ.get("FPX_DEPS_INCLUDE"):
            args.append(f"-DFPX_DEPS_INCLUDE={os.environ['FPX_DEPS_INCLUDE']}")
        try:
            subprocess.run(["ninja", "--version"], check=True, capture_output=True)
            args.append("-GNinja")
        except (OSError, subprocess.CalledProcessError):
            pass
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(["cmake", *args], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_fpx",
                        "-j", str(os.cpu_count() or 2)], check=True)


setup(version=fpxc_version(), ext_modules=[CMakeExtension("fpxc._fpx")],
      cmdclass={"build_ext": CMakeBuild})
