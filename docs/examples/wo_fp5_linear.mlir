// A weight-only fp5 (e2m2, FP6-LLM's 5-bit format) linear (decode) with
// bf16 activations: the codes pre-packed as 5-bit mma_tiles (K * 5/8 bytes a
// row: the low 4 bits as 4-bit tiles, the sign bits in a plane a lane reads
// with one 32-bit load a tile, docs/formats.md) and one fp32 scale per
// output channel.
func.func @wo_fp5_linear(%x: tensor<?x4096xbf16>, %w: tensor<14336x2560xi8>,
                         %s: tensor<14336x1xf32>) -> tensor<?x14336xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<14336x2560xi8>
      scales(%s : tensor<14336x1xf32>) {
      rhs_format = #fpx.format<e2m2>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x14336xbf16>
  return %y : tensor<?x14336xbf16>
}
