// fp8 grouped GEMM, e5m2 x e4m3 with f32 out (GroupedMatmulKernelTest.cpp): sm_90a only (wgmma).
func.func @gmm_e5m2_e4m3_row_f32(%a: tensor<?x?xf8E5M2>, %sa: tensor<?x1xf32>, %b: tensor<?x?x?xf8E4M3FN>, %sb: tensor<?x?x1xf32>, %offs: tensor<?xi32>) -> tensor<?x?xf32> {
  %y = fpx.grouped_matmul %a, %b offsets(%offs) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x?xf8E5M2>, tensor<?x?x?xf8E4M3FN>, tensor<?xi32>, tensor<?x1xf32>, tensor<?x?x1xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
