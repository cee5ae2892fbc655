//===- ConvertTest.cpp - Deterministic rounding of every format -----------===//
//
// Besides the CUDA oracle (CudaOracleTest.cpp), every e<E>m<M> format and
// every deterministic rounding is checked against a brute-force oracle that
// lists the format's values and picks neighbours in double precision.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Convert.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace fpx::num;

namespace {

float e2m1rn(float x) {
  return decode(e2m1fn(), encode(e2m1fn(), x, Rounding::RN, Overflow::SatFinite));
}

TEST(Convert, E2M1WorkedExamples) {
  EXPECT_EQ(e2m1rn(0.25f), 0.0f);
  EXPECT_EQ(e2m1rn(0.75f), 1.0f);
  EXPECT_EQ(e2m1rn(1.25f), 1.0f);
  EXPECT_EQ(e2m1rn(1.75f), 2.0f);
  EXPECT_EQ(e2m1rn(2.5f), 2.0f);
  EXPECT_EQ(e2m1rn(3.5f), 4.0f);
  EXPECT_EQ(e2m1rn(5.0f), 4.0f);
  EXPECT_EQ(e2m1rn(-5.0f), -4.0f);
  EXPECT_EQ(e2m1rn(100.0f), 6.0f);
}

TEST(Convert, SignOfZeroAndNaN) {
  EXPECT_EQ(encode(e4m3fn(), -0.0f, Rounding::RN, Overflow::SatFinite), 0x80);
  EXPECT_EQ(encode(e4m3fn(), -1e-30f, Rounding::RN, Overflow::SatFinite), 0x80);
  EXPECT_EQ(encode(e2m1fn(), -0.0f, Rounding::RN, Overflow::SatFinite), 0x8);
  EXPECT_EQ(encode(e2m3fn(), -0.1f, Rounding::RZ, Overflow::SatFinite), 0x20);
  float nan = std::nanf("");
  EXPECT_EQ(encode(e4m3fn(), nan, Rounding::RN, Overflow::SatFinite), 0x7F);
  EXPECT_EQ(encode(e4m3fn(), -nan, Rounding::RN, Overflow::SatFinite), 0x7F);
  EXPECT_EQ(encode(e5m2(), nan, Rounding::RN, Overflow::ToInfOrNaN), 0x7F);
  EXPECT_EQ(encode(e8m0fnu(), nan, Rounding::RZ, Overflow::SatFinite), 0xFF);
  EXPECT_EQ(encode(ue4m3(), nan, Rounding::RN, Overflow::SatFinite), 0x7F);
  // No NaN in fp6/fp4: NaN becomes +max, as PTX cvt.satfinite does.
  EXPECT_EQ(encode(e2m1fn(), nan, Rounding::RN, Overflow::SatFinite), 0x7);
  EXPECT_EQ(encode(e3m2fn(), -nan, Rounding::RN, Overflow::SatFinite), 0x1F);
  EXPECT_TRUE(std::isnan(decode(e4m3fn(), 0xFF)));
  EXPECT_TRUE(std::signbit(decode(e4m3fn(), 0xFF)));
}

TEST(Convert, OverflowRules) {
  const float big = 1e6f, inf = INFINITY;
  EXPECT_EQ(encode(e4m3fn(), big, Rounding::RN, Overflow::SatFinite), 0x7E);
  EXPECT_EQ(encode(e4m3fn(), big, Rounding::RN, Overflow::ToInfOrNaN), 0x7F);
  EXPECT_EQ(encode(e4m3fn(), -big, Rounding::RN, Overflow::ToInfOrNaN), 0xFF);
  EXPECT_EQ(encode(e5m2(), -big, Rounding::RN, Overflow::ToInfOrNaN), 0xFC);
  EXPECT_EQ(encode(e5m2(), -inf, Rounding::RN, Overflow::SatFinite), 0xFB);
  // IEEE: rounding toward zero never overflows to inf.
  EXPECT_EQ(encode(e5m2(), big, Rounding::RZ, Overflow::ToInfOrNaN), 0x7B);
  EXPECT_EQ(encode(e5m2(), big, Rounding::RM, Overflow::ToInfOrNaN), 0x7B);
  EXPECT_EQ(encode(e5m2(), -big, Rounding::RM, Overflow::ToInfOrNaN), 0xFC);
  // 464 is the tie between 448 (even) and 480 (the NaN code): rn keeps 448.
  EXPECT_EQ(encode(e4m3fn(), 464.0f, Rounding::RN, Overflow::ToInfOrNaN), 0x7E);
  EXPECT_EQ(encode(e4m3fn(), 464.5f, Rounding::RN, Overflow::ToInfOrNaN), 0x7F);
  // e8m0 has no zero: everything below 2^-127 clips to code 0.
  EXPECT_EQ(encode(e8m0fnu(), 0.0f, Rounding::RP, Overflow::SatFinite), 0x00);
  EXPECT_EQ(encode(e8m0fnu(), 1e-45f, Rounding::RN, Overflow::SatFinite), 0x00);
  EXPECT_EQ(encode(e8m0fnu(), 3e38f, Rounding::RP, Overflow::ToInfOrNaN), 0xFF);
  EXPECT_EQ(encode(e8m0fnu(), 3e38f, Rounding::RP, Overflow::SatFinite), 0xFE);
  // Unsigned formats encode |x|.
  EXPECT_EQ(encode(ue4m3(), -2.0f, Rounding::RN, Overflow::SatFinite),
            encode(ue4m3(), 2.0f, Rounding::RN, Overflow::SatFinite));
  EXPECT_EQ(encode(e8m0fnu(), -4.0f, Rounding::RZ, Overflow::SatFinite), 129);
}

/// The brute-force oracle: round |x| among the listed values of `f`.
uint32_t bruteForce(const Format &f, float x, Rounding r, Overflow o) {
  if (std::isnan(x))
    return f.hasNaN() ? f.nanCode() : f.maxFiniteCode();
  bool neg = f.hasSign && std::signbit(x);
  uint32_t sign = neg ? f.signMask() : 0;
  double a = std::fabs(double(x));
  // Finite magnitudes, in code order (= value order).
  std::vector<double> vals;
  for (uint32_t c = 0; c <= f.maxFiniteCode(); ++c)
    vals.push_back(decode(f, c));
  const double max = vals.back();
  const double ulpMax = std::ldexp(1.0, f.maxNormalExp() - f.mbits);
  auto overflowCode = [&]() -> uint32_t {
    bool towardZero = r == Rounding::RZ || (r == Rounding::RP && neg) ||
                      (r == Rounding::RM && !neg);
    if (o == Overflow::SatFinite || !f.hasNaN() || towardZero)
      return sign | f.maxFiniteCode();
    return sign | (f.hasInf() ? f.infCode() : f.nanCode());
  };
  if (std::isinf(a)) {
    if (o == Overflow::SatFinite || !f.hasNaN())
      return sign | f.maxFiniteCode();
    return sign | (f.hasInf() ? f.infCode() : f.nanCode());
  }
  if (a < vals[0]) // only for formats without zero (e8m0): clip
    return 0;
  // lo = largest value <= a; hi = next (virtual max + ulp beyond the end).
  size_t lo = std::upper_bound(vals.begin(), vals.end(), a) - vals.begin() - 1;
  double loV = vals[lo];
  double hiV = lo + 1 < vals.size() ? vals[lo + 1] : max + ulpMax;
  uint32_t loC = uint32_t(lo), hiC = uint32_t(lo + 1);
  uint32_t code;
  if (a == loV) {
    code = loC;
  } else {
    bool up = false;
    switch (r) {
    case Rounding::RN: {
      double mid = (loV + hiV) / 2;
      up = a > mid || (a == mid && (hiC & 1) == 0);
      break;
    }
    case Rounding::RZ:
      break;
    case Rounding::RP:
      up = !neg;
      break;
    case Rounding::RM:
      up = neg;
      break;
    case Rounding::RS:
      break;
    }
    code = up ? hiC : loC;
  }
  if (code > f.maxFiniteCode())
    return overflowCode();
  if (code == 0 && !f.hasZero())
    return 0;
  return sign | code;
}

TEST(Convert, AllSmallFormatsAgainstBruteForce) {
  std::mt19937 rng(12345);
  int checked = 0;
  for (int e = 1; e <= 7; ++e) {
    for (int m = 0; e + m + 1 <= 8; ++m) {
      std::string base = "e" + std::to_string(e) + "m" + std::to_string(m);
      std::vector<Format> fs;
      for (std::string n : {base, "u" + base, base + "_b" + std::to_string(e),
                            base + "ieee", "u" + base + "fnu"})
        if (auto f = lookupFormat(n))
          fs.push_back(*f);
      for (const Format &f : fs) {
        std::vector<float> xs = {0.0f, -0.0f, INFINITY, -INFINITY, NAN,
                                 float(f.maxFinite()), float(f.minSubnormal())};
        // Every midpoint and its neighbours, plus random values in range.
        for (uint32_t c = 0; c < f.maxFiniteCode(); ++c) {
          float lo = decode(f, c), hi = decode(f, c + 1);
          float mid = (lo + hi) / 2;
          xs.insert(xs.end(), {mid, std::nextafter(mid, 0.0f),
                               std::nextafter(mid, INFINITY), -mid});
        }
        std::uniform_real_distribution<double> expDist(
            f.minNormalExp() - f.mbits - 3, f.maxNormalExp() + 3);
        for (int i = 0; i < 300; ++i) {
          float v = float(std::exp2(expDist(rng)));
          xs.push_back(rng() & 1 ? -v : v);
        }
        for (float x : xs)
          for (Rounding r : {Rounding::RN, Rounding::RZ, Rounding::RP, Rounding::RM})
            for (Overflow o : {Overflow::SatFinite, Overflow::ToInfOrNaN}) {
              uint32_t want = bruteForce(f, x, r, o);
              uint32_t got = encodeBits(f, x, r, o);
              ++checked;
              ASSERT_EQ(got, want) << f.name << " x=" << x << " " << toString(r)
                                   << " " << toString(o);
            }
      }
    }
  }
  EXPECT_GT(checked, 100000);
}

TEST(Convert, EncoderMatchesScalar) {
  for (const Format &f : {e4m3fn(), e5m2(), e2m3fn(), e3m2fn(), e2m1fn(), e8m0fnu()})
    for (Rounding r : {Rounding::RN, Rounding::RZ, Rounding::RP})
      for (Overflow o : {Overflow::SatFinite, Overflow::ToInfOrNaN}) {
        Encoder enc(f, r, o);
        std::vector<uint16_t> all(65536);
        for (uint32_t i = 0; i < 65536; ++i)
          all[i] = uint16_t(i);
        std::vector<uint8_t> a(65536), b(65536);
        enc.encodeBf16(all.data(), a.data(), all.size());
        enc.encodeFp16(all.data(), b.data(), all.size());
        std::vector<float> floats(65536);
        std::vector<uint8_t> c(65536);
        for (uint32_t i = 0; i < 65536; ++i) {
          ASSERT_EQ(a[i], encodeBf16(f, uint16_t(i), r, o));
          ASSERT_EQ(b[i], encodeFp16(f, uint16_t(i), r, o));
          uint32_t bits = i * 65521u + (i << 16);
          std::memcpy(&floats[i], &bits, 4);
        }
        enc.encode(floats.data(), c.data(), floats.size());
        for (uint32_t i = 0; i < 65536; ++i)
          ASSERT_EQ(c[i], encode(f, floats[i], r, o));
        std::vector<uint8_t> codes(256);
        std::vector<float> dec(256);
        for (int i = 0; i < 256; ++i)
          codes[i] = uint8_t(i);
        enc.decode(codes.data(), dec.data(), 256);
        for (uint32_t i = 0; i < (1u << f.bits()); ++i) {
          float want = decode(f, i);
          EXPECT_TRUE(std::memcmp(&want, &dec[i], 4) == 0 ||
                      (std::isnan(want) && std::isnan(dec[i])));
        }
      }
  EXPECT_THROW(Encoder(e4m3fn(), Rounding::RS, Overflow::SatFinite), Error);
}

} // namespace
