//===- ScaledMatmulKernels.cpp - fp8 x fp8 scaled GEMM kernels (sm_90a) ---===//
//
// The Hopper scaled GEMM as bench/gemm/experiments/fp8_wgmma.cu measured it
// (128x192 tiles, the promoted main loop `_p1`, the TMA-store epilogue `t`;
// 128x128 with split-K for M <= 128, not measured there), built from NVVM
// ops:
//
// - Scheduler: persistent CTAs take tiles t, t + grid, ... in a grouped order
//   (8 tile rows at a time, N walked inside the group) for L2 reuse; the
//   producer and the consumers walk the same order, so their ring
//   positions agree. With few tiles (tile.maxSplit > 1) a tile's K blocks
//   are split over up to maxSplit CTAs: each leaves its fp32 partial sums in
//   a workspace slot, and the last of a tile (an atomic counter, which it
//   resets to zero for the next launch) adds the slots in split order and
//   runs the epilogue. Grouped (fpx.grouped_matmul): warp 0 turns the
//   device's group end offsets into a table in shared memory (each group's
//   first tile and row: a prefix sum of its tiles by warp shuffles), and
//   each role finds a tile's group by a binary search over it; a tile's
//   rows start at its group's first row, and the epilogue stores only the
//   group's rows (TMA for a warpgroup whose rows are all the group's, or
//   whose group ends at M, where the box clips; masked stores otherwise).
// - Operand pipeline: one producer thread waits on a stage's `empty`
//   mbarrier, arms its `full` one with the stage's bytes and issues two TMA
//   loads (A: 128 K x bm rows, B: 128 K x bn rows, 128B swizzle; TMA
//   zero-fills past M, N and K).
// - MMA loop: each consumer warpgroup owns 64 rows; a stage is four
//   wgmma.mma_async m64nBNk32 (both operands from shared memory,
//   descriptors with the 128B-swizzle layout, +32 bytes a k32 step), then
//   wait_group 0, the partial sum promoted into the fp32 accumulator and the
//   stage released (one arrival per consumer warp).
// - Block scales (DeepSeek-V3's 1x128 x 128x128 or 1x128 x 1x128): a second
//   producer warp copies a stage's scales (sa of the tile's bm rows; sb of its
//   bn columns, or of the two 128-column blocks a 128x128-scaled tile spans)
//   into a shared-memory slot beside the stage and arrives on the stage's
//   `full` barrier too, so the consumers find them there with the operands;
//   the promotion becomes acc += partial * sa[row] * sb[col].
// - MX scales (MXFP8: E8M0 [1, 32] on both sides, DeepGEMM's promotion at
//   the scale block): the scale warp decodes a stage's four k32 scale sets
//   to f32 into the slot; each of the stage's four wgmmas gets a partial sum
//   of its own (two register sets: wgmma j + 1 runs while j is promoted,
//   wait_group 1) and acc += partial * (sa[row, j] * sb[col, j]). That is
//   two fp32-pipe instructions an accumulator a k32, which bounds the
//   kernel at about half the fp8 wgmma peak on issue slots.
// - Epilogue: scales (per tensor or per row) times the accumulator, plus the
//   bias (f32), cast to the result type; then either (plan.tmaStore) into a
//   shared staging tile in the 128B-swizzle layout (stmatrix x4 of bf16
//   pairs, or 8-byte f32 stores), fenced to the async proxy, and TMA stores
//   of 64-row x 128-byte boxes by one thread per consumer warpgroup (bulk
//   group; the next tile's writes wait until the stores have read the
//   tile), or masked stores straight from the fragment (any N).
//
//===----------------------------------------------------------------------===//
#include "QuantizeKernelsInternal.h"
#include "ScaledMatmulKernels.h"
#include "WgmmaPipeline.h"

#include "fpx/Numerics/Bf16Dequant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <array>
#include <optional>

using namespace mlir;
using namespace fpx;
using P = arith::CmpIPredicate;

