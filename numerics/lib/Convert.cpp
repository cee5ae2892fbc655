//===- Convert.cpp - Bit-exact FPx conversions ----------------------------===//
//
// One generic integer algorithm handles every format: write |x| = m * 2^e
// exactly, pick the destination quantum 2^q of the binade (or of the
// subnormal range), split m * 2^(e-q) into kept and discarded bits, round,
// and let a carry roll into the exponent field. No floating-point arithmetic
// is involved, so the host compiler's flags cannot change a result.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Convert.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace fpx::num {

const char *toString(Overflow o) {
  return o == Overflow::SatFinite ? "satfinite" : "inf_or_nan";
}

int stochasticBits(const Format &fmt) {
  if (fmt.bits() <= 8)
    return 8;
  if (fmt == fp16())
    return 13;
  if (fmt == bf16())
    return 16;
  // Other wide formats: as many bits as a normal fp32 input discards.
  return 23 - fmt.mbits;
}

static inline uint32_t floatBits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

static inline float bitsFloat(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

namespace {
/// The per-format constants of the encoder, computed once.
struct Params {
  int mbits;
  int emin;           // exponent of the smallest normal binade
  bool subnormals;    // exponent field 0 holds subnormals and zero
  bool hasSign;
  bool hasNaN;
  bool hasInf;
  uint32_t signShift; // ebits + mbits
  uint32_t maxCode;
  uint32_t nanCode;
  uint32_t infCode;
  int rsBits;

  explicit Params(const Format &f)
      : mbits(f.mbits), emin(f.minNormalExp()), subnormals(f.hasSubnormals()),
        hasSign(f.hasSign), hasNaN(f.hasNaN()), hasInf(f.hasInf()),
        signShift(f.ebits + f.mbits), maxCode(f.maxFiniteCode()),
        nanCode(f.nanCode()), infCode(f.infCode()),
        rsBits(stochasticBits(f)) {}
};
} // namespace

static inline uint32_t encodeWith(const Params &p, uint32_t xb, Rounding r,
                                  Overflow ov, uint32_t rnd) {
  uint32_t absb = xb & 0x7fffffffu;
  bool neg = p.hasSign && (xb >> 31);
  uint32_t signOut = neg ? 1u << p.signShift : 0u;
  if (absb > 0x7f800000u) // NaN: canonical positive NaN, or +max (PTX rule)
    return p.hasNaN ? p.nanCode : p.maxCode;
  if (absb == 0x7f800000u) {
    if (ov == Overflow::SatFinite || !p.hasNaN)
      return signOut | p.maxCode;
    return signOut | (p.hasInf ? p.infCode : p.nanCode);
  }
  if (absb == 0)
    return p.subnormals ? signOut : 0u;

  // |x| = m * 2^e exactly, m < 2^24.
  int bexp = static_cast<int>(absb >> 23);
  uint32_t m;
  int e;
  if (bexp) {
    m = (absb & 0x7fffffu) | 0x800000u;
    e = bexp - 150;
  } else {
    m = absb;
    e = -149;
  }
  int exp = e + 31 - __builtin_clz(m); // floor(log2 |x|)
  int binade = exp < p.emin ? p.emin : exp;
  int q = binade - p.mbits; // exponent of the destination ulp
  int s = q - e;            // bits of m that are discarded
  uint64_t n;
  if (s <= 0) {
    n = static_cast<uint64_t>(m) << -s;
  } else if (s > 40) {
    // Everything is discarded and |x| < half an ulp.
    n = 0;
    bool up = false;
    switch (r) {
    case Rounding::RP:
      up = !neg;
      break;
    case Rounding::RM:
      up = neg;
      break;
    default:
      break; // RN: below half; RS: top random-aligned bits are zero
    }
    n = up ? 1 : 0;
  } else {
    uint64_t mm = m;
    n = mm >> s;
    uint64_t rem = mm & ((uint64_t(1) << s) - 1);
    switch (r) {
    case Rounding::RN: {
      // Ties go to the even code. With mbits >= 1 that is the parity of n;
      // with mbits == 0 (e8m0-like) the exponent field is the whole code.
      uint64_t half = uint64_t(1) << (s - 1);
      uint64_t odd = p.mbits ? n & 1
                             : (uint64_t(binade - p.emin) + n +
                                (p.subnormals ? 0 : 1)) & 1;
      // Branch-free: the tie test mispredicts on real data.
      n += static_cast<uint64_t>((rem > half) | ((rem == half) & (odd != 0)));
      break;
    }
    case Rounding::RZ:
      break;
    case Rounding::RP:
      if (rem && !neg)
        ++n;
      break;
    case Rounding::RM:
      if (rem && neg)
        ++n;
      break;
    case Rounding::RS: {
      // Align the random bits with the top of the discarded field; carry out
      // of the addition rounds away from zero (PTX cvt.rs).
      int k = p.rsBits;
      uint64_t top = s >= k ? rem >> (s - k) : rem << (k - s);
      uint64_t mask = (uint64_t(1) << k) - 1;
      n += (top + (rnd & mask)) >> k;
      break;
    }
    }
  }

  int64_t code = (static_cast<int64_t>(binade - p.emin) << p.mbits) +
                 static_cast<int64_t>(n);
  if (!p.subnormals) {
    code -= int64_t(1) << p.mbits;
    if (code < 0)
      code = 0; // below the smallest value (2^-bias): clip, as CUDA's e8m0
  }
  if (code > static_cast<int64_t>(p.maxCode)) {
    bool towardZero = r == Rounding::RZ || (r == Rounding::RP && neg) ||
                      (r == Rounding::RM && !neg);
    if (ov == Overflow::SatFinite || !p.hasNaN || towardZero)
      return signOut | p.maxCode;
    return signOut | (p.hasInf ? p.infCode : p.nanCode);
  }
  return signOut | static_cast<uint32_t>(code);
}

uint32_t encodeBits(const Format &fmt, float x, Rounding rounding,
                    Overflow overflow, uint32_t randomBits) {
  Params p(fmt);
  return encodeWith(p, floatBits(x), rounding, overflow, randomBits);
}

uint8_t encode(const Format &fmt, float x, Rounding rounding,
               Overflow overflow, uint32_t randomBits) {
  if (fmt.bits() > 8)
    throw Error("fpx: encode() returns a byte; format '" + fmt.name +
                "' is wider (use encodeBits)");
  return static_cast<uint8_t>(
      encodeBits(fmt, x, rounding, overflow, randomBits));
}

float bf16ToFloat(uint16_t bits) { return bitsFloat(uint32_t(bits) << 16); }

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  uint32_t out;
  if (exp == 0x1f) {
    out = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    out = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    out = sign;
  } else {
    // Subnormal half: normalize into an fp32 normal.
    int shift = __builtin_clz(man) - 21; // bring the leading 1 to bit 10
    man = (man << shift) & 0x3ff;
    out = sign | (uint32_t(113 - shift) << 23) | (man << 13);
  }
  return bitsFloat(out);
}

