//===- FormatTest.cpp - Format descriptions, lookup and value tables ------===//
#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace fpx::num;

namespace {

TEST(Format, NamedFormatProperties) {
  EXPECT_EQ(e4m3fn().maxFinite(), 448.0);
  EXPECT_EQ(e5m2().maxFinite(), 57344.0);
  EXPECT_EQ(e2m3fn().maxFinite(), 7.5);
  EXPECT_EQ(e3m2fn().maxFinite(), 28.0);
  EXPECT_EQ(e2m1fn().maxFinite(), 6.0);
  EXPECT_EQ(e8m0fnu().maxFinite(), std::ldexp(1.0, 127));
  EXPECT_EQ(ue4m3().maxFinite(), 448.0);
  EXPECT_EQ(e4m3fn().minSubnormal(), std::ldexp(1.0, -9));
  EXPECT_EQ(e5m2().minSubnormal(), std::ldexp(1.0, -16));
  EXPECT_EQ(e2m1fn().minSubnormal(), 0.5);
  EXPECT_EQ(e8m0fnu().minSubnormal(), std::ldexp(1.0, -127));
  EXPECT_EQ(e4m3fn().minNormal(), std::ldexp(1.0, -6));
  EXPECT_EQ(e4m3fn().bits(), 8);
  EXPECT_EQ(e2m3fn().bits(), 6);
  EXPECT_EQ(e2m1fn().bits(), 4);
  EXPECT_EQ(ue4m3().bits(), 7);
  EXPECT_EQ(e8m0fnu().bits(), 8);
  EXPECT_EQ(e4m3fn().nanCode(), 0x7Fu);
  EXPECT_EQ(e5m2().nanCode(), 0x7Fu);
  EXPECT_EQ(e5m2().infCode(), 0x7Cu);
  EXPECT_EQ(e8m0fnu().nanCode(), 0xFFu);
  EXPECT_EQ(e4m3fn().maxNormalExp(), 8);
  EXPECT_EQ(e5m2().maxNormalExp(), 15);
  EXPECT_EQ(e2m3fn().maxNormalExp(), 2);
  EXPECT_EQ(e3m2fn().maxNormalExp(), 4);
  EXPECT_EQ(e2m1fn().maxNormalExp(), 2);
}

TEST(Format, LookupNamesAndAliases) {
  struct {
    const char *alias;
    const Format &want;
  } cases[] = {{"e4m3fn", e4m3fn()},      {"fp8_e4m3", e4m3fn()},
               {"FLOAT8_E4M3FN", e4m3fn()}, {"e5m2", e5m2()},
               {"fp8_e5m2", e5m2()},       {"mxfp6_e2m3", e2m3fn()},
               {"mxfp6_e3m2", e3m2fn()},   {"fp6_llm", e3m2fn()},
               {"nvfp4", e2m1fn()},        {"mxfp4", e2m1fn()},
               {"e8m0fnu", e8m0fnu()},     {"ue8m0", e8m0fnu()},
               {"ue4m3", ue4m3()},         {"e2m2", namedFormats()[7]}};
  for (auto &c : cases) {
    auto f = lookupFormat(c.alias);
    ASSERT_TRUE(f.has_value()) << c.alias;
    EXPECT_EQ(*f, c.want) << c.alias;
  }
  EXPECT_EQ(*lookupFormat("bf16"), bf16());
  EXPECT_EQ(*lookupFormat("fp16"), fp16());
}

TEST(Format, LookupGeneric) {
  auto f = lookupFormat("e3m3");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ebits, 3);
  EXPECT_EQ(f->mbits, 3);
  EXPECT_EQ(f->bias, 3);
  EXPECT_EQ(f->policy, SpecialPolicy::FiniteNoSpecials);
  f = lookupFormat("e3m4");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->policy, SpecialPolicy::FiniteNaNAllOnes); // 8-bit default
  f = lookupFormat("e4m3ieee_b8");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->policy, SpecialPolicy::IEEE);
  EXPECT_EQ(f->bias, 8);
  f = lookupFormat("ue5m3");
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->hasSign);
  f = lookupFormat("e4m0fnu");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->policy, SpecialPolicy::UnsignedNaNAllOnes);
  EXPECT_FALSE(lookupFormat("e5m3"));   // 9 bits with the sign
  EXPECT_FALSE(lookupFormat("e0m3"));
  EXPECT_FALSE(lookupFormat("e3m0ieee")); // IEEE needs a mantissa for NaN
  EXPECT_FALSE(lookupFormat("e4m3xyz"));
  EXPECT_FALSE(lookupFormat("int8"));
  EXPECT_THROW(getFormat("nope"), Error);
}

