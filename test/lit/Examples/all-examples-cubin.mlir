// REQUIRES: ptxas
// RUN: rm -rf %t && %python %S/Inputs/compile_examples.py fpxc %examples %t --emit cubin sm_80 sm_89 sm_90a sm_100a sm_120a | FileCheck %s

// Every docs/examples/*.mlir spec compiles to a cubin that ptxas accepts for
// each target (the script globs the directory, so new examples are covered
// without a new RUN line; docs/examples/<chip>/ holds specs for that chip
// only). The named examples must be among them.

// CHECK: examples:
// CHECK-NOT: FAIL
// CHECK-DAG: OK fp8_per_tensor sm_80
// CHECK-DAG: OK fp8_per_tensor sm_89
// CHECK-DAG: OK fp8_per_tensor sm_90a
// CHECK-DAG: OK fp8_per_tensor sm_100a
// CHECK-DAG: OK fp8_per_tensor sm_120a
// CHECK-DAG: OK mxfp8_rows sm_80
// CHECK-DAG: OK mxfp8_rows sm_89
// CHECK-DAG: OK mxfp8_rows sm_90a
// CHECK-DAG: OK mxfp8_rows sm_100a
// CHECK-DAG: OK mxfp8_rows sm_120a
// CHECK-DAG: OK wo_fp8_linear sm_80
// CHECK-DAG: OK wo_fp8_linear sm_89
// CHECK-DAG: OK wo_fp8_linear sm_90a
// CHECK-DAG: OK wo_fp8_linear sm_100a
// CHECK-DAG: OK wo_fp8_linear sm_120a
// CHECK-DAG: OK wo_mxfp8_linear sm_80
// CHECK-DAG: OK wo_mxfp8_linear sm_89
// CHECK-DAG: OK wo_mxfp8_linear sm_90a
// CHECK-DAG: OK wo_mxfp8_linear sm_100a
// CHECK-DAG: OK wo_mxfp8_linear sm_120a
// CHECK-DAG: OK wo_mxfp4_linear sm_80
// CHECK-DAG: OK wo_mxfp4_linear sm_89
// CHECK-DAG: OK wo_mxfp4_linear sm_90a
// CHECK-DAG: OK wo_mxfp4_linear sm_100a
// CHECK-DAG: OK wo_mxfp4_linear sm_120a
// CHECK-DAG: OK wo_mxfp6_linear sm_80
// CHECK-DAG: OK wo_mxfp6_linear sm_89
// CHECK-DAG: OK wo_mxfp6_linear sm_90a
// CHECK-DAG: OK wo_mxfp6_linear sm_100a
// CHECK-DAG: OK wo_mxfp6_linear sm_120a
// CHECK-DAG: OK wo_fp6_linear sm_80
// CHECK-DAG: OK wo_fp6_linear sm_89
// CHECK-DAG: OK wo_fp6_linear sm_90a
// CHECK-DAG: OK wo_fp6_linear sm_100a
// CHECK-DAG: OK wo_fp6_linear sm_120a
// CHECK-DAG: OK wo_fp5_linear sm_80
// CHECK-DAG: OK wo_fp5_linear sm_89
// CHECK-DAG: OK wo_fp5_linear sm_90a
// CHECK-DAG: OK wo_fp5_linear sm_100a
// CHECK-DAG: OK wo_fp5_linear sm_120a
// CHECK-DAG: OK wo_nvfp4_linear sm_80
// CHECK-DAG: OK wo_nvfp4_linear sm_89
// CHECK-DAG: OK wo_nvfp4_linear sm_90a
// CHECK-DAG: OK wo_nvfp4_linear sm_100a
// CHECK-DAG: OK wo_nvfp4_linear sm_120a
// CHECK-DAG: OK mxfp6_interleaved sm_80
// CHECK-DAG: OK mxfp6_interleaved sm_89
// CHECK-DAG: OK mxfp6_interleaved sm_90a
// CHECK-DAG: OK mxfp6_interleaved sm_100a
// CHECK-DAG: OK mxfp6_interleaved sm_120a
// CHECK-DAG: OK fp8_scaled_mm sm_90a
// CHECK-DAG: OK fp8_grouped_mm sm_90a
// CHECK-DAG: OK fp8_blockwise_mm sm_90a
// CHECK-DAG: OK mxfp8_scaled_mm sm_100a
// CHECK-DAG: OK nvfp4_scaled_mm sm_100a
// CHECK-DAG: OK mxfp8_scaled_mm sm_120a
// CHECK-DAG: OK nvfp4_scaled_mm sm_120a
// CHECK-DAG: OK nvfp4_blocked_scaled_mm sm_90a
// CHECK-DAG: OK nvfp4_blocked_scaled_mm sm_100a
// CHECK-DAG: OK nvfp4_blocked_scaled_mm sm_120a
// CHECK-NOT: FAIL
// CHECK: failed: 0
