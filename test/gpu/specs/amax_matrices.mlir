// GPU test spec: one amax per matrix of a batch (E, M, K), grid y the
// matrix; matrices of any multiple of 8 elements.
func.func @amax_matrices(%x: tensor<?x?x?xbf16>) -> tensor<?xf32> {
  %a = fpx.amax %x : tensor<?x?x?xbf16> -> tensor<?xf32>
  return %a : tensor<?xf32>
}
