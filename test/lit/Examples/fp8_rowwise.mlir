// RUN: fpxc compile %examples/fp8_rowwise.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/fp8_rowwise.mlir --target sm_100a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/fp8_rowwise.mlir --target sm_80 --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: rm -rf %t && mkdir -p %t && fpxc compile %examples/fp8_rowwise.mlir --target sm_90a -o %t/rw
// RUN: FileCheck %s --check-prefix=JSON < %t/rw.json

// docs/examples/fp8_rowwise.mlir: one kernel, one scale a row. The row's
// vectors are loaded once (16 bytes each), its amax reduced by a butterfly
// over the team's lanes and across the team's warps through shared memory
// (8 floats, one barrier), then converted from registers: native cvt on
// sm_90a and sm_100a, the exact integer emulation on sm_80. The grid: one
// CTA for 32 >> t rows (teams of 8 << t threads).

// CHECK-LABEL: .visible .entry fp8_rowwise_quantize_r0(
// CHECK: .shared .align 16 .b8 fp8_rowwise_quantize_r0_amax[32];
// CHECK: ld.global.v{{2.b64|4.b32}}
// CHECK: ld.global.v{{2.b64|4.b32}}
// CHECK: ld.global.v{{2.b64|4.b32}}
// CHECK: ld.global.v{{2.b64|4.b32}}
// SM90: max.NaN.xorsign.abs.bf16x2
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0;
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: cvt.rn.satfinite
// CHECK: st.global.b64

// JSON: "kernel": "fp8_rowwise_quantize_r0"
// JSON: "dtype": "f32",
// JSON: "shape": [
// JSON-NEXT: "arg0_0",
// JSON-NEXT: "1"
// JSON: "grid": [
// JSON-NEXT: "cdiv(arg0_0, 32/(1+min(1,((arg0_1)/8-1)/32))/(1+min(1,((arg0_1)/8-1)/64))/(1+min(1,((arg0_1)/8-1)/128))/(1+min(1,((arg0_1)/8-1)/256))/(1+min(1,((arg0_1)/8-1)/512)))",
