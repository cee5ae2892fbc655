//===- DequantizeKernelTest.cpp - fpxc dequantize kernels vs numerics -----===//
//
// Every spec in test/gpu/specs/dq_*.mlir, compiled by fpxc for sm_90a and
// sm_80, runs on the GPU and must equal the numerics core bit for bit:
// random inputs (with inf, NaN, +-0, subnormals, +-max, all-zero blocks) are
// quantized on the CPU by num::quantize, then some codes and scale codes are
// replaced by random ones so that every code, NaN/inf codes, the e8m0
// extremes (2^-127, 2^127, NaN) and products that overflow or underflow
// appear; the codes are packed (fp4x2, fp6 4+2 or 24-bit) and the scales
// laid out (row-major or blocked 128x4) as the spec says. The kernel's
// output must be num::dequantize (decode(code) * scale in fp32), rounded to
// nearest even for bf16/f16 outputs by num::floatToBf16 / floatToHalf. NaN
// payloads are not compared (GPU arithmetic returns the canonical NaN): a
// NaN must meet a NaN.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Packing.h"
#include "fpx/Numerics/Quantize.h"

#include <cmath>
#include <iomanip>
#include <numeric>
#include <sstream>

using namespace fpx;
using namespace fpx::gputest;

namespace {

enum class Out { F32, BF16, F16 };
enum class Pack { None, Fp4x2, Fp6Split, Fp6Contiguous, Fp6Interleaved };
/// The scale tensor's type: E8M0 codes, NVFP4 e4m3 codes, or values.
enum class Scale { E8M0, NVFP4, F32, BF16, F16 };

constexpr int64_t kPerRow = 0;    // block [1, *]
constexpr int64_t kPerMatrix = -1; // block [*, *]: one scale per matrix

/// How an NVFP4 dequantize gets its global scale g: not at all, from the
/// tensor amax (g computed on the device), or g itself.
enum class Global { None, Amax, Value };

struct Case {
  const char *name;
  num::Format elem;
  rt::DType codeType;
  Pack pack;
  Scale scale;
  num::ScaleRule rule; // how the test's codes were made (E8M0 only)
  int64_t blockCols;   // > 0 row blocks [1, N]; kPerRow; kPerMatrix
  Out out;
  bool blocked = false; // scales in blocked_128x4
  Global global = Global::None; // NVFP4's global scale: none, amax or g input
  bool experts = false;         // rank-3 (E, M, K)
};

using R = num::ScaleRule;
const Case kCases[] = {
    {"dq_mxfp8", num::e4m3fn(), rt::DType::F8E4M3FN, Pack::None, Scale::E8M0, R::Floor, 32, Out::BF16},
    {"dq_mxfp8_e5m2_f32", num::e5m2(), rt::DType::F8E5M2, Pack::None, Scale::E8M0, R::Even, 32, Out::F32},
    {"dq_mxfp8_i8_f16", num::e4m3fn(), rt::DType::U8, Pack::None, Scale::E8M0, R::Ceil, 32, Out::F16},
    {"dq_mxfp8_blocked", num::e4m3fn(), rt::DType::F8E4M3FN, Pack::None, Scale::E8M0, R::RCeil, 32, Out::BF16, true},
    {"dq_mxfp6_e2m3_4p2", num::e2m3fn(), rt::DType::U8, Pack::Fp6Split, Scale::E8M0, R::RCeil, 32, Out::BF16},
    {"dq_mxfp6_e3m2_packed_f32", num::e3m2fn(), rt::DType::U8, Pack::Fp6Contiguous, Scale::E8M0, R::Floor, 32, Out::F32},
    {"dq_mxfp6_e2m3_interleaved", num::e2m3fn(), rt::DType::U8, Pack::Fp6Interleaved, Scale::E8M0, R::RCeil, 32, Out::BF16},
    {"dq_mxfp6_e3m2_interleaved_f32", num::e3m2fn(), rt::DType::U8, Pack::Fp6Interleaved, Scale::E8M0, R::Floor, 32, Out::F32},
    {"dq_mxfp6_e2m3_bytes_f16", num::e2m3fn(), rt::DType::U8, Pack::None, Scale::E8M0, R::Floor, 32, Out::F16},
    {"dq_mxfp4", num::e2m1fn(), rt::DType::U8, Pack::Fp4x2, Scale::E8M0, R::Floor, 32, Out::BF16},
    {"dq_nvfp4_two_level", num::e2m1fn(), rt::DType::U8, Pack::Fp4x2, Scale::NVFP4, R::Floor, 16, Out::BF16, false, Global::Amax},
    {"dq_nvfp4_g", num::e2m1fn(), rt::DType::U8, Pack::Fp4x2, Scale::NVFP4, R::Floor, 16, Out::BF16, false, Global::Value},
    {"dq_nvfp4_g_blocked_f32", num::e2m1fn(), rt::DType::U8, Pack::Fp4x2, Scale::NVFP4, R::Floor, 16, Out::F32, true, Global::Value},
    {"dq_nvfp4_single_f32", num::e2m1fn(), rt::DType::U8, Pack::Fp4x2, Scale::NVFP4, R::Floor, 16, Out::F32},
    {"dq_nvfp4_blocked_f16", num::e2m1fn(), rt::DType::U8, Pack::Fp4x2, Scale::NVFP4, R::Floor, 16, Out::F16, true, Global::Amax},
    {"dq_fp8_1x128", num::e4m3fn(), rt::DType::F8E4M3FN, Pack::None, Scale::F32, R::Floor, 128, Out::BF16},
    {"dq_fp8_per_tensor", num::e4m3fn(), rt::DType::F8E4M3FN, Pack::None, Scale::F32, R::Floor, kPerMatrix, Out::BF16},
    {"dq_mxfp8_experts", num::e4m3fn(), rt::DType::F8E4M3FN, Pack::None, Scale::E8M0, R::RCeil, 32, Out::BF16, false, Global::None, true},
    {"dq_fp8_per_expert_f32", num::e4m3fn(), rt::DType::F8E4M3FN, Pack::None, Scale::F32, R::Floor, kPerMatrix, Out::F32, false, Global::None, true},
    // A batch with one g (or amax) per matrix, read per CTA: one launch.
    {"dq_nvfp4_g_experts", num::e2m1fn(), rt::DType::U8, Pack::Fp4x2, Scale::NVFP4, R::Floor, 16, Out::BF16, false, Global::Value, true},
    {"dq_nvfp4_amax_experts_f32", num::e2m1fn(), rt::DType::U8, Pack::Fp4x2, Scale::NVFP4, R::Floor, 16, Out::F32, false, Global::Amax, true},
    {"dq_fp6_llm_rows", num::e3m2fn(), rt::DType::U8, Pack::Fp6Split, Scale::BF16, R::Floor, kPerRow, Out::BF16},
    {"dq_fp8_rows_f16scale", num::e4m3fn(), rt::DType::F8E4M3FN, Pack::None, Scale::F16, R::Floor, kPerRow, Out::F32},
};

/// The host side of one case: inputs as uploaded and the expected output.
struct Prepared {
  std::vector<uint8_t> codes;  // packed as the kernel reads them
  std::vector<uint8_t> scales; // raw scale tensor bytes
  std::vector<int64_t> codeShape, scaleShape;
  // The tensor amax (Global::Amax) or g (Global::Value): one, or one per
  // matrix of a batch.
  std::vector<float> globals;
  std::vector<uint32_t> want;    // expected output bits (f32, bf16 or f16)
  std::vector<uint8_t> elemCode; // per element, for diagnostics
  std::vector<float> elemScale;  // per element, its block's fp32 factor
};

Prepared prepare(const Case &c, int64_t batch, int64_t rows, int64_t cols,
                 uint32_t seed) {
  int64_t blockLen = c.blockCols > 0 ? c.blockCols : 32;
  std::vector<uint16_t> bits = bf16TestData(batch * rows, cols, blockLen, seed);
  // One amax per scale for the per-tensor kinds: a NaN or inf would make
  // every element NaN, so those keep to finite values (random codes below
  // still bring NaN and inf codes).
  if (c.global != Global::None || c.blockCols <= 0)
    for (uint16_t &b : bits)
      if ((b & 0x7fff) >= 0x7f80)
        b = 0x3f80;
  // A batch with a global scale per matrix: each matrix's amax its own
  // (above the data's 2^43 or so), so that a kernel applying another
  // matrix's g fails.
  if (c.experts && c.global != Global::None)
    distinctMatrixAmaxes(bits, batch, rows * cols);
  std::vector<float> x(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    x[i] = num::bf16ToFloat(bits[i]);

  num::QuantSpec spec;
  spec.elem = c.elem;
  spec.blockRows = c.blockCols == kPerMatrix ? 0 : 1;
  spec.blockCols = c.blockCols > 0 ? c.blockCols : 0;
  spec.scaleKind = c.scale == Scale::E8M0    ? num::ScaleKind::E8M0
                   : c.scale == Scale::NVFP4 ? num::ScaleKind::NVFP4
                                             : num::ScaleKind::FP32;
  spec.rule = c.rule;
  spec.nvfp4GlobalScale = c.global != Global::None;
  num::Quantized q = num::quantize(x.data(), batch, rows, cols, spec);
  const int64_t perMatrix = q.scaleRows * q.scaleCols;
  if (c.global == Global::Value) {
    // g one ulp above the one this tensor's (matrix's) amax gives: the
    // kernel must apply the g it is handed as it is.
    for (float &g : q.globalScales)
      g = std::nextafter(g, INFINITY);
    for (size_t i = 0; i < q.scales.size(); ++i)
      q.scales[i] = num::decode(num::ue4m3(), q.scaleCodes[i]) *
                    q.globalScales[static_cast<int64_t>(i) / perMatrix];
  }

  // Random codes and scale codes in place of some quantized ones.
  std::mt19937 rng(seed * 7919u + 17u);
  uint32_t codeMask = (1u << c.elem.bits()) - 1;
  for (uint8_t &code : q.codes)
    if (rng() % 13 == 0)
      code = static_cast<uint8_t>(rng() & codeMask);
  if (c.scale == Scale::E8M0 || c.scale == Scale::NVFP4) {
    for (size_t i = 0; i < q.scaleCodes.size(); ++i) {
      if (rng() % 11)
        continue;
      uint8_t code = static_cast<uint8_t>(rng());
      q.scaleCodes[i] = code;
      if (c.scale == Scale::E8M0) {
        q.scales[i] = num::decode(num::e8m0fnu(), code);
      } else {
        int64_t b = static_cast<int64_t>(i) / perMatrix;
        q.scales[i] = num::decode(num::ue4m3(), code) * q.globalScales[b];
      }
    }
  }

  Prepared p;
  // Batches of NVFP4 with a global scale carry one per matrix (the
  // reference's g of each matrix is that matrix's amax's).
  int64_t n0 = c.experts ? batch : 1, per = batch * rows * cols / n0;
  for (int64_t b = 0; b < n0; ++b)
    p.globals.push_back(c.global == Global::Value
                            ? q.globalScales[b]
                            : num::absMax(x.data() + b * per, static_cast<size_t>(per)));
  // The scale tensor as uploaded; 16-bit scales are the fp32 scales rounded,
  // and the reference uses the rounded values.
  switch (c.scale) {
  case Scale::E8M0:
  case Scale::NVFP4:
    p.scales = c.blocked ? num::swizzleBlocked(q.scaleCodes.data(), q.scaleRows,
                                               q.scaleCols, 0)
                         : q.scaleCodes;
    break;
  case Scale::F32:
    p.scales.resize(q.scales.size() * 4);
    std::memcpy(p.scales.data(), q.scales.data(), p.scales.size());
    break;
  case Scale::BF16:
  case Scale::F16: {
    p.scales.resize(q.scales.size() * 2);
    for (size_t i = 0; i < q.scales.size(); ++i) {
      uint16_t h = c.scale == Scale::BF16
                       ? num::floatToBf16(q.scales[i], num::Rounding::RN,
                                          num::Overflow::ToInfOrNaN)
                       : num::floatToHalf(q.scales[i], num::Rounding::RN,
                                          num::Overflow::ToInfOrNaN);
      q.scales[i] = c.scale == Scale::BF16 ? num::bf16ToFloat(h) : num::halfToFloat(h);
      std::memcpy(&p.scales[2 * i], &h, 2);
    }
    break;
  }
  }

  int64_t n = batch * rows * cols;
  switch (c.pack) {
  case Pack::None:
    p.codes = q.codes;
    break;
  case Pack::Fp4x2:
    p.codes = num::packFp4x2(q.codes.data(), q.codes.size());
    break;
  case Pack::Fp6Split:
    p.codes = num::packFp6(q.codes.data(), batch * rows, cols, num::Fp6Layout::Planes);
    break;
  case Pack::Fp6Contiguous:
    p.codes = num::packFp6(q.codes.data(), batch * rows, cols, num::Fp6Layout::Contiguous24);
    break;
  case Pack::Fp6Interleaved:
    p.codes = num::packFp6(q.codes.data(), batch * rows, cols, num::Fp6Layout::Interleaved4p2);
    break;
  }
  int64_t packedCols = c.pack == Pack::Fp4x2 ? cols / 2
                       : c.pack == Pack::None ? cols
                                              : cols / 4 * 3;
  p.codeShape = {rows, packedCols};
  if (c.blockCols == kPerMatrix)
    p.scaleShape = {1, 1};
  else if (c.blockCols == kPerRow)
    p.scaleShape = {rows, 1};
  else if (c.blocked)
    p.scaleShape = {num::blockedRows(q.scaleRows), num::blockedCols(q.scaleCols)};
  else
    p.scaleShape = {rows, q.scaleCols};
  if (c.experts) {
    p.codeShape.insert(p.codeShape.begin(), batch);
    p.scaleShape.insert(p.scaleShape.begin(), batch);
  }

  std::vector<float> ref = num::dequantize(q, c.elem);
  p.want.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t w;
    if (c.out == Out::F32)
      std::memcpy(&w, &ref[i], 4);
    else if (c.out == Out::BF16)
      w = num::floatToBf16(ref[i], num::Rounding::RN, num::Overflow::ToInfOrNaN);
    else
      w = num::floatToHalf(ref[i], num::Rounding::RN, num::Overflow::ToInfOrNaN);
    p.want[i] = w;
  }
  p.elemCode = q.codes;
  p.elemScale.resize(n);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < cols; ++k)
        p.elemScale[(b * rows + r) * cols + k] =
            q.scales[(b * q.scaleRows + r / q.blockRows) * q.scaleCols + k / q.blockCols];
  return p;
}

