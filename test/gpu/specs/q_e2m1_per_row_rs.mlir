// GPU test spec: e2m1 with one e4m3 scale a row (g = 1), stochastic
// rounding, fp4x2 packed: the divided-scale fp4 path of the per-row kernel.
func.func @q_e2m1_per_row_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x1xf8E4M3FN>) {
  %q, %s = fpx.quantize %x seed(%seed) {
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f8E4M3FN>,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x1xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x1xf8E4M3FN>
}
