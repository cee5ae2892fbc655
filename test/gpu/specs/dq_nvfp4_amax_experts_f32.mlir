// GPU test spec: NVFP4 dequantize of a batch of matrices (E, M, K) with one
// amax per matrix (each matrix's g derived from its own), in one launch;
// f32 out.
func.func @dq_nvfp4_amax_experts_f32(%q: tensor<?x?x?xi8>, %s: tensor<?x?x?xf8E4M3FN>, %a: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %x = fpx.dequantize %q, %s amax(%a : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN> -> tensor<?x?x?xf32>
  return %x : tensor<?x?x?xf32>
}
