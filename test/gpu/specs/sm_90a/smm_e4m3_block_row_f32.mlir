// fp8 scaled GEMM (ScaledMatmulKernelTest.cpp): A blockwise [1, 128] (in the
// main loop), B per row (in the epilogue). sm_90a only (wgmma).
func.func @smm_e4m3_block_row_f32(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
