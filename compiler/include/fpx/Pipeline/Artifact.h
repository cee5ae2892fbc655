//===- Artifact.h - the compiler side of the artifact contract --*- C++ -*-===//
//
// An artifact is NAME.json + NAME.ptx (+ NAME.cubin); docs/artifact.md is the
// contract with the runtime. The JSON's kernel and function records come
// from the `fpx.kernel` / `fpx.functions` attributes of fpx-convert-to-gpu.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_PIPELINE_ARTIFACT_H
#define FPX_PIPELINE_ARTIFACT_H

#include "fpx/Target/TargetInfo.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include <string>

namespace fpx {

/// Kernel and function records of a module at Stage::Kernels, as JSON
/// (`kernels` and `functions` arrays, and `link`, the user symbols the
/// kernels call, when there are any). A record that is not plain data (a
/// string, an integer that fits in int64, an array, a dictionary) is an
/// error at the gpu.module or gpu.func that carries it, and a failure.
mlir::FailureOr<llvm::json::Object> collectLaunchRecords(mlir::ModuleOp module);

/// The PTX text of the module's gpu.binary (after Stage::PTX), or failure.
mlir::FailureOr<std::string> extractPtx(mlir::ModuleOp module);

/// Hex xxh3-128 of the spec text and the options that change the code.
std::string specHash(llvm::StringRef specText, llvm::StringRef options);

/// The full JSON record of an artifact.
llvm::json::Object makeArtifactJson(llvm::json::Object records,
                                    const TargetInfo &target,
                                    llvm::StringRef hash, llvm::StringRef stem,
                                    bool withCubin);

} // namespace fpx

#endif
