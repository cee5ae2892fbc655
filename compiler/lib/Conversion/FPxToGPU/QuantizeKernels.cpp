//===- QuantizeKernels.cpp - kernel generators for casts ------------------===//
//
// Cast kernels are memory bound: each thread moves 16-byte vectors, keeps
// several loads in flight, and does the scale arithmetic of the numerics
// core's reference quantizer (numerics/lib/Quantize.cpp) operation for
// operation, so that results are bit-identical to it.
//
//===----------------------------------------------------------------------===//
#include "QuantizeKernels.h"
#include "QuantizeKernelsInternal.h"
#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"

#include "fpx/Conversion/FPxToNVVM/ConvertEmulation.h"
#include "fpx/Numerics/Hadamard.h"
#include "fpx/Numerics/Quantize.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace fpx;
using namespace fpx::qk;
using P = arith::CmpIPredicate;

/// Folds each thread's max |x| `m` (f32, +0 or above, or a NaN without its
/// sign bit: |x| and maxima of them) into the amax at
/// `out`: a warp maximum, then one atomic max by lane 0 (|x| bits order like
/// unsigned integers; NaN, 0x7fc00000 above inf, wins). `onlyIfLarger`: lane 0
/// skips the atomic where `out` already holds at least m, as read here or
/// earlier (`known`, i32: the value only grows, so a stale read errs towards
/// the atomic). The casts' many CTAs then rarely queue on one address: an
/// atomic from every warp of the NVFP4 cast took it from 87.6 to 57.9% of
/// copy; one a CTA through shared memory 0.8 points slower than this
/// (docs/results/2026-11-23-h200-10).
static void atomicMaxAbs(KernelBuilder &k, Value lane, Value m, Value out,
                         bool onlyIfLarger, Value known = Value()) {
  // One redux.sync over the bits (m has no sign: its order is theirs, a NaN
  // above inf) instead of five shuffles and maxima; any NaN then as the
  // numerics core's absMax gives it, 0x7fc00000.
  Value bits = k.reduxUmax(k.bitcast(m, k.i32()));
  Value nan = k.cmp(P::ugt, bits, k.c32(0x7f800000));
  bits = k.select(nan, k.c32(0x7fc00000), bits);
  Value store = k.cmp(P::eq, lane, k.c64(0));
  OpBuilder::InsertionGuard g(k.b);
  auto ifOp = scf::IfOp::create(k.b, k.loc, store, false);
  k.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  if (onlyIfLarger) {
    Value larger = k.cmp(P::ugt, bits, known ? known : k.load(k.i32(), out, 4));
    auto inner = scf::IfOp::create(k.b, k.loc, larger, false);
    k.b.setInsertionPointToStart(&inner.getThenRegion().front());
  }
  LLVM::AtomicRMWOp::create(k.b, k.loc, LLVM::AtomicBinOp::umax, out, bits,
                            LLVM::AtomicOrdering::monotonic);
}

/// The 8 codes (i32 of fp4x2 nibbles, or i64 of bytes) of the bf16 pairs of
/// one raw 16-byte word scaled by the power-of-two (or NaN) f32 `factor`:
/// x * factor in bf16 is the f32 product exactly wherever the code can
/// depend on it (both are exact down to 2^-126, and anything smaller is a
/// signed zero code), so the pairs go to fpx.convert as bf16, which
/// sm_90 emulates e2m1 and clamps fp6 two values per instruction.
static Value convertBf16Pairs(KernelBuilder &k, const QuantizePlan &plan,
                              Value raw, Value factor) {
  MLIRContext *ctx = k.b.getContext();
  Value fb = k.bitcast(factor, k.i32());
  Value f2 = k.bor(k.shru(fb, k.c32(16)), k.band(fb, k.c32(0xffff0000u)));
  auto fmtAttr = FormatAttr::get(ctx, plan.elem.name, plan.elem.bias);
  auto rnd = RoundingKindAttr::get(ctx, plan.rounding);
  UnitAttr ovf = plan.satfinite ? UnitAttr() : k.b.getUnitAttr();
  bool fp4 = plan.elem.bits() <= 4;
  Type outTy = fp4 ? k.i32() : k.i64(), partTy = fp4 ? k.i16() : k.i32();
  SmallVector<Value> p;
  for (int j = 0; j < 4; ++j) // x * f + (-0): the product, a zero's sign kept
    p.push_back(k.ptx(k.i32(),
                      "{\n.reg .b32 z;\nmov.b32 z, 0x80008000;\n"
                      "fma.rn.bf16x2 $0, $1, $2, z;\n}",
                      "=r,r,r", {k.extract(raw, j), f2}));
  Type v4 = k.vec(4, k.b.getBF16Type());
  Value acc = k.cInt(outTy, 0);
  for (int h = 0; h < 2; ++h) {
    Value two = k.vector({p[2 * h], p[2 * h + 1]});
    Value c = ConvertOp::create(k.b, k.loc, partTy, k.bitcast(two, v4), Value(),
                                fmtAttr, rnd, ovf);
    acc = k.bor(acc, k.shl(k.zext(c, outTy), k.cInt(outTy, 16 * h * (fp4 ? 1 : 2))));
  }
  return acc;
}

/// The random Hadamard transform of size n on the 32 consecutive elements of
/// kUnroll adjacent vectors (flat vector index v0 = 4 * thread): the same
/// operations in the same order as applyHadamard, with butterflies up to
/// h = 16 in registers and only h >= 32 across lanes (partner lane h / 32).
/// With `defer`, a final factor that is a power of two (n = 4, 16, 64) is
/// left out and returned, for the caller to fold into its division
/// (Scale::pending); otherwise applied, and 1 returned.
static float applyHadamardRun(KernelBuilder &k, SmallVector<SmallVector<Value>> &xs,
                              Value v0, int64_t n, uint64_t seed, bool defer = false) {
  std::vector<float> signs = num::hadamardSigns(static_cast<int>(n), seed);
  SmallVector<Value> x;
  for (auto &vec : xs)
    x.append(vec.begin(), vec.end());
  const int64_t m = x.size(); // 32, or one block group's elements (n <= m)
  // Signs: element j of the run sits at block position (8 v0 + j) mod n.
  if (n <= m) {
    for (int64_t j = 0; j < m; ++j)
      if (signs[j % n] < 0)
        x[j] = arith::NegFOp::create(k.b, k.loc, x[j]);
  } else {
    // 8 v0 mod n is a multiple of 32: which 32-element chunk of the block.
    uint64_t mask[4] = {0, 0, 0, 0};
    for (int64_t j = 0; j < n; ++j)
      if (signs[j] < 0)
        mask[j / 32] |= uint64_t(1) << (j % 32);
    Value chunk = k.remu(k.divu(k.mul(v0, k.c64(kVec)), k.c64(m)), k.c64(n / m));
    Value bits = k.c32(int32_t(mask[0]));
    for (int64_t c = 1; c < n / m; ++c)
      bits = k.select(k.cmp(P::eq, chunk, k.c64(c)), k.c32(int32_t(uint32_t(mask[c]))), bits);
    for (int64_t j = 0; j < m; ++j) {
      Value bit = k.band(k.shru(bits, k.c32(j)), k.c32(1));
      x[j] = k.bitcast(k.bxor(k.bitcast(x[j], k.i32()), k.shl(bit, k.c32(31))), k.f32());
    }
  }
  for (int64_t h = 1; h < std::min(n, m); h *= 2)
    for (int64_t i = 0; i < m; i += 2 * h)
      for (int64_t j = i; j < i + h; ++j) {
        Value a = x[j], b = x[j + h];
        x[j] = k.fadd(a, b);
        x[j + h] = k.arithSub(a, b);
      }
  Value tid = k.remu(k.divu(v0, k.c64(kUnroll)), k.c64(32)); // lane
  for (int64_t h = m; h < n; h *= 2) {
    int64_t d = h / m;
    Value upper = k.cmp(P::ne, k.band(tid, k.c64(d)), k.c64(0));
    for (int64_t j = 0; j < m; ++j) {
      Value mine = x[j], other = k.shuffleXor(mine, static_cast<int>(d));
      x[j] = k.select(upper, k.arithSub(other, mine), k.fadd(mine, other));
    }
  }
  float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n)));
  int e;
  bool powerOfTwo = std::frexp(scale, &e) == 0.5f;
  for (int64_t j = 0; j < m; ++j)
    xs[j / kVec][j % kVec] = defer && powerOfTwo ? x[j] : k.fmul(x[j], k.cf32(scale));
  return defer && powerOfTwo ? scale : 1.0f;
}

/// The user prologue `float NAME(float)`: declared once in the gpu.module as
/// an external llvm.func (PTX `.extern .func`, resolved when the runtime
/// links the user's CUDA snippet) and called on every element of `xs`.
static void applyPrologue(KernelBuilder &k, Operation *kernel, StringRef name,
                          SmallVector<Value> &xs) {
  auto gm = kernel->getParentOfType<gpu::GPUModuleOp>();
  auto fn = gm.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!fn) {
    OpBuilder::InsertionGuard g(k.b);
    k.b.setInsertionPointToStart(gm.getBody());
    fn = LLVM::LLVMFuncOp::create(
        k.b, k.loc, name, LLVM::LLVMFunctionType::get(k.f32(), {k.f32()}));
  }
  for (Value &x : xs)
    x = LLVM::CallOp::create(k.b, k.loc, fn, ValueRange{x}).getResult();
}

