// GPU test spec: MXFP8 e5m2 from f16, 1x32, even
func.func @q_mxfp8_e5m2_even_f16(%x: tensor<?x?xf16>) -> (tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = even, scale = f8E8M0FNU>}
    : tensor<?x?xf16> -> tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>
}
