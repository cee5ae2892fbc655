//===- ScaledMatmulSm120.cpp - block-scaled mma.sync GEMM (sm_120a) -------===//
//
// The consumer-Blackwell form of fpx.scaled_matmul (sm_120a has no tcgen05
// or tensor memory; its tensor cores take block scales in mma.sync): a
// simple register-tiled kernel. 4 warps a CTA, each a 32x32 tile of C as
// 2 x 4 m16n8 MMAs; each K step of 32 bytes (32 fp8 or 64 fp4 elements)
// loads the A and B fragments and the scales straight from global memory
// (the CTA's other warps and L1/L2 serve the reuse) and issues the eight
// MMAs with nvvm.mma.block_scale:
//
//   Mxfp8: m16n8k32 kind::mxf8f6f4.block_scale.scale_vec::1X, ue8m0
//   Nvfp4: m16n8k64 kind::mxf4nvf4.block_scale.scale_vec::4X, ue4m3
//
// Fragments (bytes; lane = 4 gq + q): A rows gq and gq + 8, bytes 4q..4q+3
// and 16 + 4q..; B column gq, the same bytes; C rows gq, gq + 8, columns
// 2q, 2q + 1. Scales (thread-id 0, byte-id 0): A's row m of the 16 sits in
// lane 4 (m % 8) + m / 8, B's column n in lane 4n; 1X reads the lane's low
// byte, 4X all four (the row's four 16-blocks of the step). Lanes that the
// MMA does not read load a valid neighbour's scale.
//
//===----------------------------------------------------------------------===//
#include "QuantizeKernelsInternal.h"
#include "ScaledMatmulBlackwell.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace fpx;
using P = arith::CmpIPredicate;

