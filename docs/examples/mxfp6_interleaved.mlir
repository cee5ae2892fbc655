// MXFP6 in torchao PR #1810's "4+2" layout (fp6_interleaved): every 4 codes
// in 3 bytes, their 4 high bits in two and their 2 low bits in the third
// (docs/formats.md). The quantize packs as it casts; the dequantize is the
// fused unpack-dequantize: 6-byte code loads per 8 elements, the bits
// regrouped in registers, one fp32 multiply by the block's e8m0 scale, bf16
// rounded to nearest even. The packed dimension is 3/4 of K (K % 4 == 0).
func.func @mxfp6_e2m3_interleaved_quantize(%x: tensor<?x4096xbf16>)
    -> (tensor<?x3072xi8>, tensor<?x128xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x4096xbf16> -> tensor<?x3072xi8>, tensor<?x128xf8E8M0FNU>
  return %q, %s : tensor<?x3072xi8>, tensor<?x128xf8E8M0FNU>
}

func.func @mxfp6_e3m2_interleaved_dequantize(%w: tensor<?x3072xi8>, %s: tensor<?x128xf8E8M0FNU>)
    -> tensor<?x4096xbf16> {
  %x = fpx.dequantize %w, %s {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x3072xi8>, tensor<?x128xf8E8M0FNU> -> tensor<?x4096xbf16>
  return %x : tensor<?x4096xbf16>
}
