// GPU test spec: MXFP6 e2m3 one code per byte, floor
func.func @q_mxfp6_e2m3_bytes(%x: tensor<?x?xbf16>) -> (tensor<?x?xf6E2M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf6E2M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf6E2M3FN>, tensor<?x?xf8E8M0FNU>
}
