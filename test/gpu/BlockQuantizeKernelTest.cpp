//===- BlockQuantizeKernelTest.cpp - 2-D block casts vs the numerics core -===//
//
// Every spec in test/gpu/specs/q2d_*.mlir (fpx.quantize with 2-D blocks
// [Br, Bc]: NVFP4 16x16 two-level, fp8 128x128 with f32 scales, MXFP8 32x32,
// stochastic rounding, a 3-D (E, M, K) input), compiled by fpxc for sm_90a
// and sm_80, runs on the GPU and must equal num::quantize with blockRows = Br,
// blockCols = Bc byte for byte: codes (fp4x2 packed), scales, tensor amax.
//
// Two inputs per shape: bf16TestData (row segments of random magnitude, with
// inf, NaN, +-0, subnormals, +-max) and one with a random magnitude per 2-D
// block, an all-zero block and a block whose only non-zero is a subnormal.
// Shapes span several CTAs along both dims and, where the block allows,
// end in a partial CTA tile along K.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Packing.h"
#include "fpx/Numerics/Quantize.h"

#include <sstream>

using namespace fpx;
using namespace fpx::gputest;

namespace {


struct Case {
  const char *name;
  In in;
  num::Format elem;
  num::ScaleKind kind;
  num::ScaleRule rule;
  int64_t blockRows, blockCols;
  num::Rounding rounding;
  bool fp4x2;
  bool tensorAmax; // NVFP4 two-level: the spec computes and returns the amax
  bool seeded;
  bool experts;    // rank-3 (E, M, K) input
  /// E8M0: what a block holding inf or NaN gives (the spec's `nonfinite`).
  num::NonFinite nonFinite = num::NonFinite::NaN;
};

const Case kCases[] = {
    {"q2d_nvfp4_16x16", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, 16, num::Rounding::RN, true, true, false, false},
    {"q2d_nvfp4_16x16_rs", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, 16, num::Rounding::RS, true, true, true, false},
    {"q2d_fp8_128x128", In::BF16, num::e4m3fn(), num::ScaleKind::FP32, num::ScaleRule::Floor, 128, 128, num::Rounding::RN, false, false, false, false},
    {"q2d_mxfp8_32x32_floor", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, 32, num::Rounding::RN, false, false, false, false},
    {"q2d_fp8_128x128_e3d_f32", In::F32, num::e4m3fn(), num::ScaleKind::FP32, num::ScaleRule::Floor, 128, 128, num::Rounding::RN, false, false, false, true},
    {"q2d_mxfp8_32x32_floor_sat", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, 32, num::Rounding::RN, false, false, false, false, num::NonFinite::Saturate},
};

/// bf16 data with one random magnitude per 2-D block, no specials, an
/// all-zero block and a block holding only a subnormal (when there are
/// enough blocks).
std::vector<uint16_t> blockMagnitudeData(int64_t rows, int64_t cols, int64_t br,
                                         int64_t bc, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> expo(-40, 40);
  int64_t sr = rows / br, sc = cols / bc;
  std::vector<float> mag(static_cast<size_t>(sr * sc));
  for (float &m : mag)
    m = std::ldexp(1.0f, expo(rng));
  std::vector<uint16_t> x(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      x[r * cols + c] = toBf16Bits(normal(rng) * mag[(r / br) * sc + c / bc]);
  if (sr * sc >= 3) {
    for (int64_t r = 0; r < br; ++r)
      for (int64_t c = 0; c < bc; ++c) {
        x[r * cols + c] = 0;                                   // block (0, 0)
        x[r * cols + bc + c] = (r == br - 1 && c == 3) ? 0x8001 : 0; // (0, 1)
      }
  }
  return x;
}

struct Expected {
  std::vector<uint8_t> data, scales;
  float amax = 0;
};

Expected reference(const Case &c, const std::vector<float> &x, int64_t batch,
                   int64_t rows, int64_t cols, uint64_t seed) {
  num::QuantSpec spec;
  spec.elem = c.elem;
  spec.blockRows = c.blockRows;
  spec.blockCols = c.blockCols;
  spec.scaleKind = c.kind;
  spec.rule = c.rule;
  spec.rounding = c.rounding;
  spec.seed = seed;
  spec.nvfp4GlobalScale = c.tensorAmax;
  spec.nonFinite = c.nonFinite;
  num::Quantized q = num::quantize(x.data(), batch, rows, cols, spec);
  Expected e;
  e.data = c.fp4x2 ? num::packFp4x2(q.codes.data(), q.codes.size()) : q.codes;
  if (c.kind == num::ScaleKind::FP32) {
    e.scales.resize(q.scales.size() * 4);
    std::memcpy(e.scales.data(), q.scales.data(), e.scales.size());
  } else {
    e.scales = q.scaleCodes;
  }
  e.amax = num::absMax(x.data(), x.size());
  return e;
}

std::string hex(unsigned v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

void runCase(const Case &c, const std::string &target, int64_t rows,
             int64_t cols, uint32_t dataSeed, bool perBlockMagnitudes) {
  const int64_t br = c.blockRows, bc = c.blockCols;
  rows = std::max<int64_t>(br, (rows + br - 1) / br * br); // blocks divide M, K
  cols = std::max<int64_t>(bc, (cols + bc - 1) / bc * bc);
  int64_t batch = c.experts ? 3 : 1;
  std::string what = std::string(c.name) + " " + target + " " +
                     (c.experts ? std::to_string(batch) + "x" : "") +
                     std::to_string(rows) + "x" + std::to_string(cols) +
                     (perBlockMagnitudes ? " per-block magnitudes"
                                         : " bf16TestData with specials");
  SCOPED_TRACE(what);
  auto path = artifactDir(target) / (std::string(c.name) + ".json");
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "missing artifact " << path;
    return;
  }
  auto module = rt::Module::load(path.string());
  const rt::Function &f = module->function(c.name);

  std::vector<uint16_t> bits =
      perBlockMagnitudes ? blockMagnitudeData(batch * rows, cols, br, bc, dataSeed)
                         : bf16TestData(batch * rows, cols, bc, dataSeed);
  if (c.tensorAmax)
    dropNaNs(bits);
  HostInput host = widenInput(bits, c.in, dataSeed);
  uint64_t seed = 0x5eed2d00ull + dataSeed;
  Expected want = reference(c, host.values, batch, rows, cols, seed);

  std::vector<int64_t> inShape = c.experts ? std::vector<int64_t>{batch, rows, cols}
                                           : std::vector<int64_t>{rows, cols};
  auto outs = runCast(f, host, inShape,
                      c.seeded ? std::optional<uint64_t>(seed) : std::nullopt);
  const std::vector<uint8_t> &gotData = outs[0], &gotScales = outs[1];
  ASSERT_EQ(gotData.size(), want.data.size()) << "data bytes";
  ASSERT_EQ(gotScales.size(), want.scales.size()) << "scale bytes";

  // Mismatches, located: (batch, row, column) of the element or block.
  const int64_t elemsPerByte = c.fp4x2 ? 2 : 1;
  const int64_t rowBytes = cols / elemsPerByte;
  size_t bad = 0;
  for (size_t i = 0; i < gotData.size(); ++i) {
    if (gotData[i] == want.data[i] || bad++ >= 8)
      continue;
    int64_t r = int64_t(i) / rowBytes, col = int64_t(i) % rowBytes * elemsPerByte;
    ADD_FAILURE() << "data byte " << i << " (batch " << r / rows << ", row "
                  << r % rows << ", column " << col << ", block (" << (r % rows) / br
                  << ", " << col / bc << ")): got " << hex(gotData[i]) << " want "
                  << hex(want.data[i]) << (gotData[i] == 0xA5 ? " (never written)" : "");
  }
  EXPECT_EQ(bad, 0u) << "data mismatches of " << gotData.size() << " bytes";
  const size_t scaleBytes = c.kind == num::ScaleKind::FP32 ? 4 : 1;
  const int64_t scaleCols = cols / bc, scaleRows = rows / br;
  bad = 0;
  for (size_t i = 0; i < gotScales.size(); i += scaleBytes) {
    if (!std::memcmp(&gotScales[i], &want.scales[i], scaleBytes) || bad++ >= 8)
      continue;
    uint32_t g = 0, w = 0;
    std::memcpy(&g, &gotScales[i], scaleBytes);
    std::memcpy(&w, &want.scales[i], scaleBytes);
    int64_t s = int64_t(i / scaleBytes);
    ADD_FAILURE() << "scale " << s << " (batch " << s / (scaleRows * scaleCols)
                  << ", block row " << s / scaleCols % scaleRows << ", block column "
                  << s % scaleCols << "): got " << hex(g) << " want " << hex(w);
  }
  EXPECT_EQ(bad, 0u) << "scale mismatches of " << gotScales.size() / scaleBytes
                     << " scales";
  if (c.tensorAmax)
    expectAmaxBits(outs[2], want.amax);
}

class BlockQuantizeKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(BlockQuantizeKernels, MatchTheNumericsCoreBitForBit) {
  FPX_REQUIRE_TARGET(GetParam());
  for (const Case &c : kCases) {
    for (bool perBlock : {false, true}) {
      // Several CTAs along M and K; 640 and 2304 columns end in a partial
      // CTA tile for the 16x16 (1024 columns) and 32x32 (256) tilings; one
      // block row only; a large shape.
      runCase(c, GetParam(), 256, 640, 1, perBlock);
      runCase(c, GetParam(), 1024, 2304, 2, perBlock);
      runCase(c, GetParam(), c.blockRows, 3 * c.blockCols, 3, perBlock);
      if (!c.experts)
        runCase(c, GetParam(), 4096, 7168, 4, perBlock);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, BlockQuantizeKernels,
                         ::testing::Values("sm_90a", "sm_80"));

} // namespace
