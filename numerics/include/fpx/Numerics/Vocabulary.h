//===- Vocabulary.h - The names of every fpx format, rule and layout -*- C++ -*-=//
//
// The one owner of fpx's words: element formats and their aliases, the
// high-level schemes (mxfp8_e4m3, nvfp4, ...), scale kinds, scale rules,
// rounding modes, packings and scale layouts. Each is a table; parse* turns a
// word into the enum (an Error lists the valid words), toString(enum) gives
// the canonical word. The dialect maps its attributes onto these enums in
// one place (FPxAttrs.cpp), `fpxc vocabulary --json` prints the tables, and
// the Python package reads them from its extension.
//
// A table entry has up to three spellings, all accepted by parse:
//   name    the canonical word (what toString prints, what docs use);
//   api     the keyword of the Python API and of bundle indexes (the same
//           as name unless an older public spelling must stay);
//   aliases other accepted words (e.g. the dialect's keyword).
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_VOCABULARY_H
#define FPX_NUMERICS_VOCABULARY_H

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/Packing.h"
#include "fpx/Numerics/Quantize.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::num {

/// The spellings of one vocabulary value.
struct Names {
  std::string_view name;
  std::string_view api;
  std::vector<std::string_view> aliases;
  /// One line for `fpxc vocabulary` and docs.
  std::string_view summary;

  /// True when `word` is one of the spellings (case-sensitive).
  bool spells(std::string_view word) const;
};

//===----------------------------------------------------------------------===//
// Tables
//===----------------------------------------------------------------------===//

/// A named element or scale format and its aliases (the format itself:
/// namedFormats()).
struct FormatNames {
  std::string_view format;
  std::vector<std::string_view> aliases;
};
/// Every named format (namedFormats() order, then f16 and bf16) with its
/// aliases. lookupFormat() reads it (case-insensitively).
const std::vector<FormatNames> &formatNames();
/// The aliases of a named format (empty for an unnamed e<E>m<M>).
const std::vector<std::string_view> &formatAliases(std::string_view format);

/// A high-level scheme: an element format, a kind of scale and a default
/// block, as the Python API and the AOT bundles name them.
struct SchemeInfo {
  Names names;
  std::string_view elem; ///< a namedFormats() name
  ScaleKind scaleKind;
  int64_t blockRows, blockCols; ///< default block; 0 = the whole dimension
};
const std::vector<SchemeInfo> &schemes();

struct ScaleKindInfo {
  ScaleKind value;
  Names names;
  /// The format of the stored scale codes ("e8m0fnu", "ue4m3"), or empty
  /// for fp32 scales.
  std::string_view scaleFormat;
};
const std::vector<ScaleKindInfo> &scaleKinds();

struct ScaleRuleInfo {
  ScaleRule value;
  Names names;
  /// Chooses a power-of-two (E8M0) scale; false for `amax`, whose scale is
  /// amax / max(format) rounded to the scale type.
  bool pow2;
  /// fpxc lowers it (the dialect has a keyword for it); the others exist in
  /// the CPU reference only.
  bool compiled;
};
const std::vector<ScaleRuleInfo> &scaleRules();

struct RoundingInfo {
  Rounding value;
  Names names;
  bool compiled; ///< fpxc lowers it (see ScaleRuleInfo::compiled)
};
const std::vector<RoundingInfo> &roundings();

/// What an E8M0-scaled block holding +-inf or NaN produces (NonFinite).
struct NonFiniteInfo {
  NonFinite value;
  Names names;
};
const std::vector<NonFiniteInfo> &nonFinites();

/// How element codes are laid out in bytes.
enum class Packing {
  /// One code per byte (low bits), i.e. no packing.
  Bytes,
  /// Two fp4 codes per byte, the first in the LOW nibble.
  Fp4x2,
  /// The fp6 layouts of Fp6Layout.
  Fp6Planes,
  Fp6Contiguous24,
  Fp6Contiguous24Msb,
  /// A GEMM weight pre-packed in the order the weight-only kernel reads it
  /// (MmaTiles.h); not an element packing of casts.
  MmaTiles,
  Fp6Interleaved4p2,
};
struct PackingInfo {
  Packing value;
  Names names;
  /// Width of the codes it packs; 0 = any (Bytes).
  int elementBits;
  /// A layout of GEMM weights (fpx.pack, fpx.scaled_matmul), which casts
  /// do not write.
  bool gemmWeight = false;
};
const std::vector<PackingInfo> &packings();
/// The Fp6Layout of an fp6 packing (Bytes included); nullopt for Fp4x2.
std::optional<Fp6Layout> fp6Layout(Packing packing);
Packing packingOf(Fp6Layout layout);

/// How a matrix of byte scales is laid out.
enum class ScaleLayout {
  RowMajor,
  /// The blocked / swizzled 128x4 tiles of cuBLAS and block-scaled MMA
  /// (swizzleBlocked).
  Blocked128x4,
};
struct ScaleLayoutInfo {
  ScaleLayout value;
  Names names;
};
const std::vector<ScaleLayoutInfo> &scaleLayouts();

//===----------------------------------------------------------------------===//
// Parse and print
//===----------------------------------------------------------------------===//

/// Each parse* accepts any spelling of its table and throws Error
/// ("fpx: unknown <what> '<word>' (known: a, b, ...)", listing the canonical
/// names) for anything else; lookup* returns nullopt instead.
std::optional<Rounding> lookupRounding(std::string_view word);
Rounding parseRounding(std::string_view word);
std::optional<ScaleRule> lookupScaleRule(std::string_view word);
ScaleRule parseScaleRule(std::string_view word);
std::optional<ScaleKind> lookupScaleKind(std::string_view word);
ScaleKind parseScaleKind(std::string_view word);
std::optional<NonFinite> lookupNonFinite(std::string_view word);
NonFinite parseNonFinite(std::string_view word);
std::optional<Packing> lookupPacking(std::string_view word);
Packing parsePacking(std::string_view word);
std::optional<ScaleLayout> lookupScaleLayout(std::string_view word);
ScaleLayout parseScaleLayout(std::string_view word);
/// A scheme by name or alias (case-insensitive), or nullptr.
const SchemeInfo *lookupScheme(std::string_view word);

/// The table entry of a value.
const RoundingInfo &info(Rounding value);
const ScaleRuleInfo &info(ScaleRule value);
const ScaleKindInfo &info(ScaleKind value);
const NonFiniteInfo &info(NonFinite value);
const PackingInfo &info(Packing value);
const ScaleLayoutInfo &info(ScaleLayout value);

/// The canonical names (toString(Rounding), toString(ScaleRule),
/// toString(ScaleKind) and toString(NonFinite) are declared beside their
/// enums).
const char *toString(Packing packing);
const char *toString(ScaleLayout layout);

/// "a, b, c" (or "a, b or c" with lastSeparator = " or ").
std::string joinNames(const std::vector<std::string_view> &names,
                      std::string_view lastSeparator = ", ");

} // namespace fpx::num

#endif // FPX_NUMERICS_VOCABULARY_H
