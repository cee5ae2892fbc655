//===- LegalizeFormats.cpp - fpx.convert -> native cvt or emulation -------===//
//
// The only place where a conversion becomes target specific. The target row
// says which `cvt` exists; PTX cvt puts its FIRST source in the HIGH half of
// the result, fpx.convert keeps element 0 in the LOW bits, so operands are
// passed in reverse.
//
//===----------------------------------------------------------------------===//
#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Conversion/FPxToNVVM/ConvertEmulation.h"
#include "fpx/Conversion/Passes.h"
#include "fpx/Dialect/FPx/IR/FPxVocabulary.h"
#include "fpx/Target/TargetInfo.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <cstdio>
#include <cstring>

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
    return KernelBuilder(b, loc).ptx(t, text, constraints, operands);
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
  Value c = KernelBuilder(b, loc).ptx(i16, text, "=h,f,f", elems);
  auto k16 = [&](int v) { return arith::ConstantIntOp::create(b, loc, i16, v); };
  Value mag = arith::AndIOp::create(b, loc, c, k16(e2m3 ? 0x3f3f : 0x1f1f));
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, c, k16(2)), k16(0x2020));
  return arith::OrIOp::create(b, loc, mag, sign);
}

/// e2m1 rn + satfinite of 2 or 4 bf16 values with packed bf16x2 arithmetic,
/// two values per instruction, bit-identical to the f32 emulation of their
/// widenings. Per 16-bit half: a = min(|x|, 6) (NaN gives 6, +max, as the
/// numerics core); t = the exponent of max(a, 1), a power of two 1, 2 or 4,
/// so 64 t is 64, 128 or 256, whose bf16 ulp is the e2m1 quantum of a's
/// binade (1/2 below 2, then 1, then 2); y = a + 64 t, one fma, rounds a to
/// nearest even on the e2m1 grid; the low three bits of y + (bits(t) >> 6)
/// + 2 are then the code (each binade's offset folds into the exponent
/// bits). The sign comes from x unless x is NaN. Words of two codes hold
/// element 2i in bits 0-3 and 2i+1 in bits 16-19; two words merge into the
/// four nibbles of an i16.
Value emitE2M1Bf16x2(OpBuilder &b, ConvertOp op) {
  Location loc = op.getLoc();
  int64_t n = cast<VectorType>(op.getInput().getType()).getNumElements();
  Type i32 = b.getI32Type();
  SmallVector<Value> words;
  if (n == 2) {
    words.push_back(LLVM::BitcastOp::create(b, loc, i32, op.getInput()));
  } else {
    Type i64 = b.getI64Type();
    Value d = LLVM::BitcastOp::create(b, loc, i64, op.getInput());
    words.push_back(arith::TruncIOp::create(b, loc, i32, d));
    Value hi = arith::ShRUIOp::create(b, loc, d, arith::ConstantIntOp::create(b, loc, i64, 32));
    words.push_back(arith::TruncIOp::create(b, loc, i32, hi));
  }
  std::string text = "{\n"
                     ".reg .b32 a, t, y, s, m, u0, u1, c6, c1, c64;\n"
                     "mov.b32 c6, 0x40C040C0;\n"
                     "mov.b32 c1, 0x3F803F80;\n"
                     "mov.b32 c64, 0x42804280;\n";
  for (int64_t wi = 0; wi < n / 2; ++wi) {
    std::string x = "$" + std::to_string(wi + 1), u = "u" + std::to_string(wi);
    text += "abs.bf16x2 a, " + x + ";\n"
            "min.bf16x2 a, a, c6;\n"
            "max.bf16x2 t, a, c1;\n"
            "and.b32 t, t, 0x7F807F80;\n"
            "fma.rn.bf16x2 y, t, c64, a;\n"
            "shr.b32 t, t, 6;\n"
            "add.u32 y, y, t;\n"
            "add.u32 y, y, 0x00020002;\n"
            "set.num.u32.bf16x2 m, " + x + ", " + x + ";\n"
            "lop3.b32 s, " + x + ", m, 0x80008000, 0x80;\n" // x & m & signs
            "shr.b32 s, s, 12;\n"
            "lop3.b32 " + u + ", y, 0x00070007, s, 0xEA;\n"; // (y & 7) | s
  }
  if (n == 4)
    text += "shl.b32 u1, u1, 8;\n"
            "add.u32 u0, u0, u1;\n";
  text += "shr.b32 s, u0, 12;\n"
          "add.u32 $0, u0, s;\n"
          "}";
  SmallVector<std::string> cons(1, "=r");
  for (size_t i = 0; i < words.size(); ++i)
    cons.push_back("r");
  Value r = KernelBuilder(b, loc).ptx(i32, text, llvm::join(cons, ","), words);
  return arith::TruncIOp::create(b, loc, op.getResult().getType(), r);
}

