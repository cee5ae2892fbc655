//===- Format.cpp - FPx format descriptions and lookup --------------------===//
#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/Vocabulary.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace fpx::num {

uint32_t Format::maxFiniteCode() const {
  switch (policy) {
  case SpecialPolicy::IEEE:
    return (((1u << ebits) - 2) << mbits) | ((1u << mbits) - 1);
  case SpecialPolicy::FiniteNaNAllOnes:
  case SpecialPolicy::UnsignedNaNAllOnes:
    return magnitudeMask() - 1;
  case SpecialPolicy::FiniteNoSpecials:
    return magnitudeMask();
  }
  return magnitudeMask();
}

uint32_t Format::nanCode() const { return magnitudeMask(); }

uint32_t Format::infCode() const { return ((1u << ebits) - 1) << mbits; }

bool Format::isNaNCode(uint32_t code) const {
  uint32_t mag = code & magnitudeMask();
  switch (policy) {
  case SpecialPolicy::IEEE:
    return (mag >> mbits) == (1u << ebits) - 1 &&
           (mag & ((1u << mbits) - 1)) != 0;
  case SpecialPolicy::FiniteNaNAllOnes:
  case SpecialPolicy::UnsignedNaNAllOnes:
    return mag == magnitudeMask();
  case SpecialPolicy::FiniteNoSpecials:
    return false;
  }
  return false;
}

bool Format::isInfCode(uint32_t code) const {
  return hasInf() && (code & magnitudeMask()) == infCode();
}

int Format::maxNormalExp() const {
  int expField = static_cast<int>(maxFiniteCode() >> mbits);
  return expField - bias;
}

double Format::maxFinite() const {
  double mant = 1.0 + double((maxFiniteCode() & ((1u << mbits) - 1))) /
                          double(1u << mbits);
  return std::ldexp(mant, maxNormalExp());
}

double Format::minNormal() const { return std::ldexp(1.0, minNormalExp()); }

double Format::minSubnormal() const {
  if (!hasSubnormals() || mbits == 0)
    return minNormal();
  return std::ldexp(1.0, minNormalExp() - mbits);
}

const char *toString(SpecialPolicy p) {
  switch (p) {
  case SpecialPolicy::IEEE:
    return "IEEE";
  case SpecialPolicy::FiniteNaNAllOnes:
    return "FiniteNaNAllOnes";
  case SpecialPolicy::FiniteNoSpecials:
    return "FiniteNoSpecials";
  case SpecialPolicy::UnsignedNaNAllOnes:
    return "UnsignedNaNAllOnes";
  }
  return "?";
}

Format makeFormat(std::string name, int ebits, int mbits, int bias,
                  bool hasSign, SpecialPolicy policy) {
  Format f{std::move(name), ebits, mbits, bias, hasSign, policy};
  if (ebits < 1 || ebits > 8 || mbits < 0 || mbits > 10 || f.bits() > 16)
    throw Error("fpx: format '" + f.name + "' has unsupported widths e" +
                std::to_string(ebits) + "m" + std::to_string(mbits));
  if (policy == SpecialPolicy::IEEE && mbits == 0)
    throw Error("fpx: IEEE policy needs mbits >= 1 to encode NaN ('" +
                f.name + "')");
  if ((f.maxFiniteCode() >> mbits) == 0 && f.hasSubnormals())
    throw Error("fpx: format '" + f.name + "' has no normal finite value");
  if (policy == SpecialPolicy::UnsignedNaNAllOnes && hasSign)
    throw Error("fpx: UnsignedNaNAllOnes formats are unsigned ('" + f.name +
                "')");
  return f;
}

static int defaultBias(int ebits) { return (1 << (ebits - 1)) - 1; }

const std::vector<Format> &namedFormats() {
  static const std::vector<Format> formats = {
      makeFormat("e4m3fn", 4, 3, 7, true, SpecialPolicy::FiniteNaNAllOnes),
      makeFormat("e5m2", 5, 2, 15, true, SpecialPolicy::IEEE),
      makeFormat("e2m3fn", 2, 3, 1, true, SpecialPolicy::FiniteNoSpecials),
      makeFormat("e3m2fn", 3, 2, 3, true, SpecialPolicy::FiniteNoSpecials),
      makeFormat("e2m1fn", 2, 1, 1, true, SpecialPolicy::FiniteNoSpecials),
      makeFormat("e8m0fnu", 8, 0, 127, false,
                 SpecialPolicy::UnsignedNaNAllOnes),
      makeFormat("ue4m3", 4, 3, 7, false, SpecialPolicy::FiniteNaNAllOnes),
      makeFormat("e2m2", 2, 2, 1, true, SpecialPolicy::FiniteNoSpecials),
  };
  return formats;
}

