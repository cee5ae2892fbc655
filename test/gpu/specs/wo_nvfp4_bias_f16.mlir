// Weight-only NVFP4 linear with an f32 bias: y = x * dequantize(w)^T + bias
// (the tensor scale g and the bias applied in f32 in the epilogue, before
// the cast to f16; MatmulKernelTest.cpp).
func.func @wo_nvfp4_bias_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xi8>, %s: tensor<?x?xf8E4M3FN>, %g: tensor<f32>, %bias: tensor<?xf32>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xi8> scales(%s : tensor<?x?xf8E4M3FN>) global_scale(%g : tensor<f32>) bias(%bias : tensor<?xf32>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
