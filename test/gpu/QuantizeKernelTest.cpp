//===- QuantizeKernelTest.cpp - fpxc cast kernels vs the numerics core ----===//
//
// Every spec in test/gpu/specs/q_*.mlir, compiled by fpxc for sm_90a (native
// fp8 cvt, the rest emulated) and for sm_80 (everything emulated; its PTX is
// JIT-compiled by the driver on newer GPUs), runs on the GPU and must equal
// the numerics core's reference quantizer byte for byte: codes, packing,
// scales, scale layout and the tensor amax. Inputs carry the values that
// break casts (inf, NaN, +-0, subnormals, +-max, all-zero blocks).
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Hadamard.h"
#include "fpx/Numerics/Packing.h"
#include "fpx/Numerics/Quantize.h"

using namespace fpx;
using namespace fpx::gputest;

namespace {

enum class Pack { None, Fp4x2, Fp6Split, Fp6Contiguous, Fp6Interleaved };

struct Case {
  const char *name;
  In in;
  num::Format elem;
  num::ScaleKind kind;
  num::ScaleRule rule;
  int64_t blockCols; // 0 = per tensor
  num::Rounding rounding;
  Pack pack;
  bool blockedScales;
  bool tensorAmax;     // NVFP4 two-level or per tensor: reads the tensor amax
  bool amaxOutput;     // the spec also returns the amax
  bool seeded;
  bool transposed = false; // column blocks [blockCols, 1], (K, M) output
  bool experts = false;    // rank-3 (E, M, K) input
  int hadamard = 0;        // fused random Hadamard transform size
  uint64_t hadamardSeed = 0;
  bool perRow = false;     // one scale a row (block [1, *]); blockCols 0
  /// E8M0: what a block holding inf or NaN gives (the spec's `nonfinite`).
  num::NonFinite nonFinite = num::NonFinite::NaN;
};

const Case kCases[] = {
    {"q_mxfp8_floor", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::None, false, false, false, false},
    {"q_mxfp8_rz", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RZ, Pack::None, false, false, false, false},
    {"q_mxfp8_ceil_f32", In::F32, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Ceil, 32, num::Rounding::RN, Pack::None, false, false, false, false},
    {"q_mxfp8_e5m2_even_f16", In::F16, num::e5m2(), num::ScaleKind::E8M0, num::ScaleRule::Even, 32, num::Rounding::RN, Pack::None, false, false, false, false},
    {"q_mxfp8_rceil_blocked", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::RCeil, 32, num::Rounding::RN, Pack::None, true, false, false, false},
    {"q_mxfp6_e2m3_4p2", In::BF16, num::e2m3fn(), num::ScaleKind::E8M0, num::ScaleRule::RCeil, 32, num::Rounding::RN, Pack::Fp6Split, false, false, false, false},
    {"q_mxfp6_e3m2_packed", In::BF16, num::e3m2fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::Fp6Contiguous, false, false, false, false},
    {"q_mxfp6_e2m3_interleaved", In::BF16, num::e2m3fn(), num::ScaleKind::E8M0, num::ScaleRule::RCeil, 32, num::Rounding::RN, Pack::Fp6Interleaved, false, false, false, false},
    {"q_mxfp6_e3m2_interleaved", In::BF16, num::e3m2fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::Fp6Interleaved, false, false, false, false},
    {"q_mxfp6_e2m3_bytes", In::BF16, num::e2m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::None, false, false, false, false},
    {"q_mxfp4", In::BF16, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::Fp4x2, false, false, false, false},
    {"q_nvfp4_single", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, num::Rounding::RN, Pack::Fp4x2, false, false, false, false},
    {"q_nvfp4_two_level", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, num::Rounding::RN, Pack::Fp4x2, false, true, true, false},
    {"q_nvfp4_rs", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, num::Rounding::RS, Pack::Fp4x2, false, true, true, true},
    {"q_mxfp8_rs", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RS, Pack::None, false, false, false, true},
    {"q_mxfp4_rs", In::BF16, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RS, Pack::Fp4x2, false, false, false, true},
    {"q_fp8_1x128", In::BF16, num::e4m3fn(), num::ScaleKind::FP32, num::ScaleRule::Floor, 128, num::Rounding::RN, Pack::None, false, false, false, false},
    {"q_fp8_per_tensor", In::BF16, num::e4m3fn(), num::ScaleKind::FP32, num::ScaleRule::Floor, 0, num::Rounding::RN, Pack::None, false, true, false, false},
    {"q_mxfp8_cols", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::None, false, false, false, false, true},
    {"q_mxfp8_cols_rceil_f32", In::F32, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::RCeil, 32, num::Rounding::RN, Pack::None, false, false, false, false, true},
    {"q_nvfp4_cols", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, num::Rounding::RN, Pack::Fp4x2, false, false, false, false, true},
    {"q_mxfp4_cols", In::BF16, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::Fp4x2, false, false, false, false, true},
    {"q_mxfp4_cols8", In::BF16, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 8, num::Rounding::RN, Pack::Fp4x2, false, false, false, false, true},
    {"q_mxfp8_cols8", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 8, num::Rounding::RN, Pack::None, false, false, false, false, true},
    {"q_fp8_cols128", In::BF16, num::e4m3fn(), num::ScaleKind::FP32, num::ScaleRule::Floor, 128, num::Rounding::RN, Pack::None, false, false, false, false, true},
    {"q_mxfp8_cols64_f16", In::F16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 64, num::Rounding::RN, Pack::None, false, false, false, false, true},
    {"q_mxfp4_cols64", In::BF16, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 64, num::Rounding::RN, Pack::Fp4x2, false, false, false, false, true},
    {"q_mxfp4_cols128_f32_rs", In::F32, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 128, num::Rounding::RS, Pack::Fp4x2, false, false, false, true, true},
    {"q_nvfp4_experts_rs", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, num::Rounding::RS, Pack::Fp4x2, false, true, true, true, true, true},
    {"q_mxfp8_cols_rs", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RS, Pack::None, false, false, false, true, true},
    // Column casts with blocked 128x4 scales: a column's run of four blocks
    // one word (32 rows), two words in two tiles (NVFP4 16 rows), byte by
    // byte (64 rows); per expert for 3-D; M / block not a multiple of 4 and
    // K not of 128 leave zero padding (the shapes below).
    {"q_mxfp8_cols_blocked", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::None, true, false, false, false, true},
    {"q_nvfp4_cols_blocked", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, num::Rounding::RN, Pack::Fp4x2, true, false, false, false, true},
    {"q_mxfp4_cols64_blocked_rs", In::F32, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 64, num::Rounding::RS, Pack::Fp4x2, true, false, false, true, true},
    {"q_mxfp8_experts_blocked", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::RCeil, 32, num::Rounding::RN, Pack::None, true, false, false, false, true, true},
    {"q_mxfp8_experts", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::RCeil, 32, num::Rounding::RN, Pack::None, false, false, false, false, true, true},
    {"q_nvfp4_rht_rs", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, num::Rounding::RS, Pack::Fp4x2, false, true, true, true, false, false, 16, 5},
    {"q_mxfp4_rht", In::BF16, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::Fp4x2, false, false, false, false, false, false, 32, 3},
    {"q_mxfp4_rht128", In::BF16, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::Fp4x2, false, false, false, false, false, false, 128, 7},
    {"q_nvfp4_rht64_rs", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 16, num::Rounding::RS, Pack::Fp4x2, false, true, true, true, false, false, 64, 9},
    {"q_mxfp8_rht128", In::F32, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::RCeil, 32, num::Rounding::RN, Pack::None, false, false, false, false, false, false, 128, 11},
    {"q_mxfp8_rht4", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::None, false, false, false, false, false, false, 4, 2},
    {"q_fp8_per_row", In::BF16, num::e4m3fn(), num::ScaleKind::FP32, num::ScaleRule::Floor, 0, num::Rounding::RN, Pack::None, false, false, false, false, false, false, 0, 0, true},
    {"q_fp8_e5m2_per_row_f32", In::F32, num::e5m2(), num::ScaleKind::FP32, num::ScaleRule::Floor, 0, num::Rounding::RN, Pack::None, false, false, false, false, false, false, 0, 0, true},
    {"q_fp8_per_row_experts", In::BF16, num::e4m3fn(), num::ScaleKind::FP32, num::ScaleRule::Floor, 0, num::Rounding::RN, Pack::None, false, false, false, false, false, true, 0, 0, true},
    {"q_e2m1_per_row_rs", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 0, num::Rounding::RS, Pack::Fp4x2, false, false, false, true, false, false, 0, 0, true},
    {"q_e2m1_per_row_two_level", In::BF16, num::e2m1fn(), num::ScaleKind::NVFP4, num::ScaleRule::Floor, 0, num::Rounding::RN, Pack::Fp4x2, false, true, true, false, false, false, 0, 0, true},
    {"q_e3m2_per_row_4p2", In::BF16, num::e3m2fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 0, num::Rounding::RN, Pack::Fp6Split, false, false, false, false, false, false, 0, 0, true},
    // nonfinite = saturate (the other E8M0 cases take the default: a block
    // holding inf gets scale 0xFF and NaN elements): rows, native rceil on
    // sm_100a (cvt.rp.satfinite.ue8m0x2), columns.
    {"q_mxfp8_floor_sat", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::None, false, false, false, false, false, false, 0, 0, false, num::NonFinite::Saturate},
    {"q_mxfp4_rceil_sat", In::BF16, num::e2m1fn(), num::ScaleKind::E8M0, num::ScaleRule::RCeil, 32, num::Rounding::RN, Pack::Fp4x2, false, false, false, false, false, false, 0, 0, false, num::NonFinite::Saturate},
    {"q_mxfp8_cols_sat", In::BF16, num::e4m3fn(), num::ScaleKind::E8M0, num::ScaleRule::Floor, 32, num::Rounding::RN, Pack::None, false, false, false, false, true, false, 0, 0, false, num::NonFinite::Saturate},
};

struct Expected {
  std::vector<uint8_t> data;
  std::vector<uint8_t> scales; // raw bytes (codes or fp32)
  float amax = 0;
};

/// `x` is (batch, rows, cols); a transposed case quantizes each matrix's
/// transpose with row blocks, which is what its kernel writes.
Expected reference(const Case &c, std::vector<float> x, int64_t batch,
                   int64_t rows, int64_t cols, uint64_t seed) {
  if (c.hadamard) // the transform the kernel fuses, then the cast
    num::randomHadamard(x.data(), batch * rows, cols, c.hadamard, c.hadamardSeed);
  if (c.transposed) {
    std::vector<float> t(x.size());
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k)
          t[(b * cols + k) * rows + r] = x[(b * rows + r) * cols + k];
    x = std::move(t);
    std::swap(rows, cols);
  }
  num::QuantSpec spec;
  spec.elem = c.elem;
  spec.blockRows = c.blockCols || c.perRow ? 1 : 0; // {1, 0}: per row
  spec.blockCols = c.blockCols;
  spec.scaleKind = c.kind;
  spec.rule = c.rule;
  spec.rounding = c.rounding;
  spec.seed = seed;
  spec.nvfp4GlobalScale = c.tensorAmax;
  spec.nonFinite = c.nonFinite;
  num::Quantized q = num::quantize(x.data(), batch, rows, cols, spec);
  Expected e;
  switch (c.pack) {
  case Pack::None:
    e.data = q.codes;
    break;
  case Pack::Fp4x2:
    e.data = num::packFp4x2(q.codes.data(), q.codes.size());
    break;
  case Pack::Fp6Split:
    e.data = num::packFp6(q.codes.data(), rows, cols, num::Fp6Layout::Planes);
    break;
  case Pack::Fp6Contiguous:
    e.data = num::packFp6(q.codes.data(), rows, cols, num::Fp6Layout::Contiguous24);
    break;
  case Pack::Fp6Interleaved:
    e.data = num::packFp6(q.codes.data(), rows, cols, num::Fp6Layout::Interleaved4p2);
    break;
  }
  if (c.kind == num::ScaleKind::FP32) {
    e.scales.resize(q.scales.size() * 4);
    std::memcpy(e.scales.data(), q.scales.data(), e.scales.size());
  } else if (c.blockedScales) { // each matrix's scales in its own 128x4 tiles
    const size_t per = static_cast<size_t>(q.scaleRows * q.scaleCols);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<uint8_t> m =
          num::swizzleBlocked(q.scaleCodes.data() + b * per, q.scaleRows, q.scaleCols, 0);
      e.scales.insert(e.scales.end(), m.begin(), m.end());
    }
  } else {
    e.scales = q.scaleCodes;
  }
  e.amax = num::absMax(x.data(), x.size());
  return e;
}

