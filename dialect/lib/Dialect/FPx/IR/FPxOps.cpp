//===- FPxOps.cpp - fpx op verifiers --------------------------------------===//
//
// Verifiers for the rules that span operands: formats agree with element
// types, blocks divide dimensions, packed shapes, scale shapes and layouts.
//
//===----------------------------------------------------------------------===//
#include "fpx/Dialect/FPx/IR/FPxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/Regex.h"

#include <tuple>

using namespace mlir;
using namespace fpx;

#define GET_OP_CLASSES
#include "fpx/Dialect/FPx/IR/FPxOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? "?" : std::to_string(d);
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t fpx::packedBitsPerElement(LayoutKind layout, const num::Format &fmt) {
  switch (layout) {
  case LayoutKind::fp4x2:
    return 4;
  case LayoutKind::fp6_planes:
  case LayoutKind::fp6_packed:
  case LayoutKind::fp6_interleaved:
    return 6;
  case LayoutKind::mma_tiles:
    return fmt.bits() < 8 ? fmt.bits() : 8;
  default:
    return 8;
  }
}

FailureOr<int64_t> fpx::packedInnerDim(LayoutKind layout, int64_t dim,
                                       std::string *why, int codeBits) {
  auto fail = [&](const char *msg) -> FailureOr<int64_t> {
    if (why)
      *why = msg;
    return failure();
  };
  switch (layout) {
  case LayoutKind::fp4x2:
    if (ShapedType::isDynamic(dim))
      return dim;
    if (dim % 2)
      return fail("fp4x2 packing needs an even innermost dimension");
    return dim / 2;
  case LayoutKind::fp6_planes:
  case LayoutKind::fp6_packed:
  case LayoutKind::fp6_interleaved:
    if (ShapedType::isDynamic(dim))
      return dim;
    if (dim % 4)
      return fail("fp6 packing needs an innermost dimension that is a "
                  "multiple of 4");
    return dim / 4 * 3;
  case LayoutKind::fp6_byte:
    return dim;
  case LayoutKind::mma_tiles:
    if (codeBits < 8) { // 4-, 5- and 6-bit codes: 16 x 64 tiles
      if (ShapedType::isDynamic(dim))
        return dim;
      if (dim % 64)
        return fail(codeBits == 4
                        ? "mma_tiles packing of 4-bit codes needs an innermost "
                          "dimension that is a multiple of 64"
                        : "mma_tiles packing of 6- and 5-bit codes needs an "
                          "innermost dimension that is a multiple of 64");
      return dim * codeBits / 8;
    }
    if (!ShapedType::isDynamic(dim) && dim % 32)
      return fail("mma_tiles packing needs an innermost dimension that is a "
                  "multiple of 32");
    return dim;
  default:
    return fail("is not an element packing layout");
  }
}

/// Checks that `layout` can pack elements of `fmt`.
static LogicalResult verifyPackingFormat(Operation *op, LayoutKind layout,
                                         const num::Format &fmt) {
  int bits = fmt.bits();
  bool ok = (layout == LayoutKind::fp4x2 && bits == 4) ||
            ((layout == LayoutKind::fp6_planes ||
              layout == LayoutKind::fp6_packed ||
              layout == LayoutKind::fp6_interleaved ||
              layout == LayoutKind::fp6_byte) &&
             bits == 6) ||
            (layout == LayoutKind::mma_tiles &&
             (bits == 8 || bits == 6 || bits == 5 || bits == 4));
  if (!ok)
    return op->emitOpError("packing '")
           << stringifyLayoutKind(layout) << "' cannot hold the " << bits
           << "-bit format '" << fmt.name << "'";
  return success();
}

