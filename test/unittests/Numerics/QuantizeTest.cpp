//===- QuantizeTest.cpp - Scale rules and the reference block quantizer ---===//
#include "fpx/Numerics/Philox.h"
#include "fpx/Numerics/Quantize.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>

using namespace fpx::num;

namespace {

const float kInf = INFINITY;
const float kNaN = NAN;

int exponentOf(uint8_t code) { return int(code) - 127; }

TEST(ScaleRules, TrickyBlocks) {
  for (const Format *f : {&e4m3fn(), &e5m2(), &e2m3fn(), &e3m2fn(), &e2m1fn()})
    for (ScaleRule r : {ScaleRule::Floor, ScaleRule::Ceil, ScaleRule::Even,
                        ScaleRule::RCeil, ScaleRule::RCeilRcp}) {
      EXPECT_EQ(e8m0Scale(0.0f, *f, r), 0x00) << toString(r);
      EXPECT_EQ(e8m0Scale(-0.0f, *f, r), 0x00);
      // OCP MX / torchao by default: inf and NaN mark the block (0xFF);
      // saturation keeps a finite 2^127 for inf.
      EXPECT_EQ(e8m0Scale(kInf, *f, r), 0xFF);
      EXPECT_EQ(e8m0Scale(-kInf, *f, r), 0xFF);
      EXPECT_EQ(e8m0Scale(kNaN, *f, r), 0xFF);
      EXPECT_EQ(e8m0Scale(kInf, *f, r, NonFinite::Saturate), 0xFE);
      EXPECT_EQ(e8m0Scale(kNaN, *f, r, NonFinite::Saturate), 0xFF);
      // Tiny amax: the exponent clamps at -127 (code 0).
      EXPECT_EQ(e8m0Scale(std::ldexp(1.0f, -149), *f, r), 0x00);
      EXPECT_EQ(e8m0Scale(std::ldexp(1.0f, -126), *f, r), 0x00);
      // Huge finite amax: never above 2^127, in either mode.
      EXPECT_LE(e8m0Scale(FLT_MAX, *f, r), 0xFE);
      EXPECT_LE(e8m0Scale(FLT_MAX, *f, r, NonFinite::Saturate), 0xFE);
    }
}

TEST(ScaleRules, Definitions) {
  const Format &e4 = e4m3fn();
  // floor: floor(log2 amax) - 8.
  EXPECT_EQ(exponentOf(e8m0Scale(448.0f, e4, ScaleRule::Floor)), 0);
  EXPECT_EQ(exponentOf(e8m0Scale(500.0f, e4, ScaleRule::Floor)), 0);
  EXPECT_EQ(exponentOf(e8m0Scale(512.0f, e4, ScaleRule::Floor)), 1);
  EXPECT_EQ(exponentOf(e8m0Scale(3.0f, e4, ScaleRule::Floor)), -7);
  // ceil: ceil(log2 amax) - 8.
  EXPECT_EQ(exponentOf(e8m0Scale(256.0f, e4, ScaleRule::Ceil)), 0);
  EXPECT_EQ(exponentOf(e8m0Scale(257.0f, e4, ScaleRule::Ceil)), 1);
  // even: 480 = 1.111b * 2^8 stays, 496 = 1.1111b * 2^8 rounds to 2^9.
  EXPECT_EQ(exponentOf(e8m0Scale(480.0f, e4, ScaleRule::Even)), 0);
  EXPECT_EQ(exponentOf(e8m0Scale(496.0f, e4, ScaleRule::Even)), 1);
  // rceil: ceil(log2(amax / 448)).
  EXPECT_EQ(exponentOf(e8m0Scale(448.0f, e4, ScaleRule::RCeil)), 0);
  EXPECT_EQ(exponentOf(e8m0Scale(449.0f, e4, ScaleRule::RCeil)), 1);
  EXPECT_EQ(exponentOf(e8m0Scale(224.0f, e4, ScaleRule::RCeil)), -1);
  EXPECT_EQ(exponentOf(e8m0Scale(7.0f, e2m1fn(), ScaleRule::RCeil)), 1);
  EXPECT_EQ(exponentOf(e8m0Scale(6.0f, e2m1fn(), ScaleRule::RCeil)), 0);
  // The rules against their formulas on random amax values.
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> ex(-120, 120);
  for (int i = 0; i < 20000; ++i) {
    float a = float(std::exp2(ex(rng)));
    for (const Format *f : {&e4m3fn(), &e5m2(), &e2m1fn()}) {
      int emax = f->maxNormalExp();
      float mx = float(f->maxFinite());
      auto clampE = [](double e) { return int(std::max(-127.0, std::min(127.0, e))); };
      EXPECT_EQ(exponentOf(e8m0Scale(a, *f, ScaleRule::Floor)),
                clampE(std::floor(std::log2(double(a))) - emax));
      EXPECT_EQ(exponentOf(e8m0Scale(a, *f, ScaleRule::Ceil)),
                clampE(std::ceil(std::log2(double(a))) - emax));
      EXPECT_EQ(exponentOf(e8m0Scale(a, *f, ScaleRule::RCeil)),
                clampE(std::ceil(std::log2(double(a / mx)))));
      EXPECT_EQ(exponentOf(e8m0Scale(a, *f, ScaleRule::RCeilRcp)),
                clampE(std::ceil(std::log2(double(a * (1.0f / mx))))));
    }
  }
}

QuantSpec mxSpec(const Format &elem, ScaleRule rule, int64_t br = 1, int64_t bc = 32) {
  QuantSpec s;
  s.elem = elem;
  s.blockRows = br;
  s.blockCols = bc;
  s.scaleKind = ScaleKind::E8M0;
  s.rule = rule;
  return s;
}

TEST(Quantize, FloorSaturatesRceilRaisesTheScale) {
  std::vector<float> x(32, 1.0f);
  x[3] = 500.0f;
  x[4] = -500.0f;
  auto fl = quantize(x.data(), 1, 1, 32, mxSpec(e4m3fn(), ScaleRule::Floor));
  EXPECT_EQ(fl.scaleCodes[0], 127);
  EXPECT_EQ(fl.codes[3], 0x7E); // 448: saturated
  EXPECT_EQ(fl.codes[4], 0xFE);
  auto rc = quantize(x.data(), 1, 1, 32, mxSpec(e4m3fn(), ScaleRule::RCeil));
  EXPECT_EQ(rc.scaleCodes[0], 128);
  EXPECT_EQ(decode(e4m3fn(), rc.codes[3]), 256.0f); // 250 -> 256
  EXPECT_EQ(decode(e4m3fn(), rc.codes[0]), 0.5f);
  // fp4: amax 7 -> floor keeps 2^0 and saturates to 6; rceil gives 2^1.
  std::vector<float> y(32, 0.0f);
  y[0] = 7.0f;
  auto f4 = quantize(y.data(), 1, 1, 32, mxSpec(e2m1fn(), ScaleRule::Floor));
  EXPECT_EQ(f4.scaleCodes[0], 127);
  EXPECT_EQ(decode(e2m1fn(), f4.codes[0]), 6.0f);
  auto r4 = quantize(y.data(), 1, 1, 32, mxSpec(e2m1fn(), ScaleRule::RCeil));
  EXPECT_EQ(r4.scaleCodes[0], 128);
  EXPECT_EQ(decode(e2m1fn(), r4.codes[0]), 4.0f); // 3.5 ties to even 4
}

TEST(Quantize, SpecialBlocks) {
  auto run = [](std::vector<float> x, const Format &elem) {
    return quantize(x.data(), 1, 1, int64_t(x.size()), mxSpec(elem, ScaleRule::Floor, 1, 4));
  };
  // All zero (with -0.0 keeping its sign).
  auto z = run({0.0f, -0.0f, 0.0f, -0.0f}, e4m3fn());
  EXPECT_EQ(z.scaleCodes[0], 0x00);
  EXPECT_EQ(z.codes, (std::vector<uint8_t>{0x00, 0x80, 0x00, 0x80}));
  // One inf (the default, OCP MX / torchao): scale NaN, every element NaN.
  auto i = run({1.0f, kInf, -2.0f, 0.0f}, e4m3fn());
  EXPECT_EQ(i.scaleCodes[0], 0xFF);
  EXPECT_EQ(i.codes, (std::vector<uint8_t>{0x7F, 0x7F, 0x7F, 0x7F}));
  EXPECT_TRUE(std::isnan(i.scales[0]));
  // One NaN: scale NaN, every element NaN (fp4 has no NaN: +max).
  auto n = run({1.0f, kNaN, -2.0f, 0.0f}, e4m3fn());
  EXPECT_EQ(n.scaleCodes[0], 0xFF);
  EXPECT_EQ(n.codes, (std::vector<uint8_t>{0x7F, 0x7F, 0x7F, 0x7F}));
  EXPECT_TRUE(std::isnan(n.scales[0]));
  auto n4 = run({kNaN, kNaN, kNaN, kNaN}, e2m1fn());
  EXPECT_EQ(n4.scaleCodes[0], 0xFF);
  EXPECT_EQ(n4.codes, (std::vector<uint8_t>{0x7, 0x7, 0x7, 0x7}));
  // +-max is exact with the scale 2^0.
  auto m = run({448.0f, -448.0f, 1.0f, -0.0f}, e4m3fn());
  EXPECT_EQ(m.scaleCodes[0], 127);
  EXPECT_EQ(m.codes, (std::vector<uint8_t>{0x7E, 0xFE, 0x38, 0x80}));
  // Smallest normal / subnormal fp32 blocks: the scale clamps at 2^-127 and
  // the values are scaled up exactly by 2^127.
  auto sn = run({std::ldexp(1.0f, -126), 0.0f, 0.0f, 0.0f}, e4m3fn());
  EXPECT_EQ(sn.scaleCodes[0], 0x00);
  EXPECT_EQ(decode(e4m3fn(), sn.codes[0]), 2.0f);
  auto ss = run({std::ldexp(1.0f, -149), 0.0f, 0.0f, 0.0f}, e4m3fn());
  EXPECT_EQ(ss.scaleCodes[0], 0x00);
  EXPECT_EQ(ss.codes[0], 0x00); // 2^-22 underflows e4m3 (min 2^-9)
  // A subnormal next to 1.0: it flushes to zero; 1.0 is exact (scale 2^-8).
  auto mix = run({1.0f, std::ldexp(1.0f, -140), -std::ldexp(1.0f, -140), 0.5f}, e4m3fn());
  EXPECT_EQ(exponentOf(mix.scaleCodes[0]), -8);
  EXPECT_EQ(mix.codes, (std::vector<uint8_t>{0x78, 0x00, 0x80, 0x70}));
}

TEST(Quantize, BlockShapesAndRaggedEdges) {
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  const int64_t batch = 2, rows = 70, cols = 45;
  std::vector<float> x(batch * rows * cols);
  for (auto &v : x)
    v = nd(rng);
  struct Shape {
    int64_t br, bc;
  } shapes[] = {{1, 32}, {32, 1}, {16, 16}, {1, 16}, {1, 128}, {128, 128}, {1, 0}, {0, 0}};
  for (auto s : shapes) {
    QuantSpec spec = mxSpec(e4m3fn(), ScaleRule::Floor, s.br, s.bc);
    Quantized q = quantize(x.data(), batch, rows, cols, spec);
    const int64_t br = s.br ? s.br : rows, bc = s.bc ? s.bc : cols;
    EXPECT_EQ(q.scaleRows, (rows + br - 1) / br);
    EXPECT_EQ(q.scaleCols, (cols + bc - 1) / bc);
    // Independent recomputation: amax per block, scale, element codes.
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t si = 0; si < q.scaleRows; ++si)
        for (int64_t sj = 0; sj < q.scaleCols; ++sj) {
          float amax = 0;
          for (int64_t r = si * br; r < std::min(rows, (si + 1) * br); ++r)
            for (int64_t c = sj * bc; c < std::min(cols, (sj + 1) * bc); ++c)
              amax = std::max(amax, std::fabs(x[(b * rows + r) * cols + c]));
          uint8_t sc = q.scaleCodes[(b * q.scaleRows + si) * q.scaleCols + sj];
          ASSERT_EQ(sc, e8m0Scale(amax, e4m3fn(), ScaleRule::Floor));
          for (int64_t r = si * br; r < std::min(rows, (si + 1) * br); ++r)
            for (int64_t c = sj * bc; c < std::min(cols, (sj + 1) * bc); ++c) {
              size_t k = size_t((b * rows + r) * cols + c);
              ASSERT_EQ(q.codes[k], encode(e4m3fn(), std::ldexp(x[k], 127 - sc),
                                           Rounding::RN, Overflow::SatFinite));
            }
        }
    auto back = dequantize(q, e4m3fn());
    for (size_t k = 0; k < x.size(); ++k)
      EXPECT_NEAR(back[k], x[k], std::fabs(x[k]) / 8 + 1e-6f);
  }
}

