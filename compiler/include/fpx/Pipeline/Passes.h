//===- Passes.h - passes of the fpxc pipeline itself ------------*- C++ -*-===//
#ifndef FPX_PIPELINE_PASSES_H
#define FPX_PIPELINE_PASSES_H

#include "mlir/Pass/Pass.h"

namespace fpx {
#define GEN_PASS_DECL
#include "fpx/Pipeline/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fpx/Pipeline/Passes.h.inc"
} // namespace fpx

#endif // FPX_PIPELINE_PASSES_H