/// The element format of a value's element type, combined with an optional
/// format attribute. `packed` means the tensor holds bytes of packed codes.
static FailureOr<FormatAttr> resolveFormat(Operation *op, Type elemType,
                                           FormatAttr attr, bool packed,
                                           StringRef what) {
  FormatAttr fromType = FormatAttr::fromType(elemType);
  if (fromType && attr && fromType != attr)
    return op->emitOpError() << what << " element type " << elemType
                             << " disagrees with format " << attr;
  if (fromType && packed)
    return op->emitOpError() << "packed " << what
                             << " must hold bytes (i8), not " << elemType;
  if (fromType)
    return fromType;
  if (!elemType.isInteger(8))
    return op->emitOpError() << what << " element type must be an FPx type "
                             << "or i8 codes, got " << elemType;
  if (!attr)
    return op->emitOpError() << "needs a 'format' attribute: " << what
                             << " holds i8 codes";
  return attr;
}

/// Checks the scale tensor's shape for a data shape and a scaling.
/// `partialBlocks`: a dimension the block does not divide ends in a partial
/// block with a scale of its own (ceil(dim / block) scales), as the f32 block
/// scales of a blockwise FP8 GEMM operand are given (torch's scaled_mm).
static LogicalResult verifyScales(Operation *op, ArrayRef<int64_t> shape,
                                  ScalingAttr scaling, RankedTensorType scales,
                                  std::optional<LayoutKind> scaleLayout,
                                  bool partialBlocks = false) {
  ArrayRef<int64_t> block = scaling.getBlock();
  size_t rank = shape.size();
  if (block.size() != rank && !(block.size() == 2 && rank == 3))
    return op->emitOpError("scaling block has ")
           << block.size() << " entries but the tensor has rank " << rank
           << " (a rank-3 tensor takes a rank-2 block per matrix)";
  if (scales.getElementType() != scaling.getScaleType())
    return op->emitOpError("scales element type ")
           << scales.getElementType() << " differs from the scaling's "
           << scaling.getScaleType();
  if (scales.getRank() != static_cast<int64_t>(rank))
    return op->emitOpError("scales must have rank ") << rank;
  size_t lead = rank - block.size();
  SmallVector<int64_t> expected(shape.begin(), shape.begin() + lead);
  for (size_t i = 0; i < block.size(); ++i) {
    int64_t dim = shape[lead + i], b = block[i];
    if (b < 0) {
      expected.push_back(1);
      continue;
    }
    if (!ShapedType::isDynamic(dim) && dim % b != 0 && !partialBlocks)
      return op->emitOpError("block size ")
             << b << " does not divide dimension " << lead + i << " of size "
             << dim;
    expected.push_back(ShapedType::isDynamic(dim) ? dim : ceilDiv(dim, b));
  }
  if (scaleLayout && *scaleLayout == LayoutKind::blocked_128x4) {
    // A matrix's scales, or each matrix's of a rank-3 tensor, in 128x4 tiles.
    if (rank != 2 && rank != 3)
      return op->emitOpError("blocked_128x4 scales need a rank-2 or rank-3 tensor");
    int64_t &r = expected[rank - 2], &c = expected[rank - 1];
    if (!ShapedType::isDynamic(r))
      r = ceilDiv(r, 128) * 128;
    if (!ShapedType::isDynamic(c))
      c = ceilDiv(c, 4) * 4;
  } else if (scaleLayout && *scaleLayout != LayoutKind::row_major) {
    return op->emitOpError("scale_layout must be row_major or blocked_128x4");
  }
  for (size_t i = 0; i < rank; ++i) {
    int64_t got = scales.getDimSize(i), want = expected[i];
    if (!ShapedType::isDynamic(got) && !ShapedType::isDynamic(want) &&
        got != want)
      return op->emitOpError("scales dimension ")
             << i << " is " << got << ", expected " << want;
  }
  return success();
}

