// A weight-only fp8 linear (decode): y = x * (w * s)^T with bf16 x and y, the
// weight's e4m3 codes pre-packed as mma_tiles (docs/formats.md) and one fp32
// scale per output channel. fpx-convert-to-gpu lowers it to the decode GEMM
// kernels: the packed weight is read once and decoded in registers, mma.sync
// on the tensor cores, stream-K over every SM.
func.func @wo_fp8_linear(%x: tensor<?x4096xbf16>, %w: tensor<14336x4096xf8E4M3FN>,
                         %s: tensor<14336x1xf32>) -> tensor<?x14336xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<14336x4096xf8E4M3FN>
      scales(%s : tensor<14336x1xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x14336xbf16>
  return %y : tensor<?x14336xbf16>
}
