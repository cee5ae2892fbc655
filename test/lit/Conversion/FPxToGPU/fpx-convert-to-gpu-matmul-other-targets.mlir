// RUN: fpx-opt %s -fpx-convert-to-gpu="chip=sm_80" | FileCheck %s
// RUN: fpx-opt %s -fpx-convert-to-gpu="chip=sm_89" | FileCheck %s
// RUN: fpx-opt %s -fpx-convert-to-gpu="chip=sm_90" | FileCheck %s
// RUN: fpx-opt %s -fpx-convert-to-gpu="chip=sm_100a" | FileCheck %s

// Without wgmma (everything but sm_90a) a weight-only fp8 linear keeps the
// four decode kernels for every M: the 64-token one takes all M above 32.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: kernel = "wo_wo_decode3"}]
// CHECK: gpu.func @wo_wo_decode3(
// CHECK-SAME: "min(1, max(0, arg0_0 - 32))*cdiv(arg0_0, 64)"
// CHECK-NOT: wgmma
// CHECK-NOT: gpu.func
func.func @wo(%x: tensor<?x4096xbf16>, %w: tensor<1024x4096xf8E4M3FN>, %s: tensor<1024x1xf32>) -> tensor<?x1024xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<1024x4096xf8E4M3FN> scales(%s : tensor<1024x1xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x1024xbf16>
  return %y : tensor<?x1024xbf16>
}
