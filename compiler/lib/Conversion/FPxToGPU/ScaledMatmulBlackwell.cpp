//===- ScaledMatmulBlackwell.cpp - scaled_matmul on sm_100a / sm_120a -----===//
//
// Binds fpx.scaled_matmul with quantized operands on both sides to the
// Blackwell kernels of ScaledMatmulBlackwell.h: classifies the operands
// into a BlockScaledForm, checks what the kernel needs (located errors for
// what it refuses, launch-time requirements for dynamic shapes) and records
// the launch. The target table's MmaKind bits pick the kernel: Tcgen05
// (sm_100a) or MmaBlockScaled (sm_120a).
//
// Scales are row-major, as the op's verifier shapes them ([M, K / block],
// [N, K / block]): the tcgen05 producer rearranges them into the 128x4
// blocked layout in shared memory on their way to tensor memory, and the
// mma.sync kernel reads each lane's bytes where they are.
//
//===----------------------------------------------------------------------===//
#include "ScaledMatmulBlackwell.h"
#include "ScaledMatmulKernels.h"

#include "fpx/Target/TargetInfo.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace fpx;

LogicalResult fpx::lowerBlackwellScaledMatmul(LoweringContext &c, ScaledMatmulOp op) {
  const TargetInfo &target = *c.target;
  bool tcgen05 = target.mma & Tcgen05;
  auto refuse = [&](const Twine &what) {
    return op.emitOpError("with ")
           << what << " has no kernel form on " << target.chip << " (lowered there: "
           << (tcgen05 ? "MXFP8 (e4m3/e5m2 with e8m0 [1, 32] scales) x MXFP8 through "
                         "tcgen05.mma kind::mxf8f6f4.block_scale, fp8 x fp8 with f32 "
                         "per-tensor or per-row scales through kind::f8f6f4"
                       : "MXFP8 (e4m3/e5m2 with e8m0 [1, 32] scales) x MXFP8 through the "
                         "block-scaled mma.sync kind::mxf8f6f4")
           << "; bf16 or f32 result)";
  };
  auto formatOf = [&](Value v, std::optional<FormatAttr> attr) -> FormatAttr {
    if (attr && *attr)
      return *attr;
    return FormatAttr::fromType(cast<RankedTensorType>(v.getType()).getElementType());
  };
  FormatAttr fa = formatOf(op.getLhs(), op.getLhsFormat());
  FormatAttr fb = formatOf(op.getRhs(), op.getRhsFormat());
  auto isFp8 = [](FormatAttr f, bool &e5m2) {
    const num::Format &x = f.getFormat();
    e5m2 = x.ebits == 5 && x.mbits == 2 && x.bias == 15;
    bool e4m3 = x.ebits == 4 && x.mbits == 3 && x.bias == 7;
    return x.hasSign && (e4m3 || e5m2);
  };
  auto scalingText = [&] {
    return "(lhs " + llvm::formatv("{0}", Attribute(*op.getLhsScaling())).str() + ", rhs " +
           llvm::formatv("{0}", Attribute(*op.getRhsScaling())).str() + ")";
  };
  BlackwellGemmPlan plan;
  if (!isFp8(fa, plan.e5m2A) || !isFp8(fb, plan.e5m2B))
    return refuse(Twine("operands ") + fa.getFormat().name + " x " + fb.getFormat().name +
                  (fa.getFormat().bits() == 4 || fb.getFormat().bits() == 4
                       ? " (NVFP4 / MXFP4: fpx.scaled_matmul has no packing for its lhs yet)"
                       : ""));
  if (op.getRhsPacking())
    return refuse("a packed rhs");
  if (op.getRhsGlobalScale())
    return refuse("a global_scale (NVFP4's tensor scale) on fp8 operands");
  ScalingAttr sla = *op.getLhsScaling(), slb = *op.getRhsScaling();
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
  if (isMx(sla) && isMx(slb))
    plan.form = BlockScaledForm::Mxfp8;
  else if (tcgen05 && f32Kind(sla, plan.rowA) && f32Kind(slb, plan.rowB))
    plan.form = BlockScaledForm::Fp8;
  else
    return refuse("scales " + scalingText());
  plan.out = op.getResult().getType().getElementType();
  if (!plan.out.isBF16() && !plan.out.isF32())
    return refuse("a result of element type other than bf16 or f32");
  if (op.getBias())
    plan.bias = cast<RankedTensorType>(op.getBias().getType()).getElementType();

  // K: the tcgen05 kernel's TMA rows are multiples of 16 bytes; the
  // mma.sync kernel reads 32-K steps; MX needs whole 32-blocks anyway.
  int64_t kAlign = plan.form == BlockScaledForm::Mxfp8 || !tcgen05 ? 32 : 16;
  int64_t staticK = cast<RankedTensorType>(op.getLhs().getType()).getDimSize(1);
  if (!ShapedType::isDynamic(staticK) && staticK % kAlign)
    return op.emitOpError("on ") << target.chip << " needs K (" << staticK
                                 << ") to be a multiple of " << kAlign;

  FailureOr<Buffer> a = c.inputBuffer(op, op.getLhs());
  FailureOr<Buffer> b = c.inputBuffer(op, op.getRhs());
  FailureOr<Buffer> sa = c.inputBuffer(op, op.getLhsScales());
  FailureOr<Buffer> sb = c.inputBuffer(op, op.getRhsScales());
  if (failed(a) || failed(b) || failed(sa) || failed(sb))
    return failure();
  std::string M = a->shape[0], K = a->shape[1], N = b->shape[0];
  std::string what = "the " + target.chip.str() + " scaled GEMM";
  c.require(par(b->shape[1]) + " - " + par(K),
            what + " needs B (" + b->name + ") to have K = " + K + " columns");
  c.require(par(K) + " % " + std::to_string(kAlign),
            what + " needs K (" + K + ") to be a multiple of " + std::to_string(kAlign));
  c.require("min(1, max(0, 1 - " + par(K) + "))", what + " needs K >= 1");
  c.require("min(1, max(0, max(" + M + ", max(" + N + ", " + K + ")) - 2147483647))",
            what + " needs M, N and K below 2^31");
  if (plan.form == BlockScaledForm::Mxfp8) {
    std::string blocks = "cdiv(" + K + ", 32)";
    for (auto [s, rows, side] : {std::make_tuple(&*sa, "M (" + M + ")", "A"),
                                 std::make_tuple(&*sb, "N (" + N + ")", "B")}) {
      c.require(par(s->shape[0]) + " - " + par(s == &*sa ? M : N),
                "the e8m0 scales " + s->name + " of " + side + " must have " + rows + " rows");
      c.require(par(s->shape[1]) + " - " + blocks,
                "the e8m0 scales " + s->name + " of " + side + " must have " + blocks +
                    " columns (row-major, one per 32 K)");
    }
  }
  if (plan.rowA)
    c.require(par(sa->shape[0]) + " - " + par(M),
              "the row scales " + sa->name + " of A must have M (" + M + ") rows");
  if (plan.rowB)
    c.require(par(sb->shape[0]) + " - " + par(N),
              "the row scales " + sb->name + " of B must have N (" + N + ") rows");
  FailureOr<Buffer> bias = c.biasBuffer(op, op.getBias(), N);
  if (failed(bias))
    return failure();
  FailureOr<Buffer *> y = c.defineBuffer(op, op.getResult(), {M, N}, false);
  if (failed(y))
    return failure();
  std::string yName = (*y)->name;

  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  std::string kind = plan.form == BlockScaledForm::Mxfp8 ? "mxfp8" : "fp8";
  SmallVector<Attribute> args;
  KernelDesc k;
  std::string grid, shared;
  if (tcgen05) {
    k = buildTcgen05GemmKernel(c.b, op.getLoc(), c.kernelName(kind + "_tcgen05_gemm"), plan,
                               c.gpuModule);
    std::string kBytes = K; // fp8: a byte per element
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
  if (plan.bias)
    args.push_back(c.str(bias->name));
  c.addLaunch(k, ArrayRef<Attribute>(args), {grid, "1", "1"}, shared);
  return success();
}
