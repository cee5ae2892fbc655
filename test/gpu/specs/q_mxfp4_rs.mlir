// GPU test spec: MXFP4 e2m1 1x32 floor with stochastic rounding, fp4x2
// (E8M0 products through the split-sign conversion).
func.func @q_mxfp4_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
