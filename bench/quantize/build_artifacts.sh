#!/usr/bin/env bash
# Compiles every spec in bench/quantize/specs/ with fpxc into an artifact
# directory (default .art/sm_90a at the repository root): STEM.json + STEM.ptx
# (+ STEM.cubin with --cubin, assembled by ptxas here, so the GPU machine does
# not JIT the PTX).
#
#   bench/quantize/build_artifacts.sh [--target sm_90a] [--out DIR] [--cubin] [--fpxc PATH]
#
# A spec that fails to compile is reported and skipped (exit status 1 at the
# end); the benchmark reports a missing artifact and goes on.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target=sm_90a
out=""
cubin=""
fpxc="${FPX_FPXC:-$root/build/compiler/tools/fpxc}"
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --cubin) cubin="--cubin"; shift ;;
    --fpxc) fpxc="$2"; shift 2 ;;
    -h|--help) sed -n 2,11p "$0"; exit 0 ;;
    *) echo "build_artifacts.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || out="$root/.art/$target"
if [ ! -x "$fpxc" ]; then
  echo "build_artifacts.sh: no fpxc at $fpxc (build it: ninja -C build fpxc, or pass --fpxc)" >&2
  exit 2
fi
mkdir -p "$out"
status=0
n=0
for spec in "$here"/specs/*.mlir; do
  stem="$(basename "$spec" .mlir)"
  if "$fpxc" compile "$spec" --target "$target" $cubin -o "$out/$stem"; then
    n=$((n + 1))
    echo "ok   $stem -> $out/$stem.json"
  else
    echo "FAIL $stem (fpxc exited $?)" >&2
    status=1
  fi
done
"$fpxc" --version > "$out/FPXC_VERSION" 2>&1 || true
git -C "$root" rev-parse HEAD > "$out/COMMIT" 2>/dev/null || true
echo "$n artifacts for $target in $out"
exit $status
