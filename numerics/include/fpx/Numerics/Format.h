//===- Format.h - FPx element and scale formats -----------------*- C++ -*-===//
//
// The description of every sub-byte / byte floating-point format fpxc knows:
// sign + e<E>m<M> with a bias and a special-value policy. This is the single
// source of truth that the compiler, the runtime and the tests share
// (DESIGN.md §2); docs/formats.md is generated from it.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_FORMAT_H
#define FPX_NUMERICS_FORMAT_H

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::num {

/// The error every numerics entry point throws on invalid arguments
/// (bad shapes, unknown formats, a dimension that a packing cannot split).
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// How the all-ones exponent field and the all-ones code are interpreted.
enum class SpecialPolicy {
  /// IEEE 754 style: exponent all ones is inf (mantissa 0) or NaN (e5m2).
  IEEE,
  /// No inf; only the all-ones magnitude (S.1111.111) is NaN (e4m3fn, ue4m3).
  FiniteNaNAllOnes,
  /// Every code is a finite number; no inf, no NaN (MX fp6/fp4, FP6-LLM).
  FiniteNoSpecials,
  /// Unsigned, all-ones is NaN, and there are no subnormals and no zero:
  /// exponent field 0 is the binade 2^-bias (e8m0fnu, the MX scale format).
  UnsignedNaNAllOnes,
};

/// A floating-point format of at most 16 bits (named element formats are at
/// most 8 bits; fp16/bf16 are describable for the cvt.rs f16x2/bf16x2 paths).
struct Format {
  std::string name;
  int ebits = 0;
  int mbits = 0;
  int bias = 0;
  bool hasSign = true;
  SpecialPolicy policy = SpecialPolicy::FiniteNoSpecials;

  /// Total storage bits: sign (if any) + ebits + mbits.
  int bits() const { return (hasSign ? 1 : 0) + ebits + mbits; }
  bool hasInf() const { return policy == SpecialPolicy::IEEE; }
  bool hasNaN() const { return policy != SpecialPolicy::FiniteNoSpecials; }
  /// False only for UnsignedNaNAllOnes (e8m0): its code 0 is 2^-bias.
  bool hasSubnormals() const {
    return policy != SpecialPolicy::UnsignedNaNAllOnes;
  }
  bool hasZero() const { return hasSubnormals(); }

  /// Mask of the magnitude bits (everything but the sign bit).
  uint32_t magnitudeMask() const { return (1u << (ebits + mbits)) - 1; }
  /// The sign bit of a code (0 for unsigned formats).
  uint32_t signMask() const {
    return hasSign ? 1u << (ebits + mbits) : 0u;
  }
  /// Largest magnitude code that is a finite number.
  uint32_t maxFiniteCode() const;
  /// Canonical NaN code (what encode produces for NaN input); only valid
  /// when hasNaN(). Matches cuda_fp8.h: 0x7F for e4m3fn/e5m2, 0xFF e8m0.
  uint32_t nanCode() const;
  /// Positive infinity code; only valid when hasInf().
  uint32_t infCode() const;
  /// True if the code (magnitude part) is NaN / inf under this policy.
  bool isNaNCode(uint32_t code) const;
  bool isInfCode(uint32_t code) const;

  /// Smallest exponent of a normal number, i.e. value 2^minNormalExp().
  int minNormalExp() const { return hasSubnormals() ? 1 - bias : -bias; }
  /// Exponent of the largest finite value's binade.
  int maxNormalExp() const;
  double maxFinite() const;
  double minNormal() const;
  /// Smallest positive value (equals minNormal() without subnormals).
  double minSubnormal() const;

  bool operator==(const Format &o) const {
    return ebits == o.ebits && mbits == o.mbits && bias == o.bias &&
           hasSign == o.hasSign && policy == o.policy;
  }
  bool operator!=(const Format &o) const { return !(*this == o); }
};

/// Builds and validates a format; throws Error when bits() > 16, ebits < 1
/// or mbits < 0 (or UnsignedNaNAllOnes with a sign).
Format makeFormat(std::string name, int ebits, int mbits, int bias,
                  bool hasSign, SpecialPolicy policy);

/// The named formats of DESIGN §2, in documentation order:
/// e4m3fn, e5m2, e2m3fn, e3m2fn, e2m1fn, e8m0fnu, ue4m3, e2m2 (FP6-LLM style
/// 5-bit).
const std::vector<Format> &namedFormats();

/// Looks a format up by name. Accepts the canonical names of namedFormats(),
/// aliases (fp8_e4m3, float8_e4m3fn, mxfp6_e2m3, nvfp4, ue8m0, ...) and the
/// generic grammar `[u]e<E>m<M>[fn|fnu|ieee][_b<bias>]` with sign+E+M <= 8:
/// the default bias is 2^(E-1)-1; the default policy is FiniteNaNAllOnes for
/// 8-bit formats and FiniteNoSpecials for narrower ones; `fn` means "no inf"
/// with the same NaN rule; `ieee` gives inf/NaN; `fnu` gives the e8m0 rules.
/// Names are case-insensitive. Returns nullopt for anything else.
std::optional<Format> lookupFormat(std::string_view name);

/// Like lookupFormat but throws Error naming the unknown format.
Format getFormat(std::string_view name);

/// The canonical named formats, as handy accessors.
const Format &e4m3fn();
const Format &e5m2();
const Format &e2m3fn();
const Format &e3m2fn();
const Format &e2m1fn();
const Format &e8m0fnu();
const Format &ue4m3();
/// IEEE binary16 and bfloat16, for the cvt.rs f16x2/bf16x2 emulation.
const Format &fp16();
const Format &bf16();

const char *toString(SpecialPolicy p);

} // namespace fpx::num

#endif // FPX_NUMERICS_FORMAT_H
