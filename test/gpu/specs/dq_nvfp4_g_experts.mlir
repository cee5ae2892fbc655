// GPU test spec: NVFP4 dequantize of a batch of matrices (E, M, K) with one
// global scale g per matrix (e.g. those a per-expert quantize derived from
// its amaxes), in one launch; bf16 out.
func.func @dq_nvfp4_g_experts(%q: tensor<?x?x?xi8>, %s: tensor<?x?x?xf8E4M3FN>, %g: tensor<?xf32>) -> tensor<?x?x?xbf16> {
  %x = fpx.dequantize %q, %s global_scale(%g : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN> -> tensor<?x?x?xbf16>
  return %x : tensor<?x?x?xbf16>
}
