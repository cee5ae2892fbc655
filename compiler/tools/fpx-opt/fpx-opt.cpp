//===- fpx-opt.cpp - run fpx passes one by one ----------------------------===//
//
// The mlir-opt of fpxc: parses, verifies and prints fpx and the upstream
// dialects fpxc uses, and runs any fpx pass (or `fpx-pipeline`) by flag.
//
//===----------------------------------------------------------------------===//
#include "fpx/Pipeline/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  fpx::registerFPxDialects(registry);
  fpx::registerFPxPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fpx optimizer driver\n", registry));
}
