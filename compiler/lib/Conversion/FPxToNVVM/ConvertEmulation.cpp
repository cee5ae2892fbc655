//===- ConvertEmulation.cpp - exact integer emulation of cvt --------------===//
//
// Two code shapes, both bit-identical to fpx::num::encodeBits:
//  - rn + satfinite for formats with subnormals (the hot path of every
//    MX/NVFP4 cast): clamp |x| to max, round normals by integer add on the
//    fp32 bits, round subnormals by one fp32 add of a magic constant whose
//    ulp is the format's subnormal quantum (the add itself is RNE).
//  - everything else (rz, rs, overflow to inf/NaN, e8m0): the numerics
//    core's generic algorithm, in i64 arithmetic.
//
//===----------------------------------------------------------------------===//
#include "fpx/Conversion/FPxToNVVM/ConvertEmulation.h"

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include <cstring>

using namespace mlir;
using namespace fpx;
using P = arith::CmpIPredicate;

static uint32_t f32Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// Special values (NaN, inf, zero) shared by both shapes.
static Value applySpecials(KernelBuilder &k, const num::Format &fmt,
                           num::Overflow ov, Value absb, Value signOut,
                           Value code) {
  Value maxCode = k.c32(fmt.maxFiniteCode());
  // zero keeps its sign where the format has a zero
  Value zero = fmt.hasSubnormals() ? signOut : k.c32(0);
  Value isZero = k.cmp(P::eq, absb, k.c32(0));
  code = k.select(isZero, zero, code);
  Value infOut;
  if (ov == num::Overflow::SatFinite || !fmt.hasNaN())
    infOut = k.bor(signOut, maxCode);
  else
    infOut = k.bor(signOut, k.c32(fmt.hasInf() ? fmt.infCode() : fmt.nanCode()));
  Value isInf = k.cmp(P::eq, absb, k.c32(0x7f800000));
  code = k.select(isInf, infOut, code);
  Value nanOut = k.c32(fmt.hasNaN() ? fmt.nanCode() : fmt.maxFiniteCode());
  Value isNaN = k.cmp(P::ugt, absb, k.c32(0x7f800000));
  return k.select(isNaN, nanOut, code);
}

/// rn + satfinite fast path (formats with subnormals).
static Value emitRnSat(KernelBuilder &k, const num::Format &fmt, Value x) {
  int M = fmt.mbits;
  int emin = fmt.minNormalExp();
  Value xb = k.bitcast(x, k.i32());
  Value absb = k.band(xb, k.c32(0x7fffffff));
  Value signOut = fmt.hasSign
                      ? k.shl(k.shru(xb, k.c32(31)), k.c32(fmt.ebits + fmt.mbits))
                      : k.c32(0);
  // Clamp to the largest finite value first: with rn, rounding a clamped
  // value gives the same code as saturating after rounding.
  uint32_t maxBits = f32Bits(static_cast<float>(fmt.maxFinite()));
  Value clamped = k.umin(absb, k.c32(maxBits));
  // Normal range: round the fp32 mantissa to M bits, ties to even.
  int drop = 23 - M;
  Value lsb = k.band(k.shru(clamped, k.c32(drop)), k.c32(1));
  Value rounded = k.add(k.add(clamped, k.c32((1u << (drop - 1)) - 1)), lsb);
  int64_t offset = static_cast<int64_t>(127 + emin - 1) << M; // (127 - bias) << M
  Value normalCode = k.sub(k.shru(rounded, k.c32(drop)), k.c32(offset));
  // Subnormal range: one RNE add of 2^(emin - M + 23).
  float magic = std::ldexp(1.0f, emin - M + 23);
  Value y = k.bitcast(clamped, k.f32());
  Value sum = k.bitcast(k.fadd(y, k.cf32(magic)), k.i32());
  Value subCode = k.sub(sum, k.c32(f32Bits(magic)));
  Value isSub = k.cmp(P::ult, clamped, k.c32(f32Bits(std::ldexp(1.0f, emin))));
  Value code = k.bor(signOut, k.select(isSub, subCode, normalCode));
  return applySpecials(k, fmt, num::Overflow::SatFinite, absb, signOut, code);
}

