//===- QuantizeOpToGPU.cpp - fpx.quantize -> cast kernels -----------------===//
//
// Plans each fpx.quantize (a QuantizePlan: formats, scales, packing, fused
// amax, global scale and Hadamard transform) and picks its cast by block
// shape: row blocks [1, N] and per-tensor scales (the row cast,
// QuantizeKernels.cpp), one scale a row [1, *] (PerRowQuantizeKernels.cpp),
// column blocks [N, 1] with `transposed` (QuantizeKernels.cpp) and 2-D blocks
// (BlockQuantizeKernels.cpp). Before any op is lowered, its planners pick
// the fpx.amax and fpx.global_scale ops a cast produces as it casts.
//
//===----------------------------------------------------------------------===//
#include "BlockQuantizeKernels.h"
#include "PerRowQuantizeKernels.h"
#include "QuantizeKernels.h"
#include "fpx/Conversion/FPxToGPU/Lowerings.h"
#include "fpx/Dialect/FPx/IR/FPxVocabulary.h"

using namespace mlir;
using namespace fpx;

/// Whether fpx.quantize `op` scales row blocks [1, ..., 1, N] (lowered by the
/// row cast, as per-tensor scaling is).
static bool hasRowBlocks(QuantizeOp op) {
  ScalingAttr scaling = op.getScaling();
  ArrayRef<int64_t> block = scaling.getBlock();
  if (scaling.isPerTensor() || block.back() <= 0 || op.getTransposed())
    return false;
  return llvm::all_of(block.drop_back(), [](int64_t b) { return b == 1; });
}

//===----------------------------------------------------------------------===//
// Fusion planning
//===----------------------------------------------------------------------===//

/// Picks the NVFP4 cast each only-returned fpx.global_scale fuses into.
static void planGlobalScaleFusion(LoweringContext &c) {
  for (GlobalScaleOp gs : c.func.getBody().front().getOps<GlobalScaleOp>()) {
    // Only returned: no kernel reads it, so the cast may write it whenever
    // it runs.
    if (!llvm::all_of(gs->getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); }))
      continue;
    for (Operation *user : gs.getAmax().getUsers()) {
      auto q = dyn_cast<QuantizeOp>(user);
      if (q && q.getAmax() == gs.getAmax() &&
          isa<Float8E4M3FNType>(q.getScaling().getScaleType()) && !c.fusedGlobalScale.count(q)) {
        c.fusedGlobalScale[q] = gs;
        break;
      }
    }
  }
}

