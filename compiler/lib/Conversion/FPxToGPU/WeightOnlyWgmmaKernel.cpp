//===- WeightOnlyWgmmaKernel.cpp - weight-only prefill GEMM (sm_90a) -----===//
//
// y = x * dequantize(w)^T for many tokens, the Machete / FP6-LLM-on-Hopper
// form with the roles swapped: the weight is wgmma's A operand, from
// registers, and the tokens are its N, so the accumulator is a tile of y^T
// (128 channels x `tokens`).
//
// - Scheduler: persistent CTAs walk (token tile, channel tile) in a grouped
//   order (8 token tiles at a time, every channel tile inside), producer and
//   consumers in the same order so that their ring counters agree. With few
//   tiles (at most kWgmmaSplitTiles) each tile's K stages are split over up
//   to tile.maxSplit units, as many as the grid holds; the units' fp32
//   partial sums meet in a workspace (wgp::splitKMeet) and the last unit of
//   a tile runs the epilogue.
// - x pipeline: one producer thread waits on a stage's `empty` mbarrier,
//   arms its `full` one and issues one TMA load of 64 K x `tokens` rows of x
//   (128B swizzle; TMA zero-fills the tokens past M).
// - Weights: the same producer thread copies the stage's 128 channels x 64 K
//   of packed codes (8 row tiles of mma_tiles, each one contiguous 1 KiB,
//   4-bit: 512 bytes, 6-/5-bit: 768 / 640, the tile's low-nibble plane and
//   then its high plane) with bulk copies (cp.async.bulk) onto the same
//   `full` barrier, into a weight ring beside the x ring; each lane then
//   reads its 16 bytes a 32-block (narrower codes: a 64-block's low nibbles;
//   6-/5-bit then its 8 or 4 high-plane bytes) from shared memory
//   (conflict-free: consecutive lanes, consecutive 16 / 8 / 4 bytes). An earlier form loaded them from global memory
//   into registers two stages ahead; the loop-carried registers rotated
//   through moves, and the move of the newest load waited for it, so each
//   stage paid the full load latency (SASS: IMAD.MOV of the LDG's
//   registers at the loop head; 1400 cycles a stage against 512 of wgmma).
//   The block scales (2 or 4 bytes a row a stage, rows K / 32 or K / 16 bytes
//   apart) are loaded by the consumers through L1 at the stage, with an L1
//   prefetch kScalePrefetch stages ahead (no register carried).
// - Dequant prologue: mma_tiles (docs/formats.md) gives lane t of a 32-block
//   k = 8t .. 8t + 7, permuted for mma.sync so that x reads as 16-byte rows.
//   wgmma reads its B operand in plain K order from shared memory (TMA cannot
//   permute 4-byte pairs), so the quad's four lanes transpose their words
//   first (two shfl.bfly rounds): after it, lane t's word i holds the pairs
//   at k = 8i + 2t of rows g, g + 8, which is wgmma's (and mma.sync's)
//   per-warp A fragment of k16 steps 0, 1 in natural order. The words then
//   decode with the decode kernel's helpers (WeightDecode.h) unchanged.
//   4-bit codes (MXFP4, NVFP4; one 16-byte load a lane is 64 K) trade
//   16-bit pieces the same way (transposeNibbles) and come out in the 4-bit
//   register layout the decode kernel reads. 6- and 5-bit codes (MXFP6,
//   FP6-LLM's e3m2 and fp5 e2m2: mma_tiles' plane split) trade their low
//   nibbles as 4-bit codes and their high-plane words as a quad transpose
//   of 2 hb-bit groups (transposeHighPlane), then reassemble and decode
//   with the decode kernel's decodeStep (mmaTileDecodeShifts).
// - Formats: 8-, 6- and 5-bit codes with channel scales (bf16 or f16 x),
//   MXFP8, MXFP6 and MXFP4 with bf16 x, NVFP4 (weightOnlyWgmmaTakes).
// - Block scales multiply the decoded bf16/f16 pairs, which is exact: MX's
//   2^(e-127) with bf16 activations, after the pair's own rebias (MX with
//   f16 keeps the decode kernels: f16's range cannot hold it; a weight below
//   bf16's normal range, |w| < 2^-126, keeps only the bits a bf16 subnormal
//   has), NVFP4's ue4m3 (e2m1 x ue4m3 has at most 6
//   significant bits inside both types' ranges; one 16-block is one k16
//   step); the NVFP4 tensor scale and the channel scales go on the f32
//   result. So no partial sums are promoted.
// - MMA loop: a stage is four wgmma m64nTk16 (A: registers, B: the stage's
//   descriptor + 32 bytes a k16 step), committed as one group; the loop waits
//   for it (wait_group 0: the next decode may reuse its A registers, which
//   the wgmmas read asynchronously) and frees the stage (one arrival per
//   consumer warp). Both warpgroups work on the same stage, so a stage
//   costs one warpgroup's decode-then-wgmma chain (about 1000 cycles on an
//   H200 at M = 128-256; bench/gemm/experiments/NOTES.md, "what bounds a
//   stage").
// - Epilogue: the channel's f32 scale (a row of the y^T tile) and the bias
//   in f32, cast, stored to y[token][channel], masked at M.
//
// MLIR 22's nvvm.wgmma.mma_async takes shared-memory descriptors only (llvm
// issue 133733), so the register-A wgmma is inline PTX; so is the
// wait_group, tied to the accumulators so that no read of them moves above it.
//
//===----------------------------------------------------------------------===//
#include "MatmulKernels.h"
#include "WeightDecode.h"
#include "WgmmaPipeline.h"