/// The numerics core's generic algorithm (see numerics/lib/Convert.cpp).
static Value emitGeneric(KernelBuilder &k, const num::Format &fmt,
                         num::Rounding r, num::Overflow ov, Value x,
                         Value rbits) {
  Type i64 = k.i64();
  auto c = [&](int64_t v) { return k.c64(v); };
  Value xb = k.bitcast(x, k.i32());
  Value absb32 = k.band(xb, k.c32(0x7fffffff));
  Value absb = k.zext(absb32, i64);
  Value negBit = fmt.hasSign ? k.zext(k.shru(xb, k.c32(31)), i64) : c(0);
  Value signOut = k.shl(negBit, c(fmt.ebits + fmt.mbits));
  Value isNeg = k.cmp(P::ne, negBit, c(0));

  Value bexp = k.shru(absb, c(23));
  Value hasExp = k.cmp(P::ne, bexp, c(0));
  Value m = k.select(hasExp, k.bor(k.band(absb, c(0x7fffff)), c(0x800000)), absb);
  Value e = k.select(hasExp, k.sub(bexp, c(150)), c(-149));
  // floor(log2 m) via ctlz on the i32 form (m < 2^24; m == 0 handled later)
  Value m32 = k.trunc(m, k.i32());
  Value lz = k.zext(LLVM::CountLeadingZerosOp::create(k.b, k.loc, k.i32(), m32, false), i64);
  Value exp = k.add(e, k.sub(c(31), lz));
  Value binade = k.smax(exp, c(fmt.minNormalExp()));
  Value q = k.sub(binade, c(fmt.mbits));
  Value s = k.sub(q, e); // > 0 for every format of at most 8 bits
  Value sc = k.smin(s, c(40));
  Value n = k.shru(m, sc);
  Value rem = k.band(m, k.sub(k.shl(c(1), sc), c(1)));
  switch (r) {
  case num::Rounding::RN: {
    Value half = k.shl(c(1), k.sub(sc, c(1)));
    Value odd = k.cmp(P::ne, k.band(n, c(1)), c(0));
    Value up = k.bor(k.cmp(P::ugt, rem, half),
                     k.band(k.cmp(P::eq, rem, half), odd));
    n = k.add(n, k.zext(up, i64));
    break;
  }
  case num::Rounding::RZ:
    break;
  case num::Rounding::RP:
  case num::Rounding::RM: {
    Value nz = k.cmp(P::ne, rem, c(0));
    Value dir = r == num::Rounding::RP
                    ? k.bxor(isNeg, k.cmp(P::eq, c(0), c(0)))
                    : isNeg;
    n = k.add(n, k.zext(k.band(nz, dir), i64));
    break;
  }
  case num::Rounding::RS: {
    int kb = num::stochasticBits(fmt);
    Value top = k.select(k.cmp(P::sge, sc, c(kb)), k.shru(rem, k.sub(sc, c(kb))),
                         k.shl(rem, k.sub(c(kb), sc)));
    Value rnd = k.band(k.zext(rbits, i64), c((1 << kb) - 1));
    n = k.add(n, k.shru(k.add(top, rnd), c(kb)));
    break;
  }
  }
  Value code = k.add(k.shl(k.sub(binade, c(fmt.minNormalExp())), c(fmt.mbits)), n);
  if (!fmt.hasSubnormals())
    code = k.smax(k.sub(code, c(int64_t(1) << fmt.mbits)), c(0));
  Value maxCode = c(fmt.maxFiniteCode());
  bool towardZeroAlways = r == num::Rounding::RZ;
  Value over;
  if (ov == num::Overflow::SatFinite || !fmt.hasNaN() || towardZeroAlways) {
    over = maxCode;
  } else {
    Value special = c(fmt.hasInf() ? fmt.infCode() : fmt.nanCode());
    if (r == num::Rounding::RP || r == num::Rounding::RM) {
      Value tz = r == num::Rounding::RP ? isNeg
                                        : k.bxor(isNeg, k.cmp(P::eq, c(0), c(0)));
      over = k.select(tz, maxCode, special);
    } else {
      over = special;
    }
  }
  code = k.select(k.cmp(P::sgt, code, maxCode), over, code);
  code = k.bor(signOut, code);
  Value code32 = k.trunc(code, k.i32());
  Value sign32 = k.trunc(signOut, k.i32());
  return applySpecials(k, fmt, ov, absb32, sign32, code32);
}

