// fp8 e4m3 cast with one fp32 scale a row (block [1, *], scale = row amax /
// 448): the rowwise recipe torch._scaled_mm takes (scales (M, 1)). The
// input is read once: rows of up to 2048 elements by a team of threads into
// registers, longer ones staged whole in shared memory; the row amax is
// reduced on chip, then the row converted.
func.func @fp8_rowwise(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x1xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x1xf32>
}
