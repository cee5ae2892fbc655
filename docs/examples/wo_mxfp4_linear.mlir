// A weight-only MXFP4 linear (decode) with f16 activations: the weight's
// e2m1 codes pre-packed as 4-bit mma_tiles (K/2 bytes a row: one 16-byte
// load is a lane's fragments of four MMA steps, docs/formats.md), its E8M0
// scales (one per row and 32 of K) row-major. The codes decode to f16 by
// shift/and/or and one exact multiply by 2^14; the scales are applied to
// fp32 partial sums per 32-block.
func.func @wo_mxfp4_linear(%x: tensor<?x4096xf16>, %w: tensor<14336x2048xi8>,
                           %s: tensor<14336x128xf8E8M0FNU>) -> tensor<?x14336xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xf16>, %w : tensor<14336x2048xi8>
      scales(%s : tensor<14336x128xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x14336xf16>
  return %y : tensor<?x14336xf16>
}