/// e2m3 / e3m2 of bf16 values on a target with the fp8 cvt and bf16x2
/// arithmetic: as emitFp6ViaFp8, with the clamp and the exact 2^-6 (2^-12)
/// scaling done two values per instruction before widening; returns the
/// codes and the e4m3 (e5m2) bf16 convert still to be legalized.
std::pair<Value, ConvertOp> emitFp6ViaFp8Bf16(OpBuilder &b, ConvertOp op) {
  num::Format fmt = op.getFormat().getFormat();
  bool e2m3 = fmt == num::e2m3fn();
  Location loc = op.getLoc();
  Type i32 = b.getI32Type();
  auto vt = cast<VectorType>(op.getInput().getType());
  int64_t n = vt.getNumElements();
  Value words = LLVM::BitcastOp::create(b, loc, VectorType::get({n / 2}, i32),
                                        op.getInput());
  auto bf16Pair = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return (u >> 16) * 0x10001u; // exact: every constant here is a bf16
  };
  char consts[160];
  std::snprintf(consts, sizeof consts,
                "mov.b32 hi, 0x%08X;\nmov.b32 lo, 0x%08X;\nmov.b32 sc, 0x%08X;\n",
                bf16Pair(float(fmt.maxFinite())), bf16Pair(-float(fmt.maxFinite())),
                bf16Pair(std::ldexp(1.0f, e2m3 ? -6 : -12)));
  std::string text = std::string("{\n.reg .b32 hi, lo, sc, t;\n") + consts +
                     "min.bf16x2 t, $1, hi;\n"
                     "max.bf16x2 t, t, lo;\n"
                     "mul.rn.bf16x2 $0, t, sc;\n}";
  Value scaled = LLVM::UndefOp::create(b, loc, VectorType::get({n / 2}, i32));
  for (int64_t w = 0; w < n / 2; ++w) {
    Value idx = arith::ConstantIntOp::create(b, loc, i32, w);
    Value x = LLVM::ExtractElementOp::create(b, loc, words, idx);
    Value y = KernelBuilder(b, loc).ptx(i32, text, "=r,r", {x});
    scaled = LLVM::InsertElementOp::create(b, loc, scaled, y, idx);
  }
  Value in = LLVM::BitcastOp::create(b, loc, vt, scaled);
  num::Format f8 = e2m3 ? num::e4m3fn() : num::e5m2();
  auto f8Op = ConvertOp::create(b, loc, op.getResult().getType(), in, Value(),
                                FormatAttr::get(b.getContext(), f8.name, f8.bias),
                                op.getRoundingAttr(), UnitAttr());
  Type rt = op.getResult().getType();
  auto splat = [&](uint8_t byte) {
    uint64_t v = 0;
    for (unsigned i = 0; i < rt.getIntOrFloatBitWidth() / 8; ++i)
      v |= uint64_t(byte) << (8 * i);
    return arith::ConstantIntOp::create(b, loc, rt, v);
  };
  Value c = f8Op.getResult();
  Value mag = arith::AndIOp::create(b, loc, c, splat(e2m3 ? 0x3f : 0x1f));
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, c, arith::ConstantIntOp::create(b, loc, rt, 2)),
      splat(0x20));
  return {arith::OrIOp::create(b, loc, mag, sign), f8Op};
}

