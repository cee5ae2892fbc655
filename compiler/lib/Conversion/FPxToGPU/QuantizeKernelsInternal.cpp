//===- QuantizeKernelsInternal.cpp - shared pieces of the cast kernels ----===//
//
// The loads, block scales, divisions, conversions, random bits, Hadamard
// transform and code stores every cast kernel generator builds from
// (QuantizeKernels.cpp, BlockQuantizeKernels.cpp, PerRowQuantizeKernels.cpp),
// so that each computes a cast operation for operation as the numerics core's
// reference quantizer does (numerics/lib/Quantize.cpp).
//
//===----------------------------------------------------------------------===//
#include "QuantizeKernelsInternal.h"
#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Numerics/Packing.h"

#include "fpx/Conversion/FPxToNVVM/ConvertEmulation.h"
#include "fpx/Numerics/Hadamard.h"
#include "fpx/Numerics/Quantize.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using P = arith::CmpIPredicate;

namespace fpx {
namespace qk {

/// Creates an empty kernel `name` with the given argument types.
gpu::GPUFuncOp makeKernel(OpBuilder &b, Location loc, StringRef name,
                          ArrayRef<Type> args) {
  auto f = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(args, {}));
  f->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  // Every cast kernel runs 256 threads; telling ptxas lets it budget registers.
  f->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({int32_t(kThreads), 1, 1}));
  return f;
}

/// The f32 values of raw 16-byte words (vector<4xi32>) of `inElem`
/// elements, exactly: 8 per word for 16-bit inputs (widening bf16 is a
/// shift), 4 for f32.
SmallVector<Value> widenRaw(KernelBuilder &k, Type inElem,
                            ArrayRef<Value> raw) {
  SmallVector<Value> out;
  for (Value w : raw)
    for (int j = 0; j < 4; ++j) {
      Value word = k.extract(w, j);
      if (inElem.isF32()) {
        out.push_back(k.bitcast(word, k.f32()));
      } else if (inElem.isBF16()) {
        out.push_back(k.bitcast(k.shl(word, k.c32(16)), k.f32()));
        out.push_back(k.bitcast(k.band(word, k.c32(0xffff0000u)), k.f32()));
      } else {
        for (int h = 0; h < 2; ++h) {
          Value half16 = k.trunc(h ? k.shru(word, k.c32(16)) : word, k.i16());
          Value f16 = k.bitcast(half16, k.b.getF16Type());
          out.push_back(arith::ExtFOp::create(k.b, k.loc, k.f32(), f16));
        }
      }
    }
  return out;
}

/// The raw 16-byte words of the 8 elements at `ptr` (16-byte aligned): one
/// load for 16-bit inputs, two for f32.
SmallVector<Value> loadRawAt(KernelBuilder &k, Type inElem, Value ptr) {
  Type v4 = k.vec(4, k.i32());
  SmallVector<Value> words{k.load(v4, ptr, 16)};
  if (inElem.isF32())
    words.push_back(k.load(v4, k.gep(ptr, v4, k.c64(1)), 16));
  return words;
}

/// The raw words of 8 consecutive elements, vector `vecIdx` of `in`.
SmallVector<Value> loadRaw(KernelBuilder &k, Type inElem, Value in,
                           Value vecIdx) {
  Type v4 = k.vec(4, k.i32());
  Value words = inElem.isF32() ? k.mul(vecIdx, k.c64(2)) : vecIdx; // 16-byte units
  return loadRawAt(k, inElem, k.gep(in, v4, words));
}

/// The raw 16-byte words of vector u after `base` (the address of a vector)
/// where `ok`, else zeros: one predicated load for 16-bit inputs, two for
/// f32.
SmallVector<Value> loadRawIf(KernelBuilder &k, Type inElem, Value base,
                             int64_t u, Value ok) {
  Type v4 = k.vec(4, k.i32());
  int64_t words = inElem.isF32() ? 2 : 1;
  SmallVector<Type> types(words, v4);
  auto ifOp = scf::IfOp::create(k.b, k.loc, types, ok, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(k.b);
    k.b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> loaded;
    for (int64_t w = 0; w < words; ++w)
      loaded.push_back(k.load(v4, k.gep(base, v4, k.c64(u * words + w)), 16));
    scf::YieldOp::create(k.b, k.loc, loaded);
  }
  {
    OpBuilder::InsertionGuard g(k.b);
    k.b.setInsertionPointToStart(ifOp.elseBlock());
    Value zero = LLVM::ZeroOp::create(k.b, k.loc, v4);
    scf::YieldOp::create(k.b, k.loc, SmallVector<Value>(words, zero));
  }
  return SmallVector<Value>(ifOp.getResults());
}

/// Loads 8 consecutive elements (vector `vecIdx`) as f32.
SmallVector<Value> loadVec8(KernelBuilder &k, Type inElem, Value in,
                            Value vecIdx) {
  return widenRaw(k, inElem, loadRaw(k, inElem, in, vecIdx));
}

/// max |x| over values (NaN if any is NaN).
Value absMax(KernelBuilder &k, ArrayRef<Value> xs) {
  Value m = k.fabs(xs[0]);
  for (Value x : xs.drop_front())
    m = k.fmaxNaN(m, k.fabs(x));
  return m;
}

/// max |x| lane by lane over i32 words of bf16 pairs: a word whose low half
/// is the maximum magnitude of the words' low halves and whose high half that
/// of their high halves (NaN where any is NaN), by packed max.NaN.bf16x2 on
/// the magnitudes. With `xorsign` (QuantizePlan::bf16AbsMinMax)
/// max.NaN.xorsign.abs.bf16x2 takes the magnitudes itself (its result's
/// sign, an xor of the inputs', is cleared once).
Value absMaxBf16Lanes(KernelBuilder &k, ArrayRef<Value> words, bool xorsign) {
  if (xorsign) {
    Value mw;
    for (Value w : words)
      mw = mw ? k.ptx(k.i32(), "max.NaN.xorsign.abs.bf16x2 $0, $1, $2;", "=r,r,r", {mw, w})
              : w;
    return k.band(mw, k.c32(0x7fff7fff));
  }
  Type v2 = k.vec(2, k.b.getBF16Type());
  Value m;
  for (Value w : words) {
    Value a = k.bitcast(k.band(w, k.c32(0x7fff7fff)), v2);
    m = m ? k.fmaxNaN(m, a) : a;
  }
  return k.bitcast(m, k.i32());
}

/// The low and high bf16 halves of an i32 word, widened to f32 (exact).
std::array<Value, 2> bf16Halves(KernelBuilder &k, Value w) {
  Value hi = k.bitcast(k.band(w, k.c32(0xffff0000u)), k.f32());
  return {k.bitcast(k.shl(w, k.c32(16)), k.f32()), hi};
}

