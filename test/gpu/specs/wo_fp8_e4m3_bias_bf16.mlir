// Weight-only linear with a bias: y = x * dequantize(w)^T + bias, w pre-packed
// as mma_tiles with one f32 scale per output channel, a bf16 bias added in
// f32 in the epilogue (MatmulKernelTest.cpp).
func.func @wo_fp8_e4m3_bias_bf16(%x: tensor<?x?xbf16>, %w: tensor<?x?xf8E4M3FN>, %s: tensor<?x1xf32>, %bias: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xbf16>, %w : tensor<?x?xf8E4M3FN> scales(%s : tensor<?x1xf32>) bias(%bias : tensor<?xbf16>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
