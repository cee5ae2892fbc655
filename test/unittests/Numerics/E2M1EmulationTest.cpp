//===- E2M1EmulationTest.cpp - the GPU e2m1 emulations' arithmetic ---------===//
//
// compiler/lib/Conversion/FPxToNVVM/ConvertEmulation.cpp emulates e2m1
// conversions on targets without the native cvt with a few fp32 and integer
// operations. This test runs the same arithmetic on the CPU (IEEE fp32, with
// std::fma and a round-toward-zero add) against the numerics core:
//  - rn, 8 values packed (emitE2M1RnSatX8): a = min(|x|, 6) (NaN: 6),
//    t = exponent of max(a, 1), y = fma(t, 2^22 + 1, a),
//    v = bits(y) + (bits(t) >> 22): the code in bits 2..0, bits 7..3 zero;
//    also without the clamp (in_range) for every |x| < 7;
//  - rs (emitE2M1RsSat, emitE2M1RsSatX4): b = bits(a *rz 2^-126), and
//    code = (4 b + (r << 16)) >> 24 (the same as (b + (r << 14)) >> 22);
//    four values packed as the x4 form gathers and interleaves them; and
//    `bounded` (finite |x| < 8): no clamp, the packed codes saturated after
//    rounding (codes - ((codes >> 3) & 0x1111)).
// By default a sample: every fp32 with a stride, and all inputs near every
// e2m1 value and midpoint; FPX_EXHAUSTIVE=1 runs all 2^32 inputs (about three
// minutes on one core). The emitted code itself is checked on the GPU against
// the numerics core and NVIDIA's conversions on all 2^32 inputs
// (test/gpu/ConvertExhaustiveTest.cpp, cases rn8 and rs); the bounded form
// only through the NVFP4 + rs cast kernels' tests (QuantizeKernelTest).
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/Quantize.h"

#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace fpx::num;
using fpx::test::fromBits;
using fpx::test::toBits;

namespace {

/// minnum(|x|, 6): NaN gives 6, as PTX min.f32 and the kernels.
float clampTo6(float x) {
  float a = std::fabs(x);
  return a != a ? 6.0f : (a < 6.0f ? a : 6.0f);
}

/// The low byte of v for one value (emitE2M1RnSatX8, before packing).
uint32_t rnByte(float a) {
  float m = a < 1.0f ? 1.0f : a;
  uint32_t tb = toBits(m) & 0x7f800000u;
  float y = std::fma(fromBits(tb), 4194305.0f, a);
  return toBits(y) + (tb >> 22);
}

/// a * 2^-126 rounded toward zero, for 0 <= a (PTX mul.rz.f32; the result
/// may be subnormal, which the CPU keeps as the GPU does without .ftz).
float mulRz2m126(float a) {
  double exact = std::ldexp(double(a), -126); // exact in double
  float r = float(exact);
  if (double(r) > exact)
    r = std::nextafter(r, 0.0f);
  return r;
}

/// v of emitE2M1RsSatX4 for one value: the code in bits 26..24.
uint32_t rsWord(float x, uint32_t r) {
  return 4u * toBits(mulRz2m126(clampTo6(x))) + ((r & 0xffu) << 16);
}

uint32_t rsSign(float x) { return x != x ? 0 : (toBits(x) >> 28) & 8; }

uint32_t rsCode(float x, uint32_t r) {
  uint32_t v = rsWord(x, r);
  if (v >> 27) // bits 31..27 must be zero for the gathers
    return 0xdead;
  return (v >> 24) | rsSign(x);
}

bool exhaustive() {
  const char *env = std::getenv("FPX_EXHAUSTIVE");
  return env && std::string(env) == "1";
}

/// Calls fn on the inputs to check: all 2^32 with FPX_EXHAUSTIVE=1, else a
/// strided sample plus every input within 64 ulps of each e2m1 value and
/// midpoint (and of 7, the clamp-free bound), both signs, and the specials.
template <typename Fn> void forEachInput(Fn fn) {
  if (exhaustive()) {
    for (uint64_t u = 0; u < (uint64_t(1) << 32); ++u)
      fn(uint32_t(u));
    return;
  }
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4099)
    fn(uint32_t(u));
  for (float p : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f,
                  3.0f, 3.5f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f})
    for (uint32_t sign : {0u, 0x80000000u})
      for (int d = -64; d <= 64; ++d)
        fn((toBits(p) + uint32_t(d)) ^ sign);
  for (uint32_t special : {0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fffffffu, 1u, 0x007fffffu})
    for (uint32_t sign : {0u, 0x80000000u})
      fn(special | sign);
}