/// max |x| over the bf16 pairs of raw 16-byte words, as f32 (NaN if any is
/// NaN): absMaxBf16Lanes, then one f32 max of the two halves; the same
/// value absMax gives on the widened elements.
Value absMaxBf16Words(KernelBuilder &k, ArrayRef<Value> raw, bool xorsign) {
  SmallVector<Value> words;
  for (Value r : raw)
    for (int j = 0; j < 4; ++j)
      words.push_back(k.extract(r, j));
  std::array<Value, 2> h = bf16Halves(k, absMaxBf16Lanes(k, words, xorsign));
  return k.fmaxNaN(h[0], h[1]);
}

/// E8M0 code from amax by rule (numerics e8m0Scale, as integer ops). A
/// block holding +-inf or NaN gets 0xFF (NaN, its factor NaN: every element
/// becomes the format's NaN code) unless plan.nonFinite asks for saturation,
/// where an infinite amax gives 0xFE (a NaN one still 0xFF).
static Scale e8m0Scale(KernelBuilder &k, const QuantizePlan &plan,
                            Value amax) {
  int emax = plan.elem.maxNormalExp();
  bool saturate = plan.nonFinite == num::NonFinite::Saturate;
  Value bits = k.bitcast(amax, k.i32());
  Value field = k.shru(bits, k.c32(23));
  Value mant = k.band(bits, k.c32(0x7fffff));
  Value c;
  // The rceil code where the target converts natively: cvt.rp.ue8m0x2 of
  // fl(amax / max), as torchao's kernels take it. Without .satfinite it
  // gives 0xFF for an inf or NaN quotient, i.e. for exactly the non-finite
  // blocks: a finite amax over max >= 2 stays below 2^127, where both forms
  // agree with the emulation below; .satfinite gives 0xFE for inf (and keeps
  // NaN NaN; the selects below pin both anyway).
  bool native = plan.nativeUe8m0 && plan.elem.maxFinite() >= 2.0 &&
                (plan.rule == ScaleRule::rceil || plan.rule == ScaleRule::amax);
  switch (plan.rule) {
  case ScaleRule::floor:
    c = k.sub(field, k.c32(emax));
    break;
  case ScaleRule::ceil:
    c = k.sub(k.add(field, k.zext(k.cmp(P::ne, mant, k.c32(0)), k.i32())),
              k.c32(emax));
    break;
  case ScaleRule::even: {
    Value r = k.band(k.add(bits, k.c32(1u << (22 - plan.elem.mbits))),
                     k.c32(0x7f800000));
    Value f2 = k.shru(r, k.c32(23));
    c = k.select(k.cmp(P::eq, f2, k.c32(0)), k.c32(0), k.sub(f2, k.c32(emax)));
    break;
  }
  case ScaleRule::rceil:
  case ScaleRule::amax: {
    Value v = k.fdiv(amax, k.cf32(static_cast<float>(plan.elem.maxFinite())));
    if (native) {
      // The low byte converts v (the high one a zero).
      const char *text = saturate ? "cvt.rp.satfinite.ue8m0x2.f32 $0, 0f00000000, $1;"
                                  : "cvt.rp.ue8m0x2.f32 $0, 0f00000000, $1;";
      Value pair = k.ptx(k.i16(), text, "=h,f", {v});
      c = k.band(k.zext(pair, k.i32()), k.c32(0xff));
      break;
    }
    Value vb = k.bitcast(v, k.i32());
    c = k.select(k.cmp(P::ule, vb, k.c32(0x400000)), k.c32(0),
                 k.shru(k.add(vb, k.c32(0x7fffff)), k.c32(23)));
    break;
  }
  }
  if (!native)
    c = k.smin(k.smax(c, k.c32(0)), k.c32(254));
  c = k.select(k.cmp(P::eq, bits, k.c32(0)), k.c32(0), c);
  if (saturate) { // inf -> 2^127, NaN -> NaN
    c = k.select(k.cmp(P::eq, bits, k.c32(0x7f800000)), k.c32(0xfe), c);
    c = k.select(k.cmp(P::ugt, bits, k.c32(0x7f800000)), k.c32(0xff), c);
  } else if (!native) { // inf or NaN -> NaN (native: the cvt's own result)
    c = k.select(k.cmp(P::uge, bits, k.c32(0x7f800000)), k.c32(0xff), c);
  }
  // 2^(127 - c): exponent field 254 - c, or the subnormal 2^-127 for c = 254
  Value mulBits = k.select(k.cmp(P::eq, c, k.c32(254)), k.c32(0x400000),
                           k.shl(k.sub(k.c32(254), c), k.c32(23)));
  mulBits = k.select(k.cmp(P::eq, c, k.c32(255)), k.c32(0x7fc00000), mulBits);
  return {k.trunc(c, k.i8()), k.bitcast(mulBits, k.f32()), false};
}

/// fp32 scale s = amax / max (numerics fp32Scale).
static Value fp32Scale(KernelBuilder &k, Value amax, float maxElem) {
  using F = arith::CmpFPredicate;
  Value a = arith::MinimumFOp::create(k.b, k.loc, amax, k.cf32(FLT_MAX));
  Value s = k.fdiv(a, k.cf32(maxElem));
  s = k.select(k.fcmp(F::OEQ, s, k.cf32(0)), k.cf32(std::ldexp(1.0f, -149)), s);
  s = k.select(k.fcmp(F::OEQ, a, k.cf32(0)), k.cf32(1.0f), s);
  // A NaN block stores the canonical quiet NaN, as the reference does (GPU
  // arithmetic would give 0x7fffffff).
  Value qnan = k.bitcast(k.c32(0x7fc00000), k.f32());
  return k.select(k.fcmp(F::UNO, amax, amax), qnan, s);
}

/// Decodes a code of `f` (an i32 whose bits above f.bits() may hold anything)
/// to f32, exactly as num::decode: the magnitude bits placed at the top of an
/// fp32 exponent/mantissa make 2^(bias - 127) times the value (subnormal
/// codes become fp32 subnormals), so one exact multiply by 2^(127 - bias)
/// gives it; then the sign and the format's specials.
Value decodeCode(KernelBuilder &k, const num::Format &f, Value code) {
  const int E = f.ebits, M = f.mbits;
  Value mag = k.band(code, k.c32(f.magnitudeMask()));
  Value x = k.bitcast(k.shl(mag, k.c32(23 - M)), k.f32());
  Value bits = k.bitcast(k.fmul(x, k.cf32(std::ldexp(1.0f, 127 - f.bias))), k.i32());
  Value sign = k.c32(0);
  if (f.hasSign) {
    sign = k.shl(k.band(code, k.c32(f.signMask())), k.c32(31 - (E + M)));
    bits = k.bor(bits, sign);
  }
  switch (f.policy) {
  case num::SpecialPolicy::FiniteNoSpecials:
    break;
  case num::SpecialPolicy::FiniteNaNAllOnes:
    bits = k.select(k.cmp(P::eq, mag, k.c32(f.magnitudeMask())),
                    k.bor(sign, k.c32(0x7fc00000)), bits);
    break;
  case num::SpecialPolicy::IEEE: {
    uint32_t top = ((1u << E) - 1) << M;
    Value mant = k.band(mag, k.c32((1u << M) - 1));
    Value special = k.select(k.cmp(P::eq, mant, k.c32(0)),
                             k.bor(sign, k.c32(0x7f800000)),
                             k.bor(sign, k.c32(0x7fc00000)));
    bits = k.select(k.cmp(P::uge, mag, k.c32(top)), special, bits);
    break;
  }
  case num::SpecialPolicy::UnsignedNaNAllOnes:
    llvm_unreachable("e8m0 codes are decoded by e8m0Factor");
  }
  return k.bitcast(bits, k.f32());
}

