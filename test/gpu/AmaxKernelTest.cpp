//===- AmaxKernelTest.cpp - the amax reduction visits every element -------===//
//
// fpx.amax, compiled by fpxc for sm_90a and sm_80 from
// test/gpu/specs/amax_*.mlir: the first pass of every per-tensor cast. The
// kernel walks the warps' 32-vector chunks by a grid-stride loop of four
// loads a trip, whose bounds a reduction over random data barely tests: a
// skipped chunk rarely holds the maximum (a last-to-first walk passed this
// test and was 1-4% slower: the cast after it already runs its CTAs from
// the end, where a first-to-last walk leaves L2 warm; docs/results/
// 2026-11-23-h200-8). Here each input holds one outstanding
// value (a peak) among values below 1, placed at the first element, the
// last, the last vector's first, a chunk boundary and at random, for sizes
// with a partial last chunk, one CTA, one full trip of the 512-CTA grid
// and several trips; the result must be the peak's magnitude (the numerics
// core's absMax of the input, or of its random Hadamard transform), bit for
// bit. Per matrix of a batch the same (partial chunks, one trip, two trips
// a matrix), each matrix with its peak elsewhere.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Hadamard.h"
#include "fpx/Numerics/Quantize.h"

#include <set>

using namespace fpx;
using namespace fpx::gputest;

namespace {

/// bf16 values in (-1, 1), none zero.
std::vector<uint16_t> smallValues(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.99f, 0.99f);
  std::vector<uint16_t> x(n);
  for (auto &b : x)
    b = toBf16Bits(u(rng));
  return x;
}

/// Where a peak goes in n elements: the ends, the last vector's first
/// element, the first element of a 256-element (32-vector) chunk near the
/// end, the middle, and three at random.
std::vector<int64_t> peakPositions(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> any(0, n - 1);
  std::set<int64_t> at = {0, n - 1, n - 8, n / 2, (n / 256) * 256 - 256, any(rng), any(rng),
                          any(rng)};
  std::vector<int64_t> out;
  for (int64_t p : at)
    if (p >= 0 && p < n)
      out.push_back(p);
  return out;
}

void expectSameFloat(float got, float want, const std::string &what) {
  EXPECT_EQ(std::memcmp(&got, &want, 4), 0) << what << ": got " << got << " want " << want;
}

class AmaxKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(AmaxKernels, TensorAmaxSeesEveryElement) {
  FPX_REQUIRE_TARGET(GetParam());
  for (const char *name : {"amax_tensor", "amax_rht16"}) {
    bool rht = std::string(name) == "amax_rht16";
    FPX_LOAD_ARTIFACT(module, GetParam(), name);
    const rt::Function &f = module->function(name);
    uint32_t seed = 1;
    // 1x16: one partial chunk; 7x640, 5x1040: partial last chunks; 1024x4096:
    // exactly one trip of the 512 CTAs (four loads a thread); 4096x4096: four;
    // 3000x4112: a partial last trip, its last warp partly past the end (4112 =
    // 16 x 257, for the Hadamard amax).
    for (auto [rows, cols] : {std::array<int64_t, 2>{1, 16}, {7, 640}, {5, 1040},
                              {1024, 4096}, {4096, 4096}, {3000, 4112}}) {
      int64_t n = rows * cols;
      std::vector<uint16_t> base = smallValues(static_cast<size_t>(n), seed++);
      std::vector<int64_t> shape = {rows, cols};
      DeviceBuffer in(static_cast<size_t>(n) * 2), out(4);
      for (int64_t p : peakPositions(n, seed++)) {
        SCOPED_TRACE(std::string(name) + " " + std::to_string(rows) + "x" +
                     std::to_string(cols) + " peak at " + std::to_string(p));
        std::vector<uint16_t> bits = base;
        bits[p] = toBf16Bits((p % 2 ? -1.0f : 1.0f) * (100.0f + float(p % 7)));
        std::vector<float> x(bits.size());
        for (size_t i = 0; i < bits.size(); ++i)
          x[i] = num::bf16ToFloat(bits[i]);
        if (rht)
          num::randomHadamard(x.data(), rows, cols, 16, 5);
        float want = num::absMax(x.data(), x.size());
        in.upload(bits);
        out.poison();
        f.launch(nullptr, {rt::TensorRef(in.Ptr, rt::DType::BF16, shape)},
                 {rt::TensorRef(out.Ptr, rt::DType::F32, {})}, {});
        FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
        expectSameFloat(out.download<float>(1)[0], want, "amax");
      }
    }
  }
}

TEST_P(AmaxKernels, PerMatrixAmaxSeesEveryElementOfItsMatrix) {
  FPX_REQUIRE_TARGET(GetParam());
  FPX_LOAD_ARTIFACT(module, GetParam(), "amax_matrices");
  const rt::Function &f = module->function("amax_matrices");
  uint32_t seed = 50;
  // 6x1024x2048: half a trip a matrix; 2x4096x2048: two.
  for (auto [batch, rows, cols] : {std::array<int64_t, 3>{5, 7, 640}, {3, 5, 1048},
                                   {6, 1024, 2048}, {2, 4096, 2048}}) {
    int64_t per = rows * cols;
    std::vector<uint16_t> bits = smallValues(static_cast<size_t>(batch * per), seed++);
    std::vector<int64_t> at = peakPositions(per, seed++);
    // matrix e: its peak elsewhere, alternating in sign; the even matrices'
    // peaks below both neighbours', so that one reading into the matrix
    // before or after it would see a larger one
    for (int64_t e = 0; e < batch; ++e)
      bits[e * per + at[e % at.size()]] = toBf16Bits(
          (e % 2 ? -10.0f : 10.0f) * float(e % 2 ? 2 * batch + e : batch - e));
    std::vector<float> x(bits.size());
    for (size_t i = 0; i < bits.size(); ++i)
      x[i] = num::bf16ToFloat(bits[i]);
    std::vector<int64_t> shape = {batch, rows, cols};
    DeviceBuffer in(bits.size() * 2), out(static_cast<size_t>(batch) * 4);
    in.upload(bits);
    out.poison();
    f.launch(nullptr, {rt::TensorRef(in.Ptr, rt::DType::BF16, shape)},
             {rt::TensorRef(out.Ptr, rt::DType::F32, {batch})}, {});
    FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
    std::vector<float> got = out.download<float>(static_cast<size_t>(batch));
    for (int64_t e = 0; e < batch; ++e) {
      SCOPED_TRACE(std::to_string(batch) + "x" + std::to_string(rows) + "x" +
                   std::to_string(cols) + " matrix " + std::to_string(e));
      expectSameFloat(got[e], num::absMax(x.data() + e * per, static_cast<size_t>(per)),
                      "amax");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, AmaxKernels, ::testing::Values("sm_90a", "sm_80"));

} // namespace
