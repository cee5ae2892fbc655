func.func @f(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {prologue = "param0",
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