static Scale blockScaleOf(KernelBuilder &k, const QuantizePlan &plan,
                               Value amax, Value globalScale);

/// Where x / s may be computed as x * y corrected once (y = 1/s, see
/// applyScale): the block is finite, y is normal (s <= 2^125), and
/// s >= 2^-98 / (the format's smallest positive value), so that for every
/// |x| < 2^-100 (where the correction may be inexact) |x / s| stays below a
/// quarter of that smallest value and rounds to a signed zero either way.
static Value fastDivideOk(KernelBuilder &k, const num::Format &fmt, Value amax,
                          Value s) {
  using F = arith::CmpFPredicate;
  int minExp = fmt.minNormalExp() - (fmt.hasSubnormals() ? fmt.mbits : 0);
  float sMin = std::max(std::ldexp(1.0f, -125), std::ldexp(1.0f, -98 - minExp));
  Value ok = k.fcmp(F::OLE, amax, k.cf32(FLT_MAX));
  ok = k.band(ok, k.fcmp(F::OGE, s, k.cf32(sMin)));
  return k.band(ok, k.fcmp(F::OLE, s, k.cf32(std::ldexp(1.0f, 125))));
}

Scale blockScale(KernelBuilder &k, const QuantizePlan &plan,
                      Value amax, Value globalScale) {
  Scale r = blockScaleOf(k, plan, amax, globalScale);
  if (r.divide) {
    Value ok = fastDivideOk(k, plan.elem, amax, r.factor);
    r.fast = r.fast ? k.band(r.fast, ok) : ok;
  } else {
    // E8M0: a finite block has a finite factor and no NaN product (what
    // convertFp4SplitSigns's fast branch needs); applyScale ignores it.
    r.fast = k.fcmp(arith::CmpFPredicate::OLE, amax, k.cf32(FLT_MAX));
  }
  return r;
}

static Scale blockScaleOf(KernelBuilder &k, const QuantizePlan &plan,
                               Value amax, Value globalScale) {
  switch (plan.scaleKind) {
  case num::ScaleKind::E8M0:
    return e8m0Scale(k, plan, amax);
  case num::ScaleKind::NVFP4: {
    // bs >= 0 or a positive NaN (amax is |.|), where ue4m3 rn + satfinite
    // is e4m3fn's code (NaN 0x7f, above 448 -> 0x7e): an fpx.convert, so
    // targets with the fp8 cvt take it natively.
    Value bs = k.fdiv(k.fdiv(amax, k.cf32(6.0f)), globalScale);
    MLIRContext *ctx = k.b.getContext();
    Value pair = ConvertOp::create(
        k.b, k.loc, k.i16(), k.vector({bs, bs}), Value(),
        FormatAttr::get(ctx, num::e4m3fn().name, num::e4m3fn().bias),
        RoundingKindAttr::get(ctx, RoundingKind::rn), UnitAttr());
    Value code = k.band(k.zext(pair, k.i32()), k.c32(0x7f));
    Value scale = k.fmul(decodeCode(k, num::ue4m3(), code), globalScale);
    // The fast division also wants a normal, unsaturated code (decoded in
    // [2^-6, 448], bs <= 448): then |x| / s <= 6 (1 + 2^-4)(1 + 2^-22) < 7,
    // below e2m1's rounding threshold above 6, which the fast path's
    // conversion relies on (in_range). Other blocks divide by div.rn.
    Value normal = k.cmp(P::uge, code, k.c32(8));
    Value unsat = k.fcmp(arith::CmpFPredicate::OLE, bs, k.cf32(448.0f));
    return {k.trunc(code, k.i8()), scale, true, k.band(normal, unsat)};
  }
  case num::ScaleKind::FP32: {
    Value s = fp32Scale(k, amax, static_cast<float>(plan.elem.maxFinite()));
    return {s, s, true};
  }
  case num::ScaleKind::FP32Pow2:
    break; // no fpx.quantize plans it (its scales are f32: FP32)
  }
  llvm_unreachable("a scale kind no cast kernel computes");
}

/// NVFP4's global scale g from the tensor amax (num::nvfp4GlobalScale).
Value nvfp4GlobalScale(KernelBuilder &k, Value amaxT) {
  using F = arith::CmpFPredicate;
  Value a = arith::MinimumFOp::create(k.b, k.loc, k.fabs(amaxT), k.cf32(FLT_MAX));
  Value g = k.fdiv(a, k.cf32(448.0f * 6.0f));
  g = k.select(k.fcmp(F::OEQ, g, k.cf32(0)), k.cf32(std::ldexp(1.0f, -149)), g);
  return k.select(k.fcmp(F::OEQ, a, k.cf32(0)), k.cf32(1.0f), g);
}

/// One Philox4x32-10 block (numerics/lib/Philox.cpp).
std::array<Value, 4> philox(KernelBuilder &k, Value counter64, Value seed64) {
  Value c0 = k.trunc(counter64, k.i32());
  Value c1 = k.trunc(k.shru(counter64, k.c64(32)), k.i32());
  Value c2 = k.c32(0), c3 = k.c32(0);
  Value k0 = k.trunc(seed64, k.i32());
  Value k1 = k.trunc(k.shru(seed64, k.c64(32)), k.i32());
  auto mulhilo = [&](uint32_t a, Value x) -> std::pair<Value, Value> {
    Value p = k.mul(k.c64(a), k.zext(x, k.i64()));
    return {k.trunc(k.shru(p, k.c64(32)), k.i32()), k.trunc(p, k.i32())};
  };
  for (int round = 0; round < 10; ++round) {
    auto [hi0, lo0] = mulhilo(0xD2511F53u, c0);
    auto [hi1, lo1] = mulhilo(0xCD9E8D57u, c2);
    Value n0 = k.bxor(k.bxor(hi1, c1), k0);
    Value n2 = k.bxor(k.bxor(hi0, c3), k1);
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 = k.add(k0, k.c32(0x9E3779B9u));
    k1 = k.add(k1, k.c32(0xBB67AE85u));
  }
  return {c0, c1, c2, c3};
}

