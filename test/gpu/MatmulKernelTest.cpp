//===- MatmulKernelTest.cpp - weight-only GEMM kernels vs the numerics ----===//
//
// The specs test/gpu/specs/wo_*.mlir (a bf16/f16 activation times a weight
// packed as mma_tiles: fp8, FP6-LLM's e3m2 and fp5 e2m2 with an f32 scale
// per output channel, MXFP8, MXFP6 (e2m3, e3m2) and MXFP4 with row-major
// E8M0 scales of 32 along K, NVFP4 with row-major ue4m3 scales of 16 and an
// f32 tensor scale), compiled by fpxc for sm_90a and sm_80, run on the GPU:
// - Exactness of the in-register dequantization: with x the identity (M = K),
//   y = W^T must equal every code's numerics-core value (num::decode) times
//   its scale, rounded to the output type, bit for bit; the weight holds
//   every finite code of its format. Channel scales are 1; MX scales run over
//   2^-30 .. 2^30 (every product exact in fp32, as on the GPU: one fp32
//   multiply, then the rounding to the output); NVFP4 block scales run over
//   the finite ue4m3 codes with a power-of-two tensor scale (exact too).
//   (-0 comes out +0: the sum of a -0 product and +0 products is +0 in any
//   fp32 matmul.)
// - Matmuls at M in {1, 3, 8, 9, 16, 17, 64, 100, 300} (both decode kernels,
//   split-K through the workspace and whole-K CTAs) against an fp64 matmul
//   of the dequantized weight: relative Frobenius error <= 1e-2 (the output
//   rounding to bf16/f16 explains about 2e-3), and the same bits on a second
//   call whose outputs were poisoned with another pattern: every output is
//   written, and the split-K reduction is deterministic (the counters are
//   left zero for the next call).
// - The prefill shapes (M in {65, 100, 300, 4000, 4096}; sm_90a's wgmma
//   kernel for fp8, FP6-LLM's e3m2 and fp5 e2m2 with channel scales,
//   MXFP8/MXFP6/MXFP4 with bf16 x and NVFP4, the decode kernels elsewhere)
//   the same way, with N and K off the wgmma kernel's tile and ring. On
//   sm_90a the exactness test (M = 256) runs the wgmma kernel for those
//   formats too.
// - The `_bias` specs (a bias operand: bf16, or f32 for f16 outputs): zero in
//   the exactness test (y still bit-exact), random in the matmuls, where the
//   fp64 reference adds it before the comparison.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/MmaTiles.h"

#include <cmath>
#include <cstring>

using namespace fpx;
using namespace fpx::gputest;

