// RUN: fpxc compile %examples/nvfp4_experts.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/nvfp4_experts.mlir --target sm_100a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: rm -rf %t && mkdir -p %t && fpxc compile %examples/nvfp4_experts.mlir --target sm_90a -o %t/ex
// RUN: FileCheck %s --check-prefix=JSON < %t/ex.json

// docs/examples/nvfp4_experts.mlir: NVFP4 over a batch of experts with an
// amax (and, back, a g) per expert, one launch each way. The cast emulates
// e2m1 rs on sm_90a and converts natively with cvt.rs on sm_100a; both
// kernels take the expert's element count as their last parameter.

// CHECK-LABEL: .visible .entry nvfp4_experts_quantize_quantize0(
// CHECK: .param .u64 nvfp4_experts_quantize_quantize0_param_7
// SM90-NOT: cvt.rs
// SM100: cvt.rs.satfinite.e2m1x4.f32
// CHECK-LABEL: .visible .entry nvfp4_experts_dequantize_dequantize0(
// CHECK: .param .u64 nvfp4_experts_dequantize_dequantize0_param_6
// CHECK-LABEL: .visible .entry nvfp4_experts_quantize_two_pass_amax0(
// CHECK: %ctaid.y
// CHECK-LABEL: .visible .entry nvfp4_experts_quantize_two_pass_global_scale1(
// CHECK-LABEL: .visible .entry nvfp4_experts_quantize_two_pass_quantize2(

// JSON-DAG: "message": "dimension 0 of arg1 must be arg0_0 (one amax per matrix of arg0)"
// JSON-DAG: "message": "a per-matrix amax needs matrices of a multiple of 8192 elements; arg0's have arg0_1*arg0_2"
// JSON-DAG: "message": "dimension 0 of arg2 must be arg0_0 (one global_scale per matrix of result0)"
// JSON-DAG: "name": "matrix"
// JSON-DAG: "min(cdiv(arg0_1*arg0_2, 2048), 512)",
// JSON-DAG: "(1-min(arg0_0*arg0_1*arg0_2, 1))*cdiv(arg0_0, 256)",
