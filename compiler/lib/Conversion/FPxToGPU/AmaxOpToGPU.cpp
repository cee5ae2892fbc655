//===- AmaxOpToGPU.cpp - fpx.amax and fpx.global_scale -> kernels ---------===//
//
// The reductions and NVFP4 global scales: a kernel each, unless a cast
// produces them as it casts (the cast family's planners, QuantizeOpToGPU.cpp).
// The kernels are generated in QuantizeKernels.cpp.
//
//===----------------------------------------------------------------------===//
#include "QuantizeKernels.h"
#include "fpx/Conversion/FPxToGPU/Lowerings.h"

using namespace mlir;
using namespace fpx;

/// One CTA per 2048 elements, at most 512 (a single wave on any GPU of 64
/// SMs or more, each thread looping with four loads in flight). Measured on
/// an H200 against a cap of 2048 (two waves): the amax pass of a 16384x8192
/// tensor 3% faster, 131072x7168 unchanged; caps of 264, 396, 528 and 660 no
/// better. Both the amax fused into a per-tensor quantize and the `fpx.amax`
/// op use it.
std::string fpx::amaxGrid(const std::string &total) {
  return "min(cdiv(" + total + ", 2048), 512)";
}

SmallVector<std::string> fpx::amaxShape(LoweringContext &c, AmaxOp op, const Buffer &in) {
  auto resTy = cast<RankedTensorType>(op.getResult().getType());
  if (resTy.getRank() == 0)
    return {};
  if (!resTy.isDynamicDim(0))
    c.require(par(in.shape[0]) + " - " + std::to_string(resTy.getDimSize(0)),
              "dimension 0 of " + in.name + " must be " + std::to_string(resTy.getDimSize(0)) +
                  " (the result holds that many amaxes, one per matrix)");
  return {in.shape[0]};
}

std::string fpx::addTensorAmax(LoweringContext &c, Location loc, const Buffer &in, Type inElem,
                               int64_t hadamard, uint64_t hadamardSeed) {
  std::string tmp = c.defineScalarTemp();
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  std::string t = c.total(in);
  KernelDesc k = buildAmaxKernel(c.b, loc, c.kernelName("amax"), inElem, hadamard, hadamardSeed);
  c.addLaunch(k, {in.name, tmp, t}, {amaxGrid(t), "1", "1"});
  return tmp;
}

void fpx::addGlobalScaleLaunch(LoweringContext &c, Location loc, const Buffer &amax,
                               const std::string &out, const std::string &grid) {
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  bool many = !amax.shape.empty(); // one per matrix: a thread each
  KernelDesc k = buildGlobalScaleKernel(c.b, loc, c.kernelName("global_scale"), many);
  if (!many) {
    c.addLaunch(k, {amax.name, out}, {grid, "1", "1"});
    return;
  }
  std::string n = amax.shape[0];
  c.addLaunch(k, {amax.name, out, n},
              {par(grid) + "*cdiv(" + n + ", " + std::to_string(kThreads) + ")", "1", "1"});
}

/// fpx.amax: max |x| over the tensor, or over each matrix of a rank-3 input
/// (grid y: the matrix), by atomic max into a zeroed result.
static LogicalResult lowerAmax(LoweringContext &c, AmaxOp op) {
  for (auto &[cast, am] : c.fusedAmax)
    if (am == op)
      return success(); // the cast reduces it (QuantizeOpToGPU.cpp)
  const Buffer *inBuf = c.findBuffer(op.getInput());
  if (!inBuf)
    return op.emitOpError("input must be a function argument or a kernel result");
  Buffer in = *inBuf;
  // One amax, or one per matrix of a rank-3 input (grid y: the matrix).
  SmallVector<std::string> shape = amaxShape(c, op, in);
  bool perMatrix = !shape.empty();
  auto res = c.defineBuffer(op, op.getResult(), shape, /*zeroInit=*/true);
  if (failed(res))
    return failure();
  std::string outName = (*res)->name;
  std::string t = perMatrix ? par(in.shape[1]) + "*" + par(in.shape[2]) : c.total(in);
  c.require(par(t) + " % 8", "the number of elements of " +
                                 std::string(perMatrix ? "a matrix of " : "") + in.name +
                                 " must be a multiple of 8");
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  int64_t h = op.getHadamard().value_or(0);
  if (h)
    c.require(par(in.shape.back()) + " % " + std::to_string(h),
              "the innermost dimension of " + in.name +
                  " must be a multiple of the Hadamard size " + std::to_string(h));
  KernelDesc k = buildAmaxKernel(
      c.b, op.getLoc(), c.kernelName("amax"), op.getInput().getType().getElementType(), h,
      static_cast<uint64_t>(op.getHadamardSeed().value_or(0)), perMatrix);
  c.addLaunch(k, {in.name, outName, t}, {amaxGrid(t), perMatrix ? in.shape[0] : "1", "1"});
  return success();
}

/// fpx.global_scale: NVFP4's global scale of an amax, one thread a value.
static LogicalResult lowerGlobalScale(LoweringContext &c, GlobalScaleOp op) {
  for (auto &[cast, gs] : c.fusedGlobalScale)
    if (gs == op)
      return success(); // the cast stores it (QuantizeOpToGPU.cpp)
  FailureOr<Buffer> a = c.inputBuffer(op, op.getAmax());
  if (failed(a))
    return failure();
  auto res = c.defineBuffer(op, op.getResult(), a->shape, /*zeroInit=*/false);
  if (failed(res))
    return failure();
  addGlobalScaleLaunch(c, op.getLoc(), *a, (*res)->name, "1");
  return success();
}

void fpx::populateAmaxOpLowerings(OpLoweringSet &set) {
  set.add<AmaxOp>(lowerAmax);
  set.add<GlobalScaleOp>(lowerGlobalScale);
}
