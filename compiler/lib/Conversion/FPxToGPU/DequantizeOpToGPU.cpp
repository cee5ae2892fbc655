//===- DequantizeOpToGPU.cpp - fpx.dequantize -> kernels ------------------===//
//
// Plans each fpx.dequantize (a DequantizePlan: code format and packing, scale
// type and layout, which elements share a scale, an NVFP4 global scale) and
// records the shapes its scales must have; the kernel is generated in
// DequantizeKernels.cpp.
//
//===----------------------------------------------------------------------===//
#include "DequantizeKernels.h"
#include "fpx/Conversion/FPxToGPU/Lowerings.h"

using namespace mlir;
using namespace fpx;

static LogicalResult lowerDequantize(LoweringContext &c, DequantizeOp op) {
  const Buffer *inBuf = c.findBuffer(op.getInput());
  const Buffer *scBuf = c.findBuffer(op.getScales());
  if (!inBuf || !scBuf)
    return op.emitOpError("codes and scales must be function arguments or "
                          "kernel results");
  Buffer in = *inBuf, sc = *scBuf;
  RankedTensorType outTy = op.getResult().getType();
  int64_t rank = outTy.getRank();
  DequantizePlan plan;
  plan.outElem = outTy.getElementType();
  plan.elem = op.getElementFormat().getFormat();
  plan.packing = op.getPacking();
  if (plan.packing == LayoutKind::fp6_byte)
    plan.packing.reset();
  if (plan.packing && *plan.packing != LayoutKind::fp4x2 && !isFp6FourInThree(*plan.packing))
    return op.emitOpError("no dequantize lowering for this packing");
  if (plan.elem.bits() > 8 || plan.elem.policy == num::SpecialPolicy::UnsignedNaNAllOnes)
    return op.emitOpError("no dequantize lowering for ") << plan.elem.name << " element codes";
  plan.blockedScales = op.getScaleLayout() == LayoutKind::blocked_128x4;
  ScalingAttr scaling = op.getScaling();
  Type st = scaling.getScaleType();
  if (isa<Float8E8M0FNUType>(st))
    plan.scale = DequantScale::E8M0;
  else if (isa<Float8E4M3FNType>(st))
    plan.scale = DequantScale::UE4M3;
  else if (st.isF32())
    plan.scale = DequantScale::F32;
  else if (st.isBF16())
    plan.scale = DequantScale::BF16;
  else if (st.isF16())
    plan.scale = DequantScale::F16;
  else
    return op.emitOpError("no dequantize lowering for ") << st << " scales";
  std::string globalName;
  Value globalOperand = op.getAmax() ? op.getAmax() : op.getGlobalScale();
  if (globalOperand) {
    StringRef what = op.getAmax() ? "amax" : "global_scale";
    if (plan.scale != DequantScale::UE4M3)
      return op.emitOpError("the NVFP4 global scale (its '")
             << what << "' operand) is lowered with e4m3 block scales only";
    const Buffer *global = c.findBuffer(globalOperand);
    if (!global)
      return op.emitOpError() << what << " must be a function argument or a kernel result";
    globalName = global->name;
    plan.global = op.getAmax() ? DequantizePlan::Global::amax : DequantizePlan::Global::value;
    plan.matrixGlobal = !global->shape.empty(); // one per matrix
  }

  // The result's shape: the codes' shape, the innermost dim unpacked.
  SmallVector<std::string> outShape;
  for (int64_t d = 0; d < rank; ++d) {
    std::string e = in.shape[d];
    if (d + 1 == rank && plan.packing == LayoutKind::fp4x2) {
      e = par(e) + "*2";
    } else if (d + 1 == rank && plan.packing) {
      c.require(par(e) + " % 3", "the innermost dimension of " + in.name +
                                     " (fp6 packed 4 in 3 bytes) must be a "
                                     "multiple of 3");
      e = par(e) + "/3*4";
    }
    if (!outTy.isDynamicDim(d)) {
      std::string lit = std::to_string(outTy.getDimSize(d));
      if (e != lit && !llvm::all_of(e, [](char c) { return isdigit(c) || c == '*' || c == '/'; }))
        c.require(par(e) + " - " + lit, "dimension " + std::to_string(d) + " of " + in.name +
                                            " does not give the "
                                            "result's size " +
                                            lit);
      e = lit;
    }
    outShape.push_back(e);
  }
  std::string inner = outShape.back();

  // Which consecutive elements share a scale: row blocks [1, N], whole
  // trailing dims ([1, *], a matrix of a batch), or the whole tensor.
  ArrayRef<int64_t> block = scaling.getBlock();
  size_t lead = rank - block.size();
  SmallVector<int64_t> full(lead, 1);
  full.append(block.begin(), block.end());
  std::string groupExpr;
  if (full.back() > 0) {
    bool rows = llvm::all_of(ArrayRef<int64_t>(full).drop_back(), [](int64_t b) { return b == 1; });
    if (!rows || full.back() % kVec)
      return op.emitOpError("no dequantize lowering for this block shape "
                            "(lowered: row blocks [1, N] with N a multiple "
                            "of 8, [1, *] and per-tensor [*, *])");
    plan.group = full.back();
    c.require(par(inner) + " % " + std::to_string(plan.group),
              "the innermost dimension of the result must be a multiple of " +
                  std::to_string(plan.group) + " (the scaling block)");
  } else {
    size_t p = 0;
    while (p < full.size() && full[p] == 1)
      ++p;
    for (size_t i = p; i < full.size(); ++i)
      if (full[i] >= 0)
        return op.emitOpError("no dequantize lowering for this block shape "
                              "(lowered: row blocks [1, N] with N a multiple "
                              "of 8, [1, *] and per-tensor [*, *])");
    if (p == 0) {
      plan.group = -1;
    } else {
      int64_t n = 1; // a constant when the dims are static
      for (size_t i = p; i < full.size(); ++i) {
        n = outTy.isDynamicDim(i) || n < 0 ? -1 : n * outTy.getDimSize(i);
        groupExpr = groupExpr.empty() ? par(outShape[i]) : groupExpr + "*" + par(outShape[i]);
      }
      plan.group = n > 0 && n % kVec == 0 ? n : 0;
    }
  }
  if (plan.blockedScales && plan.group <= 0)
    return op.emitOpError("blocked_128x4 scales are lowered for row blocks "
                          "[1, N] only");
  if (plan.blockedScales && rank != 2)
    return op.emitOpError("no dequantize lowering yet for rank-3 data with blocked_128x4 "
                          "scales (a layout per matrix)");
  c.require(par(inner) + " % 8", "the innermost dimension of the result must be a multiple of 8");

  // The scales must have the shape the blocks give (reads stay in bounds).
  auto scTy = cast<RankedTensorType>(op.getScales().getType());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t b = d < (int64_t)lead ? 1 : full[d];
    std::string e = b < 0 ? "1" : b == 1 ? outShape[d] : par(outShape[d]) + "/" + std::to_string(b);
    if (plan.blockedScales)
      e = "cdiv(" + e + ", " + (d == 0 ? "128)*128" : "4)*4");
    bool staticOk = !scTy.isDynamicDim(d) && (b < 0 || !outTy.isDynamicDim(d));
    if (!staticOk && sc.shape[d] != e)
      c.require(par(sc.shape[d]) + " - " + par(e),
                "dimension " + std::to_string(d) + " of the scales " + sc.name + " must be " + e);
  }

  auto res = c.defineBuffer(op, op.getResult(), outShape, false);
  if (failed(res))
    return failure();
  std::string t = c.total(**res);
  // Rows of blocked scales and 4+2 packing are found in 32-bit arithmetic.
  if (plan.blockedScales || plan.packing == LayoutKind::fp6_planes)
    c.require(par(t) + " / 34359738368", "this dequantize makes fewer than 2^35 elements; " +
                                             (*res)->name + " would have more");
  SmallVector<std::string> args = {in.name, sc.name};
  if (globalOperand)
    args.push_back(globalName);
  args.append({(*res)->name, t, inner});
  if (plan.group == 0)
    args.push_back(groupExpr);
  if (plan.matrixGlobal)
    args.push_back(c.perMatrixExtent(*c.findBuffer(globalOperand),
                                     op.getAmax() ? "amax" : "global_scale", outShape,
                                     (*res)->name));
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  KernelDesc k = buildDequantizeKernel(c.b, op.getLoc(), c.kernelName("dequantize"), plan);
  c.addLaunch(k, args, {"cdiv(" + t + ", " + std::to_string(kCtaElements) + ")", "1", "1"});
  return success();
}

void fpx::populateDequantizeOpLowerings(OpLoweringSet &set) {
  set.add<DequantizeOp>(lowerDequantize);
}