TEST(E2M1Emulation, RnPackedMatchesTheNumericsCore) {
  const Format &f = e2m1fn();
  uint64_t bad = 0, badLow = 0, badInRange = 0;
  forEachInput([&](uint32_t u) {
    float x = fromBits(u);
    uint32_t want = encode(f, x != x ? x : std::fabs(x), Rounding::RN,
                           Overflow::SatFinite) & 7;
    uint32_t v = rnByte(clampTo6(x));
    if ((v & 0xf8u) && ++badLow <= 3)
      ADD_FAILURE() << "bits 7..3 not zero for 0x" << std::hex << u;
    if ((v & 7u) != want && ++bad <= 3)
      ADD_FAILURE() << "0x" << std::hex << u << ": " << (v & 7u) << ", want " << want;
    // in_range: without the clamp for every |x| < 7
    float ax = std::fabs(x);
    if (ax < 7.0f && ((rnByte(ax) & 7u) != want || (rnByte(ax) & 0xf8u)) && ++badInRange <= 3)
      ADD_FAILURE() << "in_range 0x" << std::hex << u;
  });
  EXPECT_EQ(bad + badLow + badInRange, 0u);
}

TEST(E2M1Emulation, RnPackingGathersTheBytes) {
  // Pairs as v0 + 16 v1, bytes gathered low first (prmt 0x0040, 0x5410).
  const float vals[8] = {0.3f, -1.7f, 2.5f, 6.0f, 0.0f, 5.1f, 0.74f, 3.5f};
  uint32_t word = 0, want = 0;
  for (int j = 0; j < 4; ++j) {
    uint32_t pair = rnByte(clampTo6(vals[2 * j])) + (rnByte(clampTo6(vals[2 * j + 1])) << 4);
    word |= (pair & 0xffu) << (8 * j);
  }
  for (int i = 0; i < 8; ++i)
    want |= uint32_t(encode(e2m1fn(), std::fabs(vals[i]), Rounding::RN,
                            Overflow::SatFinite) & 7) << (4 * i);
  EXPECT_EQ(word, want);
}

TEST(E2M1Emulation, RsOneAddMatchesTheNumericsCore) {
  const Format &f = e2m1fn();
  uint64_t bad = 0;
  for (uint32_t r : {0x00u, 0x01u, 0x7fu, 0x80u, 0xc3u, 0xffu}) {
    if (exhaustive() && r != 0x00u && r != 0x7fu && r != 0xffu)
      continue; // exhaustive: three random bytes
    forEachInput([&](uint32_t u) {
      float x = fromBits(u);
      uint32_t want = encode(f, x, Rounding::RS, Overflow::SatFinite, r);
      uint32_t got = rsCode(x, r);
      if (got != want && ++bad <= 3)
        ADD_FAILURE() << "0x" << std::hex << u << " r=0x" << r << ": " << got
                      << ", want " << want;
    });
  }
  EXPECT_EQ(bad, 0u);
}

TEST(E2M1Emulation, RsPackedGathersTheCodes) {
  // emitE2M1RsSatX4: value i takes byte {0, 2, 1, 3}[i] of the random word;
  // prmt 0x0073 gathers bytes 3 of values (0, 2) and (1, 3); one mad
  // interleaves (evens + 16 odds); the low 16 bits are the packed codes.
  const float vals[4] = {0.3f, -1.7f, 5.1f, 0.74f};
  const uint32_t kByte[4] = {0, 2, 1, 3};
  for (uint32_t rbits : {0x00000000u, 0xffffffffu, 0x80c3017fu, 0x12345678u}) {
    uint32_t v[4], sign = 0, want = 0;
    for (int i = 0; i < 4; ++i) {
      uint32_t r = (rbits >> (8 * kByte[i])) & 0xffu;
      v[i] = rsWord(vals[i], r);
      sign |= rsSign(vals[i]) << (4 * i);
      want |= encode(e2m1fn(), vals[i], Rounding::RS, Overflow::SatFinite, r) << (4 * i);
    }
    uint32_t even = (v[0] >> 24) | ((v[2] >> 24) << 8);
    uint32_t odd = (v[1] >> 24) | ((v[3] >> 24) << 8);
    EXPECT_EQ(((even + 16 * odd) | sign) & 0xffffu, want) << std::hex << rbits;
  }
}

