// GPU test spec: MXFP8 e4m3 codes held in i8 (format attribute), f16 out.
func.func @dq_mxfp8_i8_f16(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf16> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e4m3fn>,
      scaling = #fpx.scaling<block = [1, 32], rule = ceil, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xf16>
  return %x : tensor<?x?xf16>
}
