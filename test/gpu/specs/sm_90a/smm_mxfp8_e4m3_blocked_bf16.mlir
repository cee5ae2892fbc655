// MXFP8 x MXFP8 scaled GEMM (ScaledMatmulKernelTest.cpp, Mxfp8...) with both
// operands' E8M0 [1, 32] scales in the blocked 128x4 layout (fpx.quantize's
// scale_layout = blocked_128x4): e4m3 x e4m3, bf16 out, the promoted form.
func.func @smm_mxfp8_e4m3_blocked_bf16(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>, rhs_scale_layout = #fpx.layout<blocked_128x4>}
      -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
