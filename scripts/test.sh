#!/usr/bin/env bash
# Installs what is missing, builds (fpxc, the runtime, the tests and the
# Python package's kernel bundle), and runs every test: GoogleTest units,
# lit/FileCheck, GPU tests (skipped visibly without a GPU), the Python package
# tests on CPU tensors; the package is installed with the bundle this build's
# fpxc compiled, and test_bundle.py recompiles every artifact of it with that
# fpxc and compares them byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build -j"$(nproc)" --output-on-failure
py=${PYTHON:-python3}
$py -m pip install -q --no-build-isolation ./python-bindings
# From the repository root, so that the installed package (with its compiled
# extension) is imported, not the source folder python-bindings/fpxc.
# pytest exits 5 when it collects nothing; that must fail too, so no masking.
# FPX_BUNDLE_CHECK=all: every bundled artifact recompiled and compared (about
# 30 s of CPU), not a sample.
FPX_FPXC="$PWD/build/compiler/tools/fpxc" FPX_BUNDLE_CHECK=all \
  $py -m pytest -q -p no:cacheprovider python-bindings/tests
