// RUN: fpxc compile %examples/nvfp4_roundtrip.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/nvfp4_roundtrip.mlir --target sm_100a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: rm -rf %t && mkdir -p %t && fpxc compile %examples/nvfp4_roundtrip.mlir --target sm_90a -o %t/nv
// RUN: FileCheck %s --check-prefix=JSON < %t/nv.json

// docs/examples/nvfp4_roundtrip.mlir: NVFP4 quantize returning its global
// scale g (stored by the cast; a one-thread kernel only for empty inputs),
// and the dequantize that takes g. sm_90a emulates e2m1 in integers; sm_100a
// converts natively.

// CHECK-LABEL: .visible .entry nvfp4_quantize_amax0(
// CHECK-LABEL: .visible .entry nvfp4_quantize_global_scale1(
// CHECK-LABEL: .visible .entry nvfp4_quantize_quantize2(
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// SM90-NOT: cvt.rn.satfinite.e2m1x2.f32
// SM100: cvt.rn.satfinite.e2m1x2.f32
// CHECK-LABEL: .visible .entry nvfp4_dequantize_dequantize0(

// JSON-DAG: "name": "nvfp4_quantize"
// JSON-DAG: "name": "nvfp4_dequantize"
// JSON-DAG: "name": "result2"
// JSON-DAG: "1-min(arg0_0*arg0_1, 1)"
// JSON-DAG: "name": "nvfp4_dequantize_dequantize0"
