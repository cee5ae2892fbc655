//===- FPxAttrs.cpp - fpx attributes --------------------------------------===//
//
// Parsing, printing and verification of #fpx.format and #fpx.scaling, and
// the one map between the dialect's words and the numerics vocabulary
// (FPxVocabulary.h). Format facts come from the numerics core; nothing about
// a format is decided here.
//
//===----------------------------------------------------------------------===//
#include "fpx/Dialect/FPx/IR/FPxVocabulary.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fpx;

#define GET_ATTRDEF_CLASSES
#include "fpx/Dialect/FPx/IR/FPxAttrs.cpp.inc"

void FPxDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fpx/Dialect/FPx/IR/FPxAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// The dialect's words <-> the numerics vocabulary
//===----------------------------------------------------------------------===//

num::Rounding fpx::toNumerics(RoundingKind kind) {
  switch (kind) {
  case RoundingKind::rn:
    return num::Rounding::RN;
  case RoundingKind::rz:
    return num::Rounding::RZ;
  case RoundingKind::rs:
    return num::Rounding::RS;
  }
  llvm_unreachable("unknown RoundingKind");
}

std::optional<RoundingKind> fpx::toRoundingKind(num::Rounding rounding) {
  for (uint32_t i = 0; std::optional<RoundingKind> k = symbolizeRoundingKind(i); ++i)
    if (toNumerics(*k) == rounding)
      return k;
  return std::nullopt;
}

num::ScaleRule fpx::toNumerics(ScaleRule rule) {
  switch (rule) {
  case ScaleRule::floor:
    return num::ScaleRule::Floor;
  case ScaleRule::ceil:
    return num::ScaleRule::Ceil;
  case ScaleRule::even:
    return num::ScaleRule::Even;
  case ScaleRule::rceil:
    return num::ScaleRule::RCeil;
  case ScaleRule::amax:
    return num::ScaleRule::Amax;
  }
  llvm_unreachable("unknown ScaleRule");
}

std::optional<ScaleRule> fpx::toScaleRuleAttr(num::ScaleRule rule) {
  for (uint32_t i = 0; std::optional<ScaleRule> r = symbolizeScaleRule(i); ++i)
    if (toNumerics(*r) == rule)
      return r;
  return std::nullopt;
}

num::NonFinite fpx::toNumerics(NonFiniteKind kind) {
  switch (kind) {
  case NonFiniteKind::nan:
    return num::NonFinite::NaN;
  case NonFiniteKind::saturate:
    return num::NonFinite::Saturate;
  }
  llvm_unreachable("unknown NonFiniteKind");
}

NonFiniteKind fpx::toNonFiniteKind(num::NonFinite nonFinite) {
  return nonFinite == num::NonFinite::Saturate ? NonFiniteKind::saturate
                                               : NonFiniteKind::nan;
}

std::optional<num::Packing> fpx::toPacking(LayoutKind kind) {
  switch (kind) {
  case LayoutKind::fp4x2:
    return num::Packing::Fp4x2;
  case LayoutKind::fp6_planes:
    return num::Packing::Fp6Planes;
  case LayoutKind::fp6_packed:
    return num::Packing::Fp6Contiguous24;
  case LayoutKind::fp6_interleaved:
    return num::Packing::Fp6Interleaved4p2;
  case LayoutKind::fp6_byte:
    return num::Packing::Bytes;
  case LayoutKind::mma_tiles:
    return num::Packing::MmaTiles;
  case LayoutKind::row_major:
  case LayoutKind::blocked_128x4:
    break;
  }
  return std::nullopt;
}

std::optional<num::ScaleLayout> fpx::toScaleLayout(LayoutKind kind) {
  if (kind == LayoutKind::row_major)
    return num::ScaleLayout::RowMajor;
  if (kind == LayoutKind::blocked_128x4)
    return num::ScaleLayout::Blocked128x4;
  return std::nullopt;
}

