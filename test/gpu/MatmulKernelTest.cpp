//===- MatmulKernelTest.cpp - weight-only GEMM kernels vs the numerics ----===//
//
// The specs test/gpu/specs/wo_*.mlir (a bf16/f16 activation times an 8-bit
// weight packed as mma_tiles with an f32 scale per output channel), compiled
// by fpxc for sm_90a and sm_80, run on the GPU:
// - Exactness of the in-register dequantization: with x the identity (M = K)
//   and unit scales, y = W^T must equal every code's numerics-core value
//   (num::decode) rounded to the output type, bit for bit; the weight holds
//   every finite code of its format. (-0 comes out +0: the sum of a -0
//   product and +0 products is +0 in any fp32 matmul.)
// - Matmuls at M in {1, 3, 8, 9, 16, 17, 64, 100, 300} (both decode kernels,
//   split-K through the workspace and whole-K CTAs) against an fp64 matmul
//   of the dequantized weight: relative Frobenius error <= 1e-2 (the output
//   rounding to bf16/f16 explains about 2e-3), and the same bits on a second
//   call whose outputs were poisoned with another pattern: every output is
//   written, and the split-K reduction is deterministic (the counters are
//   left zero for the next call).
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/MmaTiles.h"

#include <cmath>

using namespace fpx;
using namespace fpx::gputest;

namespace {

struct Case {
  const char *name;
  num::Format elem;
  rt::DType weightType;
  bool f16; // activation and output f16, else bf16
};

const Case kCases[] = {
    {"wo_fp8_e4m3_bf16", num::e4m3fn(), rt::DType::F8E4M3FN, false},
    {"wo_fp8_e5m2_bf16", num::e5m2(), rt::DType::F8E5M2, false},
    {"wo_fp8_e4m3_f16", num::e4m3fn(), rt::DType::F8E4M3FN, true},
    {"wo_fp8_e5m2_f16", num::e5m2(), rt::DType::F8E5M2, true},
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
  for (uint32_t c = 0; c < 256; ++c)
    if (!fmt.isNaNCode(c & fmt.magnitudeMask()) && !fmt.isInfCode(c & fmt.magnitudeMask()))
      out.push_back(static_cast<uint8_t>(c));
  return out;
}

struct CallResult {
  std::vector<uint16_t> y;
};

/// One call of `f` on host data; returns y (M x N, poisoned before).
CallResult call(const rt::Function &f, const Case &c, int64_t M, int64_t N, int64_t K,
         const std::vector<uint16_t> &x, const std::vector<uint8_t> &codes,
         const std::vector<float> &scale, uint8_t poison = 0xA5) {
  std::vector<uint8_t> packed = num::packMmaTiles(codes.data(), N, K);
  DeviceBuffer dx(x.size() * 2), dw(packed.size()), ds(scale.size() * 4);
  dx.upload(x);
  dw.upload(packed);
  ds.upload(scale);
  rt::DType act = c.f16 ? rt::DType::F16 : rt::DType::BF16;
  std::vector<rt::TensorRef> in = {rt::TensorRef(dx.Ptr, act, {M, K}),
                                   rt::TensorRef(dw.Ptr, c.weightType, {N, K}),
                                   rt::TensorRef(ds.Ptr, rt::DType::F32, {N, 1})};
  auto shapes = f.outputShapes({{M, K}, {N, K}, {N, 1}});
  EXPECT_EQ(shapes.at(0), (std::vector<int64_t>{M, N}));
  PoisonedOutputs po = poisonedOutputs(f, shapes);
  po.buffers[0]->poison(poison);
  f.launch(nullptr, in, po.refs, {});
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  return {po.buffers[0]->download<uint16_t>(M * N)};
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
    std::vector<float> scale(N, 1.0f);
    CallResult r = call(f, c, M, N, K, x, codes, scale);
    int bad = 0;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        uint8_t code = codes[n * K + m];
        float v = num::decode(c.elem, code);
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
      std::vector<uint8_t> codes(s.N * s.K);
      for (auto &v : codes)
        v = all[rng() % all.size()];
      std::vector<float> scale(s.N);
      for (auto &v : scale)
        // e5m2 codes reach 57344: smaller scales keep f16 results finite.
        v = std::ldexp(1.0f + float(rng() % 1024) / 1024,
                       int(rng() % 9) - (c.elem.ebits == 5 ? 22 : 12));
      std::vector<uint16_t> x(s.M * s.K);
      for (auto &v : x)
        v = toHalf(c, float(int(rng() % 2001) - 1000) / 1000.0f);
      CallResult r = call(f, c, s.M, s.N, s.K, x, codes, scale);
      CallResult again = call(f, c, s.M, s.N, s.K, x, codes, scale, 0x5A);
      EXPECT_EQ(r.y, again.y) << "a second call (outputs poisoned otherwise) differs";
      std::vector<double> wd(s.N * s.K);
      for (int64_t i = 0; i < s.N * s.K; ++i)
        wd[i] = num::decode(c.elem, codes[i]);
      double num = 0, den = 0;
      for (int64_t m = 0; m < s.M; ++m)
        for (int64_t n = 0; n < s.N; ++n) {
          double ref = 0;
          for (int64_t k = 0; k < s.K; ++k)
            ref += double(fromHalf(c, x[m * s.K + k])) * wd[n * s.K + k];
          ref *= scale[n];
          double got = fromHalf(c, r.y[m * s.N + n]);
          num += (got - ref) * (got - ref);
          den += ref * ref;
        }
      double rel = std::sqrt(num / den);
      EXPECT_LE(rel, 1e-2) << "relative Frobenius error";
      EXPECT_TRUE(std::isfinite(rel));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, MatmulKernel, ::testing::Values("sm_90a", "sm_80"));

} // namespace