/// Picks the row cast each only-returned tensor fpx.amax fuses into: one
/// of the same input (and transform) that reads a given amax, e.g. the
/// previous step's under delayed scaling. The cast then also reduces
/// max |x| of what it reads, so the input is read once instead of twice.
static void planAmaxFusion(LoweringContext &c) {
  auto onlyReturned = [](Value v) {
    return llvm::all_of(v.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
  };
  auto rank = [](Value v) { return cast<RankedTensorType>(v.getType()).getRank(); };
  for (AmaxOp am : c.func.getBody().front().getOps<AmaxOp>()) {
    // An amax no kernel reads: the cast may produce it whenever it runs. One
    // per matrix fuses into a cast reading one per matrix (each tile's
    // maximum goes to its matrix's).
    if (!onlyReturned(am.getResult()))
      continue;
    for (Operation *user : am.getInput().getUsers()) {
      auto q = dyn_cast<QuantizeOp>(user);
      if (!q || q.getInput() != am.getInput() || !q.getAmax() ||
          rank(q.getAmax()) != rank(am.getResult()) || q.getPrologue() || c.fusedAmax.count(q) ||
          !(q.getScaling().isPerTensor() || hasRowBlocks(q)) ||
          q.getHadamard() != am.getHadamard() ||
          q.getHadamardSeed().value_or(0) != am.getHadamardSeed().value_or(0))
        continue;
      c.fusedAmax[q] = am;
      break;
    }
  }
}

//===----------------------------------------------------------------------===//
// Cast outputs
//===----------------------------------------------------------------------===//

/// Defines a cast's data and scale buffers and returns the launch
/// arguments every cast kernel takes: in, out, scales, [amax],
/// [global_scale], [amax_out], [seed], then the two extents the kernel
/// wants.
static FailureOr<SmallVector<std::string>>
defineCastOutputs(LoweringContext &c, QuantizeOp op, const Buffer &in, const QuantizePlan &plan,
                  SmallVector<std::string> outShape, SmallVector<std::string> scaleShape,
                  bool zeroScales, const std::string &amaxName, const std::string &dim0,
                  const std::string &dim1) {
  auto q = c.defineBuffer(op, op.getResult(), std::move(outShape), false);
  if (failed(q))
    return failure();
  std::string qName = (*q)->name;
  auto s = c.defineBuffer(op, op.getScales(), std::move(scaleShape), zeroScales);
  if (failed(s))
    return failure();
  SmallVector<std::string> args = {in.name, qName, (*s)->name};
  if (plan.tensorAmax)
    args.push_back(amaxName);
  if (plan.globalScaleOut) {
    GlobalScaleOp gs = c.fusedGlobalScale.lookup(op);
    // a copy: defineBuffer below may move bufs
    Buffer amax = *c.findBuffer(op.getAmax());
    auto g = c.defineBuffer(gs, gs.getResult(), amax.shape, false);
    if (failed(g))
      return failure();
    args.push_back((*g)->name);
    // The cast's first CTA (of each matrix, with an amax per matrix) stores
    // g; an empty input launches no CTA, and then (only then: the grid is 0
    // otherwise) a kernel of its own does.
    addGlobalScaleLaunch(c, op.getLoc(), amax, (*g)->name, "1-min(" + c.total(in) + ", 1)");
  }
  if (plan.amaxOut) {
    AmaxOp am = c.fusedAmax.lookup(op);
    // zeroed before the launch: the CTAs' maxima meet there by atomic max
    auto a = c.defineBuffer(am, am.getResult(), amaxShape(c, am, in), /*zeroInit=*/true);
    if (failed(a))
      return failure();
    args.push_back((*a)->name);
  }
  if (plan.rounding == RoundingKind::rs) {
    auto si = c.scalars.find(op.getSeed());
    if (si == c.scalars.end())
      return op.emitOpError("seed must be a function argument");
    args.push_back(si->second);
  }
  args.push_back(dim0);
  args.push_back(dim1);
  return args;
}

/// The buffer of op's given amax ("" without one), marking the plan's
/// tensorAmax where there is one.
static FailureOr<std::string> givenAmax(LoweringContext &c, QuantizeOp op, QuantizePlan &plan) {
  Value a = op.getAmax();
  if (!a)
    return std::string();
  const Buffer *amax = c.findBuffer(a);
  if (!amax)
    return op.emitOpError("amax must be a function argument or a kernel result");
  plan.tensorAmax = true;
  return amax->name;
}

//===----------------------------------------------------------------------===//
// Column blocks [N, 1], transposed
//===----------------------------------------------------------------------===//

static LogicalResult lowerColumnQuantize(LoweringContext &c, QuantizeOp op, const Buffer &in,
                                         QuantizePlan plan, int64_t blockM) {
  if (blockM % kVec || kColTileRows % blockM)
    return op.emitOpError("column blocks must be a multiple of 8 that divides ")
           << kColTileRows << ", got " << blockM;
  if (plan.packing && *plan.packing != LayoutKind::fp4x2)
    return op.emitOpError("transposed casts pack fp4x2 only");
  if (plan.elem.bits() == 6)
    return op.emitOpError("no transposed lowering yet for fp6");
  if (plan.hadamard)
    return op.emitOpError("no transposed lowering yet for a fused Hadamard transform");
  if (plan.blockedScales && plan.scaleKind == num::ScaleKind::FP32)
    return op.emitOpError("blocked_128x4 scales are byte scales (E8M0 or NVFP4's e4m3)");
  if (plan.elem.bits() <= 4 && plan.packing != LayoutKind::fp4x2)
    return op.emitOpError("fp4 results are lowered packed: add packing = "
                          "#fpx.layout<fp4x2>");
  size_t rank = in.shape.size();
  std::string E = rank == 3 ? in.shape[0] : "1";
  std::string M = in.shape[rank - 2], K = in.shape[rank - 1];
  c.require(par(M) + " % " + std::to_string(blockM),
            "dimension " + std::to_string(rank - 2) + " of " + in.name + " must be a multiple of " +
                std::to_string(blockM) + " (the scaling block)");
  c.require(par(K) + " % 8", "the innermost dimension of " + in.name + " must be a multiple of 8");
  FailureOr<std::string> amaxName = givenAmax(c, op, plan);
  if (failed(amaxName))
    return failure();
  SmallVector<std::string> outShape, scaleShape;
  if (rank == 3) {
    outShape.push_back(E);
    scaleShape.push_back(E);
  }
  outShape.push_back(K);
  outShape.push_back(plan.packing ? par(M) + "/2" : M);
  std::string blocks = par(M) + "/" + std::to_string(blockM);
  if (plan.blockedScales) { // each matrix's (K, M / blockM) scales, padded
    scaleShape.push_back("cdiv(" + K + ", 128)*128");
    scaleShape.push_back("cdiv(" + blocks + ", 4)*4");
  } else {
    scaleShape.push_back(K);
    scaleShape.push_back(blocks);
  }
  FailureOr<SmallVector<std::string>> castArgs =
      defineCastOutputs(c, op, in, plan, outShape, scaleShape, plan.blockedScales, *amaxName, M, K);
  if (failed(castArgs))
    return failure();
  SmallVector<std::string> args = std::move(*castArgs);
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  std::string rowTiles = "cdiv(" + M + ", " + std::to_string(kColTileRows) + ")";
  auto colTiles = [&](bool narrow) {
    return "cdiv(" + K + ", " + std::to_string(colTileCols(plan.inElem, narrow)) + ")";
  };
  KernelDesc k = buildColQuantizeKernel(c.b, op.getLoc(), c.kernelName("quantize_t"), blockM, plan,
                                        c.gpuModule);
  if (!colTunedForHopper(plan)) {
    c.addLaunch(k, args, {rowTiles, colTiles(false), E});
    return success();
  }
  // Casts of few tiles (under kColNarrowTilesPerSM 128 x 128 tiles an SM) take
  // the narrow tile's kernel: at (1, 2048, 7168) its access pattern alone
  // moved bytes 6-10% faster on an H100, at 4096 rows and more as fast or
  // slower; the cast there 76.5-77.1 -> 79.1-79.8% of copy (with 128
  // threads a CTA, a column pair each, 78.3-78.6%; at six CTAs an SM,
  // spilling, 75.8-76.2%; docs/results/2026-11-25-h100-25). Each launch's
  // grid is 0 where the other takes the cast.
  std::string few = "(1-min(" + rowTiles + "*" + colTiles(false) + "*" + par(E) + "/(" +
                    std::to_string(kColNarrowTilesPerSM) + "*sm_count), 1))";
  c.addLaunch(k, args, {rowTiles + "*(1-" + few + ")", colTiles(false), E});
  KernelDesc kn = buildColQuantizeKernel(c.b, op.getLoc(), c.kernelName("quantize_tn"), blockM,
                                         plan, c.gpuModule, /*narrow=*/true);
  c.addLaunch(kn, args, {rowTiles + "*" + few, colTiles(true), E});
  return success();
}

//===----------------------------------------------------------------------===//
// 2-D blocks [Br, Bc]
//===----------------------------------------------------------------------===//

static LogicalResult lowerBlockQuantize(LoweringContext &c, QuantizeOp op, const Buffer &in,
                                        QuantizePlan plan, int64_t blockM, int64_t blockK) {
  std::string why;
  FailureOr<Block2DTiling> tiling = block2DTiling(blockM, blockK, plan.inElem, why);
  if (failed(tiling))
    return op.emitOpError(why);
  if (plan.elem.bits() <= 4 && plan.packing != LayoutKind::fp4x2)
    return op.emitOpError("fp4 results are lowered packed: add packing = "
                          "#fpx.layout<fp4x2>");
  if (plan.packing && *plan.packing != LayoutKind::fp4x2 && *plan.packing != LayoutKind::fp6_byte)
    return op.emitOpError("2-D block casts pack fp4x2 only (or one code per byte)");
  if (plan.blockedScales)
    return op.emitOpError("no 2-D block lowering yet for blocked_128x4 scales");
  if (plan.hadamard)
    return op.emitOpError("no 2-D block lowering yet for a fused Hadamard transform");
  size_t rank = in.shape.size();
  std::string M = in.shape[rank - 2], K = in.shape[rank - 1];
  std::string E = rank == 3 ? in.shape[0] : "1";
  std::string sm = std::to_string(blockM), sk = std::to_string(blockK);
  c.require(par(M) + " % " + sm, "dimension " + std::to_string(rank - 2) + " of " + in.name +
                                     " must be a multiple of " + sm + " (the scaling block)");
  c.require(par(K) + " % " + sk, "the innermost dimension of " + in.name +
                                     " must be a multiple of " + sk + " (the scaling block)");
  FailureOr<std::string> amaxName = givenAmax(c, op, plan);
  if (failed(amaxName))
    return failure();
  SmallVector<std::string> outShape(in.shape.begin(), in.shape.end());
  if (plan.packing == LayoutKind::fp4x2)
    outShape.back() = par(K) + "/2";
  SmallVector<std::string> scaleShape(in.shape.begin(), in.shape.end());
  scaleShape[rank - 2] = par(M) + "/" + sm;
  scaleShape[rank - 1] = par(K) + "/" + sk;
  FailureOr<SmallVector<std::string>> castArgs =
      defineCastOutputs(c, op, in, plan, outShape, scaleShape, false, *amaxName, M, K);
  if (failed(castArgs))
    return failure();
  SmallVector<std::string> args = std::move(*castArgs);
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  KernelDesc k = buildBlock2DQuantizeKernel(c.b, op.getLoc(), c.kernelName("quantize_b"), *tiling,
                                            plan, c.gpuModule);
  c.addLaunch(k, args,
              {par(M) + "/" + sm, "cdiv(" + K + ", " + std::to_string(tiling->tileCols) + ")", E});
  return success();
}

//===----------------------------------------------------------------------===//
// One scale a row [1, *]
//===----------------------------------------------------------------------===//

/// Launches the per-row cast of `rows` rows of `inner` elements: the team
/// kernel and the staged ones, each taking the row lengths it serves.
static void launchPerRowQuantize(LoweringContext &c, QuantizeOp op, const QuantizePlan &plan,
                                 ArrayRef<std::string> args, const std::string &rowsExpr,
                                 const std::string &inner) {
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  // Rows of more than 256 vectors (2048 elements) are staged in shared
  // memory, up to an SM's shared memory less 4 KiB (224 KiB on sm_90a /
  // sm_100a, 96 KiB for targets whose code may run on chips with 100
  // KiB): two a CTA up to 4096 elements, one beyond; rows of more than
  // half the budget keep their last 2048 vectors in registers and read
  // up to 4096 past the budget twice. As many CTAs an SM as fit; shorter
  // rows are held in registers by teams, longer ones read twice. Each
  // launch's grid is 0 where another kernel takes the rows. (Rows of 128
  // KiB staged whole, one CTA an SM: 80.1% of the H200's copy against
  // 61.2% read twice; with their last 32 KiB in registers, two CTAs an
  // SM, 94.1%; docs/results/2026-11-24-h200-17, 2026-11-25-h200-18.)
  // Long rows whose staged part fills the budget run one CTA an SM, each
  // casting every G-th row (the grid's sm_count, bound by the runtime at
  // launch).
  // A static row length picks its kernel here.
  Staging staging{inVecBytes(plan.inElem),
                  (c.target ? c.target->sharedPerSM() : kLeastSharedPerSM) - 4096};
  constexpr StagedRows kStaged[] = {StagedRows::One, StagedRows::Pair, StagedRows::Long};
  // whether the staged kernel `kind` takes the rows (an expression: 1
  // where it does)
  auto takes = [&](StagedRows kind) { return par(staging.takes(inner, kind)); };
  // a static row length launches one kernel: the staged one it takes, or
  // (none) the team's
  int64_t cols = 0;
  bool only = !StringRef(inner).getAsInteger(10, cols);
  std::optional<StagedRows> onlyKind = only ? staging.kernelFor(cols / kVec) : std::nullopt;
  if (!only || !onlyKind) {
    KernelDesc k =
        buildPerRowQuantizeKernel(c.b, op.getLoc(), c.kernelName("quantize_r"), plan, c.gpuModule);
    std::string grid = perRowGrid(rowsExpr, inner);
    if (!only)
      for (StagedRows kind : kStaged)
        grid += (kind == kStaged[0] ? "*(1-" : "-") + takes(kind);
    c.addLaunch(k, args, {only ? grid : grid + ")", "1", "1"});
  }
  for (StagedRows kind : kStaged) {
    if (only && onlyKind != kind)
      continue;
    static const char *const kNames[] = {"quantize_rsp", "quantize_rsh", "quantize_rsl"};
    KernelDesc k = buildStagedPerRowQuantizeKernel(
        c.b, op.getLoc(), c.kernelName(kNames[int(kind)]), plan, staging, kind, c.gpuModule);
    std::string grid = staging.grid(rowsExpr, inner, kind);
    std::string bytes = staging.bytes(inner, kind);
    if (only)
      bytes = std::to_string(staging.stagedVecs(kind, cols / kVec) * staging.inVecBytes);
    c.addLaunch(k, args, {only ? grid : par(grid) + "*" + takes(kind), "1", "1"}, bytes);
  }
}

//===----------------------------------------------------------------------===//
// fpx.quantize
//===----------------------------------------------------------------------===//

/// Plans the cast and lowers it by its block shape: 2-D blocks and column
/// blocks have lowerings of their own; row blocks, per-row and per-tensor
/// scales share the shapes and amax handling below.
static LogicalResult lowerQuantize(LoweringContext &c, QuantizeOp op) {
  auto inTy = op.getInput().getType();
  const Buffer *inBuf = c.findBuffer(op.getInput());
  if (!inBuf)
    return op.emitOpError("input must be a function argument or a kernel result");
  Buffer in = *inBuf;
  ScalingAttr scaling = op.getScaling();
  ArrayRef<int64_t> block = scaling.getBlock();
  int64_t rank = inTy.getRank();

  QuantizePlan plan;
  plan.inElem = inTy.getElementType();
  plan.elem = op.getElementFormat().getFormat();
  plan.rule = scaling.getRule();
  plan.nonFinite = toNumerics(op.getNonFiniteKind());
  plan.nativeUe8m0 = c.target && c.target->has(CvtUe8m0x2);
  plan.rounding = op.getRounding();
  plan.satfinite = !op.getOverflowToSpecial();
  plan.packing = op.getPacking();
  plan.blockedScales = op.getScaleLayout() == LayoutKind::blocked_128x4;
  plan.bf16AbsMinMax = c.target && c.target->has(Bf16x2Math);
  plan.hopperShapes = c.target && c.target->tuning == Tuning::Hopper;
  plan.globalScaleOut = c.fusedGlobalScale.count(op) != 0;
  plan.amaxOut = c.fusedAmax.count(op) != 0;
  Type st = scaling.getScaleType();
  if (isa<Float8E8M0FNUType>(st))
    plan.scaleKind = num::ScaleKind::E8M0;
  else if (isa<Float8E4M3FNType>(st))
    plan.scaleKind = num::ScaleKind::NVFP4;
  else if (st.isF32())
    plan.scaleKind = num::ScaleKind::FP32;
  else
    return op.emitOpError("no kernel lowering yet for ") << st << " scales";
  if (std::optional<int64_t> h = op.getHadamard()) {
    plan.hadamard = *h;
    plan.hadamardSeed = static_cast<uint64_t>(op.getHadamardSeed().value_or(0));
  }

  // Row blocks: every scaled dim but the last has block 1. Column blocks
  // (blockM x 1 over the last two dims) are lowered transposed.
  bool perTensor = scaling.isPerTensor();
  size_t lead = rank - block.size();
  bool rowBlocks = hasRowBlocks(op);
  bool colBlocks = block.size() >= 2 && block.back() == 1 && block[block.size() - 2] > 1 &&
                   rank >= 2 && rank <= 3;
  for (size_t i = 0; i + 2 < block.size(); ++i)
    colBlocks &= block[i] == 1;
  // One scale a row ([1, *], e.g. fp8 rowwise): PerRowQuantizeKernels.cpp.
  bool perRow = !perTensor && block.back() < 0 && !op.getTransposed() &&
                llvm::all_of(block.drop_back(), [](int64_t b) { return b == 1; });
  if (std::optional<StringRef> pro = op.getPrologue()) {
    if (!rowBlocks)
      return op.emitOpError("prologue is lowered for row blocks [1, N] only");
    plan.prologue = pro->str();
    c.addLink(*pro);
  }
  if (Value a = op.getAmax(); a && cast<RankedTensorType>(a.getType()).getRank() == 1 && !rowBlocks)
    return op.emitOpError("a per-matrix amax is lowered for row blocks [1, N] only");
  if (colBlocks && !op.getTransposed())
    return op.emitOpError("column blocks are lowered with `transposed` (the "
                          "column-major output a GEMM's right operand wants)");
  if (op.getTransposed() && !colBlocks)
    return op.emitOpError("`transposed` is lowered for column blocks [N, 1] only");
  // 2-D blocks [Br, Bc] over the last two dims (BlockQuantizeKernels.cpp).
  bool blocks2D = block.size() >= 2 && block.back() > 1 && block[block.size() - 2] > 1 &&
                  rank >= 2 && rank <= 3;
  for (size_t i = 0; i + 2 < block.size(); ++i)
    blocks2D &= block[i] == 1;
  if (blocks2D)
    return lowerBlockQuantize(c, op, in, plan, block[block.size() - 2], block.back());
  if (!perTensor && !rowBlocks && !colBlocks && !perRow) {
    std::string shape;
    for (int64_t b : block)
      shape += (shape.empty() ? "" : ", ") + (b < 0 ? std::string("*") : std::to_string(b));
    return op.emitOpError("no kernel lowering yet for block shape [")
           << shape
           << "] (lowered: row blocks [1, N], per row [1, *], column "
              "blocks [N, 1] with `transposed`, 2-D blocks and per-tensor [*, *])";
  }
  if (perRow && plan.hadamard)
    return op.emitOpError("no per-row lowering yet for a fused Hadamard transform");
  if (perRow && plan.blockedScales)
    return op.emitOpError("blocked_128x4 scales take blocks of 16 or 32 along rows, "
                          "not one scale a row");
  if (colBlocks)
    return lowerColumnQuantize(c, op, in, plan, block[block.size() - 2]);
  if (plan.blockedScales && in.shape.size() != 2)
    return op.emitOpError("no row-block lowering yet for rank-3 data with blocked_128x4 "
                          "scales (a layout per matrix)");
  if (rowBlocks) {
    int64_t bk = block.back();
    if (bk % kVec || bk / kVec > 32)
      return op.emitOpError("row blocks must be a multiple of 8 and at most "
                            "256 long, got ")
             << bk;
    plan.blockK = bk;
  } else {
    plan.blockK = 0;
  }
  if (plan.elem.bits() <= 4 && plan.packing != LayoutKind::fp4x2)
    return op.emitOpError("fp4 results are lowered packed: add packing = "
                          "#fpx.layout<fp4x2>");

  // Shapes.
  SmallVector<std::string> outShape(in.shape.begin(), in.shape.end());
  std::string inner = in.shape.back();
  if (plan.packing == LayoutKind::fp4x2)
    outShape.back() = par(inner) + "/2";
  else if (plan.packing && isFp6FourInThree(*plan.packing))
    outShape.back() = par(inner) + "/4*3";
  SmallVector<std::string> scaleShape;
  for (size_t i = 0; i < (size_t)rank; ++i) {
    if (i < lead) {
      scaleShape.push_back(in.shape[i]);
      continue;
    }
    int64_t bl = block[i - lead];
    scaleShape.push_back(bl < 0    ? "1"
                         : bl == 1 ? in.shape[i]
                                   : par(in.shape[i]) + "/" + std::to_string(bl));
  }
  if (plan.blockedScales) {
    scaleShape[0] = "cdiv(" + scaleShape[0] + ", 128)*128";
    scaleShape[1] = "cdiv(" + scaleShape[1] + ", 4)*4";
  }
  std::string t = c.total(in);
  if (plan.blockK) {
    c.require(par(inner) + " % " + std::to_string(plan.blockK),
              "the innermost dimension of " + in.name + " must be a multiple of " +
                  std::to_string(plan.blockK) + " (the scaling block)");
  } else {
    c.require(par(inner) + " % 8",
              "the innermost dimension of " + in.name + " must be a multiple of 8");
  }
  // Rows of blocked scales and 4+2 packing are found in 32-bit arithmetic.
  if (plan.blockedScales || plan.packing == LayoutKind::fp6_planes)
    c.require(par(t) + " / 34359738368",
              "this cast handles fewer than 2^35 elements; " + in.name + " has more");
  if (plan.hadamard)
    c.require(par(inner) + " % " + std::to_string(plan.hadamard),
              "the innermost dimension of " + in.name +
                  " must be a multiple of the Hadamard size " + std::to_string(plan.hadamard));
  if (plan.packing == LayoutKind::fp6_planes)
    // the low-nibble part of each row starts at 3/4 * row + cols / 4 and is
    // written 4 bytes at a time: 16-column multiples keep it aligned
    c.require(par(inner) + " % 16", "fp6_planes packing needs the innermost dimension of " + in.name +
                                        " to be a multiple of 16");
  if (plan.packing && isFp6FourInThree(*plan.packing))
    c.require(par(inner) + " % 4", "fp6 4-in-3 packing needs the innermost "
                                   "dimension of " +
                                       in.name + " to be a multiple of 4");

  // Per-tensor scales need the tensor amax: the amax operand, or a reduction.
  std::string amaxName, matrixExtent;
  if (Value a = op.getAmax()) {
    const Buffer *amaxBuf = c.findBuffer(a);
    if (!amaxBuf)
      return op.emitOpError("amax must be a function argument or a kernel result");
    Buffer amax = *amaxBuf;
    amaxName = amax.name;
    plan.tensorAmax = true;
    if (!amax.shape.empty()) { // one per matrix (the verifier: rank-3 input)
      plan.matrixAmax = true;
      matrixExtent = c.perMatrixExtent(amax, "amax", in.shape, in.name);
    }
  } else if (perTensor) {
    amaxName = addTensorAmax(c, op.getLoc(), in, plan.inElem, plan.hadamard, plan.hadamardSeed);
    plan.tensorAmax = true;
  }

  // The per-row kernel takes rows and columns, the others elements and columns.
  std::string rowsExpr = "1";
  for (size_t i = 0; i + 1 < (size_t)rank; ++i)
    rowsExpr = i ? rowsExpr + "*" + par(in.shape[i]) : par(in.shape[i]);
  FailureOr<SmallVector<std::string>> castArgs =
      defineCastOutputs(c, op, in, plan, outShape, scaleShape, plan.blockedScales, amaxName,
                        perRow ? rowsExpr : t, inner);
  if (failed(castArgs))
    return failure();
  SmallVector<std::string> args = std::move(*castArgs);
  if (perRow) {
    launchPerRowQuantize(c, op, plan, args, rowsExpr, inner);
    return success();
  }
  if (plan.matrixAmax)
    args.push_back(matrixExtent);
  OpBuilder::InsertionGuard g(c.b);
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  plan.tiles = rowCastTiles(plan);
  KernelDesc k = buildRowQuantizeKernel(c.b, op.getLoc(), c.kernelName("quantize"), plan);
  c.addLaunch(k, args,
              {"cdiv(" + t + ", " + std::to_string(kCtaElements * plan.tiles) + ")", "1", "1"});
  return success();
}

void fpx::populateQuantizeOpLowerings(OpLoweringSet &set) {
  set.addPlanner(planGlobalScaleFusion);
  set.addPlanner(planAmaxFusion);
  set.add<QuantizeOp>(lowerQuantize);
}
