// MXFP8 e4m3 along columns: 32x1 blocks of a (M, K) bf16 tensor, floor rule,
// written transposed as (K, M) with scales (K, M/32) (the layout the GEMM's
// other operand needs), through a shared-memory tile: no separate transpose.
func.func @mxfp8_e4m3_cols(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
