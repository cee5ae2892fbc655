//===- PerRowQuantizeKernels.cpp - one scale a row ([1, *]) ---------------===//
//
// fpx.quantize with block [1, *]: fp8 per-row ("rowwise") scaling, the
// scales torch._scaled_mm takes for its rowwise recipe, or any element
// format with one fp32, E8M0 or e4m3 scale a row.
//
// Four kernels (a team kernel; staged kernels of two rows, one row and one
// long row a CTA); each launch's grid is 0 where another takes the rows.
//
// Rows of up to 2048 elements are cast by a team of T threads (T = 8 << t,
// t in 0..3, the smallest team whose four vectors a thread cover the row;
// 32 >> t rows a CTA at a time), and rows too long for the staged kernels
// (teams of 256 over chunks of 8192 elements):
//
//   lane l of the team holds vectors c * 4T + j T + l (j < 4) of chunk c of
//   its row, so that a team's loads read contiguous 16-byte vectors and are
//   all issued before the first use.
//
// The row amax is the thread's maximum, a butterfly over the team's lanes,
// then for teams wider than a warp a maximum over the team's warps through
// shared memory (one barrier, which every thread reaches, rows past the end
// included). Four vectors a thread take 64 registers, four CTAs an SM:
// bounded to five CTAs ptxas spills 84 bytes (5.5-16 points of copy slower
// on an H100), and eight vectors a thread take 128 registers.
//
// Longer rows are staged in dynamic shared memory, two a CTA of 256
// threads up to 4096 elements, else one (the staged kernels below): the
// rows' bytes are in flight at once and an SM holds as many rows as its
// shared memory does (32 registers, up to eight CTAs), where a team of 256
// threads holding rows of 5120 elements in registers had 40 KB in flight
// an SM (H200: 78.9% of copy, staged 90.8-94.1%; a team of 128 holding rows
// of 3072, 86.4%, staged two a CTA 95.8%; docs/results/2026-11-24-h200-17).
// A row of more than half the staging budget (an SM's shared memory less
// 4 KiB) would leave its SM one CTA, which converts with nothing in flight
// (rows of 128 KiB: 79.6% of the H200's copy); the long-row kernel keeps
// the row's last 2048 vectors (32 KiB of bf16) in registers, 8 a thread,
// and stages the first ones, so that two CTAs share an SM up to rows of
// half the budget plus 32 KiB. Rows past the budget plus 32 KiB stage the
// budget's bytes and read up to 64 KiB between twice (the second time
// mostly from L2); longer rows take the team kernel, teams of 256 reading
// whole rows twice at four CTAs an SM, which was faster for rows of 512
// KiB than one CTA an SM reading 256 KiB twice. Where a long row's staged
// part fills the budget (rows of 256 KiB of bf16 and more), the kernel runs
// one CTA an SM (the runtime's sm_count), each casting every G-th row and
// copying the next one into the shared memory its conversions free (H200:
// rows of 256 KiB 72.7 -> 82.7% of copy, 296 KiB 63.2 -> 69.0%, 320 KiB
// 58.9 -> 65.0%; H100 88.2% at 256 KiB either way, 296 KiB 73.9 -> 78.2%).
// Shorter long rows keep a CTA a row: persistent CTAs measured 94 -> 86% of
// the H200's copy at 128 KiB (two CTAs an SM) and 93.7 -> 88.3% of the
// H100's at 192 KiB (one); docs/results/2026-11-25-h200-24.
// Scales and conversions are every cast's (QuantizeKernelsInternal.cpp), so
// results match the numerics core bit for bit.
//
//===----------------------------------------------------------------------===//
#include "PerRowQuantizeKernels.h"
#include "QuantizeKernelsInternal.h"
#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"

#include "llvm/Support/MathExtras.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cassert>

using namespace mlir;
using namespace fpx;
using P = arith::CmpIPredicate;

/// Row lengths (in vectors) past which the team grows, and by how much
/// (log2): 8 threads up to 8 * kPerRowVecs vectors, 16 up to twice that, 32,
/// 64 up to kStagedMinVecs, then 256 (rows past the staged kernels' reach,
/// Staging::longTo).
struct TeamStep {
  int64_t above, shift;
};
static constexpr TeamStep kTeamSteps[] = {
    {8 * kPerRowVecs, 1}, {16 * kPerRowVecs, 1}, {32 * kPerRowVecs, 1}, {kStagedMinVecs, 2}};
/// Rows a CTA casts at a time with the smallest team.
static constexpr int64_t kMaxRowsPerCta = kThreads / 8;

