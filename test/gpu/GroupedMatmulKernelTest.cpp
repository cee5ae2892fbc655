//===- GroupedMatmulKernelTest.cpp - fp8 grouped GEMM vs an fp64 reference ===//
//
// The specs test/gpu/specs/sm_90a/gmm_*.mlir (fpx.grouped_matmul 2D x 3D,
// the forward GEMM of float8 MoE training: A (M, K) e4m3 or e5m2, B (G, N,
// K) e4m3, rowwise f32 scales A [M, 1] and B [G, N, 1], i32 group ends on
// the device; bf16 or f32 out), compiled by fpxc for sm_90a (the scaled
// GEMM kernel in its grouped mode), run on the GPU against a reference
// computed here from the codes' values (num::decode), in fp64: row m of
// group g is sum_k A[m, k] B[g, n, k] times sa[m] sb[g, n].
// - Every row of a group: |out - ref| <= 2^-8 |ref| (bf16's rounding; 0
//   for f32) + 2^-10 sum_k |A[m, k] B[g, n, k]| sa[m] sb[g, n] (the
//   accumulation: about 14 bits inside a wgmma's 128-K partial sum, fp32
//   across them; a wrong scale, row, column or group is off by far more);
//   for f32 outputs also the relative Frobenius error <= 1e-3.
// - The rows past the last end belong to no group: exactly zero, as the
//   op's documentation says (the output is poisoned with NaN bytes first,
//   so a row not written shows).
// - Groups: G = 1 (all rows; then 50 rows past the end); G = 8 with sizes
//   that are not multiples of the 128-row tile, empty groups and a group of
//   one row; G = 300 (ten chunks of the kernel's group table, most groups
//   a few rows or empty); G = 64 at M = 4096. N and K not multiples of the
//   128x192 tile and 128-K stage (N = 300, 1000; K = 208, 1040).
// - The offsets live on the device and the host never reads them: a second
//   call with new offsets (same buffers, same loaded kernel) gives the new
//   grouping, and so does a CUDA graph captured once and replayed after the
//   offsets changed.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"

#include <cmath>
#include <numeric>
#include <random>

using namespace fpx;
using namespace fpx::gputest;

namespace {

struct Case {
  const char *name;
  num::Format fa;
  rt::DType ta;
  bool f32Out; // else bf16
};

const Case kCases[] = {
    {"gmm_e4m3_row_bf16", num::e4m3fn(), rt::DType::F8E4M3FN, false},
    {"gmm_e5m2_e4m3_row_f32", num::e5m2(), rt::DType::F8E5M2, true},
};

/// One problem's operands on the host (codes, their decoded values, the
/// scales) and on the device, and its output buffer.
struct Problem {
  int64_t M, N, K, G;
  std::vector<float> ad, bd; // decoded codes, A (M, K) and B (G, N, K)
  std::vector<float> sa, sb; // [M], [G * N]
  std::unique_ptr<DeviceBuffer> da, db, dsa, dsb, doffs;
  std::vector<rt::TensorRef> in;
  PoisonedOutputs po;