TEST(E2M1Emulation, RsBoundedSaturatesAfterRounding) {
  // emitE2M1RsSatX4 with RsInputs::Bounded (finite |x| < 8): no clamp, the
  // code of v (bits 27..24; the gather takes bits 31..24, whose top four stay
  // zero) reaches 8 only from 7 by a carry, and the packed
  // codes lose it by codes - ((codes >> 3) & 0x1111). Every input below 8 in
  // the sample, each of the random bytes.
  const Format &f = e2m1fn();
  uint64_t bad = 0, checked = 0;
  for (uint32_t r : {0x00u, 0x01u, 0x7fu, 0x80u, 0xc3u, 0xffu}) {
    forEachInput([&](uint32_t u) {
      float x = fromBits(u);
      if (!(std::fabs(x) < 8.0f))
        return;
      ++checked;
      uint32_t v = 4u * toBits(mulRz2m126(std::fabs(x))) + ((r & 0xffu) << 16);
      uint32_t code = v >> 24; // what the gather takes: bits 31..24
      uint32_t got = (code - ((code >> 3) & 1)) | rsSign(x);
      uint32_t want = encode(f, x, Rounding::RS, Overflow::SatFinite, r);
      if ((code > 8 || got != want) && ++bad <= 3)
        ADD_FAILURE() << "0x" << std::hex << u << " r=0x" << r << ": " << got
                      << ", want " << want;
    });
  }
  EXPECT_GT(checked, 0u);
  EXPECT_EQ(bad, 0u);
  // The saturation of four packed codes (evens + 16 odds, spare bits above
  // 15 left alone): 8 -> 7, 0..7 unchanged, no borrow between nibbles.
  for (uint32_t codes : {0x8888u, 0x0807u, 0x7080u, 0x1234u, 0xabcd8000u | 0x0878u}) {
    uint32_t want = 0;
    for (int i = 0; i < 4; ++i) {
      uint32_t n = (codes >> (4 * i)) & 0xf;
      want |= (n == 8 ? 7 : n) << (4 * i);
    }
    EXPECT_EQ((codes - ((codes >> 3) & 0x1111u)) & 0xffffu, want) << std::hex << codes;
  }
}

TEST(E2M1Emulation, RsClampThresholdIsSixTimesTheScale) {
  // QuantizeKernelsInternal.cpp clampedProducts: the bf16 bits ((c + 2) << 7) | 0x40
  // are 6 * 2^(c - 127), the E8M0 scale of code c times e2m1's max, exactly,
  // for every c up to 252; from 253 on the threshold is +inf, which is right
  // only if no finite block with such a scale has |x| / scale > 6: checked
  // for every rule on the amax values that reach those codes (every fp32
  // with an exponent field of 253 or 254, strided).
  for (int c = 0; c <= 252; ++c) {
    uint32_t bits = ((uint32_t(c) + 2) << 7) | 0x40;
    float thr = fromBits(bits << 16);
    EXPECT_EQ(double(thr), std::ldexp(6.0, c - 127)) << "c = " << c;
  }
  uint64_t bad = 0, reached = 0;
  for (ScaleRule rule : {ScaleRule::Floor, ScaleRule::Ceil, ScaleRule::Even,
                         ScaleRule::RCeil, ScaleRule::RCeilRcp})
    for (uint32_t u = 253u << 23; u < 0x7f800000u; u += 97) {
      float amax = fromBits(u);
      int c = e8m0Scale(amax, e2m1fn(), rule);
      if (c < 253)
        continue;
      ++reached;
      if (double(amax) / std::ldexp(1.0, c - 127) > 6.0 && ++bad <= 3)
        ADD_FAILURE() << toString(rule) << " amax 0x" << std::hex << u << " code " << std::dec << c;
    }
  EXPECT_GT(reached, 0u);
  EXPECT_EQ(bad, 0u);
}

} // namespace
