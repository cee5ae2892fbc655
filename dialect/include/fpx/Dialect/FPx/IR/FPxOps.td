//===- FPxOps.td - fpx operations --------------------------*- tablegen -*-===//
#ifndef FPX_DIALECT_FPX_IR_FPXOPS_TD
#define FPX_DIALECT_FPX_IR_FPXOPS_TD

include "fpx/Dialect/FPx/IR/FPxAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def FPx_HighPrecisionTensor : RankedTensorOf<[F32, BF16, F16]>;
def FPx_OffsetsTensor : 1DTensorOf<[I32]>;
def FPx_AmaxTensor : 0DTensorOf<[F32]>;
// A per-tensor amax, or one per matrix of a rank-3 input (fpx.quantize).
def FPx_AmaxOrPerMatrixTensor : TensorRankOf<[F32], [0, 1]>;

//===----------------------------------------------------------------------===//
// quantize / dequantize
//===----------------------------------------------------------------------===//

def FPx_QuantizeOp : FPx_Op<"quantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "scale and round a high-precision tensor to an FPx format";
  let description = [{
    Splits the input into blocks given by `scaling`, computes one scale per
    block from the block's amax with the scaling rule, divides by the scale
    and rounds each element to the element format with `rounding`
    (satfinite unless `overflow_to_special` is set). Returns the element
    codes and the scales.

    `nonfinite` says what an E8M0-scaled block holding +-inf or NaN
    produces: by default (`#fpx.nonfinite<nan>`, OCP MX and torchao) the
    scale 0xFF and NaN elements; `#fpx.nonfinite<saturate>` keeps a finite
    scale 0xFE for an infinite amax and saturates the infinities to +-max.
    Other scale types reject it (their behaviour is fixed: docs/formats.md,
    "Non-finite inputs").

    The element format is the result's element type when it is a builtin
    FPx type (`f8E4M3FN`, `f8E5M2`, `f6E2M3FN`, `f6E3M2FN`, `f4E2M1FN`), or
    the `format` attribute when the result holds codes in `i8` (any
    `e<E>m<M>`) or packed bytes.

    Optional operands: `amax` is a per-tensor amax (rank-0 f32); with an
    `amax` rule on e4m3 block scales it gives NVFP4's two-level scaling
    (global fp32 scale = amax / (448 * 6), block scales in e4m3 relative to
    it), and with a per-tensor scaling it skips the reduction (other scales
    come from their own blocks and reject it). For a rank-3
    input (a batch of matrices, e.g. one per expert) with e4m3 block scales,
    `amax` may instead hold one amax per matrix (rank-1 f32, one per slice
    along dimension 0): each matrix is scaled with its own global scale, as
    if quantized alone. `seed` seeds the counter-based random bits of
    stochastic rounding (`rs`), numbered over the whole input.

    With `transposed`, the results are those of quantizing the transpose of
    the last two dimensions: for column blocks (`[32, 1]`) of an (M, K)
    input, the codes come out as (K, M) and the scales as (K, M / 32), the
    column-major layout the right-hand operand of a GEMM wants, written by
    the cast kernel itself (no separate transpose). A rank-3 (E, N, K) input
    gives per-expert (E, K, N).

    Fused stages (set by `fpx-fuse-quantize`, or written directly):
    `packing` packs the result (`fp4x2`, `fp6_planes`, ...); `scale_layout`
    stores the scales in `blocked_128x4`; `hadamard` applies a random
    Hadamard transform of that size (signs seeded by `hadamard_seed`) to the
    input first.

    `prologue` names a user function `extern "C" __device__ float NAME(float
    x)` (CUDA C++, linked at load time: docs/artifact.md, "link") applied to
    every input element in f32, after widening and before any Hadamard
    transform, amax, scale or cast, e.g. an activation fused into the cast:
    ```mlir
    %q, %s = fpx.quantize %x {prologue = "fpx_user_scale",
        scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
      : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
    ```
    It must be a C identifier; kernels support it on row blocks [1, N].

    Example (MXFP8 along rows, rceil rule):
    ```mlir
    %q, %s = fpx.quantize %x {
        scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>,
        rounding = #fpx.rounding<rn>}
      : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
    ```
  }];
  let arguments = (ins FPx_HighPrecisionTensor:$input,
                       Optional<FPx_AmaxOrPerMatrixTensor>:$amax,
                       Optional<I64>:$seed,
                       OptionalAttr<FPx_FormatAttr>:$format,
                       FPx_ScalingAttr:$scaling,
                       DefaultValuedAttr<FPx_RoundingAttr, "RoundingKind::rn">:$rounding,
                       UnitAttr:$overflow_to_special,
                       OptionalAttr<FPx_NonFiniteAttr>:$nonfinite,
                       UnitAttr:$transposed,
                       OptionalAttr<FPx_LayoutAttr>:$packing,
                       OptionalAttr<FPx_LayoutAttr>:$scale_layout,
                       OptionalAttr<I64Attr>:$hadamard,
                       OptionalAttr<I64Attr>:$hadamard_seed,
                       OptionalAttr<StrAttr>:$prologue);
  let results = (outs AnyRankedTensor:$result, AnyRankedTensor:$scales);
  let assemblyFormat = [{
    $input (`amax` `(` $amax^ `:` type($amax) `)`)? (`seed` `(` $seed^ `)`)? attr-dict
    `:` type($input) `->` type($result) `,` type($scales)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The element format (from the result type or the `format` attribute).
    FormatAttr getElementFormat();
    /// What a block holding inf or NaN produces (`nonfinite`, nan when
    /// absent).
    NonFiniteKind getNonFiniteKind() {
      return getNonfinite().value_or(NonFiniteKind::nan);
    }
  }];
}