/// The bf16 row casts whose threads wait on their own loads more than on
/// DRAM, on Hopper where their launch shapes were measured (H200): MXFP4 +
/// rs and NVFP4 (rn and rs), without a transform or a prologue.
/// - MXFP4 + rs (about 68% of issue slots; 32 fewer FMULs a thread measured
///   no faster): five CTAs an SM (48 registers) 84 -> 87% / 88 -> 92% of
///   copy (16384x8192 / 131072x7168); fewer vectors a thread with more CTAs
///   slower (docs/results/2026-11-22-h200-5). NVFP4 under rn with the same
///   bound 93.8 -> 92.6 us / 621 -> 613 us (docs/results/2026-11-23-h200-7).
///   Casts with more live state (NVFP4 + rs, Hadamard) spill under it and
///   measured 2-9% slower: they kept ptxas's choice.
/// - Then (what they take now) two tiles a CTA (rowCastTiles) at four CTAs
///   an SM (64 registers: the second tile's 16 loaded words live through the
///   first one's cast). NVFP4 + rs too, though it spills 28 bytes there:
///   115.0 -> 110.9 us / 770 -> 741 us (70.7 -> 73.3% / 73.9 -> 76.7% of
///   copy; docs/results/2026-11-24-h200-11); with ptxas's registers (76-78,
///   three CTAs, no spills) both rs casts were slower (NVFP4 + rs 73.0 ->
///   72.5%, MXFP4 + rs 91.3 -> 88.0% at 16384x8192).
/// Other targets keep one tile and ptxas's choice: under these bounds the
/// kernels spill 24-112 bytes on sm_80, sm_89, sm_100a and sm_120a.
static bool latencyBoundOnHopper(const QuantizePlan &plan) {
  bool rs = plan.rounding == RoundingKind::rs;
  return ((rs && plan.scaleKind == num::ScaleKind::E8M0 && plan.elem == num::e2m1fn()) ||
          plan.scaleKind == num::ScaleKind::NVFP4) &&
         plan.inElem.isBF16() && !plan.hadamard && plan.prologue.empty() && plan.hopperShapes;
}

/// With an amax per matrix: a tile's matrix e, its place r in it (in tiles:
/// matrices are whole 8192-element tiles), the matrix's amax and g.
struct TileMatrix {
  Value e, r, amax, g;
  Value changed; // i1, tiles after the first: e differs from the previous tile's
};

/// The matrix of tile `tile` (i64) of a row cast with an amax per matrix
/// (`matrixTiles` tiles a matrix, `lastTile` the input's last, both i32),
/// its amax and g; the tile that starts a matrix (r = 0) stores g there. The
/// CTA's first tile (`prev` null) divides once (32 bits; a 64-bit division
/// was a long subroutine, 87.5 against 84.4% of copy on 8x8192x5120); each
/// next tile (the previous one's successor) steps from `prev`, and reads its
/// amax and computes g only when it lies in another matrix (one CTA's tiles
/// mostly share one): 88.0 -> 90.6%. Called when the tile's cast starts, not
/// with its loads (an amax held through the first tile's cast spilled a
/// register; docs/results/2026-11-23-h200-9). A tile past the end (an odd
/// count with two a CTA) keeps the last matrix and stores no g.
static TileMatrix tileMatrix(KernelBuilder &k, const QuantizePlan &plan,
                             const qk::CastParams &p, Value tile, Value matrixTiles,
                             Value lastTile, const TileMatrix *prev) {
  Value ti = k.trunc(tile, k.i32());
  Value e, r, valid = k.cmp(P::ule, ti, lastTile);
  if (!prev) {
    Value in = k.umin(ti, lastTile);
    e = k.divu(in, matrixTiles);
    r = k.sub(in, k.mul(e, matrixTiles));
  } else {
    Value step = k.add(prev->r, k.c32(1));
    Value wraps = k.land(valid, k.cmp(P::eq, step, matrixTiles));
    e = k.select(wraps, k.add(prev->e, k.c32(1)), prev->e);
    r = k.select(valid, k.select(wraps, k.c32(0), step), prev->r);
  }
  Value e64 = k.zext(e, k.i64());
  auto amaxAndG = [&]() -> SmallVector<Value> {
    Value a = k.load(k.f32(), k.gep(p.amax, k.f32(), e64), 4);
    return {a, plan.scaleKind == num::ScaleKind::NVFP4 ? nvfp4GlobalScale(k, a) : k.cf32(1.0f)};
  };
  TileMatrix m{e, r, Value(), Value(), Value()};
  if (!prev) {
    SmallVector<Value> ag = amaxAndG();
    m.amax = ag[0];
    m.g = ag[1];
  } else {
    m.changed = k.cmp(P::ne, e, prev->e);
    auto ifOp = scf::IfOp::create(k.b, k.loc, TypeRange{k.f32(), k.f32()}, m.changed,
                                  /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g(k.b);
      k.b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(k.b, k.loc, amaxAndG());
      k.b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(k.b, k.loc, ValueRange{prev->amax, prev->g});
    }
    m.amax = ifOp.getResult(0);
    m.g = ifOp.getResult(1);
  }
  if (p.globalScaleOut) {
    Value starts = k.land(valid, k.cmp(P::eq, r, k.c32(0)));
    k.storeIf(k.land(starts, k.cmp(P::eq, k.threadIdx(), k.c64(0))), m.g,
              k.gep(p.globalScaleOut, k.f32(), e64), 4);
  }
  return m;
}

int64_t fpx::rowCastTiles(const QuantizePlan &plan) {
  // Five CTAs an SM of one tile did not hide the wait for each thread's
  // loads (Nsight Compute at the GPU's clocks: long-scoreboard stalls second
  // only to scheduling, 22% of cycles with no eligible warp). Two tiles a
  // CTA, the second one's loads issued before the first one's cast, at four
  // CTAs an SM (docs/results/2026-11-23-h200-8): NVFP4 cast 92.0 -> 89.5 us
  // / 610 -> 587 us (87.6 -> 90.2% / 92.7 -> 96.4% of copy), MXFP4 + rs
  // 91.4 -> 87.2 us / 609 -> 572-596 us (87.2 -> 91.3%). Without the
  // register bound (75 registers, three CTAs) no faster; MXFP8, plain MXFP4
  // and the Hadamard cast (which spills under it) 1-3% slower with two, so
  // they keep one. With an amax per matrix each tile finds its own matrix.
  return latencyBoundOnHopper(plan) ? 2 : 1;
}

