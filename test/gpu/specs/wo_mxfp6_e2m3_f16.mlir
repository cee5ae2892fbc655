// Weight-only linear: y = x * dequantize(w)^T, w's e2m3fn codes pre-packed as
// 6-bit mma_tiles (K * 3/4 bytes a row: 4-bit low plane + 2-bit high plane)
// with row-major E8M0 scales of 32 along K (MXFP6; MatmulKernelTest.cpp).
func.func @wo_mxfp6_e2m3_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xi8> scales(%s : tensor<?x?xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m3fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
