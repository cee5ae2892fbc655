// MXFP4 e2m1 along columns: 32x1 blocks of a (M, K) bf16 tensor, floor rule,
// written transposed as fp4x2 codes (K, M/2) with scales (K, M/32): the
// other operand of an MXFP4 GEMM.
func.func @mxfp4_cols(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
