//===- GroupedMatmulOpToGPU.cpp - fpx.grouped_matmul -> wgmma -------------===//
//
// fpx.grouped_matmul 2D x 3D with fp8 codes and rowwise f32 scales (the
// forward GEMM of float8 MoE training, torch's _scaled_grouped_mm): A (M, K)
// and B (G, N, K) e4m3/e5m2, K-major, A's scales [M, 1], B's [G, N, 1], the
// i32 group ends on the device; bf16 or f32 result. On a target with wgmma
// (sm_90a) it records the Hopper scaled GEMM (ScaledMatmulKernels.h) in its
// grouped mode, the wide 128x192 tile: for bf16 out two kernels, one with
// the TMA-store epilogue (a warpgroup whose 64 rows are all its group's
// stores through TMA, the others mask: a box must not cross a group end;
// 1.22-1.65x the st.global kernel's speed at K = 2048 on an H200,
// docs/results/grouped-gemm.md) and one with masked st.global, the shapes
// picking one; for f32 out the st.global one. Over a persistent grid of min(a bound of the tiles, SMs) CTAs: the tiles
// depend on the offsets, which the host never reads (no synchronization; a
// CUDA graph may replay the call with new offsets). The bound: each group
// adds at most one partial row tile to cdiv(M, 128), and the rows past the
// last end one more. Every other form is refused with an error naming what
// is lowered.
//
//===----------------------------------------------------------------------===//
#include "ScaledMatmulKernels.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace fpx;

namespace {

/// The group table's capacity when G is not static (a static G sizes it
/// exactly): 8 KiB of shared memory, beside the wide tile's five stages.
constexpr int64_t kGroupedMaxGroups = 1024;

/// Rowwise f32 scales: block [1, *] (a rank-3 B's per matrix).
bool isRowwise(ScalingAttr s) {
  ArrayRef<int64_t> block = s.getBlock();
  return block.size() == 2 && block[0] == 1 && block[1] < 0 && s.getScaleType().isF32();
}

} // namespace