bool isNaN(Out o, uint32_t w) {
  switch (o) {
  case Out::F32:
    return (w & 0x7fffffffu) > 0x7f800000u;
  case Out::BF16:
    return (w & 0x7fffu) > 0x7f80u;
  case Out::F16:
    return (w & 0x7fffu) > 0x7c00u;
  }
  return false;
}

float asFloat(Out o, uint32_t w) {
  switch (o) {
  case Out::F32: {
    float f;
    std::memcpy(&f, &w, 4);
    return f;
  }
  case Out::BF16:
    return num::bf16ToFloat(static_cast<uint16_t>(w));
  case Out::F16:
    return num::halfToFloat(static_cast<uint16_t>(w));
  }
  return 0;
}

void runCase(const Case &c, const std::string &target, int64_t rows,
             int64_t cols, uint32_t seed) {
  int64_t batch = c.experts ? 3 : 1;
  if (c.experts && c.global != Global::None) // matrices of whole 8192-element CTAs
    for (int64_t step = 8192 / std::gcd<int64_t>(cols, 8192); rows % step;)
      ++rows;
  SCOPED_TRACE(std::string(c.name) + " " + target + " " +
               (c.experts ? std::to_string(batch) + "x" : "") +
               std::to_string(rows) + "x" + std::to_string(cols));
  auto path = artifactDir(target) / (std::string(c.name) + ".json");
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "missing artifact " << path;
    return;
  }
  auto module = rt::Module::load(path.string());
  const rt::Function &f = module->function(c.name);
  Prepared p = prepare(c, batch, rows, cols, seed);

  rt::DType scaleType = c.scale == Scale::E8M0    ? rt::DType::F8E8M0FNU
                        : c.scale == Scale::NVFP4 ? rt::DType::F8E4M3FN
                        : c.scale == Scale::F32   ? rt::DType::F32
                        : c.scale == Scale::BF16  ? rt::DType::BF16
                                                  : rt::DType::F16;
  // The amax or g input (Global::Amax / Global::Value).
  DeviceBuffer codes(p.codes.size()), scales(p.scales.size()),
      globalIn(p.globals.size() * 4);
  codes.upload(p.codes);
  scales.upload(p.scales);
  globalIn.upload(p.globals);
  std::vector<rt::TensorRef> ins = {rt::TensorRef(codes.Ptr, c.codeType, p.codeShape),
                                    rt::TensorRef(scales.Ptr, scaleType, p.scaleShape)};
  std::vector<std::vector<int64_t>> inShapes = {p.codeShape, p.scaleShape};
  if (c.global != Global::None) {
    std::vector<int64_t> gShape;
    if (c.experts)
      gShape = {batch};
    ins.emplace_back(globalIn.Ptr, rt::DType::F32, gShape);
    inShapes.push_back(gShape);
  }
  auto shapes = f.outputShapes(inShapes);
  ASSERT_EQ(shapes.size(), 1u);
  std::vector<int64_t> wantShape = {rows, cols};
  if (c.experts)
    wantShape.insert(wantShape.begin(), batch);
  ASSERT_EQ(shapes[0], wantShape) << "result shape";
  rt::DType outType = f.info().Outputs[0].Type;
  size_t elemBytes = c.out == Out::F32 ? 4 : 2;
  ASSERT_EQ(rt::dtypeSize(outType), elemBytes) << "result dtype";
  size_t n = p.want.size();
  DeviceBuffer out(n * elemBytes);
  out.poison();
  f.launch(nullptr, ins, {rt::TensorRef(out.Ptr, outType, shapes[0])}, {});
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());

  std::vector<uint32_t> got(n);
  if (elemBytes == 4) {
    auto v = out.download<uint32_t>(n);
    got.assign(v.begin(), v.end());
  } else {
    auto v = out.download<uint16_t>(n);
    got.assign(v.begin(), v.end());
  }
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t g = got[i], w = p.want[i];
    if (g == w || (isNaN(c.out, g) && isNaN(c.out, w)))
      continue;
    if (bad++ < 8) {
      int64_t k = static_cast<int64_t>(i) % cols;
      int64_t r = static_cast<int64_t>(i) / cols % rows;
      int64_t b = static_cast<int64_t>(i) / cols / rows;
      std::ostringstream os;
      os << "element " << i << " (batch " << b << ", row " << r << ", col " << k
         << "): code 0x" << std::hex << int(p.elemCode[i]) << std::dec
         << " = " << num::decode(c.elem, p.elemCode[i]) << ", block factor "
         << std::setprecision(9) << p.elemScale[i] << ": got 0x" << std::hex
         << g << " (" << std::dec << asFloat(c.out, g) << ") want 0x"
         << std::hex << w << " (" << std::dec << asFloat(c.out, w) << ")";
      ADD_FAILURE() << os.str();
    }
  }
  EXPECT_EQ(bad, 0u) << "mismatching elements of " << n << " in " << c.name
                     << " for " << target;
}

class DequantizeKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(DequantizeKernels, MatchTheNumericsCoreBitForBit) {
  FPX_REQUIRE_TARGET(GetParam());
  for (const Case &c : kCases) {
    // 300 and 7 rows are ragged for the blocked layout (padded to 128); the
    // large shape spans many CTAs and every unrolled vector; 7 x 640 ends in
    // a partial CTA.
    runCase(c, GetParam(), 300, 512, 1);
    runCase(c, GetParam(), 1024, 4096, 2);
    runCase(c, GetParam(), 7, 640, 3);
  }
}

// The launch checks run before any GPU work: a scale tensor whose shape does
// not match the codes is refused (the kernel would read out of bounds).
TEST(DequantizeKernelRecords, RefuseMismatchedScales) {
  auto path = artifactDir("sm_90a") / "dq_mxfp8.json";
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << "artifact " << path << " not built";
  auto module = rt::Module::load(path.string());
  const rt::Function &f = module->function("dq_mxfp8");
  std::vector<int64_t> codeShape = {64, 256}, badScales = {64, 4};
  EXPECT_THROW(f.launch(nullptr,
                        {rt::TensorRef(0, rt::DType::F8E4M3FN, codeShape),
                         rt::TensorRef(0, rt::DType::F8E8M0FNU, badScales)},
                        {rt::TensorRef(0, rt::DType::BF16, codeShape)}, {}),
               rt::Error);
  std::vector<int64_t> raggedCols = {64, 260}, scales = {64, 8};
  EXPECT_THROW(f.launch(nullptr,
                        {rt::TensorRef(0, rt::DType::F8E4M3FN, raggedCols),
                         rt::TensorRef(0, rt::DType::F8E8M0FNU, scales)},
                        {rt::TensorRef(0, rt::DType::BF16, raggedCols)}, {}),
               rt::Error);
}

INSTANTIATE_TEST_SUITE_P(Targets, DequantizeKernels,
                         ::testing::Values("sm_90a", "sm_80"));

} // namespace