KernelDesc fpx::buildRowQuantizeKernel(OpBuilder &b, Location loc,
                                       StringRef name, const QuantizePlan &plan) {
  OpBuilder::InsertionGuard guard(b);
  KernelDesc desc = qk::makeCastKernel(b, loc, name, plan, {"total", "cols"});
  bool rs = plan.rounding == RoundingKind::rs;
  gpu::GPUFuncOp f = desc.func;
  // Launch shapes measured on Hopper (latencyBoundOnHopper, rowCastTiles):
  // two tiles a CTA at four CTAs an SM.
  if (plan.tiles > 1)
    f->setAttr("nvvm.minctasm", b.getI32IntegerAttr(4));
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  qk::CastParams p = qk::castParams(entry, plan);
  Value in = p.in, out = p.out, scales = p.scales, amaxPtr = p.amax, seed = p.seed,
        total = p.extent0, cols = p.extent1;

  Value tid = k.threadIdx(), bid = k.blockIdx();
  // After a tensor amax pass, whose last trips read the end of the input,
  // CTAs run from the end backwards: the first ones find their input still
  // in L2.
  if (plan.tensorAmax)
    bid = k.sub(k.sub(k.gridDim(), k.c64(1)), bid);
  Value nvec = k.divu(total, k.c64(kVec));
  // Per-tensor values (NVFP4 global scale, per-tensor amax); with an amax
  // per matrix, per tile instead (castTile: a tile lies in one matrix).
  Value tensorAmax, globalScale = k.cf32(1.0f);
  if (plan.tensorAmax && !plan.matrixAmax) {
    tensorAmax = k.load(k.f32(), amaxPtr, 4);
    if (plan.scaleKind == num::ScaleKind::NVFP4)
      globalScale = nvfp4GlobalScale(k, tensorAmax);
  }
  if (!plan.matrixAmax)
    qk::storeGlobalScale(k, p, globalScale);
  // With an amax per matrix: tiles a matrix, and the last tile (matrices,
  // hence the input, are whole tiles; fewer than 2^32 of them).
  Value matrixTiles, lastTile;
  if (plan.matrixAmax) {
    matrixTiles = k.trunc(k.divu(p.matrix, k.c64(kCtaElements)), k.i32());
    lastTile = k.sub(k.trunc(k.divu(total, k.c64(kCtaElements)), k.i32()), k.c32(1));
  }
  // Vectors of 8 elements a scaling block spans.
  int64_t lanes = plan.blockK ? plan.blockK / kVec : 1;
  // Unmodified bf16 inputs of block casts stay packed for the amax, and for
  // E8M0-scaled casts also through the scaling into fpx.convert.
  bool rawBf16 = plan.inElem.isBF16() && !plan.hadamard &&
                 plan.prologue.empty() && plan.blockK;
  bool pairsBf16 = rawBf16 && plan.scaleKind == num::ScaleKind::E8M0 &&
                   plan.rounding != RoundingKind::rs;
  // Which vectors a thread owns. Consecutive: kUnroll adjacent vectors (32
  // elements), so a block of up to 32 is reduced, scaled and stored by one
  // thread without shuffles and its codes leave in 16-byte stores; but each
  // load instruction then reads half of every 32-byte sector (the next one
  // the other half, from L1 if the line is still there). Strided: vector
  // u*256 + tid of the CTA's 1024, every access coalesced, blocks reduced by
  // shuffles. Measured on an H200 (docs/results): consecutive wins where the
  // per-element work is heavy (fp4/fp6, divisions by fp32 or NVFP4 scales),
  // strided where it is light (E8M0-scaled fp8 with a native cvt: 97-102% of
  // copy against 90-95%) and for per-tensor scales (no block to reduce).
  // f32 inputs stay strided (two 16-byte loads per vector already).
  bool lightFp8 = plan.scaleKind == num::ScaleKind::E8M0 && plan.elem.bits() == 8 &&
                  plan.rounding != RoundingKind::rs;
  bool consecutive = plan.blockK && !lightFp8 && plan.inElem.getIntOrFloatBitWidth() == 16;
  int64_t vstep = consecutive ? 1 : kThreads;
  // Vectors of one block held by this thread, and threads sharing a block.
  int64_t group = !plan.blockK ? kUnroll : consecutive ? std::min(lanes, kUnroll) : 1;
  int64_t sharing = !plan.blockK ? 1 : consecutive ? std::max<int64_t>(lanes / kUnroll, 1)
                                                   : lanes;
  // Codes of the kUnroll vectors stored together: contiguous for fp4x2, byte
  // codes and the 6-byte fp6 layouts (packed, interleaved); for fp6_planes
  // only within a row (blocks of 32 keep the
  // 4 vectors in one row). When the last vector is out of range the thread
  // falls back to per-vector stores.
  bool runs = consecutive &&
              (plan.packing != LayoutKind::fp6_planes || plan.blockK % 32 == 0);

  // fp4 codes get their signs from x in one word operation
  // (convertFp4SplitSigns), except on the packed bf16 E8M0 path.
  bool splitSigns = (plan.scaleKind != num::ScaleKind::E8M0 || !pairsBf16) &&
                    plan.elem == num::e2m1fn() && plan.satfinite && plan.blockK;

  // A tile: the kCtaElements of one CTA's share (a CTA of `tiles` > 1 takes
  // that many in turn, the next one's loads issued before the current one's
  // work).
  struct TileIn {
    Value vbase;
    Value tile; // its index
    SmallVector<Value> vs, oks;
    SmallVector<SmallVector<Value>> raws, xs; // xs: widened, or empty until the cast
  };
  auto widen = [&](TileIn &t, int64_t u) {
    t.xs.push_back(pairsBf16 ? SmallVector<Value>{} : widenRaw(k, plan.inElem, t.raws[u]));
  };
  // Issue every load first so that kUnroll loads are in flight. Adjacent
  // vectors load from one base address at constant offsets, each under its
  // own predicate (how many of the thread's vectors exist, from one 64-bit
  // difference); strided ones from a clamped index each.
  // A prefetched tile (`now` false) is widened only when cast: its values
  // must not be waited for before the current tile's work.
  auto loadTile = [&](Value tile, bool now) {
    TileIn t;
    t.tile = tile;
    t.vbase = k.add(k.mul(tile, k.c64(kUnroll * kThreads)),
                    consecutive ? k.mul(tid, k.c64(kUnroll)) : tid);
    Value left, base;
    if (consecutive) {
      Value d = k.sub(nvec, t.vbase);
      left = k.trunc(k.smin(k.smax(d, k.c64(0)), k.c64(kUnroll)), k.i32());
      base = k.gep(in, k.i8(), k.mul(t.vbase, k.c64(inVecBytes(plan.inElem))));
    }
    for (int64_t u = 0; u < kUnroll; ++u) {
      Value v = k.add(t.vbase, k.c64(u * vstep));
      if (consecutive) {
        Value ok = k.cmp(P::ugt, left, k.c32(u));
        t.vs.push_back(v);
        t.oks.push_back(ok);
        t.raws.push_back(loadRawIf(k, plan.inElem, base, u, ok));
      } else {
        Value ok = k.cmp(P::ult, v, nvec);
        Value vs_ = k.select(ok, v, k.c64(0));
        t.vs.push_back(vs_);
        t.oks.push_back(ok);
        t.raws.push_back(loadRaw(k, plan.inElem, in, vs_));
      }
      if (now)
        widen(t, u);
    }
    return t;
  };
  // With an amax per matrix: the previous tile's matrix (castTile).
  TileMatrix matrixOfPrev;
  // With amax_out: this thread's max |x| so far (of the transformed values);
  // per matrix, of the tiles since the matrix last changed.
  Value seenMax = plan.amaxOut ? k.cf32(0.0f) : Value();
  // With amax_out per matrix: the stored amax of the last tile's matrix, read
  // when that tile's cast starts (as knownAmax below for one per tensor).
  Value knownMatrixAmax;
  auto castTile = [&](TileIn &t, bool last) {
    Value vbase = t.vbase;
    SmallVector<Value> &vs = t.vs, &oks = t.oks;
    SmallVector<SmallVector<Value>> &raws = t.raws, &xs = t.xs;
    for (int64_t u = xs.size(); u < kUnroll; ++u)
      widen(t, u);
    // LLVM would sink loads whose values are first used after a branch (the
    // division's fast/slow split) to their use; an empty asm statement that
    // reads every loaded word keeps all of them in flight before any work.
    {
      SmallVector<Value> words;
      for (const SmallVector<Value> &raw : raws)
        for (Value r : raw)
          for (int j = 0; j < 4; ++j)
            words.push_back(k.extract(r, j));
      k.ptxEffect("", llvm::join(SmallVector<std::string>(words.size(), "r"), ","), words);
    }
    Value amaxOfTile = tensorAmax, gOfTile = globalScale;
    if (plan.matrixAmax) {
      TileMatrix before = matrixOfPrev;
      matrixOfPrev = tileMatrix(k, plan, p, t.tile, matrixTiles, lastTile,
                                before.e ? &before : nullptr);
      amaxOfTile = matrixOfPrev.amax;
      gOfTile = matrixOfPrev.g;
      // The tiles so far reduce into their matrix's amax when this tile
      // lies in another (the CTA's tiles mostly share one: one atomic a CTA,
      // after its last tile, instead of one a tile between the next tile's
      // loads and its cast).
      if (plan.amaxOut && before.e) {
        Value changes = matrixOfPrev.changed;
        {
          OpBuilder::InsertionGuard g(k.b);
          auto ifOp = scf::IfOp::create(k.b, k.loc, changes, /*withElse=*/false);
          k.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
          Value at = k.gep(p.amaxOut, k.f32(), k.zext(before.e, k.i64()));
          atomicMaxAbs(k, k.remu(tid, k.c64(32)), seenMax, at, /*onlyIfLarger=*/true);
        }
        seenMax = k.select(changes, k.cf32(0.0f), seenMax);
      }
      if (plan.amaxOut && last)
        knownMatrixAmax = k.load(
            k.i32(), k.gep(p.amaxOut, k.f32(), k.zext(matrixOfPrev.e, k.i64())), 4);
    }
    if (!plan.prologue.empty())
      for (int64_t u = 0; u < kUnroll; ++u)
        applyPrologue(k, f, plan.prologue, xs[u]);
    // Transforms that lie within one block group are applied group by group,
    // just before the group is cast, so that only one group's values are live
    // at a time (the other groups wait as packed input words).
    bool hadamardPerGroup = plan.hadamard && consecutive && plan.hadamard <= group * kVec;
    // NVFP4 with a per-group transform then fits four CTAs an SM (64
    // registers, 4 bytes spilled): Hadamard 16 + NVFP4 + rs cast 140.4 ->
    // 138.4 us at 16384x8192 on H200 (71 registers, 3 CTAs, without).
    if (hadamardPerGroup && plan.scaleKind == num::ScaleKind::NVFP4 && plan.tiles == 1)
      f->setAttr("nvvm.minctasm", b.getI32IntegerAttr(4));
    if (plan.hadamard && consecutive && !hadamardPerGroup)
      applyHadamardRun(k, xs, vbase, plan.hadamard, plan.hadamardSeed);
    else if (plan.hadamard && !consecutive)
      for (int64_t u = 0; u < kUnroll; ++u)
        applyHadamard(k, xs[u], vs[u], plan.hadamard, plan.hadamardSeed);
    // Block casts reduce every block's amax below; per tensor, the values.
    // Vectors past the end count nothing: they are zeros where consecutive
    // vectors are loaded (as zeros) and neither transformed nor given to a
    // prologue; otherwise masked (vector 0, or values transformed with
    // whatever the partner lanes hold).
    bool pastEndZero = consecutive && !plan.hadamard && plan.prologue.empty();
    auto seen = [&](Value m, Value ok) {
      return pastEndZero ? m : k.select(ok, m, k.cf32(0.0f));
    };
    if (plan.amaxOut && !plan.blockK)
      for (int64_t u = 0; u < kUnroll; ++u)
        seenMax = k.fmaxNaN(seenMax, seen(absMax(k, xs[u]), oks[u]));
    // Rows of the vectors, where the output layout needs them.
    SmallVector<RowPos> pos;
    if (plan.blockedScales || plan.packing == LayoutKind::fp6_planes)
      pos = rowPositions(k, vbase, vstep, kUnroll, k.divu(cols, k.c64(kVec)));

    // Per group of vectors (the thread's share of a block): its scale, then
    // one branch on the scale's fast path around all of the group's
    // conversions (branchOnFast), instead of one a vector. H200, % of copy
    // at 16384x8192 / 131072x7168: NVFP4 90.8 -> 94.9 / 97.1 -> 102.3, NVFP4
    // delayed 88.6 -> 92.3 / 95.5 -> 100.0, Hadamard 16 + NVFP4 + rs 59.5 ->
    // 63.6 / 61.9 -> 66.4. One branch around the whole tile's conversions
    // (both blocks' scales first) spills under the 64 registers of four CTAs
    // an SM: NVFP4 74.4 / 78.6%. The NVFP4 + rs cast of two tiles a CTA keeps
    // one branch a vector: a branch a block spills more there (75 local
    // loads and stores against 24); the H200 gained 1.3-2.3 points with it,
    // the H100, where memory bounds that cast, lost 2.7-4.6 (96.7 -> 92.1 /
    // 102.2 -> 99.5%).
    Type codeTy = plan.elem.bits() <= 4 ? k.i32() : k.i64();
    SmallVector<Value> codes(kUnroll);
    std::array<Value, 4> philoxWords;
    for (int64_t g = 0; g < kUnroll; g += group) {
      // An NVFP4 block's transform leaves its power-of-two factor (1/4 for
      // n = 16) to the division (Scale::pending): the block amax takes it
      // once, max |h| * f = max |h * f| (rounding is monotonic), instead of
      // every value.
      float pending = 1.0f;
      if (hadamardPerGroup) {
        // the group starts at a multiple of the transform size (8 g is a
        // multiple of 8 * group >= n), as applyHadamardRun requires
        SmallVector<SmallVector<Value>> run(xs.begin() + g, xs.begin() + g + group);
        pending = applyHadamardRun(k, run, k.add(vbase, k.c64(g)), plan.hadamard,
                                   plan.hadamardSeed,
                                   /*defer=*/splitSigns && plan.scaleKind == num::ScaleKind::NVFP4);
        std::copy(run.begin(), run.end(), xs.begin() + g);
      }
      Value amax = amaxOfTile;
      if (plan.blockK) {
        SmallVector<Value> m;
        for (int64_t u = g; u < g + group; ++u)
          m.push_back(rawBf16 ? absMaxBf16Words(k, raws[u], plan.bf16AbsMinMax)
                              : absMax(k, xs[u]));
        amax = absMax(k, m); // of non-negative values: their max
        for (int64_t off = 1; off < sharing; off *= 2)
          amax = k.fmaxNaN(amax, k.shuffleXor(amax, off));
        if (pending != 1.0f)
          amax = k.fmul(amax, k.cf32(pending));
        if (plan.amaxOut) // a block lies wholly before the end or past it
          seenMax = k.fmaxNaN(seenMax, seen(amax, oks[g]));
      }
      Scale s = blockScale(k, plan, amax, gOfTile);
      // per tensor, the amax may be a given one, which need not bound x
      s.unbounded = !plan.blockK;
      if (pending != 1.0f)
        qk::deferFactor(k, s, pending);
      // The random bits of vector u: Philox blocks in vector order, ahead of
      // the branch that shares them, else as the conversions need them.
      SmallVector<SmallVector<Value>> rbitsOf(group);
      auto rbitsFor = [&](int64_t u) -> ArrayRef<Value> {
        SmallVector<Value> &r = rbitsOf[u - g];
        if (!rs || !r.empty())
          return r;
        Value v = vs[u];
        // Elements 8v..8v+7 are cvt.rs groups 2v and 2v+1: words 2(v%2) and
        // 2(v%2)+1 of Philox block v/2 (consecutive vectors share a block).
        if (!consecutive || u % 2 == 0)
          philoxWords = philox(k, k.divu(v, k.c64(2)), seed);
        if (consecutive) {
          r = {philoxWords[2 * (u % 2)], philoxWords[2 * (u % 2) + 1]};
        } else {
          Value odd = k.cmp(P::ne, k.band(v, k.c64(1)), k.c64(0));
          r = {k.select(odd, philoxWords[2], philoxWords[0]),
               k.select(odd, philoxWords[3], philoxWords[1])};
        }
        return r;
      };
      // The group's codes under scale sc.
      auto convertGroup = [&](const Scale &sc) {
        SmallVector<Value> out;
        for (int64_t u = g; u < g + group; ++u) {
          ArrayRef<Value> rbits = rbitsFor(u);
          if (pairsBf16)
            out.push_back(convertBf16Pairs(k, plan, raws[u][0], sc.factor));
          else if (splitSigns)
            out.push_back(convertFp4SplitSigns(k, plan, sc, xs[u], rbits,
                                               rawBf16 ? raws[u][0] : Value()));
          else
            out.push_back(convert8(k, plan, applyScale(k, sc, xs[u]), rbits));
          assert(out.back().getType() == codeTy && "codes are i32 (fp4x2) or i64");
        }
        return out;
      };
      SmallVector<Value> groupCodes;
      if (s.divide && s.fast && group > 1 && !(rs && plan.tiles > 1)) {
        for (int64_t u = g; u < g + group; ++u)
          (void)rbitsFor(u); // the random bits drawn ahead of the branch
        groupCodes = qk::branchOnFast(k, s, SmallVector<Type>(group, codeTy), convertGroup);
      } else {
        groupCodes = convertGroup(s);
      }
      for (int64_t u = g; u < g + group; ++u) {
        codes[u] = groupCodes[u - g];
        if (!runs)
          ::storeCodes(k, plan, out, vs[u], codes[u], oks[u], cols,
                     pos.empty() ? nullptr : &pos[u]);
      }
      // One thread per block writes its scale.
      if (plan.blockK) {
        Value v = vs[g];
        Value store = oks[g];
        if (sharing > 1)
          store = k.land(store, k.cmp(P::eq, k.remu(tid, k.c64(sharing)), k.c64(0)));
        Value off = k.divu(v, k.c64(lanes));
        if (plan.blockedScales) {
          Value scaleCols = k.divu(cols, k.c64(plan.blockK));
          off = blockedOffset(k, k.zext(pos[g].row, k.i64()),
                              k.divu(k.zext(pos[g].col, k.i64()), k.c64(lanes)),
                              scaleCols);
        }
        Type st = s.store.getType();
        k.storeIf(store, s.store, k.gep(scales, st, off), st.getIntOrFloatBitWidth() / 8);
      }
    }
    if (runs) {
      Value all = oks[kUnroll - 1];
      auto ifOp = scf::IfOp::create(k.b, k.loc, all, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard g(k.b);
        k.b.setInsertionPointToStart(ifOp.thenBlock());
        storeCodesRun(k, plan, out, vs[0], codes, all, cols,
                      pos.empty() ? RowPos{} : pos[0]);
      }
      OpBuilder::InsertionGuard g(k.b);
      k.b.setInsertionPointToStart(ifOp.elseBlock());
      for (int64_t u = 0; u < kUnroll; ++u)
        ::storeCodes(k, plan, out, vs[u], codes[u], oks[u], cols,
                   pos.empty() ? nullptr : &pos[u]);
    }
  };
  // Tiles bid * tiles + i, the next one's loads before the current one's cast.
  TileIn cur = loadTile(k.mul(bid, k.c64(plan.tiles)), /*now=*/true);
  Value knownAmax;
  for (int64_t i = 0; i < plan.tiles; ++i) {
    TileIn next;
    if (i + 1 < plan.tiles)
      next = loadTile(k.add(k.mul(bid, k.c64(plan.tiles)), k.c64(i + 1)), /*now=*/false);
    else if (plan.amaxOut && !plan.matrixAmax) // the stored amax, read while the
      knownAmax = k.load(k.i32(), p.amaxOut, 4);   // last tile is cast
    castTile(cur, /*last=*/i + 1 == plan.tiles);
    cur = std::move(next);
  }
  // The maximum goes to the tensor's amax, or to the last tile's matrix's (a
  // tile lies in one matrix; one past the end holds zeros).
  if (plan.amaxOut && !plan.matrixAmax)
    atomicMaxAbs(k, k.remu(tid, k.c64(32)), seenMax, p.amaxOut, /*onlyIfLarger=*/true,
                 knownAmax);
  else if (plan.amaxOut) {
    Value at = k.gep(p.amaxOut, k.f32(), k.zext(matrixOfPrev.e, k.i64()));
    atomicMaxAbs(k, k.remu(tid, k.c64(32)), seenMax, at, /*onlyIfLarger=*/true,
                 knownMatrixAmax);
  }
  if (!plan.blockK) {
    // Per tensor: global thread 0 writes the one scale.
    Scale s = blockScale(k, plan, tensorAmax, globalScale);
    Value first = k.cmp(P::eq, k.bor(tid, bid), k.c64(0));
    Type st = s.store.getType();
    k.storeIf(first, s.store, k.gep(scales, st, k.c64(0)),
              st.getIntOrFloatBitWidth() / 8);
  }
  gpu::ReturnOp::create(b, loc);
  return desc;
}

