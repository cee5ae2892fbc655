// A weight-only MXFP6 linear (decode) with bf16 activations: the weight's
// e2m3 codes pre-packed as 6-bit mma_tiles (K * 3/4 bytes a row: the low 4
// bits as 4-bit tiles, the high 2 bits in a plane a lane reads with one
// 64-bit load a tile, docs/formats.md), its E8M0 scales (one per row and 32
// of K) row-major. The codes are reassembled from the two planes and decoded
// to bf16 by shift/and/or and one exact multiply by 2^126; the scales are
// applied to fp32 partial sums per 32-block.
func.func @wo_mxfp6_linear(%x: tensor<?x4096xbf16>, %w: tensor<14336x3072xi8>,
                           %s: tensor<14336x128xf8E8M0FNU>) -> tensor<?x14336xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<14336x3072xi8>
      scales(%s : tensor<14336x128xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m3fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x14336xbf16>
  return %y : tensor<?x14336xbf16>
}
