//===- Pipeline.h - the one fpxc pipeline -----------------------*- C++ -*-===//
//
// The pass pipeline shared by fpxc, fpx-opt (as `fpx-pipeline`) and Python:
// spec -> fusion -> kernels -> format legalization -> NVVM -> PTX.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_PIPELINE_PIPELINE_H
#define FPX_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include <string>

namespace fpx {

/// How far the pipeline runs.
enum class Stage {
  Kernels, ///< fpx fused, outlined into gpu kernels, formats legalized
  LLVM,    ///< gpu modules in the LLVM/NVVM dialects
  PTX,     ///< gpu.binary ops holding PTX text
};

struct PipelineOptions {
  std::string chip = "sm_90a";
  bool allowEmulation = true;
  /// Run the spec-level part (fusion, outlining into kernels).
  bool fromSpec = true;
  /// Run format legalization (fpx.convert -> cvt or emulation). Kernel-level
  /// inputs (a gpu.module written by hand, as the GPU tests do) start here.
  bool legalize = true;
  /// Last stage to reach.
  Stage until = Stage::PTX;
};

/// Registers every dialect, interface and translation the pipeline needs.
void registerFPxDialects(mlir::DialectRegistry &registry);
/// Registers fpx passes, the upstream passes the pipeline uses, and the
/// `fpx-pipeline` pipeline, for fpx-opt.
void registerFPxPasses();
/// Adds the pipeline; fails (with a diagnostic-free message in `error`) if
/// the chip is not in the target table.
mlir::LogicalResult buildFPxPipeline(mlir::OpPassManager &pm,
                                     const PipelineOptions &options,
                                     std::string &error);

} // namespace fpx

#endif // FPX_PIPELINE_PIPELINE_H