LogicalResult fpx::lowerGroupedMatmul(LoweringContext &c, GroupedMatmulOp op) {
  StringRef chip = c.target ? c.target->chip : StringRef("(none)");
  auto notYet = [&](const Twine &what) {
    return op.emitOpError("with ")
           << what << " is not lowered yet on " << chip
           << " (lowered: 2D x 3D with fp8 e4m3/e5m2 operands and rowwise f32 scales, "
              "lhs_scaling and rhs_scaling block [1, *] (lhs scales [M, 1], rhs [G, N, 1]), "
              "bf16 or f32 result, on sm_90a)";
  };
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  if (rhsType.getRank() != 3)
    return notYet("a 2D x 2D form (offsets splitting K)");
  if (!op.getLhsScales())
    return notYet("unscaled (high-precision) operands");
  ScaledGemmPlan plan;
  Type ea = cast<RankedTensorType>(op.getLhs().getType()).getElementType();
  Type eb = rhsType.getElementType();
  if (!isFp8Operand(FormatAttr::fromType(ea), plan.e5m2A) ||
      !isFp8Operand(FormatAttr::fromType(eb), plan.e5m2B))
    return notYet(llvm::formatv("operands {0} x {1}", ea, eb).str());
  if (!isRowwise(*op.getLhsScaling()) || !isRowwise(*op.getRhsScaling()))
    return notYet("scales (lhs " + llvm::formatv("{0}", Attribute(*op.getLhsScaling())).str() +
                  ", rhs " + llvm::formatv("{0}", Attribute(*op.getRhsScaling())).str() +
                  ") other than rowwise f32");
  plan.out = op.getResult().getType().getElementType();
  if (!plan.out.isBF16() && !plan.out.isF32())
    return notYet("a result of element type other than bf16 or f32");
  SmallVector<ScaledGemmTile> tiles;
  if (c.target)
    tiles = scaledGemmTiles(*c.target);
  if (tiles.empty())
    return op.emitOpError("with fp8 operands needs wgmma (sm_90a); target ")
           << chip << " has no kernel form for it yet";
  int64_t staticK = cast<RankedTensorType>(op.getLhs().getType()).getDimSize(1);
  if (!ShapedType::isDynamic(staticK) && staticK % 16)
    return op.emitOpError("with fp8 operands needs K (")
           << staticK
           << ") to be a multiple of 16: A and B rows are copied by TMA, whose row stride is a "
              "multiple of 16 bytes";
  int64_t staticG = rhsType.getDimSize(0);
  if (staticG == 0)
    return op.emitOpError("has no groups (B's dimension 0 is 0)");

  FailureOr<Buffer> a = c.inputBuffer(op, op.getLhs());
  FailureOr<Buffer> b = c.inputBuffer(op, op.getRhs());
  FailureOr<Buffer> offs = c.inputBuffer(op, op.getOffsets());
  FailureOr<Buffer> sa = c.inputBuffer(op, op.getLhsScales());
  FailureOr<Buffer> sb = c.inputBuffer(op, op.getRhsScales());
  if (failed(a) || failed(b) || failed(offs) || failed(sa) || failed(sb))
    return failure();
  std::string M = a->shape[0], K = a->shape[1], G = b->shape[0], N = b->shape[1];
  plan.maxGroups = ShapedType::isDynamic(staticG) ? kGroupedMaxGroups : staticG;
  c.require(par(b->shape[2]) + " - " + par(K),
            "the fp8 grouped GEMM needs B (" + b->name + ") to have K = " + K + " columns");
  c.require(par(K) + " % 16", "the fp8 grouped GEMM needs K (" + K +
                                  ") to be a multiple of 16 (TMA row strides are multiples of "
                                  "16 bytes)");
  c.require(par(offs->shape[0]) + " - " + par(G),
            "the offsets " + offs->name + " must have one end row a group (G = " + G + ")");
  c.require("min(1, max(0, 1 - " + par(G) + ") + max(0, " + par(G) + " - " +
                std::to_string(plan.maxGroups) + "))",
            "the fp8 grouped GEMM needs 1 to " + std::to_string(plan.maxGroups) +
                " groups (its group table in shared memory), got " + G);
  c.require("min(1, max(0, max(" + M + ", max(" + par(G) + "*" + par(N) + ", " + K +
                ")) - 2147483647))",
            "the fp8 grouped GEMM needs M, G * N and K below 2^31");
  c.require(par(sa->shape[0]) + " - " + par(M),
            "the row scales " + sa->name + " of A must have M (" + M + ") rows");
  for (auto [dim, want] : {std::make_pair(0, G), std::make_pair(1, N)})
    c.require(par(sb->shape[dim]) + " - " + par(want),
              "the row scales " + sb->name + " of B must be [G, N, 1] ([" + G + ", " + N +
                  ", 1]): one a group and column");
  FailureOr<Buffer *> y = c.defineBuffer(op, op.getResult(), {M, N}, false);
  if (failed(y))
    return failure();
  std::string yName = (*y)->name;

  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  plan.rowA = plan.rowB = true;
  plan.grouped = true;
  // bf16 out: two kernels, as the dense GEMM's wide tile: the TMA-store
  // epilogue (for the warpgroups whose rows are all their group's; the
  // others mask) where C's rows are a multiple of 16 bytes and K <=
  // kScaledGemmTmaStoreMaxK (its staging tile costs a ring stage), else
  // masked st.global; the shapes pick one (the other's grid is 0). f32 out:
  // st.global alone (its staging tile would leave 3 stages, and the
  // consumers spill).
  std::string perRow = std::to_string(16 / (plan.out.getIntOrFloatBitWidth() / 8));
  std::string tma = "max(0, 1 - " + par(N) + " % " + perRow + ")*min(1, max(0, " +
                    std::to_string(kScaledGemmTmaStoreMaxK + 1) + " - " + par(K) + "))";
  SmallVector<bool, 2> forms = {false};
  if (plan.out.isBF16())
    forms.insert(forms.begin(), true);
  for (bool tmaStore : forms) {
    plan.tmaStore = tmaStore;
    plan.tile = tiles.back();
    plan.tile.maxSplit = 1;
    plan.tile.stages = std::min(plan.tile.stages, scaledGemmMaxStages(plan));
    KernelDesc k = buildScaledGemmKernel(c.b, op.getLoc(), c.kernelName("fp8_grouped_gemm"), plan,
                                         c.gpuModule);
    SmallVector<Attribute> args = {
        c.tensorMapArg(a->name, {K, M}, {kScaledGemmStageK, plan.tile.bm}, 128),
        c.tensorMapArg(b->name, {K, par(G) + "*" + par(N)}, {kScaledGemmStageK, plan.tile.bn},
                       128)};
    if (tmaStore)
      args.push_back(
          c.tensorMapArg(yName, {N, M}, {plan.storeBoxCols(), kScaledGemmStoreRows}, 128));
    for (const std::string &v : {sa->name, sb->name, yName, M, N, K, offs->name, G})
      args.push_back(c.str(v));
    std::string bound = "(cdiv(" + M + ", " + std::to_string(plan.tile.bm) + ") + " + par(G) +
                        " + 1)*cdiv(" + N + ", " + std::to_string(plan.tile.bn) + ")";
    std::string select = forms.size() == 1 ? ""
                         : tmaStore        ? tma + "*"
                                           : "max(0, 1 - " + tma + ")*";
    c.addLaunch(k, ArrayRef<Attribute>(args), {select + "min(" + bound + ", sm_count)", "1", "1"},
                std::to_string(scaledGemmSharedBytes(plan)));
  }
  return success();
}
