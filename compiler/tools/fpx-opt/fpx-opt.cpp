//===- fpx-opt.cpp - run fpx passes one by one ----------------------------===//
//
// The mlir-opt of fpxc: parses, verifies and prints fpx and the upstream
// dialects fpxc uses, and runs any fpx pass (or `fpx-pipeline`) by flag.
//
// Unlike mlir-opt, `-o FILE` is written only when the run succeeds (mlir-opt
// truncates FILE first and deletes it on failure), atomically, and never
// over the input.
//
//===----------------------------------------------------------------------===//
#include "fpx/Pipeline/OutputFile.h"
#include "fpx/Pipeline/Pipeline.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  fpx::registerFPxDialects(registry);
  fpx::registerFPxPasses();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "fpx optimizer driver\n", registry);
  auto config = mlir::MlirOptMainConfig::createFromCLOptions();
  // Listings and output to stdout write no file: mlir-opt's own driver.
  if (output == "-" || config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, input, output, registry));

  llvm::InitLLVM initLLVM(argc, argv);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << "fpx-opt: error: " << error << "\n";
    return 1;
  }
  std::string result;
  llvm::raw_string_ostream os(result);
  if (mlir::failed(mlir::MlirOptMain(os, std::move(file), registry, config)))
    return 1;
  if (!fpx::writeOutputFile(output, result, input, error)) {
    llvm::errs() << "fpx-opt: error: " << error << "\n";
    return 1;
  }
  return 0;
}