#include "fpx/Numerics/MmaTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace fpx;
using namespace fpx::wo;
using P = arith::CmpIPredicate;

namespace {

constexpr int64_t kProducerRegs = 40; // 128 x 40 + 256 x 232 = 64512 registers
constexpr int64_t kConsumerRegs = 232;
constexpr int64_t kScalePrefetch = 8; // stages ahead the block scales are prefetched to L1
constexpr int64_t kRowTiles = kWgmmaChannels / 16; // mma_tiles row tiles a CTA tile

/// Bytes of packed codes a stage: 128 channels x 64 K.
int64_t weightStageBytes(const WeightOnlyPlan &plan) {
  return kWgmmaChannels * kWgmmaStageK * plan.elem.bits() / 8;
}

/// A lane's four words of a 32-block (mma_tiles: word i = rows g, g + 8 at
/// k = 8t + 2i) transposed within its quad: word i of the result is word t
/// of lane 4g + i, the pairs at k = 8i + 2t. `b1`, `b0`: bits 1 and 0 of t.
SmallVector<Value> transposeQuad(KernelBuilder &k, ArrayRef<Value> w, Value b1, Value b0) {
  // Round 1 (lanes t, t ^ 2): the off-diagonal 2x2 blocks trade places.
  SmallVector<Value> y(4);
  for (int i = 0; i < 2; ++i) {
    Value recv = k.shuffleXor(k.select(b1, w[i], w[2 + i]), 2);
    y[i] = k.select(b1, recv, w[i]);
    y[2 + i] = k.select(b1, w[2 + i], recv);
  }
  // Round 2 (lanes t, t ^ 1): each 2x2 block transposed.
  SmallVector<Value> z(4);
  for (int c = 0; c < 2; ++c) {
    Value recv = k.shuffleXor(k.select(b0, y[2 * c], y[2 * c + 1]), 1);
    z[2 * c] = k.select(b0, recv, y[2 * c]);
    z[2 * c + 1] = k.select(b0, y[2 * c + 1], recv);
  }
  return z;
}

/// A lane's two words of a 32-block of 4-bit codes (mma_tiles: word s holds
/// its registers a0..a3 of step s, rows g, g + 8 at k = 8t + 4s + {0..3}, as
/// nibble pairs) in natural K order: the words of steps 0, 1 of wgmma's
/// fragment (k = 16S + 2t + {0, 1} and + 8), in the same nibble layout. Each
/// word is first split into the 16-bit pieces another lane needs (bytes 0, 2
/// for even t, 1, 3 for odd), the quad transposes the pieces (two shfl.bfly
/// rounds), and each step's two pieces are interleaved back.
SmallVector<Value> transposeNibbles(KernelBuilder &k, Value u0, Value u1, Value b1, Value b0) {
  // Piece (lane t, for lane t') = half t' % 2 of word t' / 2.
  Value v0 = k.prmt(u0, k.c32(0), 0x3120), v1 = k.prmt(u1, k.c32(0), 0x3120);
  // Round 1 (lanes t, t ^ 2): the off-diagonal word trades places.
  Value recv = k.shuffleXor(k.select(b1, v0, v1), 2);
  Value y0 = k.select(b1, recv, v0), y1 = k.select(b1, v1, recv);
  // Round 2 (lanes t, t ^ 1): each word's 2x2 block of pieces transposed;
  // the pieces going out of both words travel in one word.
  Value out = k.select(b0, k.prmt(y0, y1, 0x5410), k.prmt(y0, y1, 0x7632));
  Value in = k.shuffleXor(out, 1);
  Value z0 = k.select(b0, k.prmt(y0, in, 0x3254), k.prmt(y0, in, 0x5410));
  Value z1 = k.select(b0, k.prmt(y1, in, 0x3276), k.prmt(y1, in, 0x7610));
  // Step S's pieces Q[2S] (a0, a1) and Q[2S + 1] (a2, a3): low bytes are the
  // low elements (nibbles 0..3), high bytes the high ones (nibbles 4..7).
  return {k.prmt(z0, k.c32(0), 0x3120), k.prmt(z1, k.c32(0), 0x3120)};
}

/// A lane's high-plane word of a 64-of-K tile of 6- or 5-bit codes (hb =
/// bits - 4 high bits a code; mma_tiles, MmaTiles.h), rearranged within the
/// quad to go with transposeNibbles' low words: the high bits of the codes
/// of its register a_p of step S, 32-block j sit where mmaTileDecodeShifts
/// (low word 2j + S) looks for them. In the plane, the high bits of lane t's
/// code pair (rows g, g + 8; 2 hb bits) at k = 8t + 2c + e of a 32-block
/// (e: the first or second k of the register) sit in group c of a row of
/// four groups (fp6: a word per 32-block, its 16-bit halves the rows of e;
/// fp5: one word, its bytes the rows of the 32-blocks and e);
/// after the transpose they are group t of lane c, as the low nibbles
/// move. Each row is a 4 x 4 transpose of groups over the quad, done in
/// transposeQuad's two rounds, all rows at once (masks keep the groups a
/// lane keeps; shifts bring the partner's into place). The unit test
/// MmaTiles.WgmmaQuadTransposeOfSixAndFiveBitTiles replays both transposes
/// against wgmma's fragment.
Value transposeHighPlane(KernelBuilder &k, Value w, int hb, Value b1, Value b0) {
  const int64_t group = 2 * hb;
  // Groups 0, 1 of each row; groups 0, 2.
  const uint32_t lowHalf = hb == 2 ? 0x00FF00FFu : 0x0F0F0F0Fu,
                 even = hb == 2 ? 0x0F0F0F0Fu : 0x33333333u;
  // A round: the lane keeps `mask`'s groups where `bit` is clear, the
  // others where it is set, and takes the rest from lane t ^ `xr`, shifted
  // by `shift` bits toward them.
  auto round = [&](Value bit, int xr, int64_t shift, uint32_t mask) {
    Value c = k.c32(shift);
    Value recv = k.shuffleXor(k.select(bit, k.shl(w, c), k.shru(w, c)), xr);
    Value keep = k.select(bit, k.c32(~mask), k.c32(mask));
    w = k.bor(k.band(w, keep), k.band(recv, k.bxor(keep, k.c32(~0u))));
  };
  round(b1, 2, 2 * group, lowHalf); // the off-diagonal 2 x 2 blocks trade places
  round(b0, 1, group, even);        // each 2 x 2 block transposed
  return w;
}

/// An E8M0 code `e` (i32, 0..255) as a bf16x2 pair of 2^(e-127) (exact in
/// bf16: 2^-127 a subnormal, 0xFF NaN).
Value e8m0PairBf16(KernelBuilder &k, Value e) {
  Value bits = k.shl(e, k.c32(7));
  bits = k.select(k.cmp(P::eq, e, k.c32(0)), k.c32(0x0040), bits);
  bits = k.select(k.cmp(P::eq, e, k.c32(255)), k.c32(0x7FC0), bits);
  return k.bor(bits, k.shl(bits, k.c32(16)));
}

/// acc (n f32) = A (4 x i32 pairs, registers) * B (shared memory,
/// descriptor `desc`) + (scaleD (i32) != 0 ? acc : 0), wgmma m64n{2n}k16 with
/// f32 accumulation.
SmallVector<Value> wgmmaRegA(KernelBuilder &k, bool bf16, ArrayRef<Value> acc,
                             ArrayRef<Value> a, Value desc, Value scaleD) {
  const int64_t n = acc.size();
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(n + 5) +
                     ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(2 * n) +
                     "k16.f32." + (bf16 ? "bf16.bf16" : "f16.f16") + " {";
  std::string cons;
  for (int64_t i = 0; i < n; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    cons += "=f,";
  }
  text += "}, {$" + std::to_string(n) + ", $" + std::to_string(n + 1) + ", $" +
          std::to_string(n + 2) + ", $" + std::to_string(n + 3) + "}, $" +
          std::to_string(n + 4) + ", p, 1, 1, 0;\n}";
  cons += "r,r,r,r,l,r";
  SmallVector<Value> operands(a);
  operands.push_back(desc);
  operands.push_back(scaleD);
  for (int64_t i = 0; i < n; ++i) {
    cons += "," + std::to_string(i);
    operands.push_back(acc[i]);
  }
  auto st = LLVM::LLVMStructType::getLiteral(k.b.getContext(), SmallVector<Type>(n, k.f32()));
  auto op = LLVM::InlineAsmOp::create(k.b, k.loc, st, operands, text, cons,
                                      /*has_side_effects=*/true, /*is_align_stack=*/false,
                                      LLVM::TailCallKind::None, LLVM::AsmDialectAttr{},
                                      ArrayAttr{});
  SmallVector<Value> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(k.b, k.loc, op.getResult(0), i));
  return out;
}

