//===- BlockQuotientTest.cpp - NVFP4's block-scale divisions, division-free -===//
//
// The cast kernels compute NVFP4's block scale before its e4m3 rounding,
// bs = RN(RN(a / 6) / g) (a the block amax, g the global scale; the numerics
// core's two divisions), without div.rn where that is exact
// (compiler/lib/Conversion/FPxToGPU/QuantizeKernels.cpp, nvfp4BlockQuotient):
//   u0 = RN(a y6), r1 = fma(6, u0, -a), u = fma(-r1, y6, u0)   (y6 = RN(1/6))
//   q0 = RN(u yg), r2 = fma(g, q0, -u), q = fma(-r2, yg, q0)   (yg = RN(1/g))
// taken where g is in [2^-125, 2^125] and either a is in [2^-96, FLT_MAX] and
// q0 in [2^-125, 2^125], or a = 0. This runs the same IEEE operations on the
// CPU (std::fma, fp32 multiplies; no contraction in this file) and checks
// that wherever the kernels take them, they give the two divisions' bits:
// every amax significand at the edges of the range and in between against
// global scales from the range's edges, the rule's own g = amax_t / 2688 of
// edge tensor amaxes, and random ones; and random (a, g) pairs over the whole
// range. FPX_EXHAUSTIVE=1 takes every significand at every amax exponent of
// the range (about ten minutes on one core). y = RN(1/g) is computed on the
// GPU by rcp.rn's own fast sequence, checked against rcp.rn on every input of
// the range by test/gpu/DivisionTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Quantize.h"

#include "FloatBits.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

using fpx::test::fromBits;
using fpx::test::toBits;

namespace {

struct Quotient {
  bool taken; // the kernels' fast path applies
  float q;
};

Quotient kernelQuotient(float a, float g) {
  auto within = [](float v, float lo, float hi) { return v >= lo && v <= hi; };
  const float y6 = 1.0f / 6.0f;
  float u0 = a * y6;
  float r1 = std::fma(6.0f, u0, -a);
  float u = std::fma(-r1, y6, u0);
  float yg = 1.0f / g;
  float q0 = u * yg;
  float r2 = std::fma(g, q0, -u);
  float q = std::fma(-r2, yg, q0);
  bool taken = within(g, std::ldexp(1.0f, -125), std::ldexp(1.0f, 125)) &&
               ((within(a, std::ldexp(1.0f, -96), FLT_MAX) &&
                 within(q0, std::ldexp(1.0f, -125), std::ldexp(1.0f, 125))) ||
                a == 0.0f);
  return {taken, q};
}

/// Checks one pair; returns whether the fast path was taken.
bool check(float a, float g, long &bad) {
  Quotient k = kernelQuotient(a, g);
  if (!k.taken)
    return false;
  float want = (a / 6.0f) / g;
  if (toBits(k.q) != toBits(want) && bad++ < 5)
    ADD_FAILURE() << "a = " << a << " (0x" << std::hex << toBits(a) << "), g = " << g
                  << " (0x" << toBits(g) << "): fast " << k.q << ", div.rn " << want;
  return true;
}

bool exhaustive() {
  const char *env = std::getenv("FPX_EXHAUSTIVE");
  return env && std::string(env) == "1";
}

/// Global scales: the fast path's edges, ones near them, 1, the rule's g of
/// edge tensor amaxes, and random ones across the range.
std::vector<float> globalScales() {
  std::vector<float> gs = {std::ldexp(1.0f, -125), std::nextafter(std::ldexp(1.0f, -125), 1.0f),
                           std::ldexp(1.0f, 125), std::nextafter(std::ldexp(1.0f, 125), 0.0f),
                           1.0f, 3.0f, 0.1f, 2688.0f, 1.0f / 2688.0f};
  for (float at : {448.0f, 6.0f, 1.0f, 1e-30f, 1e30f, FLT_MAX, 3.3e-27f, 2.5e35f})
    gs.push_back(fpx::num::nvfp4GlobalScale(at));
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> e(-125, 124);
  std::uniform_int_distribution<uint32_t> m(0, (1u << 23) - 1);
  for (int i = 0; i < 12; ++i)
    gs.push_back(std::ldexp(fromBits(0x3f800000u | m(rng)), e(rng)));
  return gs;
}

TEST(BlockQuotient, FastPathEqualsTwoDivisionsOnEverySignificand) {
  // Amax exponents: the range's edges (where remainders and quotients come
  // nearest to subnormal or overflow) and a spread between; every one with
  // FPX_EXHAUSTIVE=1.
  std::vector<int> exps;
  if (exhaustive()) {
    for (int e = -96; e <= 127; ++e)
      exps.push_back(e);
  } else {
    exps = {-96, -95, -94, -60, -20, -3, 0, 2, 9, 40, 100, 125, 126, 127};
  }
  long bad = 0, taken = 0;
  for (float g : exhaustive() ? std::vector<float>{1.0f, 1.0f / 2688.0f} : globalScales()) {
    for (int e : exps) {
      int step = exhaustive() ? 1 : 17;
      for (uint32_t m = 0; m < (1u << 23); m += step)
        taken += check(std::ldexp(fromBits(0x3f800000u | m), e), g, bad);
    }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_GT(taken, 0);
  std::printf("[ quotient ] %ld pairs took the fast path\n", taken);
}

TEST(BlockQuotient, FastPathEqualsTwoDivisionsOnRandomPairs) {
  // Every finite a >= 0 bit pattern and every g of the rule's range
  // (2^-149 .. FLT_MAX / 2688) equally likely by bits: edges and middles.
  std::mt19937_64 rng(12);
  long bad = 0, taken = 0;
  const uint32_t gHi = toBits(FLT_MAX / 2688.0f);
  for (int i = 0; i < 20000000; ++i) {
    uint64_t r = rng();
    float a = fromBits(uint32_t(r) % 0x7f800000u);
    float g = fromBits(1 + uint32_t(r >> 32) % gHi);
    taken += check(a, g, bad);
  }
  // a = 0 and the specials: 0 through the fast path, the others not taken.
  for (float g : globalScales()) {
    taken += check(0.0f, g, bad);
    for (float a : {INFINITY, NAN})
      EXPECT_FALSE(kernelQuotient(a, g).taken) << a;
  }
  EXPECT_FALSE(kernelQuotient(1.0f, NAN).taken);
  EXPECT_FALSE(kernelQuotient(1.0f, std::ldexp(1.0f, -149)).taken);
  EXPECT_EQ(bad, 0);
  EXPECT_GT(taken, 1000000);
}

} // namespace
