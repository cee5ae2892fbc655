// GPU test spec: NVFP4 1x16 over a batch of matrices (E, M, K) with one given
// amax per matrix (each matrix its own global scale) and stochastic rounding
// numbered over the whole batch: one launch; g per matrix
// stored by each matrix's first CTA (fpx.global_scale fused).
func.func @gs_nvfp4_experts_rs(%x: tensor<?x?x?xbf16>, %a: tensor<?xf32>, %seed: i64)
    -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  %g = fpx.global_scale %a : tensor<?xf32>
  return %q, %s, %g : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>
}