  Problem(const Case &c, const rt::Function &f, int64_t M, int64_t N, int64_t K, int64_t G,
          std::mt19937 &rng)
      : M(M), N(N), K(K), G(G) {
    std::vector<uint8_t> a = randomFiniteCodes(c.fa, M * K, rng);
    std::vector<uint8_t> b = randomFiniteCodes(num::e4m3fn(), G * N * K, rng);
    for (uint8_t x : a)
      ad.push_back(num::decode(c.fa, x));
    for (uint8_t x : b)
      bd.push_back(num::decode(num::e4m3fn(), x));
    // e5m2 reaches 57344: smaller scales keep sums well inside bf16/f32.
    auto scale = [&] { return 0.5f + 1.5f * float(rng() % 4096) / 4096.0f; };
    for (int64_t m = 0; m < M; ++m)
      sa.push_back(scale() * (c.fa.ebits == 5 ? 1.0f / 64 : 1.0f));
    for (int64_t i = 0; i < G * N; ++i)
      sb.push_back(scale());
    da = std::make_unique<DeviceBuffer>(a.size());
    db = std::make_unique<DeviceBuffer>(b.size());
    dsa = std::make_unique<DeviceBuffer>(sa.size() * 4);
    dsb = std::make_unique<DeviceBuffer>(sb.size() * 4);
    doffs = std::make_unique<DeviceBuffer>(G * 4);
    da->upload(a);
    db->upload(b);
    dsa->upload(sa);
    dsb->upload(sb);
    in = {rt::TensorRef(da->Ptr, c.ta, {M, K}), rt::TensorRef(dsa->Ptr, rt::DType::F32, {M, 1}),
          rt::TensorRef(db->Ptr, rt::DType::F8E4M3FN, {G, N, K}),
          rt::TensorRef(dsb->Ptr, rt::DType::F32, {G, N, 1}),
          rt::TensorRef(doffs->Ptr, rt::DType::I32, {G})};
    auto outShapes = f.outputShapes({{M, K}, {M, 1}, {G, N, K}, {G, N, 1}, {G}});
    EXPECT_EQ(outShapes.at(0), (std::vector<int64_t>{M, N}));
    po = poisonedOutputs(f, outShapes);
  }

  /// Uploads the group ends of `sizes` (cumulative) and poisons the output
  /// (NaN in bf16 and f32); both done when it returns.
  std::vector<int32_t> prepare(const std::vector<int32_t> &sizes) {
    std::vector<int32_t> ends(sizes.size());
    std::partial_sum(sizes.begin(), sizes.end(), ends.begin());
    EXPECT_EQ(int64_t(ends.size()), G);
    EXPECT_LE(ends.back(), M);
    doffs->upload(ends);
    po.buffers[0]->poison(0xFF);
    FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
    return ends;
  }