/// Converts 8 scaled values to codes and returns them packed as the output
/// bytes of this vector (i64 for byte codes, i32 for fp4x2). `inRange` and
/// `bounded` are fpx.convert's promises (bounded: rs only).
Value convert8(KernelBuilder &k, const QuantizePlan &plan,
               ArrayRef<Value> ys, ArrayRef<Value> rbits,
               bool inRange, bool bounded) {
  MLIRContext *ctx = k.b.getContext();
  auto fmtAttr = FormatAttr::get(ctx, plan.elem.name, plan.elem.bias);
  auto rnd = RoundingKindAttr::get(ctx, plan.rounding);
  UnitAttr ovf = plan.satfinite ? UnitAttr() : k.b.getUnitAttr();
  bool fp4 = plan.elem.bits() <= 4;
  Type outTy = fp4 ? k.i32() : k.i64();
  Value acc = k.cInt(outTy, 0);
  if (plan.rounding == RoundingKind::rs) {
    for (int g = 0; g < 2; ++g) {
      Value v = k.vector(ys.slice(g * 4, 4));
      Type rt = fp4 ? k.i16() : k.i32();
      Value c = ConvertOp::create(k.b, k.loc, rt, v, rbits[g], fmtAttr, rnd, ovf,
                                  inRange ? k.b.getUnitAttr() : UnitAttr(),
                                  bounded && !inRange ? k.b.getUnitAttr() : UnitAttr());
      acc = k.bor(acc, k.shl(k.zext(c, outTy), k.cInt(outTy, g * (fp4 ? 16 : 32))));
    }
    return acc;
  }
  if (fp4) // one word: targets without a native cvt emulate and pack together
    return ConvertOp::create(k.b, k.loc, outTy, k.vector(ys), Value(), fmtAttr,
                             rnd, ovf, inRange ? k.b.getUnitAttr() : UnitAttr());
  for (int p = 0; p < 4; ++p) {
    Value v = k.vector(ys.slice(p * 2, 2));
    Type rt = fp4 ? k.i8() : k.i16();
    Value c = ConvertOp::create(k.b, k.loc, rt, v, Value(), fmtAttr, rnd, ovf);
    acc = k.bor(acc, k.shl(k.zext(c, outTy), k.cInt(outTy, p * (fp4 ? 8 : 16))));
  }
  return acc;
}

/// The fp6 4+2 parts of 8 six-bit codes (one per byte of `codes`): the
/// 2-bit high parts as i16 (code i in bits 2i+1..2i) and the low nibbles as
/// i32 (code i in bits 4i+3..4i). In 32-bit words of 4 codes: nibbles pair
/// up by t | t >> 4 (bytes 0 and 2), the 2-bit parts gather into the top
/// byte by one multiply (no carries: the other partial products land on
/// distinct bits below 24 or above 31), and prmt picks the bytes.
static std::pair<Value, Value> pack4p2(KernelBuilder &k, Value codes) {
  Value w[2] = {k.trunc(codes, k.i32()), k.trunc(k.shru(codes, k.c64(32)), k.i32())};
  Value lo[2], hi[2];
  for (int h = 0; h < 2; ++h) {
    Value t = k.band(w[h], k.c32(0x0f0f0f0f));
    lo[h] = k.bor(t, k.shru(t, k.c32(4)));
    hi[h] = k.mul(k.band(k.shru(w[h], k.c32(4)), k.c32(0x03030303)), k.c32(0x01041040));
  }
  Value lo32 = k.prmt(lo[0], lo[1], 0x6420);
  Value hi32 = k.prmt(hi[0], hi[1], 0x0073);
  return {k.trunc(hi32, k.i16()), lo32};
}

/// Byte offsets of the two parts of a 4+2-packed row (C codes per row, code
/// j of row `row`): the 2-bit parts at row*3C/4 + j/4, the nibbles at
/// row*3C/4 + C/4 + j/2 (i64 operands).
static std::pair<Value, Value> offsets4p2(KernelBuilder &k, Value cols, Value row,
                                          Value j) {
  Value rowBase = k.mul(row, k.divu(k.mul(cols, k.c64(3)), k.c64(4)));
  return {k.add(rowBase, k.divu(j, k.c64(4))),
          k.add(rowBase, k.add(k.divu(cols, k.c64(4)), k.divu(j, k.c64(2))))};
}

/// Row and vector-in-row (i32) of the flat vector index v0 + step*u for
/// u < n: one 32-bit division for v0 and one for the step, then increments
/// (a 64-bit division per vector would cost more than the cast). Needs
/// v0 + step*n < 2^32 (the launch requires fewer than 2^35 elements).
SmallVector<RowPos> rowPositions(KernelBuilder &k, Value v0, int64_t step,
                                 int64_t n, Value vecsPerRow) {
  Value d = k.trunc(vecsPerRow, k.i32());
  Value v = k.trunc(v0, k.i32());
  Value row = k.divu(v, d);
  Value col = k.sub(v, k.mul(row, d));
  Value stepQ = k.divu(k.c32(step), d);
  Value stepR = k.sub(k.c32(step), k.mul(stepQ, d));
  SmallVector<RowPos> out{{row, col}};
  for (int64_t u = 1; u < n; ++u) {
    col = k.add(col, stepR);
    row = k.add(row, stepQ);
    Value wrap = k.cmp(P::uge, col, d);
    col = k.select(wrap, k.sub(col, d), col);
    row = k.add(row, k.zext(wrap, k.i32()));
    out.push_back({row, col});
  }
  return out;
}

/// The 6 bytes (a little-endian 48-bit word) of 8 fp6 codes (one per byte
/// of `codes`) in the layouts that pack every vector into 6 bytes at 6v:
/// fp6_packed (two 24-bit words of 4 codes, code i at bit 6i) and
/// fp6_interleaved (each 4 codes c0..c3 -> b0 = c0[5:2] c1[5:2],
/// b1 = c3[5:2] c2[5:2], b2 = c0[1:0] c1[1:0] c3[1:0] c2[1:0];
/// docs/formats.md).
static Value sixBytes(KernelBuilder &k, LayoutKind pk, Value codes) {
  Value w = k.c64(0);
  for (int i = 0; i < 8; ++i) {
    Value c = k.shru(codes, k.c64(8 * i));
    if (pk == LayoutKind::fp6_packed) {
      w = k.bor(w, k.shl(k.band(c, k.c64(0x3f)), k.c64(6 * i)));
      continue;
    }
    int base = 24 * (i / 4), t = i % 4;
    Value hi = k.band(k.shru(c, k.c64(2)), k.c64(0xf));
    Value lo = k.band(c, k.c64(3));
    w = k.bor(w, k.shl(hi, k.c64(base + num::kInterleavedHi[t])));
    w = k.bor(w, k.shl(lo, k.c64(base + num::kInterleavedLo[t])));
  }
  return w;
}

