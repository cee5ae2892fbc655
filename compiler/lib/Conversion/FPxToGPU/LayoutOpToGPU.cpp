//===- LayoutOpToGPU.cpp - fpx.pack, fpx.unpack, fpx.swizzle_scales -------===//
//
// The layout ops that fpx-fuse-quantize could not fold into a cast, as
// kernels of their own (generated in LayoutKernels.cpp).
//
//===----------------------------------------------------------------------===//
#include "LayoutKernels.h"
#include "fpx/Conversion/FPxToGPU/Lowerings.h"

using namespace mlir;
using namespace fpx;

/// fpx.swizzle_scales: row-major byte scales -> the blocked 128x4 layout,
/// each group of rows tiled on its own where group ends are given.
static LogicalResult lowerSwizzle(LoweringContext &c, SwizzleScalesOp op) {
  FailureOr<Buffer> in = c.inputBuffer(op, op.getInput());
  if (failed(in))
    return failure();
  if (op.getInput().getType().getElementType().getIntOrFloatBitWidth() != 8)
    return op.emitOpError("blocked_128x4 kernels swizzle 8-bit scales");
  std::string R = in->shape[0], C = in->shape[1];
  // With offsets (group end rows) each group of rows is tiled on its own,
  // in the op's upper-bound result of R + 128 rows a group.
  std::optional<Buffer> ends;
  if (Value offs = op.getOffsets()) {
    FailureOr<Buffer> e = c.inputBuffer(op, offs);
    if (failed(e))
      return failure();
    ends = *e;
  }
  std::string rows = ends ? R + "+128*" + par(ends->shape[0]) : R;
  SmallVector<std::string> outShape = {"cdiv(" + rows + ", 128)*128", "cdiv(" + C + ", 4)*4"};
  auto o = c.defineBuffer(op, op.getResult(), outShape, false);
  if (failed(o))
    return failure();
  std::string outName = (*o)->name;
  std::string bands = "cdiv(" + rows + ", 128)";
  // A CTA a band's strip of 64 scale columns, the strips of a band adjacent.
  SmallVector<std::string> grid = {bands + "*cdiv(" + C + ", 64)", "1", "1"};
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  if (!ends) {
    KernelDesc k = buildBandSwizzleKernel(c.b, op.getLoc(), c.kernelName("swizzle"), c.gpuModule,
                                          /*grouped=*/false);
    c.addLaunch(k, {in->name, outName, R, C}, grid);
    return success();
  }
  // Each CTA finds its band's input rows from the group ends itself. With
  // no rows and some groups there are bands but no scales to read (the
  // kernel reads at the input's start even where it keeps nothing):
  // nonzero exactly when R = 0 and G > 0.
  std::string G = par(ends->shape[0]);
  c.require(G + " / (" + par(R) + "*(" + G + "+1) + 1)",
            "a grouped blocked swizzle needs at least one row of scales");
  KernelDesc k = buildBandSwizzleKernel(c.b, op.getLoc(), c.kernelName("swizzle_groups"),
                                        c.gpuModule, /*grouped=*/true);
  c.addLaunch(k, {in->name, outName, ends->name, ends->shape[0], R, C}, grid);
  return success();
}

/// fpx.pack (`unpack` false) and fpx.unpack: one code per byte <-> fp4x2,
/// fp6 4+2 or fp6 contiguous packing.
static LogicalResult lowerPack(LoweringContext &c, Operation *op, Value input, Value result,
                               LayoutKind layout, bool unpack) {
  FailureOr<Buffer> in = c.inputBuffer(op, input);
  if (failed(in))
    return failure();
  auto codesTy = cast<RankedTensorType>(unpack ? result.getType() : input.getType());
  FormatAttr fmtAttr = FormatAttr::fromType(codesTy.getElementType());
  if (!fmtAttr)
    fmtAttr = op->getAttrOfType<FormatAttr>("format");
  if (!fmtAttr)
    return op->emitOpError("needs a format to lower");
  // The unpacked innermost dimension: the input's for pack, derived for unpack.
  SmallVector<std::string> outShape(in->shape.begin(), in->shape.end());
  std::string inner = in->shape.back();
  std::string cols;
  switch (layout) {
  case LayoutKind::fp4x2:
    cols = unpack ? par(inner) + "*2" : inner;
    outShape.back() = unpack ? cols : par(inner) + "/2";
    break;
  case LayoutKind::fp6_planes:
  case LayoutKind::fp6_packed:
  case LayoutKind::fp6_interleaved:
    cols = unpack ? par(inner) + "/3*4" : inner;
    outShape.back() = unpack ? cols : par(inner) + "/4*3";
    break;
  case LayoutKind::fp6_byte:
    cols = inner;
    break;
  default:
    return op->emitOpError("no kernel for layout ") << stringifyLayoutKind(layout);
  }
  if (!unpack && layout == LayoutKind::fp6_byte)
    return op->emitOpError("packing to fp6_byte keeps one code per byte: nothing to do");
  std::string total;
  for (size_t i = 0; i + 1 < in->shape.size(); ++i)
    total += par(in->shape[i]) + "*";
  total += par(cols);
  c.require(par(cols) + " % " + std::string(layout == LayoutKind::fp6_planes ? "16" : "8"),
            "the unpacked innermost dimension of " + in->name + " must be a multiple of " +
                std::string(layout == LayoutKind::fp6_planes ? "16" : "8"));
  if (isFp6FourInThree(layout))
    c.require(par(inner) + (unpack ? " % 3" : " % 4"),
              "the innermost dimension of " + in->name + " does not split into fp6 groups");
  auto o = c.defineBuffer(op, result, outShape, false);
  if (failed(o))
    return failure();
  std::string outName = (*o)->name;
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  KernelDesc k = unpack ? buildUnpackKernel(c.b, op->getLoc(), c.kernelName("unpack"), layout)
                        : buildPackKernel(c.b, op->getLoc(), c.kernelName("pack"), layout,
                                          fmtAttr.getFormat());
  c.addLaunch(k, {in->name, outName, total, cols},
              {"cdiv(" + total + ", " + std::to_string(kVec * kThreads) + ")", "1", "1"});
  return success();
}

static LogicalResult lowerPackOp(LoweringContext &c, PackOp op) {
  return lowerPack(c, op, op.getInput(), op.getResult(), op.getLayout(), /*unpack=*/false);
}

static LogicalResult lowerUnpackOp(LoweringContext &c, UnpackOp op) {
  return lowerPack(c, op, op.getInput(), op.getResult(), op.getLayout(), /*unpack=*/true);
}

void fpx::populateLayoutOpLowerings(OpLoweringSet &set) {
  set.add<PackOp>(lowerPackOp);
  set.add<UnpackOp>(lowerUnpackOp);
  set.add<SwizzleScalesOp>(lowerSwizzle);
}