  /// Checks the output against the reference for group ends `ends`.
  void check(const Case &c, const std::vector<int32_t> &ends) {
    std::vector<float> got = downloadFloats(*po.buffers[0], M * N, c.f32Out);
    int64_t bad = 0, notZero = 0;
    double errSq = 0, refSq = 0;
    const double rounding = c.f32Out ? 0.0 : std::ldexp(1.0, -8);
    int64_t start = 0;
    for (int64_t g = 0; g < G; ++g) {
      for (int64_t m = start; m < ends[g]; ++m)
        for (int64_t n = 0; n < N; ++n) {
          const float *ar = &ad[m * K], *br = &bd[(g * N + n) * K];
          double dot = 0, abs = 0;
          for (int64_t k = 0; k < K; ++k) {
            dot += double(ar[k]) * br[k];
            abs += std::fabs(double(ar[k]) * br[k]);
          }
          double s = double(sa[m]) * sb[g * N + n];
          double ref = dot * s, v = got[m * N + n];
          double err = std::fabs(v - ref);
          errSq += err * err;
          refSq += ref * ref;
          if (!(err <= rounding * std::fabs(ref) + std::ldexp(abs * s, -10))) {
            if (bad++ < 5)
              ADD_FAILURE() << "group " << g << " row " << m << " col " << n << ": got " << v
                            << ", want " << ref;
          }
        }
      start = std::max<int64_t>(start, ends[g]);
    }
    for (int64_t i = ends.back() * N; i < M * N; ++i)
      notZero += got[i] != 0.0f;
    EXPECT_EQ(bad, 0) << "outputs of a group off the reference (or not written)";
    EXPECT_EQ(notZero, 0) << "rows past the last group end not zero";
    double rel = refSq > 0 ? std::sqrt(errSq / refSq) : 0;
    if (c.f32Out) {
      EXPECT_LE(rel, 1e-3) << "relative Frobenius error";
    }
    std::fprintf(stderr, "%s M=%lld N=%lld K=%lld G=%lld rows %d: Frobenius error %.3g\n",
                 c.name, (long long)M, (long long)N, (long long)K, (long long)G, ends.back(),
                 rel);
  }
};

/// `G` random group sizes of 0 .. `most` rows.
std::vector<int32_t> randomSizes(int64_t G, int32_t most, std::mt19937 &rng) {
  std::vector<int32_t> sizes(G);
  for (auto &s : sizes)
    s = int32_t(rng() % uint32_t(most + 1));
  return sizes;
}

TEST(GroupedMatmulKernel, MatchesAnFp64ReferenceOfTheDequantizedOperands) {
  const std::string target = "sm_90a";
  FPX_REQUIRE_TARGET(target);
  CaseFilter filter;
  for (const Case &c : kCases) {
    if (!filter(c.name))
      continue;
    SCOPED_TRACE(c.name);
    FPX_LOAD_ARTIFACT(mod, target, c.name);
    const rt::Function &f = mod->function(c.name);
    std::mt19937 rng(2468);
    auto run = [&](Problem &p, const std::vector<int32_t> &sizes) {
      SCOPED_TRACE("M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) +
                   " K=" + std::to_string(p.K) + " G=" + std::to_string(p.G));
      std::vector<int32_t> ends = p.prepare(sizes);
      f.launch(nullptr, p.in, p.po.refs, {});
      FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
      p.check(c, ends);
    };
    {
      // One group: every row, then 50 rows past its end.
      Problem p(c, f, 300, 1000, 1040, 1, rng);
      run(p, {300});
      run(p, {250});
    }
    {
      // Sizes off the 128-row tile, empty groups, a group of one row; then
      // new offsets for the same buffers and kernel.
      Problem p(c, f, 1000, 300, 208, 8, rng);
      run(p, {130, 0, 1, 257, 0, 200, 77, 255});
      run(p, {0, 500, 3, 128, 129, 0, 0, 200});
    }
    {
      // Many groups, most a few rows or none.
      Problem p(c, f, 1200, 256, 128, 300, rng);
      run(p, randomSizes(300, 6, rng));
    }
    {
      Problem p(c, f, 4096, 512, 512, 64, rng);
      run(p, randomSizes(64, 120, rng));
    }
  }
}

// A CUDA graph of one call, captured once, replayed after the offsets
// changed on the device: the kernel takes the grouping from the offsets it
// reads, not from anything fixed at capture.
TEST(GroupedMatmulKernel, AGraphReplayedWithNewOffsets) {
  const std::string target = "sm_90a";
  FPX_REQUIRE_TARGET(target);
  const Case &c = kCases[0];
  FPX_LOAD_ARTIFACT(mod, target, c.name);
  const rt::Function &f = mod->function(c.name);
  const auto &api = rt::CudaApi::driver();
  std::mt19937 rng(1357);
  Problem p(c, f, 1000, 300, 208, 8, rng);
  const std::vector<std::vector<int32_t>> groupings = {{130, 0, 1, 257, 0, 200, 77, 255},
                                                       {0, 500, 3, 128, 129, 0, 0, 200},
                                                       {1000, 0, 0, 0, 0, 0, 0, 0}};
  CUstream s = nullptr;
  FPX_CU(api.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  // One eager call first: the module loads outside the capture.
  std::vector<int32_t> ends = p.prepare(groupings[2]);
  f.launch(s, p.in, p.po.refs, {});
  FPX_CU(api.cuStreamSynchronize(s));
  p.check(c, ends);
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  FPX_CU(api.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
  f.launch(s, p.in, p.po.refs, {});
  FPX_CU(api.cuStreamEndCapture(s, &graph));
  FPX_CU(api.cuGraphInstantiate(&exec, graph, 0));
  for (const auto &sizes : groupings) {
    ends = p.prepare(sizes);
    FPX_CU(api.cuGraphLaunch(exec, s));
    FPX_CU(api.cuStreamSynchronize(s));
    p.check(c, ends);
  }
  FPX_CU(api.cuGraphExecDestroy(exec));
  FPX_CU(api.cuGraphDestroy(graph));
  FPX_CU(api.cuStreamDestroy(s));
}

} // namespace
