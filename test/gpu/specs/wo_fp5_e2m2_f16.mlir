// Weight-only linear: y = x * dequantize(w)^T, w's e2m2 codes (FP6-LLM's
// fp5) pre-packed as 5-bit mma_tiles (K * 5/8 bytes a row: 4-bit low plane +
// 1-bit high plane) with one f32 scale per output channel
// (MatmulKernelTest.cpp).
func.func @wo_fp5_e2m2_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xi8>, %s: tensor<?x1xf32>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xi8> scales(%s : tensor<?x1xf32>) {
      rhs_format = #fpx.format<e2m2>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
