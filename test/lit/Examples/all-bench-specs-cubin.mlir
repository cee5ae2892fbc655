// REQUIRES: ptxas
// RUN: rm -rf %t && %python %S/Inputs/compile_examples.py fpxc %bench_specs %t --emit cubin sm_80 sm_89 sm_90a sm_100a sm_120a | FileCheck %s

// Every benchmark spec (bench/quantize/specs/*.mlir, the cases the issue's
// benchmark times on sm_90a) compiles to a cubin that ptxas accepts for each
// target of the issue, so that a spec added there cannot break a target
// unnoticed. The named specs must be among them.

// CHECK: examples:
// CHECK-NOT: FAIL
// CHECK-DAG: OK nvfp4_16x1_cast sm_100a
// CHECK-DAG: OK mxfp4_cols sm_80
// CHECK-DAG: OK mxfp8_e5m2_cols sm_120a
// CHECK-DAG: OK nvfp4_rht_rs sm_89
// CHECK: failed: 0