/// NVFP4: e2m1 elements in 1x16 blocks, ue4m3 scales under a global scale.
static QuantSpec nvfp4Spec() {
  QuantSpec spec;
  spec.elem = e2m1fn();
  spec.blockRows = 1;
  spec.blockCols = 16;
  spec.scaleKind = ScaleKind::NVFP4;
  return spec;
}

TEST(Quantize, NVFP4TwoLevelWorkedExample) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i)
    x[i] = float(i);
  QuantSpec spec = nvfp4Spec();
  Quantized q = quantize(x.data(), 1, 1, 16, spec);
  EXPECT_EQ(q.globalScales[0], 15.0f / 2688.0f);
  EXPECT_EQ(q.scaleCodes[0], 0x7E); // (15 / 6) / g = 448
  EXPECT_EQ(q.scales[0], decode(ue4m3(), 0x7E) * q.globalScales[0]);
  EXPECT_EQ(q.codes, (std::vector<uint8_t>{0, 1, 2, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7}));
  // Without the global scale: ue4m3 of amax / 6 = 2.5.
  spec.nvfp4GlobalScale = false;
  Quantized p = quantize(x.data(), 1, 1, 16, spec);
  EXPECT_EQ(p.globalScales[0], 1.0f);
  EXPECT_EQ(decode(ue4m3(), p.scaleCodes[0]), 2.5f);
  EXPECT_EQ(p.codes, q.codes);
  // All-zero tensor: g = 1, scale code 0, elements +-0.
  std::vector<float> z = {0.0f, -0.0f};
  spec.nvfp4GlobalScale = true;
  spec.blockCols = 2;
  Quantized zq = quantize(z.data(), 1, 1, 2, spec);
  EXPECT_EQ(zq.globalScales[0], 1.0f);
  EXPECT_EQ(zq.scaleCodes[0], 0x00);
  EXPECT_EQ(zq.codes, (std::vector<uint8_t>{0x0, 0x8}));
}