uint8_t encodeBf16(const Format &fmt, uint16_t bits, Rounding rounding,
                   Overflow overflow, uint32_t randomBits) {
  return encode(fmt, bf16ToFloat(bits), rounding, overflow, randomBits);
}

uint8_t encodeFp16(const Format &fmt, uint16_t bits, Rounding rounding,
                   Overflow overflow, uint32_t randomBits) {
  return encode(fmt, halfToFloat(bits), rounding, overflow, randomBits);
}

float decode(const Format &fmt, uint32_t code) {
  uint32_t mag = code & fmt.magnitudeMask();
  bool neg = (code & fmt.signMask()) != 0;
  if (fmt.isNaNCode(mag))
    return bitsFloat((neg ? 0x80000000u : 0u) | 0x7fc00000u);
  if (fmt.isInfCode(mag))
    return neg ? -std::numeric_limits<float>::infinity()
               : std::numeric_limits<float>::infinity();
  uint32_t expField = mag >> fmt.mbits;
  uint32_t man = mag & ((1u << fmt.mbits) - 1);
  float v;
  if (fmt.hasSubnormals() && expField == 0)
    v = std::ldexp(static_cast<float>(man), fmt.minNormalExp() - fmt.mbits);
  else
    v = std::ldexp(static_cast<float>((1u << fmt.mbits) + man),
                   static_cast<int>(expField) - fmt.bias - fmt.mbits);
  return neg ? -v : v;
}

uint16_t floatToBf16(float x, Rounding rounding, Overflow overflow,
                     uint32_t randomBits) {
  uint32_t code = encodeBits(bf16(), x, rounding, overflow, randomBits);
  if (std::isnan(x)) // keep the IEEE canonical quiet NaN of bf16
    code = 0x7fff;
  return static_cast<uint16_t>(code);
}

uint16_t floatToHalf(float x, Rounding rounding, Overflow overflow,
                     uint32_t randomBits) {
  uint32_t code = encodeBits(fp16(), x, rounding, overflow, randomBits);
  if (std::isnan(x))
    code = 0x7fff;
  return static_cast<uint16_t>(code);
}

//===----------------------------------------------------------------------===//
// PTX cvt.rs
//===----------------------------------------------------------------------===//

static void checkX4Format(const Format &fmt) {
  if (fmt != e4m3fn() && fmt != e5m2() && fmt != e2m3fn() &&
      fmt != e3m2fn() && fmt != e2m1fn())
    throw Error("fpx: cvt.rs x4 exists for e4m3/e5m2/e2m3/e3m2/e2m1 only, "
                "not '" + fmt.name + "'");
}