bool fpx::colTunedForHopper(const QuantizePlan &plan) {
  return plan.inElem.isBF16() && plan.rounding == RoundingKind::rn &&
         plan.scaleKind == num::ScaleKind::E8M0 && plan.hopperShapes;
}

namespace {
/// Stores scale bytes [jb0, jb0 + n) of one column, staged in shared memory
/// at src(), to `dst`: as one n-byte word where all n are within the
/// column's blocksPerCol (and dst is a multiple of alignTo, if given), else
/// byte by byte (the blocks from blocksPerCol on are past the matrix and
/// not stored).
void storeScaleRun(KernelBuilder &k, Value scales, Value tile,
                   llvm::function_ref<Value()> src, Value dst, int64_t n, Value jb0,
                   Value colOk, Value blocksPerCol, int64_t alignTo) {
  Value from = src();
  Value wordOk = k.land(colOk, k.cmp(P::ule, k.add(jb0, k.c64(n)), blocksPerCol));
  if (alignTo)
    wordOk = k.land(wordOk, k.cmp(P::eq, k.remu(dst, k.c64(alignTo)), k.c64(0)));
  Value word = k.load(k.b.getIntegerType(8 * n), k.gep(tile, k.i8(), from), n);
  k.storeIf(wordOk, word, k.gep(scales, k.i8(), dst), n);
  Value bytesOk = k.land(colOk, k.bxor(wordOk, k.cmp(P::eq, k.c64(0), k.c64(0))));
  for (int64_t i = 0; i < n; ++i) {
    Value okb = k.land(bytesOk, k.cmp(P::ult, k.add(jb0, k.c64(i)), blocksPerCol));
    Value byte = k.load(k.i8(), k.gep(tile, k.i8(), k.add(from, k.c64(i))), 1);
    k.storeIf(okb, byte, k.gep(scales, k.i8(), k.add(dst, k.c64(i))), 1);
  }
}

/// A column cast's scales of column c in this tile (blocksPerTile bytes
/// staged at src(), its blocks from firstBlock on), row-major: matrix bz's
/// (cols, blocksPerCol) scales, one word.
void storeColumnScales(KernelBuilder &k, Value scales, Value tile,
                       llvm::function_ref<Value()> src, Value c, Value colOk,
                       Value firstBlock, int64_t blocksPerTile, Value blocksPerCol,
                       Value cols, Value bz) {
  Value dst = k.add(k.mul(k.add(k.mul(bz, cols), c), blocksPerCol), firstBlock);
  storeScaleRun(k, scales, tile, src, dst, blocksPerTile, firstBlock, colOk, blocksPerCol,
                blocksPerTile);
}

/// The same in the blocked 128x4 layout of each matrix's (cols,
/// blocksPerCol) scales, padded to 128-row and 4-column multiples (the
/// runtime zeroes the buffer, so the padding reads 0 as
/// num::swizzleBlocked's): four consecutive blocks of a column from a
/// multiple of 4 are four contiguous bytes there, one word (two or one
/// byte for 64- and 128-row blocks).
void storeBlockedColumnScales(KernelBuilder &k, Value scales, Value tile,
                              llvm::function_ref<Value()> src, Value c, Value colOk,
                              Value firstBlock, int64_t blocksPerTile,
                              Value blocksPerCol, Value cols, Value bz) {
  Value paddedRows = k.mul(k.divu(k.add(cols, k.c64(127)), k.c64(128)), k.c64(128));
  Value paddedCols = k.mul(k.divu(k.add(blocksPerCol, k.c64(3)), k.c64(4)), k.c64(4));
  Value base = k.mul(bz, k.mul(paddedRows, paddedCols));
  Value src0 = src();
  const int64_t n = std::min<int64_t>(blocksPerTile, 4);
  for (int64_t g = 0; g < blocksPerTile; g += n) {
    Value jb = k.add(firstBlock, k.c64(g));
    Value dst = k.add(base, blockedOffset(k, c, jb, blocksPerCol));
    storeScaleRun(k, scales, tile, [&] { return k.add(src0, k.c64(g)); }, dst, n, jb, colOk,
                  blocksPerCol, 0);
  }
}
} // namespace

