// fp8 scaled GEMM (ScaledMatmulKernelTest.cpp) with a bias: row scales and
// an f32 bias in the epilogue (scales, then bias, then the cast to bf16).
// sm_90a only (wgmma).
func.func @smm_e4m3_row_bias_bf16(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x1xf32>, %bias: tensor<?xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x1xf32>) bias(%bias : tensor<?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
