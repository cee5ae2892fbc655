//===- Bf16DequantTest.cpp - the bf16 scaled GEMM's dequantization --------===//
//
// The programs of Bf16Dequant.h (the instructions the sm_90a bf16 scaled
// GEMM emits as inline PTX) run by the interpreter for every code in every
// position of a word, times every scale code, against num::decode of the
// code times num::decode of the scale (an independent oracle): equal bits
// wherever the product is a normal fp32 (0 keeping its sign), NaN where
// either is NaN, inf where the product passes bf16's range, and within half
// a bf16 subnormal step below 2^-126.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Bf16Dequant.h"
#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

using namespace fpx::num;

namespace {

/// Checks the bf16 `got` against the exact `want`; counts failures.
void expectDequant(uint16_t got, double want, int64_t &bad, const std::string &what) {
  double v = bf16ToFloat(got);
  bool ok;
  if (std::isnan(want))
    ok = std::isnan(v);
  else if (std::fabs(want) > double(FLT_MAX))
    ok = std::isinf(v) && std::signbit(v) == std::signbit(want);
  else if (want == 0 || std::fabs(want) >= std::ldexp(1.0, -126))
    ok = got == floatToBf16(float(want), Rounding::RN, Overflow::ToInfOrNaN);
  else
    ok = std::signbit(v) == std::signbit(want) && std::fabs(v - want) <= std::ldexp(1.0, -134);
  if (!ok && ++bad <= 10)
    ADD_FAILURE() << what << ": got bf16 0x" << std::hex << got << std::dec << " (" << v
                  << "), want " << want;
}

void checkMx(bool wide) {
  const Format &fmt = wide ? e5m2() : e4m3fn();
  const DqProgram &conv = fp8ToBf16Program(wide), &fac = e8m0FactorsProgram(wide);
  int64_t bad = 0, checked = 0;
  for (uint32_t e = 0; e < 256; ++e) {
    std::vector<uint32_t> f = run(fac, {e});
    double scale = decode(e8m0fnu(), e);
    for (uint32_t c = 0; c < 256; ++c) {
      // Code c in byte c % 4, the others other codes (every code meets
      // every position over the 256).
      uint32_t codes[4];
      for (uint32_t i = 0; i < 4; ++i)
        codes[(c + i) % 4] = (c + 61 * i) & 0xFF;
      uint32_t w = codes[0] | codes[1] << 8 | codes[2] << 16 | codes[3] << 24;
      std::vector<uint32_t> out = run(conv, {w, f[0], f[1]});
      for (uint32_t i = 0; i < 4; ++i) {
        uint16_t got = uint16_t(out[i / 2] >> 16 * (i % 2));
        expectDequant(got, double(decode(fmt, codes[i])) * scale, bad,
                      std::string(fmt.name) + " code " + std::to_string(codes[i]) +
                          " (byte " + std::to_string(i) + ") x e8m0 " + std::to_string(e));
        ++checked;
      }
    }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(checked, 256 * 256 * 4);
}

} // namespace

TEST(Bf16Dequant, Mxfp8E4m3TimesEveryE8m0ScaleIsExact) { checkMx(false); }
TEST(Bf16Dequant, Mxfp8E5m2TimesEveryE8m0ScaleIsExact) { checkMx(true); }

TEST(Bf16Dequant, Nvfp4TimesEveryE4m3ScaleIsExact) {
  const DqProgram &conv = e2m1ToBf16Program(), &fac = e4m3ScaleFactorsProgram();
  int64_t bad = 0, checked = 0;
  for (uint32_t u = 0; u < 256; ++u) { // signed e4m3 (NVFP4's are >= 0)
    std::vector<uint32_t> f = run(fac, {u});
    double scale = decode(e4m3fn(), u);
    for (uint32_t rot = 0; rot < 8; ++rot) {
      for (uint32_t c = 0; c < 16; ++c) {
        // Code c at element rot, the others other codes.
        uint32_t codes[8], w = 0;
        for (uint32_t i = 0; i < 8; ++i) {
          codes[(rot + i) % 8] = (c + 5 * i) & 0xF;
        }
        for (uint32_t i = 0; i < 8; ++i)
          w |= codes[i] << 4 * i;
        std::vector<uint32_t> out = run(conv, {w, f[0], f[1]});
        for (uint32_t i = 0; i < 8; ++i) {
          // Element i is in pair i % 4, the high half for i >= 4.
          uint16_t got = uint16_t(out[i % 4] >> 16 * (i / 4));
          expectDequant(got, double(decode(e2m1fn(), codes[i])) * scale, bad,
                        "e2m1 code " + std::to_string(codes[i]) + " (element " +
                            std::to_string(i) + ") x e4m3 " + std::to_string(u));
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(checked, 256 * 8 * 16 * 8);
}

TEST(Bf16Dequant, PtxTextNamesEveryInstructionAndOperand) {
  std::string t = ptxText(fp8ToBf16Program(false));
  // (w, f1, f2) are $2..$4, the pairs $0, $1.
  EXPECT_NE(t.find("prmt.b32"), std::string::npos);
  EXPECT_NE(t.find("mul.rn.bf16x2 $1,"), std::string::npos);
  EXPECT_NE(t.find("and.b32 %dq0, $2, 0x7f7f7f7f"), std::string::npos);
  size_t lines = 0;
  for (char ch : t)
    lines += ch == ';';
  EXPECT_EQ(lines, fp8ToBf16Program(false).ops.size() + 1); // + the .reg line
  EXPECT_EQ(ptxText(e2m1ToBf16Program()).find("$7"), std::string::npos); // 3 in, 4 out
}
