//===- ScaledMatmulBlackwell.cpp - scaled_matmul on sm_100a / sm_120a -----===//
//
// Binds fpx.scaled_matmul with quantized operands on both sides to the
// Blackwell kernels of ScaledMatmulBlackwell.h: classifies the operands
// into a BlockScaledForm, checks what the kernel needs (located errors for
// what it refuses, launch-time requirements for dynamic shapes) and records
// the launch. The target table's MmaKind bits pick the kernel: Tcgen05
// (sm_100a) or MmaBlockScaled (sm_120a).
//
// Scales are row-major ([M, K / block], [N, K / block]) or blocked 128x4
// (the op's lhs/rhs_scale_layout), as the op's verifier shapes them: the
// tcgen05 producer gathers them into the 128x4 blocked layout in shared
// memory on their way to tensor memory, and the mma.sync kernel reads each
// lane's bytes where they are (qk::scaleOffset: either layout).
//
//===----------------------------------------------------------------------===//
#include "ScaledMatmulBlackwell.h"
#include "ScaledMatmulKernels.h"

#include "fpx/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace fpx;

void BlackwellGemmPlan::params(StringRef a, StringRef b, Type operand, Type gptr,
                               SmallVector<std::string> &names,
                               SmallVector<Type> &types) const {
  Type i64 = IntegerType::get(gptr.getContext(), 64);
  names = {a.str(), b.str(), "sa", "sb", "c", "M", "N", "K"};
  types = {operand, operand, gptr, gptr, gptr, i64, i64, i64};
  for (auto [has, gName] : {std::make_pair(globalA, "ga"), std::make_pair(globalB, "gb")})
    if (has) {
      names.push_back(gName);
      types.push_back(gptr);
    }
  if (bias) {
    names.push_back("bias");
    types.push_back(gptr);
  }
}

Value fpx::biasAndCast(KernelBuilder &k, const BlackwellGemmPlan &plan, Value v, Value bias,
                       Value col) {
  if (plan.bias) {
    unsigned bsize = plan.bias.getIntOrFloatBitWidth() / 8;
    Value bv = k.load(plan.bias, k.gep(bias, plan.bias, col), bsize);
    if (!plan.bias.isF32())
      bv = arith::ExtFOp::create(k.b, k.loc, k.f32(), bv);
    v = k.fadd(v, bv);
  }
  return plan.out.isF32() ? v : arith::TruncFOp::create(k.b, k.loc, plan.out, v);
}

BlackwellGemmArgs::BlackwellGemmArgs(KernelBuilder &k, Block &entry,
                                     const BlackwellGemmPlan &plan) {
  a = entry.getArgument(0), b = entry.getArgument(1), sa = entry.getArgument(2),
  sb = entry.getArgument(3), c = entry.getArgument(4);
  M = k.trunc(entry.getArgument(5), k.i32()), N = k.trunc(entry.getArgument(6), k.i32()),
  K = k.trunc(entry.getArgument(7), k.i32());
  unsigned next = 8;
  ga = plan.globalA ? entry.getArgument(next++) : Value();
  gb = plan.globalB ? entry.getArgument(next++) : Value();
  bias = plan.bias ? entry.getArgument(next++) : Value();
}