/// Checks data shapes: equal, except the innermost under packing.
static LogicalResult verifyDataShape(Operation *op, ArrayRef<int64_t> plain,
                                     ArrayRef<int64_t> stored,
                                     std::optional<LayoutKind> packing,
                                     int codeBits = 8) {
  if (plain.size() != stored.size())
    return op->emitOpError("quantized data must have the same rank as the "
                           "high-precision tensor");
  for (size_t i = 0; i < plain.size(); ++i) {
    int64_t want = plain[i];
    if (packing && i + 1 == plain.size()) {
      std::string why;
      FailureOr<int64_t> p = packedInnerDim(*packing, want, &why, codeBits);
      if (failed(p))
        return op->emitOpError(why) << " (got " << dimStr(want) << ")";
      want = *p;
    }
    int64_t got = stored[i];
    if (!ShapedType::isDynamic(got) && !ShapedType::isDynamic(want) &&
        got != want)
      return op->emitOpError("quantized dimension ")
             << i << " is " << got << ", expected " << want;
  }
  return success();
}

static LogicalResult verifyHadamardSize(Operation *op, int64_t size,
                                        int64_t innerDim) {
  if (size < 2 || size > 128 || (size & (size - 1)))
    return op->emitOpError("hadamard size must be a power of two from 2 to "
                           "128, got ")
           << size;
  if (!ShapedType::isDynamic(innerDim) && innerDim % size)
    return op->emitOpError("hadamard size ")
           << size << " does not divide the innermost dimension " << innerDim;
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

/// An NVFP4 amax or global scale operand `v` (may be null) of rank 1 holds
/// one value per matrix of the rank-3 high-precision side `data`.
static LogicalResult verifyPerMatrix(Operation *op, Value v, StringRef what,
                                     RankedTensorType data, ScalingAttr scaling) {
  if (!v || cast<RankedTensorType>(v.getType()).getRank() != 1)
    return success();
  if (data.getRank() != 3)
    return op->emitOpError("a per-matrix ")
           << what << " (rank 1) needs rank-3 data, got rank " << data.getRank();
  if (!isa<Float8E4M3FNType>(scaling.getScaleType()) || scaling.isPerTensor())
    return op->emitOpError("a per-matrix ")
           << what << " (rank 1) needs e4m3 block scales (NVFP4's global scale per matrix)";
  int64_t n = cast<RankedTensorType>(v.getType()).getDimSize(0);
  int64_t e = data.getDimSize(0);
  if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(e) && n != e)
    return op->emitOpError("has ") << n << " " << what << " values for " << e << " matrices";
  return success();
}

FormatAttr QuantizeOp::getElementFormat() {
  if (FormatAttr f = getFormatAttr())
    return f;
  return FormatAttr::fromType(getResult().getType().getElementType());
}