namespace {

enum class Scales { Channel, Mx32, Nv16 };
enum class Bias { None, BF16, F32 };

struct Case {
  const char *name;
  num::Format elem;
  rt::DType weightType;
  bool f16; // activation and output f16, else bf16
  Scales scales = Scales::Channel;
  Bias bias = Bias::None;
};

const Case kCases[] = {
    {"wo_fp8_e4m3_bf16", num::e4m3fn(), rt::DType::F8E4M3FN, false},
    {"wo_fp8_e5m2_bf16", num::e5m2(), rt::DType::F8E5M2, false},
    {"wo_fp8_e4m3_f16", num::e4m3fn(), rt::DType::F8E4M3FN, true},
    {"wo_fp8_e5m2_f16", num::e5m2(), rt::DType::F8E5M2, true},
    {"wo_mxfp8_e4m3_bf16", num::e4m3fn(), rt::DType::F8E4M3FN, false, Scales::Mx32},
    {"wo_mxfp8_e5m2_bf16", num::e5m2(), rt::DType::F8E5M2, false, Scales::Mx32},
    {"wo_mxfp8_e4m3_f16", num::e4m3fn(), rt::DType::F8E4M3FN, true, Scales::Mx32},
    {"wo_mxfp8_e5m2_f16", num::e5m2(), rt::DType::F8E5M2, true, Scales::Mx32},
    {"wo_mxfp4_bf16", num::e2m1fn(), rt::DType::U8, false, Scales::Mx32},
    {"wo_mxfp4_f16", num::e2m1fn(), rt::DType::U8, true, Scales::Mx32},
    {"wo_nvfp4_bf16", num::e2m1fn(), rt::DType::U8, false, Scales::Nv16},
    {"wo_nvfp4_f16", num::e2m1fn(), rt::DType::U8, true, Scales::Nv16},
    {"wo_mxfp6_e2m3_bf16", num::e2m3fn(), rt::DType::U8, false, Scales::Mx32},
    {"wo_mxfp6_e2m3_f16", num::e2m3fn(), rt::DType::U8, true, Scales::Mx32},
    {"wo_mxfp6_e3m2_bf16", num::e3m2fn(), rt::DType::U8, false, Scales::Mx32},
    {"wo_mxfp6_e3m2_f16", num::e3m2fn(), rt::DType::U8, true, Scales::Mx32},
    {"wo_fp6_e3m2_bf16", num::e3m2fn(), rt::DType::U8, false},
    {"wo_fp6_e3m2_f16", num::e3m2fn(), rt::DType::U8, true},
    {"wo_fp5_e2m2_bf16", num::getFormat("e2m2"), rt::DType::U8, false},
    {"wo_fp5_e2m2_f16", num::getFormat("e2m2"), rt::DType::U8, true},
    {"wo_fp8_e4m3_bias_bf16", num::e4m3fn(), rt::DType::F8E4M3FN, false, Scales::Channel,
     Bias::BF16},
    {"wo_nvfp4_bias_f16", num::e2m1fn(), rt::DType::U8, true, Scales::Nv16, Bias::F32},
};

int64_t scaleBlock(const Case &c) {
  return c.scales == Scales::Mx32 ? 32 : c.scales == Scales::Nv16 ? 16 : 0;
}

/// The weight's scales: f32 per channel, or one code a block (row-major
/// N x K/block) and, for NVFP4, the tensor scale g.
struct WeightScales {
  std::vector<float> channel;
  std::vector<uint8_t> codes;
  float g = 1.0f;
  /// The scale of element (n, k) as the numerics core dequantizes it
  /// (NVFP4: S = fl(decode(code) * g), docs/formats.md).
  float at(const Case &c, int64_t K, int64_t n, int64_t k) const {
    if (c.scales == Scales::Channel)
      return channel[n];
    uint8_t code = codes[n * (K / scaleBlock(c)) + k / scaleBlock(c)];
    if (c.scales == Scales::Mx32)
      return num::decode(num::e8m0fnu(), code);
    return num::decode(num::e4m3fn(), code) * g;
  }
};

uint16_t toHalf(const Case &c, float v) {
  return c.f16 ? num::floatToHalf(v, num::Rounding::RN, num::Overflow::ToInfOrNaN)
               : num::floatToBf16(v, num::Rounding::RN, num::Overflow::ToInfOrNaN);
}
float fromHalf(const Case &c, uint16_t b) {
  return c.f16 ? num::halfToFloat(b) : num::bf16ToFloat(b);
}

/// The finite codes of `fmt` (weights never hold NaN or inf: the packer's
/// quantizer saturates).
std::vector<uint8_t> finiteCodes(const num::Format &fmt) {
  std::vector<uint8_t> out;
  for (uint32_t c = 0; c < (1u << fmt.bits()); ++c)
    if (!fmt.isNaNCode(c & fmt.magnitudeMask()) && !fmt.isInfCode(c & fmt.magnitudeMask()))
      out.push_back(static_cast<uint8_t>(c));
  return out;
}

struct CallResult {
  std::vector<uint16_t> y;
};

/// The bias as the kernel reads it (its values rounded to its type) and its
/// bytes; zero for cases without one.
struct BiasData {
  std::vector<float> values;
  std::vector<uint8_t> bytes;
};
BiasData makeBias(const Case &c, std::vector<float> v) {
  BiasData b;
  for (float &x : v) {
    if (c.bias == Bias::BF16) {
      uint16_t h = num::floatToBf16(x, num::Rounding::RN, num::Overflow::ToInfOrNaN);
      x = num::bf16ToFloat(h);
      b.bytes.push_back(uint8_t(h));
      b.bytes.push_back(uint8_t(h >> 8));
    } else {
      uint32_t u;
      std::memcpy(&u, &x, 4);
      for (int i = 0; i < 4; ++i)
        b.bytes.push_back(uint8_t(u >> (8 * i)));
    }
  }
  b.values = std::move(v);
  return b;
}

/// One call of `f` on host data; returns y (M x N, poisoned before).
CallResult call(const rt::Function &f, const Case &c, int64_t M, int64_t N, int64_t K,
         const std::vector<uint16_t> &x, const std::vector<uint8_t> &codes,
         const WeightScales &scale, const BiasData &bias, uint8_t poison = 0xA5) {
  int bits = c.elem.bits();
  std::vector<uint8_t> packed = num::packMmaTiles(codes.data(), N, K, bits);
  int64_t wCols = K * bits / 8;
  bool channel = c.scales == Scales::Channel;
  size_t scaleBytes = channel ? scale.channel.size() * 4 : scale.codes.size();
  DeviceBuffer dx(x.size() * 2), dw(packed.size()), ds(scaleBytes), dg(4);
  dx.upload(x);
  dw.upload(packed);
  if (channel)
    ds.upload(scale.channel);
  else
    ds.upload(scale.codes);
  dg.upload(std::vector<float>{scale.g});
  rt::DType act = c.f16 ? rt::DType::F16 : rt::DType::BF16;
  std::vector<int64_t> sShape = {N, channel ? 1 : K / scaleBlock(c)};
  rt::DType sType = channel                     ? rt::DType::F32
                    : c.scales == Scales::Mx32 ? rt::DType::F8E8M0FNU
                                                : rt::DType::F8E4M3FN;
  std::vector<rt::TensorRef> in = {rt::TensorRef(dx.Ptr, act, {M, K}),
                                   rt::TensorRef(dw.Ptr, c.weightType, {N, wCols}),
                                   rt::TensorRef(ds.Ptr, sType, sShape)};
  std::vector<std::vector<int64_t>> inShapes = {{M, K}, {N, wCols}, sShape};
  if (c.scales == Scales::Nv16) {
    in.push_back(rt::TensorRef(dg.Ptr, rt::DType::F32, {}));
    inShapes.push_back({});
  }
  DeviceBuffer db(std::max<size_t>(bias.bytes.size(), 4));
  if (c.bias != Bias::None) {
    db.upload(bias.bytes);
    in.push_back(
        rt::TensorRef(db.Ptr, c.bias == Bias::BF16 ? rt::DType::BF16 : rt::DType::F32, {N}));
    inShapes.push_back({N});
  }
  auto shapes = f.outputShapes(inShapes);
  EXPECT_EQ(shapes.at(0), (std::vector<int64_t>{M, N}));
  PoisonedOutputs po = poisonedOutputs(f, shapes);
  po.buffers[0]->poison(poison);
  f.launch(nullptr, in, po.refs, {});
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  return {po.buffers[0]->download<uint16_t>(M * N)};
}

/// y = x * (dequantized w)^T at M x N x K with random codes, scales, x and
/// bias, against an fp64 matmul of the dequantized weight: relative
/// Frobenius error <= 1e-2, and the same bits on a second call whose
/// outputs were poisoned otherwise.
void checkMatmul(const rt::Function &f, const Case &c, const std::vector<uint8_t> &all,
                 std::mt19937 &rng, int64_t M, int64_t N, int64_t K) {
  std::vector<uint8_t> codes(N * K);
  for (auto &v : codes)
    v = all[rng() % all.size()];
  WeightScales scale;
  // e5m2 codes reach 57344: smaller scales keep f16 results finite.
  int low = c.elem.ebits == 5 ? -22 : c.elem.bits() == 4 ? -6 : -12;
  scale.channel.resize(N);
  for (auto &v : scale.channel)
    v = std::ldexp(1.0f + float(rng() % 1024) / 1024, int(rng() % 9) + low);
  if (c.scales == Scales::Mx32) {
    scale.codes.resize(N * K / 32);
    for (auto &v : scale.codes)
      v = static_cast<uint8_t>(127 + int(rng() % 9) + low);
  } else if (c.scales == Scales::Nv16) {
    // ue4m3 codes 0x08 .. 0x57 (2^-6 .. 15), g not a power of two.
    scale.codes.resize(N * K / 16);
    for (auto &v : scale.codes)
      v = static_cast<uint8_t>(0x08 + rng() % 0x50);
    scale.g = 0.0371f;
  }
  std::vector<uint16_t> x(M * K);
  for (auto &v : x)
    v = toHalf(c, float(int(rng() % 2001) - 1000) / 1000.0f);
  std::vector<float> bv(N, 0.0f);
  if (c.bias != Bias::None)
    for (auto &v : bv)
      v = float(int(rng() % 2001) - 1000) / 250.0f;
  BiasData bias = makeBias(c, bv);
  CallResult r = call(f, c, M, N, K, x, codes, scale, bias);
  CallResult again = call(f, c, M, N, K, x, codes, scale, bias, 0x5A);
  EXPECT_EQ(r.y, again.y) << "a second call (outputs poisoned otherwise) differs";
  std::vector<double> wd(N * K);
  for (int64_t i = 0; i < N * K; ++i)
    wd[i] = double(num::decode(c.elem, codes[i])) *
            (c.scales == Scales::Channel ? 1.0 : scale.at(c, K, i / K, i % K));
  std::vector<double> xd(M * K);
  for (int64_t i = 0; i < M * K; ++i)
    xd[i] = fromHalf(c, x[i]);
  double num = 0, den = 0;
  std::vector<double> rowErr(M, 0.0), rowRef(M, 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k)
        ref += xd[m * K + k] * wd[n * K + k];
      if (c.scales == Scales::Channel)
        ref *= scale.channel[n];
      ref += bias.values[n];
      double got = fromHalf(c, r.y[m * N + n]);
      rowErr[m] += (got - ref) * (got - ref);
      rowRef[m] += ref * ref;
    }
  // Where it fails, the tokens (rows of y) it fails at: which tile broke.
  std::string badRows;
  int64_t nBad = 0;
  for (int64_t m = 0; m < M; ++m) {
    num += rowErr[m];
    den += rowRef[m];
    if (rowErr[m] > 1e-4 * rowRef[m] && nBad++ < 12)
      badRows += " " + std::to_string(m);
  }
  double rel = std::sqrt(num / den);
  EXPECT_LE(rel, 1e-2) << "relative Frobenius error; " << nBad << " of " << M
                       << " tokens off by more than 1e-2, the first:" << badRows;
  EXPECT_TRUE(std::isfinite(rel));
}

class MatmulKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(MatmulKernel, DequantizesEveryCodeExactly) {
  const std::string target = GetParam();
  FPX_REQUIRE_TARGET(target);
  CaseFilter filter;
  for (const Case &c : kCases) {
    if (!filter(c.name))
      continue;
    SCOPED_TRACE(c.name);
    FPX_LOAD_ARTIFACT(mod, target, c.name);
    const rt::Function &f = mod->function(c.name);
    std::vector<uint8_t> all = finiteCodes(c.elem);
    const int64_t N = 128, K = 256, M = K;
    std::vector<uint8_t> codes(N * K);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        codes[n * K + k] = all[(n * K + k) % all.size()];
    std::vector<uint16_t> x(M * K, toHalf(c, 0.0f));
    for (int64_t m = 0; m < M; ++m)
      x[m * K + m] = toHalf(c, 1.0f);
    WeightScales scale;
    scale.channel.assign(N, 1.0f);
    if (c.scales == Scales::Mx32) {
      scale.codes.resize(N * K / 32);
      for (size_t i = 0; i < scale.codes.size(); ++i)
        scale.codes[i] = static_cast<uint8_t>(127 - 30 + (i * 7) % 61);
    } else if (c.scales == Scales::Nv16) {
      // Every finite positive ue4m3 code (0x00 .. 0x7E), g a power of two.
      scale.codes.resize(N * K / 16);
      for (size_t i = 0; i < scale.codes.size(); ++i)
        scale.codes[i] = static_cast<uint8_t>((i * 5) % 0x7F);
      scale.g = 0.125f;
    }
    CallResult r = call(f, c, M, N, K, x, codes, scale, makeBias(c, std::vector<float>(N, 0.0f)));
    int bad = 0;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        uint8_t code = codes[n * K + m];
        float v = num::decode(c.elem, code);
        if (c.scales == Scales::Mx32)
          v *= scale.at(c, K, n, m);
        else if (c.scales == Scales::Nv16)
          v = v * num::decode(num::e4m3fn(), scale.codes[n * (K / 16) + m / 16]) * scale.g;
        uint16_t want = toHalf(c, v == 0.0f ? 0.0f : v);
        if (r.y[m * N + n] != want && bad++ < 8)
          ADD_FAILURE() << "code 0x" << std::hex << int(code) << ": got 0x" << r.y[m * N + n]
                        << " want 0x" << want;
      }
    EXPECT_EQ(bad, 0);
  }
}

