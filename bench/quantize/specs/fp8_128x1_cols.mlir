// fp8 e4m3 in 128x1 column blocks of a (M, K) bf16 tensor with f32 scales
// (amax / 448), written transposed as (K, M) with scales (K, M/128): the
// blockwise recipe's cast of an activation for the weight-gradient GEMM.
// A block is four 32-row segments, their maxima met in shared memory.
func.func @fp8_128x1_cols(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [128, 1], rule = amax, scale = f32>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}