TEST(Quantize, NVFP4GlobalScaleEdges) {
  EXPECT_EQ(nvfp4GlobalScale(2688.0f), 1.0f);
  EXPECT_EQ(nvfp4GlobalScale(15.0f), 15.0f / 2688.0f);
  EXPECT_EQ(nvfp4GlobalScale(0.0f), 1.0f);
  EXPECT_EQ(nvfp4GlobalScale(-0.0f), 1.0f);
  EXPECT_EQ(nvfp4GlobalScale(INFINITY), FLT_MAX / 2688.0f); // amax clamped to FLT_MAX
  EXPECT_EQ(nvfp4GlobalScale(1e-44f), std::ldexp(1.0f, -149)); // the quotient underflows
  EXPECT_EQ(nvfp4GlobalScale(2688.0f * std::ldexp(1.0f, -149)), std::ldexp(1.0f, -149));
  EXPECT_TRUE(std::isnan(nvfp4GlobalScale(std::nanf(""))));
  // A given amax's magnitude counts.
  EXPECT_EQ(nvfp4GlobalScale(-15.0f), 15.0f / 2688.0f);
  EXPECT_EQ(nvfp4GlobalScale(-INFINITY), FLT_MAX / 2688.0f);
}

// Delayed scaling: a given tensor amax replaces max |x| in g = amax / 2688.
TEST(Quantize, NVFP4GivenTensorAmax) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i)
    x[i] = float(i % 16); // two batch entries of 0..15
  QuantSpec spec = nvfp4Spec();
  Quantized computed = quantize(x.data(), 2, 1, 16, spec);
  spec.nvfp4TensorAmax = {15.0f}; // the true amax: the same result
  Quantized same = quantize(x.data(), 2, 1, 16, spec);
  EXPECT_EQ(same.globalScales, computed.globalScales);
  EXPECT_EQ(same.scaleCodes, computed.scaleCodes);
  EXPECT_EQ(same.codes, computed.codes);
  // amax 30 for the second entry: g = 30 / 2688, block scale (15 / 6) / g =
  // 224 (ue4m3 0x76), so the block divides by 224 g ~ 2.5 as without g.
  spec.nvfp4TensorAmax = {15.0f, 30.0f};
  Quantized q = quantize(x.data(), 2, 1, 16, spec);
  EXPECT_EQ(q.globalScales[0], 15.0f / 2688.0f);
  EXPECT_EQ(q.globalScales[1], 30.0f / 2688.0f);
  EXPECT_EQ(q.scaleCodes[0], 0x7E);
  EXPECT_EQ(q.scaleCodes[1], 0x76);
  EXPECT_EQ(decode(ue4m3(), q.scaleCodes[1]), 224.0f);
  EXPECT_EQ(q.scales[1], 224.0f * q.globalScales[1]);
  std::vector<uint8_t> second(q.codes.begin() + 16, q.codes.end());
  EXPECT_EQ(second, (std::vector<uint8_t>{0, 1, 2, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7}));
  // A zero amax gives g = 1 (as an all-zero tensor), NaN gives NaN.
  spec.nvfp4TensorAmax = {0.0f};
  EXPECT_EQ(quantize(x.data(), 1, 1, 16, spec).globalScales[0], 1.0f);
  spec.nvfp4TensorAmax = {std::nanf("")};
  EXPECT_TRUE(std::isnan(quantize(x.data(), 1, 1, 16, spec).globalScales[0]));
  // Only for NVFP4 with its global scale, one amax or one per entry.
  spec.nvfp4TensorAmax = {1.0f, 2.0f, 3.0f};
  EXPECT_THROW(quantize(x.data(), 2, 1, 16, spec), Error);
  spec.nvfp4TensorAmax = {1.0f};
  spec.nvfp4GlobalScale = false;
  EXPECT_THROW(quantize(x.data(), 2, 1, 16, spec), Error);
  QuantSpec mx;
  mx.elem = e2m1fn();
  mx.nvfp4TensorAmax = {1.0f};
  EXPECT_THROW(quantize(x.data(), 1, 1, 32, mx), Error);
}

