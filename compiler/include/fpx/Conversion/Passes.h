//===- Passes.h - fpx conversions -------------------------------*- C++ -*-===//
#ifndef FPX_CONVERSION_PASSES_H
#define FPX_CONVERSION_PASSES_H

#include "fpx/Dialect/FPx/IR/FPxDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace fpx {
#define GEN_PASS_DECL
#include "fpx/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fpx/Conversion/Passes.h.inc"
} // namespace fpx

#endif // FPX_CONVERSION_PASSES_H