const Format &e4m3fn() { return namedFormats()[0]; }
const Format &e5m2() { return namedFormats()[1]; }
const Format &e2m3fn() { return namedFormats()[2]; }
const Format &e3m2fn() { return namedFormats()[3]; }
const Format &e2m1fn() { return namedFormats()[4]; }
const Format &e8m0fnu() { return namedFormats()[5]; }
const Format &ue4m3() { return namedFormats()[6]; }
const Format &fp16() {
  static const Format f = makeFormat("f16", 5, 10, 15, true, SpecialPolicy::IEEE);
  return f;
}
const Format &bf16() {
  static const Format f = makeFormat("bf16", 8, 7, 127, true, SpecialPolicy::IEEE);
  return f;
}

// Parses `[u]e<E>m<M>[fn|fnu|ieee][_b<bias>]`.
static std::optional<Format> parseGeneric(const std::string &s) {
  size_t i = 0;
  bool unsignedFmt = false;
  if (i < s.size() && s[i] == 'u') {
    unsignedFmt = true;
    ++i;
  }
  auto parseInt = [&](int &out) {
    size_t start = i;
    bool neg = false;
    if (i < s.size() && s[i] == '-') {
      neg = true;
      ++i;
    }
    int v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) &&
           i - start < 4)
      v = v * 10 + (s[i++] - '0');
    if (i == start + (neg ? 1 : 0))
      return false;
    out = neg ? -v : v;
    return true;
  };
  int e = 0, m = 0;
  if (i >= s.size() || s[i++] != 'e' || !parseInt(e))
    return std::nullopt;
  if (i >= s.size() || s[i++] != 'm' || !parseInt(m))
    return std::nullopt;
  std::string suffix;
  while (i < s.size() && s[i] != '_')
    suffix += s[i++];
  std::optional<int> bias;
  if (i < s.size()) {
    if (s.compare(i, 2, "_b") != 0)
      return std::nullopt;
    i += 2;
    int b = 0;
    if (!parseInt(b) || i != s.size())
      return std::nullopt;
    bias = b;
  }
  if (e < 1 || m < 0 || e + m + (unsignedFmt ? 0 : 1) > 8)
    return std::nullopt;
  int total = e + m + (unsignedFmt ? 0 : 1);
  SpecialPolicy policy;
  if (suffix.empty() || suffix == "fn")
    policy = total == 8 || unsignedFmt ? SpecialPolicy::FiniteNaNAllOnes
                                       : SpecialPolicy::FiniteNoSpecials;
  else if (suffix == "ieee")
    policy = SpecialPolicy::IEEE;
  else if (suffix == "fnu") {
    policy = SpecialPolicy::UnsignedNaNAllOnes;
    unsignedFmt = true;
  } else
    return std::nullopt;
  if (policy == SpecialPolicy::IEEE && m == 0)
    return std::nullopt;
  Format f{s, e, m, bias ? *bias : defaultBias(e), !unsignedFmt, policy};
  if ((f.maxFiniteCode() >> m) == 0 && f.hasSubnormals())
    return std::nullopt; // no normal finite value (e.g. e1m1ieee)
  return makeFormat(s, e, m, bias ? *bias : defaultBias(e), !unsignedFmt,
                    policy);
}

std::optional<Format> lookupFormat(std::string_view name) {
  std::string lower;
  for (char c : name)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // The names and aliases are the vocabulary's (Vocabulary.cpp).
  for (const FormatNames &n : formatNames()) {
    if (lower != n.format &&
        std::find(n.aliases.begin(), n.aliases.end(), lower) == n.aliases.end())
      continue;
    if (n.format == fp16().name)
      return fp16();
    if (n.format == bf16().name)
      return bf16();
    for (const Format &f : namedFormats())
      if (f.name == n.format)
        return f;
  }
  return parseGeneric(lower);
}

Format getFormat(std::string_view name) {
  if (auto f = lookupFormat(name))
    return *f;
  throw Error("fpx: unknown format '" + std::string(name) + "'");
}

} // namespace fpx::num
