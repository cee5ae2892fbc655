// MXFP8 x MXFP8 scaled GEMM (ScaledMatmulKernelTest.cpp, Mxfp8...) in the
// bf16 form (fpx.mx_bf16), A's E8M0 scales row-major and B's in the blocked
// 128x4 layout: one layout per side, each read as it is. f32 out.
func.func @smm_mxfp8_e4m3_blockedb_bf16form_f32(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scale_layout = #fpx.layout<blocked_128x4>, fpx.mx_bf16} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
