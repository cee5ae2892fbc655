//===- ScaledMatmulKernelTest.cpp - fp8 scaled GEMMs vs an fp64 matmul ----===//
//
// The specs test/gpu/specs/sm_90a/smm_*.mlir (fpx.scaled_matmul of fp8 A
// (M, K) and B (N, K) with per-tensor, per-row or blockwise f32 scales: A
// [1, 128], B [128, 128] or [1, 128], the last K block partial; bf16 or f32
// out), compiled by fpxc for sm_90a (TMA + wgmma kernels, tensor maps built
// by the runtime at launch), run on the GPU against a matmul of the
// operands dequantized by the numerics core (num::decode times the scale),
// accumulated in fp64:
// - error = max |out - ref| / max |ref| <= 1e-3 for f32 outputs (fp32
//   accumulation order; the kernel promotes the wgmma partial sums every
//   128 K) and <= 1e-2 for bf16 (its rounding is 2^-9);
// - with a bias (bf16 or f32, the `_bias` specs), the reference adds it to
//   the fp64 sum (the kernel adds it in f32 before the output cast);
// - every output written (poisoned with NaN bytes before) and finite;
// - shapes (128, 256, 512) (the 128x128 kernel, K split 4 ways: 2 tiles),
//   (100, 300, 208) (the 128x128 kernel, edge tiles on M, N and K: 208 =
//   128 + 80; K split 2 ways, one 128-block each), (128, 1280, 1040) (10
//   tiles, K's 9 blocks split 4 ways: 2, 2, 2, 3), (64, 17000, 128) (133
//   tiles: the 128x128 kernel without split),
//   (1000, 1000, 1024) (edge tiles on M and N), (1000, 1000, 1040) (and K:
//   a 16-wide last block) and (4096, 4096, 4096) (its reference sampled:
//   4096 entries, every row once);
// - both epilogues of each tile: the TMA store where C's rows (N * elt
//   bytes) are a multiple of 16 bytes, else masked st.global. N = 300 takes
//   the st.global kernels with bf16 out and the TMA store with f32; N = 302
//   and 1002 take st.global for both; 256, 1000, 1016 and 4096 take the TMA
//   store (1000 and 1016: the last tile's boxes clipped at N; M = 130: the
//   second tile row's second warpgroup has no row to store).
//
// MXFP8 x MXFP8 (the specs smm_mxfp8_*: e4m3/e5m2 codes with E8M0 [1, 32]
// scales on both sides, row-major [rows, K / 32]; one 128x128 kernel that
// promotes every k32) against the same fp64 matmul of the dequantized
// operands (num::decode of the codes times num::decode of their e8m0
// scale), the same bars: random scale codes 127 +- 6 on each 32-block, so a
// scale applied to the wrong block, row or column shows; K = 224 and 1056
// (K / 32 = 7, 33: rows not 4-byte aligned, the byte-load path; a last stage
// of 1 or 3 k32 blocks), 256, 512, 1024, 4096 (the 32-bit loads); split-K
// at M <= 128; M, N and K not multiples of the tile. One scale code 0xFF
// (NaN) makes its row of C NaN, and only that row. The kernel is the bf16
// form (codes dequantized to bf16 on their way into shared memory, bf16
// wgmma, no promotion; 128x256 tiles).
//
// Blocked scales (the specs *_blocked*: both sides, or one, in the blocked
// 128x4 layout, num::swizzleBlocked of the same random scales) with their
// padding 0xFF, a NaN code: the same bars, so a padding byte applied to a
// product (blocks past K, rows past M or N) or a scale read from the wrong
// tile shows.
//
// NVFP4 x NVFP4 on sm_90a (the specs smm_nvfp4_*: fp4x2 e2m1 codes, e4m3
// [1, 16] scales row-major [rows, K / 16], f32 tensor scales 0.75 and 1.5;
// the bf16 form) against the fp64 matmul of num::decode(e2m1) times
// num::decode(e4m3) of its block's scale, times both tensor scales, plus the
// bias: every code, scales 2^-3 .. 2^3 with any mantissa; K = 224, 288
// (a partial 256-code stage, scale rows not 4-byte aligned), 1056, 256,
// 512, 1024, 4096; split-K at M <= 128; the same bars, the same NaN row (a
// 0x7F scale).
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Packing.h"

