//===- Vocabulary.cpp - The names of every fpx format, rule and layout ----===//
//
// Every word of fpx is written here once; Vocabulary.h says who reads it.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Vocabulary.h"

#include <algorithm>
#include <cctype>

namespace fpx::num {

bool Names::spells(std::string_view word) const {
  return word == name || word == api ||
         std::find(aliases.begin(), aliases.end(), word) != aliases.end();
}

//===----------------------------------------------------------------------===//
// Formats and schemes
//===----------------------------------------------------------------------===//

const std::vector<FormatNames> &formatNames() {
  static const std::vector<FormatNames> table = {
      {"e4m3fn",
       {"e4m3", "fp8_e4m3", "float8_e4m3fn", "f8e4m3fn", "mxfp8_e4m3", "mxfp8",
        "fp8"}},
      {"e5m2", {"fp8_e5m2", "float8_e5m2", "f8e5m2", "mxfp8_e5m2"}},
      {"e2m3fn",
       {"e2m3", "fp6_e2m3", "mxfp6_e2m3", "float6_e2m3fn", "f6e2m3fn"}},
      {"e3m2fn",
       {"e3m2", "fp6_e3m2", "mxfp6_e3m2", "float6_e3m2fn", "f6e3m2fn",
        "fp6_llm", "fp6"}},
      {"e2m1fn",
       {"e2m1", "fp4", "fp4_e2m1", "mxfp4", "nvfp4", "float4_e2m1fn",
        "f4e2m1fn"}},
      {"e8m0fnu", {"e8m0", "ue8m0", "float8_e8m0fnu", "f8e8m0fnu", "mx_scale"}},
      {"ue4m3", {"nvfp4_scale"}},
      {"e2m2", {"fp5_e2m2"}},
      {"f16", {"fp16", "half"}},
      {"bf16", {"bfloat16"}},
  };
  return table;
}

const std::vector<std::string_view> &formatAliases(std::string_view format) {
  static const std::vector<std::string_view> none;
  for (const FormatNames &f : formatNames())
    if (f.format == format)
      return f.aliases;
  return none;
}

const std::vector<SchemeInfo> &schemes() {
  static const std::vector<SchemeInfo> table = {
      {{"mxfp8_e4m3", "mxfp8_e4m3", {}, "OCP MX fp8: e4m3fn, an e8m0 scale per 32"},
       "e4m3fn", ScaleKind::E8M0, 1, 32},
      {{"mxfp8_e5m2", "mxfp8_e5m2", {}, "OCP MX fp8: e5m2, an e8m0 scale per 32"},
       "e5m2", ScaleKind::E8M0, 1, 32},
      {{"mxfp6_e2m3", "mxfp6_e2m3", {}, "OCP MX fp6: e2m3fn, an e8m0 scale per 32"},
       "e2m3fn", ScaleKind::E8M0, 1, 32},
      {{"mxfp6_e3m2", "mxfp6_e3m2", {}, "OCP MX fp6: e3m2fn, an e8m0 scale per 32"},
       "e3m2fn", ScaleKind::E8M0, 1, 32},
      {{"mxfp4", "mxfp4", {"mxfp4_e2m1"}, "OCP MX fp4: e2m1fn, an e8m0 scale per 32"},
       "e2m1fn", ScaleKind::E8M0, 1, 32},
      {{"nvfp4", "nvfp4", {}, "NVFP4: e2m1fn, a ue4m3 scale per 16 times an fp32 global scale"},
       "e2m1fn", ScaleKind::NVFP4, 1, 16},
      {{"fp8_e4m3", "fp8_e4m3", {}, "fp8 e4m3fn with fp32 scales (1x128 by default)"},
       "e4m3fn", ScaleKind::FP32, 1, 128},
      {{"fp8_e5m2", "fp8_e5m2", {}, "fp8 e5m2 with fp32 scales (1x128 by default)"},
       "e5m2", ScaleKind::FP32, 1, 128},
  };
  return table;
}

const SchemeInfo *lookupScheme(std::string_view word) {
  std::string lower;
  for (char c : word)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const SchemeInfo &s : schemes())
    if (s.names.spells(lower))
      return &s;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Enum tables
//===----------------------------------------------------------------------===//

const std::vector<ScaleKindInfo> &scaleKinds() {
  static const std::vector<ScaleKindInfo> table = {
      {ScaleKind::E8M0, {"e8m0", "e8m0", {}, "one e8m0fnu code a block (MX)"},
       "e8m0fnu"},
      {ScaleKind::NVFP4,
       {"nvfp4", "nvfp4", {}, "one ue4m3 code a block times an fp32 global scale"},
       "ue4m3"},
      {ScaleKind::FP32, {"fp32", "fp32", {}, "one fp32 scale a block: amax / max"},
       ""},
      {ScaleKind::FP32Pow2,
       {"fp32_pow2", "fp32_pow2", {}, "one fp32 power of two a block"}, ""},
  };
  return table;
}

const std::vector<ScaleRuleInfo> &scaleRules() {
  static const std::vector<ScaleRuleInfo> table = {
      {ScaleRule::Floor,
       {"floor", "floor", {}, "OCP MX: 2^(floor(log2 amax) - emax)"}, true, true},
      {ScaleRule::Ceil, {"ceil", "ceil", {}, "2^(ceil(log2 amax) - emax)"}, true,
       true},
      {ScaleRule::Even,
       {"even", "even", {}, "torchao EVEN: amax rounded to the element's mantissa, then floor"},
       true, true},
      {ScaleRule::RCeil,
       {"rceil", "rceil", {}, "NVIDIA: cvt.rp.ue8m0(amax / max)"}, true, true},
      {ScaleRule::RCeilRcp,
       {"rceil_rcp", "rceil_rcp", {}, "Transformer Engine: cvt.rp.ue8m0(amax * (1 / max))"},
       true, false},
      {ScaleRule::Amax,
       {"amax", "amax", {}, "amax / max rounded to the scale type (fp32, NVFP4's ue4m3)"},
       false, true},
  };
  return table;
}

const std::vector<RoundingInfo> &roundings() {
  static const std::vector<RoundingInfo> table = {
      {Rounding::RN, {"rn", "rn", {}, "to nearest, ties to even"}, true},
      {Rounding::RZ, {"rz", "rz", {}, "toward zero"}, true},
      {Rounding::RS, {"rs", "rs", {}, "stochastic, as PTX cvt.rs"}, true},
      {Rounding::RP, {"rp", "rp", {}, "toward +inf"}, false},
      {Rounding::RM, {"rm", "rm", {}, "toward -inf"}, false},
  };
  return table;
}

// The default first.
const std::vector<NonFiniteInfo> &nonFinites() {
  static const std::vector<NonFiniteInfo> table = {
      {NonFinite::NaN,
       {"nan", "nan", {}, "OCP MX / torchao: a block with inf or NaN gets scale 0xFF and NaN elements"}},
      {NonFinite::Saturate,
       {"saturate", "saturate", {}, "an infinite block amax gives scale 0xFE and +-max elements"}},
  };
  return table;
}

// Fp4x2 first: the Python API lists fp4's packings as (fp4x2, bytes) and
// fp6's as (bytes, planes, contiguous, contiguous_msb, interleaved), in this
// order. Two layouts are "4+2" splits (planes and interleaved); the bare word
// "4+2" names neither (parsePacking explains).
const std::vector<PackingInfo> &packings() {
  static const std::vector<PackingInfo> table = {
      {Packing::Fp4x2,
       {"fp4x2", "fp4x2", {}, "two fp4 codes a byte, the first in the low nibble"},
       4},
      {Packing::Bytes,
       {"bytes", "bytes", {"fp6_byte"}, "one code a byte, in its low bits"}, 0},
      {Packing::Fp6Planes,
       {"planes", "planes", {"fp6_planes"},
        "per row, a plane of the 2 high bits then a plane of the 4 low bits "
        "(formerly \"4+2\")"},
       6},
      {Packing::Fp6Contiguous24,
       {"contiguous24", "contiguous", {"fp6_packed"},
        "4 fp6 codes in a little-endian 24-bit word"},
       6},
      {Packing::Fp6Contiguous24Msb,
       {"contiguous24_msb", "contiguous_msb", {},
        "4 fp6 codes in 3 bytes, most significant bits first"},
       6},
      {Packing::Fp6Interleaved4p2,
       {"interleaved", "interleaved", {"fp6_interleaved"},
        "every 4 codes in 3 bytes: their 4 high bits in two, their 2 low bits "
        "in the third (torchao #1810 pack_uint6_pytorch)"},
       6},
      {Packing::MmaTiles,
       {"mma_tiles", "mma_tiles", {},
        "a GEMM weight in tiles of 16 rows x 32 bytes (32 8-bit or 64 4-bit codes), as the "
        "weight-only kernel's lanes read it"},
       8, // also 4-bit (e2m1) codes, in 16 x 64 tiles: MmaTiles.h
       /*gemmWeight=*/true},
  };
  return table;
}

const std::vector<ScaleLayoutInfo> &scaleLayouts() {
  static const std::vector<ScaleLayoutInfo> table = {
      {ScaleLayout::RowMajor, {"row_major", "row_major", {}, "row-major scales"}},
      {ScaleLayout::Blocked128x4,
       {"blocked_128x4", "blocked", {},
        "128x4 tiles, as cuBLAS and block-scaled tensor cores read"}},
  };
  return table;
}

std::optional<Fp6Layout> fp6Layout(Packing packing) {
  switch (packing) {
  case Packing::Bytes:
    return Fp6Layout::Bytes;
  case Packing::Fp6Planes:
    return Fp6Layout::Planes;
  case Packing::Fp6Contiguous24:
    return Fp6Layout::Contiguous24;
  case Packing::Fp6Contiguous24Msb:
    return Fp6Layout::Contiguous24Msb;
  case Packing::Fp6Interleaved4p2:
    return Fp6Layout::Interleaved4p2;
  case Packing::Fp4x2:
  case Packing::MmaTiles:
    break;
  }
  return std::nullopt;
}

Packing packingOf(Fp6Layout layout) {
  switch (layout) {
  case Fp6Layout::Bytes:
    break;
  case Fp6Layout::Planes:
    return Packing::Fp6Planes;
  case Fp6Layout::Contiguous24:
    return Packing::Fp6Contiguous24;
  case Fp6Layout::Contiguous24Msb:
    return Packing::Fp6Contiguous24Msb;
  case Fp6Layout::Interleaved4p2:
    return Packing::Fp6Interleaved4p2;
  }
  return Packing::Bytes;
}

//===----------------------------------------------------------------------===//
// Parse and print
//===----------------------------------------------------------------------===//

std::string joinNames(const std::vector<std::string_view> &names,
                      std::string_view lastSeparator) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      out += i + 1 == names.size() ? lastSeparator : std::string_view(", ");
    out += names[i];
  }
  return out;
}

