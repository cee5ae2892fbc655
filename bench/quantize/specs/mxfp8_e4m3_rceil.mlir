// MXFP8 e4m3, 1x32 blocks along rows, NVIDIA `rceil` scale rule
// (ceil(log2(amax / 448))), e8m0 scales row-major [M, K/32].
func.func @mxfp8_e4m3_rceil(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
