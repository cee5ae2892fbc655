//===- ScaledMatmulOpToGPU.cpp - fp8 x fp8 fpx.scaled_matmul -> wgmma -----===//
//
// fpx.scaled_matmul with fp8 codes on both sides (MatmulOpToGPU.cpp sends
// every quantized-activation form here): A (M, K) and B (N, K) e4m3/e5m2,
// K-major, f32 scales on each side: one per tensor (block [*, *], a 1x1
// tensor), per row (block [1, *]: A [M, 1], B [N, 1]) or blockwise
// (DeepSeek-V3's: A [1, 128] with scales [M, cdiv(K, 128)]; B [128, 128]
// with scales [cdiv(N, 128), cdiv(K, 128)] or [1, 128] with [N, cdiv(K,
// 128)]), bf16 or f32 result. On a target with wgmma (sm_90a) it records four
// kernels of ScaledMatmulKernels.h, 128x128 tiles with split-K for M <= 128
// and 128x192 above, each with a TMA-store epilogue (C's rows a multiple of
// 16 bytes) and a masked st.global one; each call launches the one its M, N
// and K pick (the others' grid is 0). MXFP8 x MXFP8 (e4m3/e5m2 with E8M0
// [1, 32] scales, row-major [rows, K / 32] or blocked 128x4 as the op's
// verifier shapes them; K % 32 == 0) takes one kernel with the st.global epilogue: the
// promoted fp8 form, 128x128 (split-K where tiles are few) for every M
// (with the unit attribute fpx.mx_bf16: the bf16 form, below). NVFP4 x
// NVFP4 takes the bf16 form (codes dequantized to bf16 on their way into
// shared memory, bf16 wgmma), 128x256, the one form it has on sm_90a.
// Their A, B (and C) arguments are tensor maps the runtime builds at
// launch. On a Blackwell target (the table's Tcgen05 or MmaBlockScaled
// bit) the op goes to ScaledMatmulBlackwell.cpp
// instead (MXFP8 and NVFP4 there, and fp8 with f32 scales through tcgen05).
// NVFP4 x NVFP4 (fp4x2 e2m1 codes, e4m3 [1, 16] scales, row-major [rows,
// K / 16] or blocked, optional f32 tensor scales; K % 32 == 0) takes the same bf16 form
// (four bf16 slices a 128-byte stage of 256 codes), the tensor scales in
// the epilogue. MXFP4, MX scales on one side only, other blocks and other
// targets are refused with an error naming the op.
//
//===----------------------------------------------------------------------===//
#include "ScaledMatmulBlackwell.h"
#include "ScaledMatmulKernels.h"
#include "fpx/Conversion/FPxToGPU/Lowerings.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace fpx;

namespace {

/// How one operand's scales apply: `Block` is f32 scales of blocks
/// [rows, 128] (rows 1 or 128), applied at each 128-K promotion; MXFP8's
/// E8M0 [1, 32] are told apart first (isMx).
enum class ScaleKind { Tensor, Row, Block, Other };

ScaleKind scaleKind(ScalingAttr s, int64_t &blockRows) {
  ArrayRef<int64_t> block = s.getBlock();
  if (block.size() != 2 || !s.getScaleType().isF32())
    return ScaleKind::Other;
  if (block[0] < 0 && block[1] < 0)
    return ScaleKind::Tensor;
  if (block[0] == 1 && block[1] < 0)
    return ScaleKind::Row;
  if (block[0] > 0 && block[1] > 0) {
    blockRows = block[0];
    return ScaleKind::Block;
  }
  return ScaleKind::Other;
}

/// MXFP8's scales: E8M0 codes of [1, 32] blocks.
bool isMx(ScalingAttr s) {
  ArrayRef<int64_t> block = s.getBlock();
  return block.size() == 2 && block[0] == 1 && block[1] == 32 &&
         isa<Float8E8M0FNUType>(s.getScaleType());
}

} // namespace

