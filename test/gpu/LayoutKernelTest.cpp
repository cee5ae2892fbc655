//===- LayoutKernelTest.cpp - standalone layout kernels vs the numerics core ===//
//
// fpx.swizzle_scales, fpx.pack / fpx.unpack (fp4x2, fp6 4+2, fp6 24-bit) and
// the standalone fpx.hadamard (bf16 / f16 / f32) compiled by fpxc, compared
// byte for byte with numerics/include/fpx/Numerics/{Packing,Hadamard}.h.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Hadamard.h"
#include "fpx/Numerics/Packing.h"

#include <algorithm>
#include <random>

using namespace fpx;
using namespace fpx::gputest;

namespace {

/// Runs function `fn` of artifact `artifact` on one uint8/16/32 input and
/// returns its single output's bytes.
template <typename T>
std::vector<uint8_t> run(const std::string &target, const char *artifact,
                         const char *fn, const std::vector<T> &in,
                         rt::DType type, std::vector<int64_t> shape) {
  auto path = artifactDir(target) / (std::string(artifact) + ".json");
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  auto module = rt::Module::load(path.string());
  const rt::Function &f = module->function(fn);
  auto outShapes = f.outputShapes({shape});
  rt::DType ot = f.info().Outputs[0].Type;
  int64_t count = 1;
  for (int64_t d : outShapes[0])
    count *= d;
  DeviceBuffer din(in.size() * sizeof(T)), dout(count * rt::dtypeSize(ot));
  din.upload(in);
  dout.poison();
  f.launch(nullptr, {rt::TensorRef(din.Ptr, type, shape)},
           {rt::TensorRef(dout.Ptr, ot, outShapes[0])});
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  return dout.download<uint8_t>(dout.Bytes);
}

/// fpx.swizzle_scales with group end rows `ends` of (rows, cols) scales.
std::vector<uint8_t> runGrouped(const std::string &target, const std::vector<uint8_t> &s,
                                int64_t rows, int64_t cols, const std::vector<int32_t> &ends) {
  auto path = artifactDir(target) / "l_swizzle_groups.json";
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  auto module = rt::Module::load(path.string());
  const rt::Function &f = module->function("l_swizzle_groups");
  std::vector<int64_t> sShape = {rows, cols}, eShape = {static_cast<int64_t>(ends.size())};
  auto outShapes = f.outputShapes({sShape, eShape});
  int64_t count = outShapes[0][0] * outShapes[0][1];
  DeviceBuffer ds(s.size()), de(ends.size() * 4), dout(count);
  ds.upload(s);
  de.upload(ends);
  dout.poison();
  f.launch(nullptr,
           {rt::TensorRef(ds.Ptr, rt::DType::F8E8M0FNU, sShape),
            rt::TensorRef(de.Ptr, rt::DType::I32, eShape)},
           {rt::TensorRef(dout.Ptr, rt::DType::F8E8M0FNU, outShapes[0])});
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  return dout.download<uint8_t>(dout.Bytes);
}

size_t mismatches(const std::vector<uint8_t> &got, const std::vector<uint8_t> &want,
                  const std::string &what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    if (got[i] != want[i] && bad++ < 5)
      ADD_FAILURE() << what << ": byte " << i << " got 0x" << std::hex << int(got[i])
                    << " want 0x" << int(want[i]);
  return bad;
}

/// The grouped swizzle of (rows, cols) scales `s` on `target` equals the
/// numerics core's, zero up to the kernel's upper bound of rows + 128 a
/// group.
void expectGrouped(const std::string &target, const std::vector<uint8_t> &s, int64_t rows,
                   int64_t cols, const std::vector<int32_t> &ends, const std::string &what) {
  auto want = num::swizzleBlockedGrouped(s.data(), rows, cols, ends, 0);
  int64_t upper = (rows + 128 * static_cast<int64_t>(ends.size()) + 127) / 128 * 128;
  want.resize(static_cast<size_t>(upper * ((cols + 3) / 4 * 4)), 0);
  EXPECT_EQ(mismatches(runGrouped(target, s, rows, cols, ends), want, what), 0u);
}

std::vector<uint8_t> randomCodes(size_t n, int bits, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> c(n);
  for (uint8_t &x : c)
    x = rng() & ((1u << bits) - 1);
  return c;
}

class LayoutKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(LayoutKernels, MatchTheNumericsCoreBitForBit) {
  const std::string t = GetParam();
  FPX_REQUIRE_TARGET(t);
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{300, 512}, {7, 4096}, {1024, 48}}) {
    std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
    // Swizzle: scales of a (rows, cols/32)-ish matrix, ragged both ways.
    {
      int64_t sr = rows, sc = cols / 16 + 1;
      auto s = randomCodes(sr * sc, 8, 1);
      auto want = num::swizzleBlocked(s.data(), sr, sc, 0);
      EXPECT_EQ(mismatches(run(t, "l_swizzle", "l_swizzle", s, rt::DType::F8E8M0FNU, {sr, sc}),
                           want, "swizzle " + shape), 0u);
    }
    // Grouped swizzle (MoE): each group of rows padded and tiled on its
    // own, groups one after another, zero past the last (the result has
    // the upper bound of rows + 128 a group). Empty groups, a group of
    // exactly 128 rows, ragged ends.
    {
      int64_t sr = rows, sc = cols / 32 + 3;
      auto s = randomCodes(sr * sc, 8, 5);
      std::vector<int32_t> ends;
      for (int64_t e : {int64_t(0), sr / 3, sr / 3, std::min<int64_t>(sr / 3 + 128, sr), sr})
        ends.push_back(static_cast<int32_t>(e));
      expectGrouped(t, s, sr, sc, ends, "grouped swizzle " + shape);
    }
    // Many groups (each CTA scans the ends 256 at a time, 32 a warp): 77
    // and 300 random ends, some repeated (empty groups), the last the row
    // count.
    for (int groups : {77, 300}) {
      int64_t sr = rows * 9, sc = 5;
      auto s = randomCodes(sr * sc, 8, 6);
      std::mt19937 rng(7 + groups);
      std::vector<int32_t> ends;
      for (int g = 0; g < groups - 1; ++g)
        ends.push_back(static_cast<int32_t>(rng() % (sr + 1)));
      std::sort(ends.begin(), ends.end());
      ends.push_back(static_cast<int32_t>(sr));
      expectGrouped(t, s, sr, sc, ends,
                    "grouped swizzle, " + std::to_string(groups) + " groups, " + shape);
    }
    // Across several 64-column strips, the last one partial: rows of whole
    // words (cols % 4 == 0, the kernels' word loads) and rows of 90 bytes
    // (funnel shifts of aligned words, halves in the tensor's last band).
    for (int64_t sc : {196, 90}) {
      int64_t sr = rows + 5;
      auto s = randomCodes(sr * sc, 8, 8);
      auto want = num::swizzleBlocked(s.data(), sr, sc, 0);
      EXPECT_EQ(mismatches(run(t, "l_swizzle", "l_swizzle", s, rt::DType::F8E8M0FNU, {sr, sc}),
                           want, "swizzle of rows of " + std::to_string(sc) + ", " + shape), 0u);
      std::vector<int32_t> ends = {static_cast<int32_t>(sr / 2), static_cast<int32_t>(sr / 2),
                                   static_cast<int32_t>(sr)};
      expectGrouped(t, s, sr, sc, ends,
                    "grouped swizzle of rows of " + std::to_string(sc) + ", " + shape);
    }
    // fp4x2 both ways.
    {
      auto c = randomCodes(rows * cols, 4, 2);
      auto packed = num::packFp4x2(c.data(), c.size());
      EXPECT_EQ(mismatches(run(t, "l_pack_fp4", "l_pack_fp4", c, rt::DType::U8, {rows, cols}),
                           packed, "pack fp4x2 " + shape), 0u);
      EXPECT_EQ(mismatches(run(t, "l_pack_fp4", "l_unpack_fp4", packed, rt::DType::U8,
                               {rows, cols / 2}),
                           c, "unpack fp4x2 " + shape), 0u);
    }
    // fp6: planes (rows of 16k columns), contiguous 24-bit, interleaved.
    for (auto [fn, unfn, layout] :
         {std::tuple{"l_pack_fp6_planes", "l_unpack_fp6_planes", num::Fp6Layout::Planes},
          std::tuple{"l_pack_fp6_24", "l_unpack_fp6_24", num::Fp6Layout::Contiguous24},
          std::tuple{"l_pack_fp6_interleaved", "l_unpack_fp6_interleaved",
                     num::Fp6Layout::Interleaved4p2}}) {
      auto c = randomCodes(rows * cols, 6, 3);
      auto packed = num::packFp6(c.data(), rows, cols, layout);
      EXPECT_EQ(mismatches(run(t, "l_pack_fp6", fn, c, rt::DType::U8, {rows, cols}), packed,
                           std::string(fn) + " " + shape), 0u);
      EXPECT_EQ(mismatches(run(t, "l_pack_fp6", unfn, packed, rt::DType::U8,
                               {rows, cols / 4 * 3}),
                           c, std::string(unfn) + " " + shape), 0u);
    }
    // Hadamard in bf16, f32 and f16 (fp32 butterflies, then RNE to the type).
    if (cols % 128 == 0) {
      auto bits = bf16TestData(rows, cols, 32, 4);
      std::vector<float> x(bits.size());
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = num::bf16ToFloat(bits[i]);
      {
        auto h = x;
        num::randomHadamard(h.data(), rows, cols, 16, 9);
        std::vector<uint16_t> want16(h.size());
        for (size_t i = 0; i < h.size(); ++i)
          want16[i] = num::floatToBf16(h[i], num::Rounding::RN, num::Overflow::ToInfOrNaN);
        std::vector<uint8_t> want(want16.size() * 2);
        std::memcpy(want.data(), want16.data(), want.size());
        EXPECT_EQ(mismatches(run(t, "l_hadamard", "l_hadamard_bf16", bits, rt::DType::BF16,
                                 {rows, cols}),
                             want, "hadamard bf16 " + shape), 0u);
      }
      {
        auto h = x;
        num::randomHadamard(h.data(), rows, cols, 128, 1);
        std::vector<uint8_t> want(h.size() * 4);
        std::memcpy(want.data(), h.data(), want.size());
        auto got = run(t, "l_hadamard", "l_hadamard_f32", x, rt::DType::F32, {rows, cols});
        // NaN payloads are the GPU's own: compare NaN as NaN.
        for (size_t i = 0; i < h.size(); ++i)
          if (std::isnan(h[i])) {
            float g;
            std::memcpy(&g, &got[4 * i], 4);
            if (std::isnan(g))
              std::memcpy(&want[4 * i], &got[4 * i], 4);
          }
        EXPECT_EQ(mismatches(got, want, "hadamard f32 " + shape), 0u);
      }
      {
        std::vector<uint16_t> hbits(x.size());
        std::vector<float> hx(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          hbits[i] = num::floatToHalf(x[i], num::Rounding::RN, num::Overflow::ToInfOrNaN);
          hx[i] = num::halfToFloat(hbits[i]);
        }
        num::randomHadamard(hx.data(), rows, cols, 32, 4);
        std::vector<uint16_t> want16(hx.size());
        for (size_t i = 0; i < hx.size(); ++i)
          want16[i] = num::floatToHalf(hx[i], num::Rounding::RN, num::Overflow::ToInfOrNaN);
        std::vector<uint8_t> want(want16.size() * 2);
        std::memcpy(want.data(), want16.data(), want.size());
        EXPECT_EQ(mismatches(run(t, "l_hadamard", "l_hadamard_f16", hbits, rt::DType::F16,
                                 {rows, cols}),
                             want, "hadamard f16 " + shape), 0u);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, LayoutKernels, ::testing::Values("sm_90a", "sm_80"));

} // namespace