namespace {
template <typename Info>
const Info *find(const std::vector<Info> &table, std::string_view word) {
  for (const Info &i : table)
    if (i.names.spells(word))
      return &i;
  return nullptr;
}

template <typename Info>
auto lookup(const std::vector<Info> &table, std::string_view word)
    -> std::optional<decltype(Info::value)> {
  if (const Info *i = find(table, word))
    return i->value;
  return std::nullopt;
}

template <typename Info>
auto parse(const std::vector<Info> &table, std::string_view word,
           const char *what) -> decltype(Info::value) {
  if (const Info *i = find(table, word))
    return i->value;
  std::vector<std::string_view> known;
  for (const Info &i : table)
    known.push_back(i.names.name);
  throw Error("fpx: unknown " + std::string(what) + " '" + std::string(word) +
              "' (known: " + joinNames(known) + ")");
}

template <typename Info, typename E>
const Info &entry(const std::vector<Info> &table, E value) {
  for (const Info &i : table)
    if (i.value == value)
      return i;
  throw Error("fpx: a vocabulary value has no table entry");
}
} // namespace

std::optional<Rounding> lookupRounding(std::string_view w) {
  return lookup(roundings(), w);
}
Rounding parseRounding(std::string_view w) {
  return parse(roundings(), w, "rounding");
}
std::optional<ScaleRule> lookupScaleRule(std::string_view w) {
  return lookup(scaleRules(), w);
}
ScaleRule parseScaleRule(std::string_view w) {
  return parse(scaleRules(), w, "scale rule");
}
std::optional<ScaleKind> lookupScaleKind(std::string_view w) {
  return lookup(scaleKinds(), w);
}
ScaleKind parseScaleKind(std::string_view w) {
  return parse(scaleKinds(), w, "scale kind");
}
std::optional<NonFinite> lookupNonFinite(std::string_view w) {
  return lookup(nonFinites(), w);
}
NonFinite parseNonFinite(std::string_view w) {
  return parse(nonFinites(), w, "nonfinite choice");
}
std::optional<Packing> lookupPacking(std::string_view w) {
  return lookup(packings(), w);
}
Packing parsePacking(std::string_view w) {
  // The old name of the plane layout is also what torchao calls its
  // interleaved layout: refuse it rather than guess.
  if (w == "4+2" || w == "fp6_4p2" || w == "split4p2")
    throw Error("fpx: packing '" + std::string(w) +
                "' is ambiguous: say 'planes' (fpx's per-row bit planes, "
                "formerly '4+2') or 'interleaved' (torchao #1810's 4+2, "
                "pack_uint6_pytorch)");
  return parse(packings(), w, "packing");
}
std::optional<ScaleLayout> lookupScaleLayout(std::string_view w) {
  return lookup(scaleLayouts(), w);
}
ScaleLayout parseScaleLayout(std::string_view w) {
  return parse(scaleLayouts(), w, "scale layout");
}

const RoundingInfo &info(Rounding v) { return entry(roundings(), v); }
const ScaleRuleInfo &info(ScaleRule v) { return entry(scaleRules(), v); }
const ScaleKindInfo &info(ScaleKind v) { return entry(scaleKinds(), v); }
const NonFiniteInfo &info(NonFinite v) { return entry(nonFinites(), v); }
const PackingInfo &info(Packing v) { return entry(packings(), v); }
const ScaleLayoutInfo &info(ScaleLayout v) { return entry(scaleLayouts(), v); }

// The canonical names are string literals, so data() is NUL-terminated.
const char *toString(Rounding v) { return info(v).names.name.data(); }
const char *toString(ScaleRule v) { return info(v).names.name.data(); }
const char *toString(ScaleKind v) { return info(v).names.name.data(); }
const char *toString(NonFinite v) { return info(v).names.name.data(); }
const char *toString(Packing v) { return info(v).names.name.data(); }
const char *toString(ScaleLayout v) { return info(v).names.name.data(); }
const char *toString(Fp6Layout v) { return toString(packingOf(v)); }

} // namespace fpx::num
