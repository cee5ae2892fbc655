//===- FPxAttrs.td - fpx attributes and enums --------------*- tablegen -*-===//
#ifndef FPX_DIALECT_FPX_IR_FPXATTRS_TD
#define FPX_DIALECT_FPX_IR_FPXATTRS_TD

include "fpx/Dialect/FPx/IR/FPxDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def FPx_RoundingKind : I32EnumAttr<"RoundingKind", "rounding mode", [
    I32EnumAttrCase<"rn", 0>, I32EnumAttrCase<"rz", 1>, I32EnumAttrCase<"rs", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fpx";
}
def FPx_RoundingAttr : EnumAttr<FPx_Dialect, FPx_RoundingKind, "rounding"> {
  let summary = "rounding mode: rn (nearest even), rz (toward zero), rs (stochastic)";
  let description = [{
    `rn` rounds to nearest, ties to even. `rz` truncates toward zero. `rs` is
    stochastic rounding with caller-seeded random bits, with the semantics of
    PTX `cvt.rs` (docs/formats.md says which bits decide).

    Example: `#fpx.rounding<rn>`
  }];
  let assemblyFormat = "`<` $value `>`";
}

def FPx_ScaleRule : I32EnumAttr<"ScaleRule", "scale rule", [
    I32EnumAttrCase<"floor", 0>, I32EnumAttrCase<"ceil", 1>,
    I32EnumAttrCase<"even", 2>, I32EnumAttrCase<"rceil", 3>,
    I32EnumAttrCase<"amax", 4>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fpx";
}