/// Every byte a block holding +-inf or NaN gives, per MX element format,
/// by default (NaN) and with saturation asked for (docs/formats.md,
/// "Non-finite inputs", lists the same bytes).
TEST(Quantize, NonFiniteBlocksEveryMxFormat) {
  struct Case {
    const Format *elem;
    uint8_t nanCode;        // what every element of a marked block becomes
    uint8_t posMax, negMax; // +-inf saturated
  };
  const Case cases[] = {{&e4m3fn(), 0x7F, 0x7E, 0xFE},
                        {&e5m2(), 0x7F, 0x7B, 0xFB},
                        {&e2m3fn(), 0x1F, 0x1F, 0x3F},
                        {&e3m2fn(), 0x1F, 0x1F, 0x3F},
                        {&e2m1fn(), 0x7, 0x7, 0xF}};
  std::vector<float> x = {1.0f, kInf, -2.0f, -kInf, 0.0f, -0.0f, 0.5f, 3.0f};
  for (const Case &c : cases)
    for (ScaleRule r : {ScaleRule::Floor, ScaleRule::Ceil, ScaleRule::Even,
                        ScaleRule::RCeil}) {
      SCOPED_TRACE(c.elem->name + " " + toString(r));
      QuantSpec spec = mxSpec(*c.elem, r, 1, 8);
      Quantized d = quantize(x.data(), 1, 1, 8, spec);
      EXPECT_EQ(d.scaleCodes[0], 0xFF);
      EXPECT_EQ(d.codes, std::vector<uint8_t>(8, c.nanCode));
      for (float v : dequantize(d, *c.elem))
        EXPECT_TRUE(std::isnan(v));
      spec.nonFinite = NonFinite::Saturate;
      Quantized s = quantize(x.data(), 1, 1, 8, spec);
      EXPECT_EQ(s.scaleCodes[0], 0xFE);
      // +-inf -> +-max; finite values times 2^-127 underflow to signed zero.
      uint8_t sign = uint8_t(1u << (c.elem->bits() - 1));
      EXPECT_EQ(s.codes, (std::vector<uint8_t>{0, c.posMax, sign, c.negMax, 0, sign, 0, 0}));
      // Dequantized, +-max * 2^127 overflows fp32 (max >= 6): +-inf again.
      std::vector<float> y = dequantize(s, *c.elem);
      EXPECT_EQ(y[1], kInf);
      EXPECT_EQ(y[3], -kInf);
      EXPECT_EQ(y[0], 0.0f);
      EXPECT_FALSE(std::isnan(y[2]));
      // A block holding NaN is marked NaN in both modes.
      std::vector<float> n = {1.0f, kNaN, -kInf, 2.0f};
      for (NonFinite nf : {NonFinite::NaN, NonFinite::Saturate}) {
        spec.nonFinite = nf;
        spec.blockCols = 4;
        Quantized q = quantize(n.data(), 1, 1, 4, spec);
        EXPECT_EQ(q.scaleCodes[0], 0xFF);
        EXPECT_EQ(q.codes, std::vector<uint8_t>(4, c.nanCode));
      }
    }
}

