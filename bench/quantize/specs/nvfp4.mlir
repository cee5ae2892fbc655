// NVFP4: per-tensor amax (one reduction kernel, never read back to the host),
// then 1x16 blocks with ue4m3 block scales relative to g = amax / 2688, e2m1
// codes packed fp4x2. Returns the codes, row-major scales [M, K/16] and amax.
func.func @nvfp4(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
