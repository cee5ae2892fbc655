// GPU test spec: delayed scaling of the random Hadamard transform: NVFP4 1x16
// + rs of H x from a given amax, returning the amax of H x (both fuse the
// transform; the amax fuses into the cast).
func.func @ao_nvfp4_rht_rs(%x: tensor<?x?xbf16>, %prev: tensor<f32>, %seed: i64)
    -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %h = fpx.hadamard %x {size = 16, seed = 5} : tensor<?x?xbf16>
  %q, %s = fpx.quantize %h amax(%prev : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  %a = fpx.amax %h : tensor<?x?xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
