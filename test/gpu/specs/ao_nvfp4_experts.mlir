// GPU test spec: delayed scaling of a batch of NVFP4 matrices (experts), one
// given amax per matrix, returning each matrix's amax too: fused into the
// one-launch per-matrix cast (each tile's maximum to its matrix's).
func.func @ao_nvfp4_experts(%x: tensor<?x?x?xbf16>, %prev: tensor<?xf32>)
    -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  %a = fpx.amax %x : tensor<?x?x?xbf16> -> tensor<?xf32>
  return %q, %s, %a : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>
}
