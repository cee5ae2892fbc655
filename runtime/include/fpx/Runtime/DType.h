//===- DType.h - Element types and kernel parameter types -------*- C++ -*-===//
//
// The artifact names tensor dtypes and kernel parameter types as words; these
// enums are their in-memory form. Packed fp4/fp6 tensors travel as u8.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_DTYPE_H
#define FPX_RUNTIME_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fpx::rt {

/// Element type of a tensor argument.
enum class DType : uint8_t {
  F32,
  BF16,
  F16,
  F8E4M3FN,
  F8E5M2,
  F8E8M0FNU,
  I8,
  U8,
  I32,
  I64,
};

/// Parses an artifact dtype word ("bf16", "f8e4m3fn", ...).
std::optional<DType> parseDType(std::string_view word);
/// The artifact word for \p type.
const char *dtypeName(DType type);
/// Bytes per element.
size_t dtypeSize(DType type);

/// Type of a kernel parameter or a function scalar, as passed to the kernel.
/// TensorMap: a 128-byte CUtensorMap passed by value (a __grid_constant__
/// parameter), built at launch from a buffer (docs/artifact.md).
enum class ParamType : uint8_t { Ptr, I32, I64, U32, U64, F32, F64, TensorMap };

/// Parses "ptr", "i32", "i64", "u32", "u64", "f32", "f64".
std::optional<ParamType> parseParamType(std::string_view word);
const char *paramTypeName(ParamType type);
/// Bytes the parameter occupies in the kernel's parameter buffer.
size_t paramTypeSize(ParamType type);
inline bool isIntegerParam(ParamType type) {
  return type == ParamType::I32 || type == ParamType::I64 ||
         type == ParamType::U32 || type == ParamType::U64;
}
inline bool isFloatParam(ParamType type) {
  return type == ParamType::F32 || type == ParamType::F64;
}

} // namespace fpx::rt

#endif // FPX_RUNTIME_DTYPE_H
