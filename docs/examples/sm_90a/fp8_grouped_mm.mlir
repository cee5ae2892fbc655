// The forward GEMM of float8 MoE training (torch._scaled_grouped_mm, 2D x
// 3D): the tokens A (M x K, e4m3, one fp32 scale a row) sorted by expert,
// the experts' weights B (G x N x K, e4m3, one fp32 scale a (expert,
// column)), and the i32 end row of each expert's tokens on the device.
// Expert g's rows of C are A[its rows] x B[g]^T, times the scales; rows
// past the last end are zeros. fpx-convert-to-gpu lowers it to the Hopper
// scaled GEMM kernel in its grouped mode, whose CTAs read the offsets
// themselves (no host synchronization): sm_90a only.
func.func @fp8_grouped_mm(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x1xf32>,
                          %b: tensor<?x?x?xf8E4M3FN>, %sb: tensor<?x?x1xf32>,
                          %offs: tensor<?xi32>) -> tensor<?x?xbf16> {
  %c = fpx.grouped_matmul %a, %b offsets(%offs) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x?xf8E4M3FN>, tensor<?x?x?xf8E4M3FN>, tensor<?xi32>, tensor<?x1xf32>, tensor<?x?x1xf32>
    -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
