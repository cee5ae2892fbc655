// GPU test spec: one fp4 code per byte -> fp4x2, and back.
func.func @l_pack_fp4(%q: tensor<?x?xf4E2M1FN>) -> tensor<?x?xi8> {
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<?x?xf4E2M1FN> -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}
func.func @l_unpack_fp4(%p: tensor<?x?xi8>) -> tensor<?x?xf4E2M1FN> {
  %q = fpx.unpack %p {layout = #fpx.layout<fp4x2>} : tensor<?x?xi8> -> tensor<?x?xf4E2M1FN>
  return %q : tensor<?x?xf4E2M1FN>
}
