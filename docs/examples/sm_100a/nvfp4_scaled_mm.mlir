// An NVFP4 GEMM: C = (A * sa * ga) x (B * sb * gb)^T with e2m1 codes packed
// two a byte (fp4x2, first element in the low nibble: [M, K / 2] and
// [N, K / 2] bytes), e4m3 scales of 1x16 blocks (row-major [M, K / 16],
// [N, K / 16]) and an fp32 tensor scale per operand (fpx.global_scale's),
// fp32 accumulation, bf16 out.
// Targets: sm_100a (tcgen05.mma kind::mxf4nvf4.block_scale.scale_vec::4X,
// the tensor scales in the epilogue) and sm_120a (mma.sync m16n8k64
// kind::mxf4nvf4.block_scale.scale_vec::4X); docs/examples/sm_120a/ links
// here. Elsewhere fpx-convert-to-gpu refuses it, naming the op and the
// target. Compiled and accepted by ptxas; no GPU of the project runs it yet.
func.func @nvfp4_scaled_mm(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>,
                           %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>)
    -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>),
                         %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