/// min(1, (nv - 1) / n) for `nv` vectors a row (an expression): 1 exactly
/// where nv > n (and 0 for nv = 0: C division truncates toward zero).
static std::string vecsAbove(const std::string &nv, int64_t n) {
  return "min(1,(" + nv + "-1)/" + std::to_string(n) + ")";
}

/// max |x| over the raw 16-byte words of a thread's vectors (zeros where a
/// vector is missing change nothing).
static Value rawsAbsMax(KernelBuilder &k, const QuantizePlan &plan,
                        ArrayRef<SmallVector<Value>> raws) {
  if (plan.inElem.isBF16())
    return qk::absMaxBf16(k, raws, plan.bf16AbsMinMax);
  SmallVector<Value> m;
  for (const SmallVector<Value> &raw : raws)
    m.push_back(qk::absMax(k, qk::widenRaw(k, plan.inElem, raw)));
  return m.size() == 1 ? m[0] : qk::absMax(k, m);
}

/// NVFP4's global scale from a given tensor amax (else 1), stored where the
/// plan returns it.
static Value rowGlobalScale(KernelBuilder &k, const QuantizePlan &plan,
                            const qk::CastParams &p) {
  Value g = k.cf32(1.0f);
  if (plan.tensorAmax && plan.scaleKind == num::ScaleKind::NVFP4)
    g = qk::nvfp4GlobalScale(k, k.load(k.f32(), p.amax, 4));
  qk::storeGlobalScale(k, p, g);
  return g;
}
std::string fpx::perRowGrid(const std::string &rows, const std::string &cols) {
  // each step the row length passes halves the rows a CTA
  std::string rpc = std::to_string(kMaxRowsPerCta);
  for (TeamStep st : kTeamSteps)
    rpc += "/(1+" + (st.shift > 1 ? std::to_string((1 << st.shift) - 1) + "*" : "") +
           vecsAbove("(" + cols + ")/8", st.above) + ")";
  return "cdiv(" + rows + ", " + rpc + ")";
}

