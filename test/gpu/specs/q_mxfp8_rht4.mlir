// GPU test spec: a 4-point transform stays inside one thread's 8 values.
func.func @q_mxfp8_rht4(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %h = fpx.hadamard %x {size = 4, seed = 2} : tensor<?x?xbf16>
  %q, %s = fpx.quantize %h {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
