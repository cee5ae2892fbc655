// GPU test spec: row-major e8m0 scales of groups of rows (MoE, i32 group end
// rows) -> the blocked 128x4 layout, each group padded and tiled on its own.
func.func @l_swizzle_groups(%s: tensor<?x?xf8E8M0FNU>, %ends: tensor<?xi32>) -> tensor<?x?xf8E8M0FNU> {
  %b = fpx.swizzle_scales %s offsets(%ends : tensor<?xi32>) {layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xf8E8M0FNU> -> tensor<?x?xf8E8M0FNU>
  return %b : tensor<?x?xf8E8M0FNU>
}
