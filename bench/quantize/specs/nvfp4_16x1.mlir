// NVFP4 along columns (16x1 blocks: the GEMM's other operand, e.g. the
// weights' transpose in the backward pass): the tensor amax (one reduction
// kernel, never read back to the host), then the cast written transposed as
// codes (K, M/2) packed fp4x2 and ue4m3 scales (K, M/16).
func.func @nvfp4_16x1(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, transposed,
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
