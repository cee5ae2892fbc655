// GPU test spec: MXFP4 after a 32-point random Hadamard transform.
func.func @q_mxfp4_rht(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %h = fpx.hadamard %x {size = 32, seed = 3} : tensor<?x?xbf16>
  %q, %s = fpx.quantize %h {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