/// Writes the packed codes of vector `v` (8 elements, flat index 8v). `pos`,
/// when given, is its (row, vector in row) as i32, which saves the 4+2
/// layout a division.
void storeCodes(KernelBuilder &k, const QuantizePlan &plan, Value out,
                Value v, Value codes, Value ok, Value cols,
                const RowPos *pos) {
  std::optional<LayoutKind> pk = plan.packing;
  if (plan.elem.bits() <= 4) { // fp4x2 (unpacked fp4 is not a kernel output)
    k.storeIf(ok, codes, k.gep(out, k.i32(), v), 4);
    return;
  }
  if (!pk || *pk == LayoutKind::fp6_byte) {
    k.storeIf(ok, codes, k.gep(out, k.i64(), v), 8);
    return;
  }
  if (*pk == LayoutKind::fp6_packed || *pk == LayoutKind::fp6_interleaved) {
    // The vector's 6 bytes, stored at 6v.
    Value w = sixBytes(k, *pk, codes);
    Value base = k.gep(out, k.i8(), k.mul(v, k.c64(6)));
    k.storeIf(ok, k.trunc(w, k.i16()), base, 2);
    k.storeIf(ok, k.trunc(k.shru(w, k.c64(16)), k.i32()),
              k.gep(base, k.i8(), k.c64(2)), 2);
    return;
  }
  // fp6_planes (per row of C codes): 2 high bits of code j in byte j/4, the 4
  // low bits in byte C/4 + j/2 (even j low nibble).
  Value row, j;
  if (pos) {
    row = k.zext(pos->row, k.i64());
    j = k.mul(k.zext(pos->col, k.i64()), k.c64(8));
  } else {
    Value flat = k.mul(v, k.c64(8));
    row = k.divu(flat, cols);
    j = k.remu(flat, cols);
  }
  auto [hi32, lo32] = pack4p2(k, codes);
  auto [hiOff, loOff] = offsets4p2(k, cols, row, j);
  k.storeIf(ok, hi32, k.gep(out, k.i8(), hiOff), 2);
  k.storeIf(ok, lo32, k.gep(out, k.i8(), loOff), 4);
}

/// The random Hadamard transform of size n over blocks of n consecutive
/// elements, in place on one thread's 8 values (flat vector index v), in the
/// numerics core's order (numerics/lib/Hadamard.cpp): signs, butterflies
/// h = 1, 2, 4 in registers, h >= 8 across the lanes that hold the block
/// (lane i holds vector i of the warp), then the fp32(1/sqrt(n)) factor. The
/// signs are compile-time constants: a bit mask indexed by position.
void applyHadamard(KernelBuilder &k, SmallVector<Value> &xs, Value v,
                   int64_t n, uint64_t seed) {
  std::vector<float> signs = num::hadamardSigns(static_cast<int>(n), seed);
  uint64_t mask[2] = {0, 0};
  for (int64_t j = 0; j < n; ++j)
    if (signs[j] < 0)
      mask[j / 64] |= uint64_t(1) << (j % 64);
  // Sign bits of this thread's 8 positions: position of element i is
  // (8 v + i) mod n.
  Value chunk;
  if (n <= 8) {
    chunk = k.c64(0);
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i)
      if (signs[i % n] < 0)
        bits |= 1u << i;
    chunk = k.c64(bits);
  } else {
    Value g = k.remu(v, k.c64(n / 8)); // which 8-element chunk of the block
    Value lo = k.band(k.shru(k.c64(mask[0]), k.mul(k.remu(g, k.c64(8)), k.c64(8))), k.c64(0xff));
    chunk = lo;
    if (n > 64) {
      Value hi = k.band(k.shru(k.c64(mask[1]), k.mul(k.remu(g, k.c64(8)), k.c64(8))),
                        k.c64(0xff));
      chunk = k.select(k.cmp(P::uge, g, k.c64(8)), hi, lo);
    }
  }
  Value chunk32 = k.trunc(chunk, k.i32());
  for (int i = 0; i < 8; ++i) {
    Value bit = k.band(k.shru(chunk32, k.c32(i)), k.c32(1));
    Value xb = k.bxor(k.bitcast(xs[i], k.i32()), k.shl(bit, k.c32(31)));
    xs[i] = k.bitcast(xb, k.f32());
  }
  for (int64_t h = 1; h < std::min<int64_t>(n, 8); h *= 2)
    for (int64_t i = 0; i < 8; i += 2 * h)
      for (int64_t j = i; j < i + h; ++j) {
        Value a = xs[j], b = xs[j + h];
        xs[j] = k.fadd(a, b);
        xs[j + h] = k.arithSub(a, b);
      }
  for (int64_t h = 8; h < n; h *= 2) {
    int64_t d = h / 8; // partner lane distance
    Value upper = k.cmp(P::ne, k.band(v, k.c64(d)), k.c64(0));
    for (int i = 0; i < 8; ++i) {
      Value mine = xs[i], other = k.shuffleXor(mine, static_cast<int>(d));
      // lower lane: a + b (a mine); upper lane: a - b with a the lower's
      xs[i] = k.select(upper, k.arithSub(other, mine), k.fadd(mine, other));
    }
  }
  float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n)));
  for (Value &x : xs)
    x = k.fmul(x, k.cf32(scale));
}

/// Byte offset of scale (r, c) in the blocked 128x4 layout of a matrix with
/// `scaleCols` columns (numerics blockedOffset).
Value blockedOffset(KernelBuilder &k, Value r, Value c, Value scaleCols) {
  Value tilesPerRow = k.divu(k.add(scaleCols, k.c64(3)), k.c64(4));
  Value tile = k.add(k.mul(k.divu(r, k.c64(128)), tilesPerRow), k.divu(c, k.c64(4)));
  Value inTile = k.add(k.add(k.mul(k.remu(r, k.c64(32)), k.c64(16)),
                             k.mul(k.divu(k.remu(r, k.c64(128)), k.c64(32)), k.c64(4))),
                       k.remu(c, k.c64(4)));
  return k.add(k.mul(tile, k.c64(512)), inTile);
}

Value scaleOffset(KernelBuilder &k, Value r, Value c, Value scaleCols, bool blocked) {
  return blocked ? blockedOffset(k, r, c, scaleCols) : k.add(k.mul(r, scaleCols), c);
}

