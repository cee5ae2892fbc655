//===- CudaOracleTest.cpp - FPxNumerics against cuda_fp{8,6,4}.h ----------===//
//
// NVIDIA's own host conversion functions, compiled by the host compiler, are
// the independent oracle: every bf16 and fp16 input, a dense structured fp32
// sweep (every exponent, mantissas around every rounding boundary) and 2^24
// random fp32 patterns per configuration, for every format, rounding and
// saturation mode the headers offer. Zero mismatches allowed.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Convert.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace fpx::num;
using fpx::test::fromBits;
using fpx::test::toBits;

namespace {

/// One configuration: our format/rounding/overflow and the oracle for it.
struct Config {
  std::string name;
  const Format *fmt;
  Rounding rounding;
  Overflow overflow;
  std::function<uint8_t(float)> fromFloat;
  std::function<uint8_t(uint16_t)> fromBf16; // may be empty
  std::function<uint8_t(uint16_t)> fromHalf; // may be empty
};

__nv_bfloat16_raw bfRaw(uint16_t b) {
  __nv_bfloat16_raw r;
  r.x = b;
  return r;
}
__half_raw hRaw(uint16_t b) {
  __half_raw r;
  r.x = b;
  return r;
}

std::vector<Config> configs() {
  std::vector<Config> cs;
  for (auto sat : {__NV_SATFINITE, __NV_NOSAT}) {
    Overflow ov = sat == __NV_SATFINITE ? Overflow::SatFinite : Overflow::ToInfOrNaN;
    std::string s = sat == __NV_SATFINITE ? "satfinite" : "nosat";
    for (auto interp : {__NV_E4M3, __NV_E5M2}) {
      cs.push_back({std::string(interp == __NV_E4M3 ? "e4m3" : "e5m2") + "_rn_" + s,
                    interp == __NV_E4M3 ? &e4m3fn() : &e5m2(), Rounding::RN, ov,
                    [=](float x) { return __nv_cvt_float_to_fp8(x, sat, interp); },
                    [=](uint16_t b) { return __nv_cvt_bfloat16raw_to_fp8(bfRaw(b), sat, interp); },
                    [=](uint16_t b) { return __nv_cvt_halfraw_to_fp8(hRaw(b), sat, interp); }});
    }
    for (auto rnd : {cudaRoundZero, cudaRoundPosInf}) {
      std::string r = rnd == cudaRoundZero ? "rz" : "rp";
      cs.push_back({"e8m0_" + r + "_" + s, &e8m0fnu(),
                    rnd == cudaRoundZero ? Rounding::RZ : Rounding::RP, ov,
                    [=](float x) { return __nv_cvt_float_to_e8m0(x, sat, rnd); },
                    [=](uint16_t b) { return __nv_cvt_bfloat16raw_to_e8m0(bfRaw(b), sat, rnd); },
                    // No halfraw entry point: widen exactly, then the fp32 one.
                    [=](uint16_t b) {
                      return __nv_cvt_float_to_e8m0(__half2float(__half(hRaw(b))), sat, rnd);
                    }});
    }
  }
  // fp6/fp4 always saturate (no inf/NaN); cuda offers rn and rz.
  for (auto rnd : {cudaRoundNearest, cudaRoundZero}) {
    Rounding r = rnd == cudaRoundNearest ? Rounding::RN : Rounding::RZ;
    std::string rs = rnd == cudaRoundNearest ? "rn" : "rz";
    for (auto interp : {__NV_E2M3, __NV_E3M2}) {
      cs.push_back({std::string(interp == __NV_E2M3 ? "e2m3" : "e3m2") + "_" + rs,
                    interp == __NV_E2M3 ? &e2m3fn() : &e3m2fn(), r, Overflow::SatFinite,
                    [=](float x) { return __nv_cvt_float_to_fp6(x, interp, rnd); },
                    [=](uint16_t b) { return __nv_cvt_bfloat16raw_to_fp6(bfRaw(b), interp, rnd); },
                    [=](uint16_t b) { return __nv_cvt_halfraw_to_fp6(hRaw(b), interp, rnd); }});
    }
    cs.push_back({"e2m1_" + rs, &e2m1fn(), r, Overflow::SatFinite,
                  [=](float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, rnd); },
                  [=](uint16_t b) { return __nv_cvt_bfloat16raw_to_fp4(bfRaw(b), __NV_E2M1, rnd); },
                  [=](uint16_t b) { return __nv_cvt_halfraw_to_fp4(hRaw(b), __NV_E2M1, rnd); }});
  }
  return cs;
}

