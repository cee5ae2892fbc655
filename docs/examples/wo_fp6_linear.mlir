// A weight-only FP6-LLM style linear (decode) with f16 activations: the
// weight's e3m2 codes pre-packed as 6-bit mma_tiles (K * 3/4 bytes a row,
// docs/formats.md) and one fp32 scale per output channel. The codes decode
// to f16 by shift/and/or and one exact multiply by 2^12 (subnormal codes
// included, no branch); the channel scale multiplies the fp32 result.
func.func @wo_fp6_linear(%x: tensor<?x4096xf16>, %w: tensor<14336x3072xi8>,
                         %s: tensor<14336x1xf32>) -> tensor<?x14336xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xf16>, %w : tensor<14336x3072xi8>
      scales(%s : tensor<14336x1xf32>) {
      rhs_format = #fpx.format<e3m2fn>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x14336xf16>
  return %y : tensor<?x14336xf16>
}