/// Only the blocks holding a non-finite value are marked: a finite
/// neighbour block quantizes as it would alone.
TEST(Quantize, NonFiniteBlockLeavesNeighboursAlone) {
  std::vector<float> x = {1.0f, 2.0f, kInf, 4.0f, 1.0f, 2.0f, 3.0f, 4.0f};
  Quantized q = quantize(x.data(), 1, 1, 8, mxSpec(e4m3fn(), ScaleRule::Floor, 1, 4));
  std::vector<float> tail(x.begin() + 4, x.end());
  Quantized alone = quantize(tail.data(), 1, 1, 4, mxSpec(e4m3fn(), ScaleRule::Floor, 1, 4));
  EXPECT_EQ(q.scaleCodes[0], 0xFF);
  EXPECT_EQ(q.scaleCodes[1], alone.scaleCodes[0]);
  EXPECT_TRUE(std::equal(alone.codes.begin(), alone.codes.end(), q.codes.begin() + 4));
}

/// NVFP4 and fp32 scales have no choice (QuantSpec::nonFinite is ignored):
/// their behaviour with inf, fixed on purpose and documented in
/// docs/formats.md, "Non-finite inputs".
TEST(Quantize, NonFiniteNvfp4AndFp32Scales) {
  std::vector<float> x = {1.0f, kInf, -2.0f, 0.5f, 1.0f, 2.0f, 3.0f, -4.0f};
  for (NonFinite nf : {NonFinite::NaN, NonFinite::Saturate}) {
    // NVFP4 with its global scale: the tensor amax clamps to FLT_MAX, so g
    // = FLT_MAX / 2688; the inf block's ue4m3 code saturates to 0x7E (448),
    // its inf to +6 (0x7) and the rest to zero; every finite block's scale
    // underflows to code 0 and its elements to signed zero.
    QuantSpec nv;
    nv.elem = e2m1fn();
    nv.scaleKind = ScaleKind::NVFP4;
    nv.blockCols = 4;
    nv.nonFinite = nf;
    Quantized q = quantize(x.data(), 1, 1, 8, nv);
    EXPECT_EQ(q.globalScales[0], FLT_MAX / 2688.0f);
    EXPECT_EQ(q.scaleCodes, (std::vector<uint8_t>{0x7E, 0x00}));
    EXPECT_EQ(q.codes, (std::vector<uint8_t>{0x0, 0x7, 0x8, 0x0, 0x0, 0x0, 0x0, 0x8}));
    // Without the global scale (g = 1): the inf block's code saturates to
    // 448, the finite block is quantized as usual.
    nv.nvfp4GlobalScale = false;
    Quantized l = quantize(x.data(), 1, 1, 8, nv);
    EXPECT_EQ(l.scaleCodes[0], 0x7E);
    EXPECT_EQ(l.codes[1], 0x7);
    EXPECT_EQ(l.scaleCodes[1], encode(ue4m3(), 4.0f / 6.0f, Rounding::RN, Overflow::SatFinite));
    // fp32 block scales: amax clamps to FLT_MAX, s = FLT_MAX / max; the inf
    // saturates to +-max and its finite neighbours flush to zero.
    QuantSpec f32;
    f32.elem = e4m3fn();
    f32.scaleKind = ScaleKind::FP32;
    f32.blockCols = 4;
    f32.nonFinite = nf;
    Quantized p = quantize(x.data(), 1, 1, 8, f32);
    EXPECT_EQ(p.scales[0], FLT_MAX / 448.0f);
    EXPECT_EQ(p.scales[1], 4.0f / 448.0f);
    EXPECT_EQ(std::vector<uint8_t>(p.codes.begin(), p.codes.begin() + 4),
              (std::vector<uint8_t>{0x00, 0x7E, 0x80, 0x00}));
  }
}