/// Keeps ctest's test names readable (gtest would dump the bytes).
void PrintTo(const Config &c, std::ostream *os) { *os << c.name; }

class OracleTest : public ::testing::TestWithParam<Config> {};

std::string describe(uint32_t in, uint32_t want, uint32_t got) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "input 0x%08X: cuda 0x%02X, fpx 0x%02X", in, want, got);
  return buf;
}

TEST_P(OracleTest, AllBf16Inputs) {
  const Config &c = GetParam();
  if (!c.fromBf16)
    GTEST_SKIP() << "no bf16 oracle for " << c.name;
  int mismatches = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    uint8_t want = c.fromBf16(uint16_t(i));
    uint8_t got = encodeBf16(*c.fmt, uint16_t(i), c.rounding, c.overflow);
    if (want != got && ++mismatches <= 5)
      ADD_FAILURE() << c.name << " bf16 " << describe(i, want, got);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_P(OracleTest, AllFp16Inputs) {
  const Config &c = GetParam();
  if (!c.fromHalf)
    GTEST_SKIP() << "no fp16 oracle for " << c.name;
  int mismatches = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    uint8_t want = c.fromHalf(uint16_t(i));
    uint8_t got = encodeFp16(*c.fmt, uint16_t(i), c.rounding, c.overflow);
    if (want != got && ++mismatches <= 5)
      ADD_FAILURE() << c.name << " fp16 " << describe(i, want, got);
  }
  EXPECT_EQ(mismatches, 0);
}

/// Every sign and exponent, with mantissas straddling every possible
/// rounding position: for each top nibble and each bit j below it, the
/// patterns 0, 2^j - 1, 2^j, 2^j + 1, 2^(j+1) - 1 in the low bits.
std::vector<uint32_t> structuredFloats() {
  std::vector<uint32_t> out;
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t exp = 0; exp < 256; ++exp)
      for (uint32_t top = 0; top < 16; ++top)
        for (int j = 0; j < 19; ++j) {
          const uint32_t lows[] = {0u, (1u << j) - 1, 1u << j, (1u << j) + 1,
                                   (2u << j) - 1};
          for (uint32_t low : lows) {
            uint32_t man = (top << 19) | (low & 0x7ffff);
            out.push_back(sign << 31 | exp << 23 | man);
          }
        }
  return out;
}

TEST_P(OracleTest, StructuredFloatSweep) {
  const Config &c = GetParam();
  static const std::vector<uint32_t> inputs = structuredFloats();
  int mismatches = 0;
  for (uint32_t u : inputs) {
    float x = fromBits(u);
    uint8_t want = c.fromFloat(x);
    uint8_t got = encode(*c.fmt, x, c.rounding, c.overflow);
    if (want != got && ++mismatches <= 5)
      ADD_FAILURE() << c.name << " fp32 " << describe(u, want, got);
  }
  EXPECT_EQ(mismatches, 0);
}