KernelDesc fpx::buildPerRowQuantizeKernel(OpBuilder &b, Location loc,
                                          StringRef name, const QuantizePlan &plan,
                                          gpu::GPUModuleOp module) {
  OpBuilder::InsertionGuard guard(b);
  Type sptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  constexpr int64_t kWarps = kThreads / 32;
  std::string redName = (name + "_amax").str();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getF32Type(), kWarps),
                           /*isConstant=*/false, LLVM::Linkage::Internal, redName,
                           Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }

  KernelDesc desc = qk::makeCastKernel(b, loc, name, plan, {"rows", "cols"});
  bool rs = plan.rounding == RoundingKind::rs;
  Block &entry = desc.func.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  qk::CastParams p = qk::castParams(entry, plan);
  Value in = p.in, out = p.out, rows = p.extent0, cols = p.extent1;

  // The team: T = 8 << t threads (t = 0..3, or 5), lane l of team
  // tid >> (3 + t); CTA bid casts rows bid * (32 >> t) + team.
  Value tid = k.threadIdx();
  Value nv = k.divu(cols, k.c64(kVec));
  Value t = k.c64(0);
  for (TeamStep st : kTeamSteps) {
    Value past = k.zext(k.cmp(P::ugt, nv, k.c64(st.above)), k.i64());
    t = k.add(t, st.shift > 1 ? k.shl(past, k.c64(st.shift - 1)) : past);
  }
  Value teamShift = k.add(t, k.c64(3));
  Value teamSize = k.shl(k.c64(1), teamShift);
  Value team = k.shru(tid, teamShift);
  Value lane = k.band(tid, k.sub(teamSize, k.c64(1)));
  Value groupShift = k.sub(k.c64(llvm::Log2_64(kMaxRowsPerCta)), t);
  Value chunkVecs = k.mul(teamSize, k.c64(kPerRowVecs));
  Value chunks = k.divu(k.add(nv, k.sub(chunkVecs, k.c64(1))), chunkVecs);
  int64_t vecBytes = inVecBytes(plan.inElem);
  // Teams of more than a warp meet in shared memory: warp w belongs to
  // team w >> (t - 2).
  Value wide = k.cmp(P::ugt, t, k.c64(2));
  Value warpShift = k.select(wide, k.sub(t, k.c64(2)), k.c64(0));
  Value red = LLVM::AddressOfOp::create(b, loc, sptr, redName);
  auto slot = [&](Value w) {
    return LLVM::GEPOp::create(b, loc, sptr, k.f32(), red, ArrayRef<LLVM::GEPArg>{w});
  };
  Value globalScale = rowGlobalScale(k, plan, p);

  Value row = k.add(k.shl(k.blockIdx(), groupShift), team);
  Value rowOk = k.cmp(P::ult, row, rows);
  Value rowStart = k.mul(row, nv); // flat index of the row's first vector

  // The vectors of chunk c this thread holds: flat indices, whether they
  // exist, their place in the row, and their raw words (zeros where not).
  struct Chunk {
    SmallVector<Value> vs, oks, inRow;
    SmallVector<SmallVector<Value>> raws;
  };
  auto loadChunk = [&](Value c) {
    Chunk ch;
    Value vin = k.add(k.mul(c, chunkVecs), lane);
    for (int64_t j = 0; j < kPerRowVecs; ++j) {
      if (j)
        vin = k.add(vin, teamSize);
      Value v = k.add(rowStart, vin);
      Value ok = k.land(rowOk, k.cmp(P::ult, vin, nv));
      ch.vs.push_back(v);
      ch.oks.push_back(ok);
      ch.inRow.push_back(vin);
      ch.raws.push_back(qk::loadRawIf(
          k, plan.inElem, k.gep(in, k.i8(), k.mul(v, k.c64(vecBytes))), 0, ok));
    }
    return ch;
  };
  auto chunkMax = [&](const Chunk &ch) { return rawsAbsMax(k, plan, ch.raws); };

  // Pass 1: chunk 0 into registers, the rest of a long row read for its
  // maximum only.
  Chunk first = loadChunk(k.c64(0));
  Value amax = chunkMax(first);
  {
    auto loop = scf::ForOp::create(b, loc, k.c64(1), chunks, k.c64(1), ValueRange{amax});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value m = k.fmaxNaN(loop.getRegionIterArgs()[0],
                        chunkMax(loadChunk(loop.getInductionVar())));
    scf::YieldOp::create(b, loc, m);
    amax = loop.getResult(0);
  }
  // The row amax: a butterfly over the team's lanes of the warp, then, for
  // teams wider than a warp, over the team's warps through shared memory.
  for (int off = 1; off < 32; off *= 2) {
    Value m = k.fmaxNaN(amax, k.shuffleXor(amax, off));
    amax = k.select(k.cmp(P::ult, k.c64(off), teamSize), m, amax);
  }
  k.storeIf(k.cmp(P::eq, k.band(tid, k.c64(31)), k.c64(0)), amax,
            slot(k.shru(tid, k.c64(5))), 4);
  k.barrier();
  Value teamMax = k.cf32(0.0f);
  for (int64_t w = 0; w < kWarps; ++w) {
    Value mine = k.cmp(P::eq, k.shru(k.c64(w), warpShift), team);
    teamMax = k.fmaxNaN(teamMax, k.select(mine, k.load(k.f32(), slot(k.c64(w)), 4),
                                          k.cf32(0.0f)));
  }
  amax = k.select(wide, teamMax, amax);

  // One scale a row, stored by the team's lane 0.
  qk::Scale s = qk::blockScale(k, plan, amax, globalScale);
  Type st = s.store.getType();
  k.storeIf(k.land(rowOk, k.cmp(P::eq, lane, k.c64(0))), s.store,
            k.gep(p.scales, st, row), st.getIntOrFloatBitWidth() / 8);

  // Pass 2: convert and store chunk 0 from registers, then the rest of a
  // long row read again. All of a row shares its scale: one branch on the
  // scale's fast path around a chunk's conversions.
  bool split4p2 = plan.packing == LayoutKind::fp6_planes;
  auto convertChunk = [&](const Chunk &ch) {
    qk::withScale(k, s, [&](const qk::Scale &sc) {
      for (int64_t j = 0; j < kPerRowVecs; ++j) {
        Value codes = qk::vectorCodes(k, plan, sc, ch.raws[j], [&] {
          return rs ? qk::rsWords(k, ch.vs[j], p.seed) : SmallVector<Value>();
        });
        qk::RowPos pos{k.trunc(row, k.i32()), k.trunc(ch.inRow[j], k.i32())};
        qk::storeCodes(k, plan, out, ch.vs[j], codes, ch.oks[j], cols,
                       split4p2 ? &pos : nullptr);
      }
    });
  };
  convertChunk(first);
  {
    auto loop = scf::ForOp::create(b, loc, k.c64(1), chunks, k.c64(1));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    convertChunk(loadChunk(loop.getInductionVar()));
  }
  gpu::ReturnOp::create(b, loc);
  return desc;
}

