//===- StochasticTest.cpp - cvt.rs emulation and Philox -------------------===//
#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Philox.h"
#include "fpx/Numerics/Quantize.h"

#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace fpx::num;
using fpx::test::fromBits;
using fpx::test::toBits;

namespace {

float rs(const Format &f, float x, uint32_t r) {
  return decode(f, encode(f, x, Rounding::RS, Overflow::SatFinite, r));
}

TEST(Stochastic, HandWorkedE2M1) {
  // 2.5 lies half way between 2 and 3 (ulp 1): discarded bits D = 0x80.
  EXPECT_EQ(rs(e2m1fn(), 2.5f, 0x7F), 2.0f);
  EXPECT_EQ(rs(e2m1fn(), 2.5f, 0x80), 3.0f);
  // 0.25 is half of the subnormal ulp 0.5.
  EXPECT_EQ(rs(e2m1fn(), 0.25f, 0x7F), 0.0f);
  EXPECT_EQ(rs(e2m1fn(), 0.25f, 0x80), 0.5f);
  // -5.5 in [4, 6), ulp 2: D = 0xC0; the sign does not change the rule.
  EXPECT_EQ(rs(e2m1fn(), -5.5f, 0x3F), -4.0f);
  EXPECT_EQ(rs(e2m1fn(), -5.5f, 0x40), -6.0f);
  // Rounding up past the max saturates (cvt.rs is always .satfinite).
  EXPECT_EQ(rs(e2m1fn(), 6.5f, 0xFF), 6.0f);
  // Only the low 8 bits of the random word are used.
  EXPECT_EQ(rs(e2m1fn(), 2.5f, 0xFFFFFF00u), 2.0f);
  // An exact value never moves.
  EXPECT_EQ(rs(e2m1fn(), 3.0f, 0xFF), 3.0f);
  EXPECT_EQ(encode(e2m1fn(), -0.0f, Rounding::RS, Overflow::SatFinite, 0xFF), 0x8);
}

TEST(Stochastic, HandWorkedE4M3AndTruncatedLowBits) {
  // 1.0625 = 1 + ulp/2 (ulp 1/8).
  EXPECT_EQ(rs(e4m3fn(), 1.0625f, 0x80), 1.125f);
  EXPECT_EQ(rs(e4m3fn(), 1.0625f, 0x7F), 1.0f);
  // D = 0x7F followed by more set bits: those lower bits are not added.
  // 1 + (0x7F + 0.99) / 256 * 2^-3
  float x = fromBits(0x3F800000u | (0x7Fu << 12) | 0xFFFu);
  EXPECT_EQ(rs(e4m3fn(), x, 0x80), 1.0f);
  EXPECT_EQ(rs(e4m3fn(), x, 0x81), 1.125f);
  // Subnormal result: 2^-10 is half the smallest subnormal 2^-9.
  EXPECT_EQ(rs(e4m3fn(), std::ldexp(1.0f, -10), 0x80), std::ldexp(1.0f, -9));
  EXPECT_EQ(rs(e4m3fn(), std::ldexp(1.0f, -10), 0x7F), 0.0f);
  // Far below the smallest subnormal the top discarded bits are zero.
  EXPECT_EQ(rs(e4m3fn(), std::ldexp(1.0f, -18), 0xFF), 0.0f);
  EXPECT_EQ(rs(e4m3fn(), std::ldexp(1.0f, -17), 0xFF), std::ldexp(1.0f, -9));
  // e5m2: 1.25 + 2^-4 = 1.3125, ulp 0.25, D = 0x40.
  EXPECT_EQ(rs(e5m2(), 1.3125f, 0xBF), 1.25f);
  EXPECT_EQ(rs(e5m2(), 1.3125f, 0xC0), 1.5f);
  // NaN stays NaN; inf saturates.
  EXPECT_EQ(encode(e4m3fn(), NAN, Rounding::RS, Overflow::SatFinite, 0xFF), 0x7F);
  EXPECT_EQ(encode(e4m3fn(), -INFINITY, Rounding::RS, Overflow::SatFinite, 0), 0xFE);
}

TEST(Stochastic, CvtRsX4OperandLayout) {
  // a, b, e, f all 2.5 (codes: 2 -> 0x4, 3 -> 0x5); one random byte set.
  EXPECT_EQ(cvtRsX4(e2m1fn(), 2.5f, 2.5f, 2.5f, 2.5f, 0x00000000u), 0x4444u);
  EXPECT_EQ(cvtRsX4(e2m1fn(), 2.5f, 2.5f, 2.5f, 2.5f, 0x80000000u), 0x5444u); // a
  EXPECT_EQ(cvtRsX4(e2m1fn(), 2.5f, 2.5f, 2.5f, 2.5f, 0x00008000u), 0x4544u); // b
  EXPECT_EQ(cvtRsX4(e2m1fn(), 2.5f, 2.5f, 2.5f, 2.5f, 0x00800000u), 0x4454u); // e
  EXPECT_EQ(cvtRsX4(e2m1fn(), 2.5f, 2.5f, 2.5f, 2.5f, 0x00000080u), 0x4445u); // f
  // e4m3: 1.0 = 0x38, 1.125 = 0x39.
  const float v = 1.0625f;
  EXPECT_EQ(cvtRsX4(e4m3fn(), v, v, v, v, 0x80000000u), 0x39383838u); // a
  EXPECT_EQ(cvtRsX4(e4m3fn(), v, v, v, v, 0x00800000u), 0x38393838u); // b
  EXPECT_EQ(cvtRsX4(e4m3fn(), v, v, v, v, 0x00008000u), 0x38383938u); // e
  EXPECT_EQ(cvtRsX4(e4m3fn(), v, v, v, v, 0x00000080u), 0x38383839u); // f
  // fp6 codes are zero-extended in their bytes: e2m3 1.0 = 0x08, 1.125 = 0x09.
  EXPECT_EQ(cvtRsX4(e2m3fn(), v, v, v, v, 0x80000000u), 0x09080808u);
  EXPECT_EQ(cvtRsX4(e3m2fn(), 1.125f, 1.0f, -1.0f, 28.0f, 0x80000000u), 0x0D0C2C1Fu);
  EXPECT_THROW(cvtRsX4(e8m0fnu(), v, v, v, v, 0), Error);
}

TEST(Stochastic, CvtRsF16x2AndBf16x2) {
  // f16: 1 + 2^-11 is half an ulp (2^-10) above 1: 13 random bits, D = 0x1000.
  const float a = 1.0f + std::ldexp(1.0f, -11);
  EXPECT_EQ(cvtRsF16x2(a, a, 0x10000FFFu, true), 0x3C013C00u);
  EXPECT_EQ(cvtRsF16x2(a, a, 0x0FFF1000u, true), 0x3C003C01u);
  // bits [31:29] and [15:13] are not random bits for f16x2.
  EXPECT_EQ(cvtRsF16x2(a, a, 0xEFFFEFFFu, true), 0x3C003C00u);
  // bf16: 1 + 2^-8 is half an ulp (2^-7): 16 random bits, D = 0x8000.
  const float b = 1.0f + std::ldexp(1.0f, -8);
  EXPECT_EQ(cvtRsBf16x2(b, b, 0x80007FFFu, false), 0x3F813F80u);
  EXPECT_EQ(cvtRsBf16x2(b, -b, 0x7FFF8000u, false), 0x3F80BF81u);
  // Overflow without .satfinite goes to inf, with it to max.
  EXPECT_EQ(cvtRsF16x2(70000.0f, 0.0f, 0, false), 0x7C000000u);
  EXPECT_EQ(cvtRsF16x2(70000.0f, 0.0f, 0, true), 0x7BFF0000u);
}

/// Over 2^20 Philox draws the mean of the rounded values must match the
/// input: exactly in expectation for inputs on the 8-bit random grid, and
/// within the truncation bias (ulp / 256) otherwise.
TEST(Stochastic, MeanMatchesInput) {
  struct Case {
    const Format *f;
    float x;
  };
  const Case cases[] = {
      {&e4m3fn(), 1.1f},    {&e4m3fn(), -3.3f},  {&e4m3fn(), 0.003f},
      {&e5m2(), 1.1f},      {&e5m2(), 1000.3f},  {&e2m3fn(), 1.3f},
      {&e2m3fn(), 0.07f},   {&e3m2fn(), 5.55f},  {&e3m2fn(), -0.2f},
      {&e2m1fn(), 2.7f},    {&e2m1fn(), -0.3f},  {&e2m1fn(), 4.9f},
      {&e4m3fn(), 1.0f + 37.0f / 2048.0f}, // exactly on the random grid
  };
  const int n = 1 << 20;
  uint64_t seed = 42;
  for (const Case &c : cases) {
    double sum = 0;
    for (int i = 0; i < n; ++i)
      sum += rs(*c.f, c.x, philoxBits(seed, uint64_t(i)));
    double mean = sum / n;
    float lo = decode(*c.f, encode(*c.f, c.x, Rounding::RZ, Overflow::SatFinite));
    float hi = decode(*c.f, encode(*c.f, std::fabs(c.x), Rounding::RP, Overflow::SatFinite));
    double ulp = std::fabs(double(hi) - std::fabs(double(lo)));
    double p = (std::fabs(double(c.x)) - std::fabs(double(lo))) / ulp;
    double sigma = ulp * std::sqrt(p * (1 - p) / n);
    double tol = 6 * sigma + ulp / 256;
    EXPECT_NEAR(mean, c.x, tol) << c.f->name << " x=" << c.x;
    // And it is genuinely stochastic: both neighbours occur.
    EXPECT_GT(p, 0.0);
  }
  // fp16 / bf16 through the x2 forms.
  for (float x : {1.0001f, -3.14159f}) {
    double sh = 0, sb = 0;
    for (int i = 0; i < n; ++i) {
      uint32_t r = philoxBits(7, uint64_t(i));
      uint32_t h = cvtRsF16x2(x, 0.0f, r, true);
      uint32_t b = cvtRsBf16x2(x, 0.0f, r, true);
      sh += halfToFloat(uint16_t(h >> 16));
      sb += bf16ToFloat(uint16_t(b >> 16));
    }
    EXPECT_NEAR(sh / n, x, 6 * std::ldexp(1.0, -10) * std::fabs(x) / std::sqrt(n) * 4 +
                               std::ldexp(std::fabs(x), -23));
    EXPECT_NEAR(sb / n, x, 6 * std::ldexp(1.0, -7) * std::fabs(x) / std::sqrt(n) * 4 +
                               std::ldexp(std::fabs(x), -23));
  }
}

TEST(Philox, KnownAnswers) {
  // Random123 kat_vectors for philox4x32_10.
  auto r = philox4x32x10({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  r = philox4x32x10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                    {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  r = philox4x32x10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                    {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(r, (std::array<uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, StreamIndexing) {
  auto block = philox4x32x10({5, 0, 0, 0}, {0x89abcdefu, 0x01234567u});
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(philoxBits(0x0123456789abcdefull, 20 + i), block[i]);
  auto high = philox4x32x10({0, 1, 0, 0}, {1, 0});
  EXPECT_EQ(philoxBits(1, (uint64_t(1) << 34) + 2), high[2]);
}

TEST(Stochastic, ElementBitsFollowTheX4Layout) {
  const uint64_t seed = 99;
  for (uint64_t k = 0; k < 8; ++k) {
    uint32_t w = philoxBits(seed, k);
    // Element 4k + j is operand 3 - j (f, e, b, a).
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(stochasticElementBits(e4m3fn(), seed, 4 * k + j),
                cvtRsOperandBits(e4m3fn(), w, 3 - j));
      EXPECT_EQ(stochasticElementBits(e2m1fn(), seed, 4 * k + j),
                cvtRsOperandBits(e2m1fn(), w, 3 - j));
    }
  }
}

} // namespace
