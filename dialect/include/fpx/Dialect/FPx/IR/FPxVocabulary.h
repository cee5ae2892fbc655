//===- FPxVocabulary.h - fpx attributes <-> the numerics vocabulary -*- C++ -*-===//
//
// The one map between the dialect's words (the ODS enums RoundingKind,
// ScaleRule and LayoutKind, MLIR's builtin float types) and the numerics
// core's vocabulary (fpx/Numerics/Vocabulary.h). Implemented in
// FPxAttrs.cpp; every other file converts through these functions.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_DIALECT_FPX_IR_FPXVOCABULARY_H
#define FPX_DIALECT_FPX_IR_FPXVOCABULARY_H

#include "fpx/Dialect/FPx/IR/FPxDialect.h"
#include "fpx/Numerics/Vocabulary.h"

#include <optional>

namespace fpx {

/// Rounding: the dialect has rn, rz and rs.
num::Rounding toNumerics(RoundingKind kind);
std::optional<RoundingKind> toRoundingKind(num::Rounding rounding);

/// Scale rule: the dialect has every rule fpxc lowers
/// (num::ScaleRuleInfo::compiled), i.e. all but rceil_rcp.
num::ScaleRule toNumerics(ScaleRule rule);
std::optional<ScaleRule> toScaleRuleAttr(num::ScaleRule rule);

/// Non-finite blocks: nan and saturate, one for one.
num::NonFinite toNumerics(NonFiniteKind kind);
NonFiniteKind toNonFiniteKind(num::NonFinite nonFinite);

/// LayoutKind names both packings and scale layouts: the packing or scale
/// layout it is, else nullopt. fp6_byte is num::Packing::Bytes.
std::optional<num::Packing> toPacking(LayoutKind kind);
std::optional<num::ScaleLayout> toScaleLayout(LayoutKind kind);
/// The `packing` attribute of a num::Packing; nullopt where the dialect has
/// none. Bytes has fp6_byte, but an op spells "one code a byte" by leaving
/// `packing` out (fpxc lowers both alike).
std::optional<LayoutKind> toLayoutKind(num::Packing packing);
LayoutKind toLayoutKind(num::ScaleLayout layout);

/// The numerics format a builtin MLIR float type stores (f8E4M3FN ->
/// e4m3fn, ...), or nullopt.
std::optional<num::Format> formatOfType(mlir::Type type);
/// The builtin MLIR type that stores a format's codes unpacked (its named
/// bias only), or null.
mlir::Type storageTypeOf(const num::Format &format, mlir::MLIRContext *ctx);
/// The MLIR element type of a scale kind's scales (f8E8M0FNU, f8E4M3FN for
/// NVFP4's ue4m3, f32), or null (fp32_pow2 has no dialect spelling).
mlir::Type scaleTypeOf(num::ScaleKind kind, mlir::MLIRContext *ctx);

} // namespace fpx

#endif // FPX_DIALECT_FPX_IR_FPXVOCABULARY_H