LogicalResult QuantizeOp::verify() {
  auto inTy = getInput().getType();
  auto outTy = getResult().getType();
  if (inTy.getRank() == 0)
    return emitOpError("needs a tensor of rank >= 1");
  if (std::optional<StringRef> pro = getPrologue()) {
    // The name of an extern "C" device function: a C identifier.
    bool ok = !pro->empty() && (isalpha((unsigned char)pro->front()) ||
                                pro->front() == '_');
    for (char c : *pro)
      ok &= isalnum((unsigned char)c) || c == '_';
    if (!ok)
      return emitOpError("prologue '")
             << *pro << "' is not a C identifier (the name of an extern \"C\" "
             << "__device__ float NAME(float) function)";
    // Names the NVPTX backend gives its own symbols: a function of that name
    // makes PTX that ptxas rejects ("Call target not recognized").
    static const llvm::Regex reserved("^(_|(param|retval)[0-9]+|.*_param_[0-9]+)$");
    if (reserved.match(*pro))
      return emitOpError("prologue '")
             << *pro << "' is a name the PTX backend uses for its own symbols "
             << "(_, paramN, retvalN, NAME_param_N); choose another";
  }
  std::optional<LayoutKind> packing = getPacking();
  FailureOr<FormatAttr> fmt = resolveFormat(
      *this, outTy.getElementType(), getFormatAttr(), packing.has_value(),
      "result");
  if (failed(fmt))
    return failure();
  num::Format f = fmt->getFormat();
  if (f.bits() > 8 || isa<Float8E8M0FNUType>(outTy.getElementType()))
    return emitOpError("cannot quantize elements to the scale format '")
           << f.name << "'";
  if (packing && failed(verifyPackingFormat(*this, *packing, f)))
    return failure();
  // With `transposed`, shapes and blocks are those of the transposed input.
  SmallVector<int64_t> shape(inTy.getShape());
  ScalingAttr scaling = getScaling();
  if (getTransposed()) {
    ArrayRef<int64_t> block = scaling.getBlock();
    if (shape.size() < 2 || block.size() < 2)
      return emitOpError("'transposed' needs a rank >= 2 input and a rank >= 2 "
                         "block");
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    SmallVector<int64_t> tblock(block);
    std::swap(tblock[tblock.size() - 1], tblock[tblock.size() - 2]);
    scaling = ScalingAttr::get(getContext(), tblock, scaling.getRule(),
                               scaling.getScaleType());
  }
  if (failed(verifyDataShape(*this, shape, outTy.getShape(), packing)))
    return failure();
  if (failed(verifyScales(*this, shape, scaling, getScales().getType(),
                          getScaleLayout())))
    return failure();
  bool rs = getRounding() == RoundingKind::rs;
  if (rs && !getSeed())
    return emitOpError("stochastic rounding (rs) needs a 'seed' operand");
  if (!rs && getSeed())
    return emitOpError("a 'seed' operand is only used by stochastic "
                       "rounding (rs)");
  if (getAmax() && getScaling().getRule() != ScaleRule::amax)
    return emitOpError("an 'amax' operand needs the 'amax' scale rule");
  // A given amax sets NVFP4's global scale or a per-tensor scale; other
  // scales come from their own blocks, which would leave it unused.
  if (getAmax() && !getScaling().isPerTensor() &&
      !isa<Float8E4M3FNType>(getScaling().getScaleType()))
    return emitOpError("an 'amax' operand is used by e4m3 block scales (NVFP4's "
                       "global scale) or per-tensor scaling; these ")
           << getScaling().getScaleType() << " block scales come from their own blocks";
  if (failed(verifyPerMatrix(*this, getAmax(), "amax", inTy, getScaling())))
    return failure();
  if (std::optional<int64_t> h = getHadamard())
    if (failed(verifyHadamardSize(*this, *h, inTy.getShape().back())))
      return failure();
  if (getHadamardSeed() && !getHadamard())
    return emitOpError("'hadamard_seed' without 'hadamard'");
  // Only E8M0 scales have the choice; the other kinds' non-finite blocks are
  // fixed (docs/formats.md, "Non-finite inputs").
  if (getNonfinite() && !isa<Float8E8M0FNUType>(getScaling().getScaleType()))
    return emitOpError("'nonfinite' is a choice of E8M0 (f8E8M0FNU) scales; these ")
           << getScaling().getScaleType() << " scales have a fixed behaviour";
  return success();
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

FormatAttr DequantizeOp::getElementFormat() {
  if (FormatAttr f = getFormatAttr())
    return f;
  return FormatAttr::fromType(getInput().getType().getElementType());
}

LogicalResult DequantizeOp::verify() {
  auto inTy = cast<RankedTensorType>(getInput().getType());
  auto outTy = getResult().getType();
  if (outTy.getRank() == 0 || inTy.getRank() == 0)
    return emitOpError("needs tensors of rank >= 1");
  std::optional<LayoutKind> packing = getPacking();
  FailureOr<FormatAttr> fmt = resolveFormat(
      *this, inTy.getElementType(), getFormatAttr(), packing.has_value(),
      "input");
  if (failed(fmt))
    return failure();
  if (packing && failed(verifyPackingFormat(*this, *packing, fmt->getFormat())))
    return failure();
  if (failed(verifyDataShape(*this, outTy.getShape(), inTy.getShape(),
                             packing, fmt->getFormat().bits())))
    return failure();
  if (failed(verifyScales(*this, outTy.getShape(), getScaling(),
                          cast<RankedTensorType>(getScales().getType()),
                          getScaleLayout())))
    return failure();
  if (getAmax() && getScaling().getRule() != ScaleRule::amax)
    return emitOpError("an 'amax' operand needs the 'amax' scale rule");
  if (getAmax() && getGlobalScale())
    return emitOpError("takes the NVFP4 global scale as an 'amax' or as a "
                       "'global_scale' operand, not both");
  if (failed(verifyPerMatrix(*this, getAmax(), "amax", outTy, getScaling())) ||
      failed(verifyPerMatrix(*this, getGlobalScale(), "global_scale", outTy, getScaling())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// PackOp / UnpackOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyPackPair(Operation *op, RankedTensorType codes,
                                    RankedTensorType bytes, LayoutKind layout,
                                    FormatAttr attr) {
  if (codes.getRank() == 0 || bytes.getRank() == 0)
    return op->emitOpError("needs tensors of rank >= 1");
  FailureOr<FormatAttr> fmt =
      resolveFormat(op, codes.getElementType(), attr, false, "unpacked");
  if (failed(fmt))
    return failure();
  if (failed(verifyPackingFormat(op, layout, fmt->getFormat())))
    return failure();
  return verifyDataShape(op, codes.getShape(), bytes.getShape(), layout,
                         fmt->getFormat().bits());
}

LogicalResult PackOp::verify() {
  return verifyPackPair(*this, getInput().getType(), getResult().getType(),
                        getLayout(), getFormatAttr());
}

LogicalResult UnpackOp::verify() {
  return verifyPackPair(*this, getResult().getType(), getInput().getType(),
                        getLayout(), getFormatAttr());
}

//===----------------------------------------------------------------------===//
// SwizzleScalesOp
//===----------------------------------------------------------------------===//

LogicalResult SwizzleScalesOp::verify() {
  auto inTy = getInput().getType();
  auto outTy = getResult().getType();
  if (getLayout() != LayoutKind::blocked_128x4)
    return emitOpError("layout must be blocked_128x4");
  if (inTy.getRank() != 2 || outTy.getRank() != 2)
    return emitOpError("scales must be rank 2");
  if (inTy.getElementType() != outTy.getElementType())
    return emitOpError("swizzling keeps the element type");
  int64_t r = inTy.getDimSize(0), c = inTy.getDimSize(1);
  int64_t wantR = ShapedType::isDynamic(r) ? r : ceilDiv(r, 128) * 128;
  int64_t wantC = ShapedType::isDynamic(c) ? c : ceilDiv(c, 4) * 4;
  if (auto offs = getOffsets()) {
    int64_t groups = offs.getType().getDimSize(0);
    if (!ShapedType::isDynamic(r) && !ShapedType::isDynamic(groups))
      wantR = ceilDiv(r + 128 * groups, 128) * 128;
    else
      wantR = ShapedType::kDynamic;
  }
  int64_t gotR = outTy.getDimSize(0), gotC = outTy.getDimSize(1);
  if (!ShapedType::isDynamic(gotR) && !ShapedType::isDynamic(wantR) &&
      gotR != wantR)
    return emitOpError("swizzled scales need ")
           << wantR << " rows (padded to a multiple of 128), got " << gotR;
  if (!ShapedType::isDynamic(gotC) && !ShapedType::isDynamic(wantC) &&
      gotC != wantC)
    return emitOpError("swizzled scales need ")
           << wantC << " columns (padded to a multiple of 4), got " << gotC;
  return success();
}

//===----------------------------------------------------------------------===//
// AmaxOp / HadamardOp
//===----------------------------------------------------------------------===//

LogicalResult AmaxOp::verify() {
  auto resTy = cast<RankedTensorType>(getResult().getType());
  if (resTy.getRank() == 1) {
    auto inTy = getInput().getType();
    if (inTy.getRank() != 3)
      return emitOpError("an amax per matrix (rank-1 result) needs a rank-3 input, got rank ")
             << inTy.getRank();
    int64_t n = resTy.getDimSize(0), e = inTy.getDimSize(0);
    if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(e) && n != e)
      return emitOpError("has ") << n << " results for " << e << " matrices";
  }
  if (getHadamardSeed() && !getHadamard())
    return emitOpError("'hadamard_seed' without 'hadamard'");
  if (std::optional<int64_t> h = getHadamard()) {
    if (getInput().getType().getRank() == 0)
      return emitOpError("a fused hadamard needs a tensor of rank >= 1");
    return verifyHadamardSize(*this, *h, getInput().getType().getShape().back());
  }
  return success();
}

LogicalResult HadamardOp::verify() {
  if (getInput().getType().getRank() == 0)
    return emitOpError("needs a tensor of rank >= 1");
  return verifyHadamardSize(*this, getSize(),
                            getInput().getType().getShape().back());
}

//===----------------------------------------------------------------------===//
// Matmuls
//===----------------------------------------------------------------------===//

static LogicalResult checkDim(Operation *op, int64_t a, int64_t b,
                              const Twine &what) {
  if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
    return op->emitOpError(what) << " mismatch: " << a << " vs " << b;
  return success();
}

LogicalResult MatmulOp::verify() {
  auto a = getLhs().getType(), b = getRhs().getType(), c = getResult().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands and result must be rank 2");
  int64_t bk = getTransposeB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t bn = getTransposeB() ? b.getDimSize(0) : b.getDimSize(1);
  if (failed(checkDim(*this, a.getDimSize(1), bk, "contraction dimension")) ||
      failed(checkDim(*this, a.getDimSize(0), c.getDimSize(0), "M")) ||
      failed(checkDim(*this, bn, c.getDimSize(1), "N")))
    return failure();
  return success();
}

/// Unpacked K extent of a scaled-matmul operand (`fmt` its codes' format,
/// null if unknown).
static int64_t logicalK(RankedTensorType t, std::optional<LayoutKind> packing,
                        FormatAttr fmt) {
  int64_t k = t.getDimSize(1);
  if (!packing || ShapedType::isDynamic(k))
    return k;
  if (*packing == LayoutKind::fp4x2)
    return k * 2;
  if (*packing == LayoutKind::mma_tiles && fmt && fmt.getFormat().bits() < 8)
    return k * 8 / fmt.getFormat().bits(); // K * bits / 8 bytes a row (verified)
  if (isFp6FourInThree(*packing))
    return k / 3 * 4;
  return k;
}

LogicalResult ScaledMatmulOp::verify() {
  auto a = cast<RankedTensorType>(getLhs().getType());
  auto b = cast<RankedTensorType>(getRhs().getType());
  auto c = getResult().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands and result must be rank 2");
  if (bool(getLhsScales()) != bool(getLhsScalingAttr()))
    return emitOpError("lhs scales and lhs_scaling go together");
  if (bool(getRhsScales()) != bool(getRhsScalingAttr()))
    return emitOpError("rhs scales and rhs_scaling go together");
  FormatAttr rhsFmt = getRhsFormatAttr()
                          ? getRhsFormatAttr()
                          : FormatAttr::fromType(b.getElementType());
  if (auto packing = getRhsPacking()) {
    if (!rhsFmt)
      return emitOpError("a packed rhs needs rhs_format (or an FPx element type)");
    if (failed(verifyPackingFormat(*this, *packing, rhsFmt.getFormat())))
      return failure();
    int bits = rhsFmt.getFormat().bits();
    if (*packing == LayoutKind::mma_tiles && bits < 8) {
      // Narrower codes are bytes of the tiles, K * bits / 8 a row.
      if (!b.getElementType().isInteger(8))
        return emitOpError("mma_tiles holds ")
               << bits << "-bit codes as i8 bytes (K * " << bits << " / 8 a row), not "
               << b.getElementType();
      int64_t k = b.getDimSize(1);
      if (!ShapedType::isDynamic(k) && (k * 8) % bits)
        return emitOpError("mma_tiles rows of ")
               << bits << "-bit codes are K * " << bits << " / 8 bytes; " << k
               << " bytes hold no whole number of codes";
    }
  }
  FormatAttr lhsFmt = getLhsFormatAttr()
                          ? getLhsFormatAttr()
                          : FormatAttr::fromType(a.getElementType());
  if (auto packing = getLhsPacking()) {
    if (*packing != LayoutKind::fp4x2)
      return emitOpError("lhs_packing must be fp4x2 (e2m1 codes two a byte)");
    if (!lhsFmt)
      return emitOpError("a packed lhs needs lhs_format (or an FPx element type)");
    if (failed(verifyPackingFormat(*this, *packing, lhsFmt.getFormat())))
      return failure();
  }
  if (getLhsGlobalScale() &&
      (!getLhsScales() || !isa<Float8E4M3FNType>(getLhsScaling()->getScaleType()) ||
       getLhsScaling()->isPerTensor()))
    return emitOpError("an lhs global_scale (NVFP4's tensor scale) needs e4m3 block "
                       "scales on the lhs");
  if (getRhsGlobalScale() &&
      (!getRhsScales() || !isa<Float8E4M3FNType>(getRhsScaling()->getScaleType()) ||
       getRhsScaling()->isPerTensor()))
    return emitOpError("a global_scale (NVFP4's tensor scale) needs e4m3 block "
                       "scales on the rhs");
  int64_t lhsK = logicalK(a, getLhsPacking(), lhsFmt);
  if (failed(checkDim(*this, lhsK, logicalK(b, getRhsPacking(), rhsFmt),
                      "contraction dimension")) ||
      failed(checkDim(*this, a.getDimSize(0), c.getDimSize(0), "M")) ||
      failed(checkDim(*this, b.getDimSize(0), c.getDimSize(1), "N")))
    return failure();
  // A scale layout other than row-major: byte scales of [1, block] blocks
  // in blocked_128x4 tiles (MXFP8's e8m0, NVFP4's e4m3).
  for (auto [side, scales, scaling, layout] :
       {std::tuple("lhs", getLhsScales(), getLhsScalingAttr(), getLhsScaleLayout()),
        std::tuple("rhs", getRhsScales(), getRhsScalingAttr(), getRhsScaleLayout())}) {
    if (!layout || *layout == LayoutKind::row_major)
      continue;
    if (*layout != LayoutKind::blocked_128x4)
      return emitOpError(side) << "_scale_layout must be row_major or blocked_128x4";
    if (!scales)
      return emitOpError(side) << "_scale_layout needs " << side << " scales";
    ArrayRef<int64_t> blk = scaling.getBlock();
    if (scaling.getScaleType().getIntOrFloatBitWidth() != 8 || blk.size() != 2 || blk[0] != 1 ||
        blk[1] <= 0)
      return emitOpError(side) << "_scale_layout blocked_128x4 holds byte scales of [1, n] "
                                  "blocks (e8m0 or e4m3), not "
                               << Attribute(scaling);
  }
  // f32 block scales (blockwise FP8) may end in a partial block: scales
  // are ceil(dim / block) along each dimension.
  if (getLhsScales() &&
      failed(verifyScales(*this, {a.getDimSize(0), lhsK}, *getLhsScaling(),
                          cast<RankedTensorType>(getLhsScales().getType()),
                          getLhsScaleLayout(), getLhsScaling()->getScaleType().isF32())))
    return failure();
  if (getRhsScales()) {
    SmallVector<int64_t> bShape = {b.getDimSize(0),
                                   logicalK(b, getRhsPacking(), rhsFmt)};
    if (failed(verifyScales(*this, bShape, *getRhsScaling(),
                            cast<RankedTensorType>(getRhsScales().getType()),
                            getRhsScaleLayout(), getRhsScaling()->getScaleType().isF32())))
      return failure();
  }
  if (Value bias = getBias()) {
    auto bt = cast<RankedTensorType>(bias.getType());
    if (bt.getRank() != 1)
      return emitOpError("bias must be rank 1 (one value per column of the result), got rank ")
             << bt.getRank();
    Type e = bt.getElementType();
    if (!e.isBF16() && !e.isF16() && !e.isF32())
      return emitOpError("bias element type must be bf16, f16 or f32, got ") << e;
    if (failed(checkDim(*this, bt.getDimSize(0), c.getDimSize(1), "bias length (N)")))
      return failure();
  }
  return success();
}

LogicalResult GroupedMatmulOp::verify() {
  auto a = cast<RankedTensorType>(getLhs().getType());
  auto b = cast<RankedTensorType>(getRhs().getType());
  auto c = getResult().getType();
  int64_t groups = getOffsets().getType().getDimSize(0);
  if (a.getRank() != 2)
    return emitOpError("lhs must be rank 2");
  if (bool(getLhsScales()) != bool(getRhsScales()))
    return emitOpError("give both operand scales or neither");
  if (bool(getLhsScales()) != bool(getLhsScalingAttr()) ||
      bool(getRhsScales()) != bool(getRhsScalingAttr()))
    return emitOpError("scales and lhs_scaling / rhs_scaling go together");
  // As fpx.scaled_matmul's: A's scales over (M, K); a rank-3 B's over each
  // of its (N, K) matrices (rowwise [1, *]: [G, N, 1]).
  if (getLhsScales() &&
      (failed(verifyScales(*this, a.getShape(), *getLhsScaling(),
                           cast<RankedTensorType>(getLhsScales().getType()), std::nullopt,
                           getLhsScaling()->getScaleType().isF32())) ||
       failed(verifyScales(*this, b.getShape(), *getRhsScaling(),
                           cast<RankedTensorType>(getRhsScales().getType()), std::nullopt,
                           getRhsScaling()->getScaleType().isF32()))))
    return failure();
  if (b.getRank() == 3) {
    if (c.getRank() != 2)
      return emitOpError("2D x 3D grouped matmul gives a rank-2 result");
    if (failed(checkDim(*this, b.getDimSize(0), groups, "group count")) ||
        failed(checkDim(*this, a.getDimSize(1), b.getDimSize(2),
                        "contraction dimension")) ||
        failed(checkDim(*this, a.getDimSize(0), c.getDimSize(0), "M")) ||
        failed(checkDim(*this, b.getDimSize(1), c.getDimSize(1), "N")))
      return failure();
    return success();
  }
  if (b.getRank() == 2) {
    if (c.getRank() != 3)
      return emitOpError("2D x 2D grouped matmul gives a rank-3 result "
                         "(groups, M, N)");
    if (failed(checkDim(*this, a.getDimSize(1), b.getDimSize(1),
                        "contraction dimension")) ||
        failed(checkDim(*this, c.getDimSize(0), groups, "group count")) ||
        failed(checkDim(*this, a.getDimSize(0), c.getDimSize(1), "M")) ||
        failed(checkDim(*this, b.getDimSize(0), c.getDimSize(2), "N")))
      return failure();
    return success();
  }
  return emitOpError("rhs must be rank 2 or 3");
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  num::Format f = getFormat().getFormat();
  int64_t n = getInput().getType().getNumElements();
  int64_t want = n * (f.bits() <= 4 ? 4 : 8);
  if (getResult().getType().getIntOrFloatBitWidth() != want)
    return emitOpError("result must be i") << want << " for " << n
                                           << " codes of '" << f.name << "'";
  bool rs = getRounding() == RoundingKind::rs;
  if (rs != bool(getRbits()))
    return emitOpError("'rbits' goes with rs rounding, and only with it");
  if (rs && n != 4)
    return emitOpError("rs conversion takes 4 values");
  if (n == 8 && !getInput().getType().getElementType().isF32())
    return emitOpError("8 values must be f32");
  if (getInput().getType().getElementType().isBF16() && rs)
    return emitOpError("bf16 input takes rn or rz rounding");
  if (getBounded() && (!rs || getInRange()))
    return emitOpError("'bounded' goes with rs rounding and without 'in_range'");
  return success();
}