/// x / s where s.fast holds (applyScale). A division x / s
/// is div.rn.f32 (about ten instructions) unless s.fast: then
/// q = q0 - r y with y = RN(1/s) once per block, q0 = RN(x y) and the exact
/// negated remainder r = fma(s, q0, -x), which is RN(x / s) (Markstein's
/// correction; checked against div.rn on the GPU for every pair of fp32
/// significands, test/gpu/DivisionTest.cpp) wherever q0 is normal and the
/// remainder exact, which holds for |x| >= 2^-100 in fastDivideOk's range
/// (r is a multiple of about 2^(e_x - 47) >= 2^-149). For smaller |x| the
/// quotient is below a quarter of the format's smallest value (fastDivideOk),
/// a signed zero code either way. The quotient's sign is x's without a fix:
/// q0 carries it, a nonzero q0 is never cancelled, and for x = +-0 the
/// remainder s q0 - x is +0 and -r y + q0 is -0 + (+-0) = +-0 (the form
/// fma(-s, q0, x), fma(r, y, q0) would turn -0 into +0).
/// With s.pending (xs lack that factor) the divisor is s / pending, exact
/// and within fastDivideOk's range where deferFactor left s.fast; every step
/// is then the image, scaled by 1 / pending, of the same steps on
/// x = xs * pending (exact for |xs| >= 2^-100 / pending; below, both give a
/// signed zero code as above), so the quotients are bit-identical.
/// With s.unbounded (|x| may exceed the amax s came from), an infinite q0 is
/// kept: x is +-inf (x / s = +-inf) or x / s overflows or lies within an ulp
/// of overflowing (RN(x / s) = +-inf or +-FLT_MAX), beyond every format's
/// range either way, so the code is the same; the correction would give NaN.
static SmallVector<Value> fastQuotients(KernelBuilder &k, const Scale &s,
                                        ArrayRef<Value> xs) {
  Value d = s.pending == 1.0f ? s.factor : k.fmul(s.factor, k.cf32(1.0f / s.pending));
  Value y = k.fdiv(k.cf32(1.0f), d);
  SmallVector<Value> ys;
  for (Value x : xs) {
    Value q0 = k.fmul(x, y);
    Value nx = arith::NegFOp::create(k.b, k.loc, x);
    Value r = LLVM::FMAOp::create(k.b, k.loc, d, q0, nx);
    Value nr = arith::NegFOp::create(k.b, k.loc, r);
    Value q = LLVM::FMAOp::create(k.b, k.loc, nr, y, q0);
    if (s.unbounded)
      q = k.select(k.fcmp(arith::CmpFPredicate::OEQ, k.fabs(q0), k.cf32(INFINITY)), q0, q);
    ys.push_back(q);
  }
  return ys;
}

/// x / s by div.rn (x * 0 for a zero scale: keeps the sign, NaN stays NaN),
/// x = xs * s.pending.
static SmallVector<Value> slowQuotients(KernelBuilder &k, const Scale &s,
                                        ArrayRef<Value> xs) {
  Value zeroScale = k.fcmp(arith::CmpFPredicate::OEQ, s.factor, k.cf32(0));
  SmallVector<Value> ys;
  for (Value x : xs) {
    if (s.pending != 1.0f)
      x = k.fmul(x, k.cf32(s.pending));
    ys.push_back(k.select(zeroScale, k.fmul(x, k.cf32(0.0f)), k.fdiv(x, s.factor)));
  }
  return ys;
}

void deferFactor(KernelBuilder &k, Scale &s, float pending) {
  assert(s.divide && "only a division takes a deferred factor");
  s.pending = pending;
  // fastDivideOk's s <= 2^125 for the divisor s / pending
  s.fast = k.band(s.fast, k.fcmp(arith::CmpFPredicate::OLE, s.factor,
                                 k.cf32(std::ldexp(pending, 125))));
}

/// s.fast where it is a constant (a caller's branch around several blocks'
/// conversions decided it), so that no branch is emitted on it.
static std::optional<bool> knownFast(const Scale &s) {
  APInt c;
  if (s.fast && matchPattern(s.fast, m_ConstantInt(&c)))
    return !c.isZero();
  return std::nullopt;
}

SmallVector<Value> branchOnFast(
    KernelBuilder &k, const Scale &s, TypeRange types,
    function_ref<SmallVector<Value>(const Scale &)> body) {
  assert(s.divide && s.fast && "only a divided scale has a fast path to branch on");
  auto ifOp = scf::IfOp::create(k.b, k.loc, types, s.fast, /*withElse=*/true);
  for (bool fast : {true, false}) {
    OpBuilder::InsertionGuard g(k.b);
    k.b.setInsertionPointToStart(fast ? ifOp.thenBlock() : ifOp.elseBlock());
    Scale sc = s;
    sc.fast = k.cInt(k.b.getI1Type(), fast);
    SmallVector<Value> results = body(sc);
    if (!types.empty()) // without results the regions end in their own yield
      scf::YieldOp::create(k.b, k.loc, results);
  }
  return SmallVector<Value>(ifOp.getResults());
}

/// The scaled values of one block, ready for conversion: x * factor, or
/// x / s (fastQuotients where s.fast, else slowQuotients).
SmallVector<Value> applyScale(KernelBuilder &k, const Scale &s,
                              ArrayRef<Value> xs) {
  if (!s.divide) {
    SmallVector<Value> ys;
    for (Value x : xs)
      ys.push_back(k.fmul(x, s.factor));
    return ys;
  }
  if (std::optional<bool> known = knownFast(s))
    return *known ? fastQuotients(k, s, xs) : slowQuotients(k, s, xs);
  SmallVector<Type> types(xs.size(), k.f32());
  auto ifOp = scf::IfOp::create(k.b, k.loc, types, s.fast, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(k.b);
    k.b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(k.b, k.loc, fastQuotients(k, s, xs));
  }
  {
    OpBuilder::InsertionGuard g(k.b);
    k.b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(k.b, k.loc, slowQuotients(k, s, xs));
  }
  return SmallVector<Value>(ifOp.getResults());
}

/// Stores the codes of kUnroll consecutive vectors v0.. (all in range; for
/// 4+2 packing in one row) with 16-byte stores where the layout allows.
void storeCodesRun(KernelBuilder &k, const QuantizePlan &plan, Value out,
                   Value v0, ArrayRef<Value> codes, Value ok, Value cols,
                   const RowPos &pos0) {
  std::optional<LayoutKind> pk = plan.packing;
  if (plan.elem.bits() <= 4) { // fp4x2: 4 x 4 bytes
    k.storeIf(ok, k.vector(codes), k.gep(out, k.i32(), v0), 16);
    return;
  }
  if (!pk || *pk == LayoutKind::fp6_byte) { // 4 x 8 bytes
    k.storeIf(ok, k.vector(codes), k.gep(out, k.i64(), v0), 16);
    return;
  }
  if (*pk == LayoutKind::fp6_packed || *pk == LayoutKind::fp6_interleaved) {
    // 4 vectors = 24 bytes at 6 v0 (8-byte aligned: 4 | v0): the four 48-bit
    // words as three 64-bit ones.
    SmallVector<Value> w;
    for (Value c : codes)
      w.push_back(sixBytes(k, *pk, c));
    Value words[3] = {k.bor(w[0], k.shl(w[1], k.c64(48))),
                      k.bor(k.shru(w[1], k.c64(16)), k.shl(w[2], k.c64(32))),
                      k.bor(k.shru(w[2], k.c64(32)), k.shl(w[3], k.c64(16)))};
    Value base = k.gep(out, k.i8(), k.mul(v0, k.c64(6)));
    for (int i = 0; i < 3; ++i)
      k.storeIf(ok, words[i], k.gep(base, k.i64(), k.c64(i)), 8);
    return;
  }
  assert(*pk == LayoutKind::fp6_planes && "an fp6 layout");
  SmallVector<Value> his, los;
  for (Value c : codes) {
    auto [hi, lo] = pack4p2(k, c);
    his.push_back(hi);
    los.push_back(lo);
  }
  Value row = k.zext(pos0.row, k.i64());
  Value j = k.mul(k.zext(pos0.col, k.i64()), k.c64(kVec));
  auto [hiOff, loOff] = offsets4p2(k, cols, row, j);
  // 2-bit parts: 4 x 2 bytes (8-byte aligned: 32 | j); nibbles: 4 x 4 bytes
  // (8-byte aligned)
  Value hi64 = k.c64(0);
  for (int u = 0; u < 4; ++u)
    hi64 = k.bor(hi64, k.shl(k.zext(his[u], k.i64()), k.c64(16 * u)));
  k.storeIf(ok, hi64, k.gep(out, k.i8(), hiOff), 8);
  k.storeIf(ok, k.vector(los), k.gep(out, k.i8(), loOff), 8);
}

