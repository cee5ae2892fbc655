// GPU test spec: fp8 e5m2 per row from f32 input (two 16-byte loads a vector).
func.func @q_fp8_e5m2_per_row_f32(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E5M2>, tensor<?x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x?xf32> -> tensor<?x?xf8E5M2>, tensor<?x1xf32>
  return %q, %s : tensor<?x?xf8E5M2>, tensor<?x1xf32>
}
