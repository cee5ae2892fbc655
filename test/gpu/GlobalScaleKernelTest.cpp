//===- GlobalScaleKernelTest.cpp - fpx.global_scale vs the numerics core --===//
//
// fpx.global_scale (NVFP4's per-tensor scale of an amax), compiled by fpxc
// for sm_90a and sm_80 from test/gpu/specs/gs_*.mlir:
//  - on its own (a one-thread kernel): every edge value and 4096 random fp32
//    patterns (negative, NaN, inf, subnormal) give num::nvfp4GlobalScale's
//    bits (NaN for NaN);
//  - fused into NVFP4 casts with a given amax (rows with stochastic
//    rounding, 16x1 columns, 16x16 tiles): for given amaxes of either sign,
//    0, inf and tiny values, the codes, scales and g equal num::quantize with
//    that amax byte for byte; an empty input (no cast CTA runs) still gets g;
//  - NVFP4 over a batch of matrices with one given amax per matrix (rn and
//    rs) in one launch, against num::quantize with those amaxes, g per
//    matrix stored by each matrix's first CTA; matrices the kernel cannot
//    take are refused by the launch checks; fpx.global_scale of a rank-1
//    amax on its own; fpx.amax per matrix feeding that cast (two passes).
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Packing.h"
#include "fpx/Numerics/Quantize.h"

#include <algorithm>
#include <array>

using namespace fpx;
using namespace fpx::gputest;

namespace {

/// The launch's g output against the core's rule for `amax`.
void expectGlobalScale(float got, float amax) {
  float want = num::nvfp4GlobalScale(amax);
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << "amax " << amax << ": got " << got;
    return;
  }
  uint32_t g, w;
  std::memcpy(&g, &got, 4);
  std::memcpy(&w, &want, 4);
  EXPECT_EQ(g, w) << "amax " << amax << " (bits 0x" << std::hex
                  << [&] { uint32_t a; std::memcpy(&a, &amax, 4); return a; }()
                  << "): got " << got << " want " << want;
}

class GlobalScaleKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(GlobalScaleKernels, StandaloneMatchesTheCore) {
  FPX_REQUIRE_TARGET(GetParam());
  FPX_LOAD_ARTIFACT(module, GetParam(), "gs_standalone");
  const rt::Function &f = module->function("gs_standalone");
  std::vector<float> amaxes = {0.0f, -0.0f, 1.0f, -1.0f, 2688.0f, 15.0f, -15.0f,
                               INFINITY, -INFINITY, FLT_MAX, -FLT_MAX,
                               std::nanf(""), -std::nanf(""), 1e-44f,
                               std::ldexp(1.0f, -149), 2688.0f * std::ldexp(1.0f, -149),
                               2687.0f * std::ldexp(1.0f, -149), std::ldexp(1.0f, -126)};
  std::mt19937 rng(7);
  for (int i = 0; i < 4096; ++i) {
    uint32_t u = rng();
    float a;
    std::memcpy(&a, &u, 4);
    amaxes.push_back(a);
  }
  DeviceBuffer in(4), out(4);
  for (float a : amaxes) {
    in.upload(std::vector<float>{a});
    out.poison();
    f.launch(nullptr, {rt::TensorRef(in.Ptr, rt::DType::F32, {})},
             {rt::TensorRef(out.Ptr, rt::DType::F32, {})}, {});
    FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
    expectGlobalScale(out.download<float>(1)[0], a);
  }
}

TEST_P(GlobalScaleKernels, StandalonePerMatrixMatchesTheCore) {
  // fpx.global_scale of a rank-1 amax: one thread a value, over more values
  // than a CTA has threads, and none for an empty one.
  FPX_REQUIRE_TARGET(GetParam());
  FPX_LOAD_ARTIFACT(module, GetParam(), "gs_standalone_many");
  const rt::Function &f = module->function("gs_standalone_many");
  std::vector<float> amaxes = {0.0f, -0.0f, 1.0f, 2688.0f, INFINITY, -INFINITY, FLT_MAX,
                               std::nanf(""), 1e-44f, std::ldexp(1.0f, -149)};
  std::mt19937 rng(9);
  while (amaxes.size() < 1000) {
    uint32_t u = rng();
    float a;
    std::memcpy(&a, &u, 4);
    amaxes.push_back(a);
  }
  for (size_t n : {amaxes.size(), size_t(1), size_t(0)}) {
    DeviceBuffer in(std::max<size_t>(n, 1) * 4), out(std::max<size_t>(n, 1) * 4);
    if (n)
      in.upload(std::vector<float>(amaxes.begin(), amaxes.begin() + n));
    out.poison();
    std::vector<int64_t> shape = {int64_t(n)};
    f.launch(nullptr, {rt::TensorRef(in.Ptr, rt::DType::F32, shape)},
             {rt::TensorRef(out.Ptr, rt::DType::F32, shape)}, {});
    FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
    std::vector<float> g = out.download<float>(std::max<size_t>(n, 1));
    for (size_t i = 0; i < n; ++i)
      expectGlobalScale(g[i], amaxes[i]);
  }
}

