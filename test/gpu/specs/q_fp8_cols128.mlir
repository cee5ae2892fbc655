// GPU test spec: fp8 e4m3 in 128x1 column blocks with f32 scales (the
// transposed blockwise cast), transposed output: blocks taller than 32 rows
// are cast by 32-row segments whose maxima meet through shared memory.
func.func @q_fp8_cols128(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [128, 1], rule = amax, scale = f32>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}
