// fp8 scaled GEMM (ScaledMatmulKernelTest.cpp), blockwise scales: A [1, 128]
// (sa M x cdiv(K, 128)), B [1, 128] (sb N x cdiv(K, 128)). sm_90a only (wgmma).
func.func @smm_e5m2_e4m3_block1_f32(%a: tensor<?x?xf8E5M2>, %sa: tensor<?x?xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E5M2> scales(%sa : tensor<?x?xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
