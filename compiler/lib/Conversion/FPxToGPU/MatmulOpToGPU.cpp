//===- MatmulOpToGPU.cpp - fpx.scaled_matmul -> GEMM kernels --------------===//
//
// Weight-only linears: a bf16/f16 activation x (M x K) times an FPx weight
// pre-packed in mma_tiles (N x K codes) with
// - fp8 e4m3/e5m2 codes and one fp32 scale per output channel ([1, *]);
// - MXFP8 (e4m3/e5m2) or MXFP4 (e2m1) codes with E8M0 scales of 32 along K
//   ([1, 32], f8E8M0FNU), row-major;
// - NVFP4: e2m1 codes, ue4m3 scales of 16 along K ([1, 16], f8E4M3FN),
//   row-major, and the fp32 tensor scale (global_scale, rank 0);
// - MXFP6 (e2m3/e3m2 codes, E8M0 scales [1, 32]) and FP6-LLM's e3m2 and
//   fp5 e2m2 (any of e2m3/e3m2/e2m2 with one f32 scale per output channel);
// the result is bf16 or f16 (M x N). 4-, 5- and 6-bit codes are i8 bytes
// (K * bits / 8 a row) with rhs_format. Four decode kernels are recorded, 8,
// 16, 32 and 64 tokens a CTA, and on sm_90a for the formats it takes
// (weightOnlyWgmmaTakes) two wgmma prefill kernels, 128 and 256 tokens a
// tile, for M > 64; each call launches the one its M (and N, against the
// SM count) selects (the others' grids are empty). Quantized activations
// (the scaled GEMMs of FP8 / MX / NVFP4 training) go to
// ScaledMatmulOpToGPU.cpp.
//
//===----------------------------------------------------------------------===//
#include "MatmulKernels.h"

#include "llvm/ADT/StringExtras.h"

#include <iterator>
#include "ScaledMatmulKernels.h"
#include "fpx/Conversion/FPxToGPU/Lowerings.h"

using namespace mlir;
using namespace fpx;

