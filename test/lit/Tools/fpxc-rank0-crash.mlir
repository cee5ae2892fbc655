// RUN: not fpxc compile %s --target sm_90a --emit ptx -o - 2>&1 | FileCheck %s

// A rank-0 tensor is a located error with exit status 1 (it once crashed the
// verifiers that read shape.back()).
// CHECK: fpxc-rank0-crash.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %h = fpx.hadamard %x {size = 2} : tensor<f32>
  return %h : tensor<f32>
}