std::optional<LayoutKind> fpx::toLayoutKind(num::Packing packing) {
  if (packing == num::Packing::Bytes)
    return std::nullopt; // an op leaves `packing` out
  // The values have gaps (a case may be reserved for another layout).
  for (uint32_t i = 0; i <= getMaxEnumValForLayoutKind(); ++i)
    if (std::optional<LayoutKind> k = symbolizeLayoutKind(i); k && toPacking(*k) == packing)
      return k;
  return std::nullopt;
}

LayoutKind fpx::toLayoutKind(num::ScaleLayout layout) {
  return layout == num::ScaleLayout::RowMajor ? LayoutKind::row_major
                                              : LayoutKind::blocked_128x4;
}

namespace {
/// A builtin MLIR float type and the named format whose codes it stores.
struct BuiltinFormat {
  const char *format;
  Type (*get)(MLIRContext *);
};
template <typename T> Type getType(MLIRContext *ctx) { return T::get(ctx); }
} // namespace

/// The one MLIR type <-> format table.
static const BuiltinFormat kBuiltinFormats[] = {
    {"e4m3fn", getType<Float8E4M3FNType>},  {"e5m2", getType<Float8E5M2Type>},
    {"e2m3fn", getType<Float6E2M3FNType>},  {"e3m2fn", getType<Float6E3M2FNType>},
    {"e2m1fn", getType<Float4E2M1FNType>},  {"e8m0fnu", getType<Float8E8M0FNUType>},
};

std::optional<num::Format> fpx::formatOfType(Type type) {
  if (!isa<FloatType>(type))
    return std::nullopt;
  for (const BuiltinFormat &b : kBuiltinFormats)
    if (b.get(type.getContext()) == type)
      return num::lookupFormat(b.format);
  return std::nullopt;
}

Type fpx::storageTypeOf(const num::Format &format, MLIRContext *ctx) {
  std::optional<num::Format> named = num::lookupFormat(format.name);
  if (!named || *named != format)
    return {};
  for (const BuiltinFormat &b : kBuiltinFormats)
    if (named->name == b.format)
      return b.get(ctx);
  return {};
}

Type fpx::scaleTypeOf(num::ScaleKind kind, MLIRContext *ctx) {
  switch (kind) {
  case num::ScaleKind::E8M0:
    return Float8E8M0FNUType::get(ctx);
  case num::ScaleKind::NVFP4: // ue4m3 codes, stored as (positive) f8E4M3FN
    return Float8E4M3FNType::get(ctx);
  case num::ScaleKind::FP32:
    return Float32Type::get(ctx);
  case num::ScaleKind::FP32Pow2:
    break;
  }
  return {};
}

//===----------------------------------------------------------------------===//
// FormatAttr
//===----------------------------------------------------------------------===//

Attribute FormatAttr::parse(AsmParser &parser, Type) {
  std::string name;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeywordOrString(&name))
    return {};
  std::optional<num::Format> fmt = num::lookupFormat(name);
  if (!fmt || fmt->bits() > 8) {
    parser.emitError(loc) << (fmt ? "format '" : "unknown format '") << name
                          << (fmt ? "' is wider than 8 bits" : "'")
                          << " (see `fpxc formats`)";
    return {};
  }
  int64_t bias = fmt->bias;
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("bias") || parser.parseEqual() ||
        parser.parseInteger(bias))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<FormatAttr>(loc, parser.getContext(), fmt->name,
                                       bias);
}

void FormatAttr::print(AsmPrinter &printer) const {
  printer << "<" << getName();
  if (std::optional<num::Format> fmt = num::lookupFormat(getName()))
    if (fmt->bias != getBias())
      printer << ", bias = " << getBias();
  printer << ">";
}

