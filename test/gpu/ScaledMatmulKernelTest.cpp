//===- ScaledMatmulKernelTest.cpp - fp8 scaled GEMMs vs an fp64 matmul ----===//
//
// The specs test/gpu/specs/sm_90a/smm_*.mlir (fpx.scaled_matmul of fp8 A
// (M, K) and B (N, K) with per-tensor or per-row f32 scales, bf16 or f32
// out), compiled by fpxc for sm_90a (TMA + wgmma kernels, tensor maps built
// by the runtime at launch), run on the GPU against a matmul of the
// operands dequantized by the numerics core (num::decode times the scale),
// accumulated in fp64:
// - error = max |out - ref| / max |ref| <= 1e-3 for f32 outputs (fp32
//   accumulation order; the kernel promotes the wgmma partial sums every
//   128 K) and <= 1e-2 for bf16 (its rounding is 2^-9);
// - every output written (poisoned with NaN bytes before) and finite;
// - shapes (128, 256, 512) (the 128x64 kernel), (1000, 1000, 1024) (edge
//   tiles on M and N) and (4096, 4096, 4096) (its reference sampled: 4096
//   entries, every row once).
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"

#include <cmath>
#include <random>

using namespace fpx;
using namespace fpx::gputest;

namespace {

struct Case {
  const char *name;
  num::Format fa, fb;
  rt::DType ta, tb;
  bool rowScales; // else one per tensor
  bool f32Out;    // else bf16
};

const Case kCases[] = {
    {"smm_e4m3_tensor_bf16", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, false, false},
    {"smm_e4m3_tensor_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, false, true},
    {"smm_e4m3_row_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, true, true},
    {"smm_e5m2_e4m3_row_bf16", num::e5m2(), num::e4m3fn(), rt::DType::F8E5M2,
     rt::DType::F8E4M3FN, true, false},
};

/// Random codes over the format's whole finite range.
std::vector<uint8_t> randomCodes(const num::Format &fmt, int64_t n, std::mt19937 &rng) {
  std::vector<uint8_t> out(n);
  for (auto &c : out) {
    do
      c = static_cast<uint8_t>(rng());
    while (fmt.isNaNCode(c & fmt.magnitudeMask()) || fmt.isInfCode(c & fmt.magnitudeMask()));
  }
  return out;
}

TEST(ScaledMatmulKernel, MatchesAnFp64MatmulOfTheDequantizedOperands) {
  const std::string target = "sm_90a";
  FPX_REQUIRE_TARGET(target);
  CaseFilter filter;
  struct Shape {
    int64_t M, N, K;
    bool sampled;
  };
  const Shape shapes[] = {{128, 256, 512, false}, {1000, 1000, 1024, false},
                          {4096, 4096, 4096, true}};
  for (const Case &c : kCases) {
    if (!filter(c.name))
      continue;
    SCOPED_TRACE(c.name);
    FPX_LOAD_ARTIFACT(mod, target, c.name);
    const rt::Function &f = mod->function(c.name);
    std::mt19937 rng(4321);
    for (const Shape &s : shapes) {
      SCOPED_TRACE("M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) +
                   " K=" + std::to_string(s.K));
      std::vector<uint8_t> a = randomCodes(c.fa, s.M * s.K, rng);
      std::vector<uint8_t> b = randomCodes(c.fb, s.N * s.K, rng);
      // e5m2 reaches 57344: smaller scales keep sums well inside f32/bf16.
      auto scale = [&] { return 0.5f + 1.5f * float(rng() % 4096) / 4096.0f; };
      std::vector<float> sa(c.rowScales ? s.M : 1), sb(c.rowScales ? s.N : 1);
      for (auto &v : sa)
        v = scale() * (c.fa.ebits == 5 ? 1.0f / 64 : 1.0f);
      for (auto &v : sb)
        v = scale();
      DeviceBuffer da(a.size()), db(b.size()), dsa(sa.size() * 4), dsb(sb.size() * 4);
      da.upload(a);
      db.upload(b);
      dsa.upload(sa);
      dsb.upload(sb);
      int64_t ra = c.rowScales ? s.M : 1, rb = c.rowScales ? s.N : 1;
      std::vector<rt::TensorRef> in = {rt::TensorRef(da.Ptr, c.ta, {s.M, s.K}),
                                       rt::TensorRef(dsa.Ptr, rt::DType::F32, {ra, 1}),
                                       rt::TensorRef(db.Ptr, c.tb, {s.N, s.K}),
                                       rt::TensorRef(dsb.Ptr, rt::DType::F32, {rb, 1})};
      auto outShapes = f.outputShapes({{s.M, s.K}, {ra, 1}, {s.N, s.K}, {rb, 1}});
      ASSERT_EQ(outShapes.at(0), (std::vector<int64_t>{s.M, s.N}));
      PoisonedOutputs po = poisonedOutputs(f, outShapes);
      po.buffers[0]->poison(0xFF); // NaN in bf16 and f32
      f.launch(nullptr, in, po.refs, {});
      FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
      std::vector<float> got(s.M * s.N);
      if (c.f32Out) {
        got = po.buffers[0]->download<float>(s.M * s.N);
      } else {
        std::vector<uint16_t> bits = po.buffers[0]->download<uint16_t>(s.M * s.N);
        for (int64_t i = 0; i < s.M * s.N; ++i)
          got[i] = num::bf16ToFloat(bits[i]);
      }
      int64_t notFinite = 0;
      for (float v : got)
        notFinite += !std::isfinite(v);
      EXPECT_EQ(notFinite, 0) << "outputs not written or not finite";

      std::vector<double> ad(a.size()), bd(b.size());
      for (size_t i = 0; i < a.size(); ++i)
        ad[i] = double(num::decode(c.fa, a[i])) * sa[c.rowScales ? i / s.K : 0];
      for (size_t i = 0; i < b.size(); ++i)
        bd[i] = double(num::decode(c.fb, b[i])) * sb[c.rowScales ? i / s.K : 0];
      double maxErr = 0, maxRef = 0;
      auto check = [&](int64_t m, int64_t n) {
        double ref = 0;
        const double *ar = &ad[m * s.K], *br = &bd[n * s.K];
        for (int64_t k = 0; k < s.K; ++k)
          ref += ar[k] * br[k];
        maxErr = std::max(maxErr, std::fabs(double(got[m * s.N + n]) - ref));
        maxRef = std::max(maxRef, std::fabs(ref));
      };
      if (s.sampled) {
        for (int64_t m = 0; m < s.M; ++m)
          check(m, int64_t(rng() % s.N));
      } else {
        for (int64_t m = 0; m < s.M; ++m)
          for (int64_t n = 0; n < s.N; ++n)
            check(m, n);
      }
      double rel = maxErr / maxRef;
      EXPECT_LE(rel, c.f32Out ? 1e-3 : 1e-2) << "max |out - ref| / max |ref|";
      EXPECT_GT(maxRef, 0.0);
      std::fprintf(stderr, "%s M=%lld N=%lld K=%lld: error %.3g\n", c.name, (long long)s.M,
                   (long long)s.N, (long long)s.K, rel);
    }
  }
}

} // namespace
