// An MXFP8 training GEMM: C = (A * sa) x (B * sb)^T with e4m3 A (M x K) and
// B (N x K), both K-major, e8m0 scales of 1x32 blocks along K (row-major
// [M, K / 32] and [N, K / 32], as fpx.quantize writes them without
// scale_layout), fp32 accumulation, bf16 out.
// Targets: sm_90a (the Hopper TMA + wgmma kernel, each k32's fp8 partial
// sum promoted into the fp32 accumulator times sa * sb: exact, bounded at
// about half the fp8 wgmma peak by those two instructions an accumulator),
// sm_100a (tcgen05.mma kind::mxf8f6f4.block_scale, the scales rearranged
// into the 128x4 layout and copied into tensor memory) and sm_120a (the
// block-scaled mma.sync); docs/examples/sm_90a/ and sm_120a/ link here.
// Elsewhere fpx-convert-to-gpu refuses it, naming the op and the target.
// The Blackwell forms are compiled and accepted by ptxas; no GPU of the
// project runs them yet.
func.func @mxfp8_scaled_mm(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>,
                           %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>),
                         %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