LogicalResult FormatAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, int64_t bias) {
  std::optional<num::Format> fmt = num::lookupFormat(name);
  if (!fmt)
    return emitError() << "unknown format '" << name << "'";
  if (fmt->bits() > 8)
    return emitError() << "format '" << name << "' is wider than 8 bits";
  if (bias < -127 || bias > 254)
    return emitError() << "format bias " << bias << " is out of range";
  return success();
}

num::Format FormatAttr::getFormat() const {
  num::Format fmt = *num::lookupFormat(getName());
  fmt.bias = static_cast<int>(getBias());
  return fmt;
}

FormatAttr FormatAttr::fromType(Type type) {
  std::optional<num::Format> fmt = formatOfType(type);
  if (!fmt)
    return {};
  return FormatAttr::get(type.getContext(), fmt->name, fmt->bias);
}

Type FormatAttr::getStorageType() const {
  return storageTypeOf(getFormat(), getContext());
}

//===----------------------------------------------------------------------===//
// ScalingAttr
//===----------------------------------------------------------------------===//

Attribute ScalingAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> block;
  std::string ruleName;
  Type scaleType;
  auto parseEntry = [&]() -> ParseResult {
    if (succeeded(parser.parseOptionalStar())) {
      block.push_back(-1);
      return success();
    }
    int64_t v;
    if (parser.parseInteger(v))
      return failure();
    block.push_back(v);
    return success();
  };
  if (parser.parseLess() || parser.parseKeyword("block") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseEntry) ||
      parser.parseComma() || parser.parseKeyword("rule") ||
      parser.parseEqual())
    return {};
  SMLoc ruleLoc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&ruleName))
    return {};
  std::optional<ScaleRule> rule = symbolizeScaleRule(ruleName);
  if (!rule) {
    std::vector<std::string_view> known;
    for (const num::ScaleRuleInfo &r : num::scaleRules())
      if (toScaleRuleAttr(r.value))
        known.push_back(r.names.name);
    parser.emitError(ruleLoc) << "unknown scale rule '" << ruleName
                              << "' (expected " << num::joinNames(known, " or ")
                              << ")";
    return {};
  }
  if (parser.parseComma() || parser.parseKeyword("scale") ||
      parser.parseEqual() || parser.parseType(scaleType) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<ScalingAttr>(loc, parser.getContext(), block, *rule,
                                        scaleType);
}

void ScalingAttr::print(AsmPrinter &printer) const {
  printer << "<block = [";
  llvm::interleaveComma(getBlock(), printer, [&](int64_t b) {
    if (b < 0)
      printer << "*";
    else
      printer << b;
  });
  printer << "], rule = " << stringifyScaleRule(getRule())
          << ", scale = " << getScaleType() << ">";
}

LogicalResult ScalingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> block, ScaleRule rule,
                                  Type scaleType) {
  if (block.empty() || block.size() > 3)
    return emitError() << "scaling block must have 1 to 3 entries";
  for (int64_t b : block)
    if (b == 0 || b < -1)
      return emitError() << "scaling block entries must be positive or '*'";
  bool pow2Rule = num::info(toNumerics(rule)).pow2;
  if (pow2Rule && !isa<Float8E8M0FNUType>(scaleType))
    return emitError() << "scale rule '" << stringifyScaleRule(rule)
                       << "' makes power-of-two scales: scale type must be "
                          "f8E8M0FNU, got "
                       << scaleType;
  if (!pow2Rule && !isa<Float32Type, BFloat16Type, Float16Type,
                        Float8E4M3FNType>(scaleType))
    return emitError() << "scale rule 'amax' needs an f32, bf16, f16 or "
                          "f8E4M3FN scale type, got "
                       << scaleType;
  return success();
}

bool ScalingAttr::isPerTensor() const {
  return llvm::all_of(getBlock(), [](int64_t b) { return b < 0; });
}

int64_t ScalingAttr::blockExtent(unsigned i, int64_t dim) const {
  int64_t b = getBlock()[i];
  if (b >= 0)
    return b;
  return ShapedType::isDynamic(dim) ? -1 : dim;
}
