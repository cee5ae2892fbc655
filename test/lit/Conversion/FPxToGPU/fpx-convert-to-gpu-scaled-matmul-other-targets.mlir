// RUN: fpx-opt %s -verify-diagnostics -fpx-convert-to-gpu="chip=sm_100a" -split-input-file
// RUN: fpx-opt %s -verify-diagnostics -fpx-convert-to-gpu="chip=sm_89" -split-input-file

// The fp8 scaled GEMM has a kernel form for sm_90a only (wgmma); elsewhere
// the lowering refuses it, naming the op and the target.
func.func @tw(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x256xbf16> {
  // expected-error-re @+1 {{'fpx.scaled_matmul' op with fp8 operands needs wgmma (sm_90a); target sm_{{100a|89}} has no kernel form for it yet}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}
