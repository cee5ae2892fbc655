// RUN: not fpx-opt %s -split-input-file 2>&1 | FileCheck %s
// XFAIL: *

// KNOWN BUG: the verifiers read shape.back() of rank-0 tensors, which the ODS
// types allow (RankedTensorOf): fpx-opt (and fpxc) crash with a segfault in
// HadamardOp::verify instead of reporting an error. `not` fails on a crash.
// Remove XFAIL when the verifier rejects rank 0 with a located error.

// CHECK: invalid-rank0.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
func.func @hadamard_rank0(%x: tensor<f32>) -> tensor<f32> {
  %h = fpx.hadamard %x {size = 2} : tensor<f32>
  return %h : tensor<f32>
}