/// wgmma.wait_group 0 with the accumulators tied to it: their reads cannot
/// move above it.
SmallVector<Value> waitAll(KernelBuilder &k, ArrayRef<Value> acc) {
  const int64_t n = acc.size();
  std::string cons;
  for (int64_t i = 0; i < n; ++i)
    cons += "=f,";
  for (int64_t i = 0; i < n; ++i)
    cons += (i ? "," : "") + std::to_string(i);
  auto st = LLVM::LLVMStructType::getLiteral(k.b.getContext(), SmallVector<Type>(n, k.f32()));
  auto op = LLVM::InlineAsmOp::create(k.b, k.loc, st, acc, "wgmma.wait_group.sync.aligned 0;",
                                      cons, /*has_side_effects=*/true, /*is_align_stack=*/false,
                                      LLVM::TailCallKind::None, LLVM::AsmDialectAttr{},
                                      ArrayAttr{});
  SmallVector<Value> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(k.b, k.loc, op.getResult(0), i));
  return out;
}

} // namespace

SmallVector<WeightOnlyWgmmaTile> fpx::weightOnlyWgmmaTiles(const TargetInfo &target) {
  if (!(target.mma & Wgmma))
    return {};
  // 128 x 256 (the largest wgmma N: each decoded weight pair feeds 256
  // tokens) with 5 stages of 32 KiB of x and 8 KiB of fp8 codes, and 128 x
  // 128 (twice the CTAs where the wide tiles leave SMs idle; the decode work
  // a stage is the same, half the MMAs) with 8 of 16 + 8 KiB; both fit the
  // 227 KiB a block may use (fp8: 193 and 201 KiB; fp6, 6 KiB of codes a
  // stage: 177 and 191; fp5: 169 and 186; fp4: 161 and 181).
  // Both split K where their tiles are few (split-K's workspace: 64 or 128
  // KiB of fp32 partial sums a unit).
  return {{128, 8, /*maxSplit=*/4}, {256, 5, /*maxSplit=*/4}};
}

