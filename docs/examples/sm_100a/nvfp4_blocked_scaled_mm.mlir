// An NVFP4 GEMM whose e4m3 scales are in the blocked 128x4 layout that
// fpx.quantize writes with scale_layout = blocked_128x4 (and cuBLAS and the
// block-scaled tensor cores read): rows padded to 128 and scale columns to
// 4, stored as 128x4 tiles (fpx.swizzle_scales describes them). The rest as
// nvfp4_scaled_mm.mlir: e2m1 codes two a byte, an fp32 tensor scale per
// operand, fp32 accumulation, bf16 out. The padding is never applied.
// Targets: sm_100a (tcgen05, the scales gathered into tensor memory's
// layout) and sm_120a (mma.sync), compiled and accepted by ptxas, and
// sm_90a (the bf16 form, run on an H200: docs/results/scaled-gemm.md);
// docs/examples/sm_120a/ and sm_90a/ link here.
func.func @nvfp4_blocked_scaled_mm(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>,
                                   %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>)
    -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>),
                         %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>, rhs_scale_layout = #fpx.layout<blocked_128x4>}
      -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
