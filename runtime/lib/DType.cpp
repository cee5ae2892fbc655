//===- DType.cpp - Element and parameter type names -------------------------===//

#include "fpx/Runtime/DType.h"

namespace fpx::rt {

namespace {
struct DTypeRow {
  DType Type;
  const char *Name;
  size_t Size;
};
// The artifact's dtype words; keep in sync with docs/artifact.md.
constexpr DTypeRow kDTypes[] = {
    {DType::F32, "f32", 4},         {DType::BF16, "bf16", 2},
    {DType::F16, "f16", 2},         {DType::F8E4M3FN, "f8e4m3fn", 1},
    {DType::F8E5M2, "f8e5m2", 1},   {DType::F8E8M0FNU, "f8e8m0fnu", 1},
    {DType::I8, "i8", 1},           {DType::U8, "u8", 1},
    {DType::I32, "i32", 4},         {DType::I64, "i64", 8},
};

struct ParamRow {
  ParamType Type;
  const char *Name;
  size_t Size;
};
constexpr ParamRow kParams[] = {
    {ParamType::Ptr, "ptr", 8}, {ParamType::I32, "i32", 4},
    {ParamType::I64, "i64", 8}, {ParamType::U32, "u32", 4},
    {ParamType::U64, "u64", 8}, {ParamType::F32, "f32", 4},
    {ParamType::F64, "f64", 8}, {ParamType::TensorMap, "tensor_map", 128},
};
} // namespace

std::optional<DType> parseDType(std::string_view word) {
  for (const DTypeRow &row : kDTypes)
    if (word == row.Name)
      return row.Type;
  return std::nullopt;
}

const char *dtypeName(DType type) {
  return kDTypes[static_cast<unsigned>(type)].Name;
}

size_t dtypeSize(DType type) {
  return kDTypes[static_cast<unsigned>(type)].Size;
}

std::optional<ParamType> parseParamType(std::string_view word) {
  for (const ParamRow &row : kParams)
    if (word == row.Name)
      return row.Type;
  return std::nullopt;
}

const char *paramTypeName(ParamType type) {
  return kParams[static_cast<unsigned>(type)].Name;
}

size_t paramTypeSize(ParamType type) {
  return kParams[static_cast<unsigned>(type)].Size;
}

} // namespace fpx::rt
