#!/usr/bin/env bash
# Installs what fpxc needs on a fresh Debian 12 machine (root or sudo):
# LLVM/MLIR 22, FileCheck/lit, Boost.Program_options, GoogleTest, nlohmann-json,
# xxHash, ccache; and the Python packages the `fpx` package and its tests use.
# The CUDA 13 toolkit (headers, ptxas, NVRTC) is expected at /usr/local/cuda.
set -euo pipefail
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
pkgs=(cmake ninja-build g++ ccache llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
      libzstd-dev libboost-program-options-dev libgtest-dev nlohmann-json3-dev libxxhash-dev
      python3-pip)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "${FPX_SKIP_PYTHON:-0}" != 1 ]; then
  py=${PYTHON:-python3}
  $py -c "import torch, numpy, pytest, nanobind" 2>/dev/null ||
    $py -m pip install -q torch numpy pytest nanobind
fi
