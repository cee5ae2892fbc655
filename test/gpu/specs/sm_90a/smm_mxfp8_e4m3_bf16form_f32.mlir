// MXFP8 x MXFP8 scaled GEMM (ScaledMatmulKernelTest.cpp, Mxfp8...): e4m3 x e4m3, f32 out,
// in the bf16 form (the fpx.mx_bf16 attribute; the default is the promoted
// fp8 form): the codes dequantized exactly to bf16 with their E8M0 [1, 32]
// scales on their way into shared memory, bf16 wgmma, no promotion. sm_90a
// only (wgmma). bench/gemm/scaled.py --artifacts times it beside the default.
func.func @smm_mxfp8_e4m3_bf16form_f32(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, fpx.mx_bf16} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