KernelDesc fpx::buildColQuantizeKernel(OpBuilder &b, Location loc,
                                       StringRef name, int64_t blockM,
                                       const QuantizePlan &plan,
                                       gpu::GPUModuleOp module, bool narrow) {
  OpBuilder::InsertionGuard guard(b);
  Type sptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  bool wide = plan.inElem.isF32();
  unsigned elemBytes = wide ? 4 : 2;
  // A CTA owns kColTileRows x tileCols of one matrix: every output row it
  // writes gets kColTileRows contiguous codes (a full 128-byte line for
  // MXFP8, 64 bytes for fp4x2: a 256 x 64 tile, 128 bytes a row, measured
  // 2.5-4 points slower with the f32 conversion the fp4 columns had before
  // their bf16 pairs below, docs/results/2026-11-27-h100-27), and consecutive
  // CTAs along x continue the same output rows.
  const bool fp4 = plan.elem.bits() <= 4;
  const int64_t tileRows = kColTileRows;
  const int64_t tileCols = colTileCols(plan.inElem, narrow);
  const int64_t blocksPerTile = tileRows / blockM;

  // The staging tile, a workgroup global of the kernel's module.
  std::string smemName = (name + "_tile").str();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    Type elemTy = wide ? b.getI32Type() : b.getI16Type();
    auto arr = LLVM::LLVMArrayType::get(elemTy, tileRows * tileCols);
    LLVM::GlobalOp::create(b, loc, arr, /*isConstant=*/false,
                           LLVM::Linkage::Internal, smemName, Attribute(),
                           /*alignment=*/16, /*addrSpace=*/3);
  }

  assert(!plan.amaxOut && "an fpx.amax fuses into row casts only");
  KernelDesc desc = qk::makeCastKernel(b, loc, name, plan, {"rows", "cols"});
  bool rs = plan.rounding == RoundingKind::rs;
  gpu::GPUFuncOp f = desc.func;
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  qk::CastParams p = qk::castParams(entry, plan);
  Value in = p.in, out = p.out, scales = p.scales, amaxPtr = p.amax, seed = p.seed,
        rows = p.extent0, cols = p.extent1;

  Value tid = k.threadIdx();
  Value bx = k.blockIdx(gpu::Dimension::x), by = k.blockIdx(gpu::Dimension::y),
        bz = k.blockIdx(gpu::Dimension::z);
  Value r0 = k.mul(bx, k.c64(tileRows)), c0 = k.mul(by, k.c64(tileCols));
  Value plane = k.mul(rows, cols);
  Value inBase = k.mul(bz, plane);
  Value tile = LLVM::AddressOfOp::create(b, loc, sptr, smemName);
  Type smemElem = wide ? k.i32() : k.i16();

  // bf16 columns come in pairs (one shared word a row): both columns' block
  // maxima by packed max over the words, which are read again for the
  // conversion instead of being kept: 48 registers, five CTAs an SM, for
  // the round-to-nearest E8M0 casts on Hopper (where it was measured; rs and
  // NVFP4 spill 72-248 bytes there, and the other targets keep three too).
  // Measured on an H100 (docs/results/2026-11-24-h100-14), % of copy at
  // 16384x8192 / 131072x7168 / (1, 8192, 5120) / (8, 8192, 5120): 91.7 /
  // 95.8 / 84.5 / 95.3 with the tile staged through registers at three
  // CTAs (79 registers) and maxima on widened values, 92.1-92.4 / 95.6-95.8
  // / 85.7-86.5 / 95.5-95.9 this way; the words kept at four CTAs (64) in
  // between, six CTAs (40, spilling) 1.5-3 points slower; the CTAs' raster
  // regrouped (8 or 16 column tiles, or 4 or 16 row tiles, at a time) 0.4 -
  // 2 points slower.
  // The other round-to-nearest bf16 casts on Hopper (NVFP4 16x1, fp32
  // scales) run four CTAs an SM: NVFP4 16x1 fits 64 registers without
  // spilling and went 86.2 / 90.9 -> 90.0 / 96.6% of copy from three
  // (docs/results/2026-11-27-h100-26); rs spills 24-152 bytes at four.
  // The fp32-scale column casts take four CTAs too: 64 registers without
  // spilling (a pair's second column read again, below), fp8 128x1 at
  // 91.4 / 95.7% of copy, 32x1 at 89.1 / 92.6 (docs/results/2026-11-27-h100-27).
  // The narrow tile's 256 threads take one bf16 column and block each.
  bool packed = plan.inElem.isBF16() && !narrow;
  bool fiveCtas = colTunedForHopper(plan);
  assert((!narrow || fiveCtas) && "the narrow tile is the Hopper bf16 E8M0 rn cast's");
  bool fourCtas = !fiveCtas && plan.inElem.isBF16() && plan.rounding == RoundingKind::rn &&
                  plan.hopperShapes;
  f->setAttr("nvvm.minctasm", b.getI32IntegerAttr(fiveCtas ? 5 : fourCtas ? 4 : 3));

  // Stage the tile by cp.async (no registers hold it on the way): 16-byte
  // copies, every one issued before the first wait.
  int64_t chunksPerRow = tileCols * elemBytes / 16;
  int64_t rowsPerPass = kThreads / chunksPerRow;
  int64_t elemsPerChunk = 16 / elemBytes;
  Value chunk = k.remu(tid, k.c64(chunksPerRow));
  Value lr0 = k.divu(tid, k.c64(chunksPerRow));
  Value gcol = k.add(c0, k.mul(chunk, k.c64(elemsPerChunk)));
  Value colOk = k.cmp(P::ult, gcol, cols);
  for (int64_t p = 0; p < tileRows / rowsPerPass; ++p) {
    Value lr = k.add(lr0, k.c64(p * rowsPerPass));
    Value r = k.add(r0, lr);
    Value ok = k.land(colOk, k.cmp(P::ult, r, rows));
    Value gidx = k.add(inBase, k.add(k.mul(r, cols), gcol));
    Value src = k.gep(in, wide ? k.f32() : k.i16(), k.select(ok, gidx, k.c64(0)));
    Value sidx = k.add(k.mul(lr, k.c64(tileCols)), k.mul(chunk, k.c64(elemsPerChunk)));
    k.cpAsync16(k.gep(tile, smemElem, sidx), src);
  }
  k.cpAsyncWaitAll();
  k.barrier();

  Value globalScale = k.cf32(1.0f);
  if (plan.tensorAmax && plan.scaleKind == num::ScaleKind::NVFP4)
    globalScale = nvfp4GlobalScale(k, k.load(k.f32(), amaxPtr, 4));
  qk::storeGlobalScale(k, p, globalScale);
  Value blocksPerCol = k.divu(rows, k.c64(blockM));

  // (column group, block) units: a warp takes 32 neighbouring groups of one
  // block row, so its shared-memory reads are conflict-free. A group is the
  // 4 bytes one shared load returns: two columns of a 16-bit input (one
  // bf16 column of the narrow tile, whose 64 columns give a thread a block).
  const int64_t colsPerGroup = wide || narrow ? 1 : 2;
  const int64_t groups = tileCols / colsPerGroup;
  // A unit is segM rows of a group: a whole block where every thread gets
  // one that way (blocks of up to 32 rows), else a 32-row segment of it
  // (64- and 128-row blocks), the segments' maxima meeting through shared
  // memory.
  const int64_t segM = std::min<int64_t>(blockM, groups * tileRows / kThreads);
  const int64_t segs = blockM / segM;
  int64_t unitsPerThread = groups * (tileRows / segM) / kThreads;
  assert(unitsPerThread >= 1 && segM % kVec == 0 && "a unit for every thread");
  // Codes wait in registers, then go out through shared memory so that a
  // warp writes whole output rows of the tile (128-byte lines for bytes;
  // 64x256 and 256x64 tiles measured 1-3 points below 128x128 for MXFP8,
  // docs/results/2026-11-24-h100-14).
  struct Pending {
    Value colInTile, seg;     // seg: the unit's segment (block) of the tile
    SmallVector<Value> words; // words of 8 codes: i64 bytes, or i32 fp4x2
    Value scale;              // an i8 scale code, staged too (or null)
    Value scaleOk;            // whether this unit stores it (null: always)
  };
  SmallVector<Pending> pending;
  struct Unit {
    Value uidx, gl, j, rb, rowOk, first; // first: segment 0 of its block
    SmallVector<Value, 2> amax;   // each column's maximum over the unit
    SmallVector<Scale, 2> scales; // each column's scale (packed or segments)
  };
  SmallVector<Unit> units;
  auto sharedWord = [&](const Unit &u, int64_t r) {
    Value sidx = k.add(k.mul(k.add(k.mul(u.j, k.c64(segM)), k.c64(r)),
                             k.c64(tileCols)),
                       k.mul(u.gl, k.c64(colsPerGroup)));
    if (narrow) // one bf16, widened
      return k.bitcast(k.shl(k.zext(k.load(k.i16(), k.gep(tile, k.i16(), sidx), 2), k.i32()),
                             k.c32(16)),
                       k.f32());
    Type t = wide ? k.f32() : k.i32();
    return k.load(t, k.gep(tile, wide ? k.f32() : k.i16(), sidx), 4);
  };
  auto blockWords = [&](const Unit &u) {
    SmallVector<Value> words;
    for (int64_t r = 0; r < segM; ++r)
      words.push_back(sharedWord(u, r));
    return words;
  };
  // Each column's values of a unit, as f32 (with `only`, that column's
  // alone: the other's stay empty).
  auto unitColumns = [&](const Unit &u, std::optional<int64_t> only = std::nullopt) {
    SmallVector<SmallVector<Value>> cs(colsPerGroup);
    if (packed) {
      for (Value w : blockWords(u)) {
        std::array<Value, 2> hv = bf16Halves(k, w);
        for (int64_t h = 0; h < 2; ++h)
          if (!only || *only == h)
            cs[h].push_back(hv[h]);
      }
      return cs;
    }
    for (int64_t r = 0; r < segM; ++r) {
      Value w = sharedWord(u, r);
      if (wide || narrow) {
        cs[0].push_back(w);
        continue;
      }
      for (int h = 0; h < 2; ++h) { // f16 pairs
        Value half = h ? k.shru(w, k.c32(16)) : k.band(w, k.c32(0xffff));
        Value f16 = k.bitcast(k.trunc(half, k.i16()), b.getF16Type());
        cs[h].push_back(arith::ExtFOp::create(b, loc, k.f32(), f16));
      }
    }
    return cs;
  };
  for (int64_t i = 0; i < unitsPerThread; ++i) {
    Unit u;
    u.uidx = k.add(tid, k.c64(i * kThreads));
    u.gl = k.remu(u.uidx, k.c64(groups));
    u.j = k.divu(u.uidx, k.c64(groups));
    u.rb = k.add(r0, k.mul(u.j, k.c64(segM)));
    u.rowOk = k.cmp(P::ult, u.rb, rows);
    if (segs > 1)
      u.first = k.cmp(P::eq, k.remu(u.j, k.c64(segs)), k.c64(0));
    if (packed) {
      // bf16 pairs: both columns' maxima by packed max over the words.
      std::array<Value, 2> amax =
          bf16Halves(k, absMaxBf16Lanes(k, blockWords(u), plan.bf16AbsMinMax));
      u.amax.assign(amax.begin(), amax.end());
      if (segs == 1)
        for (Value a : amax)
          u.scales.push_back(blockScale(k, plan, a, globalScale));
    } else if (segs > 1) {
      for (ArrayRef<Value> xs : unitColumns(u))
        u.amax.push_back(absMax(k, xs));
    }
    units.push_back(u);
  }
  if (segs > 1) {
    // Segments' maxima through shared memory: every unit's, then each unit
    // takes its block's segs of them.
    std::string xName = (name + "_segmax").str();
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(module.getBody());
      auto arr = LLVM::LLVMArrayType::get(k.f32(), kThreads * unitsPerThread * colsPerGroup);
      LLVM::GlobalOp::create(b, loc, arr, /*isConstant=*/false, LLVM::Linkage::Internal, xName,
                             Attribute(), /*alignment=*/16, /*addrSpace=*/3);
    }
    Value xchg = LLVM::AddressOfOp::create(b, loc, sptr, xName);
    auto at = [&](Value uidx, int64_t h) {
      return k.gep(xchg, k.f32(), k.add(k.mul(uidx, k.c64(colsPerGroup)), k.c64(h)));
    };
    for (Unit &u : units)
      for (int64_t h = 0; h < colsPerGroup; ++h)
        k.store(u.amax[h], at(u.uidx, h), 4);
    k.barrier();
    for (Unit &u : units) {
      Value firstSeg = k.sub(u.j, k.remu(u.j, k.c64(segs)));
      for (int64_t h = 0; h < colsPerGroup; ++h) {
        Value m;
        for (int64_t sg = 0; sg < segs; ++sg) {
          Value partner = k.add(u.gl, k.mul(k.add(firstSeg, k.c64(sg)), k.c64(groups)));
          Value v = k.load(k.f32(), at(partner, h), 4);
          m = sg ? k.fmaxNaN(m, v) : v;
        }
        u.scales.push_back(blockScale(k, plan, m, globalScale));
      }
    }
  }
  if (packed)
    k.barrier(); // (so that the words are read again below, not kept live)
  for (Unit &u : units) {
    Value gl = u.gl, j = u.j, rb = u.rb, rowOk = u.rowOk;
    // f32 scales divide behind a branch a column: a bf16 pair's second
    // column reads the words again after the first is cast (behind a
    // barrier, so that they are not kept live across the first's branch):
    // 128x1 and 32x1 blocks at four CTAs an SM went from 64 registers and
    // 92-104 bytes spilled to none spilled.
    bool columnByColumn = packed && plan.scaleKind == num::ScaleKind::FP32;
    // E8M0-scaled e2m1 of bf16 pairs (rn) converts as the row casts do
    // (convertBf16Pairs: a packed bf16x2 product, two values an emulated
    // conversion), on words re-paired to hold two rows of one column:
    // MXFP4 32x1 86.4 / 92.4 -> 93.7 / 99.2% of copy at 16384x8192 /
    // 131072x7168 on an H100, 44 registers against 48 and a spill
    // (docs/results/2026-11-27-h100-27). The narrow tile (one widened bf16
    // column a thread) pairs its values again the same way: MXFP4 at
    // 2048x7168 58.8 -> 66.5%. MXFP8 (e4m3 from bf16 pairs, widened on
    // sm_90) measured 0.1-1 point slower that way in both tiles
    // (docs/results/2026-11-27-h100-28) and keeps the f32 path.
    bool bf16Pairs = (packed || narrow) && plan.scaleKind == num::ScaleKind::E8M0 && !rs && fp4;
    SmallVector<Value> raw;
    SmallVector<SmallVector<Value>> cols_;
    if (bf16Pairs && packed)
      raw = blockWords(u);
    else if (!columnByColumn)
      cols_ = unitColumns(u);
    for (int64_t h = 0; h < colsPerGroup; ++h) {
      Value c = k.add(c0, k.add(k.mul(gl, k.c64(colsPerGroup)), k.c64(h)));
      Value ok = k.land(k.cmp(P::ult, c, cols), rowOk);
      if (columnByColumn) {
        if (h)
          k.barrier(); // (the words are read again, not kept from the first)
        cols_ = unitColumns(u, h);
      }
      ArrayRef<Value> xs = bf16Pairs && packed ? ArrayRef<Value>() : ArrayRef<Value>(cols_[h]);
      Scale s = !u.scales.empty() ? u.scales[h]
                                  : blockScale(k, plan, absMax(k, xs), globalScale);
      // The transposed output (E, K, M): this block is contiguous.
      Value outFlat = k.add(k.mul(bz, plane), k.add(k.mul(c, rows), rb));
      SmallVector<SmallVector<Value>> rbits; // drawn ahead of the branch below
      for (int64_t g = 0; g < segM / kVec; ++g)
        rbits.push_back(rs ? rsWords(k, k.add(k.divu(outFlat, k.c64(kVec)), k.c64(g)), seed)
                           : SmallVector<Value>());
      // A block divided by its scale converts behind one branch on its fast
      // path (branchOnFast), e2m1 with the signs split off as the row casts
      // do (convertFp4SplitSigns: no clamp where |x / s| < 7).
      bool splitSigns = s.divide && plan.elem == num::e2m1fn() && plan.satfinite;
      auto blockCodes = [&](const Scale &sc) {
        SmallVector<Value> ws, ys;
        if (!splitSigns)
          ys = applyScale(k, sc, xs);
        for (int64_t g = 0; g < segM / kVec; ++g)
          ws.push_back(splitSigns ? convertFp4SplitSigns(k, plan, sc, xs.slice(g * kVec, kVec),
                                                         rbits[g], Value())
                                  : convert8(k, plan, ArrayRef<Value>(ys).slice(g * kVec, kVec),
                                             rbits[g]));
        return ws;
      };
      Type codeTy = fp4 ? k.i32() : k.i64();
      SmallVector<Value> words;
      if (bf16Pairs) {
        for (int64_t g = 0; g < segM / kVec; ++g) {
          SmallVector<Value> pairs; // rows 2i, 2i + 1 of column h
          for (int64_t i = 0; i < kVec / 2; ++i) {
            int64_t r = g * kVec + 2 * i;
            if (narrow) { // widened bf16s: their bits are the high halves
              pairs.push_back(k.bor(k.shru(k.bitcast(xs[r], k.i32()), k.c32(16)),
                                    k.bitcast(xs[r + 1], k.i32())));
              continue;
            }
            Value a = raw[r], b2 = raw[r + 1];
            pairs.push_back(h ? k.bor(k.shru(a, k.c32(16)), k.band(b2, k.c32(0xffff0000u)))
                              : k.bor(k.band(a, k.c32(0xffff)), k.shl(b2, k.c32(16))));
          }
          words.push_back(convertBf16Pairs(k, plan, k.vector(pairs), s.factor));
        }
      } else {
        words = s.divide && s.fast
                    ? branchOnFast(k, s, SmallVector<Type>(segM / kVec, codeTy), blockCodes)
                    : blockCodes(s);
      }
      Type st = s.store.getType();
      bool stageScale = st.isInteger(8);
      pending.push_back(
          {k.sub(c, c0), j, words, stageScale ? s.store : Value(), u.first});
      if (!stageScale) {
        Value scaleIdx = k.add(k.mul(k.add(k.mul(bz, cols), c), blocksPerCol),
                               k.divu(rb, k.c64(blockM)));
        k.storeIf(u.first ? k.land(ok, u.first) : ok, s.store, k.gep(scales, st, scaleIdx),
                  st.getIntOrFloatBitWidth() / 8);
      }
    }
  }
  {
    // The input tile is free once every thread has read its columns: reuse
    // it as tileCols rows of the tile's codes (tileRows bytes, or half that
    // for fp4x2), written as whole rows below. A row is made of slots of 8
    // or 16 bytes, XOR swizzled by the row so that the scattered writes
    // here conflict at most two-way (8-byte slots) and the row-wise reads
    // below not at all. A block's codes fill a slot (NVFP4 16x1: 8 bytes,
    // MXFP4 32x1: 16), two (a 32-code block of bytes), or half of one (fp4
    // 8x1: 4 bytes). Codes stored by each thread straight from registers
    // measured 57-73% of copy for MXFP8 against 86-96%
    // (docs/results/2026-11-24-h100-14), and 22-27% for NVFP4 16x1's 4-byte
    // stores (docs/results/2026-11-27-h100-26).
    const int64_t codeBits = fp4 ? 4 : 8;
    const int64_t rowBytes = tileRows * codeBits / 8;
    const int64_t blockBytes = blockM * codeBits / 8; // 4 (fp4 8x1) .. 128
    const int64_t segBytes = segM * codeBits / 8;     // a unit's codes
    const int64_t slotBytes = std::clamp<int64_t>(segBytes, 8, 16);
    const int64_t slotsPerRow = rowBytes / slotBytes;
    const int64_t slotsPerUnit = 16 / slotBytes; // 16-byte units, 1 or 2 slots
    const int64_t unitsPerRow = rowBytes / 16;
    // A unit's codes are stored in chunks of at most a slot.
    const int64_t chunkBytes = std::min(segBytes, slotBytes);
    auto slotKey = [&](Value row) {
      return k.band(k.divu(row, k.c64(colsPerGroup)), k.c64(slotsPerRow - 1));
    };
    auto slotOffset = [&](Value row, Value slot) {
      return k.add(k.mul(row, k.c64(rowBytes)),
                   k.mul(k.bxor(slot, slotKey(row)), k.c64(slotBytes)));
    };
    // The scale codes of a column's blocks in this tile are consecutive
    // bytes of its scale row: stage them after the codes, write them as one
    // word per column.
    int64_t scaleBase = tileCols * rowBytes;
    bool stagedScales = !pending.empty() && pending.front().scale;
    k.barrier();
    for (Pending &p : pending) {
      int64_t wordBytes = p.words.front().getType().getIntOrFloatBitWidth() / 8;
      int64_t wordsPerChunk = chunkBytes / wordBytes;
      for (size_t g = 0; g < p.words.size(); g += wordsPerChunk) {
        Value off;
        if (segBytes >= slotBytes) { // whole slots
          Value slot = k.add(k.mul(p.seg, k.c64(segBytes / slotBytes)),
                             k.c64(g / wordsPerChunk));
          off = slotOffset(p.colInTile, slot);
        } else { // blocks share a slot, at their own bytes of it
          int64_t perSlot = slotBytes / segBytes;
          off = k.add(slotOffset(p.colInTile, k.divu(p.seg, k.c64(perSlot))),
                      k.mul(k.remu(p.seg, k.c64(perSlot)), k.c64(segBytes)));
        }
        k.store(k.vector(ArrayRef<Value>(p.words).slice(g, wordsPerChunk)),
                k.gep(tile, k.i8(), off), chunkBytes);
      }
      if (p.scale) {
        Value block = segs > 1 ? k.divu(p.seg, k.c64(segs)) : p.seg;
        Value off = k.add(k.c64(scaleBase),
                          k.add(k.mul(p.colInTile, k.c64(blocksPerTile)), block));
        if (p.scaleOk)
          k.storeIf(p.scaleOk, p.scale, k.gep(tile, k.i8(), off), 1);
        else
          k.store(p.scale, k.gep(tile, k.i8(), off), 1);
      }
    }
    k.barrier();
    if (stagedScales) {
      // One thread per column: blocksPerTile bytes, as one word when the
      // scale row keeps it aligned, else byte by byte.
      Value cl = tid;
      Value c = k.add(c0, cl);
      Value inTile = k.cmp(P::ult, cl, k.c64(tileCols));
      Value colOk2 = k.land(inTile, k.cmp(P::ult, c, cols));
      Value firstBlock = k.divu(r0, k.c64(blockM));
      auto src = [&] {
        return k.add(k.c64(scaleBase),
                     k.mul(k.select(inTile, cl, k.c64(0)), k.c64(blocksPerTile)));
      };
      if (plan.blockedScales)
        storeBlockedColumnScales(k, scales, tile, src, c, colOk2, firstBlock, blocksPerTile,
                                 blocksPerCol, cols, bz);
      else
        storeColumnScales(k, scales, tile, src, c, colOk2, firstBlock, blocksPerTile,
                          blocksPerCol, cols, bz);
    }
    // Write-out: unitsPerRow threads an output row, 16 bytes each (32
    // codes of fp4x2, 16 of bytes).
    Type v2 = k.vec(2, k.i64());
    int64_t rowsPerPass = kThreads / unitsPerRow;
    int64_t codesPerUnit = 16 * 8 / codeBits;
    Value unit = k.remu(tid, k.c64(unitsPerRow));
    // Where a block is under 16 bytes (NVFP4 16x1, fp4 or byte 8x1) and M
    // does not fill whole units, an output row starts only block-aligned
    // and may end inside a unit: each block-sized piece of the unit is
    // stored by itself (a launch-wide branch).
    const int64_t pieceBytes = std::min<int64_t>(blockBytes, 16);
    Value pieces = pieceBytes < 16
                       ? k.cmp(P::ne, k.remu(rows, k.c64(codesPerUnit)), k.c64(0))
                       : Value();
    for (int64_t p = 0; p < tileCols / rowsPerPass; ++p) {
      Value cl = k.add(k.divu(tid, k.c64(unitsPerRow)), k.c64(p * rowsPerPass));
      Value key = slotKey(cl);
      Value phys = k.bxor(unit, k.divu(key, k.c64(slotsPerUnit)));
      Value vec = k.load(v2, k.gep(tile, k.i8(), k.add(k.mul(cl, k.c64(rowBytes)),
                                                        k.mul(phys, k.c64(16)))), 16);
      if (slotsPerUnit == 2) { // the unit's slots swapped where the key is odd
        Value lo = k.extract(vec, 0), hi = k.extract(vec, 1);
        Value swap = k.cmp(P::ne, k.band(key, k.c64(1)), k.c64(0));
        vec = k.vector({k.select(swap, hi, lo), k.select(swap, lo, hi)});
      }
      Value c = k.add(c0, cl);
      Value r = k.add(r0, k.mul(unit, k.c64(codesPerUnit)));
      Value rowOk = k.cmp(P::ult, r, rows);
      Value colOk = k.cmp(P::ult, c, cols);
      Value ok = k.land(colOk, rowOk);
      // byte offset of code (c, r) of matrix bz in the (E, K, M) output
      Value dst = k.add(k.mul(bz, plane), k.add(k.mul(c, rows), r));
      if (fp4)
        dst = k.divu(dst, k.c64(2));
      if (!pieces) {
        k.storeIf(ok, vec, k.gep(out, k.i8(), dst), 16);
        continue;
      }
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, pieces, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        int64_t n = 16 / pieceBytes, codesPerPiece = codesPerUnit / n;
        Value parts = n == 2 ? vec
                             : k.bitcast(vec, k.vec(n, b.getIntegerType(8 * pieceBytes)));
        SmallVector<Value> pieceOk = {ok}; // piece i: its first code within M
        for (int64_t i = 1; i < n; ++i)
          pieceOk.push_back(
              k.land(colOk, k.cmp(P::ult, k.add(r, k.c64(i * codesPerPiece)), rows)));
        for (int64_t i = 0; i < n; ++i) {
          Value at = i ? k.add(dst, k.c64(i * pieceBytes)) : dst;
          k.storeIf(pieceOk[i], k.extract(parts, i), k.gep(out, k.i8(), at), pieceBytes);
        }
      }
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.elseBlock());
      k.storeIf(ok, vec, k.gep(out, k.i8(), dst), 16);
    }
  }
  gpu::ReturnOp::create(b, loc);
  return desc;
}