/// e2m1 under rn + satfinite. a = min(|x|, 6) (minnum: NaN gives 6, +max,
/// as the numerics core); t = the exponent of max(a, 1), a power of two 1,
/// 2 or 4, so 2^22 t has the e2m1 quantum of a's binade (1/2 below 2, then
/// 1, then 2) as its fp32 ulp; y = fma(t, 2^22, a) rounds a to nearest even
/// on the e2m1 grid in one rounding; the low three bits of
/// bits(y) + (bits(t) >> 22) + 2 are the code (each binade's offset folds
/// into t's exponent bits). Six operations, checked on all 2^32 inputs.
static Value emitE2M1RnSat(KernelBuilder &k, Value x) {
  using F = arith::CmpFPredicate;
  Value xb = k.bitcast(x, k.i32());
  Value a = arith::MinNumFOp::create(k.b, k.loc, k.fabs(x), k.cf32(6.0f));
  Value m = arith::MaxNumFOp::create(k.b, k.loc, a, k.cf32(1.0f));
  Value tb = k.band(k.bitcast(m, k.i32()), k.c32(0x7f800000));
  Value y = LLVM::FMAOp::create(k.b, k.loc, k.bitcast(tb, k.f32()),
                                k.cf32(4194304.0f), a);
  Value code = k.band(k.add(k.add(k.bitcast(y, k.i32()), k.shru(tb, k.c32(22))), k.c32(2)),
                      k.c32(7));
  Value isNaN = k.fcmp(F::UNO, x, x);
  Value sign = k.select(isNaN, k.c32(0), k.band(k.shru(xb, k.c32(28)), k.c32(8)));
  return k.bor(code, sign);
}

/// Eight e2m1 codes under rn + satfinite, packed. Per value as
/// emitE2M1RnSat, with 2^22 + 1 in place of 2^22 (adds t, two quanta of y's
/// binade, so the rounding is the same) so that v = bits(y) + (bits(t) >> 22)
/// is exactly 2^23 (149 + log2 t) + 256 + code: bits 2..0 hold the code and
/// bits 7..3 are zero. Then v0 + 16 v1 is the byte of a pair, and two prmt
/// levels gather the four bytes; the signs (bit 3 of each nibble; none for
/// NaN) are or-ed in per value, which LLVM folds away for |x| inputs. With
/// `inRange` (every |x| < 7 and not NaN) the clamp to 6 is left out: t = 4
/// still rounds every a < 7 to code 6 or 7.
/// Checked on all 2^32 inputs on the CPU and by the exhaustive GPU test.
Value fpx::emitE2M1RnSatX8(OpBuilder &b, Location loc, ArrayRef<Value> xs,
                           bool inRange) {
  using F = arith::CmpFPredicate;
  KernelBuilder k(b, loc);
  SmallVector<Value> v;
  Value sign = k.c32(0);
  for (auto [i, x] : llvm::enumerate(xs)) {
    // in_range (|x| < 7, not NaN): the unclamped value rounds to the same code
    Value a = inRange ? k.fabs(x)
                      : arith::MinNumFOp::create(k.b, k.loc, k.fabs(x), k.cf32(6.0f));
    Value m = arith::MaxNumFOp::create(k.b, k.loc, a, k.cf32(1.0f));
    Value tb = k.band(k.bitcast(m, k.i32()), k.c32(0x7f800000));
    Value y = LLVM::FMAOp::create(k.b, k.loc, k.bitcast(tb, k.f32()),
                                  k.cf32(4194305.0f), a);
    v.push_back(k.add(k.bitcast(y, k.i32()), k.shru(tb, k.c32(22))));
    Value neg = k.shru(k.bitcast(x, k.i32()), k.c32(31));
    if (!inRange)
      neg = k.select(k.fcmp(F::UNO, x, x), k.c32(0), neg);
    sign = k.bor(sign, k.shl(neg, k.c32(4 * i + 3)));
  }
  SmallVector<Value> pairs;
  for (int j = 0; j < 4; ++j)
    pairs.push_back(k.add(v[2 * j], k.shl(v[2 * j + 1], k.c32(4))));
  Value lo = k.prmt(pairs[0], pairs[1], 0x0040);
  Value hi = k.prmt(pairs[2], pairs[3], 0x0040);
  return k.bor(k.prmt(lo, hi, 0x5410), sign);
}

