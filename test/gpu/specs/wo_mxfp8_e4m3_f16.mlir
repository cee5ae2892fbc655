// Weight-only linear: y = x * dequantize(w)^T, w's f8E4M3FN codes pre-packed as
// mma_tiles with row-major E8M0 scales of 32 along K (MX; MatmulKernelTest.cpp).
func.func @wo_mxfp8_e4m3_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xf8E4M3FN>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xf8E4M3FN> scales(%s : tensor<?x?xf8E8M0FNU>) {
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