/// |x| * 2^(127 - c) clamped to the element format's largest value M (e2m1:
/// 6) for the 8 bf16 values of a finite block with E8M0 code c (raw: their
/// 16-byte word), the clamp done on the bf16 pairs before widening:
/// min(|x|, M * 2^(c - 127)) in bf16 (exact: M's bf16 bits plus (c - 127)
/// in the exponent field; +inf where that field would overflow, codes that
/// no rule gives a block with |x| / 2^(c - 127) above M:
/// E2M1Emulation.RsClampThresholdIsSixTimesTheScale). Scaling by a power of
/// two commutes with the clamp, so these are the clamped products
/// applyScale's values would give, each <= M: conversions take them
/// in_range. With QuantizePlan::bf16AbsMinMax
/// min.xorsign.abs.bf16x2 clamps |x| and keeps x's sign (which the in_range
/// e2m1 rs conversion ignores; the codes' signs come from x).
static SmallVector<Value> clampedProducts(KernelBuilder &k, const QuantizePlan &plan,
                                          const Scale &s, Value raw) {
  float maxElem = static_cast<float>(plan.elem.maxFinite());
  uint32_t maxBits;
  std::memcpy(&maxBits, &maxElem, 4);
  assert((maxBits & 0xffff) == 0 && "the format's largest value is a bf16");
  // bf16 bits of M * 2^(c - 127): M's, plus (c - 127) in the exponent field
  int32_t offset = int32_t(maxBits >> 16) - (127 << 7);
  int32_t firstInf = (0x7f80 - offset + 127) >> 7; // first c whose field overflows
  Value c = k.zext(s.store, k.i32());
  Value t = k.select(k.cmp(P::uge, c, k.c32(firstInf)), k.c32(0x7f80),
                     k.add(k.shl(c, k.c32(7)), k.c32(offset)));
  Type v2 = k.vec(2, k.b.getBF16Type());
  Value thr = k.bitcast(k.bor(t, k.shl(t, k.c32(16))), v2);
  SmallVector<Value> out;
  for (int j = 0; j < 4; ++j) {
    Value w;
    if (plan.bf16AbsMinMax) {
      w = k.ptx(k.i32(), "min.xorsign.abs.bf16x2 $0, $1, $2;", "=r,r,r",
                {k.extract(raw, j), k.bitcast(thr, k.i32())});
    } else {
      Value m = k.bitcast(k.band(k.extract(raw, j), k.c32(0x7fff7fff)), v2);
      w = k.bitcast(arith::MinimumFOp::create(k.b, k.loc, m, thr), k.i32());
    }
    out.push_back(k.fmul(k.bitcast(k.shl(w, k.c32(16)), k.f32()), s.factor));
    out.push_back(k.fmul(k.bitcast(k.band(w, k.c32(0xffff0000u)), k.f32()), s.factor));
  }
  return out;
}

/// The fp4x2 codes (i32) of 8 values divided by a block scale (NVFP4, fp32)
/// or multiplied by an E8M0 factor (rs, or inputs the packed bf16 path does
/// not take), with the sign handled once per word: the conversion sees |q| (so
/// LLVM folds its per-value sign and NaN logic away: both give 0 for a
/// non-negative input) and the sign bits are x's, or-ed into bit 4i+3 where
/// the quotient is not NaN (a NaN code is +max, without sign). The
/// quotient's (product's) sign is x's wherever it is not NaN (s > 0, x * 0
/// for a zero scale, factor 2^-e > 0), so this is the code convert8 gives
/// for applyScale's values.
/// `raw` (the bf16 words of x, or null) spares widening for the signs.
Value convertFp4SplitSigns(KernelBuilder &k, const QuantizePlan &plan,
                           const Scale &s, ArrayRef<Value> xs,
                           ArrayRef<Value> rbits, Value raw) {
  using F = arith::CmpFPredicate;
  auto magnitudes = [&](ArrayRef<Value> qs) {
    SmallVector<Value> mags;
    for (Value q : qs)
      mags.push_back(k.fabs(q));
    return mags;
  };
  // Codes and the not-NaN mask (bit 4i+3) per branch. The fast branch's
  // values are finite; divided ones are also below 7 (blockScale), so their
  // rn conversion needs no clamp (in_range) and their rs conversion may
  // saturate after rounding (bounded), while E8M0 products may reach 8:
  // from bf16 words they are clamped first, two at a time (clampedProducts).
  auto fastCodes = [&]() -> std::pair<Value, Value> {
    bool clamped = !s.divide && raw && plan.scaleKind == num::ScaleKind::E8M0;
    SmallVector<Value> qs = s.divide  ? fastQuotients(k, s, xs)
                            : clamped ? clampedProducts(k, plan, s, raw)
                                      : applyScale(k, s, xs);
    bool inRange = clamped || (s.divide && plan.rounding == RoundingKind::rn);
    bool bounded = s.divide && plan.rounding == RoundingKind::rs;
    Value c = convert8(k, plan, magnitudes(qs), rbits, inRange, bounded);
    return {c, k.c32(int32_t(0x88888888u))};
  };
  auto slowCodes = [&]() -> std::pair<Value, Value> {
    SmallVector<Value> qs = s.divide ? slowQuotients(k, s, xs) : applyScale(k, s, xs);
    Value keep = k.c32(0);
    for (auto [i, q] : llvm::enumerate(qs))
      keep = k.bor(keep, k.shl(k.zext(k.fcmp(F::ORD, q, q), k.i32()), k.c32(4 * i + 3)));
    return {convert8(k, plan, magnitudes(qs), rbits), keep};
  };
  Value codes, keep;
  if (std::optional<bool> known = knownFast(s)) {
    std::tie(codes, keep) = *known ? fastCodes() : slowCodes();
  } else {
    auto ifOp = scf::IfOp::create(k.b, k.loc, TypeRange{k.i32(), k.i32()},
                                  s.fast, /*withElse=*/true);
    for (bool fast : {true, false}) {
      OpBuilder::InsertionGuard g(k.b);
      k.b.setInsertionPointToStart(fast ? ifOp.thenBlock() : ifOp.elseBlock());
      auto [c, kp] = fast ? fastCodes() : slowCodes();
      scf::YieldOp::create(k.b, k.loc, ValueRange{c, kp});
    }
    codes = ifOp.getResult(0);
    keep = ifOp.getResult(1);
  }
  Value sign = k.c32(0);
  if (raw) {
    // bf16 pair word j: bit 15 -> bit 8j+3, bit 31 -> bit 8j+7. prmt's
    // sign-replicating selectors (8 | byte) gather the sign bytes as 0x00 /
    // 0xff: first [hi0, hi1, lo0, lo1] per two words, then all four highs
    // and all four lows; each output byte takes its high nibble from the
    // highs and its low nibble from the lows (`keep` masks bits 3 and 7).
    Value x01 = k.prmt(k.extract(raw, 0), k.extract(raw, 1), 0xD9FB);
    Value x23 = k.prmt(k.extract(raw, 2), k.extract(raw, 3), 0xD9FB);
    Value his = k.prmt(x01, x23, 0x5410), los = k.prmt(x01, x23, 0x7632);
    sign = k.bor(k.band(his, k.c32(0xf0f0f0f0u)), k.band(los, k.c32(0x0f0f0f0f)));
  } else {
    // f32 values: the sign bytes (0x00 / 0xff, sign-replicating selectors
    // 8 | 3 and 8 | 7 on the values' top bytes) of the even values and of
    // the odd ones, gathered in order; low nibbles from the evens, high
    // nibbles from the odds (`keep` masks bits 3 and 7).
    auto signBytes = [&](int first) {
      Value a = k.prmt(k.bitcast(xs[first], k.i32()), k.bitcast(xs[first + 2], k.i32()), 0x00FB);
      Value b = k.prmt(k.bitcast(xs[first + 4], k.i32()), k.bitcast(xs[first + 6], k.i32()), 0x00FB);
      return k.prmt(a, b, 0x5410);
    };
    Value evens = signBytes(0), odds = signBytes(1);
    sign = k.bor(k.band(evens, k.c32(0x0f0f0f0f)), k.band(odds, k.c32(0xf0f0f0f0u)));
  }
  return k.bor(codes, k.band(sign, keep));
}