FormatAttr fpx::scaledOperandFormat(Value v, std::optional<FormatAttr> attr) {
  if (attr && *attr)
    return *attr;
  return FormatAttr::fromType(cast<RankedTensorType>(v.getType()).getElementType());
}

bool fpx::isFp8Operand(FormatAttr f, bool &e5m2) {
  if (!f)
    return false;
  const num::Format &x = f.getFormat();
  e5m2 = x.ebits == 5 && x.mbits == 2 && x.bias == 15;
  bool e4m3 = x.ebits == 4 && x.mbits == 3 && x.bias == 7;
  return x.hasSign && (e4m3 || e5m2);
}

void fpx::requireByteScaleShapes(LoweringContext &c, const Buffer &sa, const Buffer &sb,
                                 const std::string &M, const std::string &N,
                                 const std::string &K, int64_t block, StringRef type,
                                 bool blockedA, bool blockedB) {
  std::string blocks = "cdiv(" + K + ", " + std::to_string(block) + ")";
  for (auto [s, rows, side, blocked] : {std::make_tuple(&sa, "M (" + M + ")", "A", blockedA),
                                        std::make_tuple(&sb, "N (" + N + ")", "B", blockedB)}) {
    const std::string &dim = s == &sa ? M : N;
    std::string what = "the " + type.str() + " scales " + s->name + " of " + side + " must have ";
    if (blocked) {
      c.require(par(s->shape[0]) + " - cdiv(" + dim + ", 128)*128",
                what + "cdiv(" + dim + ", 128)*128 rows (blocked 128x4: " + rows +
                    " padded to a multiple of 128)");
      c.require(par(s->shape[1]) + " - cdiv(" + blocks + ", 4)*4",
                what + "cdiv(" + blocks + ", 4)*4 columns (blocked 128x4: one a " +
                    std::to_string(block) + "-element block of K, padded to a multiple of 4)");
      continue;
    }
    c.require(par(s->shape[0]) + " - " + par(dim), what + rows + " rows");
    c.require(par(s->shape[1]) + " - " + blocks,
              what + blocks + " columns (row-major, one a " + std::to_string(block) +
                  "-element block of K)");
  }
}

FailureOr<SmallVector<std::string>> fpx::globalScaleBuffers(LoweringContext &c,
                                                            ScaledMatmulOp op) {
  SmallVector<std::string> names;
  for (Value g : {op.getLhsGlobalScale(), op.getRhsGlobalScale()})
    if (g) {
      FailureOr<Buffer> gb = c.inputBuffer(op, g);
      if (failed(gb))
        return failure();
      names.push_back(gb->name);
    }
  return names;
}

