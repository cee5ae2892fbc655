// MXFP4 weights back to bf16: e2m1 codes packed two per byte (fp4x2, the
// first element in the low nibble), one e8m0 scale per 32 elements of a row
// (2^(code - 127)). One kernel: 4-byte code loads, integer decode in
// registers, one fp32 multiply per element, bf16 rounded to nearest even,
// 16-byte stores.
func.func @mxfp4_dequantize(%w: tensor<?x2048xi8>, %s: tensor<?x128xf8E8M0FNU>) -> tensor<?x4096xbf16> {
  %x = fpx.dequantize %w, %s {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x2048xi8>, tensor<?x128xf8E8M0FNU> -> tensor<?x4096xbf16>
  return %x : tensor<?x4096xbf16>
}