KernelDesc fpx::buildAmaxKernel(OpBuilder &b, Location loc, StringRef name,
                                Type inElem, int64_t hadamard,
                                uint64_t hadamardSeed, bool perMatrix) {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx, 1);
  Type i64 = b.getI64Type();
  KernelDesc desc;
  desc.params = {"in", "out", "total"};
  gpu::GPUFuncOp f = makeKernel(b, loc, name, {ptr, ptr, i64});
  desc.func = f;
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  Value in = entry.getArgument(0), out = entry.getArgument(1),
        total = entry.getArgument(2);
  if (perMatrix) { // matrix blockIdx.y: its elements, its amax
    Value e = k.blockIdx(gpu::Dimension::y);
    in = k.gep(in, k.i8(), k.mul(k.mul(e, total), k.c64(inElem.getIntOrFloatBitWidth() / 8)));
    out = k.gep(out, k.f32(), e);
  }
  Value nvec = k.divu(total, k.c64(kVec));
  Value gridDim = k.gridDim();
  Value tid = k.threadIdx();
  Value lane = k.remu(tid, k.c64(32));
  // The loop runs per warp (every lane the same trip count) so that the
  // Hadamard shuffles always see the whole warp; lanes past the end read
  // vector 0 and count nothing.
  // Each trip loads kAmaxUnroll vectors (one grid stride apart) before
  // reducing any, so that many loads are in flight.
  constexpr int64_t kAmaxUnroll = 4;
  Value warpStart = k.add(k.mul(k.blockIdx(), k.c64(kThreads)), k.sub(tid, lane));
  Value step = k.mul(gridDim, k.c64(kThreads));
  auto loop = scf::ForOp::create(b, loc, warpStart, nvec, k.mul(step, k.c64(kAmaxUnroll)),
                                 ValueRange{k.cf32(0.0f)});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> vs, oks;
    SmallVector<SmallVector<Value>> raws;
    for (int64_t u = 0; u < kAmaxUnroll; ++u) {
      Value v = k.add(k.add(loop.getInductionVar(), lane), k.mul(step, k.c64(u)));
      Value ok = k.cmp(P::ult, v, nvec);
      vs.push_back(v);
      oks.push_back(ok);
      raws.push_back(loadRaw(k, inElem, in, k.select(ok, v, k.c64(0))));
    }
    Value m = loop.getRegionIterArgs()[0];
    for (int64_t u = 0; u < kAmaxUnroll; ++u) {
      Value a;
      if (inElem.isBF16() && !hadamard) {
        a = absMaxBf16Words(k, raws[u]);
      } else {
        SmallVector<Value> xs = widenRaw(k, inElem, raws[u]);
        if (hadamard)
          applyHadamard(k, xs, vs[u], hadamard, hadamardSeed);
        a = absMax(k, xs);
      }
      m = k.fmaxNaN(m, k.select(oks[u], a, k.cf32(0.0f)));
    }
    scf::YieldOp::create(b, loc, m);
  }
  atomicMaxAbs(k, lane, loop.getResult(0), out, /*onlyIfLarger=*/false);
  gpu::ReturnOp::create(b, loc);
  return desc;
}

KernelDesc fpx::buildGlobalScaleKernel(OpBuilder &b, Location loc, StringRef name,
                                      bool many) {
  OpBuilder::InsertionGuard guard(b);
  Type ptr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  KernelDesc desc;
  desc.params = {"amax", "out"};
  SmallVector<Type> args = {ptr, ptr};
  if (many) {
    desc.params.push_back("n");
    args.push_back(b.getI64Type());
  }
  desc.func = makeKernel(b, loc, name, args);
  Block &entry = desc.func.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  Value i = many ? k.add(k.mul(k.blockIdx(), k.c64(kThreads)), k.threadIdx()) : k.c64(0);
  Value mine = many ? k.cmp(P::ult, i, entry.getArgument(2))
                    : k.cmp(P::eq, k.threadIdx(), k.c64(0));
  Value at = k.gep(entry.getArgument(0), k.f32(), k.select(mine, i, k.c64(0)));
  k.storeIf(mine, nvfp4GlobalScale(k, k.load(k.f32(), at, 4)),
            k.gep(entry.getArgument(1), k.f32(), i), 4);
  gpu::ReturnOp::create(b, loc);
  return desc;
}
