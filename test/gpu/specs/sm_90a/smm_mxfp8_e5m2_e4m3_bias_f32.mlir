// MXFP8 x MXFP8 scaled GEMM (ScaledMatmulKernelTest.cpp, Mxfp8...): e5m2 x e4m3 with a bf16 bias (added in f32 in the epilogue), f32 out.
// E8M0 [1, 32] scales on both sides, promoted every k32 in the main loop.
// sm_90a only (wgmma).
func.func @smm_mxfp8_e5m2_e4m3_bias_f32(%a: tensor<?x?xf8E5M2>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>, %bias: tensor<?xbf16>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E5M2> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) bias(%bias : tensor<?xbf16>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