LogicalResult fpx::lowerBlackwellScaledMatmul(LoweringContext &c, ScaledMatmulOp op) {
  const TargetInfo &target = *c.target;
  bool tcgen05 = target.mma & Tcgen05;
  auto refuse = [&](const Twine &what) {
    return op.emitOpError("with ")
           << what << " has no kernel form on " << target.chip << " (lowered there: "
           << (tcgen05 ? "MXFP8 (e4m3/e5m2 with e8m0 [1, 32] scales) x MXFP8 through "
                         "tcgen05.mma kind::mxf8f6f4.block_scale, NVFP4 (fp4x2 e2m1 with e4m3 "
                         "[1, 16] scales) x NVFP4 through kind::mxf4nvf4, fp8 x fp8 with f32 "
                         "per-tensor or per-row scales through kind::f8f6f4"
                       : "MXFP8 (e4m3/e5m2 with e8m0 [1, 32] scales) x MXFP8 and NVFP4 "
                         "(fp4x2 e2m1 with e4m3 [1, 16] scales) x NVFP4 through the "
                         "block-scaled mma.sync")
           << "; bf16 or f32 result)";
  };
  FormatAttr fa = scaledOperandFormat(op.getLhs(), op.getLhsFormat());
  FormatAttr fb = scaledOperandFormat(op.getRhs(), op.getRhsFormat());
  auto scalingText = [&] {
    return "(lhs " + llvm::formatv("{0}", Attribute(*op.getLhsScaling())).str() + ", rhs " +
           llvm::formatv("{0}", Attribute(*op.getRhsScaling())).str() + ")";
  };
  BlackwellGemmPlan plan;
  auto isE2m1 = [](FormatAttr f) { return f.getFormat().name == num::e2m1fn().name; };
  ScalingAttr sla = *op.getLhsScaling(), slb = *op.getRhsScaling();
  auto isNv = [](ScalingAttr s) {
    ArrayRef<int64_t> blk = s.getBlock();
    return blk.size() == 2 && blk[0] == 1 && blk[1] == 16 &&
           isa<Float8E4M3FNType>(s.getScaleType());
  };
  if (isE2m1(fa) && isE2m1(fb)) {
    // NVFP4 x NVFP4: packed codes on both sides, e4m3 [1, 16] scales.
    if (op.getLhsPacking() != LayoutKind::fp4x2 || op.getRhsPacking() != LayoutKind::fp4x2)
      return refuse("e2m1 operands that are not both packed fp4x2");
    if (!isNv(sla) || !isNv(slb))
      return refuse("e2m1 operands with scales " + scalingText() +
                    " (NVFP4's are e4m3 [1, 16]; MXFP4 is not lowered)");
    plan.form = BlockScaledForm::Nvfp4;
    plan.globalA = bool(op.getLhsGlobalScale());
    plan.globalB = bool(op.getRhsGlobalScale());
  } else if (!isFp8Operand(fa, plan.e5m2A) || !isFp8Operand(fb, plan.e5m2B)) {
    return refuse(Twine("operands ") + fa.getFormat().name + " x " + fb.getFormat().name);
  } else if (op.getRhsPacking() || op.getLhsPacking()) {
    return refuse("packed fp8 operands");
  } else if (op.getRhsGlobalScale() || op.getLhsGlobalScale()) {
    return refuse("a global_scale (NVFP4's tensor scale) on fp8 operands");
  }
  auto isMx = [](ScalingAttr s) {
    ArrayRef<int64_t> blk = s.getBlock();
    return blk.size() == 2 && blk[0] == 1 && blk[1] == 32 &&
           isa<Float8E8M0FNUType>(s.getScaleType());
  };
  auto f32Kind = [](ScalingAttr s, bool &row) {
    ArrayRef<int64_t> blk = s.getBlock();
    if (blk.size() != 2 || !s.getScaleType().isF32())
      return false;
    row = blk[0] == 1 && blk[1] < 0;
    return row || (blk[0] < 0 && blk[1] < 0);
  };
  auto isF32Block = [](ScalingAttr s) {
    ArrayRef<int64_t> blk = s.getBlock();
    return s.getScaleType().isF32() && blk.size() == 2 && blk[0] > 0 && blk[1] > 0;
  };
  if (isF32Block(sla) || isF32Block(slb))
    return op.emitOpError("with blockwise f32 scales ")
           << scalingText()
           << " needs wgmma (sm_90a), whose kernel promotes each 128-K partial sum; "
           << target.chip << " has no kernel form for them yet";
  if (plan.form != BlockScaledForm::Nvfp4) {
    if (isMx(sla) && isMx(slb))
      plan.form = BlockScaledForm::Mxfp8;
    else if (tcgen05 && f32Kind(sla, plan.rowA) && f32Kind(slb, plan.rowB))
      plan.form = BlockScaledForm::Fp8;
    else
      return refuse("scales " + scalingText());
  }
  // (The verifier allows blocked 128x4 for byte [1, n] scales only: MX and
  // NVFP4's here.)
  plan.blockedA = op.getLhsScaleLayout() == LayoutKind::blocked_128x4;
  plan.blockedB = op.getRhsScaleLayout() == LayoutKind::blocked_128x4;
  plan.out = op.getResult().getType().getElementType();
  if (!plan.out.isBF16() && !plan.out.isF32())
    return refuse("a result of element type other than bf16 or f32");
  if (op.getBias())
    plan.bias = cast<RankedTensorType>(op.getBias().getType()).getElementType();

  // K: the tcgen05 kernel's TMA rows are multiples of 16 bytes; the
  // mma.sync kernel reads 32-K steps; MX needs whole 32-blocks anyway.
  // NVFP4: K / 2 bytes a row (TMA: K % 32) and the mma.sync's k64.
  bool nvfp4 = plan.form == BlockScaledForm::Nvfp4;
  int64_t kAlign = nvfp4 ? (tcgen05 ? 32 : 64)
                         : plan.form == BlockScaledForm::Mxfp8 || !tcgen05 ? 32 : 16;
  int64_t staticK = cast<RankedTensorType>(op.getLhs().getType()).getDimSize(1);
  if (!ShapedType::isDynamic(staticK))
    staticK *= plan.elemsPerByte();
  if (!ShapedType::isDynamic(staticK) && staticK % kAlign)
    return op.emitOpError("on ") << target.chip << " needs K (" << staticK
                                 << ") to be a multiple of " << kAlign;

  FailureOr<Buffer> a = c.inputBuffer(op, op.getLhs());
  FailureOr<Buffer> b = c.inputBuffer(op, op.getRhs());
  FailureOr<Buffer> sa = c.inputBuffer(op, op.getLhsScales());
  FailureOr<Buffer> sb = c.inputBuffer(op, op.getRhsScales());
  if (failed(a) || failed(b) || failed(sa) || failed(sb))
    return failure();
  // K in elements; the operands' rows are K / 2 bytes with packed fp4.
  std::string M = a->shape[0], N = b->shape[0];
  std::string K = nvfp4 ? par(a->shape[1]) + "*2" : a->shape[1];
  std::string what = "the " + target.chip.str() + " scaled GEMM";
  c.require(par(b->shape[1]) + " - " + par(a->shape[1]),
            what + " needs B (" + b->name + ") to have " + a->shape[1] + " columns, as A");
  c.require(par(K) + " % " + std::to_string(kAlign),
            what + " needs K (" + K + ") to be a multiple of " + std::to_string(kAlign));
  c.require("min(1, max(0, 1 - " + par(K) + "))", what + " needs K >= 1");
  c.require("min(1, max(0, max(" + M + ", max(" + N + ", " + K + ")) - 2147483647))",
            what + " needs M, N and K below 2^31");
  if (plan.blockScaled())
    requireByteScaleShapes(c, *sa, *sb, M, N, K, plan.scaleBlock(), nvfp4 ? "e4m3" : "e8m0",
                           plan.blockedA, plan.blockedB);
  if (plan.rowA)
    c.require(par(sa->shape[0]) + " - " + par(M),
              "the row scales " + sa->name + " of A must have M (" + M + ") rows");
  if (plan.rowB)
    c.require(par(sb->shape[0]) + " - " + par(N),
              "the row scales " + sb->name + " of B must have N (" + N + ") rows");
  FailureOr<SmallVector<std::string>> globals = globalScaleBuffers(c, op);
  if (failed(globals))
    return failure();
  FailureOr<Buffer> bias = c.biasBuffer(op, op.getBias(), N);
  if (failed(bias))
    return failure();
  FailureOr<Buffer *> y = c.defineBuffer(op, op.getResult(), {M, N}, false);
  if (failed(y))
    return failure();
  std::string yName = (*y)->name;

  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  std::string kind = nvfp4 ? "nvfp4" : plan.form == BlockScaledForm::Mxfp8 ? "mxfp8" : "fp8";
  SmallVector<Attribute> args;
  KernelDesc k;
  std::string grid, shared;
  if (tcgen05) {
    k = buildTcgen05GemmKernel(c.b, op.getLoc(), c.kernelName(kind + "_tcgen05_gemm"), plan,
                               c.gpuModule);
    std::string kBytes = a->shape[1]; // a row's bytes
    args = {c.tensorMapArg(a->name, {kBytes, M}, {kTcgen05StageBytes, kTcgen05TileM}, 128),
            c.tensorMapArg(b->name, {kBytes, N}, {kTcgen05StageBytes, kTcgen05TileN}, 128)};
    grid = "cdiv(" + M + ", " + std::to_string(kTcgen05TileM) + ")*cdiv(" + N + ", " +
           std::to_string(kTcgen05TileN) + ")";
    shared = std::to_string(tcgen05GemmSharedBytes(plan));
  } else {
    k = buildMmaBlockScaledGemmKernel(c.b, op.getLoc(), c.kernelName(kind + "_mma_gemm"), plan,
                                      c.gpuModule);
    args = {c.str(a->name), c.str(b->name)};
    std::string tile = std::to_string(kMmaBlockScaledTile);
    grid = "cdiv(" + M + ", " + tile + ")*cdiv(" + N + ", " + tile + ")";
    shared = "0";
  }
  for (const std::string &s : {sa->name, sb->name, yName, M, N, K})
    args.push_back(c.str(s));
  for (const std::string &g : *globals)
    args.push_back(c.str(g));
  if (plan.bias)
    args.push_back(c.str(bias->name));
  c.addLaunch(k, ArrayRef<Attribute>(args), {grid, "1", "1"}, shared);
  return success();
}
