//===- BlockQuantizeKernels.cpp - 2-D block casts (Br x Bc) ---------------===//
//
// fpx.quantize with 2-D blocks [Br, Bc] (NVFP4 16x16 weights, blockwise fp8
// 128x128, MXFP8 32x32) over (M, K) or (E, M, K), row-major output.
//
// A CTA owns Br rows x tileCols columns of one matrix, tileCols a multiple of
// Bc chosen so that every thread holds a handful of 16-byte vectors:
//
//   thread t: column chunk c = t % chunksPerRow (8 elements), first row
//   j = t / chunksPerRow; vector i covers tile row i * rowsPerPass + j.
//   With warpRows (NVFP4 16x16) the rowsPerPass threads of a chunk share a
//   warp instead: lane l of warp w takes chunk w * G + l % G, first row
//   l / G, for lane groups of G = 32 / rowsPerPass.
//
// So a warp's loads are contiguous runs along rows, every load of a thread is
// issued before the first is used (Br * tileCols * 2 bytes in flight per
// CTA), and all vectors of a thread belong to one block. The block amax is
// the thread's max over its vectors, then a butterfly over the Bc / 8 lanes
// of the block's row segment, then (when a pass covers fewer than Br rows) a
// max over the rowsPerPass partials: by shuffles across the lane groups
// (warpRows), else through a small shared-memory array and a barrier. The
// raw vectors stay in registers for the conversion (no second read), which
// for 128x128 is the "keep the tile on chip" variant of the two-pass scheme:
// the tile lives in the registers of the CTA, the reduction in shared
// memory. Scales and conversions are every cast's (QuantizeKernelsInternal.cpp),
// so results match the numerics core bit for bit.
//
//===----------------------------------------------------------------------===//
#include "BlockQuantizeKernels.h"
#include "QuantizeKernelsInternal.h"
#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"

#include "llvm/Support/MathExtras.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace fpx;
using P = arith::CmpIPredicate;