bool fpx::weightOnlyWgmmaTakes(const WeightOnlyPlan &plan) {
  int bits = plan.elem.bits();
  switch (plan.scales) {
  case WeightScales::Channel:
    return bits == 8 || bits == 6 || bits == 5;
  case WeightScales::Mx32: // the scale folds into the bf16 operand exactly
    return (bits == 8 || bits == 6 || bits == 4) && plan.act.isBF16();
  case WeightScales::Nv16:
    return bits == 4;
  }
  return false;
}

int64_t fpx::weightOnlyWgmmaSharedBytes(const WeightOnlyPlan &plan,
                                        const WeightOnlyWgmmaTile &tile) {
  return 1024 + tile.stages * (tile.tokens * kWgmmaStageK * 2 + weightStageBytes(plan)) +
         2 * tile.stages * 8 + (tile.maxSplit > 1 ? 8 : 0); // (split-K's two flags)
}

KernelDesc fpx::buildWeightOnlyWgmmaKernel(OpBuilder &b, Location loc, StringRef name,
                                           const WeightOnlyPlan &plan,
                                           const WeightOnlyWgmmaTile &tile,
                                           gpu::GPUModuleOp module) {
  assert(weightOnlyWgmmaTakes(plan) && "a weight the wgmma kernel does not take");
  assert(weightOnlyWgmmaSharedBytes(plan, tile) <= 227 * 1024 &&
         "the rings pass the 227 KiB of shared memory a block may use");
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  const int64_t BN = tile.tokens, ST = tile.stages;
  const int64_t NA = BN / 2; // accumulators a thread (m64nBN over 128 threads)
  const int64_t stageBytes = BN * kWgmmaStageK * 2; // x
  const int64_t wStageBytes = weightStageBytes(plan), rowTileBytes = wStageBytes / kRowTiles;

  Type gptr = LLVM::LLVMPointerType::get(ctx, 1), genPtr = LLVM::LLVMPointerType::get(ctx, 0);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  const bool nv = plan.scales == WeightScales::Nv16, mx = plan.scales == WeightScales::Mx32;
  const int bits = plan.elem.bits();
  const bool fp4 = bits == 4;
  // 6-/5-bit codes: mma_tiles' plane split, the low nibbles as 4-bit codes
  // (the first 512 bytes of a 64-of-K tile), then hb high words a lane.
  const bool split = bits == 6 || bits == 5;
  const int hb = split ? static_cast<int>(num::mmaTileHighBytes(bits) / 4) : 0;
  KernelDesc desc;
  desc.params = {"tmX", "w", "scale"};
  SmallVector<Type> argTypes = {genPtr, gptr, gptr};
  if (nv) {
    desc.params.push_back("gscale");
    argTypes.push_back(gptr);
  }
  for (const char *p : {"y", "M", "N", "K"}) {
    desc.params.push_back(p);
    argTypes.push_back(*p == 'y' ? gptr : i64);
  }
  if (plan.bias) {
    desc.params.push_back("bias");
    argTypes.push_back(gptr);
  }
  const bool splitK = tile.maxSplit > 1;
  if (splitK) { // the fp32 partial sums of split tiles, and a counter a warpgroup a tile
    desc.params.push_back("ws");
    desc.params.push_back("cnt");
    argTypes.append({gptr, gptr});
  }
  gpu::GPUFuncOp f = wgp::makeKernel(b, loc, name, argTypes, kWgmmaThreads, {0});
  desc.func = f;
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  unsigned a0 = nv ? 1 : 0; // arguments after scale shift by one with gscale
  Value tmX = entry.getArgument(0), w = entry.getArgument(1), scale = entry.getArgument(2),
        gscale = nv ? entry.getArgument(3) : Value(), y = entry.getArgument(3 + a0);
  Value M = k.trunc(entry.getArgument(4 + a0), i32),
        N = k.trunc(entry.getArgument(5 + a0), i32),
        K = k.trunc(entry.getArgument(6 + a0), i32);
  Value bias = plan.bias ? entry.getArgument(7 + a0) : Value();
  unsigned wsArg = 7 + a0 + (plan.bias ? 1 : 0);
  Value ws = splitK ? entry.getArgument(wsArg) : Value();
  Value cnt = splitK ? entry.getArgument(wsArg + 1) : Value();

  // Shared memory: [x ring][weight ring][full[ST]][empty[ST]][split-K's
  // flag a consumer warpgroup] from a 1024-aligned base.
  auto [base, baseAddr] = wgp::alignedSharedBase(k, module, (name + "_smem").str());
  const int64_t offW = ST * stageBytes, offBar = offW + ST * wStageBytes;
  auto at = [&](Value off32) { return k.gep(base, k.i8(), off32); };
  auto wStage = [&](Value s) { return k.add(k.c32(offW), k.mul(s, k.c32(wStageBytes))); };
  auto fullBar = [&](Value s) { return at(k.add(k.c32(offBar), k.mul(s, k.c32(8)))); };
  auto emptyBar = [&](Value s) {
    return at(k.add(k.c32(offBar + ST * 8), k.mul(s, k.c32(8))));
  };
  const int64_t offFlag = offBar + 2 * ST * 8;

  Value tid = k.trunc(k.threadIdx(), i32);
  Value wg = k.divu(tid, k.c32(128)), t = k.remu(tid, k.c32(128));
  when(k, k.cmp(P::eq, tid, k.c32(0)), [&] {
    for (int64_t s = 0; s < ST; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, fullBar(k.c32(s)), k.c32(1), Value());
      NVVM::MBarrierInitOp::create(b, loc, emptyBar(k.c32(s)), k.c32(8), Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  k.barrier();

  // Tiles: rows = token tiles, cols = 128-channel tiles.
  wgp::GroupedTiles tiles;
  tiles.rows = k.divu(k.add(M, k.c32(BN - 1)), k.c32(BN));
  tiles.cols = k.divu(N, k.c32(kWgmmaChannels));
  Value kIters = k.divu(K, k.c32(kWgmmaStageK));
  // Split-K (tile.maxSplit > 1): with few tiles (at most kWgmmaSplitTiles)
  // each tile's K stages are cut into `splits` ranges, one work unit each,
  // as many as the grid holds (at most maxSplit, at most the stages); else
  // one unit a tile. The launch sizes the grid to match.
  Value numTiles = k.mul(tiles.rows, tiles.cols);
  Value splits = k.c32(1);
  if (splitK) {
    Value grid = k.trunc(k.gridDim(), i32);
    Value fit = k.umin(k.umax(k.divu(grid, k.umax(numTiles, k.c32(1))), k.c32(1)),
                       k.umin(k.c32(tile.maxSplit), k.umax(kIters, k.c32(1))));
    splits = k.select(k.cmp(P::ule, numTiles, k.c32(kWgmmaSplitTiles)), fit, k.c32(1));
  }
  // Unit u: tile u / splits, K stages [kb0, kb1) of its split u % splits.
  struct Unit {
    Value tile, split, kb0, kb1;
  };
  auto unitOf = [&](Value u) -> Unit {
    if (!splitK)
      return {u, k.c32(0), k.c32(0), kIters};
    Value tl = k.divu(u, splits), sp = k.remu(u, splits);
    return {tl, sp, k.divu(k.mul(sp, kIters), splits),
            k.divu(k.mul(k.add(sp, k.c32(1)), kIters), splits)};
  };
  // Walks this CTA's units in the grouped tile order; `body(unit, it)`
  // returns the ring position after it (`it` before it; 0 at the first).
  auto forUnits = [&](function_ref<Value(const Unit &, Value)> body) {
    tiles.forEach(
        k, [&](Value u, Value it) { return body(unitOf(u), it); }, k.mul(numTiles, splits));
  };
  auto stageOf = [&](Value it) { return k.remu(it, k.c32(ST)); };
  auto parityOf = [&](Value it) { return k.band(k.divu(it, k.c32(ST)), k.c32(1)); };

  auto roles = scf::IfOp::create(b, loc, k.cmp(P::eq, wg, k.c32(0)), /*withElse=*/true);
  // ------------------------------------------------------------ producer
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(roles.getThenRegion().front().getTerminator());
    wgp::setMaxRegisters(k, kProducerRegs, /*increase=*/false);
    // Bytes of packed codes from one row tile of mma_tiles to the next.
    Value rowTileStride = k.mul(k.zext(K, i64), k.c64(2 * bits)); // 16 rows
    when(k, k.cmp(P::eq, t, k.c32(0)), [&] {
      forUnits([&](const Unit &unit, Value it0) {
        auto [mt, ct] = tiles.coords(k, unit.tile);
        Value m0 = k.mul(mt, k.c32(BN));
        // The tile's first row tile of the packed weight.
        Value wTile = k.gep(w, k.i8(), k.mul(k.zext(k.mul(ct, k.c32(kRowTiles)), i64),
                                             rowTileStride));
        auto kl = scf::ForOp::create(b, loc, unit.kb0, unit.kb1, k.c32(1), ValueRange{it0});
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(kl.getBody());
        Value kb = kl.getInductionVar(), it = kl.getRegionIterArgs()[0];
        Value s = stageOf(it);
        // A fresh empty barrier passes the flipped parity.
        wgp::wait(k, emptyBar(s), k.bxor(parityOf(it), k.c32(1)));
        wgp::arriveExpectTx(k, fullBar(s), stageBytes + wStageBytes);
        wgp::tmaLoad2d(k, at(k.mul(s, k.c32(stageBytes))), tmX,
                       k.mul(kb, k.c32(kWgmmaStageK)), m0, fullBar(s));
        Value src = k.gep(wTile, k.i8(), k.mul(k.zext(kb, i64), k.c64(rowTileBytes)));
        for (int64_t r = 0; r < kRowTiles; ++r)
          wgp::bulkLoad(k, at(k.add(wStage(s), k.c32(r * rowTileBytes))),
                        k.gep(src, k.i8(), k.mul(k.c64(r), rowTileStride)), rowTileBytes,
                        fullBar(s));
        scf::YieldOp::create(b, loc, ValueRange{k.add(it, k.c32(1))});
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
    Decoder dec = decoderFor(plan.elem, plan.act);
    Decoder scaleDec = decoderFor(num::e4m3fn(), plan.act); // NVFP4's ue4m3 block scales
    // A lane's words a stage: the codes (8-bit: 16 bytes of each of the two
    // 32-blocks, 4-, 6- and 5-bit: 16 bytes of one 64-K block, the low
    // nibbles; 6-/5-bit then hb words of the tile's high plane), from the
    // stage's weight ring slot.
    const int64_t codeWords = fp4 || split ? 4 : 8;
    Value cw = k.sub(wg, k.c32(1));
    Value warp = k.divu(t, k.c32(32)), lane = k.remu(t, k.c32(32));
    Value gq = k.divu(lane, k.c32(4)), q = k.remu(lane, k.c32(4));
    Value b1 = k.cmp(P::ne, k.band(q, k.c32(2)), k.c32(0));
    Value b0 = k.cmp(P::ne, k.band(q, k.c32(1)), k.c32(0));
    Value isLane0 = k.cmp(P::eq, lane, k.c32(0));
    Value warpRows = k.add(k.mul(cw, k.c32(64)), k.mul(warp, k.c32(16))); // in the tile
    // This lane's bytes of its warp's row tile in a weight ring slot.
    Value laneW = k.add(k.mul(k.add(k.mul(cw, k.c32(4)), warp), k.c32(rowTileBytes)),
                        k.mul(lane, k.c32(16)));
    // 6-/5-bit: this lane's bytes of its row tile's high plane (4 hb a lane
    // from byte 512 on).
    Value laneHigh = split ? k.add(k.sub(laneW, k.mul(lane, k.c32(16 - 4 * hb))), k.c32(512))
                           : Value();
    Value kBlocks = k.zext(k.divu(K, k.c32(mx ? 32 : 16)), i64); // scale bytes a row
    Value lastIter = k.sub(kIters, k.c32(1));
    Type scaleType = mx ? k.b.getI16Type() : i32; // a row's scales a stage
    Value descX = wgp::smemDescriptor128B(k, baseAddr); // the x ring's first stage

    forUnits([&](const Unit &unit, Value it0) {
      auto [mt, ct] = tiles.coords(k, unit.tile);
      Value m0 = k.mul(mt, k.c32(BN)), n0 = k.mul(ct, k.c32(kWgmmaChannels));
      // Block scales: this lane's rows g, g + 8, a stage's bytes at kb.
      Value scaleRow[2];
      for (int64_t h = 0; (mx || nv) && h < 2; ++h) {
        Value row = k.zext(k.add(k.add(n0, warpRows), k.add(gq, k.c32(8 * h))), i64);
        scaleRow[h] = k.gep(scale, k.i8(), k.mul(row, kBlocks));
      }
      auto scaleAt = [&](int64_t h, Value kb) {
        return k.gep(scaleRow[h], scaleType, k.zext(kb, i64));
      };
      // The accumulators start undefined: a tile's first wgmma overwrites
      // them (scale-d 0).
      SmallVector<Value> init = {it0};
      init.append(NA, LLVM::UndefOp::create(b, loc, k.f32()));
      auto kl = scf::ForOp::create(b, loc, unit.kb0, unit.kb1, k.c32(1), init);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(kl.getBody());
        auto args = kl.getRegionIterArgs();
        Value kb = kl.getInductionVar(), it = args[0];
        SmallVector<Value> acc(args.begin() + 1, args.begin() + 1 + NA);
        // The stage's block scales (through L1: a sector holds 8 or 16
        // stages of a row), and a prefetch of those kScalePrefetch on.
        Value scaleWord[2];
        for (int64_t h = 0; (mx || nv) && h < 2; ++h) {
          Value v = k.load(scaleType, scaleAt(h, kb), mx ? 2 : 4);
          scaleWord[h] = mx ? k.zext(v, i32) : v;
          Value ahead = k.umin(k.add(kb, k.c32(kScalePrefetch)), lastIter);
          NVVM::PrefetchOp::create(b, loc, NVVM::PrefetchCacheLevelAttr::get(ctx, NVVM::PrefetchCacheLevel::L1),
                                   NVVM::CacheEvictionPriorityAttr{}, scaleAt(h, ahead),
                                   Value());
        }
        Value s = stageOf(it);
        wgp::wait(k, fullBar(s), parityOf(it));
        SmallVector<Value> cur;
        Value wAt = k.add(wStage(s), laneW);
        for (int64_t j = 0; j < codeWords / 4; ++j) {
          Value v = k.load(k.vec(4, i32), at(k.add(wAt, k.c32(j * 512))), 16);
          for (int64_t e = 0; e < 4; ++e)
            cur.push_back(k.extract(v, e));
        }
        // 6-/5-bit: the lane's high words (consecutive lanes, consecutive
        // 8 or 4 bytes), put in wgmma's K order once for both 32-blocks.
        SmallVector<Value> high;
        if (split) {
          Value v = k.load(k.vec(hb, i32), at(k.add(wStage(s), laneHigh)), 4 * hb);
          for (int64_t e = 0; e < hb; ++e)
            high.push_back(transposeHighPlane(k, k.extract(v, e), hb, b1, b0));
        }
        // Decode: per 32-block, the quad transpose, then two k16 steps
        // (block scales multiply the decoded pairs: exact).
        SmallVector<SmallVector<Value>> a;
        for (int64_t j = 0; j < kWgmmaStageK / 32; ++j) {
          SmallVector<Value> z = fp4 || split
                                     ? transposeNibbles(k, cur[2 * j], cur[2 * j + 1], b1, b0)
                                     : transposeQuad(k, ArrayRef<Value>(cur).slice(4 * j, 4), b1, b0);
          // 6-/5-bit: decodeStep reads block j's low words 2j, 2j + 1 and
          // the tile's high words after the four low ones.
          int64_t jz = 0;
          if (split) {
            SmallVector<Value> wv(4);
            wv[2 * j] = z[0];
            wv[2 * j + 1] = z[1];
            llvm::append_range(wv, high);
            z = std::move(wv);
            jz = j;
          }
          SmallVector<Value> pairs; // MX: the block's scale pairs of rows g, g + 8
          for (int64_t h = 0; mx && h < 2; ++h)
            pairs.push_back(e8m0PairBf16(
                k, k.band(k.shru(scaleWord[h], k.c32(8 * j)), k.c32(0xFF))));
          for (int64_t s = 0; s < 2; ++s) {
            // NVFP4: one 16-block a k16 step.
            for (int64_t h = 0; nv && h < 2; ++h) {
              Value code = k.band(k.shru(scaleWord[h], k.c32(8 * (2 * j + s))),
                                  k.c32(0xFF));
              if (h == 0)
                pairs.clear();
              pairs.push_back(ue4m3Pair(k, scaleDec, dec, code));
            }
            // MX: the decoded (rebiased) pairs times the block's 2^(e-127);
            // the scale cannot carry the rebias too (2^(e-127+rebias) leaves
            // bf16's range for large e).
            SmallVector<Value> av =
                decodeStep(k, dec, z, jz, s, nv ? pairs : ArrayRef<Value>(), /*highAt=*/4);
            a.push_back(mx ? mulRowPairs(k, dec, av, pairs) : av);
          }
        }
        // The stage's x descriptor: the ring's plus the stage's offset in
        // 16-byte units (the start field cannot carry: shared memory ends
        // below 256 KiB); a k16 step adds its 32 bytes.
        Value stageDesc = k.add(descX, k.zext(k.mul(s, k.c32(stageBytes / 16)), i64));
        NVVM::WgmmaFenceAlignedOp::create(b, loc);
        Value accumulate = k.zext(k.cmp(P::ne, kb, unit.kb0), i32);
        for (int64_t kk = 0; kk < kWgmmaStageK / 16; ++kk)
          acc = wgmmaRegA(k, dec.bf16, acc, a[kk],
                          k.add(stageDesc, k.c64(kk * 32 / 16)),
                          kk ? k.c32(1) : accumulate);
        NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
        // Wait for this stage's wgmmas before the next stage's decode: they
        // read their A registers asynchronously, and ptxas may give the next
        // decode's values the same registers (it did: wrong, run-to-run
        // different results with wait_group 1 here).
        acc = waitAll(k, acc);
        when(k, isLane0, [&] { wgp::arrive(k, emptyBar(s)); });
        SmallVector<Value> next = {k.add(it, k.c32(1))};
        llvm::append_range(next, acc);
        scf::YieldOp::create(b, loc, next);
      }
      Value itEnd = kl.getResult(0);
      SmallVector<Value> partial(kl.getResults().begin() + 1, kl.getResults().begin() + 1 + NA);

      // Epilogue: thread (warp, lane = 4 gq + q) holds acc[4c + 2h + e] at
      // channel row 16 warp + gq + 8h of its warpgroup's 64, token column
      // 8c + 2q + e. (Trading values with lane ^ 4 for 4-byte stores of
      // channel pairs spilled in the f16 + bias kernel.)
      auto epilogue = [&](ArrayRef<Value> acc) {
        Value token0 = k.add(m0, k.mul(q, k.c32(2)));
        Value room = k.sub(M, token0); // tokens left from this thread's first
        Value N64 = k.zext(N, i64);
        Value chanScale[2], chanBias[2], chanOut[2];
        // NVFP4: the tensor scale times 2^nvResultShift (the scale pairs left
        // the e2m1 rebias short by it; both factors exact).
        Value tensorScale =
            nv ? k.fmul(k.load(k.f32(), gscale, 4), k.cf32(std::ldexp(1.0f, nvResultShift(dec))))
               : Value();
        for (int64_t h = 0; h < 2; ++h) {
          Value chan = k.zext(k.add(n0, k.add(warpRows, k.add(gq, k.c32(8 * h)))), i64);
          chanOut[h] = k.gep(y, plan.out, chan); // y's column of the channel
          // The channel's scale (MX: none, in the operand; NVFP4: the tensor's).
          chanScale[h] = plan.scales == WeightScales::Channel
                             ? k.load(k.f32(), k.gep(scale, k.f32(), chan), 4)
                             : tensorScale;
          if (plan.bias) {
            Value bv = k.load(plan.bias, k.gep(bias, plan.bias, chan),
                              plan.bias.getIntOrFloatBitWidth() / 8);
            chanBias[h] = plan.bias.isF32() ? bv : arith::ExtFOp::create(b, loc, k.f32(), bv);
          }
        }
        // The byte offset of token token0 + 8c + e's row of y: a running sum,
        // one add a token.
        Value rowBytes = k.mul(N64, k.c64(2)); // (bf16/f16 out)
        Value row = k.mul(k.zext(token0, i64), rowBytes);
        for (int64_t c = 0; c < NA / 4; ++c)
          for (int64_t e = 0; e < 2; ++e) {
            if (c || e)
              row = k.add(row, e ? rowBytes : k.mul(rowBytes, k.c64(7)));
            Value at = row;
            when(k, k.cmp(P::slt, k.c32(8 * c + e), room), [&] {
              for (int64_t h = 0; h < 2; ++h) {
                Value r = acc[4 * c + 2 * h + e];
                if (chanScale[h])
                  r = k.fmul(r, chanScale[h]);
                if (plan.bias) // in f32, after the scale, before the cast
                  r = k.fadd(r, chanBias[h]);
                Value v = arith::TruncFOp::create(b, loc, plan.out, r);
                k.store(v, k.gep(chanOut[h], k.i8(), at), 2);
              }
            });
          }
      };
      if (!splitK) {
        epilogue(partial);
        return itEnd;
      }
      // Split-K: with several units a tile, the tile's units meet in the
      // workspace (slot tile * splits + split, a counter a warpgroup a
      // tile) and the last runs the epilogue on the sums, added in split
      // order.
      auto wgBarrier = [&] {
        NVVM::BarrierOp::create(b, loc, Type(), k.add(cw, k.c32(1)), k.c32(128),
                                NVVM::BarrierReductionAttr(), Value());
      };
      Value slot0 = k.mul(unit.tile, splits);
      auto [acc, last] = wgp::splitKMeet(
          k, partial, ws, k.gep(cnt, i32, k.add(k.mul(unit.tile, k.c32(2)), cw)), slot0,
          k.add(slot0, unit.split), splits, k.add(k.mul(cw, k.c32(128)), t), t,
          at(k.add(k.c32(offFlag), k.mul(cw, k.c32(4)))), wgBarrier);
      when(k, last, [&] { epilogue(acc); });
      return itEnd;
    });
  }
  gpu::ReturnOp::create(b, loc);
  return desc;
}