/// The same conversion of the exact f32 widenings of a bf16 fpx.convert, as
/// 2-value f32 converts (the shape of the native x2 cvt); returns them.
SmallVector<ConvertOp> widenBf16(OpBuilder &b, ConvertOp op) {
  Location loc = op.getLoc();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Type resTy = op.getResult().getType();
  int64_t n = cast<VectorType>(op.getInput().getType()).getNumElements();
  unsigned pairBits = resTy.getIntOrFloatBitWidth() * 2 / n;
  auto cst = [&](uint32_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); };
  Value words = LLVM::BitcastOp::create(b, loc, VectorType::get({n / 2}, i32),
                                        op.getInput());
  SmallVector<ConvertOp> out;
  Value acc = arith::ConstantIntOp::create(b, loc, resTy, 0);
  for (int64_t p = 0; p < n / 2; ++p) {
    Value w = LLVM::ExtractElementOp::create(b, loc, words, cst(p));
    Value lo = arith::BitcastOp::create(b, loc, f32, arith::ShLIOp::create(b, loc, w, cst(16)));
    Value hi = arith::BitcastOp::create(
        b, loc, f32, arith::AndIOp::create(b, loc, w, cst(0xffff0000u)));
    Value v = LLVM::UndefOp::create(b, loc, VectorType::get({2}, f32));
    v = LLVM::InsertElementOp::create(b, loc, v, lo, cst(0));
    v = LLVM::InsertElementOp::create(b, loc, v, hi, cst(1));
    auto c = ConvertOp::create(b, loc, b.getIntegerType(pairBits), v, Value(),
                               op.getFormatAttr(), op.getRoundingAttr(),
                               op.getOverflowToSpecialAttr());
    out.push_back(c);
    Value part = c.getResult();
    if (pairBits != resTy.getIntOrFloatBitWidth())
      part = arith::ShLIOp::create(
          b, loc, arith::ExtUIOp::create(b, loc, resTy, part),
          arith::ConstantIntOp::create(b, loc, resTy, p * pairBits));
    acc = arith::OrIOp::create(b, loc, acc, part);
  }
  op.replaceAllUsesWith(acc);
  op.erase();
  return out;
}

/// An 8-value fpx.convert: e2m1 rn emulated in one packed sequence where the
/// target has no native e2m1 cvt; otherwise four 2-value converts (each then
/// legalized on its own), which are returned.
SmallVector<ConvertOp> legalizeEight(OpBuilder &b, ConvertOp op,
                                     const TargetInfo &target, bool allowEmulation) {
  Location loc = op.getLoc();
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); };
  SmallVector<Value> elems;
  for (int i = 0; i < 8; ++i)
    elems.push_back(LLVM::ExtractElementOp::create(b, loc, op.getInput(), cst(i)));
  if (allowEmulation && op.getFormat().getFormat() == num::e2m1fn() &&
      op.getRounding() == RoundingKind::rn && !op.getOverflowToSpecial() &&
      !target.has(CvtF6F4x2)) {
    op.replaceAllUsesWith(emitE2M1RnSatX8(b, loc, elems, op.getInRange()));
    op.erase();
    return {};
  }
  Type resTy = op.getResult().getType();
  unsigned pairBits = resTy.getIntOrFloatBitWidth() / 4;
  Type f32 = b.getF32Type();
  SmallVector<ConvertOp> out;
  Value acc = arith::ConstantIntOp::create(b, loc, resTy, 0);
  for (int p = 0; p < 4; ++p) {
    Value v = LLVM::UndefOp::create(b, loc, VectorType::get({2}, f32));
    v = LLVM::InsertElementOp::create(b, loc, v, elems[2 * p], cst(0));
    v = LLVM::InsertElementOp::create(b, loc, v, elems[2 * p + 1], cst(1));
    auto c = ConvertOp::create(b, loc, b.getIntegerType(pairBits), v, Value(),
                               op.getFormatAttr(), op.getRoundingAttr(),
                               op.getOverflowToSpecialAttr());
    out.push_back(c);
    Value part = arith::ShLIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, resTy, c.getResult()),
        arith::ConstantIntOp::create(b, loc, resTy, p * pairBits));
    acc = arith::OrIOp::create(b, loc, acc, part);
  }
  op.replaceAllUsesWith(acc);
  op.erase();
  return out;
}

