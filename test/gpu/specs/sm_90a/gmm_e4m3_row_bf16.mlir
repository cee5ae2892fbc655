// fp8 grouped GEMM, the MoE forward (GroupedMatmulKernelTest.cpp): sm_90a only (wgmma).
func.func @gmm_e4m3_row_bf16(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x1xf32>, %b: tensor<?x?x?xf8E4M3FN>, %sb: tensor<?x?x1xf32>, %offs: tensor<?xi32>) -> tensor<?x?xbf16> {
  %y = fpx.grouped_matmul %a, %b offsets(%offs) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x?xf8E4M3FN>, tensor<?x?x?xf8E4M3FN>, tensor<?xi32>, tensor<?x1xf32>, tensor<?x?x1xf32> -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
