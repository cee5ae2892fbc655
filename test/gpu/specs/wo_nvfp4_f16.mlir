// Weight-only linear: y = x * dequantize(w)^T, w's e2m1 codes pre-packed as
// 4-bit mma_tiles (K/2 bytes a row) with row-major ue4m3 scales of 16 along
// K and the fp32 tensor scale g (NVFP4; MatmulKernelTest.cpp).
func.func @wo_nvfp4_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xi8>, %s: tensor<?x?xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xi8> scales(%s : tensor<?x?xf8E4M3FN>) global_scale(%g : tensor<f32>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