struct FusedCase {
  const char *name;
  int64_t blockRows, blockCols;
  bool transposed; // column blocks: the kernel writes the transpose's row blocks
  bool seeded;
};

const FusedCase kFused[] = {
    {"gs_nvfp4_rows_rs", 1, 16, false, true},
    {"gs_nvfp4_cols", 16, 1, true, false},
    {"gs_nvfp4_16x16", 16, 16, false, false},
};

void runFused(const FusedCase &c, const std::string &target, int64_t rows,
              int64_t cols, float amax, uint32_t dataSeed) {
  SCOPED_TRACE(std::string(c.name) + " " + target + " " + std::to_string(rows) + "x" +
               std::to_string(cols) + " amax " + std::to_string(amax));
  auto module = rt::Module::load((artifactDir(target) / (std::string(c.name) + ".json")).string());
  const rt::Function &f = module->function(c.name);
  std::vector<uint16_t> bits = bf16TestData(rows, cols, 16, dataSeed);
  HostInput host = widenInput(bits, In::BF16, dataSeed);
  uint64_t seed = 0x9e3779b9ull + dataSeed;

  // Reference: num::quantize with the given amax, on the transpose for
  // column blocks.
  std::vector<float> x = host.values;
  int64_t r = rows, k = cols;
  num::QuantSpec spec;
  spec.elem = num::e2m1fn();
  spec.scaleKind = num::ScaleKind::NVFP4;
  spec.rounding = c.seeded ? num::Rounding::RS : num::Rounding::RN;
  spec.seed = seed;
  spec.nvfp4TensorAmax = {amax};
  spec.blockRows = c.blockRows;
  spec.blockCols = c.blockCols;
  if (c.transposed) {
    std::vector<float> t(x.size());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        t[j * rows + i] = x[i * cols + j];
    x = std::move(t);
    std::swap(r, k);
    spec.blockRows = 1;
    spec.blockCols = c.blockRows;
  }
  num::Quantized q = num::quantize(x.data(), 1, r, k, spec);
  std::vector<uint8_t> wantData = num::packFp4x2(q.codes.data(), q.codes.size());

  std::vector<int64_t> shape = {rows, cols};
  auto shapes = f.outputShapes({shape, {}});
  DeviceBuffer in(std::max<size_t>(host.bytes.size(), 1)), a(4);
  if (!host.bytes.empty())
    in.upload(host.bytes);
  a.upload(std::vector<float>{amax});
  PoisonedOutputs po = poisonedOutputs(f, shapes);
  std::vector<rt::Scalar> scalars;
  if (c.seeded)
    scalars.push_back(rt::Scalar(static_cast<int64_t>(seed)));
  f.launch(nullptr,
           {rt::TensorRef(in.Ptr, rt::DType::BF16, shape), rt::TensorRef(a.Ptr, rt::DType::F32, {})},
           po.refs, scalars);
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  auto gotData = po.buffers[0]->download<uint8_t>(po.buffers[0]->Bytes);
  auto gotScales = po.buffers[1]->download<uint8_t>(po.buffers[1]->Bytes);
  float g = po.buffers[2]->download<float>(1)[0];
  if (rows > 0 && cols > 0) {
    expectSameBytes(gotData, wantData, "data");
    expectSameBytes(gotScales, q.scaleCodes, "scale");
    expectGlobalScale(g, amax);
    uint32_t gb, wb;
    std::memcpy(&gb, &g, 4);
    std::memcpy(&wb, &q.globalScales[0], 4);
    EXPECT_EQ(gb, wb) << "g against num::quantize's";
  } else {
    expectGlobalScale(g, amax); // written by the empty-input kernel
  }
}

TEST_P(GlobalScaleKernels, FusedIntoNvfp4CastsMatchesTheCore) {
  FPX_REQUIRE_TARGET(GetParam());
  const float amaxes[] = {3.0f, -3.0f, 2688.0f, 1e30f, 0.0f, INFINITY, -INFINITY,
                          1e-40f, std::ldexp(1.0f, -149)};
  uint32_t dataSeed = 1;
  for (const FusedCase &c : kFused) {
    for (float amax : amaxes)
      runFused(c, GetParam(), 256, 512, amax, dataSeed++);
    runFused(c, GetParam(), 1024, 4096, 5.5f, dataSeed++); // many CTAs
    runFused(c, GetParam(), 0, 512, 7.0f, dataSeed++);     // no cast CTA
    runFused(c, GetParam(), 0, 512, 0.0f, dataSeed++);
  }
}

