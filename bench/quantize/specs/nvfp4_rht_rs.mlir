// NVFP4 for gradients (the NVFP4 training recipe): 16-point random Hadamard
// transform (seeded signs) fused into both passes, the per-tensor amax of
// the transformed tensor (one reduction kernel, never read back to the
// host), 1x16 blocks with two-level scales, stochastic rounding from Philox
// seeded by the i64 argument.
func.func @nvfp4_rht_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %h = fpx.hadamard %x {size = 16, seed = 5} : tensor<?x?xbf16>
  %a = fpx.amax %h : tensor<?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %h amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
