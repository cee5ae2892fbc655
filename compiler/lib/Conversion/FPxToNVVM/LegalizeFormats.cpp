//===- LegalizeFormats.cpp - fpx.convert -> native cvt or emulation -------===//
//
// The only place where a conversion becomes target specific. The target row
// says which `cvt` exists; PTX cvt puts its FIRST source in the HIGH half of
// the result, fpx.convert keeps element 0 in the LOW bits, so operands are
// passed in reverse.
//
//===----------------------------------------------------------------------===//
#include "ConvertEmulation.h"
#include "fpx/Conversion/Passes.h"
#include "fpx/Target/TargetInfo.h"

#include "mlir/IR/PatternMatch.h"

namespace fpx {
#define GEN_PASS_DEF_FPXLEGALIZEFORMATS
#include "fpx/Conversion/Passes.h.inc"
} // namespace fpx

using namespace mlir;
using namespace fpx;

namespace {

/// PTX type suffix of a native x2/x4 conversion, or empty.
StringRef ptxName(StringRef fmt) {
  return llvm::StringSwitch<StringRef>(fmt)
      .Case("e4m3fn", "e4m3")
      .Case("e5m2", "e5m2")
      .Case("e2m3fn", "e2m3")
      .Case("e3m2fn", "e3m2")
      .Case("e2m1fn", "e2m1")
      .Default("");
}

/// The native instruction for `op` on `target`, as inline asm, or null.
Value emitNative(OpBuilder &b, ConvertOp op, const TargetInfo &target) {
  num::Format fmt = op.getFormat().getFormat();
  std::optional<num::Format> named = num::lookupFormat(fmt.name);
  StringRef name = ptxName(fmt.name);
  if (name.empty() || !named || *named != fmt || op.getOverflowToSpecial())
    return {};
  bool f8 = name == "e4m3" || name == "e5m2";
  bool f4 = name == "e2m1";
  Location loc = op.getLoc();
  Value in = op.getInput();
  int64_t n = cast<VectorType>(in.getType()).getNumElements();
  SmallVector<Value> elems;
  for (int64_t i = 0; i < n; ++i)
    elems.push_back(LLVM::ExtractElementOp::create(
        b, loc, in, arith::ConstantIntOp::create(b, loc, i, 32)));
  Type resTy = op.getResult().getType();
  auto asmOp = [&](Type t, StringRef text, StringRef constraints,
                   ValueRange operands) -> Value {
    return LLVM::InlineAsmOp::create(
               b, loc, t, operands, text, constraints, /*has_side_effects=*/false,
               /*is_align_stack=*/false, LLVM::TailCallKind::None,
               LLVM::AsmDialectAttr{}, ArrayAttr{})
        .getResult(0);
  };
  switch (op.getRounding()) {
  case RoundingKind::rn: {
    if (n != 2 || !target.has(f8 ? CvtF8x2 : CvtF6F4x2))
      return {};
    if (f4) {
      std::string text = "{\n.reg .b8 t;\n.reg .b16 h;\ncvt.rn.satfinite.e2m1x2.f32 "
                         "t, $2, $1;\nmov.b16 h, {t, t};\ncvt.u32.u16 $0, h;\n}";
      Value r = asmOp(b.getI32Type(), text, "=r,f,f", elems);
      return arith::TruncIOp::create(b, loc, resTy, r);
    }
    std::string text =
        ("cvt.rn.satfinite." + name + "x2.f32 $0, $2, $1;").str();
    return asmOp(resTy, text, "=h,f,f", elems);
  }
  case RoundingKind::rs: {
    if (n != 4 || !target.has(CvtRs))
      return {};
    std::string text =
        ("cvt.rs.satfinite." + name + "x4.f32 $0, {$4, $3, $2, $1}, $5;").str();
    SmallVector<Value> operands(elems);
    operands.push_back(op.getRbits());
    return asmOp(resTy, text, f4 ? "=h,f,f,f,f,r" : "=r,f,f,f,f,r", operands);
  }
  case RoundingKind::rz:
    return {};
  }
  return {};
}

/// e2m3 / e3m2 under rn + satfinite on a target with the fp8 cvt: scaled by
/// 2^-6 (2^-12), an e2m3 (e3m2) value is an e4m3 (e5m2) value with the same
/// exponent field, mantissa and subnormal quantum, so after clamping to the
/// fp6 range the native fp8 cvt rounds exactly as fp6 would; only the sign
/// moves from bit 7 to bit 5. minnum/maxnum clamp NaN to +max, the numerics
/// core's NaN result for these formats.
Value emitFp6ViaFp8(OpBuilder &b, ConvertOp op, const TargetInfo &target) {
  num::Format fmt = op.getFormat().getFormat();
  bool e2m3 = fmt == num::e2m3fn(), e3m2 = fmt == num::e3m2fn();
  Value in = op.getInput();
  if ((!e2m3 && !e3m2) || op.getRounding() != RoundingKind::rn ||
      op.getOverflowToSpecial() || !target.has(CvtF8x2) ||
      cast<VectorType>(in.getType()).getNumElements() != 2)
    return {};
  Location loc = op.getLoc();
  float maxv = static_cast<float>(fmt.maxFinite());
  float scale = std::ldexp(1.0f, e2m3 ? -6 : -12);
  SmallVector<Value> elems;
  for (int i = 0; i < 2; ++i) {
    Value x = LLVM::ExtractElementOp::create(
        b, loc, in, arith::ConstantIntOp::create(b, loc, i, 32));
    auto cst = [&](float v) {
      return arith::ConstantFloatOp::create(b, loc, b.getF32Type(), llvm::APFloat(v));
    };
    x = arith::MinNumFOp::create(b, loc, x, cst(maxv));
    x = arith::MaxNumFOp::create(b, loc, x, cst(-maxv));
    elems.push_back(arith::MulFOp::create(b, loc, x, cst(scale)));
  }
  std::string text = std::string("cvt.rn.satfinite.") + (e2m3 ? "e4m3" : "e5m2") +
                     "x2.f32 $0, $2, $1;";
  Type i16 = b.getI16Type();
  Value c = LLVM::InlineAsmOp::create(b, loc, i16, elems, text, "=h,f,f",
                                      false, false, LLVM::TailCallKind::None,
                                      LLVM::AsmDialectAttr{}, ArrayAttr{})
                .getResult(0);
  auto k16 = [&](int v) { return arith::ConstantIntOp::create(b, loc, i16, v); };
  Value mag = arith::AndIOp::create(b, loc, c, k16(e2m3 ? 0x3f3f : 0x1f1f));
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, c, k16(2)), k16(0x2020));
  return arith::OrIOp::create(b, loc, mag, sign);
}