def FPx_DequantizeOp : FPx_Op<"dequantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "decode FPx codes and multiply by their block scales";
  let description = [{
    The inverse of `fpx.quantize`: unpacks (per `packing`), decodes each
    element of the format, and multiplies by the scale of its block (read in
    `scale_layout`). NVFP4's global scale g is applied too, given either as
    the tensor amax it derives from (`amax`, g = `fpx.global_scale` of it) or
    as g itself (`global_scale`, e.g. the g a quantize returned): at most one
    of the two; for a rank-3 result (a batch of matrices) either may hold one
    value per matrix (rank 1). The result is f32, bf16 or f16 (products
    rounded to nearest even).

    Example (FP6-LLM style e3m2 weights in fp6_planes, one bf16 scale per
    output row):
    ```mlir
    %w = fpx.dequantize %packed, %scales {format = #fpx.format<e3m2>,
        packing = #fpx.layout<fp6_planes>,
        scaling = #fpx.scaling<block = [1, *], rule = amax, scale = bf16>}
      : tensor<11008x3072xi8>, tensor<11008x1xbf16> -> tensor<11008x4096xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$scales,
                       Optional<FPx_AmaxOrPerMatrixTensor>:$amax,
                       Optional<FPx_AmaxOrPerMatrixTensor>:$global_scale,
                       OptionalAttr<FPx_FormatAttr>:$format,
                       FPx_ScalingAttr:$scaling,
                       OptionalAttr<FPx_LayoutAttr>:$packing,
                       OptionalAttr<FPx_LayoutAttr>:$scale_layout);
  let results = (outs FPx_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $input `,` $scales (`amax` `(` $amax^ `:` type($amax) `)`)?
    (`global_scale` `(` $global_scale^ `:` type($global_scale) `)`)? attr-dict
    `:` type($input) `,` type($scales) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    FormatAttr getElementFormat();
  }];
}

//===----------------------------------------------------------------------===//
// pack / unpack / swizzle_scales
//===----------------------------------------------------------------------===//

def FPx_PackOp : FPx_Op<"pack", [Pure]> {
  let summary = "pack FPx codes along the innermost dimension into bytes";
  let description = [{
    `fp4x2`: two codes per byte, element 2i in the low nibble (innermost
    dimension halves, must be even). `fp6_planes`: per row a plane of the
    codes' 2 high bits, then one of their 4 low bits (innermost dimension
    becomes 3/4, must be a multiple of 4). `fp6_interleaved`: torchao
    #1810's 4+2, every 4 codes in 3 bytes (also 3/4).
    `fp6_packed`: four codes in 24 contiguous bits (also 3/4). `fp6_byte`:
    one code per byte. The format is the input element type or `format`.

    Example:
    ```mlir
    %p = fpx.pack %q {layout = #fpx.layout<fp4x2>}
      : tensor<128x64xf4E2M1FN> -> tensor<128x32xi8>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FPx_LayoutAttr:$layout,
                       OptionalAttr<FPx_FormatAttr>:$format);
  let results = (outs RankedTensorOf<[I8]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def FPx_UnpackOp : FPx_Op<"unpack", [Pure]> {
  let summary = "unpack bytes into one FPx code per element";
  let description = [{
    The inverse of `fpx.pack`. The result element type is a builtin FPx type,
    or `i8` codes with a `format` attribute.

    Example:
    ```mlir
    %q = fpx.unpack %p {layout = #fpx.layout<fp6_planes>}
      : tensor<64x96xi8> -> tensor<64x128xf6E3M2FN>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I8]>:$input, FPx_LayoutAttr:$layout,
                       OptionalAttr<FPx_FormatAttr>:$format);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def FPx_SwizzleScalesOp : FPx_Op<"swizzle_scales", [Pure]> {
  let summary = "rearrange block scales into the layout tensor cores read";
  let description = [{
    `blocked_128x4`: the scales matrix (rows x cols) is padded with zeros to
    multiples of 128 rows and 4 columns and stored as 128x4 tiles, tiles
    row-major, each tile as 32 rows of 16 bytes where row r, column c of the
    tile lands at (r % 32, (r / 32) * 4 + c). With `offsets` (group end rows,
    1-D i32) each group is padded and tiled on its own, as grouped GEMMs
    read them; the result then has an upper-bound row count
    rows + 128 * groups.

    Example:
    ```mlir
    %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
      : tensor<16384x256xf8E8M0FNU> -> tensor<16384x256xf8E8M0FNU>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Optional<FPx_OffsetsTensor>:$offsets,
                       FPx_LayoutAttr:$layout);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`offsets` `(` $offsets^ `:` type($offsets) `)`)? attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// amax / hadamard
//===----------------------------------------------------------------------===//

def FPx_AmaxOp : FPx_Op<"amax", [Pure]> {
  let summary = "maximum absolute value of a tensor";
  let description = [{
    Reduces the whole tensor to max(|x|) in f32 (NaN if any element is NaN).
    Used for per-tensor scales and NVFP4's global scale; lowered to a
    reduction kernel whose result stays on the device (no host sync). A
    rank-1 result for a rank-3 input holds one amax per matrix (the slices
    along dimension 0), e.g. per expert for `fpx.quantize`'s per-matrix
    amax.
    `hadamard` / `hadamard_seed` (set by `fpx-fuse-quantize`) take the amax
    of the random Hadamard transform of the input instead, without writing
    the transform to memory.
    Delayed scaling: a tensor amax the function only returns, of the input
    of a row-block or per-tensor `fpx.quantize` that reads a given amax (and
    the same transform, no prologue), is reduced by that cast as it reads
    the input (one read instead of two).

    Example:
    ```mlir
    %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
    ```
  }];
  let arguments = (ins FPx_HighPrecisionTensor:$input,
                       OptionalAttr<I64Attr>:$hadamard,
                       OptionalAttr<I64Attr>:$hadamard_seed);
  let results = (outs FPx_AmaxOrPerMatrixTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def FPx_GlobalScaleOp : FPx_Op<"global_scale", [Pure, SameOperandsAndResultType]> {
  let summary = "NVFP4's per-tensor scale from a tensor amax";
  let description = [{
    The fp32 scale NVFP4's two-level scaling derives from a tensor amax (the
    value `fpx.quantize` and `fpx.dequantize` compute from their `amax`
    operand): g = min(|amax|, FLT_MAX) / (448 * 6), rounded to nearest even;
    1 where the amax is 0, 2^-149 where the quotient underflows to 0, NaN for
    NaN. A decoded element is code * block scale * g, so a GEMM of two NVFP4
    operands takes alpha = g_a * g_b. Elementwise: a rank-1 amax (one per
    matrix of a batch) gives one g per matrix.

    Lowered into the NVFP4 cast that reads the same amax (its first thread
    stores g: no extra kernel) when the result is only returned; otherwise
    into a kernel of its own.

    Example (the cast's results and the scale a GEMM wants):
    ```mlir
    %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
    %g = fpx.global_scale %a : tensor<f32>
    %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
        format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
        scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
      : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
    ```
  }];
  let arguments = (ins FPx_AmaxOrPerMatrixTensor:$amax);
  let results = (outs FPx_AmaxOrPerMatrixTensor:$result);
  let assemblyFormat = "$amax attr-dict `:` type($amax)";
}

def FPx_HadamardOp : FPx_Op<"hadamard", [Pure, SameOperandsAndResultType]> {
  let summary = "random Hadamard transform over blocks of the innermost dim";
  let description = [{
    Multiplies each contiguous block of `size` elements along the innermost
    dimension by diag(signs) * H / sqrt(size), with H the Sylvester Hadamard
    matrix and the random +-1 signs generated from `seed` (docs/formats.md).
    `size` is a power of two from 2 to 128 and divides the dimension.

    Example:
    ```mlir
    %h = fpx.hadamard %g {size = 16, seed = 7} : tensor<?x4096xbf16>
    ```
  }];
  let arguments = (ins FPx_HighPrecisionTensor:$input, I64Attr:$size,
                       DefaultValuedAttr<I64Attr, "0">:$seed);
  let results = (outs FPx_HighPrecisionTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// matmuls
//===----------------------------------------------------------------------===//

def FPx_MatmulOp : FPx_Op<"matmul", [Pure]> {
  let summary = "plain matrix product (C = A * B or A * B^T)";
  let description = [{
    A high-precision matmul; `fpx-fuse-dequant-matmul` folds a preceding
    `fpx.dequantize` of either operand into an `fpx.scaled_matmul`.
    With `transpose_b`, B is given as N x K.

    Example:
    ```mlir
    %y = fpx.matmul %a, %w {transpose_b}
      : tensor<?x4096xbf16>, tensor<11008x4096xbf16> -> tensor<?x11008xbf16>
    ```
  }];
  let arguments = (ins FPx_HighPrecisionTensor:$lhs, FPx_HighPrecisionTensor:$rhs,
                       UnitAttr:$transpose_b);
  let results = (outs FPx_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def FPx_ScaledMatmulOp : FPx_Op<"scaled_matmul", [Pure, AttrSizedOperandSegments]> {
  let summary = "matmul of quantized operands with their block scales";
  let description = [{
    C = (A * sa) x (B * sb)^T accumulated in f32 and written as the result
    type. Each operand is either high precision (its scales operand absent)
    or FPx codes with scales described by its scaling attribute. B is N x K
    (K-major, as tensor cores read it). `rhs_packing` names how B's codes are
    stored (`mma_tiles`: the weight-only GEMM's order, 8-bit codes as their
    FPx type, 4-, 5- and 6-bit codes as i8 bytes with `rhs_format`,
    K * bits / 8 a row: a 4-bit tile, then for 5 and 6 bits a plane of the
    high bits, as FP6-LLM packs them; docs/formats.md).
    NVFP4's tensor scale g of B (e4m3 block scales) is `global_scale`, as in
    `fpx.dequantize`: B's values are code * block scale * g. A takes the same
    on its side: `lhs_packing` (`fp4x2`: e2m1 codes two a byte, K / 2 bytes
    a row, as `fpx.quantize` packs them) and its own `global_scale` after
    its scales.

    `bias` (optional) is a 1-D tensor of N elements (bf16, f16 or f32): C's
    column n gets bias[n], added in f32 after the scales and before the cast
    to the result type.

    `lhs_scale_layout` / `rhs_scale_layout` (optional, `row_major` when
    absent): `blocked_128x4` gives an operand's byte block scales (MXFP8's
    e8m0, NVFP4's e4m3) in the 128x4 tiles `fpx.quantize` and
    `fpx.swizzle_scales` write (and cuBLAS reads): rows padded to 128 and
    scale columns to 4, as `fpx.swizzle_scales` describes. The padding is
    never applied to a product (blocks past K count as scale 1 on their
    zero-filled codes), so it may hold anything.

    f32 block scales (blockwise FP8) may end in a partial block: along each
    dimension there are ceil(dim / block) scales, the last covering the
    remainder (other scale types need whole blocks). On sm_90a fp8 x fp8
    lowers with per-tensor, per-row or blockwise f32 scales (A `[1, 128]`,
    B `[128, 128]` or `[1, 128]`); block scales are applied as the kernel
    promotes each 128-K partial sum into its f32 accumulator; MXFP8 x MXFP8
    (e8m0 `[1, 32]` scales on both sides) lowers there too, each k32 partial
    sum promoted with its two scales. On sm_100a
    (tcgen05) MXFP8 x MXFP8 (e8m0 `[1, 32]` scales), NVFP4 x NVFP4 and fp8 x
    fp8 with per-tensor or per-row f32 scales lower; on sm_120a and sm_121a
    (the block-scaled `mma.sync`) MXFP8 x MXFP8 and NVFP4 x NVFP4. On every
    target their scales are row-major or blocked (`*_scale_layout`); the
    Blackwell kernels are compiled and accepted by ptxas, not yet run on a
    GPU.

    Example (weight-only NVFP4 linear with a bias, the weight pre-packed as
    mma_tiles):
    ```mlir
    %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>,
        %w : tensor<14336x2048xi8> scales(%s : tensor<14336x256xf8E4M3FN>)
        global_scale(%g : tensor<f32>) bias(%bias : tensor<14336xbf16>) {
        rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<mma_tiles>,
        rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
      -> tensor<?x14336xbf16>
    ```

    Example (DeepSeek-V3's blockwise FP8: 1x128 scales for A, 128x128 for
    B; K = 7168 is 56 blocks):
    ```mlir
    %c = fpx.scaled_matmul %a : tensor<?x7168xf8E4M3FN> scales(%sa : tensor<?x56xf32>),
                           %b : tensor<4096x7168xf8E4M3FN> scales(%sb : tensor<32x56xf32>) {
        lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
        rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>}
      -> tensor<?x4096xbf16>
    ```

    Example (NVFP4 x NVFP4: packed e2m1 codes, e4m3 [1, 16] scales and a
    tensor scale on each side):
    ```mlir
    %c = fpx.scaled_matmul %a : tensor<?x2048xi8> scales(%sa : tensor<?x256xf8E4M3FN>)
                               global_scale(%ga : tensor<f32>),
                           %b : tensor<8192x2048xi8> scales(%sb : tensor<8192x256xf8E4M3FN>)
                               global_scale(%gb : tensor<f32>) {
        lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
        rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
        lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
        rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
      -> tensor<?x8192xbf16>
    ```

    Example (MXFP8 x MXFP8):
    ```mlir
    %c = fpx.scaled_matmul %a : tensor<?x4096xf8E4M3FN> scales(%sa : tensor<?x128xf8E8M0FNU>),
                           %b : tensor<8192x4096xf8E4M3FN> scales(%sb : tensor<8192x128xf8E8M0FNU>) {
        lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
        rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
      -> tensor<?x8192xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, Optional<AnyRankedTensor>:$lhs_scales,
                       Optional<TensorRankOf<[F32], [0]>>:$lhs_global_scale,
                       AnyRankedTensor:$rhs, Optional<AnyRankedTensor>:$rhs_scales,
                       Optional<TensorRankOf<[F32], [0]>>:$rhs_global_scale,
                       Optional<AnyRankedTensor>:$bias,
                       OptionalAttr<FPx_ScalingAttr>:$lhs_scaling,
                       OptionalAttr<FPx_ScalingAttr>:$rhs_scaling,
                       OptionalAttr<FPx_FormatAttr>:$lhs_format,
                       OptionalAttr<FPx_FormatAttr>:$rhs_format,
                       OptionalAttr<FPx_LayoutAttr>:$rhs_packing,
                       OptionalAttr<FPx_LayoutAttr>:$lhs_packing,
                       OptionalAttr<FPx_LayoutAttr>:$lhs_scale_layout,
                       OptionalAttr<FPx_LayoutAttr>:$rhs_scale_layout);
  let results = (outs FPx_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $lhs `:` type($lhs) (`scales` `(` $lhs_scales^ `:` type($lhs_scales) `)`)?
    (`global_scale` `(` $lhs_global_scale^ `:` type($lhs_global_scale) `)`)? `,`
    $rhs `:` type($rhs) (`scales` `(` $rhs_scales^ `:` type($rhs_scales) `)`)?
    (`global_scale` `(` $rhs_global_scale^ `:` type($rhs_global_scale) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    attr-dict `->` type($result)
  }];
  let hasVerifier = 1;
}

def FPx_GroupedMatmulOp : FPx_Op<"grouped_matmul", [Pure, AttrSizedOperandSegments]> {
  let summary = "grouped (MoE) matmul with int32 group end offsets";
  let description = [{
    2D x 3D: A is (M, K) with its rows split into groups by `offsets` (the
    end row of each group, 1-D i32, on the device: cumulative and
    non-decreasing, the last at most M), B is (G, N, K) (K-major, as tensor
    cores read it); group g computes A[end_{g-1}:end_g] x B[g]^T (end_{-1} =
    0) into the same rows of the (M, N) result. Empty groups are allowed.
    Rows past the last group's end belong to no group and are written as
    zeros. Offsets past M are read as M; offsets that decrease give an empty
    group, and rows that two groups then claim get either group's values
    (never a write outside the result).
    2D x 2D: A is (M, K), B is (N, K) and `offsets` split K; the result is
    (G, M, N) (the weight gradient of a grouped linear).

    `scales(sa, sb)` make it the scaled grouped GEMM of float8 MoE training
    (torch's `_scaled_grouped_mm`): the operands are FPx codes and
    `lhs_scaling` / `rhs_scaling` say how their scales apply, as in
    `fpx.scaled_matmul` (scales and scaling go together). Rowwise f32
    scales are block `[1, *]`: A's one per row, `[M, 1]` (the row scales
    of `fpx.scaled_matmul`); a rank-3 B takes a rank-2 block per matrix, so
    its scales are one per (group, column), `[G, N, 1]` (what `fpx.quantize`
    gives for an (experts, N, K) tensor). C = (A * sa) x (B[g] * sb[g])^T,
    accumulated in f32.

    On sm_90a the 2D x 3D form with fp8 e4m3/e5m2 codes, rowwise f32 scales
    on both sides and a bf16 or f32 result lowers to the Hopper scaled GEMM
    kernel in its grouped mode: a persistent grid whose CTAs derive each
    group's tiles from the offsets on the device (no host synchronization;
    the offsets may change between calls, e.g. under a CUDA graph). K must
    be a multiple of 16 (TMA row strides); G is at most 1024 where B's
    shape does not give it statically (a shared-memory table of the
    groups). Other forms (2D x 2D,
    high-precision operands, other scalings such as MXFP8's e8m0 `[1, 32]`,
    other targets) are refused by the lowering with an error naming what is
    lowered.

    Example (bf16, no scales):
    ```mlir
    %y = fpx.grouped_matmul %a, %b offsets(%offs)
      : tensor<?x5120xbf16>, tensor<8x8192x5120xbf16>, tensor<8xi32> -> tensor<?x8192xbf16>
    ```

    Example (the float8 MoE forward GEMM: e4m3 with rowwise scales):
    ```mlir
    %y = fpx.grouped_matmul %a, %w offsets(%offs) scales(%sa, %sw) {
        lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
        rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
      : tensor<?x5120xf8E4M3FN>, tensor<8x8192x5120xf8E4M3FN>, tensor<8xi32>,
        tensor<?x1xf32>, tensor<8x8192x1xf32> -> tensor<?x8192xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                       FPx_OffsetsTensor:$offsets,
                       Optional<AnyRankedTensor>:$lhs_scales,
                       Optional<AnyRankedTensor>:$rhs_scales,
                       OptionalAttr<FPx_ScalingAttr>:$lhs_scaling,
                       OptionalAttr<FPx_ScalingAttr>:$rhs_scaling);
  let results = (outs FPx_HighPrecisionTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `offsets` `(` $offsets `)`
    (`scales` `(` $lhs_scales^ `,` $rhs_scales `)`)? attr-dict
    `:` type($lhs) `,` type($rhs) `,` type($offsets)
    (`,` type($lhs_scales)^ `,` type($rhs_scales))? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Kernel-level ops (created by lowering; not written in specs)
//===----------------------------------------------------------------------===//

def FPx_ConvertOp : FPx_Op<"convert", [Pure]> {
  let summary = "round 2, 4 or 8 f32 values to packed FPx codes (kernel level)";
  let description = [{
    Converts a vector of 2 or 4 f32 values (or bf16 values, rn or rz) to
    FPx codes packed into one integer, element 0 in the lowest bits: 8 bits
    per code for 8- and 6-bit formats, 4 bits for fp4 (so e2m1 x2 is i8, e4m3
    x4 is i32). A bf16 value converts as its exact f32 widening; the bf16 form
    lets targets with packed bf16x2 arithmetic emulate e2m1 two values per
    instruction. With `rs`, `rbits` gives the random bits of PTX `cvt.rs` (4
    values). Eight f32 values (rn or rz) make one packed word (i32 of fp4
    codes, i64 of bytes), which lets a target without the native x2 `cvt`
    emulate and pack them together. `in_range` promises that every input is
    finite and that none can round past the largest finite value (rn: below
    the midpoint above it; rs: at most it), so an emulation may skip its
    clamp. `bounded` (rs only, exclusive with `in_range`) promises every
    input finite and below the end of the largest finite value's binade
    (e2m1: |x| < 8), so an emulation may round unclamped and saturate the
    codes after. Created by the kernel lowering; `fpx-legalize-formats` turns it
    into a native `cvt` where the target has one and into exact integer
    emulation elsewhere.

    Example:
    ```mlir
    %c = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>}
      : vector<2xf32> -> i16
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[2, 4, 8], [F32, BF16]>:$input, Optional<I32>:$rbits,
                       FPx_FormatAttr:$format, FPx_RoundingAttr:$rounding,
                       UnitAttr:$overflow_to_special, UnitAttr:$in_range,
                       UnitAttr:$bounded);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = [{
    $input (`rbits` `(` $rbits^ `)`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // FPX_DIALECT_FPX_IR_FPXOPS_TD
