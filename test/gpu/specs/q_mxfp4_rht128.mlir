// GPU test spec: MXFP4 after a 128-point random Hadamard transform (the
// thread-owns-32-elements cast: butterflies up to 16 in registers, 32 and
// 64 across lanes).
func.func @q_mxfp4_rht128(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %h = fpx.hadamard %x {size = 128, seed = 7} : tensor<?x?xbf16>
  %q, %s = fpx.quantize %h {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