/// Runs one case for one target and shape; returns the number of mismatches.
void runCase(const Case &c, const std::string &target, int64_t rows, int64_t cols,
             uint32_t dataSeed) {
  int64_t batch = c.experts ? 3 : 1;
  if (c.transposed && rows % c.blockCols)
    rows = (rows / c.blockCols + 1) * c.blockCols; // column blocks divide M
  SCOPED_TRACE(std::string(c.name) + " " + target + " " + std::to_string(rows) +
               "x" + std::to_string(cols));
  auto path = artifactDir(target) / (std::string(c.name) + ".json");
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "missing artifact " << path;
    return;
  }
  auto module = rt::Module::load(path.string());
  const rt::Function &f = module->function(c.name);

  // Inputs: bf16 patterns (with specials; without NaN where a tensor amax
  // would make every scale NaN), widened exactly for the reference.
  int64_t blockLen = c.blockCols ? c.blockCols : 32;
  std::vector<uint16_t> bits = bf16TestData(batch * rows, cols, blockLen, dataSeed);
  if (c.tensorAmax)
    dropNaNs(bits);
  HostInput host = widenInput(bits, c.in, dataSeed);
  uint64_t seed = 0x5eed0000ull + dataSeed;
  Expected want = reference(c, host.values, batch, rows, cols, seed);

  std::vector<int64_t> inShape = c.experts ? std::vector<int64_t>{batch, rows, cols}
                                           : std::vector<int64_t>{rows, cols};
  auto outs = runCast(f, host, inShape,
                      c.seeded ? std::optional<uint64_t>(seed) : std::nullopt);
  expectSameBytes(outs[0], want.data, "data");
  expectSameBytes(outs[1], want.scales, "scale");
  if (c.amaxOutput)
    expectAmaxBits(outs[2], want.amax);
  if (outs.size() > 3) // the NVFP4 global scale (fpx.global_scale)
    expectAmaxBits(outs[3], num::nvfp4GlobalScale(want.amax));
}

class QuantizeKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizeKernels, MatchTheNumericsCoreBitForBit) {
  FPX_REQUIRE_TARGET(GetParam());
  CaseFilter selected;
  for (const Case &c : kCases) {
    if (!selected(c.name))
      continue;
    // A ragged row count exercises the blocked layout's padding; the large
    // shape spans many CTAs and the unrolled vectors' tails.
    runCase(c, GetParam(), 300, 512, 1);
    runCase(c, GetParam(), 1024, 4096, 2);
    runCase(c, GetParam(), 7, 640, 3); // a partial 256-column tile
    // Column casts of fewer than 10 128 x 128 tiles an SM take the narrow
    // tile's kernel where the cast has one (bf16 E8M0 rn on sm_90a), those
    // above: 1536 tiles launch the wide one on GPUs of up to 153 SMs.
    if (c.transposed)
      runCase(c, GetParam(), c.experts ? 1024 : 2048, c.experts ? 8192 : 12288, 5);
    // Blocked scales padded both ways: K = 200 scale rows (to 256), 96 rows
    // of blocks of 16 / 32 / 64 (6 / 3 / 2 scale columns, to 8 / 4 / 4).
    if (c.transposed && c.blockedScales)
      runCase(c, GetParam(), 96, 200, 6);
    if (!c.perRow)
      continue;
    // Per row (with the shapes above: teams of 8 to 64 threads for rows of
    // up to 2048 elements, 512 and 640 of them; rows of 4096 staged two a
    // CTA): rows past the last CTA's, one vector a row; rows staged in
    // shared memory, two a CTA (2064: just past the teams' 2048; 3072 with
    // a CTA of one row at the end) and one (4104: just past two a CTA;
    // 7168, 8208, 20000 of bf16 on both targets); long rows, their last
    // 2048 vectors in registers (57352 of bf16 on sm_90a: just past half
    // its budget; 60000 of bf16 on both targets, of f32 on sm_90a; 20000 of
    // f32 on sm_80, whose budget is 96 KiB); long rows past the budget with
    // those registers, up to 4096 vectors between read twice (140000 of
    // bf16 on sm_90a, 60000 of f32 on sm_80); longer rows by teams of 256
    // threads in chunks, read twice (200000 on sm_90a, 140000 on sm_80).
    // Where a long row's staged part fills the budget the long-row kernel
    // runs one CTA an SM, each casting every G-th row: 400 rows of 140000
    // (on sm_90a) give each CTA of a 132-SM GPU three or four, each staged
    // while the one before converts; 600 rows of 57352 keep a CTA a row.
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{100, 8}, {9, 1040},
                              {70, 2064}, {7, 3072}, {40, 4104}, {64, 7168},
                              {33, 8208}, {5, 20000}, {4, 57352}, {3, 60000},
                              {2, 140000}, {1, 200000}, {600, 57352}, {400, 140000}})
      if (c.pack != Pack::Fp6Split || cols % 16 == 0) // 4+2 rows: 16 codes
        runCase(c, GetParam(), rows, cols, 4);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, QuantizeKernels,
                         ::testing::Values("sm_90a", "sm_80"));

} // namespace