static LogicalResult lowerScaledMatmul(LoweringContext &c, ScaledMatmulOp op) {
  auto fail = [&](const Twine &why) {
    return op.emitOpError("has no kernel lowering for ")
           << why
           << " (lowered: weight-only linears, a bf16/f16 activation times a weight "
              "packed as mma_tiles: fp8, fp6 and fp5 with one f32 scale per output channel, "
              "MXFP8/MXFP6/MXFP4 with row-major e8m0 scales [1, 32], NVFP4 with row-major e4m3 "
              "scales [1, 16] and a rank-0 f32 global_scale)";
  };
  if (op.getLhsScales() || op.getLhsFormat())
    return lowerFp8ScaledMatmul(c, op); // the scaled GEMMs (ScaledMatmulOpToGPU.cpp)
  Type act = cast<RankedTensorType>(op.getLhs().getType()).getElementType();
  Type out = op.getResult().getType().getElementType();
  if (!act.isBF16() && !act.isF16())
    return fail(Twine("activations of this element type"));
  if (out != act)
    return fail("a result type other than the activation's");
  if (op.getRhsPacking() != LayoutKind::mma_tiles)
    return fail("a weight that is not packed as mma_tiles");
  if (op.getRhsScaleLayout() == LayoutKind::blocked_128x4)
    return fail("weight scales in the blocked 128x4 layout (the kernels read row-major ones)");
  FormatAttr fmtAttr = op.getRhsFormat() ? *op.getRhsFormat()
                                         : FormatAttr::fromType(cast<RankedTensorType>(
                                                                    op.getRhs().getType())
                                                                    .getElementType());
  if (!fmtAttr)
    return fail("a weight without a format");
  num::Format elem = fmtAttr.getFormat();
  bool fp8 = elem.bits() == 8 && elem.ebits <= 5 && elem.ebits >= 4;
  bool fp4 = elem.name == num::e2m1fn().name;
  // e2m3, e3m2 (fp6) and e2m2 (fp5): finite codes, 4+2 / 4+1 bit planes.
  bool fp6 = elem == num::e2m3fn() || elem == num::e3m2fn();
  bool fp5 = elem == num::getFormat("e2m2");
  if (!fp8 && !fp4 && !fp6 && !fp5)
    return fail(Twine("the weight format ") + elem.name);
  if (!op.getRhsScales())
    return fail("a weight without scales");
  ScalingAttr scaling = *op.getRhsScaling();
  ArrayRef<int64_t> block = scaling.getBlock();
  Type st = scaling.getScaleType();
  bool rowBlock = block.size() == 2 && block[0] == 1;
  WeightScales kind;
  if (rowBlock && block[1] < 0 && st.isF32() && (fp8 || fp6 || fp5))
    kind = WeightScales::Channel;
  else if (rowBlock && block[1] == 32 && isa<Float8E8M0FNUType>(st) && !fp5)
    kind = WeightScales::Mx32;
  else if (rowBlock && block[1] == 16 && isa<Float8E4M3FNType>(st) && fp4)
    kind = WeightScales::Nv16;
  else
    return fail(Twine("these weight scales for ") + elem.name +
                " (fp8/fp6/fp5: f32 per output channel [1, *]; e4m3/e5m2/e2m3/e3m2/e2m1: "
                "e8m0 [1, 32]; e2m1: e4m3 [1, 16])");
  if (op.getRhsGlobalScale() && kind != WeightScales::Nv16)
    return fail("a global_scale without NVFP4 scales");
  if (kind == WeightScales::Nv16 && !op.getRhsGlobalScale())
    return fail("NVFP4 weight scales without the tensor scale (global_scale)");

  FailureOr<Buffer> x = c.inputBuffer(op, op.getLhs());
  FailureOr<Buffer> w = c.inputBuffer(op, op.getRhs());
  FailureOr<Buffer> s = c.inputBuffer(op, op.getRhsScales());
  FailureOr<Buffer> gs = kind == WeightScales::Nv16 ? c.inputBuffer(op, op.getRhsGlobalScale())
                                                    : FailureOr<Buffer>(Buffer());
  if (failed(x) || failed(w) || failed(s) || failed(gs))
    return failure();
  std::string M = x->shape[0], K = x->shape[1], N = w->shape[0];
  std::string rowBytes = fp4 ? par(K) + "/2" : fp6 ? par(K) + "*3/4" : fp5 ? par(K) + "*5/8" : K;
  c.require(par(w->shape[1]) + " - " + par(rowBytes),
            "the packed weight " + w->name + " must have " + rowBytes + " bytes a row (K = " +
                K + ")");
  c.require(par(s->shape[0]) + " - " + par(N),
            "the weight scales " + s->name + " must have one row per output channel (" + N + ")");
  if (kind != WeightScales::Channel) {
    std::string blocks = par(K) + "/" + std::to_string(block[1]);
    c.require(par(s->shape[1]) + " - " + par(blocks),
              "the weight scales " + s->name + " must have " + blocks +
                  " columns (one per " + std::to_string(block[1]) + " of K, row-major)");
  }
  c.require(par(N) + " % " + std::to_string(kMatmulGroupRows),
            "the weight-only GEMM needs N (" + N + ") to be a multiple of " +
                std::to_string(kMatmulGroupRows));
  c.require(par(K) + " % " + std::to_string(kMatmulChunk),
            "the weight-only GEMM needs K (" + K + ") to be a multiple of " +
                std::to_string(kMatmulChunk));
  FailureOr<Buffer> bias = c.biasBuffer(op, op.getBias(), N);
  if (failed(bias))
    return failure();
  FailureOr<Buffer *> y = c.defineBuffer(op, op.getResult(), {M, N}, false);
  if (failed(y))
    return failure();
  std::string yName = (*y)->name;

  // Split-K meets in an fp32 workspace of partial sums, a slot per CTA
  // sharing a row group: only while M * N <= kMatmulSplitCap (the grid below
  // keeps larger products to one CTA per 128 channels and all of K); the
  // slot count is the kernel's (MatmulKernels.h).
  std::string mn = par(M) + "*" + par(N);
  std::string slots = "max(2, min(" + std::to_string(kMatmulSlots) + ", " +
                      std::to_string(kMatmulWorkspace) + "/max(1, " + mn + ")))";
  std::string splits = "min(1, max(0, " + std::to_string(kMatmulSplitCap) + " + 1 - " + mn + "))";
  std::string ws = c.defineTemp("f32", {slots, "max(1, " + splits + "*" + mn + ")"}, false);
  std::string cnt = c.defineCounterTemp({"min(cdiv(" + M + ", 8)*" + par(N) + "/16, 65536)"});

  std::string groups = par(N) + "/" + std::to_string(kMatmulGroupRows);
  std::string units = groups + "*(" + par(K) + "/" + std::to_string(kMatmulChunk) + ")";
  // sm_90a: the wgmma kernel for M > kWgmmaMinTokens where it takes the
  // weight's format (the decode kernels up to there); elsewhere, or for the
  // other formats, the decode kernels for every M.
  WeightOnlyPlan base{elem, kind, act, out};
  if (op.getBias())
    base.bias = cast<RankedTensorType>(op.getBias().getType()).getElementType();
  SmallVector<WeightOnlyWgmmaTile> wgTiles;
  if (c.target && weightOnlyWgmmaTakes(base))
    wgTiles = weightOnlyWgmmaTiles(*c.target);
  const bool wgmma = !wgTiles.empty();
  c.b.setInsertionPointToEnd(c.gpuModule.getBody());
  for (size_t i = 0; i < std::size(kMatmulTokenTiles); ++i) {
    int64_t tiles = kMatmulTokenTiles[i];
    WeightOnlyPlan plan = base;
    plan.tokenTiles = tiles;
    std::string name = c.kernelName("wo_decode");
    KernelDesc k = buildWeightOnlyDecodeKernel(c.b, op.getLoc(), name, plan, c.gpuModule);
    int64_t tokens = 8 * tiles;
    std::string chunks = "cdiv(" + M + ", " + std::to_string(tokens) + ")";
    // The smallest tile that holds M tokens (the largest above 64 without
    // the wgmma kernel): 1 for lo < M <= hi, else 0.
    bool last = i + 1 == std::size(kMatmulTokenTiles);
    int64_t hi = last ? kWgmmaMinTokens : tokens;
    std::vector<std::string> bounds;
    if (i > 0)
      bounds.push_back("min(1, max(0, " + par(M) + " - " +
                       std::to_string(8 * kMatmulTokenTiles[i - 1]) + "))");
    if (!last || wgmma)
      bounds.push_back("min(1, max(0, " + std::to_string(hi + 1) + " - " + par(M) + "))");
    std::string pick = llvm::join(bounds, "*");
    // At least cdiv(upt, slots - 1) units a CTA (the kernel's floor too).
    std::string upt = par(K) + "/" + std::to_string(kMatmulChunk);
    std::string most = "cdiv(" + units + ", cdiv(" + upt + ", " + slots + " - 1))";
    std::string ctas = "min(" + most + ", max(" + groups + ", " + splits + "*cdiv(" +
                       std::to_string(matmulCtasPerSm(tiles)) + "*sm_count, " + chunks + ")))";
    std::vector<std::string> args = {x->name, w->name, s->name};
    if (kind == WeightScales::Nv16)
      args.push_back(gs->name);
    for (const std::string &a : {yName, ws, cnt, M, N, K})
      args.push_back(a);
    if (op.getBias())
      args.push_back(bias->name);
    c.addLaunch(k, args, {ctas, pick + "*" + chunks, "1"},
                std::to_string(matmulSharedBytes(plan)));
  }
  static_assert(kWgmmaMinTokens <= 8 * kMatmulTokenTiles[std::size(kMatmulTokenTiles) - 1],
                "the decode kernels must cover every M up to the wgmma kernels'");
  // Above kWgmmaMinTokens (and K > 0: the kernel reads a stage of weights
  // ahead), the 256-token kernel when its tiles fill every SM at least once,
  // or when M holds a whole 256-token tile (each decoded weight then feeds
  // twice the tokens: H200, M = 256-512, faster than twice as many
  // 128-token tiles whether or not those fill the SMs); else the 128-token
  // one. Each splits K where its tiles are few.
  std::string channelTiles = "(" + par(N) + "/" + std::to_string(kWgmmaChannels) + ")";
  const int64_t wideTokens = wgTiles.empty() ? 1 : wgTiles.back().tokens;
  std::string wide = "cdiv(" + M + ", " + std::to_string(wideTokens) + ")*" + channelTiles;
  std::string on = "min(1, max(0, " + par(M) + " - " + std::to_string(kWgmmaMinTokens) +
                   "))*min(1, " + K + ")";
  // (whether M holds a whole wide tile names no SM count: it also sizes
  // the workspaces)
  std::string wideFull = "min(1, max(0, " + par(M) + " - " + std::to_string(wideTokens - 1) + "))";
  std::string wideRuns = "min(1, min(1, max(0, " + wide + " + 1 - sm_count)) + " + wideFull + ")";
  for (auto [i, tile] : llvm::enumerate(wgTiles)) {
    std::string name = c.kernelName("wo_wgmma");
    KernelDesc k = buildWeightOnlyWgmmaKernel(c.b, op.getLoc(), name, base, tile, c.gpuModule);
    bool isWide = i + 1 == wgTiles.size();
    std::string pick = on + "*" + (isWide ? wideRuns : "max(0, 1 - " + wideRuns + ")");
    std::string count = "cdiv(" + M + ", " + std::to_string(tile.tokens) + ")*" + channelTiles;
    // Split-K where the tiles are few (at most kWgmmaSplitTiles): up to
    // maxSplit CTAs a tile, as many as the SMs hold (the kernel derives its
    // splits from the grid), with a workspace slot of fp32 partial sums a
    // unit and a kept-zero counter a consumer warpgroup a tile.
    std::string grid = count;
    std::string ws, cnt;
    if (tile.maxSplit > 1) {
      std::string few = "min(1, max(0, " + std::to_string(kWgmmaSplitTiles + 1) + " - " +
                        count + "))";
      grid = count + "*(1 + " + std::to_string(tile.maxSplit - 1) + "*" + few + ")";
      // (a temporary's shape cannot name the SM count, so the workspace
      // follows the split choice alone: the kernel splits only where its
      // grid holds two CTAs a tile, never where its tiles fill the SMs, the
      // one case the split choice leaves out)
      std::string use = on + "*" + few + "*" + (isWide ? wideFull : "max(0, 1 - " + wideFull + ")");
      ws = c.defineTemp("f32",
                        {use + "*" + std::to_string(tile.maxSplit * kWgmmaChannels * tile.tokens) +
                         "*" + count},
                        false);
      cnt = c.defineCounterTemp({use + "*2*" + count});
    }
    SmallVector<Attribute> args = {
        c.tensorMapArg(x->name, {K, M}, {kWgmmaStageK, tile.tokens}, 128), c.str(w->name),
        c.str(s->name)};
    if (kind == WeightScales::Nv16)
      args.push_back(c.str(gs->name));
    for (const std::string &a : {yName, M, N, K})
      args.push_back(c.str(a));
    if (op.getBias())
      args.push_back(c.str(bias->name));
    if (tile.maxSplit > 1) {
      args.push_back(c.str(ws));
      args.push_back(c.str(cnt));
    }
    c.addLaunch(k, ArrayRef<Attribute>(args), {pick + "*min(" + grid + ", sm_count)", "1", "1"},
                std::to_string(weightOnlyWgmmaSharedBytes(base, tile)));
  }
  return success();
}

void fpx::populateMatmulOpLowerings(OpLoweringSet &set) {
  set.add(lowerScaledMatmul);
  set.add(lowerGroupedMatmul);
}
