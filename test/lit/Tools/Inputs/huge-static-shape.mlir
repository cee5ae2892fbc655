func.func @f(%x: tensor<9223372036854775807x32xbf16>) -> (tensor<9223372036854775807x32xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<9223372036854775807x32xbf16> -> tensor<9223372036854775807x32xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<9223372036854775807x32xf8E4M3FN>, tensor<1x1xf32>
}
