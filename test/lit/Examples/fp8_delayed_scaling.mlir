// RUN: fpxc compile %examples/fp8_delayed_scaling.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/fp8_delayed_scaling.mlir --target sm_80 --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: rm -rf %t && mkdir -p %t && fpxc compile %examples/fp8_delayed_scaling.mlir --target sm_90a -o %t/ds
// RUN: FileCheck %s --check-prefix=JSON < %t/ds.json

// docs/examples/fp8_delayed_scaling.mlir: a cast from a given amax that also
// returns this input's amax. One kernel: the returned amax is reduced by
// the cast (an atomic max a warp, taken where larger than the stored value,
// which it reads before casting), not by an amax kernel reading x again.

// CHECK-NOT: .entry fp8_delayed_scaling_amax
// CHECK-LABEL: .visible .entry fp8_delayed_scaling_quantize0(
// CHECK-NOT: .entry
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: cvt.rn.satfinite
// CHECK: atom.global.max.u32
// CHECK-NOT: .entry

// The launch record: the one cast, the given amax its fourth argument, the
// returned amax (zeroed before the launch) its fifth.
// JSON: "args": [
// JSON-NEXT: "arg0",
// JSON-NEXT: "result0",
// JSON-NEXT: "result1",
// JSON-NEXT: "arg1",
// JSON-NEXT: "result2",
// JSON: "kernel": "fp8_delayed_scaling_quantize0"
// JSON-NOT: "kernel":
// JSON: "init": "zero",
// JSON-NEXT: "name": "result2",