//===----------------------------------------------------------------------===//
// Rows staged in shared memory
//===----------------------------------------------------------------------===//

int64_t Staging::longFrom() const {
  return std::max(kStagedThreads * kStagedRegVecs, maxBytes / (2 * inVecBytes));
}

int64_t Staging::longTo() const {
  return maxBytes / inVecBytes + kStagedThreads * kStagedRegVecs + kMaxMiddleVecs;
}

int64_t Staging::stagedVecs(StagedRows kind, int64_t nv) const {
  switch (kind) {
  case StagedRows::Pair:
    return 2 * nv;
  case StagedRows::One:
    return nv;
  case StagedRows::Long:
    return std::min(nv - kStagedThreads * kStagedRegVecs, maxBytes / inVecBytes);
  }
  llvm_unreachable("a staged kernel");
}

std::optional<StagedRows> Staging::kernelFor(int64_t nv) const {
  StagedRows kind = nv <= kStagedPairVecs ? StagedRows::Pair
                    : nv <= longFrom()    ? StagedRows::One
                                          : StagedRows::Long;
  if (nv <= kStagedMinVecs || nv > longTo() || stagedVecs(kind, nv) * inVecBytes > maxBytes)
    return std::nullopt;
  return kind;
}

std::string Staging::takes(const std::string &cols, StagedRows kind) const {
  std::string nv = "((" + cols + ")/8)";
  auto above = [&](int64_t n) { return vecsAbove(nv, n); };
  // the row length's range, then whether the staged bytes fit (the bytes'
  // test truncates to 0 for an empty row)
  std::string length, staged = nv;
  switch (kind) {
  case StagedRows::Pair:
    length = above(kStagedMinVecs) + "*(1-" + above(kStagedPairVecs) + ")";
    staged = "2*" + nv;
    break;
  case StagedRows::One:
    length = above(kStagedPairVecs) + "*(1-" + above(longFrom()) + ")";
    break;
  case StagedRows::Long: // stages at most the budget
    return above(longFrom()) + "*(1-" + above(longTo()) + ")";
  }
  return length + "*(1-min(1,(" + staged + "*" + std::to_string(inVecBytes) + "-1)/" +
         std::to_string(maxBytes) + "))";
}

std::string Staging::bytes(const std::string &cols, StagedRows kind) const {
  std::string nv = "((" + cols + ")/8)", vb = std::to_string(inVecBytes);
  switch (kind) {
  case StagedRows::Pair:
    return std::to_string(2 * inVecBytes) + "*" + nv;
  case StagedRows::One:
    return vb + "*" + nv;
  case StagedRows::Long:
    return vb + "*min(" + nv + "-" + std::to_string(kStagedThreads * kStagedRegVecs) + "," +
           std::to_string(maxBytes / inVecBytes) + ")";
  }
  llvm_unreachable("a staged kernel");
}

/// Converts vector vin of a row (its first vector at flat index rowStart)
/// under scale sc and stores its codes where ok.
static void storeRowVector(KernelBuilder &k, const QuantizePlan &plan, const qk::CastParams &p,
                           const qk::Scale &sc, Value row, Value rowStart, Value vin,
                           const SmallVector<Value> &raw, Value ok) {
  Value v = k.add(rowStart, vin);
  Value codes = qk::vectorCodes(k, plan, sc, raw, [&] {
    return plan.rounding == RoundingKind::rs ? qk::rsWords(k, v, p.seed) : SmallVector<Value>();
  });
  qk::RowPos pos{k.trunc(row, k.i32()), k.trunc(vin, k.i32())};
  qk::storeCodes(k, plan, p.out, v, codes, ok, p.extent1,
                 plan.packing == LayoutKind::fp6_planes ? &pos : nullptr);
}

std::string Staging::grid(const std::string &rows, const std::string &cols,
                          StagedRows kind) const {
  switch (kind) {
  case StagedRows::Pair:
    return "cdiv(" + rows + ", 2)";
  case StagedRows::One:
    return rows;
  case StagedRows::Long: {
    // One CTA an SM where a row's staged part fills the budget (rows of the
    // budget and the registers' part or more, which leave an SM one CTA);
    // shorter long rows, one or two CTAs an SM, a CTA a row (persistent CTAs
    // measured slower there; docs/results/2026-11-25-h200-24).
    int64_t n = 0;
    if (!llvm::StringRef(cols).getAsInteger(10, n))
      return stagedVecs(kind, n / kVec) * inVecBytes == maxBytes ? "min(" + rows + ", sm_count)"
                                                                 : rows;
    return "(" + rows + "-(" + bytes(cols, kind) + ")/" + std::to_string(maxBytes) + "*(" +
           rows + "-min(" + rows + ", sm_count)))";
  }
  }
  llvm_unreachable("a staged kernel");
}

