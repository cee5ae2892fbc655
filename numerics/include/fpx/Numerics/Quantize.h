//===- Quantize.h - Scale rules and the reference block quantizer -*- C++ -*-=//
//
// Scale computation (E8M0 rules, NVFP4 two-level, fp32 per-tensor / per-row /
// blockwise) and the reference block quantizer that the compiler's GPU
// kernels are tested against bit for bit. Written to be obviously correct,
// not fast: one block at a time, one element at a time, every fp32 operation
// spelled out (docs/formats.md, "Scales").
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_QUANTIZE_H
#define FPX_NUMERICS_QUANTIZE_H

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"

#include <cstdint>
#include <vector>

namespace fpx::num {

/// How an E8M0 block scale 2^e is chosen from the block's amax
/// (emax = elem.maxNormalExp(), max = elem.maxFinite(); e clamped to
/// [-127, 127]; amax == 0 -> code 0x00; a NaN or infinite amax: NonFinite):
enum class ScaleRule {
  /// OCP MX v1.0: e = floor(log2(amax)) - emax. Values above max after
  /// scaling saturate.
  Floor,
  /// e = ceil(log2(amax)) - emax.
  Ceil,
  /// torchao "EVEN": round amax to elem.mbits mantissa bits (half up), then
  /// e = floor(log2(rounded)) - emax.
  Even,
  /// NVIDIA: code = cvt.rp.satfinite.ue8m0(amax / max) with an fp32 RN
  /// division (e = ceil(log2(fl(amax / max)))); never saturates elements.
  RCeil,
  /// As RCeil but with amax * fl(1 / max), the fp32 reciprocal form that
  /// Transformer Engine uses (can differ from RCeil by one at exact powers).
  /// The CPU reference's only: fpxc does not lower it.
  RCeilRcp,
  /// The scale is amax / max rounded to the scale type: the rule of the
  /// fp32 and NVFP4 kinds (which ignore ScaleRule). Rounded up to E8M0 it
  /// is RCeil, and e8m0Scale treats it so (as fpxc's lowering does).
  Amax,
};

/// The canonical name (Vocabulary.h has the table and the parser).
const char *toString(ScaleRule rule);

/// What an E8M0-scaled block holding +-inf or NaN produces.
enum class NonFinite {
  /// OCP MX v1.0 and torchao: scale code 0xFF (NaN) for a block with +-inf
  /// or NaN; its elements are x * NaN encoded, i.e. the element format's
  /// NaN code (e4m3fn, e5m2: 0x7F) or, for formats without NaN (fp6, fp4),
  /// +max (PTX's code for NaN): the scale alone marks the block.
  NaN,
  /// fpx before issue 35: an infinite amax gives code 0xFE (2^127) and the
  /// infinities saturate to +-max (the other elements underflow to +-0); a
  /// NaN block still gets 0xFF.
  Saturate,
};

/// The canonical name (Vocabulary.h has the table and the parser).
const char *toString(NonFinite nonFinite);

/// The E8M0 scale code for a block whose absolute maximum is `amax`.
uint8_t e8m0Scale(float amax, const Format &elem, ScaleRule rule,
                  NonFinite nonFinite = NonFinite::NaN);

/// NVFP4's fp32 global scale from a tensor amax: g = min(|amax|, FLT_MAX) /
/// (448 * 6) in fp32, 1 for an amax of 0, 2^-149 where the quotient
/// underflows to 0, NaN for NaN (a given amax's magnitude counts).
float nvfp4GlobalScale(float amax);

/// The kind of scale a quantization produces.
enum class ScaleKind {
  /// One e8m0fnu code per block (MXFP8/MXFP6/MXFP4), chosen by ScaleRule.
  E8M0,
  /// NVFP4 two level: fp32 global scale g = amax_tensor / (448 * 6) per batch
  /// entry, one ue4m3 code per block = RN(fl(fl(amax_block / 6) / g)).
  NVFP4,
  /// One fp32 scale per block: s = fl(amax / max) (s = 1 when amax == 0).
  FP32,
  /// One fp32 power-of-two scale per block: s = 2^ceil(log2(fl(amax/max))).
  FP32Pow2,
};

const char *toString(ScaleKind kind);

/// What to quantize and how.
struct QuantSpec {
  Format elem = e4m3fn();
  /// Block shape over the last two dims; 0 means "the whole dimension".
  /// 1x32 = MX rows, 32x1 = MX columns, 1x16 NVFP4, 1x128 / 128x128 fp8
  /// blockwise, {1, 0} per row, {0, 0} per tensor.
  int64_t blockRows = 1;
  int64_t blockCols = 32;
  ScaleKind scaleKind = ScaleKind::E8M0;
  ScaleRule rule = ScaleRule::Floor;
  Rounding rounding = Rounding::RN;
  Overflow elemOverflow = Overflow::SatFinite;
  /// E8M0 kinds: what a block holding +-inf or NaN produces. The other
  /// kinds ignore it (docs/formats.md, "Non-finite inputs").
  NonFinite nonFinite = NonFinite::NaN;
  /// Seed of the Philox stream for Rounding::RS (see stochasticElementBits).
  uint64_t seed = 0;
  /// NVFP4 only: false drops the global scale (g = 1).
  bool nvfp4GlobalScale = true;
  /// NVFP4 with the global scale: the tensor amax g is derived from, one per
  /// batch entry (or one for all), instead of max |x| of the entry (delayed
  /// scaling: an amax kept from an earlier step). Empty: computed from x.
  std::vector<float> nvfp4TensorAmax;
};

/// The output of quantize(): one element code per byte (pack them with
/// Packing.h), one scale per block, and the decoded scales.
struct Quantized {
  int64_t batch = 0, rows = 0, cols = 0;
  /// Number of blocks along rows / cols (per batch entry); partial blocks at
  /// the edges count as blocks.
  int64_t scaleRows = 0, scaleCols = 0;
  /// The effective block shape (0 in QuantSpec resolved to the dimension).
  int64_t blockRows = 1, blockCols = 1;
  /// batch * rows * cols codes, row-major.
  std::vector<uint8_t> codes;
  /// batch * scaleRows * scaleCols scale codes (e8m0fnu or ue4m3); empty for
  /// the fp32 kinds.
  std::vector<uint8_t> scaleCodes;
  /// batch * scaleRows * scaleCols: the fp32 factor each block dequantizes
  /// with (for NVFP4: decode(ue4m3 code) * global scale, an fp32 product).
  std::vector<float> scales;
  /// Per batch entry: the NVFP4 global scale g (1 for the other kinds).
  std::vector<float> globalScales;
};

/// Random bits element `index` (flat row-major index over the whole
/// tensor) consumes under Rounding::RS: elements 4k..4k+3 are the operands
/// f, e, b, a of one cvt.rs x4 (so the result word, stored little-endian,
/// is in memory order) and share the word philoxBits(seed, k), each
/// taking its byte as cvtRsOperandBits describes (e2m1 layout for 4-bit
/// formats, the f8/f6 layout otherwise).
uint32_t stochasticElementBits(const Format &elem, uint64_t seed,
                               uint64_t index);

/// The reference block quantizer over a row-major [batch, rows, cols] fp32
/// array (batch = 1 for 2-D). Per block: amax = max |x| (NaN if any x is
/// NaN); scale per ScaleKind; each element y = x * 2^-e (E8M0) or x / S
/// (other kinds) in fp32, then encode(elem, y, rounding, elemOverflow).
Quantized quantize(const float *x, int64_t batch, int64_t rows, int64_t cols,
                   const QuantSpec &spec);
/// Same over bfloat16 raw bits (widened exactly to fp32 first).
Quantized quantizeBf16(const uint16_t *x, int64_t batch, int64_t rows,
                       int64_t cols, const QuantSpec &spec);
/// decode(code) * scale of its block, in fp32.
std::vector<float> dequantize(const Quantized &q, const Format &elem);

/// The largest |x| of a range (NaN if any element is NaN).
float absMax(const float *x, size_t n);

} // namespace fpx::num

#endif // FPX_NUMERICS_QUANTIZE_H
