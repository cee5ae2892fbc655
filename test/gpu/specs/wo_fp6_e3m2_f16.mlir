// Weight-only linear: y = x * dequantize(w)^T, w's e3m2fn codes (FP6-LLM)
// pre-packed as 6-bit mma_tiles (K * 3/4 bytes a row) with one f32 scale per
// output channel (MatmulKernelTest.cpp).
func.func @wo_fp6_e3m2_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xi8>, %s: tensor<?x1xf32>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xi8> scales(%s : tensor<?x1xf32>) {
      rhs_format = #fpx.format<e3m2fn>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
