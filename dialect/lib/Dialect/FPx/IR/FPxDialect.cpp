//===- FPxDialect.cpp - fpx dialect registration --------------------------===//
#include "fpx/Dialect/FPx/IR/FPxDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fpx;

#include "fpx/Dialect/FPx/IR/FPxDialect.cpp.inc"
#include "fpx/Dialect/FPx/IR/FPxEnums.cpp.inc"

void FPxDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "fpx/Dialect/FPx/IR/FPxOps.cpp.inc"
      >();
}