TEST(Quantize, Fp32ScalesPerTensorPerRowBlockwise) {
  std::vector<float> x = {1.0f, -2.0f, 896.0f, 0.0f, 0.0f, 0.0f, 3.0f, kInf};
  QuantSpec spec;
  spec.elem = e4m3fn();
  spec.scaleKind = ScaleKind::FP32;
  spec.blockRows = 1;
  spec.blockCols = 0; // per row
  Quantized q = quantize(x.data(), 1, 2, 4, spec);
  EXPECT_EQ(q.scales[0], 2.0f); // 896 / 448
  EXPECT_EQ(q.scales[1], FLT_MAX / 448.0f); // inf -> FLT_MAX
  EXPECT_EQ(decode(e4m3fn(), q.codes[0]), 0.5f);
  EXPECT_EQ(decode(e4m3fn(), q.codes[2]), 448.0f);
  EXPECT_EQ(q.codes[7], 0x7E);
  // All-zero block: scale 1.
  std::vector<float> z(4, 0.0f);
  EXPECT_EQ(quantize(z.data(), 1, 1, 4, spec).scales[0], 1.0f);
  // Power-of-two variant: 2^ceil(log2(amax / 448)).
  spec.scaleKind = ScaleKind::FP32Pow2;
  std::vector<float> y = {1.0f, 500.0f};
  EXPECT_EQ(quantize(y.data(), 1, 1, 2, spec).scales[0], 2.0f);
}

