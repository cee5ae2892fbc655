// A DeepSeek-V3 style blockwise FP8 GEMM (torch's scaled_mm with
// BlockWise1x128 x BlockWise128x128): C = (A * sa) x (B * sb)^T with e4m3 A
// (M x K, one fp32 scale per row and 128 K: sa is M x cdiv(K, 128)) and B
// (N x K, one fp32 scale per 128 x 128 block: sb is cdiv(N, 128) x
// cdiv(K, 128)), fp32 accumulation, bf16 out. fpx-convert-to-gpu lowers it
// to the Hopper kernel form of fp8_scaled_mm.mlir with the scales applied in
// the main loop: each 128-K wgmma partial sum is multiplied by sa * sb as
// it is added to the accumulator. sm_90a only.
func.func @fp8_blockwise_mm(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf32>,
                            %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf32>),
                         %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
