// An FP8 training GEMM (torch._scaled_mm's tensorwise form): C = (A * sa) x
// (B * sb)^T with e4m3 A (M x K) and B (N x K), both K-major, one fp32 scale
// per tensor, fp32 accumulation, bf16 out. fpx-convert-to-gpu lowers it to
// the Hopper kernel form (TMA + mbarrier ring, producer and consumer
// warpgroups, wgmma, persistent tiles): sm_90a only, so it lives in the
// folder named after its target (the examples tests compile the specs of
// docs/examples for every target and those of docs/examples/<chip> for
// that chip).
func.func @fp8_scaled_mm(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<1x1xf32>,
                         %b: tensor<?x?xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<1x1xf32>),
                         %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