FailureOr<Block2DTiling> fpx::block2DTiling(int64_t br, int64_t bc, Type inElem,
                                            std::string &why) {
  if (br < 2 || bc < 2) {
    why = "2-D blocks need more than one row and column";
    return failure();
  }
  if (bc % kVec || !llvm::isPowerOf2_64(bc) || bc / kVec > 32) {
    why = "2-D blocks must be a power of two between 8 and 256 long along "
          "the row, got " + std::to_string(bc);
    return failure();
  }
  // About 32 input elements per thread (more only where the block needs it:
  // 128x128 takes 64); a CTA then moves 16 KB of 16-bit input. NVFP4's 16x16
  // from 16-bit input takes 64 too: a 16 x 1024 tile, each thread 8 rows of a
  // column chunk, the two threads of a chunk in one warp (warpRows below).
  bool x16 = br == 16 && bc == 16 && inElem.getIntOrFloatBitWidth() == 16;
  int64_t perThread = x16 ? 64 : 32;
  int64_t target = kThreads * perThread / br;
  int64_t tc = target >= 1 ? int64_t(llvm::bit_floor(uint64_t(target))) : 1;
  tc = std::min<int64_t>(kThreads * kVec, std::max(tc, bc));
  Block2DTiling t;
  t.blockRows = br;
  t.blockCols = bc;
  t.tileCols = tc;
  t.chunksPerRow = tc / kVec;
  t.rowsPerPass = kThreads / t.chunksPerRow;
  if (br % t.rowsPerPass) {
    why = "2-D blocks of " + std::to_string(br) + " rows do not tile a CTA "
          "pass of " + std::to_string(t.rowsPerPass) + " rows";
    return failure();
  }
  t.vecsPerThread = br / t.rowsPerPass;
  if (t.vecsPerThread > 16) {
    why = "2-D block " + std::to_string(br) + "x" + std::to_string(bc) +
          " needs " + std::to_string(t.vecsPerThread) +
          " vectors per thread (at most 16 are lowered)";
    return failure();
  }
  // NVFP4 16x16 holds its tile in registers (64 on sm_90a: four CTAs an SM,
  // 12 bytes spilled) and reduces its block amax across the two row groups
  // by a shuffle. % of copy at 16384x8192 / 131072x7168 for the cast from a
  // given amax, on an H100 (docs/results/2026-11-24-h100-12): tile staged in
  // shared memory by cp.async, rows through shared memory and a barrier (the
  // kernel of 2026-11-24-h200-11) 91.3 / 98.5%; staged, rows by shuffles
  // 89.6 / 98.0%; registers, rows by shuffles 97.3 / 103.2%; 16 rows a
  // thread (128 elements, two CTAs an SM) 96.2 / 99.3%. On an H200
  // (docs/results/2026-11-24-h200-12): staged 79.5 / 86.2%, registers 82.3 /
  // 87.8%, with addresses stepped (below) 89.6 / 97.8%, with one fast-path
  // branch a thread 92.4 / 101.5% (then at the 64 registers of four CTAs;
  // at three it took 80); 32 elements a thread at five or six CTAs 77.4 /
  // 81.4% and 68.8 / 74.0%.
  int64_t lanes = bc / kVec, groupLanes = 32 / t.rowsPerPass;
  t.warpRows = x16 && t.rowsPerPass > 1 && t.rowsPerPass <= 32 && groupLanes % lanes == 0;
  // Tall tiles of 16-bit input (128x128: 32 KB) are staged in shared memory
  // by cp.async instead of registers: the registers of 4 CTAs would hold 4
  // tiles an SM, shared memory holds 6, so more loads are in flight while
  // other CTAs reduce and convert. Measured on an H200 (docs/results
  // 2026-11-22-h200-3), before the row-major tile order: occupancy 44% ->
  // 70% and 114 -> 104 us at ncu's base clock, unchanged (89% of copy) at
  // boost clock; with the tile order, 95-101% of copy (the order without
  // staging was not measured).
  int64_t tileBytes = br * t.tileCols * 2;
  t.staged = inElem.getIntOrFloatBitWidth() == 16 && t.vecsPerThread >= 8 &&
             tileBytes <= 32768 && !x16;
  // Several CTAs per SM, so that some convert while the loads of the others
  // are in flight: the register budget that keeps the raw vectors unspilled
  // (staged: the shared memory of 6 tiles, registers hold one vector).
  int64_t rawWords = t.vecsPerThread * (inElem.isF32() ? 8 : 4);
  t.minCtas = t.staged ? 6 : rawWords <= 32 ? 4 : 2; // 16x16: 32 words, four
  return t;
}

