//===- Passes.h - fpx tensor-level transforms -------------------*- C++ -*-===//
#ifndef FPX_TRANSFORMS_PASSES_H
#define FPX_TRANSFORMS_PASSES_H

#include "fpx/Dialect/FPx/IR/FPxDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace fpx {
#define GEN_PASS_DECL
#include "fpx/Transforms/Passes.h.inc"

/// Patterns folding pack / swizzle_scales / hadamard into fpx.quantize.
void populateFuseQuantizePatterns(mlir::RewritePatternSet &patterns);
/// Patterns folding fpx.dequantize into fpx.scaled_matmul.
void populateFuseDequantMatmulPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "fpx/Transforms/Passes.h.inc"
} // namespace fpx

#endif // FPX_TRANSFORMS_PASSES_H