/// Exact emulation of any fpx.convert.
Value emitEmulated(OpBuilder &b, ConvertOp op) {
  num::Format fmt = op.getFormat().getFormat();
  Location loc = op.getLoc();
  num::Rounding r = op.getRounding() == RoundingKind::rn   ? num::Rounding::RN
                    : op.getRounding() == RoundingKind::rz ? num::Rounding::RZ
                                                           : num::Rounding::RS;
  num::Overflow ov = op.getOverflowToSpecial() ? num::Overflow::ToInfOrNaN
                                               : num::Overflow::SatFinite;
  Value in = op.getInput();
  int64_t n = cast<VectorType>(in.getType()).getNumElements();
  unsigned width = fmt.bits() <= 4 ? 4 : 8;
  Type resTy = op.getResult().getType();
  Type i32 = b.getI32Type();
  // Element i is cvt.rs operand (3 - i); the random byte it consumes:
  static const int kShiftF8F6[4] = {0, 8, 16, 24};
  static const int kShiftF4[4] = {0, 16, 8, 24};
  Value acc = arith::ConstantIntOp::create(b, loc, resTy, 0);
  for (int64_t i = 0; i < n; ++i) {
    Value x = LLVM::ExtractElementOp::create(
        b, loc, in, arith::ConstantIntOp::create(b, loc, i, 32));
    Value rb;
    if (r == num::Rounding::RS) {
      int sh = (width == 4 ? kShiftF4 : kShiftF8F6)[i];
      rb = arith::ShRUIOp::create(b, loc, op.getRbits(),
                                  arith::ConstantIntOp::create(b, loc, sh, 32));
    }
    Value code = emitEncode(b, loc, fmt, r, ov, x, rb);
    // Codes never exceed their format's bits, so no mask is needed.
    Value wide = resTy == i32 ? code
                 : resTy.getIntOrFloatBitWidth() < 32
                     ? (Value)arith::TruncIOp::create(b, loc, resTy, code)
                     : (Value)arith::ExtUIOp::create(b, loc, resTy, code);
    Value shifted = arith::ShLIOp::create(
        b, loc, wide, arith::ConstantIntOp::create(b, loc, resTy, i * width));
    acc = arith::OrIOp::create(b, loc, acc, shifted);
  }
  return acc;
}

struct FPxLegalizeFormats
    : public fpx::impl::FPxLegalizeFormatsBase<FPxLegalizeFormats> {
  using Base::Base;

  void runOnOperation() override {
    const TargetInfo *target = lookupTarget(chip);
    if (!target) {
      getOperation().emitError("unknown target '")
          << chip << "' (known: " << targetNames() << ")";
      return signalPassFailure();
    }
    SmallVector<ConvertOp> converts;
    getOperation().walk([&](ConvertOp op) { converts.push_back(op); });
    for (ConvertOp op : converts) {
      OpBuilder b(op);
      Value v = emitNative(b, op, *target);
      if (!v) {
        if (!allowEmulation) {
          op.emitError("target ")
              << chip << " has no native conversion to '"
              << op.getFormat().getName() << "' with "
              << stringifyRoundingKind(op.getRounding())
              << " rounding, and emulation is disabled";
          return signalPassFailure();
        }
        v = emitFp6ViaFp8(b, op, *target);
        if (!v)
          v = emitEmulated(b, op);
      }
      op.replaceAllUsesWith(v);
      op.erase();
    }
  }
};

} // namespace