/// The constant of an integer index operand, or -1.
static int64_t constIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIntOp>())
    return c.value();
  if (auto c = v.getDefiningOp<LLVM::ConstantOp>())
    if (auto a = dyn_cast<IntegerAttr>(c.getValue()))
      return a.getInt();
  return -1;
}

/// x without a sign-clearing `and` (KernelBuilder::fabs) on top, if it has
/// one, looking through the extract of an element of a built vector.
static Value withoutFabs(Value x) {
  if (auto ext = x.getDefiningOp<LLVM::ExtractElementOp>()) {
    int64_t i = constIndex(ext.getPosition());
    for (Value v = ext.getVector(); i >= 0;) {
      auto ins = v.getDefiningOp<LLVM::InsertElementOp>();
      if (!ins)
        break;
      if (constIndex(ins.getPosition()) == i) {
        x = ins.getValue();
        break;
      }
      v = ins.getVector();
    }
  }
  auto outer = x.getDefiningOp<arith::BitcastOp>();
  auto mask = outer ? outer.getIn().getDefiningOp<arith::AndIOp>() : nullptr;
  if (!mask)
    return x;
  for (int i = 0; i < 2; ++i) {
    auto c = mask->getOperand(1 - i).getDefiningOp<arith::ConstantIntOp>();
    auto inner = mask->getOperand(i).getDefiningOp<arith::BitcastOp>();
    if (c && c.value() == 0x7fffffff && inner && inner.getIn().getType().isF32())
      return inner.getIn();
  }
  return x;
}

/// e2m1 under rs + satfinite (PTX cvt.rs: the 8 random bits are added to
/// the top 8 discarded bits, a carry rounds away from zero). a = min(|x|, 6)
/// (clamping first changes no code: everything above 6 saturates, and NaN
/// gives +max as the numerics core). Scaled by 2^-126 (rounded toward
/// zero), e2m1 lands on fp32's own encoding: its normals [1, 6] on fp32's
/// lowest three binades, its subnormals [0, 1) on fp32's subnormals, whose
/// quantum continues the first binade's (e2m1's 1/2 as fp32's 2^-127). So
/// b = bits(a * 2^-126) holds the code above bit 22 and the discarded bits,
/// exactly truncated, below it, for every a; one add carries the random
/// byte in: code = (b + (r << 14)) >> 22 (b's bits below 14 cannot carry
/// into bit 14, and a <= 6 never carries into bit 25). Checked on all 2^32
/// inputs for several random bytes (E2M1Emulation unit tests).
/// Unclamped (finite |x| < 8 promised; emitE2M1RsSatX4 only) x's sign may
/// stay: it lands in bit 31, which 4 b drops, so a caller's |.| is looked
/// through (an `and` on the ALU pipe; the signs come from x).
static Value rsScaled(KernelBuilder &k, Value x, bool unclamped = false) {
  Value a = unclamped ? withoutFabs(x)
                    : arith::MinNumFOp::create(k.b, k.loc, k.fabs(x), k.cf32(6.0f));
  return k.bitcast(k.ptx(k.f32(), "mul.rz.f32 $0, $1, 0f00800000;", "=f,f", {a}),
                   k.i32());
}

/// The e2m1 sign bit (bit 3) of x: x's, none for NaN (whose code is +max).
static Value e2m1Sign(KernelBuilder &k, Value x, bool notNaN = false) {
  if (notNaN)
    return k.band(k.shru(k.bitcast(x, k.i32()), k.c32(28)), k.c32(8));
  Value isNaN = k.fcmp(arith::CmpFPredicate::UNO, x, x);
  return k.select(isNaN, k.c32(0), k.band(k.shru(k.bitcast(x, k.i32()), k.c32(28)), k.c32(8)));
}