KernelDesc fpx::buildBlock2DQuantizeKernel(OpBuilder &b, Location loc,
                                           StringRef name,
                                           const Block2DTiling &t,
                                           const QuantizePlan &plan,
                                           gpu::GPUModuleOp module) {
  OpBuilder::InsertionGuard guard(b);
  Type sptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  const int64_t br = t.blockRows, bc = t.blockCols, lanes = bc / kVec;
  const int64_t blocksPerTile = t.tileCols / bc;

  // Partial block amaxes: rowsPerPass x blocksPerTile floats.
  std::string redName = (name + "_amax").str();
  bool crossRows = t.rowsPerPass > 1 && !t.warpRows;
  if (crossRows) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    auto arr = LLVM::LLVMArrayType::get(b.getF32Type(),
                                        t.rowsPerPass * blocksPerTile);
    LLVM::GlobalOp::create(b, loc, arr, /*isConstant=*/false,
                           LLVM::Linkage::Internal, redName, Attribute(),
                           /*alignment=*/16, /*addrSpace=*/3);
  }

  int64_t tileBytes = br * t.tileCols * 2;
  bool staged = t.staged;
  std::string tileName = (name + "_tile").str();
  if (staged) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    auto arr = LLVM::LLVMArrayType::get(b.getI8Type(), tileBytes);
    LLVM::GlobalOp::create(b, loc, arr, /*isConstant=*/false,
                           LLVM::Linkage::Internal, tileName, Attribute(),
                           /*alignment=*/16, /*addrSpace=*/3);
  }

  KernelDesc desc = qk::makeCastKernel(b, loc, name, plan, {"rows", "cols"});
  bool rs = plan.rounding == RoundingKind::rs;
  gpu::GPUFuncOp f = desc.func;
  f->setAttr("nvvm.minctasm", b.getI32IntegerAttr(t.minCtas));
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  qk::CastParams p = qk::castParams(entry, plan);
  Value in = p.in, out = p.out, scales = p.scales, amaxPtr = p.amax, seed = p.seed,
        rows = p.extent0, cols = p.extent1;

  Value tid = k.threadIdx();
  Value bx = k.blockIdx(gpu::Dimension::x), by = k.blockIdx(gpu::Dimension::y),
        bz = k.blockIdx(gpu::Dimension::z);
  // The grid is (row tiles, column tiles, batch); CTAs start in x-major
  // order, so the launch index bx + by * gridDim.x is renumbered row-major
  // over the tiles: CTAs in flight together read neighbouring tiles of the
  // same rows (long runs of each DRAM page), not one column of tiles.
  Value colTiles = k.divu(k.add(cols, k.c64(t.tileCols - 1)), k.c64(t.tileCols));
  // After a tensor amax pass (whose last trips read the end of the input)
  // the tiles run from the last backwards: the first CTAs find their input
  // still in L2.
  Value lastTile = plan.tensorAmax
                       ? k.sub(k.mul(k.gridDim(gpu::Dimension::x), k.gridDim(gpu::Dimension::y)),
                               k.c64(1))
                       : Value();
  auto tileOf = [&](Value bx, Value by, Value gx) -> std::pair<Value, Value> {
    Value flat = k.add(bx, k.mul(by, gx));
    if (lastTile)
      flat = k.sub(lastTile, flat);
    Value lin = k.trunc(flat, k.i32());
    Value ct = k.trunc(colTiles, k.i32());
    Value rt = k.divu(lin, ct);
    return {k.zext(rt, k.i64()), k.zext(k.sub(lin, k.mul(rt, ct)), k.i64())};
  };
  auto [rowTile, colTile] = tileOf(bx, by, k.gridDim());
  // Thread t's column chunk and first row: t % chunksPerRow and t /
  // chunksPerRow, or with warpRows lane groups of 32 / rowsPerPass chunks.
  auto place = [&](Value tid) -> std::pair<Value, Value> {
    if (!t.warpRows)
      return {k.remu(tid, k.c64(t.chunksPerRow)), k.divu(tid, k.c64(t.chunksPerRow))};
    int64_t g = 32 / t.rowsPerPass;
    Value lane = k.remu(tid, k.c64(32));
    return {k.add(k.mul(k.divu(tid, k.c64(32)), k.c64(g)), k.remu(lane, k.c64(g))),
            k.divu(lane, k.c64(g))};
  };
  auto [chunk0, j0] = place(tid);
  Value chunk = chunk0, j = j0;
  Value r0 = k.add(k.mul(bz, rows), k.mul(rowTile, k.c64(br))); // batch-flat row
  Value gcol = k.add(k.mul(colTile, k.c64(t.tileCols)), k.mul(chunk, k.c64(kVec)));
  Value colOk = k.cmp(P::ult, gcol, cols);
  // Flat vector indices of the thread's vectors (rows hold whole vectors:
  // cols is a multiple of Bc): the first, ((r0 + j) cols + gcol) / 8, then
  // steps of rowsPerPass rows. Addresses go the same way, one 64-bit add a
  // vector: 64-bit index arithmetic per vector (a multiply, a shift, twice
  // with the stores' indices) made the 16x16 cast execute 17.4 instructions
  // an element against the 1x16 cast's 16.5 (Nsight Compute,
  // docs/results/2026-11-24-h200-12).
  Value vecStride = k.mul(k.c64(t.rowsPerPass), k.divu(cols, k.c64(kVec)));
  auto firstVector = [&](Value r0, Value j, Value gcol) {
    return k.add(k.mul(k.add(r0, j), k.divu(cols, k.c64(kVec))),
                 k.divu(gcol, k.c64(kVec)));
  };
  auto vectorIndices = [&](Value v0) {
    SmallVector<Value> v{v0};
    for (int64_t i = 1; i < t.vecsPerThread; ++i)
      v.push_back(k.add(v.back(), vecStride));
    return v;
  };
  // base + i * stride bytes for each vector i, as a chain of additions
  auto addresses = [&](Value base, Value stride) {
    SmallVector<Value> ps{base};
    for (int64_t i = 1; i < t.vecsPerThread; ++i)
      ps.push_back(k.gep(ps.back(), k.i8(), stride));
    return ps;
  };

  // Loads: every vector of the thread in flight before the first use.
  SmallVector<SmallVector<Value>> raw;
  // Staged: vector i's 16 bytes at tile row j + i * rowsPerPass, column
  // chunk * 8, copied by cp.async and read back by the thread that copied it
  // (so waiting for its own copies is enough), once for the amax and once
  // for the conversion.
  Value tileBase;
  auto tileVec = [&](int64_t i) {
    Value off = k.add(k.mul(k.add(j, k.c64(i * t.rowsPerPass)), k.c64(t.tileCols * 2)),
                      k.mul(chunk, k.c64(16)));
    return LLVM::GEPOp::create(b, loc, sptr, k.i8(), tileBase,
                               ArrayRef<LLVM::GEPArg>{off});
  };
  Type v4 = k.vec(4, k.i32());
  if (staged)
    tileBase = LLVM::AddressOfOp::create(b, loc, sptr, tileName);
  // Threads past the last column read vector 0 (and store nothing).
  Value v0 = firstVector(r0, j, gcol);
  int64_t vecBytes = inVecBytes(plan.inElem);
  SmallVector<Value> src = addresses(
      k.gep(in, k.i8(), k.mul(k.select(colOk, v0, k.c64(0)), k.c64(vecBytes))),
      k.select(colOk, k.mul(vecStride, k.c64(vecBytes)), k.c64(0)));
  for (int64_t i = 0; i < t.vecsPerThread; ++i) {
    if (!staged) {
      raw.push_back(qk::loadRawAt(k, plan.inElem, src[i]));
      continue;
    }
    k.cpAsync16(tileVec(i), src[i]);
  }
  if (staged) {
    k.cpAsyncWaitAll();
    for (int64_t i = 0; i < t.vecsPerThread; ++i)
      raw.push_back({k.load(v4, tileVec(i), 16)});
  }
  Value globalScale = k.cf32(1.0f);
  if (plan.tensorAmax && plan.scaleKind == num::ScaleKind::NVFP4)
    globalScale = qk::nvfp4GlobalScale(k, k.load(k.f32(), amaxPtr, 4));
  qk::storeGlobalScale(k, p, globalScale);

  // Block amax: the thread's vectors, the block's lanes, the pass's rows.
  Value amax;
  if (plan.inElem.isBF16() && !plan.hadamard && plan.prologue.empty()) {
    amax = qk::absMaxBf16(k, raw, plan.bf16AbsMinMax);
  } else {
    for (int64_t i = 0; i < t.vecsPerThread; ++i) {
      Value m = qk::absMax(k, qk::widenRaw(k, plan.inElem, raw[i]));
      amax = i ? k.fmaxNaN(amax, m) : m;
    }
  }
  for (int64_t off = 1; off < lanes; off *= 2)
    amax = k.fmaxNaN(amax, k.shuffleXor(amax, off));
  if (t.warpRows)
    for (int64_t off = 32 / t.rowsPerPass; off < 32; off *= 2)
      amax = k.fmaxNaN(amax, k.shuffleXor(amax, off));
  Value blk = k.divu(chunk, k.c64(lanes)); // block column within the tile
  if (crossRows) {
    Value red = LLVM::AddressOfOp::create(b, loc, sptr, redName);
    auto sgep = [&](Value idx) {
      return LLVM::GEPOp::create(b, loc, sptr, k.f32(), red,
                                 ArrayRef<LLVM::GEPArg>{idx});
    };
    Value leader = k.cmp(P::eq, k.remu(chunk, k.c64(lanes)), k.c64(0));
    auto ifOp = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      k.store(amax, sgep(k.add(k.mul(j, k.c64(blocksPerTile)), blk)), 4);
    }
    k.barrier();
    for (int64_t jj = 0; jj < t.rowsPerPass; ++jj) {
      Value m = k.load(k.f32(), sgep(k.add(k.c64(jj * blocksPerTile), blk)), 4);
      amax = jj ? k.fmaxNaN(amax, m) : m;
    }
  }

  // One scale per block, written by the block's first lane of the first row.
  qk::Scale s = qk::blockScale(k, plan, amax, globalScale);
  {
    Value first = k.land(k.land(colOk, k.cmp(P::eq, j, k.c64(0))),
                         k.cmp(P::eq, k.remu(chunk, k.c64(lanes)), k.c64(0)));
    Value scaleRow = k.divu(r0, k.c64(br)); // batch-flat block row
    Value idx = k.add(k.mul(scaleRow, k.divu(cols, k.c64(bc))),
                      k.divu(gcol, k.c64(bc)));
    Type st = s.store.getType();
    k.storeIf(first, s.store, k.gep(scales, st, idx),
              st.getIntOrFloatBitWidth() / 8);
  }

  // Convert and store: 8 code bytes (or 4 fp4x2 bytes) per vector. Where a
  // thread holds 8 or more vectors, the first store index is computed again
  // from freshly read special registers (opaque to CSE): kept live from the
  // loads, 64-bit indices spill at the 64 registers of 4 CTAs per SM.
  if (t.vecsPerThread >= 8) {
    auto fresh = [&](const char *reg) { return k.freshSpecial(reg); };
    Value tid2 = fresh("%tid.x");
    Value bx2 = fresh("%ctaid.x"), by2 = fresh("%ctaid.y"), bz2 = fresh("%ctaid.z");
    auto [rowTile2, colTile2] = tileOf(bx2, by2, fresh("%nctaid.x"));
    auto [chunk2, j2] = place(tid2);
    Value r02 = k.add(k.mul(bz2, rows), k.mul(rowTile2, k.c64(br)));
    Value gcol2 = k.add(k.mul(colTile2, k.c64(t.tileCols)), k.mul(chunk2, k.c64(kVec)));
    v0 = firstVector(r02, j2, gcol2);
  }
  bool fp4 = plan.elem.bits() <= 4;
  int64_t outVecBytes = fp4 ? 4 : 8;
  SmallVector<Value> dst = addresses(k.gep(out, k.i8(), k.mul(v0, k.c64(outVecBytes))),
                                     k.mul(vecStride, k.c64(outVecBytes)));
  SmallVector<Value> vecIdx = rs ? vectorIndices(v0) : SmallVector<Value>();
  auto convertAll = [&](const qk::Scale &sc) {
    for (int64_t i = 0; i < t.vecsPerThread; ++i) {
      Value w = staged ? k.load(v4, tileVec(i), 16) : Value(); // one vector at a time
      ArrayRef<Value> words = staged ? ArrayRef<Value>(w) : ArrayRef<Value>(raw[i]);
      Value codes = qk::vectorCodes(k, plan, sc, words, [&] {
        return rs ? qk::rsWords(k, vecIdx[i], seed) : SmallVector<Value>();
      });
      k.storeIf(colOk, codes, dst[i], outVecBytes);
    }
  };
  // All vectors of a thread share the block scale: one branch on its fast
  // path around all of them, instead of one a vector. Only divided scales
  // branch on it; E8M0 products would get two copies of the same code.
  qk::withScale(k, s, convertAll);
  gpu::ReturnOp::create(b, loc);
  return desc;
}
