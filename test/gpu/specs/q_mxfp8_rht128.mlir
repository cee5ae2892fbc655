// GPU test spec: MXFP8 after a 128-point random Hadamard transform (16 lanes
// share each transform block).
func.func @q_mxfp8_rht128(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %h = fpx.hadamard %x {size = 128, seed = 11} : tensor<?x?xf32>
  %q, %s = fpx.quantize %h {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
