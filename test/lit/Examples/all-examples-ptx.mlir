// RUN: rm -rf %t && %python %S/Inputs/compile_examples.py fpxc %examples %t --emit ptx sm_80 sm_86 sm_89 sm_90 sm_90a sm_100a sm_103a sm_120a sm_121a | FileCheck %s

// Every docs/examples/*.mlir spec compiles to PTX for every target of the
// table (no ptxas needed), and those of docs/examples/<chip> for their chip.

// CHECK: examples:
// CHECK-DAG: OK fp8_scaled_mm sm_90a
// CHECK-DAG: OK fp8_grouped_mm sm_90a
// CHECK-DAG: OK fp8_blockwise_mm sm_90a
// CHECK-DAG: OK mxfp8_scaled_mm sm_90a
// CHECK-DAG: OK mxfp8_scaled_mm sm_100a
// CHECK-DAG: OK nvfp4_scaled_mm sm_100a
// CHECK-DAG: OK mxfp8_scaled_mm sm_120a
// CHECK-DAG: OK nvfp4_scaled_mm sm_120a
// CHECK-DAG: OK nvfp4_blocked_scaled_mm sm_90a
// CHECK-DAG: OK nvfp4_blocked_scaled_mm sm_100a
// CHECK-DAG: OK nvfp4_blocked_scaled_mm sm_120a
// CHECK-NOT: FAIL
// CHECK: failed: 0