def FPx_NonFiniteKind : I32EnumAttr<"NonFiniteKind",
    "what an E8M0-scaled block holding inf or NaN produces", [
    I32EnumAttrCase<"nan", 0>, I32EnumAttrCase<"saturate", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fpx";
}
def FPx_NonFiniteAttr : EnumAttr<FPx_Dialect, FPx_NonFiniteKind, "nonfinite"> {
  let summary = "what an E8M0-scaled block holding +-inf or NaN produces";
  let description = [{
    `nan` (the default, OCP MX v1.0 and torchao): the block's scale is 0xFF
    (E8M0's NaN) and its elements the element format's NaN code (e4m3fn and
    e5m2: 0x7F); formats without NaN (fp6, fp4) get +max there, and the
    scale alone marks the block. `saturate` (fpx before issue 35): an
    infinite amax gives the scale 0xFE (2^127) and the infinities saturate
    to +-max; a block holding NaN still gets 0xFF. docs/formats.md,
    "Non-finite inputs", has every byte.

    Example: `#fpx.nonfinite<saturate>`
  }];
  let assemblyFormat = "`<` $value `>`";
}

def FPx_LayoutKind : I32EnumAttr<"LayoutKind", "data or scale layout", [
    I32EnumAttrCase<"row_major", 0>, I32EnumAttrCase<"fp4x2", 1>,
    I32EnumAttrCase<"fp6_planes", 2>, I32EnumAttrCase<"fp6_packed", 3>,
    I32EnumAttrCase<"fp6_byte", 4>, I32EnumAttrCase<"blocked_128x4", 5>,
    I32EnumAttrCase<"mma_tiles", 6>,
    I32EnumAttrCase<"fp6_interleaved", 7>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::fpx";
}
def FPx_LayoutAttr : EnumAttr<FPx_Dialect, FPx_LayoutKind, "layout"> {
  let summary = "bit packing of elements or memory layout of scales";
  let description = [{
    - `row_major`: plain row-major scales.
    - `fp4x2`: two fp4 codes per byte, the first element in the LOW nibble.
    - `fp6_planes`: fp6 split into two bit planes per row (formerly
      `fp6_4p2`): the 2 high bits of every code, then their 4 low bits.
    - `fp6_interleaved`: fp6 "4+2" interleaved every 4 codes, as torchao
      PR #1810's `pack_uint6_pytorch`: 4 high bits in two bytes, 2 low bits in
      the third.
    - `fp6_packed`: contiguous 24-bit packing of 4 fp6 codes.

    The three packings of 4 fp6 codes in 3 bytes need a packed dimension that
    is a multiple of 4 and make it 3/4 as long (docs/formats.md has the bits).
    - `fp6_byte`: one fp6 code per byte (low 6 bits).
    - `blocked_128x4`: the blocked / swizzled scale layout that cuBLAS and
      block-scaled tensor cores read (128-row x 4-column tiles).
    - `mma_tiles`: a weight (N x K codes) pre-packed in the order the
      weight-only GEMM reads it: 16 x 32 tiles of 512 bytes, lane l of a warp
      holding rows l/4 and l/4+8 at k = 8(l%4) .. 8(l%4)+7 (docs/formats.md);
      8-bit codes, N % 16 == 0, K % 32 == 0. 4-bit codes (e2m1) take 16 x 64
      tiles of the same 512 bytes, two such 32-column halves a lane's 16
      bytes (K % 64 == 0, K/2 bytes a row). 6- and 5-bit codes (e2m3,
      e3m2, e2m2) take 16 x 64 tiles of 128 * bits bytes: the codes' low 4
      bits as a 4-bit tile, then a plane of their high bits that a lane
      reads with one 64- or 32-bit load (K % 64 == 0, K * bits / 8 bytes a
      row; FP6-LLM's 4+2 split).

    Example: `#fpx.layout<fp4x2>`
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def FPx_FormatAttr : FPx_Attr<"Format", "format"> {
  let summary = "an element format: a named FPx format or any e<E>m<M>";
  let description = [{
    Names one element format of the numerics core: `e4m3fn`, `e5m2`,
    `e2m3fn`, `e3m2fn`, `e2m1fn`, `e8m0fnu`, `ue4m3`, FP6-LLM style `e3m2`
    and `e2m2`, or any signed `e<E>m<M>` with 1 + E + M <= 8. The bias
    defaults to 2^(E-1) - 1 and can be given explicitly.

    Examples: `#fpx.format<e4m3fn>`, `#fpx.format<e3m2>`,
    `#fpx.format<e4m2, bias = 11>`
  }];
  let parameters = (ins StringRefParameter<"canonical format name">:$name,
                        "int64_t":$bias);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The numerics-core description of this format (bias override applied).
    ::fpx::num::Format getFormat() const;
    /// The format of a builtin MLIR float type (f8E4M3FN ...), if it has one.
    static FormatAttr fromType(::mlir::Type type);
    /// The builtin MLIR type that stores this format unpacked, or null.
    ::mlir::Type getStorageType() const;
  }];
}

def FPx_ScalingAttr : FPx_Attr<"Scaling", "scaling"> {
  let summary = "block scaling: block shape, scale rule and scale type";
  let description = [{
    `block` has one entry per scaled dimension (the innermost dimensions of
    the tensor; a rank-3 tensor with a rank-2 block is a batch of matrices,
    e.g. MoE experts). `*` spans the whole dimension: `[*, *]` is per-tensor,
    `[1, *]` per-row. `rule` picks how the scale follows from the block's
    amax: `floor`, `ceil`, `even` and `rceil` for power-of-two (E8M0)
    scales, `amax` for scales that are amax / max(format) rounded to the
    scale type (fp32 per-tensor / per-row / blockwise FP8, NVFP4's e4m3).

    Examples:
    `#fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>` (MXFP8),
    `#fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>` (NVFP4),
    `#fpx.scaling<block = [*, *], rule = amax, scale = f32>` (per-tensor).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "block shape (-1 = whole dim)">:$block,
                        "ScaleRule":$rule,
                        "::mlir::Type":$scaleType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True when every block entry spans its whole dimension.
    bool isPerTensor() const;
    /// The block extent along the i-th scaled dim for a dim of size `dim`
    /// (-1 when dim is dynamic and the block spans it).
    int64_t blockExtent(unsigned i, int64_t dim) const;
  }];
}

#endif // FPX_DIALECT_FPX_IR_FPXATTRS_TD
