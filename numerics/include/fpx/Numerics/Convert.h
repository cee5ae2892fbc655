//===- Convert.h - Encode/decode between fp32/bf16/fp16 and FPx -*- C++ -*-===//
//
// Bit-exact conversions into and out of every Format: round to nearest even,
// toward zero, toward +/-inf and stochastic rounding with caller-given random
// bits as PTX `cvt.rs` consumes them. docs/formats.md states every rule.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_CONVERT_H
#define FPX_NUMERICS_CONVERT_H

#include "fpx/Numerics/Format.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fpx::num {

/// Rounding modes. RP/RM round toward +inf/-inf (for unsigned formats the
/// sign is ignored first, so RP is "ceil of |x|" and RZ/RM are "floor").
enum class Rounding { RN, RZ, RP, RM, RS };

/// What happens to a finite value beyond the largest finite one (and to inf).
enum class Overflow {
  /// Clamp to +/- the largest finite value (PTX `.satfinite`).
  SatFinite,
  /// IEEE overflow: inf where the format has inf, else NaN where it has NaN
  /// (the sign is kept), else the largest finite value. Directed roundings
  /// toward zero still give the largest finite value, as in IEEE 754.
  ToInfOrNaN,
};

const char *toString(Rounding r);
const char *toString(Overflow o);

/// Random bits an element of `fmt` consumes under Rounding::RS: 16 for bf16,
/// 13 for fp16 and 8 for every format of at most 8 bits (PTX cvt.rs).
int stochasticBits(const Format &fmt);

/// Encodes an fp32 value into `fmt` (any format up to 16 bits). For
/// Rounding::RS the low stochasticBits(fmt) bits of `randomBits` are added,
/// aligned to the most significant discarded bit, to the discarded bits of
/// |x|; a carry out rounds away from zero. NaN gives nanCode() (positive) or,
/// for formats without NaN, +maxFinite as PTX does. Unsigned formats encode
/// |x|. Zero keeps its sign; e8m0 (no zero) clamps everything below 2^-127
/// to code 0.
uint32_t encodeBits(const Format &fmt, float x, Rounding rounding,
                    Overflow overflow, uint32_t randomBits = 0);

/// encodeBits for formats of at most 8 bits (throws Error otherwise).
uint8_t encode(const Format &fmt, float x, Rounding rounding,
               Overflow overflow, uint32_t randomBits = 0);
/// Encodes a bfloat16 value given as raw bits (exact: bf16 -> fp32 is exact,
/// so this is one rounding, as cuda_fp8.h's __nv_cvt_bfloat16raw_to_fp8).
uint8_t encodeBf16(const Format &fmt, uint16_t bf16Bits, Rounding rounding,
                   Overflow overflow, uint32_t randomBits = 0);
/// Encodes an IEEE binary16 value given as raw bits.
uint8_t encodeFp16(const Format &fmt, uint16_t halfBits, Rounding rounding,
                   Overflow overflow, uint32_t randomBits = 0);

/// Decodes a code of `fmt` to fp32 (exact for every format here). NaN codes
/// decode to a quiet NaN carrying the code's sign; bits above bits() are
/// ignored.
float decode(const Format &fmt, uint32_t code);

/// Exact widenings of the 16-bit float formats.
float bf16ToFloat(uint16_t bits);
float halfToFloat(uint16_t bits);
/// fp32 -> bf16 / fp16 raw bits with the given rounding; RS takes 16 / 13
/// random bits as cvt.rs.bf16x2 / cvt.rs.f16x2 do.
uint16_t floatToBf16(float x, Rounding rounding, Overflow overflow,
                     uint32_t randomBits = 0);
uint16_t floatToHalf(float x, Rounding rounding, Overflow overflow,
                     uint32_t randomBits = 0);

//===----------------------------------------------------------------------===//
// PTX cvt.rs emulation
//===----------------------------------------------------------------------===//

/// The random bits that operand `operand` (0..3 = a, b, e, f) of a
/// `cvt.rs.satfinite.<fmt>x4.f32 d, {a, b, e, f}, rbits` consumes:
///   e4m3x4/e5m2x4/e2m3x4/e3m2x4: a = rbits[31:24], b = [23:16], e = [15:8],
///                                f = [7:0]  (upper half for a,b);
///   e2m1x4: a = rbits[31:24], b = [15:8], e = [23:16], f = [7:0] (upper
///           byte of each half for a,b, lower byte of each half for e,f).
uint32_t cvtRsOperandBits(const Format &fmt, uint32_t rbits, int operand);

/// The shift of that byte in rbits: cvtRsOperandBits is
/// (rbits >> cvtRsOperandShift(fmt, operand)) & 0xff. Four-bit formats take
/// e2m1x4's order, all others the 8/6-bit one (no format check: the
/// stochastic-rounding reference and the compiler's emulation use it for
/// every format they round by cvt.rs's rules).
int cvtRsOperandShift(const Format &fmt, int operand);

/// Emulates `cvt.rs.satfinite.<fmt>x4.f32 d, {a, b, e, f}, rbits` for fmt in
/// {e4m3fn, e5m2, e2m3fn, e3m2fn, e2m1fn}. Returns d: for 8/6-bit formats a
/// 32-bit word with a in d[31:24] ... f in d[7:0] (fp6 codes zero-extended);
/// for e2m1 a 16-bit word with a in d[15:12] ... f in d[3:0].
uint32_t cvtRsX4(const Format &fmt, float a, float b, float e, float f,
                 uint32_t rbits);

/// Emulates `cvt.rs{.satfinite}.f16x2.f32 d, a, b, rbits`: a -> d[31:16]
/// using rbits[28:16], b -> d[15:0] using rbits[12:0].
uint32_t cvtRsF16x2(float a, float b, uint32_t rbits, bool satfinite);
/// Emulates `cvt.rs{.satfinite}.bf16x2.f32 d, a, b, rbits`: a -> d[31:16]
/// using rbits[31:16], b -> d[15:0] using rbits[15:0].
uint32_t cvtRsBf16x2(float a, float b, uint32_t rbits, bool satfinite);

//===----------------------------------------------------------------------===//
// Bulk conversion (the CPU fallback path)
//===----------------------------------------------------------------------===//

/// A converter for one (format, rounding, overflow) triple that precomputes
/// 64K-entry tables for 16-bit inputs and a decode table, so that bulk
/// conversions run at memory speed. Rounding::RS is not table-driven: use
/// encodeStochastic with explicit random bits.
class Encoder {
public:
  Encoder(const Format &fmt, Rounding rounding, Overflow overflow);

  const Format &format() const { return fmt; }
  void encode(const float *in, uint8_t *out, size_t n) const;
  void encodeBf16(const uint16_t *in, uint8_t *out, size_t n) const;
  void encodeFp16(const uint16_t *in, uint8_t *out, size_t n) const;
  void decode(const uint8_t *in, float *out, size_t n) const;

private:
  Format fmt;
  Rounding rounding;
  Overflow overflow;
  std::vector<uint8_t> bf16Table, fp16Table;
  float decodeTable[256];
};

/// Stochastic bulk encode: element i uses randomBits[i] (low
/// stochasticBits(fmt) bits), as scalar encode with Rounding::RS.
void encodeStochastic(const Format &fmt, const float *in,
                      const uint32_t *randomBits, uint8_t *out, size_t n,
                      Overflow overflow);

} // namespace fpx::num

#endif // FPX_NUMERICS_CONVERT_H
