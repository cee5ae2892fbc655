// MXFP8 e4m3 along columns (32x1 blocks, written transposed as (K, M)) with
// NVIDIA's `rceil` scale rule: the right-hand operand of an MXFP8 GEMM as
// cuBLAS and torchao's rceil recipe want it.
func.func @mxfp8_e4m3_cols_rceil(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [32, 1], rule = rceil, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
