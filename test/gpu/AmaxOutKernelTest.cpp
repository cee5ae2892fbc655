//===- AmaxOutKernelTest.cpp - a cast that records the next step's amax ----===//
//
// Delayed scaling: fpx.quantize from a given amax (an earlier step's) and an
// fpx.amax of the same input in one function, compiled by fpxc for sm_90a
// and sm_80 from test/gpu/specs/ao_*.mlir. fpxc fuses the amax into the row
// cast (one read of x instead of two), so the cast must
// - give the codes and scales the numerics core gives for the given amax,
// - and return max |x| (of the transformed values where the cast fuses a
//   Hadamard transform) bit for bit as the numerics core's absMax and as the
//   standalone amax kernel (test/gpu/specs/amax_*.mlir) does, NaN included.
// Inputs: small values with one outstanding peak placed at the ends, a
// chunk boundary and at random (a skipped vector, tile or CTA would miss
// it), for sizes of one partial tile up to several waves with a partial last
// tile; and random data with inf, NaN, +-0, subnormals and +-max.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Hadamard.h"
#include "fpx/Numerics/Packing.h"
#include "fpx/Numerics/Quantize.h"

#include <set>

using namespace fpx;
using namespace fpx::gputest;

namespace {

struct OutCase {
  const char *name;
  In in;
  bool nvfp4;        // else fp8 e4m3 per tensor (fp32 scale)
  bool seeded;       // stochastic rounding
  int hadamard;      // fused transform size (seed 5), 0 = none
  const char *amax;  // the standalone amax artifact of the same values
};

const OutCase kCases[] = {
    {"ao_fp8_tensor", In::BF16, false, false, 0, "amax_tensor"},
    {"ao_fp8_tensor_f32", In::F32, false, false, 0, nullptr},
    {"ao_nvfp4", In::BF16, true, false, 0, "amax_tensor"},
    {"ao_nvfp4_rs", In::BF16, true, true, 0, "amax_tensor"},
    {"ao_nvfp4_rht_rs", In::BF16, true, true, 16, "amax_rht16"},
};

/// The codes and scale bytes of the cast of x (after the transform) from the
/// given amax `prev`: NVFP4 by the numerics core (its delayed-scaling
/// amax); fp8 per tensor by its definition, s = fl(prev / 448) (1 for a zero
/// amax), each code encode(e4m3, fl(x / s)), RN, satfinite.
std::pair<std::vector<uint8_t>, std::vector<uint8_t>>
reference(const OutCase &c, const std::vector<float> &x, int64_t rows, int64_t cols,
          float prev, uint64_t seed) {
  if (c.nvfp4) {
    num::QuantSpec spec;
    spec.elem = num::e2m1fn();
    spec.scaleKind = num::ScaleKind::NVFP4;
    spec.blockRows = 1;
    spec.blockCols = 16;
    spec.rounding = c.seeded ? num::Rounding::RS : num::Rounding::RN;
    spec.seed = seed;
    spec.nvfp4TensorAmax = {prev};
    num::Quantized q = num::quantize(x.data(), 1, rows, cols, spec);
    return {num::packFp4x2(q.codes.data(), q.codes.size()), q.scaleCodes};
  }
  float s = prev == 0.0f ? 1.0f : prev / 448.0f;
  std::vector<uint8_t> codes(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    codes[i] = num::encode(num::e4m3fn(), x[i] / s, num::Rounding::RN,
                           num::Overflow::SatFinite);
  std::vector<uint8_t> scale(4);
  std::memcpy(scale.data(), &s, 4);
  return {codes, scale};
}

/// bf16 values in (-1, 1), none zero, with one peak of +-(100 + p % 7) at p.
std::vector<uint16_t> peaked(int64_t n, int64_t p, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.99f, 0.99f);
  std::vector<uint16_t> x(static_cast<size_t>(n));
  for (auto &b : x)
    b = toBf16Bits(u(rng));
  x[p] = toBf16Bits((p % 2 ? -1.0f : 1.0f) * (100.0f + float(p % 7)));
  return x;
}

class AmaxOutKernels : public ::testing::TestWithParam<std::string> {};

/// One launch of case `c` on bf16 patterns `bits` ([rows, cols]) from the
/// given amax `prev`: codes, scales and the recorded amax checked.
void runOne(const OutCase &c, const std::string &target, const std::vector<uint16_t> &bits,
            int64_t rows, int64_t cols, float prev, uint32_t dataSeed) {
  auto module = rt::Module::load((artifactDir(target) / (std::string(c.name) + ".json")).string());
  const rt::Function &f = module->function(c.name);
  HostInput host = widenInput(bits, c.in, dataSeed);
  std::vector<float> x = host.values;
  if (c.hadamard)
    num::randomHadamard(x.data(), rows, cols, c.hadamard, 5);
  uint64_t seed = 0x5eed0000ull + dataSeed;
  auto [wantData, wantScales] = reference(c, x, rows, cols, prev, seed);
  float wantAmax = num::absMax(x.data(), x.size());

  std::vector<int64_t> shape = {rows, cols};
  DeviceBuffer in(host.bytes.size()), a(4);
  in.upload(host.bytes);
  a.upload(std::vector<float>{prev});
  PoisonedOutputs po = poisonedOutputs(f, f.outputShapes({shape, {}}));
  std::vector<rt::Scalar> scalars;
  if (c.seeded)
    scalars.push_back(rt::Scalar(static_cast<int64_t>(seed)));
  f.launch(nullptr, {rt::TensorRef(in.Ptr, host.type, shape), rt::TensorRef(a.Ptr, rt::DType::F32, {})},
           po.refs, scalars);
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  expectSameBytes(po.buffers[0]->download<uint8_t>(po.buffers[0]->Bytes), wantData, "data");
  expectSameBytes(po.buffers[1]->download<uint8_t>(po.buffers[1]->Bytes), wantScales, "scales");
  std::vector<uint8_t> gotAmax = po.buffers[2]->download<uint8_t>(4);
  expectAmaxBits(gotAmax, wantAmax);

  // The standalone amax kernel of the same values gives the same bits.
  if (c.amax) {
    auto am = rt::Module::load((artifactDir(target) / (std::string(c.amax) + ".json")).string());
    DeviceBuffer out(4);
    out.poison();
    am->function(c.amax).launch(nullptr, {rt::TensorRef(in.Ptr, host.type, shape)},
                                {rt::TensorRef(out.Ptr, rt::DType::F32, {})}, {});
    FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
    EXPECT_EQ(out.download<uint8_t>(4), gotAmax) << "the standalone amax kernel's bits";
  }
}

TEST_P(AmaxOutKernels, CastFromAGivenAmaxRecordsTheAmaxItReads) {
  FPX_REQUIRE_TARGET(GetParam());
  uint32_t seed = 1;
  for (const OutCase &c : kCases) {
    // 7x640: one partial tile; 5x1040: two; 1024x4096: 512 tiles;
    // 3000x4112: 1506 tiles, the last partial (two a CTA where the cast
    // takes two).
    for (auto [rows, cols] : {std::array<int64_t, 2>{7, 640}, {5, 1040}, {1024, 4096},
                              {3000, 4112}}) {
      int64_t n = rows * cols;
      std::mt19937 rng(seed);
      std::set<int64_t> at = {0, n - 1, n - 8, (n / 8192) * 8192 - 1,
                              std::uniform_int_distribution<int64_t>(0, n - 1)(rng)};
      for (int64_t p : at) {
        if (p < 0)
          continue;
        // the given amax below the peak (codes saturate) and above it
        for (float prev : {50.0f, 3000.0f}) {
          SCOPED_TRACE(std::string(c.name) + " " + GetParam() + " " + std::to_string(rows) +
                       "x" + std::to_string(cols) + " peak at " + std::to_string(p) +
                       " given amax " + std::to_string(prev));
          runOne(c, GetParam(), peaked(n, p, seed), rows, cols, prev, seed);
          ++seed;
        }
      }
      // random data with specials (NaN: the recorded amax is NaN); given
      // amaxes of zero (scale 1 / global scale 1), 1 (per tensor, +-max
      // bf16 / s overflows fp32, and +-inf / s is +-inf: both saturate) and
      // 10^4
      for (float prev : {0.0f, 1.0f, 1.0e4f}) {
        SCOPED_TRACE(std::string(c.name) + " " + GetParam() + " " + std::to_string(rows) +
                     "x" + std::to_string(cols) + " specials, given amax " + std::to_string(prev));
        runOne(c, GetParam(), bf16TestData(rows, cols, 16, seed), rows, cols, prev, seed);
        ++seed;
      }
    }
  }
}

TEST_P(AmaxOutKernels, BatchFromGivenAmaxesRecordsEachMatrixsAmax) {
  FPX_REQUIRE_TARGET(GetParam());
  auto module = rt::Module::load((artifactDir(GetParam()) / "ao_nvfp4_experts.json").string());
  const rt::Function &f = module->function("ao_nvfp4_experts");
  uint32_t seed = 300;
  // matrices of one tile (three tiles: a CTA of two, then one whose second
  // is past the end), of four tiles, of one tile in five rows
  for (auto [batch, rows, cols] : {std::array<int64_t, 3>{3, 64, 128}, {5, 128, 256},
                                   {7, 8, 1024}}) {
    SCOPED_TRACE(GetParam() + " " + std::to_string(batch) + "x" + std::to_string(rows) + "x" +
                 std::to_string(cols));
    int64_t per = rows * cols;
    // each matrix its own amax (a kernel mixing matrices fails), specials
    // brought below them
    std::vector<uint16_t> bits = bf16TestData(batch * rows, cols, 16, seed++);
    dropNaNs(bits);
    distinctMatrixAmaxes(bits, batch, per);
    HostInput host = widenInput(bits, In::BF16, seed);
    // given amaxes: the matrices' own times 1 / 2 (codes saturate) and 3
    std::vector<float> prev(static_cast<size_t>(batch)), want(static_cast<size_t>(batch));
    for (int64_t e = 0; e < batch; ++e) {
      want[e] = num::absMax(host.values.data() + e * per, static_cast<size_t>(per));
      prev[e] = want[e] * (e % 2 ? 3.0f : 0.5f);
    }
    num::QuantSpec spec;
    spec.elem = num::e2m1fn();
    spec.scaleKind = num::ScaleKind::NVFP4;
    spec.blockRows = 1;
    spec.blockCols = 16;
    spec.nvfp4TensorAmax = prev;
    num::Quantized q = num::quantize(host.values.data(), batch, rows, cols, spec);

    std::vector<int64_t> shape = {batch, rows, cols};
    DeviceBuffer in(host.bytes.size()), a(prev.size() * 4);
    in.upload(host.bytes);
    a.upload(prev);
    PoisonedOutputs po = poisonedOutputs(f, f.outputShapes({shape, {batch}}));
    f.launch(nullptr, {rt::TensorRef(in.Ptr, rt::DType::BF16, shape),
                       rt::TensorRef(a.Ptr, rt::DType::F32, {batch})}, po.refs, {});
    FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
    expectSameBytes(po.buffers[0]->download<uint8_t>(po.buffers[0]->Bytes),
                    num::packFp4x2(q.codes.data(), q.codes.size()), "data");
    expectSameBytes(po.buffers[1]->download<uint8_t>(po.buffers[1]->Bytes), q.scaleCodes,
                    "scales");
    std::vector<float> got = po.buffers[2]->download<float>(static_cast<size_t>(batch));
    for (int64_t e = 0; e < batch; ++e)
      EXPECT_EQ(std::memcmp(&got[e], &want[e], 4), 0)
          << "matrix " << e << " amax: got " << got[e] << " want " << want[e];
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, AmaxOutKernels, ::testing::Values("sm_90a", "sm_80"));

} // namespace
