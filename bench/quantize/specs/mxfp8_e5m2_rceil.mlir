// MXFP8 e5m2 (the gradients' format), 1x32 blocks along rows, NVIDIA `rceil`
// scale rule (ceil(log2(amax / 57344))), e8m0 scales row-major [M, K/32].
func.func @mxfp8_e5m2_rceil(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>
}
