// GPU test spec: one fp6 code per byte <-> FP6-LLM 4+2 and contiguous 24-bit.
func.func @l_pack_fp6_4p2(%q: tensor<?x?xf6E2M3FN>) -> tensor<?x?xi8> {
  %p = fpx.pack %q {layout = #fpx.layout<fp6_4p2>} : tensor<?x?xf6E2M3FN> -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}
func.func @l_unpack_fp6_4p2(%p: tensor<?x?xi8>) -> tensor<?x?xf6E2M3FN> {
  %q = fpx.unpack %p {layout = #fpx.layout<fp6_4p2>} : tensor<?x?xi8> -> tensor<?x?xf6E2M3FN>
  return %q : tensor<?x?xf6E2M3FN>
}
func.func @l_pack_fp6_24(%q: tensor<?x?xi8>) -> tensor<?x?xi8> {
  %p = fpx.pack %q {layout = #fpx.layout<fp6_packed>, format = #fpx.format<e3m2fn>} : tensor<?x?xi8> -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}
func.func @l_unpack_fp6_24(%p: tensor<?x?xi8>) -> tensor<?x?xi8> {
  %q = fpx.unpack %p {layout = #fpx.layout<fp6_packed>, format = #fpx.format<e3m2fn>} : tensor<?x?xi8> -> tensor<?x?xi8>
  return %q : tensor<?x?xi8>
}
