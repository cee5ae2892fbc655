//===- HadamardOpToGPU.cpp - fpx.hadamard -> a kernel ---------------------===//
//
// A standalone random Hadamard transform (one fused into a cast or an amax
// is their kernels'); the kernel is generated in LayoutKernels.cpp.
//
//===----------------------------------------------------------------------===//
#include "LayoutKernels.h"
#include "fpx/Conversion/FPxToGPU/Lowerings.h"

using namespace mlir;
using namespace fpx;

/// fpx.hadamard: the random Hadamard transform written to memory.
static LogicalResult lowerHadamard(LoweringContext &c, HadamardOp op) {
  FailureOr<Buffer> in = c.inputBuffer(op, op.getInput());
  if (failed(in))
    return failure();
  int64_t n = op.getSize();
  std::string inner = in->shape.back();
  c.require(par(inner) + " % " + std::to_string(std::max<int64_t>(n, 8)),
            "the innermost dimension of " + in->name + " must be a multiple of " +
                std::to_string(std::max<int64_t>(n, 8)));
  auto o = c.defineBuffer(op, op.getResult(),
                          SmallVector<std::string>(in->shape.begin(), in->shape.end()), false);
  if (failed(o))
    return failure();
  std::string outName = (*o)->name, t = c.total(*in);
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  KernelDesc k = buildHadamardKernel(c.b, op.getLoc(), c.kernelName("hadamard"),
                                     op.getInput().getType().getElementType(), n,
                                     static_cast<uint64_t>(op.getSeed()));
  c.addLaunch(k, {in->name, outName, t},
              {"cdiv(" + t + ", " + std::to_string(kVec * kThreads) + ")", "1", "1"});
  return success();
}

void fpx::populateHadamardOpLowerings(OpLoweringSet &set) { set.add<HadamardOp>(lowerHadamard); }