#include <cmath>
#include <random>

using namespace fpx;
using namespace fpx::gputest;

namespace {

/// How an operand's f32 scales cover it: one per tensor, one per row, or one
/// per block of `blockRows` rows x 128 K.
struct Scales {
  enum Kind { Tensor, Row, Block } kind;
  int64_t blockRows = 1;

  int64_t rows(int64_t r) const {
    return kind == Tensor ? 1 : kind == Row ? r : (r + blockRows - 1) / blockRows;
  }
  int64_t cols(int64_t K) const { return kind == Block ? (K + 127) / 128 : 1; }
  /// The index of element (r, k)'s scale.
  int64_t at(int64_t r, int64_t k, int64_t K) const {
    if (kind == Tensor)
      return 0;
    if (kind == Row)
      return r;
    return (r / blockRows) * cols(K) + k / 128;
  }
};

constexpr Scales kTensor{Scales::Tensor}, kRow{Scales::Row}, kBlock1{Scales::Block, 1},
    kBlock128{Scales::Block, 128};

enum class Bias { None, BF16, F32 };

struct Case {
  const char *name;
  num::Format fa, fb;
  rt::DType ta, tb;
  Scales sa, sb;
  bool f32Out; // else bf16
  Bias bias = Bias::None;
};

const Case kCases[] = {
    {"smm_e4m3_tensor_bf16", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, kTensor, kTensor, false},
    {"smm_e4m3_tensor_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, kTensor, kTensor, true},
    {"smm_e4m3_row_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, kRow, kRow, true},
    {"smm_e5m2_e4m3_row_bf16", num::e5m2(), num::e4m3fn(), rt::DType::F8E5M2,
     rt::DType::F8E4M3FN, kRow, kRow, false},
    // DeepSeek-V3's blockwise: 1x128 x 128x128, and 1x128 x 1x128.
    {"smm_e4m3_block128_bf16", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, kBlock1, kBlock128, false},
    {"smm_e4m3_block128_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, kBlock1, kBlock128, true},
    {"smm_e5m2_e4m3_block1_f32", num::e5m2(), num::e4m3fn(), rt::DType::F8E5M2,
     rt::DType::F8E4M3FN, kBlock1, kBlock1, true},
    {"smm_e4m3_block_row_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, kBlock1, kRow, true},
    {"smm_e4m3_block128_bias_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, kBlock1, kBlock128, true, Bias::BF16},
    {"smm_e4m3_row_bias_bf16", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, kRow, kRow, false, Bias::F32},
};

/// Byte scales [rows, cols] as a kernel reads them: row-major as they are,
/// or blocked 128x4 (the numerics core's num::swizzleBlocked) with padding
/// 0xFF, a NaN scale in e8m0 and e4m3, so that padding applied to any
/// product would show as NaN. `shape`: the tensor's.
std::vector<uint8_t> laidOut(const std::vector<uint8_t> &s, int64_t rows, int64_t cols,
                             bool blocked, std::vector<int64_t> &shape) {
  if (!blocked) {
    shape = {rows, cols};
    return s;
  }
  shape = {num::blockedRows(rows), num::blockedCols(cols)};
  return num::swizzleBlocked(s.data(), rows, cols, 0xFF);
}

/// Split-K adds its partial sums in a fixed order: a second launch of `f`
/// (its output `po.buffers[0]`, `bytes` long, poisoned again first) gives the
/// same bits, whichever CTA of a tile finished last.
void expectSecondCallIdentical(const rt::Function &f, const std::vector<rt::TensorRef> &in,
                               PoisonedOutputs &po, int64_t bytes) {
  std::vector<uint8_t> first = po.buffers[0]->download<uint8_t>(bytes);
  po.buffers[0]->poison(0xFF);
  f.launch(nullptr, in, po.refs, {});
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  EXPECT_TRUE(po.buffers[0]->download<uint8_t>(bytes) == first)
      << "a second call differs (split-K's sum order)";
}

TEST(ScaledMatmulKernel, MatchesAnFp64MatmulOfTheDequantizedOperands) {
  const std::string target = "sm_90a";
  FPX_REQUIRE_TARGET(target);
  CaseFilter filter;
  struct Shape {
    int64_t M, N, K;
    bool sampled;
  };
  const Shape shapes[] = {{128, 256, 512, false},    {100, 300, 208, false},
                          {100, 302, 208, false},    {1000, 1000, 1024, false},
                          {1000, 1000, 1040, false}, {300, 1002, 256, false},
                          {130, 1016, 256, false},   {128, 1280, 1040, false},
                          {64, 17000, 128, false},   {4096, 4096, 4096, true}};
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
      std::vector<uint8_t> a = randomFiniteCodes(c.fa, s.M * s.K, rng);
      std::vector<uint8_t> b = randomFiniteCodes(c.fb, s.N * s.K, rng);
      // e5m2 reaches 57344: smaller scales keep sums well inside f32/bf16.
      auto scale = [&] { return 0.5f + 1.5f * float(rng() % 4096) / 4096.0f; };
      // Blockwise scales vary over K too, so a block's scale that is not
      // applied to it (or applied to another block) shows.
      const int64_t ra = c.sa.rows(s.M), ca = c.sa.cols(s.K);
      const int64_t rb = c.sb.rows(s.N), cb = c.sb.cols(s.K);
      std::vector<float> sa(ra * ca), sb(rb * cb);
      for (auto &v : sa)
        v = scale() * (c.fa.ebits == 5 ? 1.0f / 64 : 1.0f);
      for (auto &v : sb)
        v = scale();
      DeviceBuffer da(a.size()), db(b.size()), dsa(sa.size() * 4), dsb(sb.size() * 4);
      da.upload(a);
      db.upload(b);
      dsa.upload(sa);
      dsb.upload(sb);
      std::vector<rt::TensorRef> in = {rt::TensorRef(da.Ptr, c.ta, {s.M, s.K}),
                                       rt::TensorRef(dsa.Ptr, rt::DType::F32, {ra, ca}),
                                       rt::TensorRef(db.Ptr, c.tb, {s.N, s.K}),
                                       rt::TensorRef(dsb.Ptr, rt::DType::F32, {rb, cb})};
      // The dequantized operands (the reference's inputs).
      std::vector<double> ad(a.size()), bd(b.size());
      double sumA = 0, sumB = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        ad[i] = double(num::decode(c.fa, a[i])) * sa[c.sa.at(i / s.K, i % s.K, s.K)];
        sumA += ad[i] * ad[i];
      }
      for (size_t i = 0; i < b.size(); ++i) {
        bd[i] = double(num::decode(c.fb, b[i])) * sb[c.sb.at(i / s.K, i % s.K, s.K)];
        sumB += bd[i] * bd[i];
      }
      std::vector<std::vector<int64_t>> inShapes = {{s.M, s.K}, {ra, ca}, {s.N, s.K}, {rb, cb}};
      // The bias: values rounded to its type, as the kernel reads them.
      std::vector<float> bias(s.N, 0.0f);
      std::vector<uint16_t> biasBf16;
      DeviceBuffer dbias(s.N * 4);
      if (c.bias != Bias::None) {
        // As large as a typical product (sqrt(K) rms(A) rms(B)), so that a
        // bias left out or added twice shows far above the error bar.
        double typical = std::sqrt(double(s.K) * sumA / double(a.size()) * sumB / double(b.size()));
        for (auto &v : bias)
          v = float(typical * double(int(rng() % 2001) - 1000) / 500.0);
        if (c.bias == Bias::BF16) {
          for (auto &v : bias) {
            biasBf16.push_back(num::floatToBf16(v, num::Rounding::RN, num::Overflow::ToInfOrNaN));
            v = num::bf16ToFloat(biasBf16.back());
          }
          dbias.upload(biasBf16);
        } else {
          dbias.upload(bias);
        }
        in.push_back(rt::TensorRef(dbias.Ptr,
                                   c.bias == Bias::BF16 ? rt::DType::BF16 : rt::DType::F32, {s.N}));
        inShapes.push_back({s.N});
      }
      auto outShapes = f.outputShapes(inShapes);
      ASSERT_EQ(outShapes.at(0), (std::vector<int64_t>{s.M, s.N}));
      PoisonedOutputs po = poisonedOutputs(f, outShapes);
      po.buffers[0]->poison(0xFF); // NaN in bf16 and f32
      f.launch(nullptr, in, po.refs, {});
      FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
      std::vector<float> got = downloadFloats(*po.buffers[0], s.M * s.N, c.f32Out);
      int64_t notFinite = 0;
      for (float v : got)
        notFinite += !std::isfinite(v);
      EXPECT_EQ(notFinite, 0) << "outputs not written or not finite";
      if (s.M <= 128)
        expectSecondCallIdentical(f, in, po, s.M * s.N * (c.f32Out ? 4 : 2));

      double maxErr = 0, maxRef = 0;
      auto check = [&](int64_t m, int64_t n) {
        double ref = 0;
        const double *ar = &ad[m * s.K], *br = &bd[n * s.K];
        for (int64_t k = 0; k < s.K; ++k)
          ref += ar[k] * br[k];
        ref += bias[n];
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

/// An MXFP8 x MXFP8 spec: codes of fa x fb, bf16 or f32 out, optional bias.
struct MxCase {
  const char *name;
  num::Format fa, fb;
  rt::DType ta, tb;
  bool f32Out;
  Bias bias = Bias::None;
  bool blockedA = false, blockedB = false; ///< scales blocked 128x4, else row-major
};

const MxCase kMxCases[] = {
    {"smm_mxfp8_e4m3_bf16", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, false},
    {"smm_mxfp8_e4m3_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, true},
    // (the bf16 form, kept for comparisons: the fpx.mx_bf16 attribute)
    {"smm_mxfp8_e4m3_bf16form_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, true},
    {"smm_mxfp8_e5m2_e4m3_bias_f32", num::e5m2(), num::e4m3fn(), rt::DType::F8E5M2,
     rt::DType::F8E4M3FN, true, Bias::BF16},
    {"smm_mxfp8_e4m3_e5m2_bias_bf16", num::e4m3fn(), num::e5m2(), rt::DType::F8E4M3FN,
     rt::DType::F8E5M2, false, Bias::F32},
    {"smm_mxfp8_e4m3_blocked_bf16", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, false, Bias::None, true, true},
    {"smm_mxfp8_e4m3_blockedb_bf16form_f32", num::e4m3fn(), num::e4m3fn(), rt::DType::F8E4M3FN,
     rt::DType::F8E4M3FN, true, Bias::None, false, true},
};

/// What the MX and NVFP4 tests check of a launch of `f` on `in` (its output
/// poisoned with NaN first): every output written and finite but row
/// `nanRow` (a NaN scale), which is all NaN; a second call bit-identical
/// where M <= 128 (split-K's sum order); and the result against ref(m, n),
/// the fp64 matmul of the dequantized operands with the bias, to 1e-3 (f32
/// out) or 1e-2 (bf16) of max |ref|, at every output or, `sampled`, one a row.
template <typename Ref>
void checkLaunch(const rt::Function &f, const std::vector<rt::TensorRef> &in,
                 const std::vector<std::vector<int64_t>> &inShapes, int64_t M, int64_t N,
                 int64_t K, bool f32Out, bool sampled, int64_t nanRow, std::mt19937 &rng,
                 const char *name, Ref ref) {
  auto outShapes = f.outputShapes(inShapes);
  ASSERT_EQ(outShapes.at(0), (std::vector<int64_t>{M, N}));
  PoisonedOutputs po = poisonedOutputs(f, outShapes);
  po.buffers[0]->poison(0xFF); // NaN in bf16 and f32
  f.launch(nullptr, in, po.refs, {});
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  std::vector<float> got = downloadFloats(*po.buffers[0], M * N, f32Out);
  int64_t notFinite = 0, notNaN = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float v = got[m * N + n];
      if (m == nanRow)
        notNaN += !std::isnan(v);
      else
        notFinite += !std::isfinite(v);
    }
  EXPECT_EQ(notFinite, 0) << "outputs not written or not finite";
  EXPECT_EQ(notNaN, 0) << "row " << nanRow << " (a NaN scale) is not all NaN";
  if (M <= 128)
    expectSecondCallIdentical(f, in, po, M * N * (f32Out ? 4 : 2));
  double maxErr = 0, maxRef = 0;
  auto check = [&](int64_t m, int64_t n) {
    if (m == nanRow)
      return;
    double r = ref(m, n);
    maxErr = std::max(maxErr, std::fabs(double(got[m * N + n]) - r));
    maxRef = std::max(maxRef, std::fabs(r));
  };
  if (sampled) {
    for (int64_t m = 0; m < M; ++m)
      check(m, int64_t(rng() % N));
  } else {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        check(m, n);
  }
  double rel = maxErr / maxRef;
  EXPECT_LE(rel, f32Out ? 1e-3 : 1e-2) << "max |out - ref| / max |ref|";
  EXPECT_GT(maxRef, 0.0);
  std::fprintf(stderr, "%s M=%lld N=%lld K=%lld: error %.3g\n", name, (long long)M,
               (long long)N, (long long)K, rel);
}

TEST(ScaledMatmulKernel, Mxfp8MatchesAnFp64MatmulOfTheDequantizedOperands) {
  const std::string target = "sm_90a";
  FPX_REQUIRE_TARGET(target);
  CaseFilter filter;
  struct Shape {
    int64_t M, N, K;
    bool sampled;
  };
  const Shape shapes[] = {{128, 256, 512, false},   {100, 300, 224, false},
                          {100, 302, 1056, false},  {1000, 1000, 1024, false},
                          {1000, 1000, 1056, false}, {300, 1002, 256, false},
                          {130, 1016, 224, false},  {128, 1280, 1056, false},
                          {64, 17000, 128, false},  {4096, 4096, 4096, true}};
  for (const MxCase &c : kMxCases) {
    if (!filter(c.name))
      continue;
    SCOPED_TRACE(c.name);
    FPX_LOAD_ARTIFACT(mod, target, c.name);
    const rt::Function &f = mod->function(c.name);
    std::mt19937 rng(8765);
    for (const Shape &s : shapes) {
      SCOPED_TRACE("M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) +
                   " K=" + std::to_string(s.K));
      const int64_t kb = s.K / 32;
      std::vector<uint8_t> a = randomFiniteCodes(c.fa, s.M * s.K, rng);
      std::vector<uint8_t> b = randomFiniteCodes(c.fb, s.N * s.K, rng);
      // 2^-6 .. 2^6 a block (e5m2 A a further 2^-6: it reaches 57344).
      auto code = [&](int bias) { return uint8_t(127 + bias + int(rng() % 13) - 6); };
      std::vector<uint8_t> sa(s.M * kb), sb(s.N * kb);
      for (auto &v : sa)
        v = code(c.fa.ebits == 5 ? -6 : 0);
      for (auto &v : sb)
        v = code(0);
      // One NaN scale (0xFF): row nanRow of C is NaN, the others are not.
      const int64_t nanRow = s.M / 2;
      sa[nanRow * kb + kb / 2] = 0xFF;
      std::vector<int64_t> saShape, sbShape;
      std::vector<uint8_t> saIn = laidOut(sa, s.M, kb, c.blockedA, saShape);
      std::vector<uint8_t> sbIn = laidOut(sb, s.N, kb, c.blockedB, sbShape);
      DeviceBuffer da(a.size()), db(b.size()), dsa(saIn.size()), dsb(sbIn.size());
      da.upload(a);
      db.upload(b);
      dsa.upload(saIn);
      dsb.upload(sbIn);
      std::vector<rt::TensorRef> in = {rt::TensorRef(da.Ptr, c.ta, {s.M, s.K}),
                                       rt::TensorRef(dsa.Ptr, rt::DType::F8E8M0FNU, saShape),
                                       rt::TensorRef(db.Ptr, c.tb, {s.N, s.K}),
                                       rt::TensorRef(dsb.Ptr, rt::DType::F8E8M0FNU, sbShape)};
      // The dequantized operands: code times its block's 2^(e - 127).
      std::vector<double> ad(a.size()), bd(b.size());
      double sumA = 0, sumB = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        int64_t r = i / s.K, k = i % s.K;
        ad[i] = double(num::decode(c.fa, a[i])) *
                double(num::decode(num::e8m0fnu(), sa[r * kb + k / 32]));
        if (r != nanRow)
          sumA += ad[i] * ad[i];
      }
      for (size_t i = 0; i < b.size(); ++i) {
        int64_t r = i / s.K, k = i % s.K;
        bd[i] = double(num::decode(c.fb, b[i])) *
                double(num::decode(num::e8m0fnu(), sb[r * kb + k / 32]));
        sumB += bd[i] * bd[i];
      }
      std::vector<std::vector<int64_t>> inShapes = {{s.M, s.K}, saShape, {s.N, s.K}, sbShape};
      std::vector<float> bias(s.N, 0.0f);
      std::vector<uint16_t> biasBf16;
      DeviceBuffer dbias(s.N * 4);
      if (c.bias != Bias::None) {
        double typical = std::sqrt(double(s.K) * sumA / double(a.size()) * sumB / double(b.size()));
        for (auto &v : bias)
          v = float(typical * double(int(rng() % 2001) - 1000) / 500.0);
        if (c.bias == Bias::BF16) {
          for (auto &v : bias) {
            biasBf16.push_back(num::floatToBf16(v, num::Rounding::RN, num::Overflow::ToInfOrNaN));
            v = num::bf16ToFloat(biasBf16.back());
          }
          dbias.upload(biasBf16);
        } else {
          dbias.upload(bias);
        }
        in.push_back(rt::TensorRef(dbias.Ptr,
                                   c.bias == Bias::BF16 ? rt::DType::BF16 : rt::DType::F32, {s.N}));
        inShapes.push_back({s.N});
      }
      // The fp64 matmul of the dequantized operands.
      auto ref = [&](int64_t m, int64_t n) {
        double r = 0;
        const double *ar = &ad[m * s.K], *br = &bd[n * s.K];
        for (int64_t k = 0; k < s.K; ++k)
          r += ar[k] * br[k];
        return r + bias[n];
      };
      checkLaunch(f, in, inShapes, s.M, s.N, s.K, c.f32Out, s.sampled, nanRow, rng, c.name, ref);
    }
  }
}


/// An NVFP4 x NVFP4 spec (test/gpu/specs/sm_90a/smm_nvfp4_*): bf16 or f32
/// out, optional bias.
struct NvCase {
  const char *name;
  bool f32Out;
  Bias bias = Bias::None;
  bool blockedA = false, blockedB = false; ///< scales blocked 128x4, else row-major
};

const NvCase kNvCases[] = {
    {"smm_nvfp4_f32", true},
    {"smm_nvfp4_bf16", false},
    {"smm_nvfp4_bias_bf16", false, Bias::BF16},
    {"smm_nvfp4_blocked_bf16", false, Bias::None, true, true},
    {"smm_nvfp4_blockeda_f32", true, Bias::None, true, false},
};

TEST(ScaledMatmulKernel, Nvfp4MatchesAnFp64MatmulOfTheDequantizedOperands) {
  const std::string target = "sm_90a";
  FPX_REQUIRE_TARGET(target);
  CaseFilter filter;
  struct Shape {
    int64_t M, N, K;
    bool sampled;
  };
  // K: 224 and 288 (a stage of 256 codes partial, K / 16 = 14 and 18: rows
  // of scales not 4-byte aligned), 1056 (five stages, the last a 32-code
  // one), 256 and 512 (split-K at M = 128); M, N not multiples of the tile.
  const Shape shapes[] = {{128, 256, 512, false},   {100, 300, 224, false},
                          {100, 302, 1056, false},  {1000, 1000, 1024, false},
                          {1000, 1000, 1056, false}, {300, 1002, 288, false},
                          {130, 1016, 224, false},  {128, 1280, 1056, false},
                          {64, 17000, 256, false},  {4096, 4096, 4096, true}};
  for (const NvCase &c : kNvCases) {
    if (!filter(c.name))
      continue;
    SCOPED_TRACE(c.name);
    FPX_LOAD_ARTIFACT(mod, target, c.name);
    const rt::Function &f = mod->function(c.name);
    std::mt19937 rng(4321);
    for (const Shape &s : shapes) {
      SCOPED_TRACE("M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) +
                   " K=" + std::to_string(s.K));
      const int64_t kb = s.K / 16;
      // Every e2m1 code; e4m3 scales 2^-3 .. 2^3 (any mantissa); the tensor
      // scales 0.75 and 1.5.
      std::vector<uint8_t> a(s.M * s.K), b(s.N * s.K);
      for (auto &v : a)
        v = uint8_t(rng() % 16);
      for (auto &v : b)
        v = uint8_t(rng() % 16);
      auto code = [&] { return uint8_t(((4 + rng() % 7) << 3) | (rng() % 8)); };
      std::vector<uint8_t> sa(s.M * kb), sb(s.N * kb);
      for (auto &v : sa)
        v = code();
      for (auto &v : sb)
        v = code();
      // One NaN scale (0x7F): row nanRow of C is NaN, the others are not.
      const int64_t nanRow = s.M / 2;
      sa[nanRow * kb + kb / 2] = 0x7F;
      const float ga = 0.75f, gb = 1.5f;
      std::vector<uint8_t> pa = num::packFp4x2(a.data(), a.size());
      std::vector<uint8_t> pb = num::packFp4x2(b.data(), b.size());
      std::vector<int64_t> saShape, sbShape;
      std::vector<uint8_t> saIn = laidOut(sa, s.M, kb, c.blockedA, saShape);
      std::vector<uint8_t> sbIn = laidOut(sb, s.N, kb, c.blockedB, sbShape);
      DeviceBuffer da(pa.size()), db(pb.size()), dsa(saIn.size()), dsb(sbIn.size()), dga(4),
          dgb(4);
      da.upload(pa);
      db.upload(pb);
      dsa.upload(saIn);
      dsb.upload(sbIn);
      dga.upload(std::vector<float>{ga});
      dgb.upload(std::vector<float>{gb});
      std::vector<rt::TensorRef> in = {rt::TensorRef(da.Ptr, rt::DType::U8, {s.M, s.K / 2}),
                                       rt::TensorRef(dsa.Ptr, rt::DType::F8E4M3FN, saShape),
                                       rt::TensorRef(dga.Ptr, rt::DType::F32, {}),
                                       rt::TensorRef(db.Ptr, rt::DType::U8, {s.N, s.K / 2}),
                                       rt::TensorRef(dsb.Ptr, rt::DType::F8E4M3FN, sbShape),
                                       rt::TensorRef(dgb.Ptr, rt::DType::F32, {})};
      // The dequantized operands: code times its block's e4m3 scale (the
      // tensor scales multiply the sum).
      std::vector<double> ad(a.size()), bd(b.size());
      double sumA = 0, sumB = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        int64_t r = i / s.K, k = i % s.K;
        ad[i] = double(num::decode(num::e2m1fn(), a[i])) *
                double(num::decode(num::e4m3fn(), sa[r * kb + k / 16]));
        if (r != nanRow)
          sumA += ad[i] * ad[i];
      }
      for (size_t i = 0; i < b.size(); ++i) {
        int64_t r = i / s.K, k = i % s.K;
        bd[i] = double(num::decode(num::e2m1fn(), b[i])) *
                double(num::decode(num::e4m3fn(), sb[r * kb + k / 16]));
        sumB += bd[i] * bd[i];
      }
      std::vector<std::vector<int64_t>> inShapes = {{s.M, s.K / 2}, saShape, {},
                                                    {s.N, s.K / 2}, sbShape, {}};
      std::vector<float> bias(s.N, 0.0f);
      std::vector<uint16_t> biasBf16;
      DeviceBuffer dbias(s.N * 4);
      if (c.bias != Bias::None) {
        double typical = double(ga) * double(gb) *
                         std::sqrt(double(s.K) * sumA / double(a.size()) * sumB / double(b.size()));
        for (auto &v : bias) {
          v = float(typical * double(int(rng() % 2001) - 1000) / 500.0);
          biasBf16.push_back(num::floatToBf16(v, num::Rounding::RN, num::Overflow::ToInfOrNaN));
          v = num::bf16ToFloat(biasBf16.back());
        }
        dbias.upload(biasBf16);
        in.push_back(rt::TensorRef(dbias.Ptr, rt::DType::BF16, {s.N}));
        inShapes.push_back({s.N});
      }
      // The fp64 matmul of the dequantized operands, times both tensor scales.
      auto ref = [&](int64_t m, int64_t n) {
        double r = 0;
        const double *ar = &ad[m * s.K], *br = &bd[n * s.K];
        for (int64_t k = 0; k < s.K; ++k)
          r += ar[k] * br[k];
        return r * double(ga) * double(gb) + bias[n];
      };
      checkLaunch(f, in, inShapes, s.M, s.N, s.K, c.f32Out, s.sampled, nanRow, rng, c.name, ref);
    }
  }
}

} // namespace
