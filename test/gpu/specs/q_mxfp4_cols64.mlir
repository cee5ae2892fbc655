// GPU test spec: MXFP4-style e2m1 in 64x1 column blocks of bf16 (the
// Hopper-tuned kernels: two 32-row segments a block, in the 256-row tile and
// in the narrow tile), packed fp4x2, transposed output.
func.func @q_mxfp4_cols64(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
