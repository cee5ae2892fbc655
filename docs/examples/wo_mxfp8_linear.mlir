// A weight-only MXFP8 linear (decode): y = x * dequantize(w)^T with bf16 x
// and y, the weight's e4m3 codes pre-packed as mma_tiles (docs/formats.md)
// and its E8M0 scales (one per row and 32 of K) row-major, as fpx.quantize
// writes them. fpx-convert-to-gpu lowers it to the decode GEMM kernels: each
// 32-block of K goes to a fresh fp32 partial sum that is added to the
// accumulator times its scale (exact for every scale).
func.func @wo_mxfp8_linear(%x: tensor<?x4096xbf16>, %w: tensor<14336x4096xf8E4M3FN>,
                           %s: tensor<14336x128xf8E8M0FNU>) -> tensor<?x14336xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<14336x4096xf8E4M3FN>
      scales(%s : tensor<14336x128xf8E8M0FNU>) {
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x14336xbf16>
  return %y : tensor<?x14336xbf16>
}
