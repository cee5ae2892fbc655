// GPU test spec: MXFP6 e3m2 fused unpack-dequantize from torchao #1810's
// interleaved 4+2, f32 out.
func.func @dq_mxfp6_e3m2_interleaved_f32(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf32> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}
