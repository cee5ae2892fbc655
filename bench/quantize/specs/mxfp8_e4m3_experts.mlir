// 3D expert weights (E, N, K) bf16, MXFP8 e4m3 in 32x1 blocks along N, floor
// rule, written per expert column-major as (E, K, N) with scales (E, K, N/32).
func.func @mxfp8_e4m3_experts(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>, transposed}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}
