// GPU test spec: row-major e8m0 scales -> the blocked 128x4 layout.
func.func @l_swizzle(%s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf8E8M0FNU> {
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xf8E8M0FNU> -> tensor<?x?xf8E8M0FNU>
  return %b : tensor<?x?xf8E8M0FNU>
}