namespace {

constexpr int64_t kGroupRows = 8;     // tile rows of the grouped order
constexpr int64_t kProducerRegs = 40; // 128 x 40 + 256 x 232 = 64512 registers
constexpr int64_t kConsumerRegs = 232;
// MX scale rows a scale-warp lane loads before it decodes and stores them
// (all 8 of a 128x128 tile with 32-bit loads, 4 codes each; 4 with byte
// loads; 2 where a side's scales are blocked 128x4, whose byte offsets take
// more registers): the most found to fit the producer's 40 registers
// without spills.
constexpr int64_t kMxAlignedGroup = 8, kMxByteGroup = 4, kMxBlockedByteGroup = 2;

/// An scf.if without results around `body`.
void when(KernelBuilder &k, Value cond, function_ref<void()> body) {
  auto op = scf::IfOp::create(k.b, k.loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(k.b);
  k.b.setInsertionPointToStart(&op.getThenRegion().front());
  body();
}

} // namespace

SmallVector<ScaledGemmTile> fpx::scaledGemmTiles(const TargetInfo &target) {
  if (!(target.mma & Wgmma))
    return {};
  // Measured on an H200 (NOTES.md "fp8_wgmma"); both fit the 227 KiB a
  // block may use on every sm_90a part.
  return {{128, 128, 7, /*maxSplit=*/4}, {128, 192, 5}};
}

namespace {
/// The C staging tile of the TMA-store epilogue.
int64_t stagingBytes(const ScaledGemmPlan &plan) {
  return plan.tmaStore ? plan.tile.bm * plan.tile.bn * plan.outBytes() : 0;
}
/// A stage's scale slot: bm + bn floats (MX: one such set for each k32).
int64_t scaleSlotBytes(const ScaledGemmPlan &plan) {
  if (!plan.anyBlock())
    return 0;
  // (The bf16 form: two bf16x2 factors, 8 bytes, a row and k32.)
  return (plan.tile.bm + plan.tile.bn) * (plan.bf16Mma ? 8 : 4) *
         (plan.mx ? kScaledGemmStageK / 32 : 1);
}
/// The bf16 form's slices: (bm + bn) rows x 64 bf16 (128 bytes) each.
int64_t bf16SliceBytes(const ScaledGemmPlan &plan) {
  return (plan.tile.bm + plan.tile.bn) * 128;
}
int64_t bf16RingBytes(const ScaledGemmPlan &plan) {
  return plan.bf16Mma ? kScaledGemmBf16Slots * bf16SliceBytes(plan) : 0;
}
/// Shared memory a stage takes: operands, its two mbarriers, block scales.
int64_t stageBytes(const ScaledGemmPlan &plan) {
  const ScaledGemmTile &t = plan.tile;
  return (t.bm + t.bn) * kScaledGemmStageK + 2 * 8 + scaleSlotBytes(plan);
}
} // namespace

/// Split-K's two flags.
static int64_t flagBytes(const ScaledGemmPlan &plan) { return plan.tile.maxSplit > 1 ? 8 : 0; }
/// Grouped: the group table (first tiles, then first rows: maxGroups + 2
/// i32 each), a multiple of 16 bytes.
static int64_t groupTableBytes(const ScaledGemmPlan &plan) {
  return plan.grouped ? (2 * 4 * (plan.maxGroups + 2) + 15) / 16 * 16 : 0;
}

int64_t fpx::scaledGemmSharedBytes(const ScaledGemmPlan &plan) {
  return 1024 + stagingBytes(plan) + bf16RingBytes(plan) + plan.tile.stages * stageBytes(plan) +
         flagBytes(plan) + groupTableBytes(plan);
}

int64_t fpx::scaledGemmMaxStages(const ScaledGemmPlan &plan) {
  return (kScaledGemmSharedLimit - 1024 - stagingBytes(plan) - bf16RingBytes(plan) -
          flagBytes(plan) - groupTableBytes(plan)) /
         stageBytes(plan);
}

KernelDesc fpx::buildScaledGemmKernel(OpBuilder &b, Location loc, StringRef name,
                                      const ScaledGemmPlan &plan, gpu::GPUModuleOp module) {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  const int64_t BM = plan.tile.bm, BN = plan.tile.bn, ST = plan.tile.stages;
  const int64_t NA = BN / 2; // accumulators a thread (m64nBN over 128 threads)
  const int64_t aBytes = BM * kScaledGemmStageK, bBytes = BN * kScaledGemmStageK;

  Type gptr = LLVM::LLVMPointerType::get(ctx, 1), genPtr = LLVM::LLVMPointerType::get(ctx, 0);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  KernelDesc desc;
  desc.params = {"tmA", "tmB", "sa", "sb", "c", "M", "N", "K"};
  SmallVector<Type> argTypes = {genPtr, genPtr, gptr, gptr, gptr, i64, i64, i64};
  if (plan.tmaStore) {
    desc.params.insert(desc.params.begin() + 2, "tmC");
    argTypes.insert(argTypes.begin() + 2, genPtr);
  }
  const unsigned first = plan.tmaStore ? 3 : 2; // sa's index
  assert((!plan.grouped || (plan.tile.maxSplit <= 1 && !plan.bias &&
                            !plan.anyBlock() && !plan.bf16Mma && !plan.globalA &&
                            !plan.globalB && plan.maxGroups > 0)) &&
         "a grouped kernel form that is not built");
  if (plan.grouped) {
    desc.params.append({"offs", "G"});
    argTypes.append({gptr, i64});
  }
  for (auto [has, gName] : {std::make_pair(plan.globalA, "ga"), std::make_pair(plan.globalB, "gb")})
    if (has) {
      desc.params.push_back(gName);
      argTypes.push_back(gptr);
    }
  if (plan.bias) {
    desc.params.push_back("bias");
    argTypes.push_back(gptr);
  }
  if (plan.tile.maxSplit > 1) {
    desc.params.append({"ws", "cnt"});
    argTypes.append({gptr, gptr});
  }
  // The tensor maps (A, B[, C]): 128-byte CUtensorMaps by value.
  gpu::GPUFuncOp f =
      wgp::makeKernel(b, loc, name, argTypes, int32_t(kScaledGemmThreads),
                      plan.tmaStore ? ArrayRef<int32_t>{0, 1, 2} : ArrayRef<int32_t>{0, 1});
  desc.func = f;
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  Value tmA = entry.getArgument(0), tmB = entry.getArgument(1);
  Value tmC = plan.tmaStore ? entry.getArgument(2) : Value();
  Value sa = entry.getArgument(first), sb = entry.getArgument(first + 1),
        cOut = entry.getArgument(first + 2);
  Value M = k.trunc(entry.getArgument(first + 3), i32),
        N = k.trunc(entry.getArgument(first + 4), i32),
        K = k.trunc(entry.getArgument(first + 5), i32);
  unsigned nextArg = first + 6;
  Value offs = plan.grouped ? entry.getArgument(nextArg++) : Value();
  Value G = plan.grouped ? k.trunc(entry.getArgument(nextArg++), i32) : Value();
  Value gaPtr = plan.globalA ? entry.getArgument(nextArg++) : Value();
  Value gbPtr = plan.globalB ? entry.getArgument(nextArg++) : Value();
  Value biasPtr = plan.bias ? entry.getArgument(nextArg++) : Value();
  const unsigned wsArg = nextArg;
  Value ws = plan.tile.maxSplit > 1 ? entry.getArgument(wsArg) : Value();
  Value cnt = plan.tile.maxSplit > 1 ? entry.getArgument(wsArg + 1) : Value();

  // Shared memory: [A ring][B ring][C staging][full[ST]][empty[ST]]
  // [scales[ST]] from a 1024-aligned base (the staging tile, 1024-aligned
  // too, is two warpgroup halves of 64 rows, each a row of 8192-byte boxes
  // of 64 rows x 128 bytes); a stage's scales are bm floats of sa then bn of
  // sb (128x128 sb: the two blocks the tile's columns span; MX: four such
  // sets, one a k32).
  // (baseAddr: the base as a shared address, for the descriptors)
  // The bf16 form: its slices (each bm rows of A, then bn of B, 64 bf16 =
  // 128 bytes a row, 128B-swizzled) after the rings, their full and empty
  // mbarriers after the stages'.
  auto [base, baseAddr] = wgp::alignedSharedBase(k, module, (name + "_smem").str());
  const int64_t SB = plan.bf16Mma ? kScaledGemmBf16Slots : 0, sliceBytes = bf16SliceBytes(plan);
  const int64_t offB = ST * aBytes, offH = ST * (aBytes + bBytes);
  const int64_t offC = offH + SB * sliceBytes;
  const int64_t offBar = offC + stagingBytes(plan);
  const int64_t offScale = offBar + 2 * ST * 8, scaleBytes = scaleSlotBytes(plan);
  // Split-K: a flag a consumer warpgroup (its unit was the tile's last).
  const int64_t offFlag = offScale + (plan.anyBlock() ? ST * scaleBytes : 0);
  // Grouped: the group table, tileStart[maxGroups + 2] then
  // rowStart[maxGroups + 2] (i32).
  const int64_t offTable = offFlag + flagBytes(plan);
  const int64_t offRowStart = offTable + 4 * (plan.maxGroups + 2);
  // A 128x128-scaled B tile spans at most two 128-column blocks: its first
  // column n0 is a multiple of 64 and it is at most 192 wide.
  assert((plan.blockB != kScaledGemmStageK || (BN % 64 == 0 && BN <= 192)) &&
         "a tile spanning more than two 128-column scale blocks");
  auto at = [&](Value off32) { return k.gep(base, k.i8(), off32); };
  auto fullBar = [&](Value s) { return at(k.add(k.c32(offBar), k.mul(s, k.c32(8)))); };
  auto emptyBar = [&](Value s) { return at(k.add(k.c32(offBar + ST * 8), k.mul(s, k.c32(8)))); };
  // The i-th float of stage s's scale slot.
  auto scaleAt = [&](Value s, Value i) {
    return at(k.add(k.c32(offScale), k.add(k.mul(s, k.c32(scaleBytes)), k.mul(i, k.c32(4)))));
  };
  // The bf16 form: the factor pair (f1, f2) of row (or column) i's k32
  // block j of stage s (set j: bm of A, then bn of B).
  auto factorsAt = [&](Value s, Value j, Value i) {
    Value idx = k.add(k.mul(j, k.c32(BM + BN)), i);
    return at(k.add(k.c32(offScale), k.add(k.mul(s, k.c32(scaleBytes)), k.mul(idx, k.c32(8)))));
  };
  auto i32x2 = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32});

  Value tid = k.trunc(k.threadIdx(), i32);
  Value wg = k.divu(tid, k.c32(128)), t = k.remu(tid, k.c32(128));
  when(k, k.cmp(P::eq, tid, k.c32(0)), [&] {
    for (int64_t s = 0; s < ST; ++s) {
      // The TMA thread's arrival (+ bytes), and the scale warp's 32 with
      // block scales.
      NVVM::MBarrierInitOp::create(b, loc, fullBar(k.c32(s)), k.c32(plan.anyBlock() ? 33 : 1),
                                   Value());
      // one arrival per consumer warp
      NVVM::MBarrierInitOp::create(b, loc, emptyBar(k.c32(s)), k.c32(8), Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  auto cdiv = [&](Value x, int64_t d) { return k.divu(k.add(x, k.c32(d - 1)), k.c32(d)); };
  // Grouped: group g (0 .. G - 1; G is the rows past the last end) covers
  // rows [rowStart[g], rowStart[g + 1]) and tiles [tileStart[g],
  // tileStart[g + 1]), its rows' tiles times N's; offsets are clamped to
  // [0, M], and an end below its start is an empty group.
  auto tileStartAt = [&](Value g) { return at(k.add(k.c32(offTable), k.mul(g, k.c32(4)))); };
  auto rowStartAt = [&](Value g) { return at(k.add(k.c32(offRowStart), k.mul(g, k.c32(4)))); };
  auto rowTiles = [&](Value rows) { return k.mul(cdiv(rows, BM), cdiv(N, BN)); };
  if (plan.grouped)
    // Warp 0 builds the table, 32 groups at a time: a group's tiles, their
    // inclusive prefix sum over the warp (shuffles) plus the groups before.
    when(k, k.cmp(P::ult, tid, k.c32(32)), [&] {
      auto end = [&](Value g) { // group g's end row, clamped to [0, M]
        Value v = k.load(i32, k.gep(offs, i32, k.umin(g, k.sub(G, k.c32(1)))), 4);
        return k.smin(k.smax(v, k.c32(0)), M);
      };
      auto chunks = scf::ForOp::create(b, loc, k.c32(0), G, k.c32(32), ValueRange{k.c32(0)});
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(chunks.getBody());
        Value gi = k.add(chunks.getInductionVar(), tid), carry = chunks.getRegionIterArgs()[0];
        Value valid = k.cmp(P::ult, gi, G);
        Value start = k.select(k.cmp(P::eq, gi, k.c32(0)), k.c32(0), end(k.sub(gi, k.c32(1))));
        Value rows = k.smax(k.sub(end(gi), start), k.c32(0));
        Value scan = k.select(valid, rowTiles(rows), k.c32(0));
        for (int d = 1; d < 32; d *= 2) {
          Value up = k.shuffleUp(scan, d);
          scan = k.select(k.cmp(P::uge, tid, k.c32(d)), k.add(scan, up), scan);
        }
        when(k, valid, [&] {
          k.store(k.add(carry, scan), tileStartAt(k.add(gi, k.c32(1))), 4);
          k.store(start, rowStartAt(gi), 4);
        });
        scf::YieldOp::create(b, loc, ValueRange{k.add(carry, k.shuffleIdx(scan, 31))});
      }
      when(k, k.cmp(P::eq, tid, k.c32(0)), [&] {
        Value tailStart = end(k.sub(G, k.c32(1)));
        k.store(k.c32(0), tileStartAt(k.c32(0)), 4);
        k.store(tailStart, rowStartAt(G), 4);
        k.store(M, rowStartAt(k.add(G, k.c32(1))), 4);
        k.store(k.add(chunks.getResult(0), rowTiles(k.sub(M, tailStart))),
                tileStartAt(k.add(G, k.c32(1))), 4);
      });
    });
  k.barrier();

  // The tile scheduler: grouped order, kGroupRows tile rows at a time
  // (grouped: the table's total).
  Value tilesM = cdiv(M, BM), tilesN = cdiv(N, BN);
  Value numTiles = plan.grouped ? k.load(i32, tileStartAt(k.add(G, k.c32(1))), 4)
                                : k.mul(tilesM, tilesN);
  // (NVFP4: K / 2 bytes a row; a stage is 128 bytes of it.)
  Value kRowBytes = plan.nvfp4 ? k.divu(K, k.c32(2)) : K;
  Value kIters =
      k.divu(k.add(kRowBytes, k.c32(kScaledGemmStageK - 1)), k.c32(kScaledGemmStageK));
  Value firstTile = k.trunc(k.blockIdx(), i32), tileStride = k.trunc(k.gridDim(), i32);
  auto coords = [&](Value tile) {
    Value per = k.mul(k.c32(kGroupRows), tilesN);
    Value grp = k.divu(tile, per), first = k.mul(grp, k.c32(kGroupRows));
    Value gm = k.umin(k.sub(tilesM, first), k.c32(kGroupRows));
    Value r = k.sub(tile, k.mul(grp, per));
    Value mt = k.add(first, k.remu(r, gm)), nt = k.divu(r, gm);
    return std::make_pair(k.mul(mt, k.c32(BM)), k.mul(nt, k.c32(BN)));
  };
  // Split-K (plan.tile.maxSplit > 1): with few tiles (at most
  // kScaledGemmSplitTiles, and fewer than half the CTAs), each tile's K
  // blocks are cut into `splits` ranges, one work unit each, as many as the
  // CTAs hold (at most maxSplit, at most the K blocks); else one unit a tile.
  Value splits = k.c32(1);
  if (plan.tile.maxSplit > 1) {
    Value fit = k.umin(k.umax(k.divu(tileStride, numTiles), k.c32(1)),
                       k.umin(k.c32(plan.tile.maxSplit), k.umax(kIters, k.c32(1))));
    splits = k.select(k.cmp(P::ule, numTiles, k.c32(kScaledGemmSplitTiles)), fit, k.c32(1));
  }
  Value numUnits = k.mul(numTiles, splits);
  // Unit u: tile u / splits, K blocks [kb0, kb1) of its split u % splits;
  // the tile's first row and column, and rows from rowEnd on not stored
  // (grouped: its group g, whose B matrix and scales it reads; the rows
  // past the last end, g = G, have no K blocks and store zeros).
  struct Unit {
    Value tile, split, kb0, kb1;
    Value m0, n0, rowEnd, group, zeros;
  };
  // A grouped tile's group: the last g with tileStart[g] <= tile (a binary
  // search over 0 .. G + 1, whose tileStart is the total).
  auto groupOf = [&](Value tile) {
    Value lo = k.c32(0), hi = k.add(G, k.c32(1));
    for (int64_t n = plan.maxGroups + 1; n > 1; n = (n + 1) / 2) {
      Value mid = k.shru(k.add(lo, hi), k.c32(1));
      Value ok = k.cmp(P::ule, k.load(i32, tileStartAt(mid), 4), tile);
      lo = k.select(ok, mid, lo);
      hi = k.select(ok, hi, mid);
    }
    return lo;
  };
  auto unitOf = [&](Value u) -> Unit {
    if (plan.grouped) {
      // Within the group, row tiles first: consecutive tiles share B's.
      Value g = groupOf(u), rowStart = k.load(i32, rowStartAt(g), 4);
      Value rowEnd = k.load(i32, rowStartAt(k.add(g, k.c32(1))), 4);
      Value local = k.sub(u, k.load(i32, tileStartAt(g), 4));
      Value rowTilesG = cdiv(k.sub(rowEnd, rowStart), BM);
      Value m0 = k.add(rowStart, k.mul(k.remu(local, rowTilesG), k.c32(BM)));
      Value n0 = k.mul(k.divu(local, rowTilesG), k.c32(BN));
      Value zeros = k.cmp(P::eq, g, G);
      return {u, k.c32(0), k.c32(0), k.select(zeros, k.c32(0), kIters), m0, n0, rowEnd, g, zeros};
    }
    if (plan.tile.maxSplit <= 1) {
      auto [m0, n0] = coords(u);
      return {u, k.c32(0), k.c32(0), kIters, m0, n0, M};
    }
    Value tile = k.divu(u, splits), split = k.remu(u, splits);
    Value kb0 = k.divu(k.mul(split, kIters), splits);
    Value kb1 = k.divu(k.mul(k.add(split, k.c32(1)), kIters), splits);
    auto [m0, n0] = coords(tile);
    return {tile, split, kb0, kb1, m0, n0, M};
  };
  // Walks this CTA's units; `body(unit, it)` returns the ring position after
  // it.
  auto forTiles = [&](function_ref<Value(const Unit &, Value)> body) {
    auto loop = scf::ForOp::create(b, loc, firstTile, numUnits, tileStride, ValueRange{k.c32(0)});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value next = body(unitOf(loop.getInductionVar()), loop.getRegionIterArgs()[0]);
    scf::YieldOp::create(b, loc, next);
  };
  // The ring position `it`: the stage in bits 0-7, the phase parity in bit
  // 8 (a stage count that is not a power of two would otherwise cost a
  // division a stage, and its registers).
  auto stageOf = [&](Value it) { return k.band(it, k.c32(0xFF)); };
  auto parityOf = [&](Value it) { return k.shru(it, k.c32(8)); };
  auto advanceRing = [&](Value it, int64_t stages) {
    Value wrap = k.cmp(P::eq, stageOf(it), k.c32(stages - 1));
    return k.select(wrap, k.bxor(k.band(it, k.c32(0x100)), k.c32(0x100)), k.add(it, k.c32(1)));
  };
  auto advance = [&](Value it) { return advanceRing(it, ST); };
  auto wait = [&](Value bar, Value parity) { wgp::wait(k, bar, parity); };

  auto roles = scf::IfOp::create(b, loc, k.cmp(P::eq, wg, k.c32(0)), /*withElse=*/true);
  // ------------------------------------------------------------ producer
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(roles.getThenRegion().front().getTerminator());
    wgp::setMaxRegisters(k, kProducerRegs, /*increase=*/false);
    when(k, k.cmp(P::eq, t, k.c32(0)), [&] {
      forTiles([&](const Unit &unit, Value it0) {
        Value m0 = unit.m0;
        // (Grouped: B's rows of group g start at g * N.)
        Value bRow = plan.grouped ? k.add(k.mul(unit.group, N), unit.n0) : unit.n0;
        auto kl = scf::ForOp::create(b, loc, unit.kb0, unit.kb1, k.c32(1), ValueRange{it0});
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(kl.getBody());
        Value kb = kl.getInductionVar(), it = kl.getRegionIterArgs()[0];
        Value s = stageOf(it);
        // A fresh empty barrier passes the flipped parity.
        wait(emptyBar(s), k.bxor(parityOf(it), k.c32(1)));
        Value full = fullBar(s);
        wgp::arriveExpectTx(k, full, aBytes + bBytes);
        Value kc = k.mul(kb, k.c32(kScaledGemmStageK));
        auto load = [&](Value dstOff, Value map, Value row) {
          wgp::tmaLoad2d(k, at(dstOff), map, kc, row, full);
        };
        load(k.mul(s, k.c32(aBytes)), tmA, m0);
        load(k.add(k.c32(offB), k.mul(s, k.c32(bBytes))), tmB, bRow);
        scf::YieldOp::create(b, loc, ValueRange{advance(it)});
        b.setInsertionPointAfter(kl);
        return kl.getResult(0);
      });
    });
    // The scale warp (warp 1): each stage's block scales into its slot, one
    // arrival per lane on the stage's full barrier. Rows and columns past M
    // and N read the last one (their products are masked in the epilogue).
    if (plan.anyBlock())
      when(k, k.cmp(P::eq, k.divu(t, k.c32(32)), k.c32(1)), [&] {
        Value lane = k.remu(t, k.c32(32));
        Value kBlocks64 = k.zext(kIters, i64);
        // MX: K / 32 codes a row; rows are read 4 codes (one stage) at a
        // time with one 32-bit load where they are 4-byte aligned (both
        // pointers, and K / 32 a multiple of 4 where a side is row-major; a
        // blocked side keeps a row's 4 codes of a stage in one word), else a
        // byte at a time.
        Value mxCols, mxAligned;
        if (plan.mx) {
          mxCols = k.divu(K, k.c32(32));
          Value ptrBits = k.bor(LLVM::PtrToIntOp::create(b, loc, i64, sa).getResult(),
                                LLVM::PtrToIntOp::create(b, loc, i64, sb).getResult());
          mxAligned = k.cmp(P::eq, k.band(ptrBits, k.c64(3)), k.c64(0));
          if (!plan.blockedA || !plan.blockedB)
            mxAligned = k.land(mxAligned, k.cmp(P::eq, k.band(mxCols, k.c32(3)), k.c32(0)));
        }
        auto scale = [&](Value ptr, Value row, Value kb) {
          Value idx = k.add(k.mul(k.zext(row, i64), kBlocks64), k.zext(kb, i64));
          return k.load(k.f32(), k.gep(ptr, k.f32(), idx), 4);
        };
        forTiles([&](const Unit &unit, Value it0) {
          auto [m0, n0] = coords(unit.tile);
          Value lastRow = k.sub(M, k.c32(1)), lastCol = k.sub(N, k.c32(1));
          auto kl = scf::ForOp::create(b, loc, unit.kb0, unit.kb1, k.c32(1), ValueRange{it0});
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(kl.getBody());
          Value kb = kl.getInductionVar(), it = kl.getRegionIterArgs()[0];
          Value s = stageOf(it), l = lane;
          wait(emptyBar(s), k.bxor(parityOf(it), k.c32(1)));
          // A group's loads first, then its stores: a memory latency per
          // group (sa, then sb) within the warp's 40 registers.
          SmallVector<std::pair<Value, Value>> put; // (slot index, value)
          auto flush = [&] {
            if (put.empty())
              return;
            for (auto [i, v] : put)
              k.store(v, scaleAt(s, i), 4);
            put.clear();
            // Keeps the next group's loads below these stores (LLVM would
            // hoist them, as global and shared memory do not alias, and
            // spill).
            l = k.ptx(i32, "", "=r,0", {l}, /*sideEffects=*/true);
          };
          if (plan.blockA)
            for (int64_t i = 0; i < BM / 32; ++i) {
              Value r = k.add(l, k.c32(32 * i));
              put.push_back({r, scale(sa, k.umin(k.add(m0, r), lastRow), kb)});
            }
          flush();
          if (plan.blockB == 1)
            for (int64_t i = 0; i < BN / 32; ++i) {
              Value cI = k.add(l, k.c32(32 * i));
              put.push_back({k.add(cI, k.c32(BM)), scale(sb, k.umin(k.add(n0, cI), lastCol), kb)});
            }
          flush();
          if (plan.blockB == kScaledGemmStageK)
            // Lanes 0 and 1: the blocks of the tile's first and last columns.
            when(k, k.cmp(P::ult, l, k.c32(2)), [&] {
              Value col = k.umin(k.add(n0, k.mul(l, k.c32(BN - 1))), lastCol);
              Value v = scale(sb, k.divu(col, k.c32(kScaledGemmStageK)), kb);
              k.store(v, scaleAt(s, k.add(l, k.c32(BM))), 4);
            });
          if (plan.mx) {
            // MX: the four E8M0 codes of each row of A and each column of B
            // for the stage's k32 blocks, decoded to f32 (2^(e - 127); 0xFF
            // NaN) into the slot's four sets (set j: bm floats of sa, then bn
            // of sb). Blocks past K (a last stage of fewer than four) get
            // 2^0: their operands are zero-filled.
            Value kb4 = k.mul(kb, k.c32(4));
            auto decode = [&](Value code) {
              Value bits = k.shl(code, k.c32(23));
              bits = k.select(k.cmp(P::eq, code, k.c32(0)), k.c32(0x00400000), bits);
              bits = k.select(k.cmp(P::eq, code, k.c32(0xFF)), k.c32(0x7FC00000), bits);
              return k.bitcast(bits, k.f32());
            };
            auto codes = [&](bool aligned) {
              // (Through an empty asm: row addresses computed anew each
              // stage, not hoisted out of the K loop into registers.)
              Value ll = k.ptx(i32, "", "=r,0", {l}, /*sideEffects=*/true);
              // The lane's rows: (i, side) with row 32 i + lane of A, then
              // of B.
              SmallVector<std::pair<int64_t, bool>> rowsOfLane;
              for (int64_t i = 0; i < BM / 32; ++i)
                rowsOfLane.push_back({i, false});
              for (int64_t i = 0; i < BN / 32; ++i)
                rowsOfLane.push_back({i, true});
              // A group of rows at a time: their loads, then their stores
              // (the loads in flight together, within the warp's 40
              // registers).
              const int64_t group = aligned                           ? kMxAlignedGroup
                                    : plan.blockedA || plan.blockedB ? kMxBlockedByteGroup
                                                                     : kMxByteGroup;
              for (size_t g = 0; g < rowsOfLane.size(); g += group) {
                // (slot index, j, code, of B)
                SmallVector<std::tuple<Value, int64_t, Value, bool>> put;
                for (size_t x = g; x < g + group && x < rowsOfLane.size(); ++x) {
                  auto [i, onB] = rowsOfLane[x];
                  Value ptr = onB ? sb : sa;
                  Value r = k.add(ll, k.c32(32 * i));
                  Value row = k.umin(k.add(onB ? n0 : m0, r), onB ? lastCol : lastRow);
                  // (Both layouts' offsets are a row's part plus a column's:
                  // the row's once, beside the lane's other rows.)
                  const bool blocked = onB ? plan.blockedB : plan.blockedA;
                  Value cols64 = k.zext(mxCols, i64);
                  Value rowOff = qk::scaleOffset(k, k.zext(row, i64), k.c64(0), cols64, blocked);
                  auto offset = [&](Value col) {
                    return k.add(rowOff,
                                 qk::scaleOffset(k, k.c64(0), k.zext(col, i64), cols64, blocked));
                  };
                  Value slot = onB ? k.add(r, k.c32(BM)) : r;
                  if (aligned) {
                    // (A blocked word's codes past K are padding: 2^0, as
                    // below; a row-major word here has none.)
                    Value w = k.load(i32, k.gep(ptr, k.i8(), offset(kb4)), 4);
                    if (blocked) {
                      // The word's bytes from mxCols - kb4 on (at most 3,
                      // in the last stage) become 127.
                      Value pad = k.shl(k.c32(-1), k.mul(k.umin(k.sub(mxCols, kb4), k.c32(3)),
                                                         k.c32(8)));
                      pad = k.select(k.cmp(P::ult, k.add(kb4, k.c32(3)), mxCols), k.c32(0), pad);
                      w = k.bor(k.band(w, k.bxor(pad, k.c32(-1))), k.band(pad, k.c32(0x7F7F7F7F)));
                    }
                    for (int64_t j = 0; j < 4; ++j)
                      put.push_back({slot, j, k.band(k.shru(w, k.c32(8 * j)), k.c32(0xFF)), onB});
                    continue;
                  }
                  for (int64_t j = 0; j < 4; ++j) {
                    Value col = k.add(kb4, k.c32(j));
                    Value in = k.cmp(P::ult, col, mxCols);
                    Value idx = offset(k.umin(col, k.sub(mxCols, k.c32(1))));
                    Value byte = k.zext(k.load(k.i8(), k.gep(ptr, k.i8(), idx), 1), i32);
                    put.push_back({slot, j, k.select(in, byte, k.c32(127)), onB});
                  }
                }
                for (auto [slot, j, code, onB] : put) {
                  if (!plan.bf16Mma) {
                    k.store(decode(code), scaleAt(s, k.add(slot, k.c32(j * (BM + BN)))), 4);
                    continue;
                  }
                  // The bf16 form: the code's two bf16x2 factors (Bf16Dequant.h).
                  Value f = k.ptx(i32x2,
                                  num::ptxText(num::e8m0FactorsProgram(onB ? plan.e5m2B
                                                                           : plan.e5m2A)),
                                  "=r,=r,r", {code});
                  k.store(k.vector({LLVM::ExtractValueOp::create(b, loc, f, 0).getResult(),
                                    LLVM::ExtractValueOp::create(b, loc, f, 1).getResult()}),
                          factorsAt(s, k.c32(j), slot), 8);
                }
                ll = k.ptx(i32, "", "=r,0", {ll}, /*sideEffects=*/true);
              }
            };
            auto branch = scf::IfOp::create(b, loc, mxAligned, /*withElse=*/true);
            OpBuilder::InsertionGuard g3(b);
            b.setInsertionPointToStart(&branch.getThenRegion().front());
            codes(true);
            b.setInsertionPointToStart(&branch.getElseRegion().front());
            codes(false);
          }
          wgp::arrive(k, fullBar(s));
          scf::YieldOp::create(b, loc, ValueRange{advance(it)});
          b.setInsertionPointAfter(kl);
          return kl.getResult(0);
        });
      });
  }
  // ------------------------------------------------------------ consumers
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(roles.getElseRegion().front().getTerminator());
    wgp::setMaxRegisters(k, kConsumerRegs, /*increase=*/true);
    Value cw = k.sub(wg, k.c32(1));
    // The consumer warpgroup's own named barrier (1 or 2; 0 is the CTA's).
    auto wgBarrier = [&] {
      NVVM::BarrierOp::create(b, loc, Type(), k.add(cw, k.c32(1)), k.c32(128),
                              NVVM::BarrierReductionAttr(), Value());
    };
    Value warp = k.divu(t, k.c32(32)), lane = k.remu(t, k.c32(32));
    Value gq = k.divu(lane, k.c32(4)), q = k.remu(lane, k.c32(4));
    Value rowInTile = k.add(k.mul(cw, k.c32(64)), k.add(k.mul(warp, k.c32(16)), gq));
    SmallVector<Type> accTypes(NA, k.f32());
    auto accStruct = LLVM::LLVMStructType::getLiteral(ctx, accTypes);
    // The bf16 form's conversion of a stage's half (K 0-63 or 64-127) into a
    // bf16 slice by the 256 consumer threads (u = 128 cw + t): thread u
    // takes 16-byte chunk cc = u % 4 of the half (codes 16 cc.. of its 64) of
    // rows 64 i + 8 (u / 32) + r8, r8 = 4 ((u / 4) % 2) + (u % 32) / 8 (A's
    // bm rows, then B's bn), i = 0 .. (bm + bn) / 64 - 1: a quarter warp reads
    // rows r8 and r8 ^ 4, whose swizzled chunks fill the 32 banks. The 16
    // codes (Bf16Dequant.h's program, the factors of their k32 block from
    // the stage's slot) become bf16 chunks 2 cc and 2 cc + 1 of the slice row
    // (128B-swizzled as TMA would write it); the second four lanes of a
    // quarter write their second chunk first, so that the quarter's stores
    // fill the banks too.
    Value cvCc = k.remu(lane, k.c32(4)), cvSwap = k.remu(k.divu(lane, k.c32(4)), k.c32(2));
    Value cvR8 = k.add(k.mul(cvSwap, k.c32(4)), k.divu(lane, k.c32(8)));
    Value cvRow = k.add(k.mul(k.add(k.mul(cw, k.c32(4)), warp), k.c32(8)), cvR8);
    Value cvSwapped = k.cmp(P::ne, cvSwap, k.c32(0));
    const bool fp8Bf16 = plan.bf16Mma && !plan.nvfp4;
    const std::string progA =
        fp8Bf16 ? num::ptxText(num::fp8ToBf16Program(plan.e5m2A)) : std::string();
    const std::string progB =
        fp8Bf16 ? num::ptxText(num::fp8ToBf16Program(plan.e5m2B)) : std::string();
    // NVFP4 (a stage's row is 128 bytes = 256 codes, slice q its bytes 32 q
    // .. 32 q + 31): thread u takes 16-byte chunk c = 2 q + cc, cc = u % 2,
    // of rows 128 i + 16 (u / 32) + 8 ((u % 32) / 16) + r8, r8 = 2 ((u / 2)
    // % 4) + (u / 8) % 2 (the quarter's four rows r8 = p, 2 + p, 4 + p, 6 + p
    // fill the banks); its 32 codes (two 16-K blocks: their two e4m3 scale
    // codes read from global memory by the thread, no scale warp, through
    // num::e4m3ScaleFactorsProgram)
    // become bf16 chunks 4 cc .. 4 cc + 3 (word x: elements j, j + 4 paired,
    // Bf16Dequant.h's order, which A and B share).
    Value fpCc = k.remu(lane, k.c32(2)), fpG = k.remu(k.divu(lane, k.c32(2)), k.c32(4));
    Value fpQuarter = k.divu(lane, k.c32(8));
    Value fpR8 = k.add(k.mul(fpG, k.c32(2)), k.remu(fpQuarter, k.c32(2)));
    Value fpRow = k.add(k.mul(k.add(k.mul(cw, k.c32(4)), warp), k.c32(16)),
                        k.add(k.mul(k.divu(fpQuarter, k.c32(2)), k.c32(8)), fpR8));
    const std::string progFp4 =
        plan.nvfp4 ? num::ptxText(num::e2m1ToBf16Program()) : std::string();
    const std::string progScale =
        plan.nvfp4 ? num::ptxText(num::e4m3ScaleFactorsProgram()) : std::string();
    auto i32x4 = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
    auto convertSliceFp4 = [&](Value s, Value q, Value slot, Value kbStage, Value m0, Value n0) {
      auto v4 = VectorType::get({4}, i32);
      Value c = k.add(fpCc, k.mul(q, k.c32(2)));
      Value slice = k.add(k.c32(offH), k.mul(slot, k.c32(sliceBytes)));
      // (A loop over the row groups, not unrolled: one group's registers at
      // a time beside the accumulator.)
      auto groups = scf::ForOp::create(b, loc, k.c32(0), k.c32((BM + BN) / 128), k.c32(1));
      OpBuilder::InsertionGuard gl(b);
      b.setInsertionPointToStart(groups.getBody());
      Value slotRow = k.add(fpRow, k.mul(groups.getInductionVar(), k.c32(128)));
      Value onB = k.cmp(P::uge, slotRow, k.c32(BM));
      Value row = k.select(onB, k.sub(slotRow, k.c32(BM)), slotRow);
      Value src = k.add(k.select(onB, k.add(k.c32(offB), k.mul(s, k.c32(bBytes))),
                                 k.mul(s, k.c32(aBytes))),
                        k.add(k.mul(row, k.c32(128)), k.mul(k.bxor(c, fpR8), k.c32(16))));
      Value w = k.load(v4, at(src), 16);
      // The row's e4m3 codes of blocks 16 kb + 2 c, + 1 (rows past M or N
      // read the last; blocks past K are 0x38 = 1.0: their codes are
      // zero-filled).
      Value gRow = k.umin(k.add(k.select(onB, n0, m0), row),
                          k.sub(k.select(onB, N, M), k.c32(1)));
      Value cols = k.divu(K, k.c32(16));
      Value sPtr = LLVM::SelectOp::create(b, loc, onB, sb, sa);
      Value blk0 = k.add(k.mul(kbStage, k.c32(16)), k.mul(c, k.c32(2)));
      // Block blk0 + e's offset in the row's scales (blk0 is even). Row-major:
      // the row's offset plus the block (clamped to the last). Blocked 128x4:
      // the row's part plus blk0's column part (clamped to the padded row's
      // last pair), + e: the pair shares a 4-byte word (computed once; 2%
      // faster than a full offset a byte on an H200). Blocked NVFP4 stays
      // 24-27% slower than row-major (docs/results/scaled-gemm.md): a row's
      // 16 scales of a stage lie in four 128x4 tiles, 512 bytes apart, not
      // in one 16-byte run. Where A's and B's layouts differ, the row
      // group's side picks.
      Value cols64 = k.zext(cols, i64), gRow64 = k.zext(gRow, i64);
      auto offsetOf = [&](int64_t e, bool blocked) {
        if (!blocked)
          return qk::scaleOffset(
              k, gRow64, k.zext(k.umin(k.add(blk0, k.c32(e)), k.sub(cols, k.c32(1))), i64), cols64,
              false);
        Value lastPair = k.sub(k.band(k.add(cols, k.c32(3)), k.c32(~3)), k.c32(2));
        Value pair = qk::scaleOffset(k, k.c64(0), k.zext(k.umin(blk0, lastPair), i64), cols64,
                                     true);
        return k.add(k.add(qk::scaleOffset(k, gRow64, k.c64(0), cols64, true), pair), k.c64(e));
      };
      auto offset = [&](int64_t e) {
        if (plan.blockedA == plan.blockedB)
          return offsetOf(e, plan.blockedA);
        return k.select(onB, offsetOf(e, plan.blockedB), offsetOf(e, plan.blockedA));
      };
      Value f[2][2];
      for (int64_t e = 0; e < 2; ++e) {
        Value blk = k.add(blk0, k.c32(e));
        Value byte = k.zext(k.load(k.i8(), k.gep(sPtr, k.i8(), offset(e)), 1), i32);
        Value code = k.select(k.cmp(P::ult, blk, cols), byte, k.c32(0x38));
        Value pr = k.ptx(i32x2, progScale, "=r,=r,r", {code});
        f[e][0] = LLVM::ExtractValueOp::create(b, loc, pr, 0);
        f[e][1] = LLVM::ExtractValueOp::create(b, loc, pr, 1);
      }
      Value dst = k.add(slice, k.add(k.select(onB, k.c32(BM * 128), k.c32(0)),
                                     k.mul(row, k.c32(128))));
      for (int64_t x = 0; x < 4; ++x) {
        Value pr = k.ptx(i32x4, progFp4, "=r,=r,=r,=r,r,r,r",
                         {k.extract(w, x), f[x / 2][0], f[x / 2][1]});
        SmallVector<Value> out;
        for (int64_t o = 0; o < 4; ++o)
          out.push_back(LLVM::ExtractValueOp::create(b, loc, pr, o));
        Value chunk = k.bxor(k.add(k.mul(fpCc, k.c32(4)), k.c32(x)), fpR8);
        k.store(k.vector(out), at(k.add(dst, k.mul(chunk, k.c32(16)))), 16);
      }
    };
    auto convertSlice = [&](Value s, Value half, Value slot, Value kbStage, Value m0, Value n0) {
      if (plan.nvfp4)
        return convertSliceFp4(s, half, slot, kbStage, m0, n0);
      auto v4 = VectorType::get({4}, i32), v2 = VectorType::get({2}, i32);
      Value c = k.add(cvCc, k.mul(half, k.c32(4)));
      Value j = k.add(k.divu(cvCc, k.c32(2)), k.mul(half, k.c32(2)));
      Value slice = k.add(k.c32(offH), k.mul(slot, k.c32(sliceBytes)));
      Value first = k.add(k.mul(cvCc, k.c32(2)), cvSwap), second = k.bxor(first, k.c32(1));
      // (A loop over A's row groups, then one over B's, not unrolled: one
      // group's registers at a time beside the accumulator.)
      for (bool onB : {false, true}) {
        auto groups = scf::ForOp::create(b, loc, k.c32(0), k.c32((onB ? BN : BM) / 64), k.c32(1));
        OpBuilder::InsertionGuard gl(b);
        b.setInsertionPointToStart(groups.getBody());
        Value row = k.add(cvRow, k.mul(groups.getInductionVar(), k.c32(64)));
        Value src =
            k.add(onB ? k.add(k.c32(offB), k.mul(s, k.c32(bBytes))) : k.mul(s, k.c32(aBytes)),
                  k.add(k.mul(row, k.c32(128)), k.mul(k.bxor(c, cvR8), k.c32(16))));
        Value w = k.load(v4, at(src), 16);
        Value f = k.load(v2, factorsAt(s, j, onB ? k.add(row, k.c32(BM)) : row), 8);
        Value f1 = k.extract(f, 0), f2 = k.extract(f, 1);
        SmallVector<Value> out;
        for (int64_t x = 0; x < 4; ++x) {
          Value word = k.select(cvSwapped, k.extract(w, x ^ 2), k.extract(w, x));
          Value pr = k.ptx(i32x2, onB ? progB : progA, "=r,=r,r,r,r", {word, f1, f2});
          out.push_back(LLVM::ExtractValueOp::create(b, loc, pr, 0));
          out.push_back(LLVM::ExtractValueOp::create(b, loc, pr, 1));
        }
        Value dst = k.add(slice, k.add(k.c32(onB ? BM * 128 : 0), k.mul(row, k.c32(128))));
        k.store(k.vector({out[0], out[1], out[2], out[3]}),
                at(k.add(dst, k.mul(k.bxor(first, cvR8), k.c32(16)))), 16);
        k.store(k.vector({out[4], out[5], out[6], out[7]}),
                at(k.add(dst, k.mul(k.bxor(second, cvR8), k.c32(16)))), 16);
      }
    };
    // The conversion's stores made visible to wgmma (the async proxy), then
    // a barrier of both consumer warpgroups (named barrier 3).
    auto sliceBarrier = [&] {
      NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                                 NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      NVVM::BarrierOp::create(b, loc, Type(), k.c32(3), k.c32(256), NVVM::BarrierReductionAttr(),
                              Value());
    };
    auto wgmmaType = [&](bool e5m2) {
      return NVVM::WGMMATypesAttr::get(ctx, e5m2 ? NVVM::WGMMATypes::e5m2 : NVVM::WGMMATypes::e4m3);
    };
    Value aRows = k.add(baseAddr, k.mul(cw, k.c32(64 * kScaledGemmStageK)));
    Value bRows = k.add(baseAddr, k.c32(offB));

    forTiles([&](const Unit &unit, Value it0) {
      Value m0 = unit.m0, n0 = unit.n0;
      // 128x128 B scales: column group c (tile columns 8c..8c+7) takes the
      // second block the tile spans when n0 % 128 + 8c reaches 128.
      SmallVector<Value> secondBlock;
      if (plan.blockB == kScaledGemmStageK) {
        Value nMod = k.remu(n0, k.c32(kScaledGemmStageK));
        for (int64_t c = 0; c < NA / 4; ++c)
          secondBlock.push_back(k.cmp(P::uge, k.add(nMod, k.c32(8 * c)), k.c32(kScaledGemmStageK)));
      }
      SmallVector<Value> init = {it0};
      init.append(NA, k.cf32(0.0f));
      // The bf16 form: two slices a K block (NVFP4: four); slice n of the unit is
      // written by convertSlice(n) and read by the wgmmas of iteration n.
      const int64_t SPS = plan.nvfp4 ? 4 : 2; // slices a stage
      Value sliceCount = k.mul(k.sub(unit.kb1, unit.kb0), k.c32(SPS));
      if (plan.bf16Mma) {
        // Slice 0 before the loop (its stage's half 0).
        when(k, k.cmp(P::ugt, sliceCount, k.c32(0)), [&] {
          wait(fullBar(stageOf(it0)), parityOf(it0));
          convertSlice(stageOf(it0), k.c32(0), k.c32(0), unit.kb0, m0, n0);
        });
        sliceBarrier();
      }
      auto kl = plan.bf16Mma
                    ? scf::ForOp::create(b, loc, k.c32(0), sliceCount, k.c32(1), init)
                    : scf::ForOp::create(b, loc, unit.kb0, unit.kb1, k.c32(1), init);
      if (plan.bf16Mma) {
        // Iteration n: four bf16 wgmma m64nBNk16 on slice n accumulating
        // into the fp32 accumulator (no promotion: the scales are in the
        // operands); while they run, slice n + 1 is converted into the other
        // slice buffer (the stage's full barrier waited at its half 0, its
        // empty one arrived at after its half 1, one arrival a warp); then
        // the wgmmas' end, fence.proxy.async for the conversion's stores and
        // a barrier of both consumer warpgroups (slice n + 1 is whole, and
        // slice n, which n + 2 overwrites, is read).
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(kl.getBody());
        auto args = kl.getRegionIterArgs();
        Value n = kl.getInductionVar(), it = args[0];
        Value slice = k.add(baseAddr, k.add(k.c32(offH), k.mul(k.band(n, k.c32(1)),
                                                               k.c32(sliceBytes))));
        Value aSlice = k.add(slice, k.mul(cw, k.c32(64 * 128)));
        Value bSlice = k.add(slice, k.c32(BM * 128));
        Value acc = LLVM::UndefOp::create(b, loc, accStruct);
        for (int64_t i = 0; i < NA; ++i)
          acc = LLVM::InsertValueOp::create(b, loc, acc, args[1 + i], i);
        auto bf16 = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::bf16);
        NVVM::WgmmaFenceAlignedOp::create(b, loc);
        for (int64_t kk = 0; kk < 4; ++kk) {
          Value da = wgp::smemDescriptor128B(k, k.add(aSlice, k.c32(kk * 32)));
          Value db = wgp::smemDescriptor128B(k, k.add(bSlice, k.c32(kk * 32)));
          acc = NVVM::WgmmaMmaAsyncOp::create(
              b, loc, accStruct, acc, da, db, NVVM::MMAShapeAttr::get(ctx, 64, BN, 16), bf16, bf16,
              NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
              NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
              NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
              NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
              NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
              NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), NVVM::MMAIntOverflowAttr());
        }
        NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
        // Slice n + 1, if any.
        Value m = k.add(n, k.c32(1));
        auto more = scf::IfOp::create(b, loc, TypeRange{i32}, k.cmp(P::ult, m, sliceCount),
                                      /*withElse=*/true);
        {
          OpBuilder::InsertionGuard g3(b);
          b.setInsertionPointToStart(&more.getThenRegion().front());
          Value q = k.band(m, k.c32(SPS - 1)), s = stageOf(it);
          when(k, k.cmp(P::eq, q, k.c32(0)), [&] { wait(fullBar(s), parityOf(it)); });
          convertSlice(s, q, k.band(m, k.c32(1)),
                       k.add(unit.kb0, k.divu(m, k.c32(SPS))), m0, n0);
          Value done = k.cmp(P::eq, q, k.c32(SPS - 1));
          when(k, k.land(done, k.cmp(P::eq, lane, k.c32(0))), [&] { wgp::arrive(k, emptyBar(s)); });
          scf::YieldOp::create(b, loc, ValueRange{k.select(done, advance(it), it)});
          b.setInsertionPointToStart(&more.getElseRegion().front());
          scf::YieldOp::create(b, loc, ValueRange{it});
        }
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
        SmallVector<Value> next = {more.getResult(0)};
        for (int64_t i = 0; i < NA; ++i) {
          Value v = LLVM::ExtractValueOp::create(b, loc, acc, i);
          next.push_back(k.ptx(k.f32(), "", "=f,0", {v}, /*sideEffects=*/true));
        }
        sliceBarrier();
        scf::YieldOp::create(b, loc, next);
      } else {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(kl.getBody());
        auto args = kl.getRegionIterArgs();
        Value it = args[0];
        Value s = stageOf(it);
        wait(fullBar(s), parityOf(it));
        Value aStage = k.add(aRows, k.mul(s, k.c32(aBytes)));
        Value bStage = k.add(bRows, k.mul(s, k.c32(bBytes)));
        // wgmma m64nBNk32 of the stage's kk-th 32 K into `part` (its sum
        // overwritten unless `accumulate`).
        auto mma = [&](Value part, int64_t kk, bool accumulate) -> Value {
          Value da = wgp::smemDescriptor128B(k, k.add(aStage, k.c32(kk * 32)));
          Value db = wgp::smemDescriptor128B(k, k.add(bStage, k.c32(kk * 32)));
          return NVVM::WgmmaMmaAsyncOp::create(
              b, loc, accStruct, part, da, db, NVVM::MMAShapeAttr::get(ctx, 64, BN, 32),
              wgmmaType(plan.e5m2A), wgmmaType(plan.e5m2B),
              NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
              NVVM::WGMMAScaleOutAttr::get(ctx, accumulate ? NVVM::WGMMAScaleOut::one
                                                           : NVVM::WGMMAScaleOut::zero),
              NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
              NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
              NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
              NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), NVVM::MMAIntOverflowAttr());
        };
        SmallVector<Value> next = {advance(it)};
        if (plan.mx) {
          // MX: each k32 has a partial sum of its own (scale-d 0), promoted
          // as acc += partial * (sa[row, j] * sb[col, j]) with the slot's
          // j-th scale set. Two partial sums in flight: wgmma j + 1 is
          // issued before the wait for j (wait_group 1), so that the tensor
          // core runs while j is promoted; a partial's registers are written
          // again only after a wgmma.fence (they were read since).
          SmallVector<Value> acc(args.begin() + 1, args.end());
          const int64_t steps = kScaledGemmStageK / 32;
          auto issue = [&](int64_t kk) {
            NVVM::WgmmaFenceAlignedOp::create(b, loc);
            Value p = mma(LLVM::UndefOp::create(b, loc, accStruct), kk, false);
            NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
            return p;
          };
          auto promote = [&](Value part, int64_t kk) {
            Value set = k.c32(kk * (BM + BN));
            Value rowScale[2];
            for (int64_t h = 0; h < 2; ++h)
              rowScale[h] =
                  k.load(k.f32(), scaleAt(s, k.add(set, k.add(rowInTile, k.c32(8 * h)))), 4);
            for (int64_t c = 0; c < NA / 4; ++c) {
              // The group's two columns, one 8-byte load.
              Value pair =
                  k.load(VectorType::get({2}, k.f32()),
                         scaleAt(s, k.add(set, k.add(k.c32(BM + 8 * c), k.mul(q, k.c32(2))))), 8);
              Value colScale[2] = {k.extract(pair, 0), k.extract(pair, 1)};
              for (int64_t h = 0; h < 2; ++h)
                for (int64_t e = 0; e < 2; ++e) {
                  int64_t i = 4 * c + 2 * h + e;
                  Value p = LLVM::ExtractValueOp::create(b, loc, part, i);
                  p = k.ptx(k.f32(), "", "=f,0", {p}, /*sideEffects=*/true);
                  acc[i] = LLVM::FMAOp::create(b, loc, p, k.fmul(rowScale[h], colScale[e]), acc[i])
                               .getResult();
                }
            }
          };
          Value parts[2];
          parts[0] = issue(0);
          for (int64_t kk = 0; kk < steps; ++kk) {
            if (kk + 1 < steps)
              parts[(kk + 1) % 2] = issue(kk + 1);
            NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(kk + 1 < steps ? 1 : 0));
            promote(parts[kk % 2], kk);
          }
          next.append(acc);
        } else {
          // The stage's row scales and 128x128 column-block scales, read
          // before the wgmmas so that the promotion does not wait for them
          // (1x128 B scales: the column scales are read in the promotion).
          Value saRow[2] = {}, sbBlock[2] = {};
          if (plan.blockA)
            for (int64_t h = 0; h < 2; ++h)
              saRow[h] = k.load(k.f32(), scaleAt(s, k.add(rowInTile, k.c32(8 * h))), 4);
          if (plan.blockB == kScaledGemmStageK)
            for (int64_t j = 0; j < 2; ++j)
              sbBlock[j] = k.load(k.f32(), scaleAt(s, k.c32(BM + j)), 4);
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
          Value part = LLVM::UndefOp::create(b, loc, accStruct);
          for (int64_t kk = 0; kk < kScaledGemmStageK / 32; ++kk)
            part = mma(part, kk, kk != 0);
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
          // Promotion: acc += partial (* sa[row] * sb[col] with block
          // scales). Each partial passes through an empty asm after the wait
          // so that no read of a wgmma result moves above it (the .cu's
          // fenceRegs). Fragment element i = 4c + 2h + e sits at row 8h and
          // column 8c + 2q + e of the thread's.
          Value blockScale[2][2] = {}; // [h][first/second column block]
          if (plan.blockB == kScaledGemmStageK)
            for (int64_t h = 0; h < 2; ++h)
              for (int64_t j = 0; j < 2; ++j)
                blockScale[h][j] = plan.blockA ? k.fmul(saRow[h], sbBlock[j]) : sbBlock[j];
          Value colScale[2] = {}, groupScale;
          for (int64_t i = 0; i < NA; ++i) {
            int64_t c = i / 4, h = (i / 2) % 2, e = i % 2;
            Value p = LLVM::ExtractValueOp::create(b, loc, part, i);
            p = k.ptx(k.f32(), "", "=f,0", {p}, /*sideEffects=*/true);
            Value factor;
            if (plan.blockB == kScaledGemmStageK) {
              if (e == 0) // one per (column group, row half)
                groupScale = k.select(secondBlock[c], blockScale[h][1], blockScale[h][0]);
              factor = groupScale;
            } else if (plan.blockB == 1) {
              if (i % 4 == 0) { // the group's two columns, one 8-byte load
                Value pair = k.load(VectorType::get({2}, k.f32()),
                                    scaleAt(s, k.add(k.c32(BM + 8 * c), k.mul(q, k.c32(2)))), 8);
                colScale[0] = k.extract(pair, 0);
                colScale[1] = k.extract(pair, 1);
              }
              factor = plan.blockA ? k.fmul(saRow[h], colScale[e]) : colScale[e];
            } else if (plan.blockA) {
              factor = saRow[h];
            }
            next.push_back(factor ? LLVM::FMAOp::create(b, loc, p, factor, args[1 + i]).getResult()
                                  : k.fadd(args[1 + i], p));
          }
        }
        // The stage is free again: one arrival per consumer warp.
        when(k, k.cmp(P::eq, lane, k.c32(0)), [&] {
          wgp::arrive(k, emptyBar(s));
        });
        scf::YieldOp::create(b, loc, next);
      }
      SmallVector<Value> partial(kl.getResults().begin() + 1, kl.getResults().end());

      auto epilogue = [&](ArrayRef<Value> acc) {
        // Epilogue: thread (warp, lane = 4 gq + q) holds acc[4c + 2h + e] at
        // row 16 warp + gq + 8h, column 8c + 2q + e of its 64 rows.
        Value one = k.cf32(1.0f);
        Value tensorScale = one;
        if (!plan.rowA && !plan.blockA && !plan.mx && !plan.nvfp4)
          tensorScale = k.load(k.f32(), sa, 4);
        if (!plan.rowB && !plan.blockB && !plan.mx && !plan.nvfp4)
          tensorScale = k.fmul(tensorScale, k.load(k.f32(), sb, 4));
        // NVFP4's f32 tensor scales.
        if (gaPtr)
          tensorScale = k.fmul(tensorScale, k.load(k.f32(), gaPtr, 4));
        if (gbPtr)
          tensorScale = k.fmul(tensorScale, k.load(k.f32(), gbPtr, 4));
        Value lastRow = k.sub(M, k.c32(1)), lastCol = k.sub(N, k.c32(1));
        Value row[2], rowScale[2], rowOk[2];
        for (int64_t h = 0; h < 2; ++h) {
          row[h] = k.add(m0, k.add(rowInTile, k.c32(8 * h)));
          rowScale[h] = tensorScale;
          if (plan.rowA)
            rowScale[h] = k.fmul(rowScale[h],
                                 k.load(k.f32(), k.gep(sa, k.f32(), k.umin(row[h], lastRow)), 4));
          rowOk[h] = k.cmp(P::ult, row[h], unit.rowEnd);
        }
        // Grouped: B's row scales of the tile's group (the zero tiles',
        // which are not used, of the last group).
        Value sbRows = sb;
        if (plan.grouped)
          sbRows = k.gep(sb, k.f32(),
                         k.mul(k.zext(k.umin(unit.group, k.sub(G, k.c32(1))), i64),
                               k.zext(N, i64)));
        auto biasAt = [&](Value cc) {
          unsigned bsize = plan.bias.getIntOrFloatBitWidth() / 8;
          Value v = k.load(plan.bias, k.gep(biasPtr, plan.bias, k.umin(cc, lastCol)), bsize);
          return plan.bias.isF32() ? v : arith::ExtFOp::create(b, loc, k.f32(), v).getResult();
        };
        // Column group c's four results (index 2h + e), scaled and biased in
        // f32. A group's column scales and bias are read once and used at
        // once (held across a row's 24 groups they would spill).
        auto groupValues = [&](int64_t c) {
          Value col = k.add(n0, k.add(k.c32(8 * c), k.mul(q, k.c32(2))));
          Value col1 = k.add(col, k.c32(1));
          Value colScale0, colScale1, bias0, bias1;
          if (plan.rowB) {
            colScale0 = k.load(k.f32(), k.gep(sbRows, k.f32(), k.umin(col, lastCol)), 4);
            colScale1 = k.load(k.f32(), k.gep(sbRows, k.f32(), k.umin(col1, lastCol)), 4);
          }
          if (plan.bias) {
            bias0 = biasAt(col);
            bias1 = biasAt(col1);
          }
          std::array<Value, 4> v;
          for (int64_t h = 0; h < 2; ++h) {
            Value s0 = rowScale[h], s1 = rowScale[h];
            if (plan.rowB) {
              s0 = k.fmul(s0, colScale0);
              s1 = k.fmul(s1, colScale1);
            }
            v[2 * h] = k.fmul(acc[4 * c + 2 * h], s0);
            v[2 * h + 1] = k.fmul(acc[4 * c + 2 * h + 1], s1);
            if (plan.bias) { // in f32, after the scales, before the cast
              v[2 * h] = k.fadd(v[2 * h], bias0);
              v[2 * h + 1] = k.fadd(v[2 * h + 1], bias1);
            }
          }
          // (Zeros whatever the scales: an inf scale times 0 is NaN.)
          if (plan.grouped)
            for (Value &x : v)
              x = k.select(unit.zeros, k.cf32(0.0f), x);
          return std::make_pair(col, v);
        };
        const unsigned esize = plan.outBytes();

        // Masked stores straight from the fragment: a pair of columns in one
        // store where N is even, else one by one.
        auto maskedStore = [&] {
          Value nEven = k.cmp(P::eq, k.band(N, k.c32(1)), k.c32(0));
          auto idx64 = [&](Value r, Value c) {
            return k.add(k.mul(k.zext(r, i64), k.zext(N, i64)), k.zext(c, i64));
          };
          for (int64_t c = 0; c < NA / 4; ++c) {
            auto [col, v] = groupValues(c);
            Value col1 = k.add(col, k.c32(1));
            Value pair = k.land(k.cmp(P::ult, col1, N), nEven);
            for (int64_t h = 0; h < 2; ++h) {
              Value v0 = v[2 * h], v1 = v[2 * h + 1];
              if (!plan.out.isF32()) {
                v0 = arith::TruncFOp::create(b, loc, plan.out, v0);
                v1 = arith::TruncFOp::create(b, loc, plan.out, v1);
              }
              Value dst = k.gep(cOut, plan.out, idx64(row[h], col));
              when(k, k.land(rowOk[h], pair), [&] { k.store(k.vector({v0, v1}), dst, 2 * esize); });
              Value single = k.land(rowOk[h], k.bxor(pair, k.cInt(b.getI1Type(), 1)));
              when(k, k.land(single, k.cmp(P::ult, col, N)), [&] { k.store(v0, dst, esize); });
              when(k, k.land(single, k.cmp(P::ult, col1, N)),
                   [&] { k.store(v1, k.gep(cOut, plan.out, idx64(row[h], col1)), esize); });
            }
          }
        };
        if (!plan.tmaStore) {
          maskedStore();
          return;
        }
        // Grouped: the TMA store (clipped at M and N only) for a warpgroup
        // whose 64 rows are all its group's (or whose group ends at M: the
        // last, and the zero tiles past it), else the masked stores.
        std::optional<OpBuilder::InsertionGuard> inTma;
        if (plan.grouped) {
          Value wgEnd = k.add(m0, k.mul(k.add(cw, k.c32(1)), k.c32(kScaledGemmStoreRows)));
          Value fits = k.bor(k.cmp(P::ule, wgEnd, unit.rowEnd), k.cmp(P::uge, unit.rowEnd, M));
          auto branch = scf::IfOp::create(b, loc, fits, /*withElse=*/true);
          inTma.emplace(b); // (back after the scf.if at the epilogue's end)
          b.setInsertionPointToStart(&branch.getElseRegion().front());
          maskedStore();
          b.setInsertionPointToStart(&branch.getThenRegion().front());
        }

        // TMA store: the warpgroup's 64 rows go through its half of the
        // staging tile, boxes of 64 rows x 128 bytes in the 128B-swizzle
        // layout the tensor map expects (16-byte chunk j of row r at chunk
        // j ^ (r % 8)), then thread 0 of the warpgroup stores the boxes (TMA
        // clips them at M and N).
        const int64_t boxCols = plan.storeBoxCols(), boxBytes = kScaledGemmStoreRows * 128;
        const int64_t boxes = BN / boxCols;
        Value stagingWg = k.add(k.c32(offC), k.mul(cw, k.c32(kScaledGemmStoreRows * BN * esize)));
        Value issuer = k.cmp(P::eq, t, k.c32(0));
        // The previous tile's stores must have read the staging tile.
        when(k, issuer, [&] { NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr()); });
        wgBarrier();
        Value r8 = k.remu(lane, k.c32(8));
        if (plan.out.isF32()) {
          // st.shared.v2.f32 of each row's column pair: row 16 warp + gq + 8h,
          // chunk 2 (c % 4) + q / 2 of box c / 4, 8 bytes in for odd q.
          Value q2 = k.divu(q, k.c32(2)), qOdd = k.mul(k.remu(q, k.c32(2)), k.c32(8));
          for (int64_t c = 0; c < NA / 4; ++c) {
            auto v = groupValues(c).second;
            for (int64_t h = 0; h < 2; ++h) {
              Value lr = k.add(k.mul(warp, k.c32(16)), k.add(gq, k.c32(8 * h)));
              Value chunk = k.bxor(k.add(k.c32(2 * (c % 4)), q2), gq);
              Value off = k.add(k.add(stagingWg, k.c32((c / 4) * boxBytes)),
                                k.add(k.add(k.mul(lr, k.c32(128)), k.mul(chunk, k.c32(16))), qOdd));
              k.store(k.vector({v[2 * h], v[2 * h + 1]}), at(off), 8);
            }
          }
        } else {
          // stmatrix m8n8.x4 of column groups c, c + 1: matrix j = 2 jc + h is
          // rows 8h..8h+7 of the warp's 16, columns 8 (c + jc); its registers
          // are the fragment's bf16 pairs, and lane l gives the address of
          // row l % 8 of matrix l / 8: chunk (c % 8) + jc of box c / 8.
          Value jm = k.divu(lane, k.c32(8));
          Value lr =
              k.add(k.mul(warp, k.c32(16)), k.add(k.mul(k.remu(jm, k.c32(2)), k.c32(8)), r8));
          Value jc = k.divu(jm, k.c32(2));
          Value rowBase = k.add(stagingWg, k.mul(lr, k.c32(128)));
          auto pack = [&](Value lo, Value hi) {
            Value v2 = arith::TruncFOp::create(b, loc, k.vec(2, plan.out), k.vector({lo, hi}));
            return k.bitcast(v2, i32);
          };
          for (int64_t c = 0; c + 1 < NA / 4; c += 2) {
            auto v0 = groupValues(c).second;
            auto v1 = groupValues(c + 1).second;
            Value chunk = k.bxor(k.add(k.c32(c % 8), jc), r8);
            Value off = k.add(rowBase, k.add(k.c32((c / 8) * boxBytes), k.mul(chunk, k.c32(16))));
            NVVM::StMatrixOp::create(b, loc, at(off),
                                     ValueRange{pack(v0[0], v0[1]), pack(v0[2], v0[3]),
                                                pack(v1[0], v1[1]), pack(v1[2], v1[3])},
                                     NVVM::MMALayout::row,
                                     NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
                                     NVVM::LdStMatrixEltType::B16);
          }
        }
        // The generic-proxy writes, visible to the TMA (async proxy) store.
        NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                                   NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
        wgBarrier();
        when(k, issuer, [&] {
          Value r0 = k.add(m0, k.mul(cw, k.c32(kScaledGemmStoreRows)));
          when(k, k.cmp(P::ult, r0, M), [&] {
            for (int64_t j = 0; j < boxes; ++j) {
              Value c0 = k.add(n0, k.c32(j * boxCols));
              when(k, k.cmp(P::ult, c0, N), [&] {
                NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                    b, loc, tmC, at(k.add(stagingWg, k.c32(j * boxBytes))), ValueRange{c0, r0},
                    Value(), NVVM::TMAStoreMode::TILE, Value());
              });
            }
          });
          NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
        });
      };

      if (plan.tile.maxSplit <= 1) {
        epilogue(partial);
        return kl.getResult(0);
      }
      // Split-K: with several units a tile, the tile's units meet in the
      // workspace (wgp::splitKMeet: slot tile * splits + split, a counter a
      // warpgroup a tile) and the last runs the epilogue on the sums, added
      // in split order (the result does not depend on which unit came last).
      Value slot0 = k.mul(unit.tile, splits);
      auto [acc, last] = wgp::splitKMeet(
          k, partial, ws, k.gep(cnt, k.i32(), k.add(k.mul(unit.tile, k.c32(2)), cw)), slot0,
          k.add(slot0, unit.split), splits, k.add(k.mul(cw, k.c32(128)), t), t,
          at(k.add(k.c32(offFlag), k.mul(cw, k.c32(4)))), wgBarrier);
      when(k, last, [&] { epilogue(acc); });
      return kl.getResult(0);
    });
    // The last tile's stores must be done with the staging tile before the
    // CTA's shared memory goes away.
    if (plan.tmaStore)
      when(k, k.cmp(P::eq, t, k.c32(0)),
           [&] { NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr()); });
  }
  gpu::ReturnOp::create(b, loc);
  return desc;
}