/// The two cvt.rs words of elements 8v..8v+7 (flat index 8v).
SmallVector<Value> rsWords(KernelBuilder &k, Value v, Value seed) {
  std::array<Value, 4> w = philox(k, k.divu(v, k.c64(2)), seed);
  Value odd = k.cmp(P::ne, k.band(v, k.c64(1)), k.c64(0));
  return {k.select(odd, w[2], w[0]), k.select(odd, w[3], w[1])};
}

Value absMaxBf16(KernelBuilder &k, ArrayRef<SmallVector<Value>> raw, bool xorsign) {
  SmallVector<Value> words;
  for (const SmallVector<Value> &r : raw)
    words.append(r.begin(), r.end());
  return absMaxBf16Words(k, words, xorsign);
}

CastParams castParams(Block &entry, const QuantizePlan &plan) {
  CastParams p;
  unsigned a = 0;
  p.in = entry.getArgument(a++);
  p.out = entry.getArgument(a++);
  p.scales = entry.getArgument(a++);
  if (plan.tensorAmax)
    p.amax = entry.getArgument(a++);
  if (plan.globalScaleOut)
    p.globalScaleOut = entry.getArgument(a++);
  if (plan.amaxOut)
    p.amaxOut = entry.getArgument(a++);
  if (plan.rounding == RoundingKind::rs)
    p.seed = entry.getArgument(a++);
  p.extent0 = entry.getArgument(a++);
  p.extent1 = entry.getArgument(a++);
  if (plan.matrixAmax)
    p.matrix = entry.getArgument(a++);
  return p;
}

KernelDesc makeCastKernel(OpBuilder &b, Location loc, StringRef name,
                          const QuantizePlan &plan,
                          std::array<const char *, 2> extents) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext(), 1), i64 = b.getI64Type();
  KernelDesc desc;
  SmallVector<Type> args = {ptr, ptr, ptr};
  desc.params = {"in", "out", "scales"};
  if (plan.tensorAmax) {
    args.push_back(ptr);
    desc.params.push_back("amax");
  }
  if (plan.globalScaleOut) {
    args.push_back(ptr);
    desc.params.push_back("global_scale");
  }
  if (plan.amaxOut) {
    args.push_back(ptr);
    desc.params.push_back("amax_out");
  }
  if (plan.rounding == RoundingKind::rs) {
    args.push_back(i64);
    desc.params.push_back("seed");
  }
  args.append({i64, i64});
  desc.params.append({extents[0], extents[1]});
  if (plan.matrixAmax) {
    args.push_back(i64);
    desc.params.push_back("matrix");
  }
  desc.func = makeKernel(b, loc, name, args);
  return desc;
}

Value ctaMatrix(KernelBuilder &k, Value cta, Value matrix) {
  Value ctas = k.trunc(k.divu(matrix, k.c64(kCtaElements)), k.i32());
  return k.zext(k.divu(k.trunc(cta, k.i32()), ctas), k.i64());
}

void storeGlobalScale(KernelBuilder &k, const CastParams &p, Value g) {
  if (!p.globalScaleOut)
    return;
  Value first = k.cmp(P::eq, k.threadIdx(), k.c64(0));
  for (gpu::Dimension d : {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z})
    first = k.land(first, k.cmp(P::eq, k.blockIdx(d), k.c64(0)));
  k.storeIf(first, g, p.globalScaleOut, 4);
}

Value vectorCodes(KernelBuilder &k, const QuantizePlan &plan, const Scale &s,
                 ArrayRef<Value> raw,
                 function_ref<SmallVector<Value>()> rbitsOf) {
  SmallVector<Value> xs = widenRaw(k, plan.inElem, raw);
  SmallVector<Value> rbits = rbitsOf();
  if (s.divide && plan.elem == num::e2m1fn() && plan.satfinite)
    return convertFp4SplitSigns(k, plan, s, xs, rbits,
                                plan.inElem.isBF16() ? raw[0] : Value());
  return convert8(k, plan, applyScale(k, s, xs), rbits);
}

void withScale(KernelBuilder &k, const Scale &s,
               function_ref<void(const Scale &)> body) {
  if (!(s.divide && s.fast)) {
    body(s);
    return;
  }
  branchOnFast(k, s, {}, [&](const Scale &sc) {
    body(sc);
    return SmallVector<Value>();
  });
}

} // namespace qk
} // namespace fpx