/// 2^24 random fp32 bit patterns: half uniform over all 2^32 patterns, half
/// with exponents concentrated where the format's codes live.
TEST_P(OracleTest, RandomFloats) {
  const Config &c = GetParam();
  uint64_t state = 0x9E3779B97F4A7C15ull ^ std::hash<std::string>()(c.name);
  auto next = [&] {
    // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const int lo = c.fmt->minNormalExp() - c.fmt->mbits - 4 + 127;
  const int span = c.fmt->maxNormalExp() + 4 + 127 - lo + 1;
  int mismatches = 0;
  for (uint32_t i = 0; i < (1u << 23); ++i) {
    uint64_t r = next();
    uint32_t a = uint32_t(r);
    uint32_t b = uint32_t(r >> 32);
    uint32_t exp = uint32_t(lo + int((b >> 9) % uint32_t(span)));
    uint32_t focused = (b & 0x80000000u) | (std::min(exp, 255u) << 23) | ((b & 0x7fffffu) ^ (a & 0x1ff));
    for (uint32_t u : {a, focused}) {
      float x = fromBits(u);
      uint8_t want = c.fromFloat(x);
      uint8_t got = encode(*c.fmt, x, c.rounding, c.overflow);
      if (want != got && ++mismatches <= 5)
        ADD_FAILURE() << c.name << " fp32 " << describe(u, want, got);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Cuda, OracleTest, ::testing::ValuesIn(configs()),
                         [](const auto &info) { return info.param.name; });

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

float halfBitsToFloat(__half_raw h) { return halfToFloat(h.x); }

TEST(OracleDecode, EveryCode) {
  for (uint32_t c = 0; c < 256; ++c) {
    float e4 = halfBitsToFloat(__nv_cvt_fp8_to_halfraw(uint8_t(c), __NV_E4M3));
    float e5 = halfBitsToFloat(__nv_cvt_fp8_to_halfraw(uint8_t(c), __NV_E5M2));
    float s = bf16ToFloat(__nv_cvt_e8m0_to_bf16raw(uint8_t(c)).x);
    auto same = [](float a, float b) {
      return (std::isnan(a) && std::isnan(b)) ||
             std::memcmp(&a, &b, 4) == 0;
    };
    EXPECT_TRUE(same(e4, decode(e4m3fn(), c))) << "e4m3 code " << c;
    EXPECT_TRUE(same(e5, decode(e5m2(), c))) << "e5m2 code " << c;
    EXPECT_TRUE(same(s, decode(e8m0fnu(), c))) << "e8m0 code " << c;
    if (c < 64) {
      float a = halfBitsToFloat(__nv_cvt_fp6_to_halfraw(uint8_t(c), __NV_E2M3));
      float b = halfBitsToFloat(__nv_cvt_fp6_to_halfraw(uint8_t(c), __NV_E3M2));
      EXPECT_TRUE(same(a, decode(e2m3fn(), c))) << "e2m3 code " << c;
      EXPECT_TRUE(same(b, decode(e3m2fn(), c))) << "e3m2 code " << c;
    }
    if (c < 16) {
      float a = halfBitsToFloat(__nv_cvt_fp4_to_halfraw(uint8_t(c), __NV_E2M1));
      EXPECT_TRUE(same(a, decode(e2m1fn(), c))) << "e2m1 code " << c;
    }
  }
}

//===----------------------------------------------------------------------===//
// fp16 / bf16 (the generic machinery with 10 and 7 mantissa bits, and the
// directed roundings rp/rm that the fp8 oracles do not offer)
//===----------------------------------------------------------------------===//

uint16_t halfBits(__half h) {
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
uint16_t bfBits(__nv_bfloat16 h) {
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}

TEST(OracleWide, Fp16AndBf16FromFloat) {
  static const std::vector<uint32_t> inputs = structuredFloats();
  int mismatches = 0;
  auto check = [&](const char *what, uint32_t u, uint16_t want, uint16_t got) {
    if (want != got && ++mismatches <= 10)
      ADD_FAILURE() << what << " input 0x" << std::hex << u << ": cuda 0x" << want
                    << ", fpx 0x" << got;
  };
  for (uint32_t u : inputs) {
    float x = fromBits(u);
    if (std::isnan(x))
      continue; // NaN payloads differ by design; NaN-ness is checked below
    check("f16 rn", u, halfBits(__float2half_rn(x)), floatToHalf(x, Rounding::RN, Overflow::ToInfOrNaN));
    check("f16 rz", u, halfBits(__float2half_rz(x)), floatToHalf(x, Rounding::RZ, Overflow::ToInfOrNaN));
    check("f16 ru", u, halfBits(__float2half_ru(x)), floatToHalf(x, Rounding::RP, Overflow::ToInfOrNaN));
    check("f16 rd", u, halfBits(__float2half_rd(x)), floatToHalf(x, Rounding::RM, Overflow::ToInfOrNaN));
    check("bf16 rn", u, bfBits(__float2bfloat16_rn(x)), floatToBf16(x, Rounding::RN, Overflow::ToInfOrNaN));
    check("bf16 rz", u, bfBits(__float2bfloat16_rz(x)), floatToBf16(x, Rounding::RZ, Overflow::ToInfOrNaN));
  }
  EXPECT_EQ(mismatches, 0);
  float nan = std::nanf("");
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(nan, Rounding::RN, Overflow::ToInfOrNaN))));
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(nan, Rounding::RN, Overflow::ToInfOrNaN))));
}

TEST(OracleWide, HalfWidening) {
  for (uint32_t i = 0; i < 65536; ++i) {
    __half_raw r;
    r.x = uint16_t(i);
    float want = __half2float(__half(r));
    float got = halfToFloat(uint16_t(i));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got));
      continue;
    }
    EXPECT_EQ(std::memcmp(&want, &got, 4), 0) << "half 0x" << std::hex << i;
  }
}

} // namespace
