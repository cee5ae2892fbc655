// Weight-only linear: y = x * dequantize(w)^T, w's e2m1 codes pre-packed as
// 4-bit mma_tiles (K/2 bytes a row) with row-major E8M0 scales of 32 along K
// (MXFP4; MatmulKernelTest.cpp).
func.func @wo_mxfp4_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xi8> scales(%s : tensor<?x?xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}
