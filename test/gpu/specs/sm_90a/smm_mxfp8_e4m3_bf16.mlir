// MXFP8 x MXFP8 scaled GEMM (ScaledMatmulKernelTest.cpp, Mxfp8...): e4m3 x e4m3, bf16 out.
// E8M0 [1, 32] scales on both sides, promoted every k32 in the main loop.
// sm_90a only (wgmma).
func.func @smm_mxfp8_e4m3_bf16(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