/// The long-row kernel's body: CTA b casts rows b, b + G, b + 2G, ... (G =
/// gridDim.x: the rows, or one CTA an SM where the staged part fills the
/// budget; Staging::grid). Thread t stages the row's vectors t + 256 j
/// (its own: it alone reads and refills them, so no barrier guards them),
/// holds its last 2048 in registers (kStagedRegVecs a thread) and reads
/// those between twice; as it converts a staged vector it copies the next
/// row's into its place, and after its registers' it loads the next row's,
/// so the next row's bytes are in flight while this one converts.
static void castLongRows(KernelBuilder &k, const QuantizePlan &plan, const Staging &staging,
                         const qk::CastParams &p, Value shRow, Value red, Value globalScale) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Type sptr = shRow.getType();
  constexpr int64_t kWarps = kStagedThreads / 32, kConvertUnroll = 4;
  int64_t vecBytes = staging.inVecBytes;
  Value tid = k.threadIdx(), rows = p.extent0, cols = p.extent1;
  Value nv = k.divu(cols, k.c64(kVec));
  Value tailStart = k.sub(nv, k.umin(nv, k.c64(kStagedThreads * kStagedRegVecs)));
  Value rowStaged = k.umin(tailStart, k.c64(staging.maxBytes / vecBytes));
  Value threads = k.c64(kStagedThreads);
  auto global = [&](Value row, Value vin) {
    return k.gep(p.in, k.i8(), k.mul(k.add(k.mul(row, nv), vin), k.c64(vecBytes)));
  };
  auto staged = [&](Value vin) { return k.gep(shRow, k.i8(), k.mul(vin, k.c64(vecBytes))); };
  // vector vin of `row` into its place in shared memory (16-byte copies)
  auto stage = [&](Value row, Value vin) {
    Value src = global(row, vin), dst = staged(vin);
    for (int64_t off = 0; off < vecBytes; off += 16)
      k.cpAsync16(k.gep(dst, k.i8(), k.c64(off)), k.gep(src, k.i8(), k.c64(off)));
  };
  auto forOwn = [&](Value from, Value to, Value stepBy, ValueRange init,
                    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto loop = scf::ForOp::create(b, loc, from, to, stepBy, init);
    OpBuilder::InsertionGuard g(b);
    if (init.empty()) { // the loop has its (empty) yield
      b.setInsertionPoint(loop.getBody()->getTerminator());
      body(loop.getInductionVar(), {});
    } else {
      b.setInsertionPointToStart(loop.getBody());
      scf::YieldOp::create(b, loc, body(loop.getInductionVar(), loop.getRegionIterArgs()));
    }
    return SmallVector<Value>(loop.getResults());
  };
  // The register vectors of `row` (zeros where !ok), flat for the loop.
  int64_t words = vecBytes / 16;
  auto loadTail = [&](Value row, Value ok) {
    SmallVector<Value> flat;
    for (int64_t j = 0; j < kStagedRegVecs; ++j) {
      Value vin = k.add(tailStart, k.add(tid, k.c64(j * kStagedThreads)));
      SmallVector<Value> raw = qk::loadRawIf(k, plan.inElem, global(row, vin), 0,
                                             k.land(ok, k.cmp(P::ult, vin, nv)));
      flat.append(raw.begin(), raw.end());
    }
    return flat;
  };
  auto tailRaws = [&](ValueRange flat) {
    SmallVector<SmallVector<Value>> raws;
    for (int64_t j = 0; j < kStagedRegVecs; ++j)
      raws.emplace_back(flat.begin() + j * words, flat.begin() + (j + 1) * words);
    return raws;
  };

  Value first = k.blockIdx(), step = k.gridDim();
  forOwn(tid, rowStaged, threads, {}, [&](Value vin, ValueRange) {
    stage(first, vin);
    return SmallVector<Value>();
  });
  SmallVector<Value> init = loadTail(first, k.cmp(P::ult, first, rows));
  init.push_back(k.c64(0)); // the red set: the row's parity
  forOwn(first, rows, step, init, [&](Value row, ValueRange carried) {
    SmallVector<SmallVector<Value>> tail = tailRaws(carried.drop_back());
    Value parity = carried.back();
    Value next = k.add(row, step);
    Value hasNext = k.cmp(P::ult, next, rows);
    Value rowStart = k.mul(row, nv);
    // the vectors between, kMiddleVecs a thread at a time (all loaded
    // before any is used): read for the maximum while the copies land, and
    // again to convert
    constexpr int64_t kMiddleVecs = 2;
    auto middle = [&](Value i0, function_ref<void(Value, const SmallVector<Value> &, Value)> use) {
      SmallVector<Value> vins, oks;
      SmallVector<SmallVector<Value>> raws;
      for (int64_t u = 0; u < kMiddleVecs; ++u) {
        vins.push_back(k.add(i0, k.c64(u * kStagedThreads)));
        oks.push_back(k.cmp(P::ult, vins.back(), tailStart));
        raws.push_back(qk::loadRawIf(k, plan.inElem, global(row, vins.back()), 0, oks.back()));
      }
      for (int64_t u = 0; u < kMiddleVecs; ++u)
        use(vins[u], raws[u], oks[u]);
    };
    Value middleStep = k.c64(kMiddleVecs * kStagedThreads);
    Value amax = forOwn(k.add(rowStaged, tid), tailStart, middleStep, {k.cf32(0.0f)},
                        [&](Value i0, ValueRange m) {
                          Value acc = m[0];
                          middle(i0, [&](Value, const SmallVector<Value> &raw, Value) {
                            acc = k.fmaxNaN(acc, rawsAbsMax(k, plan, {raw}));
                          });
                          return SmallVector<Value>{acc};
                        })[0];
    k.cpAsyncWaitAll(); // this thread's copies: the vectors it alone reads
    auto rawAt = [&](Value vin) { return qk::loadRawAt(k, plan.inElem, staged(vin)); };
    // For the conversions: the thread's staged vectors kConvertUnroll a
    // trip (all read before any is used; one a trip left each read's
    // latency exposed), then one at a time: body(first vector, how many).
    Value mine = k.select(k.cmp(P::ult, tid, rowStaged),
                          k.divu(k.add(k.sub(rowStaged, tid), k.c64(kStagedThreads - 1)), threads),
                          k.c64(0));
    Value groups = k.divu(mine, k.c64(kConvertUnroll));
    Value groupStep = k.c64(kConvertUnroll * kStagedThreads);
    auto forOwnStaged = [&](function_ref<void(Value, int64_t)> body) {
      forOwn(k.c64(0), groups, k.c64(1), {}, [&](Value g, ValueRange) {
        body(k.add(tid, k.mul(g, groupStep)), kConvertUnroll);
        return SmallVector<Value>();
      });
      forOwn(k.add(tid, k.mul(groups, groupStep)), rowStaged, threads, {},
             [&](Value vin, ValueRange) {
               body(vin, 1);
               return SmallVector<Value>();
             });
    };
    auto rawsFrom = [&](Value vin0, int64_t n) {
      SmallVector<Value> vins;
      SmallVector<SmallVector<Value>> raws;
      for (int64_t u = 0; u < n; ++u) {
        vins.push_back(k.add(vin0, k.c64(u * kStagedThreads)));
        raws.push_back(rawAt(vins.back()));
      }
      return std::make_pair(vins, raws);
    };
    // (the maximum one vector a trip: four a trip measured 0.6-1.2 points
    // slower at K = 151936 and 163840, 0.4-0.7 faster at 98304 and 131072;
    // docs/results/2026-11-25-h200-24)
    amax = forOwn(tid, rowStaged, threads, {amax}, [&](Value vin, ValueRange m) {
      return SmallVector<Value>{k.fmaxNaN(m[0], rawsAbsMax(k, plan, {rawAt(vin)}))};
    })[0];
    amax = k.fmaxNaN(amax, rawsAbsMax(k, plan, tail));
    // the row amax: a warp butterfly, then the warps' maxima through this
    // row's set of slots (the other set may still be read for the last row)
    for (int off = 1; off < 32; off *= 2)
      amax = k.fmaxNaN(amax, k.shuffleXor(amax, off));
    auto slot = [&](Value w) {
      return LLVM::GEPOp::create(b, loc, sptr, k.f32(), red,
                                 ArrayRef<LLVM::GEPArg>{k.add(k.mul(parity, k.c64(kWarps)), w)});
    };
    k.storeIf(k.cmp(P::eq, k.band(tid, k.c64(31)), k.c64(0)), amax,
              slot(k.shru(tid, k.c64(5))), 4);
    k.barrier();
    amax = k.load(k.f32(), slot(k.c64(0)), 4);
    for (int64_t w = 1; w < kWarps; ++w)
      amax = k.fmaxNaN(amax, k.load(k.f32(), slot(k.c64(w)), 4));

    qk::Scale s = qk::blockScale(k, plan, amax, globalScale);
    Type st = s.store.getType();
    k.storeIf(k.cmp(P::eq, tid, k.c64(0)), s.store, k.gep(p.scales, st, row),
              st.getIntOrFloatBitWidth() / 8);
    qk::withScale(k, s, [&](const qk::Scale &sc) {
      auto convert = [&](Value vin, const SmallVector<Value> &raw, Value ok) {
        storeRowVector(k, plan, p, sc, row, rowStart, vin, raw, ok);
      };
      // the registers' vectors first (their registers are free for the
      // rest), then the staged ones: one loop where a next row refills
      // their slots, one where none does (no branch a vector),
      // kConvertUnroll of them a trip, all read before any is converted,
      // then one at a time; then those between, read again
      for (int64_t j = 0; j < kStagedRegVecs; ++j) {
        Value vin = k.add(tailStart, k.add(tid, k.c64(j * kStagedThreads)));
        convert(vin, tail[j], k.cmp(P::ult, vin, nv));
      }
      Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
      auto stagedLoop = [&](bool refill) {
        forOwnStaged([&](Value vin0, int64_t n) {
          auto [vins, raws] = rawsFrom(vin0, n);
          for (int64_t u = 0; u < n; ++u)
            convert(vins[u], raws[u], yes);
          if (refill)
            for (Value vin : vins)
              stage(next, vin);
        });
      };
      auto ifNext = scf::IfOp::create(b, loc, hasNext, true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifNext.getThenRegion().front());
        stagedLoop(true);
        b.setInsertionPointToStart(&ifNext.getElseRegion().front());
        stagedLoop(false);
      }
      forOwn(k.add(rowStaged, tid), tailStart, middleStep, {}, [&](Value i0, ValueRange) {
        middle(i0, convert);
        return SmallVector<Value>();
      });
    });
    SmallVector<Value> yield = loadTail(next, hasNext);
    yield.push_back(k.bxor(parity, k.c64(1)));
    return yield;
  });
}