static Value emitE2M1RsSat(KernelBuilder &k, Value x, Value rbits) {
  Value r14 = k.shl(k.band(rbits, k.c32(0xff)), k.c32(14));
  Value code = k.shru(k.add(rsScaled(k, x), r14), k.c32(22));
  return k.bor(code, e2m1Sign(k, x));
}

/// Four e2m1 codes under rs + satfinite, packed (value i in bits
/// 4i+3..4i, consuming byte {0, 2, 1, 3}[i] of rbits as cvt.rs.e2m1x4:
/// num::cvtRsOperandShift).
/// Per value as emitE2M1RsSat, in an order that keeps the integer work off
/// the ALU pipe where it can: prmt puts the random byte at bits 23..16 (the
/// other bytes zero), v = 4 b + that (one mad: the code now in bits 26..24,
/// bits 31..27 zero), two prmt gather the top bytes of values 0, 2 and of
/// 1, 3, and one mad interleaves them (evens + 16 odds; no carries, codes
/// are below 16). Bits above 15 of the result are not zero: callers take the
/// low 16. The mads are inline PTX so that they stay IMAD (the FMA pipe)
/// rather than become shift-adds (LEA, the ALU pipe, which the rs casts
/// saturate on sm_90).
/// RsInputs::InRange (every |x| <= 6, none NaN: no value can round past 6)
/// leaves the clamp out. RsInputs::Bounded (finite, every |x| < 8) leaves it
/// out too and saturates instead, four codes in three operations where the
/// clamp took one a value: b of a value in [6, 8) holds code 7 (e2m1's top
/// binade [4, 8) has fp32's exponent field 3 after the scaling), so a carry
/// from the random byte makes code 8 (0b1000, bit 27 of v, still below the
/// gathered byte's bit 28) and nothing larger; codes - ((codes >> 3) &
/// 0x1111) takes each 8 back to 7 and leaves 0..7 alone.
Value fpx::emitE2M1RsSatX4(OpBuilder &b, Location loc, ArrayRef<Value> xs,
                           Value rbits, RsInputs inputs) {
  KernelBuilder k(b, loc);
  bool unclamped = inputs != RsInputs::Any;
  SmallVector<Value> v;
  Value sign = k.c32(0);
  for (auto [i, x] : llvm::enumerate(xs)) {
    // value i is cvt.rs operand 3 - i; prmt picks its byte of rbits
    uint32_t byte = num::cvtRsOperandShift(num::e2m1fn(), 3 - int(i)) / 8;
    Value r16 = k.prmt(rbits, k.c32(0), 0x4044 | (byte << 8));
    v.push_back(k.ptx(k.i32(), "mad.lo.u32 $0, $1, 4, $2;", "=r,r,r",
                      {rsScaled(k, x, unclamped), r16}));
    sign = k.bor(sign, k.shl(e2m1Sign(k, x, unclamped), k.c32(4 * i)));
  }
  Value even = k.prmt(v[0], v[2], 0x0073), odd = k.prmt(v[1], v[3], 0x0073);
  Value codes = k.ptx(k.i32(), "mad.lo.u32 $0, $1, 16, $2;", "=r,r,r", {odd, even});
  if (inputs == RsInputs::Bounded)
    codes = k.sub(codes, k.band(k.shru(codes, k.c32(3)), k.c32(0x1111)));
  return k.bor(codes, sign); // bits above 15: the gathers' spare bytes
}

Value fpx::emitEncode(OpBuilder &b, Location loc, const num::Format &fmt,
                      num::Rounding rounding, num::Overflow overflow, Value x,
                      Value rbits) {
  KernelBuilder k(b, loc);
  if (rounding == num::Rounding::RN && overflow == num::Overflow::SatFinite &&
      fmt == num::e2m1fn())
    return emitE2M1RnSat(k, x);
  if (rounding == num::Rounding::RS && overflow == num::Overflow::SatFinite &&
      fmt == num::e2m1fn())
    return emitE2M1RsSat(k, x, rbits);
  if (rounding == num::Rounding::RN && overflow == num::Overflow::SatFinite &&
      fmt.hasSubnormals() && fmt.mbits >= 1 && fmt.bits() <= 8)
    return emitRnSat(k, fmt, x);
  return emitGeneric(k, fmt, rounding, overflow, x, rbits);
}
