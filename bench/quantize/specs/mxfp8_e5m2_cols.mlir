// MXFP8 e5m2 along columns: 32x1 blocks of a (M, K) bf16 tensor, floor rule,
// written transposed as (K, M) with scales (K, M/32).
func.func @mxfp8_e5m2_cols(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU>
}
