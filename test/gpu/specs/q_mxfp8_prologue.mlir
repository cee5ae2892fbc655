// GPU test spec: MXFP8 e4m3, 1x32, rceil, with a user prologue linked at load
// time (test/gpu/PrologueLinkTest.cpp supplies fpx_user_scale as CUDA C++).
func.func @q_mxfp8_prologue(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {prologue = "fpx_user_scale",
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