KernelDesc fpx::buildMmaBlockScaledGemmKernel(OpBuilder &b, Location loc, StringRef name,
                                              const BlackwellGemmPlan &plan,
                                              gpu::GPUModuleOp module) {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  assert(plan.blockScaled() && "sm_120a's mma.sync form is for block-scaled operands");
  const bool nvfp4 = plan.form == BlockScaledForm::Nvfp4;
  constexpr int64_t MT = 2, NT = 4; // m16 and n8 tiles of a warp
  Type gptr = LLVM::LLVMPointerType::get(ctx, 1);
  Type i64 = b.getI64Type(), i32 = b.getI32Type(), i16 = b.getI16Type();
  KernelDesc desc;
  SmallVector<Type> argTypes;
  plan.params("a", "b", gptr, gptr, desc.params, argTypes);
  auto f = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  f->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  f->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({int32_t(kMmaBlockScaledThreads), 1, 1}));
  desc.func = f;
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  BlackwellGemmArgs args(k, entry, plan);
  Value aPtr = args.a, bPtr = args.b, sa = args.sa, sb = args.sb, cOut = args.c;
  Value M = args.M, N = args.N, K = args.K;
  Value gaPtr = args.ga, gbPtr = args.gb, biasPtr = args.bias;

  const int64_t tileM = kMmaBlockScaledTile, tileN = kMmaBlockScaledTile;
  Value tid = k.trunc(k.threadIdx(), i32);
  Value warp = k.divu(tid, k.c32(32)), lane = k.remu(tid, k.c32(32));
  Value gq = k.divu(lane, k.c32(4)), q = k.remu(lane, k.c32(4));
  Value tilesM = k.divu(k.add(M, k.c32(tileM - 1)), k.c32(tileM));
  Value tile = k.trunc(k.blockIdx(), i32);
  Value mBase = k.add(k.mul(k.remu(tile, tilesM), k.c32(tileM)),
                      k.mul(k.divu(warp, k.c32(2)), k.c32(32)));
  Value nBase = k.add(k.mul(k.divu(tile, tilesM), k.c32(tileN)),
                      k.mul(k.remu(warp, k.c32(2)), k.c32(32)));
  Value lastRow = k.sub(M, k.c32(1)), lastCol = k.sub(N, k.c32(1));
  Value rowBytes = k.zext(nvfp4 ? k.divu(K, k.c32(2)) : K, i64);
  Value scaleCols = k.zext(k.divu(K, k.c32(plan.scaleBlock())), i64);
  Value steps = k.divu(K, k.c32(32 * plan.elemsPerByte()));

  // Row offsets (bytes, i64) of the rows and columns this lane reads: its
  // A fragment rows, its A-scale rows, its B columns (the fragment's and
  // the scale's are the same, gq).
  auto rowOff = [&](Value r, Value last, Value stride) {
    return k.mul(k.zext(k.umin(r, last), i64), stride);
  };
  // A scale's offset is its row's part plus its column's, in either layout
  // (qk::scaleOffset).
  auto scaleRowOff = [&](Value r, Value last, bool blocked) {
    return qk::scaleOffset(k, k.zext(k.umin(r, last), i64), k.c64(0), scaleCols, blocked);
  };
  Value scaleRowInTile = k.add(gq, k.mul(k.remu(lane, k.c32(2)), k.c32(8)));
  SmallVector<Value> aRow[2], aScaleRow, bRow, bScaleRow;
  for (int64_t mi = 0; mi < MT; ++mi) {
    Value r = k.add(mBase, k.add(k.c32(16 * mi), gq));
    aRow[0].push_back(rowOff(r, lastRow, rowBytes));
    aRow[1].push_back(rowOff(k.add(r, k.c32(8)), lastRow, rowBytes));
    aScaleRow.push_back(scaleRowOff(k.add(mBase, k.add(k.c32(16 * mi), scaleRowInTile)),
                                    lastRow, plan.blockedA));
  }
  for (int64_t ni = 0; ni < NT; ++ni) {
    Value col = k.add(nBase, k.add(k.c32(8 * ni), gq));
    bRow.push_back(rowOff(col, lastCol, rowBytes));
    bScaleRow.push_back(scaleRowOff(col, lastCol, plan.blockedB));
  }
  Value q4 = k.zext(k.mul(q, k.c32(4)), i64);

  SmallVector<Value> init(MT * NT * 4, k.cf32(0.0f));
  auto loop = scf::ForOp::create(b, loc, k.c32(0), steps, k.c32(1), init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value s = loop.getInductionVar();
    auto acc = loop.getRegionIterArgs();
    Value kb = k.add(k.zext(k.mul(s, k.c32(32)), i64), q4);
    auto word = [&](Value ptr, Value off) { return k.load(i32, k.gep(ptr, k.i8(), off), 4); };
    // The step's scales: a byte (1X) or the four bytes of the step's 16-blocks (4X).
    Value sCol = k.zext(nvfp4 ? k.mul(s, k.c32(4)) : s, i64);
    // (A blocked row's 4 scales of a step are one word too: 4 s is a
    // multiple of 4.)
    auto scale = [&](Value ptr, Value row, bool blocked) {
      Value p = k.gep(ptr, k.i8(),
                      k.add(row, qk::scaleOffset(k, k.c64(0), sCol, scaleCols, blocked)));
      return nvfp4 ? k.load(i32, p, 4) : k.zext(k.load(k.i8(), p, 1), i32);
    };
    SmallVector<SmallVector<Value>> aFrag(MT), bFrag(NT);
    SmallVector<Value> aScale, bScale;
    for (int64_t mi = 0; mi < MT; ++mi) {
      aFrag[mi] = {word(aPtr, k.add(aRow[0][mi], kb)), word(aPtr, k.add(aRow[1][mi], kb)),
                   word(aPtr, k.add(aRow[0][mi], k.add(kb, k.c64(16)))),
                   word(aPtr, k.add(aRow[1][mi], k.add(kb, k.c64(16))))};
      aScale.push_back(scale(sa, aScaleRow[mi], plan.blockedA));
    }
    for (int64_t ni = 0; ni < NT; ++ni) {
      bFrag[ni] = {word(bPtr, k.add(bRow[ni], kb)),
                   word(bPtr, k.add(bRow[ni], k.add(kb, k.c64(16))))};
      bScale.push_back(scale(sb, bScaleRow[ni], plan.blockedB));
    }
    auto type = [&](bool e5m2) {
      return nvfp4 ? NVVM::MMATypes::e2m1 : e5m2 ? NVVM::MMATypes::e5m2 : NVVM::MMATypes::e4m3;
    };
    Type resTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(4, k.f32()));
    Value zero16 = k.cInt(i16, 0);
    SmallVector<Value> nextAcc;
    for (int64_t mi = 0; mi < MT; ++mi)
      for (int64_t ni = 0; ni < NT; ++ni) {
        int64_t base = (mi * NT + ni) * 4;
        auto mma = NVVM::MmaBlockScaleOp::create(
            b, loc, resTy, aFrag[mi], bFrag[ni], acc.slice(base, 4), aScale[mi], zero16, zero16,
            bScale[ni], zero16, zero16, ArrayRef<int64_t>{16, 8, nvfp4 ? 64 : 32},
            std::array<NVVM::MMATypes, 2>{type(plan.e5m2A), type(plan.e5m2B)},
            nvfp4 ? NVVM::ScaleVecSize::X4 : NVVM::ScaleVecSize::X1,
            nvfp4 ? NVVM::BlockScaleFormat::UE4M3 : NVVM::BlockScaleFormat::UE8M0,
            nvfp4 ? NVVM::MMABlockScaleKind::MXF4NVF4 : NVVM::MMABlockScaleKind::MXF8F6F4);
        for (int64_t e = 0; e < 4; ++e)
          nextAcc.push_back(LLVM::ExtractValueOp::create(b, loc, mma.getResult(), e));
      }
    scf::YieldOp::create(b, loc, nextAcc);
  }

  // Epilogue: NVFP4's tensor scale and the bias in f32, cast, masked stores.
  Value g;
  for (Value gPtr : {gaPtr, gbPtr})
    if (gPtr) {
      Value v = k.load(k.f32(), gPtr, 4);
      g = g ? k.fmul(g, v) : v;
    }
  unsigned esize = plan.out.isF32() ? 4 : 2;
  for (int64_t mi = 0; mi < MT; ++mi)
    for (int64_t ni = 0; ni < NT; ++ni)
      for (int64_t e = 0; e < 4; ++e) {
        Value row = k.add(mBase, k.add(k.c32(16 * mi + 8 * (e / 2)), gq));
        Value col = k.add(nBase, k.add(k.c32(8 * ni + e % 2), k.mul(q, k.c32(2))));
        Value v = loop.getResult((mi * NT + ni) * 4 + e);
        if (g)
          v = k.fmul(v, g);
        v = biasAndCast(k, plan, v, biasPtr, k.umin(col, lastCol));
        Value idx = k.add(k.mul(k.zext(row, i64), k.zext(N, i64)), k.zext(col, i64));
        k.storeIf(k.land(k.cmp(P::ult, row, M), k.cmp(P::ult, col, N)), v,
                  k.gep(cOut, plan.out, idx), esize);
      }
  gpu::ReturnOp::create(b, loc);
  return desc;
}
