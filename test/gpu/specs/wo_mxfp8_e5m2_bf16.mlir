// Weight-only linear: y = x * dequantize(w)^T, w's f8E5M2 codes pre-packed as
// mma_tiles with row-major E8M0 scales of 32 along K (MX; MatmulKernelTest.cpp).
func.func @wo_mxfp8_e5m2_bf16(%x: tensor<?x?xbf16>, %w: tensor<?x?xf8E5M2>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xbf16>, %w : tensor<?x?xf8E5M2> scales(%s : tensor<?x?xf8E8M0FNU>) {
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