KernelDesc fpx::buildStagedPerRowQuantizeKernel(OpBuilder &b, Location loc,
                                                StringRef name,
                                                const QuantizePlan &plan,
                                                const Staging &staging, StagedRows kind,
                                                gpu::GPUModuleOp module) {
  OpBuilder::InsertionGuard guard(b);
  Type sptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  constexpr int64_t kWarps = kStagedThreads / 32;
  std::string redName = (name + "_amax").str(), rowName = (name + "_row").str();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    // (the long-row kernel's alternate between two sets by row)
    LLVM::GlobalOp::create(
        b, loc,
        LLVM::LLVMArrayType::get(b.getF32Type(), kind == StagedRows::Long ? 2 * kWarps : kWarps),
        /*isConstant=*/false, LLVM::Linkage::Internal, redName, Attribute(),
        /*alignment=*/16, /*addrSpace=*/3);
    // the row: dynamic shared memory, its size given at launch
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External, rowName,
                           Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }

  KernelDesc desc = qk::makeCastKernel(b, loc, name, plan, {"rows", "cols"});
  desc.func->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({int32_t(kStagedThreads), 1, 1}));
  Block &entry = desc.func.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  qk::CastParams p = qk::castParams(entry, plan);
  Value in = p.in, cols = p.extent1;
  if (kind == StagedRows::Long) {
    // Registers for two CTAs an SM (at most 128 a thread), where two rows'
    // staged parts fit an SM: ptxas's own choice was 153 for a first form of
    // this kernel (one CTA an SM), and is 128 with 32 bytes spilled now.
    desc.func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(2));
    castLongRows(k, plan, staging, p, LLVM::AddressOfOp::create(b, loc, sptr, rowName),
                 LLVM::AddressOfOp::create(b, loc, sptr, redName), rowGlobalScale(k, plan, p));
    gpu::ReturnOp::create(b, loc);
    return desc;
  }

  // Teams of kStagedThreads / rowsPerCta threads, a row each (constants:
  // one row a CTA is the whole CTA's, with no per-team arithmetic, which
  // cost 5-9 points of copy when it was computed at run time;
  // docs/results/2026-11-24-h200-17).
  bool pair = kind == StagedRows::Pair;
  int64_t teamThreads = pair ? kStagedThreads / 2 : kStagedThreads;
  Value tid = k.threadIdx();
  Value nv = k.divu(cols, k.c64(kVec));
  Value team = pair ? k.shru(tid, k.c64(llvm::Log2_64(teamThreads))) : k.c64(0);
  Value lane = pair ? k.band(tid, k.c64(teamThreads - 1)) : tid;
  Value first = pair ? k.mul(k.blockIdx(), k.c64(2)) : k.blockIdx();
  Value row = pair ? k.add(first, team) : first;
  Value rowOk = pair ? k.cmp(P::ult, row, p.extent0) : Value();
  Value teamVecs = pair ? k.select(rowOk, nv, k.c64(0)) : nv; // its row's vectors
  Value teamSize = k.c64(teamThreads);
  int64_t vecBytes = staging.inVecBytes;
  Value shRow = LLVM::AddressOfOp::create(b, loc, sptr, rowName);
  Value red = LLVM::AddressOfOp::create(b, loc, sptr, redName);
  Value globalScale = rowGlobalScale(k, plan, p);
  Value rowStart = k.mul(row, nv); // flat index of the row's first vector

  // The CTA's rows (contiguous) into shared memory: 16-byte asynchronous
  // copies, all in flight before the first is waited for.
  Value ctaVecs = pair ? k.mul(k.umin(k.c64(2), k.sub(p.extent0, first)), nv) : teamVecs;
  Value pieces = k.mul(ctaVecs, k.c64(vecBytes / 16));
  Value src = k.gep(in, k.i8(), k.mul(k.mul(first, nv), k.c64(vecBytes)));
  {
    auto loop = scf::ForOp::create(b, loc, tid, pieces, k.c64(kStagedThreads));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value off = k.mul(loop.getInductionVar(), k.c64(16));
    k.cpAsync16(k.gep(shRow, k.i8(), off), k.gep(src, k.i8(), off));
  }
  k.cpAsyncWaitAll();
  k.barrier();

  // The row amax: each thread's vectors of its team's row, a butterfly over
  // the warp, the team's warps' maxima through shared memory.
  Value teamRow =
      pair ? k.gep(shRow, k.i8(), k.mul(k.mul(team, nv), k.c64(vecBytes))) : shRow;
  auto rawAt = [&](Value v) { return qk::loadRaw(k, plan.inElem, teamRow, v); };
  auto vecMax = [&](const SmallVector<Value> &raw) { return rawsAbsMax(k, plan, {raw}); };
  Value amax;
  {
    auto loop = scf::ForOp::create(b, loc, lane, teamVecs, teamSize, ValueRange{k.cf32(0.0f)});
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value m = k.fmaxNaN(loop.getRegionIterArgs()[0], vecMax(rawAt(loop.getInductionVar())));
    scf::YieldOp::create(b, loc, m);
    amax = loop.getResult(0);
  }
  for (int off = 1; off < 32; off *= 2)
    amax = k.fmaxNaN(amax, k.shuffleXor(amax, off));
  auto slot = [&](Value w) {
    return LLVM::GEPOp::create(b, loc, sptr, k.f32(), red, ArrayRef<LLVM::GEPArg>{w});
  };
  k.storeIf(k.cmp(P::eq, k.band(tid, k.c64(31)), k.c64(0)), amax,
            slot(k.shru(tid, k.c64(5))), 4);
  k.barrier();
  // the team's warps (warp w is in team w / (kWarps / rowsPerCta))
  int64_t teamWarps = teamThreads / 32;
  Value warp0 = k.mul(team, k.c64(teamWarps));
  amax = k.load(k.f32(), slot(warp0), 4);
  for (int64_t w = 1; w < teamWarps; ++w)
    amax = k.fmaxNaN(amax, k.load(k.f32(), slot(k.add(warp0, k.c64(w))), 4));

  // One scale a row, stored by its team's lane 0; the conversions from
  // shared memory.
  qk::Scale s = qk::blockScale(k, plan, amax, globalScale);
  Type st = s.store.getType();
  Value scaleBy = k.cmp(P::eq, lane, k.c64(0));
  k.storeIf(pair ? k.land(rowOk, scaleBy) : scaleBy, s.store, k.gep(p.scales, st, row),
            st.getIntOrFloatBitWidth() / 8);
  qk::withScale(k, s, [&](const qk::Scale &sc) {
    auto convert = [&](Value vin, const SmallVector<Value> &raw, Value ok) {
      storeRowVector(k, plan, p, sc, row, rowStart, vin, raw, ok);
    };
    auto loop = scf::ForOp::create(b, loc, lane, teamVecs, teamSize);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value vin = loop.getInductionVar();
    convert(vin, rawAt(vin), arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  });
  gpu::ReturnOp::create(b, loc);
  return desc;
}