LogicalResult fpx::lowerFp8ScaledMatmul(LoweringContext &c, ScaledMatmulOp op) {
  auto notYet = [&](const Twine &what) {
    return op.emitOpError("with ")
           << what << " is not lowered yet on " << (c.target ? c.target->chip : StringRef("(none)"))
           << " (lowered: fp8 e4m3/e5m2 x fp8 operands with f32 "
              "per-tensor, per-row or blockwise (lhs [1, 128], rhs [128, 128] or [1, 128]) "
              "scales, MXFP8 x MXFP8 (e8m0 [1, 32] scales on both sides) and NVFP4 x NVFP4 "
              "(fp4x2 e2m1 with e4m3 [1, 16] scales), bf16 or f32 result, on sm_90a; MXFP8 x "
              "MXFP8 and NVFP4 x NVFP4 on sm_100a and sm_120a)";
  };
  FormatAttr fa = scaledOperandFormat(op.getLhs(), op.getLhsFormat());
  FormatAttr fb = scaledOperandFormat(op.getRhs(), op.getRhsFormat());
  ScaledGemmPlan plan;
  if (!fa || !fb || !op.getLhsScales() || !op.getRhsScales())
    return notYet("a high-precision or unscaled operand on one side only");
  // Blackwell: tcgen05 (sm_100a) or the block-scaled mma.sync (sm_120a).
  if (c.target && (c.target->mma & (Tcgen05 | MmaBlockScaled)))
    return lowerBlackwellScaledMatmul(c, op);
  auto scalingText = [&] {
    return "(lhs " + llvm::formatv("{0}", Attribute(*op.getLhsScaling())).str() + ", rhs " +
           llvm::formatv("{0}", Attribute(*op.getRhsScaling())).str() + ")";
  };
  // NVFP4 x NVFP4: e2m1 codes packed fp4x2 on both sides, e4m3 [1, 16]
  // scales, optional f32 tensor scales; the bf16 form.
  auto isE2m1 = [](FormatAttr f) { return f.getFormat().name == num::e2m1fn().name; };
  if (isE2m1(fa) && isE2m1(fb)) {
    auto isNv = [](ScalingAttr s) {
      ArrayRef<int64_t> blk = s.getBlock();
      return blk.size() == 2 && blk[0] == 1 && blk[1] == 16 &&
             isa<Float8E4M3FNType>(s.getScaleType());
    };
    if (op.getLhsPacking() != LayoutKind::fp4x2 || op.getRhsPacking() != LayoutKind::fp4x2)
      return notYet("e2m1 operands that are not both packed fp4x2");
    if (!isNv(*op.getLhsScaling()) || !isNv(*op.getRhsScaling()))
      return notYet("e2m1 operands with scales " + scalingText() +
                    " (NVFP4's are e4m3 [1, 16]; MXFP4 is not lowered)");
    plan.nvfp4 = plan.bf16Mma = true;
    plan.globalA = bool(op.getLhsGlobalScale());
    plan.globalB = bool(op.getRhsGlobalScale());
  } else if (!isFp8Operand(fa, plan.e5m2A) || !isFp8Operand(fb, plan.e5m2B)) {
    return notYet(Twine("operands ") + fa.getFormat().name + " x " + fb.getFormat().name +
                  (fa.getFormat().bits() == 4 || fb.getFormat().bits() == 4
                       ? " (MXFP4 operands, or e2m1 on one side only)"
                       : ""));
  } else if (op.getRhsPacking()) {
    return notYet("a packed rhs");
  } else if (op.getRhsGlobalScale() || op.getLhsGlobalScale()) {
    return notYet("a global_scale (NVFP4's tensor scale) on fp8 operands");
  }
  // MXFP8: E8M0 [1, 32] scales on both sides, promoted every k32.
  plan.mx = !plan.nvfp4 && isMx(*op.getLhsScaling()) && isMx(*op.getRhsScaling());
  // (The verifier allows blocked 128x4 for byte [1, n] scales only: MX and
  // NVFP4 here; other byte scales are refused below.)
  plan.blockedA = op.getLhsScaleLayout() == LayoutKind::blocked_128x4;
  plan.blockedB = op.getRhsScaleLayout() == LayoutKind::blocked_128x4;
  if (!plan.mx && (isMx(*op.getLhsScaling()) || isMx(*op.getRhsScaling())))
    return notYet("MX scales on one side only " + scalingText());
  int64_t rowsA = 0, rowsB = 0;
  bool blockScaled = plan.mx || plan.nvfp4; // (their own scale checks below)
  ScaleKind ka = blockScaled ? ScaleKind::Tensor : scaleKind(*op.getLhsScaling(), rowsA);
  ScaleKind kb = blockScaled ? ScaleKind::Tensor : scaleKind(*op.getRhsScaling(), rowsB);
  if (ka == ScaleKind::Other || kb == ScaleKind::Other)
    return notYet("MX or other non-f32 block scales " + scalingText());
  // The kernel applies block scales at its 128-K promotions: blocks are 128
  // wide along K; A's cover one row, B's one row or 128.
  if ((ka == ScaleKind::Block && (rowsA != 1 || op.getLhsScaling()->getBlock()[1] != 128)) ||
      (kb == ScaleKind::Block &&
       ((rowsB != 1 && rowsB != kScaledGemmStageK) || op.getRhsScaling()->getBlock()[1] != 128)))
    return notYet("blocks other than [1, 128] (lhs) and [128, 128] or [1, 128] (rhs) " +
                  scalingText() + ": block scales are applied at the kernel's 128-K promotions");
  plan.rowA = ka == ScaleKind::Row;
  plan.rowB = kb == ScaleKind::Row;
  plan.blockA = ka == ScaleKind::Block;
  plan.blockB = kb == ScaleKind::Block ? rowsB : 0;
  plan.out = op.getResult().getType().getElementType();
  if (!plan.out.isBF16() && !plan.out.isF32())
    return notYet("a result of element type other than bf16 or f32");
  SmallVector<ScaledGemmTile> tiles;
  if (c.target)
    tiles = scaledGemmTiles(*c.target);
  if (tiles.size() != 2 && (plan.mx || plan.nvfp4))
    return op.emitOpError("with ")
           << (plan.nvfp4 ? "NVFP4" : "MXFP8")
           << " operands needs wgmma (sm_90a), tcgen05 (sm_100a) or the "
              "block-scaled mma.sync (sm_120a); target "
           << (c.target ? c.target->chip : StringRef("(none)")) << " has no kernel form for it yet";
  if (tiles.size() != 2)
    return op.emitOpError("with fp8 operands needs wgmma (sm_90a); target ")
           << (c.target ? c.target->chip : StringRef("(none)")) << " has no kernel form for it yet";
  int64_t staticK = cast<RankedTensorType>(op.getLhs().getType()).getDimSize(1);
  if (plan.nvfp4 && !ShapedType::isDynamic(staticK))
    staticK *= 2; // (fp4x2: two codes a byte)
  // (MX: a static K that is not a multiple of 32 fails the op's verifier;
  // a dynamic one is checked at launch below.)
  // NVFP4: the bf16 form (the codes dequantized to bf16 on their way into
  // shared memory, bf16 wgmma, no promotion) with a 128x256 tile for every M,
  // split-K where tiles are few. MX: the promoted fp8 form (every k32
  // promoted) and its 128x128 tile (acc and two partial sums in flight),
  // which measured faster than the bf16 form at every shape; an MX op
  // carrying the discardable unit attribute kMxBf16Attr takes the bf16 form,
  // for comparisons.
  if (plan.nvfp4 || (plan.mx && op->hasAttr(kMxBf16Attr))) {
    plan.bf16Mma = true;
    tiles.assign(1, ScaledGemmTile{128, 256, 7, /*maxSplit=*/4});
  } else if (plan.mx) {
    tiles.resize(1);
  }
  if (!ShapedType::isDynamic(staticK) && staticK % (plan.nvfp4 ? 32 : 16))
    return op.emitOpError("with ")
           << (plan.nvfp4 ? "NVFP4" : "fp8") << " operands needs K (" << staticK
           << ") to be a multiple of " << (plan.nvfp4 ? 32 : 16)
           << ": A and B rows are copied by TMA, whose row stride is a multiple of 16 bytes";

  FailureOr<Buffer> a = c.inputBuffer(op, op.getLhs());
  FailureOr<Buffer> b = c.inputBuffer(op, op.getRhs());
  FailureOr<Buffer> sa = c.inputBuffer(op, op.getLhsScales());
  FailureOr<Buffer> sb = c.inputBuffer(op, op.getRhsScales());
  if (failed(a) || failed(b) || failed(sa) || failed(sb))
    return failure();
  // K in elements; NVFP4's rows are K / 2 bytes.
  std::string M = a->shape[0], N = b->shape[0];
  std::string K = plan.nvfp4 ? par(a->shape[1]) + "*2" : a->shape[1];
  if (plan.nvfp4) {
    c.require(par(b->shape[1]) + " - " + par(a->shape[1]),
              "the NVFP4 scaled GEMM needs B (" + b->name + ") to have " + a->shape[1] +
                  " bytes a row (K = " + K + " codes), as A");
    c.require(par(K) + " % 32", "the NVFP4 scaled GEMM needs K (" + K +
                                    ") to be a multiple of 32 (TMA row strides of K / 2 "
                                    "bytes are multiples of 16 bytes)");
  } else {
    c.require(par(b->shape[1]) + " - " + par(K),
              "the fp8 scaled GEMM needs B (" + b->name + ") to have K = " + K + " columns");
    c.require(par(K) + " % 16", "the fp8 scaled GEMM needs K (" + K +
                                    ") to be a multiple of 16 (TMA row strides are multiples "
                                    "of 16 bytes)");
  }
  c.require("min(1, max(0, max(" + M + ", max(" + N + ", " + K + ")) - 2147483647))",
            "the fp8 scaled GEMM needs M, N and K below 2^31");
  if (plan.rowA)
    c.require(par(sa->shape[0]) + " - " + par(M),
              "the row scales " + sa->name + " of A must have M (" + M + ") rows");
  if (plan.rowB)
    c.require(par(sb->shape[0]) + " - " + par(N),
              "the row scales " + sb->name + " of B must have N (" + N + ") rows");
  if (plan.mx)
    c.require(par(K) + " % 32", "the MXFP8 scaled GEMM needs K (" + K +
                                    ") to be a multiple of 32 (one e8m0 scale a 32-element "
                                    "block of K)");
  if (plan.mx || plan.nvfp4)
    requireByteScaleShapes(c, *sa, *sb, M, N, K, plan.mx ? 32 : 16, plan.mx ? "e8m0" : "e4m3",
                           plan.blockedA, plan.blockedB);
  FailureOr<SmallVector<std::string>> globals = globalScaleBuffers(c, op);
  if (failed(globals))
    return failure();
  std::string kBlocks = "cdiv(" + K + ", " + std::to_string(kScaledGemmStageK) + ")";
  if (plan.blockA) {
    c.require(par(sa->shape[0]) + " - " + par(M),
              "the block scales " + sa->name + " of A must have M (" + M + ") rows");
    c.require(par(sa->shape[1]) + " - " + kBlocks,
              "the block scales " + sa->name + " of A must have " + kBlocks + " columns");
  }
  if (plan.blockB) {
    std::string rows = plan.blockB == 1 ? N : "cdiv(" + N + ", 128)";
    c.require(par(sb->shape[0]) + " - " + par(rows),
              "the block scales " + sb->name + " of B must have " + rows + " rows");
    c.require(par(sb->shape[1]) + " - " + kBlocks,
              "the block scales " + sb->name + " of B must have " + kBlocks + " columns");
  }
  FailureOr<Buffer> bias = c.biasBuffer(op, op.getBias(), N);
  if (failed(bias))
    return failure();
  if (op.getBias())
    plan.bias = cast<RankedTensorType>(op.getBias().getType()).getElementType();
  FailureOr<Buffer *> y = c.defineBuffer(op, op.getResult(), {M, N}, false);
  if (failed(y))
    return failure();
  std::string yName = (*y)->name;

  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  // Per tile, two epilogues: the TMA store where C's rows (N * elt bytes)
  // are a multiple of 16 bytes, which a tensor map needs, else masked
  // st.global. The shapes pick one kernel of the four (the others' grid is 0).
  std::string perRow = std::to_string(16 / (plan.out.getIntOrFloatBitWidth() / 8));
  std::string rowsAligned = "max(0, 1 - " + par(N) + " % " + perRow + ")";
  std::string rowsUnaligned = "min(1, " + par(N) + " % " + perRow + ")";
  // The wide tile keeps the TMA store for K <= kScaledGemmTmaStoreMaxK only:
  // its staging tile costs a ring stage (128x192: 4 of 5 with bf16 out), and
  // at long K the main loop needs it more than the epilogue gains (H200,
  // tensorwise, TMA store against st.global: 8192^3 889.7 against 945.8 us,
  // 16384x8192x5120 1142.6 against 1274.1, 4096x7168x16384 905.6 against
  // 809.2).
  std::string shortK = "min(1, max(0, " + std::to_string(kScaledGemmTmaStoreMaxK + 1) + " - " +
                       par(K) + "))";
  for (auto [i, tile] : llvm::enumerate(tiles)) {
    bool skinny = i == 0;
    std::string tma = skinny ? rowsAligned : rowsAligned + "*" + shortK;
    std::string noTma = skinny ? rowsUnaligned : "max(0, 1 - " + tma + ")";
    // (MX, NVFP4: one kernel, always launched.)
    std::string pick = plan.mx || plan.nvfp4 ? std::string()
                       : skinny ? "min(1, max(0, 129 - " + par(M) + "))*"
                                : "min(1, max(0, " + par(M) + " - 128))*";
    std::string count = "cdiv(" + M + ", " + std::to_string(tile.bm) + ")*cdiv(" + N + ", " +
                        std::to_string(tile.bn) + ")";
    // Split-K's workspace and counters, where the kernel may split: when it
    // runs and has at most kScaledGemmSplitTiles tiles (else empty).
    std::string ws, cnt;
    if (tile.maxSplit > 1) {
      std::string use = pick + "min(1, max(0, " + std::to_string(kScaledGemmSplitTiles + 1) +
                        " - " + count + "))";
      ws = c.defineTemp(
          "f32", {use + "*" + std::to_string(tile.maxSplit * tile.bm * tile.bn) + "*" + count},
          false);
      cnt = c.defineCounterTemp({use + "*2*" + count});
    }
    // MX: the st.global epilogue only (with the TMA store's staging the
    // consumers, at acc + two partial sums, spilled).
    for (bool tmaStore : {true, false}) {
      bool single = plan.mx || plan.nvfp4; // (one kernel)
      if (single && tmaStore)
        continue;
      std::string select = single ? "" : pick + (tmaStore ? tma : noTma) + "*";
      plan.tmaStore = tmaStore;
      plan.tile = tile;
      plan.tile.stages = std::min(tile.stages, scaledGemmMaxStages(plan));
      std::string name = c.kernelName(plan.nvfp4     ? "nvfp4_bf16_gemm"
                                      : plan.bf16Mma ? "mxfp8_bf16_gemm"
                                      : plan.mx      ? "mxfp8_gemm"
                                                     : "fp8_gemm");
      KernelDesc k = buildScaledGemmKernel(c.b, op.getLoc(), name, plan, c.gpuModule);
      // (Dims in bytes: NVFP4's rows are a->shape[1] bytes.)
      SmallVector<Attribute> args = {
          c.tensorMapArg(a->name, {a->shape[1], M}, {kScaledGemmStageK, tile.bm}, 128),
          c.tensorMapArg(b->name, {a->shape[1], N}, {kScaledGemmStageK, tile.bn}, 128)};
      if (tmaStore)
        args.push_back(
            c.tensorMapArg(yName, {N, M}, {plan.storeBoxCols(), kScaledGemmStoreRows}, 128));
      args.append({c.str(sa->name), c.str(sb->name), c.str(yName), c.str(M), c.str(N), c.str(K)});
      for (const std::string &g : *globals)
        args.push_back(c.str(g));
      if (plan.bias)
        args.push_back(c.str(bias->name));
      if (tile.maxSplit > 1)
        args.append({c.str(ws), c.str(cnt)});
      std::string units = tile.maxSplit > 1 ? count + "*" + std::to_string(tile.maxSplit) : count;
      c.addLaunch(k, ArrayRef<Attribute>(args), {select + "min(" + units + ", sm_count)", "1", "1"},
                  std::to_string(scaledGemmSharedBytes(plan)));
    }
  }
  return success();
}
