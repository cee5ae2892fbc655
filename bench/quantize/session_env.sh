# Sourced first by the device-call scripts: the repository root as the
# working directory (and $root), $OUT made (default ./gpu-out), the fpx
# package installed (ensure_fpx.sh; carry .deps).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
source bench/quantize/ensure_fpx.sh
