//===- FPxDialect.h - the fpx dialect ---------------------------*- C++ -*-===//
//
// Public header of the fpx dialect: dialect, enums, attributes and ops.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_DIALECT_FPX_IR_FPXDIALECT_H
#define FPX_DIALECT_FPX_IR_FPXDIALECT_H

#include "fpx/Numerics/Format.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fpx/Dialect/FPx/IR/FPxDialect.h.inc"
#include "fpx/Dialect/FPx/IR/FPxEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fpx/Dialect/FPx/IR/FPxAttrs.h.inc"

#define GET_OP_CLASSES
#include "fpx/Dialect/FPx/IR/FPxOps.h.inc"

namespace fpx {
/// Number of bits one element of `layout` occupies in memory for `format`
/// (e.g. 4 for fp4x2, 6 for fp6_planes, 8 for fp6_byte).
int64_t packedBitsPerElement(LayoutKind layout, const num::Format &format);
/// The innermost dimension after packing `dim` elements (of `codeBits`
/// each: mma_tiles holds 8-, 6-, 5- or 4-bit codes), or failure text.
mlir::FailureOr<int64_t> packedInnerDim(LayoutKind layout, int64_t dim,
                                        std::string *why = nullptr, int codeBits = 8);
/// True for the fp6 packings that store 4 codes in 3 bytes (fp6_planes,
/// fp6_packed, fp6_interleaved): the packed dimension is 3/4 of the codes'.
inline bool isFp6FourInThree(LayoutKind layout) {
  return layout == LayoutKind::fp6_planes || layout == LayoutKind::fp6_packed ||
         layout == LayoutKind::fp6_interleaved;
}
} // namespace fpx

#endif // FPX_DIALECT_FPX_IR_FPXDIALECT_H