TEST_P(MatmulKernel, MatchesAnFp64Matmul) {
  const std::string target = GetParam();
  FPX_REQUIRE_TARGET(target);
  CaseFilter filter;
  struct Shape {
    int64_t M, N, K;
  };
  const Shape shapes[] = {{1, 256, 512},  {3, 384, 768},   {8, 128, 256},  {9, 256, 512},
                          {16, 512, 1024}, {17, 256, 512},  {64, 256, 2048}, {100, 128, 256},
                          {300, 4096, 256}};
  for (const Case &c : kCases) {
    if (!filter(c.name))
      continue;
    SCOPED_TRACE(c.name);
    FPX_LOAD_ARTIFACT(mod, target, c.name);
    const rt::Function &f = mod->function(c.name);
    std::vector<uint8_t> all = finiteCodes(c.elem);
    std::mt19937 rng(1234);
    for (const Shape &s : shapes) {
      SCOPED_TRACE("M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) +
                   " K=" + std::to_string(s.K));
      checkMatmul(f, c, all, rng, s.M, s.N, s.K);
    }
  }
}

// The prefill kernel (sm_90a's wgmma kernel for M > 64, the 64-token decode
// kernel elsewhere) on the formats it takes (8-, 6- and 5-bit codes with
// channel scales, MXFP8, MXFP6 and MXFP4 with bf16 activations, NVFP4):
// M off the 128- and 256-token tiles, N a multiple of 128 channels but not
// of 256, K (a multiple of 256) not of the rings (6 or 8 stages of 64). On a
// 132-SM H100/H200 65 and 100 tokens take the 128-token kernel with K split
// over 4 CTAs a tile (3 and 2 tiles), 300 tokens the 256-token one split the
// same way (20 tiles), 200 tokens at N = 8960 the 128-token one unsplit (140
// tiles: the persistent loop, the ring's phases across tiles), 4096 tokens
// at N = 1152 the 256-token one unsplit (144 tiles).
TEST_P(MatmulKernel, PrefillMatchesAnFp64Matmul) {
  const std::string target = GetParam();
  FPX_REQUIRE_TARGET(target);
  CaseFilter filter;
  const int64_t shapes[][3] = {{65, 384, 768},    {100, 256, 4096}, {300, 1280, 512},
                               {200, 8960, 256}, {4096, 1152, 256}};
  for (const Case &c : kCases) {
    int bits = c.elem.bits();
    bool wgmma = c.scales == Scales::Channel   ? bits == 8 || bits == 6 || bits == 5
                 : c.scales == Scales::Mx32 ? (bits == 8 || bits == 6 || bits == 4) && !c.f16
                                            : bits == 4;
    if (!filter(c.name) || !wgmma)
      continue;
    SCOPED_TRACE(c.name);
    FPX_LOAD_ARTIFACT(mod, target, c.name);
    const rt::Function &f = mod->function(c.name);
    std::vector<uint8_t> all = finiteCodes(c.elem);
    std::mt19937 rng(4321);
    for (const auto &s : shapes) {
      SCOPED_TRACE("M=" + std::to_string(s[0]) + " N=" + std::to_string(s[1]) +
                   " K=" + std::to_string(s[2]));
      checkMatmul(f, c, all, rng, s[0], s[1], s[2]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, MatmulKernel, ::testing::Values("sm_90a", "sm_80"));

} // namespace
