// GPU test spec: FP6-LLM style weights: e3m2 in 4+2 split packing, one bf16
// scale per row ([1, *]), bf16 out.
func.func @dq_fp6_llm_rows(%q: tensor<?x?xi8>, %s: tensor<?x1xbf16>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = bf16>}
    : tensor<?x?xi8>, tensor<?x1xbf16> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