TEST(Quantize, StochasticMatchesCvtRsX4) {
  // Per-tensor pow2 scale of exactly 1 (amax 448): the element inputs are x.
  std::vector<float> x = {448.0f, 1.0625f, 2.3f, -3.7f, 0.01f, 5.5f, -100.3f, 7.77f};
  QuantSpec spec;
  spec.elem = e4m3fn();
  spec.scaleKind = ScaleKind::FP32Pow2;
  spec.blockRows = 0;
  spec.blockCols = 0;
  spec.rounding = Rounding::RS;
  spec.seed = 1234;
  Quantized q = quantize(x.data(), 1, 1, 8, spec);
  ASSERT_EQ(q.scales[0], 1.0f);
  for (int g = 0; g < 2; ++g) {
    // Element 4g + j is operand 3 - j, so d holds the codes in memory order.
    uint32_t d = cvtRsX4(e4m3fn(), x[4 * g + 3], x[4 * g + 2], x[4 * g + 1],
                         x[4 * g], philoxBits(spec.seed, uint64_t(g)));
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(q.codes[4 * g + j], (d >> (8 * j)) & 0xFF);
  }
}

TEST(Quantize, Bf16InputAndErrors) {
  std::vector<uint16_t> xb = {0x3F80, 0xC000, 0x4040, 0x7FC0};
  std::vector<float> xf;
  for (uint16_t b : xb)
    xf.push_back(bf16ToFloat(b));
  QuantSpec spec = mxSpec(e2m1fn(), ScaleRule::RCeil, 1, 2);
  EXPECT_EQ(quantizeBf16(xb.data(), 1, 1, 4, spec).codes,
            quantize(xf.data(), 1, 1, 4, spec).codes);
  EXPECT_THROW(quantize(xf.data(), 1, -1, 4, spec), Error);
  spec.elem = bf16();
  EXPECT_THROW(quantize(xf.data(), 1, 1, 4, spec), Error);
}

} // namespace
