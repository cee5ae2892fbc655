// GPU test spec: MXFP8 e4m3 in 32x32 blocks, floor, nonfinite = saturate.
func.func @q2d_mxfp8_32x32_floor_sat(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {nonfinite = #fpx.nonfinite<saturate>,
      scaling = #fpx.scaling<block = [32, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
