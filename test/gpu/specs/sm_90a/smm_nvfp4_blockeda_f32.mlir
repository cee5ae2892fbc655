// NVFP4 x NVFP4 scaled GEMM on sm_90a (ScaledMatmulKernelTest.cpp, Nvfp4...)
// with A's e4m3 scales in the blocked 128x4 layout and B's row-major (the
// consumers pick each side's layout per row group), f32 out.
func.func @smm_nvfp4_blockeda_f32(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>, %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>), %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
