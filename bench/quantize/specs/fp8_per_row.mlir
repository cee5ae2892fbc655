// fp8 e4m3 with one fp32 scale a row (block [1, *]): the rowwise recipe
// torch._scaled_mm takes. One kernel; the row is read once.
func.func @fp8_per_row(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x1xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x1xf32>
}
