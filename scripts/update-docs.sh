#!/usr/bin/env bash
# Regenerates the ODS-derived docs in docs/dialect/ from a configured build/.
set -euo pipefail
cd "$(dirname "$0")/.."
ninja -C build fpx-docs
cp build/docs/dialect/*.md docs/dialect/
