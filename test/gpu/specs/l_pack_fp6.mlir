// GPU test spec: one fp6 code per byte <-> planes, contiguous 24-bit and
// interleaved (torchao #1810 4+2).
func.func @l_pack_fp6_planes(%q: tensor<?x?xf6E2M3FN>) -> tensor<?x?xi8> {
  %p = fpx.pack %q {layout = #fpx.layout<fp6_planes>} : tensor<?x?xf6E2M3FN> -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}
func.func @l_unpack_fp6_planes(%p: tensor<?x?xi8>) -> tensor<?x?xf6E2M3FN> {
  %q = fpx.unpack %p {layout = #fpx.layout<fp6_planes>} : tensor<?x?xi8> -> tensor<?x?xf6E2M3FN>
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
func.func @l_pack_fp6_interleaved(%q: tensor<?x?xf6E3M2FN>) -> tensor<?x?xi8> {
  %p = fpx.pack %q {layout = #fpx.layout<fp6_interleaved>} : tensor<?x?xf6E3M2FN> -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}
func.func @l_unpack_fp6_interleaved(%p: tensor<?x?xi8>) -> tensor<?x?xf6E3M2FN> {
  %q = fpx.unpack %p {layout = #fpx.layout<fp6_interleaved>} : tensor<?x?xi8> -> tensor<?x?xf6E3M2FN>
  return %q : tensor<?x?xf6E3M2FN>
}