/// NVFP4 over E matrices with one given amax per matrix, in one launch:
/// codes and scales equal num::quantize with nvfp4TensorAmax = the amaxes
/// (each matrix its own g; rs bits numbered over the whole batch).
void runPerMatrix(const char *name, bool seeded, const std::string &target,
                  std::vector<float> amaxes, int64_t rows, int64_t cols,
                  uint32_t dataSeed) {
  const int64_t batch = static_cast<int64_t>(amaxes.size());
  SCOPED_TRACE(std::string(name) + " " + target + " " + std::to_string(batch) + "x" +
               std::to_string(rows) + "x" + std::to_string(cols));
  auto module = rt::Module::load((artifactDir(target) / (std::string(name) + ".json")).string());
  const rt::Function &f = module->function(name);
  std::vector<uint16_t> bits = bf16TestData(batch * rows, cols, 16, dataSeed);
  HostInput host = widenInput(bits, In::BF16, dataSeed);
  uint64_t seed = 0x51ed0000ull + dataSeed;
  num::QuantSpec spec;
  spec.elem = num::e2m1fn();
  spec.scaleKind = num::ScaleKind::NVFP4;
  spec.blockRows = 1;
  spec.blockCols = 16;
  spec.rounding = seeded ? num::Rounding::RS : num::Rounding::RN;
  spec.seed = seed;
  spec.nvfp4TensorAmax = amaxes;
  num::Quantized q = num::quantize(host.values.data(), batch, rows, cols, spec);
  std::vector<uint8_t> wantData = num::packFp4x2(q.codes.data(), q.codes.size());

  std::vector<int64_t> shape = {batch, rows, cols}, amaxShape = {batch};
  auto shapes = f.outputShapes({shape, amaxShape});
  DeviceBuffer in(host.bytes.size()), a(amaxes.size() * 4);
  in.upload(host.bytes);
  a.upload(amaxes);
  PoisonedOutputs po = poisonedOutputs(f, shapes);
  std::vector<rt::Scalar> scalars;
  if (seeded)
    scalars.push_back(rt::Scalar(static_cast<int64_t>(seed)));
  f.launch(nullptr,
           {rt::TensorRef(in.Ptr, rt::DType::BF16, shape),
            rt::TensorRef(a.Ptr, rt::DType::F32, amaxShape)},
           po.refs, scalars);
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  auto gotData = po.buffers[0]->download<uint8_t>(po.buffers[0]->Bytes);
  auto gotScales = po.buffers[1]->download<uint8_t>(po.buffers[1]->Bytes);
  expectSameBytes(gotData, wantData, "data");
  expectSameBytes(gotScales, q.scaleCodes, "scale");
  // g per matrix, stored by each matrix's first CTA (fpx.global_scale fused)
  ASSERT_EQ(po.buffers.size(), 3u);
  std::vector<float> g = po.buffers[2]->download<float>(amaxes.size());
  for (size_t e = 0; e < amaxes.size(); ++e) {
    SCOPED_TRACE("matrix " + std::to_string(e));
    expectGlobalScale(g[e], amaxes[e]);
  }
}

TEST_P(GlobalScaleKernels, PerMatrixAmaxMatchesTheCore) {
  FPX_REQUIRE_TARGET(GetParam());
  // Each matrix a different g, from amaxes unrelated to the data as delayed
  // scaling has them (codes saturate where the data exceeds them): moderate,
  // small, huge, 0 (g = 1), tiny (g = 2^-149) and negative (its magnitude
  // counts).
  const std::vector<float> amaxes = {448.0f, 3.0f, 1e30f, 0.0f, 1e-40f, -7.5f};
  uint32_t dataSeed = 100;
  for (bool seeded : {false, true}) {
    const char *name = seeded ? "gs_nvfp4_experts_rs" : "gs_nvfp4_experts";
    // one 8192-element tile a matrix (on sm_90 a CTA casts two: two
    // matrices)
    runPerMatrix(name, seeded, GetParam(), amaxes, 64, 128, dataSeed++);
    // three tiles a matrix: on sm_90, CTAs of two tiles straddle two
    // matrices, and the ninth tile's CTA has its second one past the end
    runPerMatrix(name, seeded, GetParam(), {5.5f, 900.0f, 2688.0f}, 96, 256, dataSeed++);
    // 64 tiles a matrix (32 CTAs on sm_90, which takes two tiles a CTA under
    // rn and rs)
    runPerMatrix(name, seeded, GetParam(), {1.0f, 2.0f}, 1024, 512, dataSeed++);
  }
}

