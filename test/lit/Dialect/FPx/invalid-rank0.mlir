// RUN: not fpx-opt %s -split-input-file 2>&1 | FileCheck %s

// Rank-0 tensors, which the ODS types allow, are rejected with a located
// error (`not` fails on a crash).

// CHECK: invalid-rank0.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
func.func @hadamard_rank0(%x: tensor<f32>) -> tensor<f32> {
  %h = fpx.hadamard %x {size = 2} : tensor<f32>
  return %h : tensor<f32>
}
