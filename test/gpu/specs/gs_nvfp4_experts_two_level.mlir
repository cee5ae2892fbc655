// GPU test spec: NVFP4 over a batch of matrices (E, M, K) in two passes, each
// matrix with its own global scale: fpx.amax per matrix (grid y: the matrix),
// then the cast reading its matrix's amax and storing g per matrix.
func.func @gs_nvfp4_experts_two_level(%x: tensor<?x?x?xbf16>)
    -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>, tensor<?xf32>) {
  %a = fpx.amax %x : tensor<?x?x?xbf16> -> tensor<?xf32>
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  %g = fpx.global_scale %a : tensor<?xf32>
  return %q, %s, %g, %a : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>, tensor<?xf32>
}
