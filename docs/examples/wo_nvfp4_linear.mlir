// A weight-only NVFP4 linear (decode): the weight's e2m1 codes pre-packed as
// 4-bit mma_tiles (K/2 bytes a row), its ue4m3 scales (one per row and 16 of
// K) row-major, and the fp32 tensor scale g that fpx.quantize returns
// (global_scale). Each decoded code pair is multiplied by its block scale in
// bf16 (exact: e2m1 x ue4m3 has at most 6 significant bits); g multiplies
// the fp32 result.
func.func @wo_nvfp4_linear(%x: tensor<?x4096xbf16>, %w: tensor<14336x2048xi8>,
                           %s: tensor<14336x256xf8E4M3FN>, %g: tensor<f32>)
    -> tensor<?x14336xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<14336x2048xi8>
      scales(%s : tensor<14336x256xf8E4M3FN>) global_scale(%g : tensor<f32>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x14336xbf16>
  return %y : tensor<?x14336xbf16>
}