TEST_P(GlobalScaleKernels, PerMatrixTwoPassesMatchTheCore) {
  // fpx.amax per matrix, then the cast reading each matrix's: the amaxes,
  // the codes, the scales and g per matrix against num::quantize with each
  // matrix's own amax (its default for a batch).
  FPX_REQUIRE_TARGET(GetParam());
  FPX_LOAD_ARTIFACT(module, GetParam(), "gs_nvfp4_experts_two_level");
  const rt::Function &f = module->function("gs_nvfp4_experts_two_level");
  uint32_t dataSeed = 300;
  for (auto [batch, rows, cols] : {std::array<int64_t, 3>{3, 64, 128},
                                   std::array<int64_t, 3>{5, 96, 256},
                                   std::array<int64_t, 3>{2, 1024, 512}}) {
    SCOPED_TRACE(std::to_string(batch) + "x" + std::to_string(rows) + "x" + std::to_string(cols));
    std::vector<uint16_t> bits = bf16TestData(batch * rows, cols, 16, dataSeed);
    int64_t per = rows * cols;
    // each matrix its own amax (the data's inf and +-max would give most of
    // them the same), no NaN (it makes its whole matrix NaN); matrix 1 all
    // zeros (g = 1)
    distinctMatrixAmaxes(bits, batch, per);
    std::fill(bits.begin() + per, bits.begin() + 2 * per, uint16_t(0));
    HostInput host = widenInput(bits, In::BF16, dataSeed++);
    num::QuantSpec spec;
    spec.elem = num::e2m1fn();
    spec.scaleKind = num::ScaleKind::NVFP4;
    spec.blockRows = 1;
    spec.blockCols = 16;
    num::Quantized q = num::quantize(host.values.data(), batch, rows, cols, spec);

    std::vector<int64_t> shape = {batch, rows, cols};
    auto shapes = f.outputShapes({shape});
    DeviceBuffer in(host.bytes.size());
    in.upload(host.bytes);
    PoisonedOutputs po = poisonedOutputs(f, shapes);
    f.launch(nullptr, {rt::TensorRef(in.Ptr, rt::DType::BF16, shape)}, po.refs, {});
    FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
    expectSameBytes(po.buffers[0]->download<uint8_t>(po.buffers[0]->Bytes),
                    num::packFp4x2(q.codes.data(), q.codes.size()), "data");
    expectSameBytes(po.buffers[1]->download<uint8_t>(po.buffers[1]->Bytes), q.scaleCodes, "scale");
    std::vector<float> g = po.buffers[2]->download<float>(batch);
    std::vector<float> a = po.buffers[3]->download<float>(batch);
    for (int64_t e = 0; e < batch; ++e) {
      SCOPED_TRACE("matrix " + std::to_string(e));
      float want = num::absMax(host.values.data() + e * per, static_cast<size_t>(per));
      EXPECT_EQ(std::memcmp(&a[e], &want, 4), 0) << "amax " << a[e] << " want " << want;
      expectGlobalScale(g[e], want);
      EXPECT_EQ(std::memcmp(&g[e], &q.globalScales[e], 4), 0) << "g against num::quantize's";
    }
  }
}

// The launch checks refuse what the one-launch kernel cannot do, before any
// GPU work: matrices that are not a multiple of a CTA's 8192 elements, and
// an amax count other than the number of matrices.
TEST(GlobalScaleKernelRecords, PerMatrixAmaxRefusesBadShapes) {
  FPX_LOAD_ARTIFACT(module, "sm_90a", "gs_nvfp4_experts");
  const rt::Function &f = module->function("gs_nvfp4_experts");
  auto launch = [&](std::vector<int64_t> shape, int64_t amaxes) {
    std::vector<int64_t> out = {shape[0], shape[1], shape[2] / 2},
                         scales = {shape[0], shape[1], shape[2] / 16};
    f.launch(nullptr,
             {rt::TensorRef(0, rt::DType::BF16, shape), rt::TensorRef(0, rt::DType::F32, {amaxes})},
             {rt::TensorRef(0, rt::DType::U8, out), rt::TensorRef(0, rt::DType::F8E4M3FN, scales),
              rt::TensorRef(0, rt::DType::F32, {amaxes})},
             {});
  };
  try {
    launch({4, 100, 64}, 4);
    ADD_FAILURE() << "a 100x64 matrix was taken";
  } catch (const rt::Error &e) {
    EXPECT_EQ(e.code(), rt::ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("multiple of 8192 elements"), std::string::npos)
        << e.what();
  }
  try {
    launch({4, 64, 128}, 3);
    ADD_FAILURE() << "3 amaxes for 4 matrices were taken";
  } catch (const rt::Error &e) {
    EXPECT_EQ(e.code(), rt::ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("one amax per matrix"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, GlobalScaleKernels, ::testing::Values("sm_90a", "sm_80"));

} // namespace
