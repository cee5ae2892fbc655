//===- FPxAttrs.cpp - fpx attributes --------------------------------------===//
//
// Parsing, printing and verification of #fpx.format and #fpx.scaling. Format
// facts come from the numerics core; nothing about a format is decided here.
//
//===----------------------------------------------------------------------===//
#include "fpx/Dialect/FPx/IR/FPxDialect.h"

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
  const char *name = nullptr;
  if (isa<Float8E4M3FNType>(type))
    name = "e4m3fn";
  else if (isa<Float8E5M2Type>(type))
    name = "e5m2";
  else if (isa<Float6E2M3FNType>(type))
    name = "e2m3fn";
  else if (isa<Float6E3M2FNType>(type))
    name = "e3m2fn";
  else if (isa<Float4E2M1FNType>(type))
    name = "e2m1fn";
  else if (isa<Float8E8M0FNUType>(type))
    name = "e8m0fnu";
  if (!name)
    return {};
  num::Format fmt = *num::lookupFormat(name);
  return FormatAttr::get(type.getContext(), fmt.name, fmt.bias);
}

Type FormatAttr::getStorageType() const {
  MLIRContext *ctx = getContext();
  num::Format fmt = getFormat();
  std::optional<num::Format> named = num::lookupFormat(fmt.name);
  if (!named || named->bias != fmt.bias)
    return {};
  StringRef n = fmt.name;
  if (n == "e4m3fn")
    return Float8E4M3FNType::get(ctx);
  if (n == "e5m2")
    return Float8E5M2Type::get(ctx);
  if (n == "e2m3fn")
    return Float6E2M3FNType::get(ctx);
  if (n == "e3m2fn")
    return Float6E3M2FNType::get(ctx);
  if (n == "e2m1fn")
    return Float4E2M1FNType::get(ctx);
  if (n == "e8m0fnu")
    return Float8E8M0FNUType::get(ctx);
  return {};
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
    parser.emitError(ruleLoc)
        << "unknown scale rule '" << ruleName
        << "' (expected floor, ceil, even, rceil or amax)";
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
  bool pow2Rule = rule != ScaleRule::amax;
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
