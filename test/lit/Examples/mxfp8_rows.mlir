// RUN: fpxc compile %examples/mxfp8_rows.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/mxfp8_rows.mlir --target sm_100a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: fpxc compile %examples/mxfp8_rows.mlir --target sm_90a --emit mlir -o - | FileCheck %s --check-prefix=MLIR

// docs/examples/mxfp8_rows.mlir: MXFP8 1x32 row blocks with the scale swizzle
// fused into one quantize kernel.

// SM90: .version 8.0
// SM90: .target sm_90a
// SM100: .version 8.7
// SM100: .target sm_100a
// CHECK-LABEL: .visible .entry mxfp8_rows_quantize0(
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK-NOT: .entry

// MLIR: gpu.module @fpx_kernels
// MLIR-SAME: {dtype = "f8e8m0fnu", init = "zero", name = "result1", shape = ["cdiv(arg0_0, 128)*128", "cdiv(arg0_1/32, 4)*4"]}
// MLIR-SAME: temps = []
// MLIR: gpu.func @mxfp8_rows_quantize0
// MLIR-NOT: gpu.func
