//===- ScaledMatmulSm100.cpp - tcgen05 scaled GEMM (sm_100a) --------------===//
//
// The Blackwell datacenter form of fpx.scaled_matmul, built from NVVM's
// tcgen05 ops (DeepGEMM's sm100 kernels and CUTLASS's block-scaled
// collective have the same structure). One 128x128 tile a CTA:
//
// - Warp 4 (producer): waits for a stage's `empty` barrier; with block
//   scales its 32 lanes copy the tile's row-major scales into the stage's
//   shared-memory slots in the blocked 128x4 layout tcgen05.cp reads (lane
//   l writes rows l, l+32, l+64, l+96: one 16-byte row of a 32x16 tile),
//   fence them for the async proxy; lane 0 arms the stage's `full` barrier
//   with the operand bytes and issues the two TMA loads (128 K bytes x 128
//   rows each, 128B swizzle, zero fill past M, N and K).
// - Warp 5: allocates the tensor memory (the 128 accumulator columns and
//   the scale columns) for the CTA; its lane 0 is the MMA issuer: it waits
//   for `full`, copies the stage's scales into tensor memory (tcgen05.cp
//   32x128b.warpx4: the 32 rows of a tile to all four lane quarters), issues
//   the stage's four MMAs (K = 32 bytes each, descriptors stepping 32 bytes
//   through the swizzle row) and commits them to `empty`; after the last
//   stage it commits to `accFull`. tcgen05.cp and tcgen05.mma of one thread
//   run in order, so one set of scale columns serves every stage.
// - Warps 0-3 (epilogue): wait for `accFull`, tcgen05.ld their 32 lanes
//   (= rows) 32 columns at a time, apply per-tensor / per-row scales,
//   NVFP4's tensor scale and the bias in f32, cast, store.
//
// Forms (BlackwellGemmPlan): Fp8 -> kind::f8f6f4 (nvvm.tcgen05.mma); Mxfp8
// -> kind::mxf8f6f4.block_scale.scale_vec::1X (byte k of a scale column is
// the k-th MMA's, picked by the instruction descriptor's scale-factor ids);
// Nvfp4 -> kind::mxf4nvf4.block_scale.scale_vec::4X (4 ue4m3 scales a row
// per MMA, one 32x128b copy a MMA). These two are inline PTX: NVVM's
// nvvm.tcgen05.mma.block_scale prints them as `.block_scale` (which ptxas
// reads as `.block32`) and `.block16`, both PTX 8.8 spellings (LLVM 22
// aborts selecting `.block16` below 8.8: "Cannot select"), while the table
// gives sm_100a PTX 8.7, whose spelling is `.scale_vec::NX`.
//
//===----------------------------------------------------------------------===//
#include "QuantizeKernelsInternal.h"
#include "ScaledMatmulBlackwell.h"
#include "WgmmaPipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace fpx;
using P = arith::CmpIPredicate;

