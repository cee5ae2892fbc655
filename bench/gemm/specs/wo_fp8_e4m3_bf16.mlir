// Weight-only linear: y = x * dequantize(w)^T, w pre-packed as mma_tiles
// with one f32 scale per output channel (bench/gemm/run.py).
func.func @wo_fp8_e4m3_bf16(%x: tensor<?x?xbf16>, %w: tensor<?x?xf8E4M3FN>, %s: tensor<?x1xf32>) -> tensor<?x?xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xbf16>, %w : tensor<?x?xf8E4M3FN> scales(%s : tensor<?x1xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
