//===- ConvertEmulation.h - exact integer emulation of cvt ------*- C++ -*-===//
//
// Emits arith ops that encode one f32 into an FPx code with exactly the
// numerics core's rules (fpx::num::encodeBits), for targets without the
// native instruction.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTONVVM_CONVERTEMULATION_H
#define FPX_CONVERSION_FPXTONVVM_CONVERTEMULATION_H

#include "fpx/Numerics/Convert.h"
#include "mlir/IR/Builders.h"

namespace fpx {

/// Encodes f32 `x` into `fmt`, returning the code in the low bits of an i32.
/// `rbits` (i32, may be null unless rounding is RS) holds the element's
/// random bits in its low 8 bits.
mlir::Value emitEncode(mlir::OpBuilder &b, mlir::Location loc,
                       const num::Format &fmt, num::Rounding rounding,
                       num::Overflow overflow, mlir::Value x,
                       mlir::Value rbits);

/// e2m1 codes of 8 f32 values under rn + satfinite, packed as fpx.convert
/// packs them (value i in bits 4i+3..4i), in about six operations a value.
/// `inRange`: the caller guarantees every |x| < 7 and no NaN (no clamp).
mlir::Value emitE2M1RnSatX8(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ArrayRef<mlir::Value> xs, bool inRange);

/// What the caller of an e2m1 rs emulation promises about its inputs
/// (fpx.convert's `in_range` and `bounded`).
enum class RsInputs {
  Any,     ///< anything: |x| is clamped to 6 first (NaN gives +max)
  Bounded, ///< finite and |x| < 8: rounded unclamped, the codes saturated after
  InRange, ///< finite and |x| <= 6: nothing to clamp or saturate
};

/// e2m1 codes of 4 f32 values under rs + satfinite, packed in the low 16
/// bits of an i32 as fpx.convert packs them, value i rounded with byte
/// {0, 2, 1, 3}[i] of `rbits` (cvt.rs.satfinite.e2m1x4's order).
mlir::Value emitE2M1RsSatX4(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ArrayRef<mlir::Value> xs, mlir::Value rbits,
                            RsInputs inputs);

} // namespace fpx

#endif
