// GPU test spec: NVFP4 dequantize with e4m3 block scales only (g = 1), f32 out.
func.func @dq_nvfp4_single_f32(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E4M3FN>) -> tensor<?x?xf32> {
  %x = fpx.dequantize %q, %s {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xi8>, tensor<?x?xf8E4M3FN> -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}