/// Exact emulation of any fpx.convert.
Value emitEmulated(OpBuilder &b, ConvertOp op) {
  num::Format fmt = op.getFormat().getFormat();
  Location loc = op.getLoc();
  num::Rounding r = toNumerics(op.getRounding());
  num::Overflow ov = op.getOverflowToSpecial() ? num::Overflow::ToInfOrNaN
                                               : num::Overflow::SatFinite;
  Value in = op.getInput();
  int64_t n = cast<VectorType>(in.getType()).getNumElements();
  unsigned width = fmt.bits() <= 4 ? 4 : 8;
  Type resTy = op.getResult().getType();
  Type i32 = b.getI32Type();
  // Element i is cvt.rs operand (3 - i); the random byte it consumes is
  // rbits >> num::cvtRsOperandShift(fmt, 3 - i).
  if (r == num::Rounding::RS && ov == num::Overflow::SatFinite &&
      fmt == num::e2m1fn() && n == 4 && resTy.getIntOrFloatBitWidth() == 16) {
    SmallVector<Value> xs;
    for (int64_t i = 0; i < n; ++i)
      xs.push_back(LLVM::ExtractElementOp::create(
          b, loc, in, arith::ConstantIntOp::create(b, loc, i, 32)));
    return arith::TruncIOp::create(b, loc, resTy,
                                   emitE2M1RsSatX4(b, loc, xs, op.getRbits(),
                                                   op.getInRange()  ? RsInputs::InRange
                                                   : op.getBounded() ? RsInputs::Bounded
                                                                     : RsInputs::Any));
  }
  Value acc = arith::ConstantIntOp::create(b, loc, resTy, 0);
  for (int64_t i = 0; i < n; ++i) {
    Value x = LLVM::ExtractElementOp::create(
        b, loc, in, arith::ConstantIntOp::create(b, loc, i, 32));
    Value rb;
    if (r == num::Rounding::RS) {
      int sh = num::cvtRsOperandShift(fmt, 3 - int(i));
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
    // bf16 converts first: packed e2m1 emulation, or f32 converts.
    SmallVector<ConvertOp> f32Converts;
    for (ConvertOp op : converts) {
      auto vt = cast<VectorType>(op.getInput().getType());
      if (vt.getNumElements() == 8) { // f32 (verifier)
        OpBuilder b(op);
        llvm::append_range(f32Converts, legalizeEight(b, op, *target, allowEmulation));
        continue;
      }
      if (!vt.getElementType().isBF16()) {
        f32Converts.push_back(op);
        continue;
      }
      OpBuilder b(op);
      if (allowEmulation && op.getFormat().getFormat() == num::e2m1fn() &&
          op.getRounding() == RoundingKind::rn && !op.getOverflowToSpecial() &&
          target->has(Bf16x2Math) && !target->has(CvtF6F4x2)) {
        op.replaceAllUsesWith(emitE2M1Bf16x2(b, op));
        op.erase();
        continue;
      }
      num::Format fmt = op.getFormat().getFormat();
      if (allowEmulation && (fmt == num::e2m3fn() || fmt == num::e3m2fn()) &&
          op.getRounding() == RoundingKind::rn && !op.getOverflowToSpecial() &&
          target->has(CvtF8x2) && target->has(Bf16x2Math) && !target->has(CvtF6F4x2)) {
        auto [codes, f8Op] = emitFp6ViaFp8Bf16(b, op);
        op.replaceAllUsesWith(codes);
        op.erase();
        OpBuilder b8(f8Op);
        llvm::append_range(f32Converts, widenBf16(b8, f8Op));
        continue;
      }
      llvm::append_range(f32Converts, widenBf16(b, op));
    }
    for (ConvertOp op : f32Converts) {
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