int cvtRsOperandShift(const Format &fmt, int operand) {
  if (operand < 0 || operand > 3)
    throw Error("fpx: cvt.rs x4 operand index must be 0..3");
  static const int kShiftsF8F6[4] = {24, 16, 8, 0};
  static const int kShiftsF4[4] = {24, 8, 16, 0};
  return (fmt.bits() <= 4 ? kShiftsF4 : kShiftsF8F6)[operand];
}

uint32_t cvtRsOperandBits(const Format &fmt, uint32_t rbits, int operand) {
  checkX4Format(fmt);
  return (rbits >> cvtRsOperandShift(fmt, operand)) & 0xffu;
}

uint32_t cvtRsX4(const Format &fmt, float a, float b, float e, float f,
                 uint32_t rbits) {
  checkX4Format(fmt);
  const float in[4] = {a, b, e, f};
  const int width = fmt == e2m1fn() ? 4 : 8;
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t code = encodeBits(fmt, in[i], Rounding::RS, Overflow::SatFinite,
                               cvtRsOperandBits(fmt, rbits, i));
    d |= code << ((3 - i) * width);
  }
  return d;
}

uint32_t cvtRsF16x2(float a, float b, uint32_t rbits, bool satfinite) {
  Overflow ov = satfinite ? Overflow::SatFinite : Overflow::ToInfOrNaN;
  uint32_t hi = floatToHalf(a, Rounding::RS, ov, (rbits >> 16) & 0x1fffu);
  uint32_t lo = floatToHalf(b, Rounding::RS, ov, rbits & 0x1fffu);
  return (hi << 16) | lo;
}

uint32_t cvtRsBf16x2(float a, float b, uint32_t rbits, bool satfinite) {
  Overflow ov = satfinite ? Overflow::SatFinite : Overflow::ToInfOrNaN;
  uint32_t hi = floatToBf16(a, Rounding::RS, ov, rbits >> 16);
  uint32_t lo = floatToBf16(b, Rounding::RS, ov, rbits & 0xffffu);
  return (hi << 16) | lo;
}

//===----------------------------------------------------------------------===//
// Bulk conversion
//===----------------------------------------------------------------------===//

Encoder::Encoder(const Format &fmt, Rounding rounding, Overflow overflow)
    : fmt(fmt), rounding(rounding), overflow(overflow) {
  if (fmt.bits() > 8)
    throw Error("fpx: Encoder handles formats of at most 8 bits");
  if (rounding == Rounding::RS)
    throw Error("fpx: Encoder is deterministic; use encodeStochastic for rs");
  Params p(fmt);
  bf16Table.resize(65536);
  fp16Table.resize(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    bf16Table[i] = static_cast<uint8_t>(
        encodeWith(p, floatBits(bf16ToFloat(uint16_t(i))), rounding, overflow, 0));
    fp16Table[i] = static_cast<uint8_t>(
        encodeWith(p, floatBits(halfToFloat(uint16_t(i))), rounding, overflow, 0));
  }
  for (uint32_t c = 0; c < 256; ++c)
    decodeTable[c] = num::decode(fmt, c);
}

void Encoder::encode(const float *in, uint8_t *out, size_t n) const {
  Params p(fmt);
  const Rounding r = rounding;
  const Overflow ov = overflow;
  for (size_t i = 0; i < n; ++i) {
    uint32_t b;
    std::memcpy(&b, in + i, 4);
    out[i] = static_cast<uint8_t>(encodeWith(p, b, r, ov, 0));
  }
}

void Encoder::encodeBf16(const uint16_t *in, uint8_t *out, size_t n) const {
  const uint8_t *t = bf16Table.data();
  for (size_t i = 0; i < n; ++i)
    out[i] = t[in[i]];
}

void Encoder::encodeFp16(const uint16_t *in, uint8_t *out, size_t n) const {
  const uint8_t *t = fp16Table.data();
  for (size_t i = 0; i < n; ++i)
    out[i] = t[in[i]];
}

void Encoder::decode(const uint8_t *in, float *out, size_t n) const {
  uint32_t mask = (1u << fmt.bits()) - 1;
  for (size_t i = 0; i < n; ++i)
    out[i] = decodeTable[in[i] & mask];
}

void encodeStochastic(const Format &fmt, const float *in,
                      const uint32_t *randomBits, uint8_t *out, size_t n,
                      Overflow overflow) {
  if (fmt.bits() > 8)
    throw Error("fpx: encodeStochastic handles formats of at most 8 bits");
  Params p(fmt);
  for (size_t i = 0; i < n; ++i) {
    uint32_t b;
    std::memcpy(&b, in + i, 4);
    out[i] = static_cast<uint8_t>(
        encodeWith(p, b, Rounding::RS, overflow, randomBits[i]));
  }
}

} // namespace fpx::num
