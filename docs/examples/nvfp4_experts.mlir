// NVFP4 for a batch of expert weights (E, N, K), each expert with its own
// global scale: the amaxes come in one per expert (kept from an earlier step,
// or reduced by the caller), each cast CTA reads its expert's and derives
// g = amax / (448 * 6) itself; stochastic rounding draws its bits by the
// element's index in the whole batch. One launch for all experts. Without
// kept amaxes, fpx.amax with a rank-1 result reduces each expert first (a
// second pass), and fpx.global_scale of the amaxes, fused into the cast,
// hands out the E global scales a grouped GEMM takes. Dequantize takes the E
// global scales the same way. All need experts of a multiple of 8192
// elements (the launch checks it).
func.func @nvfp4_experts_quantize(%w: tensor<?x?x?xbf16>, %amax: tensor<?xf32>, %seed: i64)
    -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %w amax(%amax : tensor<?xf32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  return %q, %s : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
}

func.func @nvfp4_experts_dequantize(%q: tensor<?x?x?xi8>, %s: tensor<?x?x?xf8E4M3FN>,
                                    %g: tensor<?xf32>) -> tensor<?x?x?xbf16> {
  %y = fpx.dequantize %q, %s global_scale(%g : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN> -> tensor<?x?x?xbf16>
  return %y : tensor<?x?x?xbf16>
}

func.func @nvfp4_experts_quantize_two_pass(%w: tensor<?x?x?xbf16>, %seed: i64)
    -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>) {
  %amax = fpx.amax %w : tensor<?x?x?xbf16> -> tensor<?xf32>
  %g = fpx.global_scale %amax : tensor<?xf32>
  %q, %s = fpx.quantize %w amax(%amax : tensor<?xf32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  return %q, %s, %g : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>
}
