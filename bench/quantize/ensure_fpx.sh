# Sourced by the device-side scripts (repository root as the working
# directory, $OUT set): installs the fpx package from the checkout unless
# python3 can import it already. Needs .deps (header-only deps) carried, and
# .art/kernels (build/python-bindings/kernels) for the bundle the package ships.
if ! python3 -c "import fpxc" 2>/dev/null; then
  [ -n "${FPX_BUNDLE_DIR:-}" ] || [ ! -d .art/kernels ] || export FPX_BUNDLE_DIR="$PWD/.art/kernels"
  FPX_DEPS_INCLUDE="$PWD/.deps" python3 -m pip install -q --no-build-isolation ./python-bindings \
    > "$OUT/pip.log" 2>&1 || { tail -20 "$OUT/pip.log"; exit 1; }
fi