/// The textbook value of a code, computed independently of the library.
double referenceValue(const Format &f, uint32_t code) {
  uint32_t mag = code & ((1u << (f.ebits + f.mbits)) - 1);
  bool neg = f.hasSign && (code >> (f.ebits + f.mbits)) & 1;
  uint32_t allOnes = (1u << (f.ebits + f.mbits)) - 1;
  int expField = int(mag >> f.mbits);
  int man = int(mag & ((1u << f.mbits) - 1));
  if (f.policy == SpecialPolicy::IEEE && expField == (1 << f.ebits) - 1)
    return man ? NAN : (neg ? -INFINITY : INFINITY);
  if ((f.policy == SpecialPolicy::FiniteNaNAllOnes ||
       f.policy == SpecialPolicy::UnsignedNaNAllOnes) &&
      mag == allOnes)
    return NAN;
  double v;
  if (f.policy == SpecialPolicy::UnsignedNaNAllOnes)
    v = std::ldexp(1.0 + man / double(1 << f.mbits), expField - f.bias);
  else if (expField == 0)
    v = std::ldexp(man / double(1 << f.mbits), 1 - f.bias);
  else
    v = std::ldexp(1.0 + man / double(1 << f.mbits), expField - f.bias);
  return neg ? -v : v;
}

std::vector<Format> allSmallFormats() {
  std::vector<Format> fs = namedFormats();
  for (int e = 1; e <= 7; ++e)
    for (int m = 0; e + m + 1 <= 8; ++m) {
      std::string n = "e" + std::to_string(e) + "m" + std::to_string(m);
      for (std::string v : {n, n + "ieee", "u" + n, "u" + n + "fnu"})
        if (auto f = lookupFormat(v))
          fs.push_back(*f);
    }
  return fs;
}

TEST(Format, EveryCodeDecodesToTheTextbookValue) {
  for (const Format &f : allSmallFormats()) {
    for (uint32_t c = 0; c < (1u << f.bits()); ++c) {
      double want = referenceValue(f, c);
      float got = decode(f, c);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << f.name << " code " << c;
        EXPECT_TRUE(f.isNaNCode(c));
        continue;
      }
      EXPECT_EQ(double(got), want) << f.name << " code " << c;
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << f.name << " " << c;
    }
  }
}

TEST(Format, EveryCodeRoundTripsThroughEncode) {
  for (const Format &f : allSmallFormats()) {
    for (uint32_t c = 0; c < (1u << f.bits()); ++c) {
      float v = decode(f, c);
      if (std::isnan(v))
        continue;
      for (Rounding r : {Rounding::RN, Rounding::RZ, Rounding::RP, Rounding::RM})
        for (Overflow o : {Overflow::SatFinite, Overflow::ToInfOrNaN}) {
          if (std::isinf(v) && o == Overflow::SatFinite)
            continue;
          EXPECT_EQ(encodeBits(f, v, r, o), c) << f.name << " code " << c;
        }
    }
  }
}

TEST(Format, ValuesAreMonotoneInTheCode) {
  for (const Format &f : allSmallFormats()) {
    double prev = -INFINITY;
    for (uint32_t c = 0; c <= f.magnitudeMask(); ++c) {
      float v = decode(f, c);
      if (std::isnan(v))
        continue;
      EXPECT_GT(double(v), prev) << f.name << " code " << c;
      prev = v;
    }
    EXPECT_EQ(prev, f.hasInf() ? INFINITY : f.maxFinite()) << f.name;
    EXPECT_GT(f.maxFinite(), 0.0) << f.name;
  }
}

TEST(Format, RejectsBadFormats) {
  EXPECT_THROW(makeFormat("x", 0, 3, 1, true, SpecialPolicy::FiniteNoSpecials), Error);
  EXPECT_THROW(makeFormat("x", 9, 7, 1, true, SpecialPolicy::FiniteNoSpecials), Error);
  EXPECT_THROW(makeFormat("x", 4, 0, 7, true, SpecialPolicy::IEEE), Error);
  EXPECT_THROW(makeFormat("x", 8, 0, 127, true, SpecialPolicy::UnsignedNaNAllOnes), Error);
  EXPECT_THROW(encode(fp16(), 1.0f, Rounding::RN, Overflow::SatFinite), Error);
}

} // namespace