namespace {

constexpr int64_t kSfTileBytes = 512;    // a 128x4 scale tile (32 rows of 16 bytes)
constexpr int64_t kMmaK = 32;            // K bytes of one MMA
constexpr int64_t kMaxShared = 232448;   // 227 KiB a block on sm_100a

/// An scf.if without results around `body`.
void when(KernelBuilder &k, Value cond, function_ref<void()> body) {
  auto op = scf::IfOp::create(k.b, k.loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(k.b);
  k.b.setInsertionPointToStart(&op.getThenRegion().front());
  body();
}

/// 128x4 scale tiles a stage (one per MMA for NVFP4's 4X, one for all four
/// MMAs for MXFP8's 1X); 0 without block scales.
int64_t sfTiles(const BlackwellGemmPlan &p) {
  return p.form == BlockScaledForm::Nvfp4 ? 4 : p.form == BlockScaledForm::Mxfp8 ? 1 : 0;
}

int64_t stageBytes(const BlackwellGemmPlan &p) {
  return (kTcgen05TileM + kTcgen05TileN) * kTcgen05StageBytes + 2 * sfTiles(p) * kSfTileBytes;
}

int64_t stages(const BlackwellGemmPlan &p) {
  return std::min<int64_t>(6, (kMaxShared - 2048) / stageBytes(p));
}

/// The instruction descriptor (PTX ISA "Instruction descriptor"): K-major A
/// and B, M = 128, N = 128; f32 D for kind::f8f6f4; the scale-factor ids
/// `sfId` of A and B and the scale type for the block-scaled kinds.
uint32_t instrDescriptor(const BlackwellGemmPlan &p, unsigned sfId) {
  uint32_t d = 0;
  switch (p.form) {
  case BlockScaledForm::Fp8:
    d |= 1u << 4; // D: f32
    d |= uint32_t(p.e5m2A) << 7 | uint32_t(p.e5m2B) << 10;
    break;
  case BlockScaledForm::Mxfp8:
    d |= sfId << 4 | sfId << 29; // B's and A's scale-factor ids (bytes)
    d |= uint32_t(p.e5m2A) << 7 | uint32_t(p.e5m2B) << 10;
    d |= 1u << 23; // scales: ue8m0
    break;
  case BlockScaledForm::Nvfp4:
    d |= 1u << 7 | 1u << 10; // A, B: e2m1 (kind::mxf4nvf4's code 1)
    break;                   // scales: ue4m3 (0), ids 0 (4X uses the whole column)
  }
  d |= uint32_t(kTcgen05TileN >> 3) << 17;
  d |= uint32_t(kTcgen05TileM >> 4) << 24;
  return d;
}

} // namespace

int64_t fpx::tcgen05GemmSharedBytes(const BlackwellGemmPlan &plan) {
  int64_t st = stages(plan);
  return 1024 + st * stageBytes(plan) + (2 * st + 1) * 8 + 16;
}

KernelDesc fpx::buildTcgen05GemmKernel(OpBuilder &b, Location loc, StringRef name,
                                       const BlackwellGemmPlan &plan, gpu::GPUModuleOp module) {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  const int64_t BM = kTcgen05TileM, BN = kTcgen05TileN, BK = kTcgen05StageBytes;
  const int64_t ST = stages(plan), SFT = sfTiles(plan);
  const int64_t aBytes = BM * BK, bBytes = BN * BK, sfBytes = SFT * kSfTileBytes;
  // Tensor memory: the accumulator in columns [0, BN), A's scale tiles
  // after it (4 columns a tile), then B's; allocated as a power of two.
  const int64_t sfaCol = BN, sfbCol = BN + 4 * SFT, tmemCols = 256;

  Type gptr = LLVM::LLVMPointerType::get(ctx, 1), genPtr = LLVM::LLVMPointerType::get(ctx, 0);
  Type tptr = LLVM::LLVMPointerType::get(ctx, 6);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  KernelDesc desc;
  SmallVector<Type> argTypes;
  plan.params("tmA", "tmB", genPtr, gptr, desc.params, argTypes);
  gpu::GPUFuncOp f =
      wgp::makeKernel(b, loc, name, argTypes, int32_t(kTcgen05Threads), /*tensorMaps=*/{0, 1});
  desc.func = f;
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  BlackwellGemmArgs args(k, entry, plan);
  Value tmA = args.a, tmB = args.b, sa = args.sa, sb = args.sb, cOut = args.c;
  Value M = args.M, N = args.N, K = args.K;
  Value gaPtr = args.ga, gbPtr = args.gb, biasPtr = args.bias;

  // Shared memory from a 1024-aligned base: [A ring][B ring][SFA ring]
  // [SFB ring][full[ST]][empty[ST]][accFull][tensor-memory address].
  auto [base, baseAddr] = wgp::alignedSharedBase(k, module, (name + "_smem").str());
  const int64_t offB = ST * aBytes, offSfa = ST * (aBytes + bBytes), offSfb = offSfa + ST * sfBytes;
  const int64_t offBar = offSfb + ST * sfBytes, offAcc = offBar + 2 * ST * 8,
                offTmem = offAcc + 8;
  auto at = [&](Value off32) { return k.gep(base, k.i8(), off32); };
  auto fullBar = [&](Value s) { return at(k.add(k.c32(offBar), k.mul(s, k.c32(8)))); };
  auto emptyBar = [&](Value s) {
    return at(k.add(k.c32(offBar + ST * 8), k.mul(s, k.c32(8))));
  };
  Value accBar = at(k.c32(offAcc)), tmemSlot = at(k.c32(offTmem));

  Value tid = k.trunc(k.threadIdx(), i32);
  Value warp = k.divu(tid, k.c32(32)), lane = k.remu(tid, k.c32(32));
  when(k, k.cmp(P::eq, tid, k.c32(0)), [&] {
    for (int64_t s = 0; s < ST; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, fullBar(k.c32(s)), k.c32(1), Value());
      NVVM::MBarrierInitOp::create(b, loc, emptyBar(k.c32(s)), k.c32(1), Value());
    }
    NVVM::MBarrierInitOp::create(b, loc, accBar, k.c32(1), Value());
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  // Warp 5 allocates the tensor memory (a warp-wide instruction) and gives
  // up the right to allocate more, so that a second CTA on the SM may.
  when(k, k.cmp(P::eq, warp, k.c32(5)), [&] {
    NVVM::Tcgen05AllocOp::create(b, loc, tmemSlot, k.c32(tmemCols));
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc);
  });
  NVVM::Tcgen05FenceOp::create(b, loc, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  k.barrier();
  NVVM::Tcgen05FenceOp::create(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  Value tmem = k.load(i32, tmemSlot, 4);
  auto tmemAt = [&](Value addr) { return LLVM::IntToPtrOp::create(b, loc, tptr, addr); };

  // The tile: M fastest, so that neighbouring CTAs share B's rows in L2.
  Value tilesM = k.divu(k.add(M, k.c32(BM - 1)), k.c32(BM));
  Value tile = k.trunc(k.blockIdx(), i32);
  Value m0 = k.mul(k.remu(tile, tilesM), k.c32(BM)), n0 = k.mul(k.divu(tile, tilesM), k.c32(BN));
  Value kIters = k.divu(k.add(K, k.c32(BK * plan.elemsPerByte() - 1)),
                        k.c32(BK * plan.elemsPerByte()));
  auto stageOf = [&](Value it) { return k.remu(it, k.c32(ST)); };
  auto parityOf = [&](Value it) { return k.band(k.divu(it, k.c32(ST)), k.c32(1)); };
  auto wait = [&](Value bar, Value parity) { wgp::wait(k, bar, parity); };
  auto forStages = [&](function_ref<void(Value kb, Value s, Value parity)> body) {
    auto loop = scf::ForOp::create(b, loc, k.c32(0), kIters, k.c32(1));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kb = loop.getInductionVar();
    body(kb, stageOf(kb), parityOf(kb));
  };

  // ------------------------------------------------------------ producer
  when(k, k.cmp(P::eq, warp, k.c32(4)), [&] {
    // Scales of a row-major or blocked [rows, cols] e8m0/ue4m3 matrix: lane l packs
    // rows l + 32i (i < 4), 4 columns each, into the 16-byte row l of each
    // 128x4 tile; bytes past the matrix are 0 (their operand codes are 0 too).
    Value scaleCols = plan.blockScaled()
                          ? k.divu(k.add(K, k.c32(plan.scaleBlock() - 1)), k.c32(plan.scaleBlock()))
                          : Value();
    auto stageScales = [&](Value src, Value rows, Value r0, Value kb, Value slot, bool blocked) {
      Value firstCol = k.mul(kb, k.c32(4 * SFT));
      Value l = lane;
      for (int64_t t = 0; t < SFT; ++t) {
        SmallVector<Value> words;
        for (int64_t i = 0; i < 4; ++i) {
          Value row = k.add(r0, k.add(l, k.c32(32 * i)));
          Value rowOk = k.cmp(P::ult, row, rows);
          // (Either layout's offset: the row's part plus the column's.)
          Value rowBase = qk::scaleOffset(k, k.zext(k.umin(row, k.sub(rows, k.c32(1))), i64),
                                          k.c64(0), k.zext(scaleCols, i64), blocked);
          Value word = k.c32(0);
          for (int64_t c = 0; c < 4; ++c) {
            Value col = k.add(firstCol, k.c32(4 * t + c));
            Value ok = k.land(rowOk, k.cmp(P::ult, col, scaleCols));
            Value idx = k.add(rowBase, qk::scaleOffset(k, k.c64(0),
                                                       k.zext(k.umin(col, k.sub(scaleCols,
                                                                                k.c32(1))),
                                                              i64),
                                                       k.zext(scaleCols, i64), blocked));
            Value byte = k.zext(k.load(k.i8(), k.gep(src, k.i8(), idx), 1), i32);
            byte = k.select(ok, byte, k.c32(0));
            word = k.bor(word, k.shl(byte, k.c32(8 * c)));
          }
          words.push_back(word);
        }
        Value dst = at(k.add(slot, k.c32(t * kSfTileBytes)));
        k.store(k.vector(words), k.gep(dst, k.i8(), k.mul(l, k.c32(16))), 16);
      }
    };
    forStages([&](Value kb, Value s, Value parity) {
      wait(emptyBar(s), k.bxor(parity, k.c32(1)));
      if (plan.blockScaled()) {
        stageScales(sa, M, m0, kb, k.add(k.c32(offSfa), k.mul(s, k.c32(sfBytes))), plan.blockedA);
        stageScales(sb, N, n0, kb, k.add(k.c32(offSfb), k.mul(s, k.c32(sfBytes))), plan.blockedB);
        // The tcgen05.cp that reads them is an async-proxy access.
        NVVM::FenceProxyOp::create(
            b, loc, NVVM::ProxyKind::async_shared,
            NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
        NVVM::SyncWarpOp::create(b, loc, k.c32(-1));
      }
      when(k, k.cmp(P::eq, lane, k.c32(0)), [&] {
        Value full = fullBar(s);
        wgp::arriveExpectTx(k, full, aBytes + bBytes);
        Value kc = k.mul(kb, k.c32(BK));
        auto load = [&](Value dstOff, Value map, Value row) {
          wgp::tmaLoad2d(k, at(dstOff), map, kc, row, full);
        };
        load(k.mul(s, k.c32(aBytes)), tmA, m0);
        load(k.add(k.c32(offB), k.mul(s, k.c32(bBytes))), tmB, n0);
      });
    });
  });

  // ------------------------------------------------------------ MMA issuer
  when(k, k.land(k.cmp(P::eq, warp, k.c32(5)), k.cmp(P::eq, lane, k.c32(0))), [&] {
    // Descriptors: K-major, 128B swizzle (mode 2), 8-row groups 1024 bytes
    // apart; the scale tiles: no swizzle, 8-row groups of 16-byte rows.
    auto desc = [&](Value addr, int64_t sbo, int64_t swizzle) {
      return NVVM::Tcgen05MmaSmemDescOp::create(
                 b, loc, i64, k.shru(k.band(addr, k.c32(0x3FFFF)), k.c32(4)), k.c32(1),
                 k.c32(sbo >> 4), k.cInt(k.i8(), 0), k.cInt(b.getI1Type(), 0),
                 k.cInt(k.i8(), swizzle))
          .getResult();
    };
    Value accAddr = tmemAt(tmem);
    int64_t kPerMma = kMmaK * plan.elemsPerByte();
    forStages([&](Value kb, Value s, Value parity) {
      wait(fullBar(s), parity);
      NVVM::Tcgen05FenceOp::create(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
      Value aStage = k.add(baseAddr, k.mul(s, k.c32(aBytes)));
      Value bStage = k.add(baseAddr, k.add(k.c32(offB), k.mul(s, k.c32(bBytes))));
      for (int64_t t = 0; t < SFT; ++t) {
        auto copy = [&](int64_t off, int64_t col) {
          Value src = k.add(baseAddr, k.add(k.c32(off + t * kSfTileBytes),
                                            k.mul(s, k.c32(sfBytes))));
          NVVM::Tcgen05CpOp::create(b, loc, NVVM::Tcgen05CpShape::SHAPE_32x128b,
                                    NVVM::CTAGroupKind::CTA_1, NVVM::Tcgen05CpMulticast::WARPX4,
                                    NVVM::Tcgen05CpSrcFormatAttr(),
                                    tmemAt(k.add(tmem, k.c32(col + 4 * t))), desc(src, 128, 0));
        };
        copy(offSfa, sfaCol);
        copy(offSfb, sfbCol);
      }
      Value firstK = k.mul(kb, k.c32(BK * plan.elemsPerByte()));
      for (int64_t kk = 0; kk < BK / kMmaK; ++kk) {
        // An MMA wholly past K is skipped (its codes are TMA's zero fill,
        // its scale columns may be the previous stage's).
        when(k, k.cmp(P::ult, k.add(firstK, k.c32(kk * kPerMma)), K), [&] {
          Value da = desc(k.add(aStage, k.c32(kk * kMmaK)), 1024, 2);
          Value db = desc(k.add(bStage, k.c32(kk * kMmaK)), 1024, 2);
          Value accumulate =
              kk ? k.cInt(b.getI1Type(), 1) : k.cmp(P::ne, kb, k.c32(0));
          Value idesc = k.c32(int32_t(instrDescriptor(plan, plan.form == BlockScaledForm::Mxfp8
                                                                ? unsigned(kk)
                                                                : 0u)));
          Value sfA = k.add(tmem, k.c32(sfaCol + (SFT > 1 ? 4 * kk : 0)));
          Value sfB = k.add(tmem, k.c32(sfbCol + (SFT > 1 ? 4 * kk : 0)));
          switch (plan.form) {
          case BlockScaledForm::Fp8:
            NVVM::Tcgen05MMAOp::create(
                b, loc, NVVM::Tcgen05MMAKind::F8F6F4, NVVM::CTAGroupKind::CTA_1,
                NVVM::Tcgen05MMACollectorOp::DISCARD, /*aShift=*/false, accAddr, da, db, idesc,
                accumulate, Value(), Value());
            break;
          case BlockScaledForm::Mxfp8:
          case BlockScaledForm::Nvfp4:
            // Inline PTX: see the file header (NVVM's spelling needs PTX 8.8).
            k.ptxEffect(std::string("{\n.reg .pred p;\nsetp.ne.b32 p, $5, 0;\n"
                                    "tcgen05.mma.cta_group::1.kind::") +
                            (plan.form == BlockScaledForm::Mxfp8
                                 ? "mxf8f6f4.block_scale.scale_vec::1X"
                                 : "mxf4nvf4.block_scale.scale_vec::4X") +
                            " [$0], $1, $2, $3, [$4], [$6], p;\n}",
                        "r,l,l,r,r,r,r",
                        {tmem, da, db, idesc, sfA, k.zext(accumulate, i32), sfB});
            break;
          }
        });
      }
      // The stage is free once its MMAs have read it.
      NVVM::Tcgen05CommitOp::create(b, loc, emptyBar(s), Value());
    });
    NVVM::Tcgen05CommitOp::create(b, loc, accBar, Value());
  });

  // ------------------------------------------------------------ epilogue
  when(k, k.cmp(P::ult, warp, k.c32(4)), [&] {
    wait(accBar, k.c32(0));
    NVVM::Tcgen05FenceOp::create(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value row = k.add(m0, k.add(k.mul(warp, k.c32(32)), lane));
    Value rowOk = k.cmp(P::ult, row, M);
    Value lastRow = k.sub(M, k.c32(1)), lastCol = k.sub(N, k.c32(1));
    // The factor every element of the row takes: per-tensor / per-row
    // scales (Fp8) and NVFP4's tensor scale.
    Value rowScale;
    if (plan.form == BlockScaledForm::Fp8) {
      rowScale = k.load(k.f32(), plan.rowA ? k.gep(sa, k.f32(), k.umin(row, lastRow)) : sa, 4);
      if (!plan.rowB)
        rowScale = k.fmul(rowScale, k.load(k.f32(), sb, 4));
    }
    for (Value gPtr : {gaPtr, gbPtr})
      if (gPtr) {
        Value g = k.load(k.f32(), gPtr, 4);
        rowScale = rowScale ? k.fmul(rowScale, g) : g;
      }
    unsigned esize = plan.out.isF32() ? 4 : 2;
    int64_t perStore = 16 / esize;
    Value rowBase = k.mul(k.zext(k.umin(row, lastRow), i64), k.zext(N, i64));
    // Full 32-column chunks of an aligned row take 16-byte stores.
    Value aligned = k.cmp(P::eq, k.band(N, k.c32(int32_t(perStore - 1))), k.c32(0));
    Value laneAddr = k.add(tmem, k.shl(k.mul(warp, k.c32(32)), k.c32(16)));
    for (int64_t chunk = 0; chunk < BN / 32; ++chunk) {
      Value raw32 = NVVM::Tcgen05LdOp::create(b, loc, VectorType::get({32}, i32), false,
                                              NVVM::Tcgen05LdStShape::SHAPE_32X32B,
                                              tmemAt(k.add(laneAddr, k.c32(32 * chunk))), Value());
      NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::LOAD);
      Value col0 = k.add(n0, k.c32(32 * chunk));
      SmallVector<Value> vals;
      for (int64_t j = 0; j < 32; ++j) {
        Value col = k.add(col0, k.c32(j));
        Value v = k.bitcast(k.extract(raw32, j), k.f32());
        Value factor = rowScale;
        if (plan.form == BlockScaledForm::Fp8 && plan.rowB) {
          Value cs = k.load(k.f32(), k.gep(sb, k.f32(), k.umin(col, lastCol)), 4);
          factor = factor ? k.fmul(factor, cs) : cs;
        }
        if (factor)
          v = k.fmul(v, factor);
        v = biasAndCast(k, plan, v, biasPtr, k.umin(col, lastCol));
        vals.push_back(v);
      }
      Value whole = k.land(k.land(rowOk, aligned), k.cmp(P::ule, k.add(col0, k.c32(32)), N));
      auto ifOp = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        for (int64_t j = 0; j < 32; j += perStore) {
          Value dst = k.gep(cOut, plan.out, k.add(rowBase, k.zext(k.add(col0, k.c32(j)), i64)));
          k.store(k.vector(ArrayRef<Value>(vals).slice(j, perStore)), dst, 16);
        }
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        for (int64_t j = 0; j < 32; ++j) {
          Value col = k.add(col0, k.c32(j));
          Value dst = k.gep(cOut, plan.out, k.add(rowBase, k.zext(col, i64)));
          k.storeIf(k.land(rowOk, k.cmp(P::ult, col, N)), vals[j], dst, esize);
        }
      }
    }
  });

  // Everyone is done with the tensor memory: warp 5 frees it.
  NVVM::Tcgen05FenceOp::create(b, loc, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  k.barrier();
  when(k, k.cmp(P::eq, warp, k.c32(5)), [&] {
    NVVM::Tcgen05FenceOp::create(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(b, loc, tmemAt(tmem), k.c32(tmemCols));
  });
  gpu::ReturnOp::create(b, loc);
  return desc;
}
