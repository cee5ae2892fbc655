//===- WgmmaPipeline.cpp - TMA / mbarrier / wgmma building blocks ---------===//
#include "WgmmaPipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace fpx;
using namespace fpx::wgp;

gpu::GPUFuncOp wgp::makeKernel(OpBuilder &b, Location loc, StringRef name,
                               ArrayRef<Type> argTypes, int32_t threads,
                               ArrayRef<int32_t> tensorMaps) {
  auto f = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  f->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  // Without maxntid ptxas ignores setmaxnreg ("C7508").
  f->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
  f->setAttr("nvvm.minctasm", b.getI32IntegerAttr(1));
  if (!tensorMaps.empty())
    f->setAttr("fpx.tensor_map_args", b.getDenseI32ArrayAttr(tensorMaps));
  return f;
}

std::pair<Value, Value> wgp::alignedSharedBase(KernelBuilder &k, gpu::GPUModuleOp module,
                                               StringRef name) {
  OpBuilder &b = k.b;
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    auto arr = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
    LLVM::GlobalOp::create(b, k.loc, arr, /*isConstant=*/false, LLVM::Linkage::External, name,
                           Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }
  Type sptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value raw = LLVM::AddressOfOp::create(b, k.loc, sptr, name);
  Value rawAddr = k.trunc(LLVM::PtrToIntOp::create(b, k.loc, k.i64(), raw), k.i32());
  Value pad = k.band(k.sub(k.c32(1024), k.band(rawAddr, k.c32(1023))), k.c32(1023));
  return {k.gep(raw, k.i8(), pad), k.add(rawAddr, pad)};
}

Value wgp::smemDescriptor128B(KernelBuilder &k, Value addr32) {
  // start >> 4 (bits 0-13), leading byte offset 16 (unused when swizzled),
  // stride byte offset 1024 (an 8-row atom), layout 128B swizzle (bit 62).
  Value start = k.zext(k.shru(k.band(addr32, k.c32(0x3FFFF)), k.c32(4)), k.i64());
  uint64_t fixed = (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
  return k.bor(start, k.c64(int64_t(fixed)));
}

void wgp::wait(KernelBuilder &k, Value bar, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(k.b, k.loc, bar, parity, k.c32(kWaitTicks));
}

void wgp::arriveExpectTx(KernelBuilder &k, Value bar, int64_t bytes) {
  MLIRContext *ctx = k.b.getContext();
  NVVM::MBarrierArriveExpectTxOp::create(
      k.b, k.loc, Type(), bar, k.c32(bytes),
      NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA), k.b.getBoolAttr(false),
      Value());
}

void wgp::arrive(KernelBuilder &k, Value bar) {
  NVVM::MBarrierArriveOp::create(
      k.b, k.loc, Type(), bar, Value(),
      NVVM::MemScopeKindAttr::get(k.b.getContext(), NVVM::MemScopeKind::CTA));
}

void wgp::tmaLoad2d(KernelBuilder &k, Value dst, Value map, Value c0, Value c1, Value bar) {
  MLIRContext *ctx = k.b.getContext();
  // The .shared::cluster destination form: PTX 8.0 has it (.shared::cta
  // needs 8.6).
  Value d = LLVM::AddrSpaceCastOp::create(k.b, k.loc, LLVM::LLVMPointerType::get(ctx, 7), dst);
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      k.b, k.loc, d, map, ValueRange{c0, c1}, bar, ValueRange{}, Value(), Value(),
      NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE), k.b.getBoolAttr(false),
      NVVM::CTAGroupKindAttr(), Value());
}

void wgp::bulkLoad(KernelBuilder &k, Value dst, Value src, int64_t bytes, Value bar) {
  Value d = LLVM::AddrSpaceCastOp::create(
      k.b, k.loc, LLVM::LLVMPointerType::get(k.b.getContext(), 7), dst);
  NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(k.b, k.loc, d, src, bar, k.c32(bytes),
                                                   Value(), Value());
}

void wgp::setMaxRegisters(KernelBuilder &k, int32_t regs, bool increase) {
  NVVM::SetMaxRegisterOp::create(
      k.b, k.loc, k.b.getI32IntegerAttr(regs),
      NVVM::SetMaxRegisterActionAttr::get(k.b.getContext(),
                                          increase ? NVVM::SetMaxRegisterAction::increase
                                                   : NVVM::SetMaxRegisterAction::decrease));
}

std::pair<Value, Value> GroupedTiles::coords(KernelBuilder &k, Value t) const {
  Value per = k.mul(k.c32(groupRows), cols);
  Value grp = k.divu(t, per), first = k.mul(grp, k.c32(groupRows));
  Value gm = k.umin(k.sub(rows, first), k.c32(groupRows));
  Value r = k.sub(t, k.mul(grp, per));
  return {k.add(first, k.remu(r, gm)), k.divu(r, gm)};
}

void GroupedTiles::forEach(KernelBuilder &k, function_ref<Value(Value, Value)> body,
                           Value units) const {
  OpBuilder &b = k.b;
  Value first = k.trunc(k.blockIdx(), k.i32()), stride = k.trunc(k.gridDim(), k.i32());
  auto loop = scf::ForOp::create(b, k.loc, first, units ? units : k.mul(rows, cols), stride,
                                 ValueRange{k.c32(0)});
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value next = body(loop.getInductionVar(), loop.getRegionIterArgs()[0]);
  scf::YieldOp::create(b, k.loc, next);
}

/// splitKMeet's meeting proper (splits > 1).
static std::pair<SmallVector<Value>, Value>
meetSlots(KernelBuilder &k, ArrayRef<Value> acc, Value ws, Value counter, Value slot0, Value slot,
          Value splits, Value ct, Value t, Value flag, function_ref<void()> wgBarrier) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t n = acc.size();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto slotAt = [&](Value s, int64_t j) {
    Value idx = k.add(k.mul(k.zext(s, i64), k.c64(256 * n)),
                      k.zext(k.mul(k.add(k.c32(256 * j), ct), k.c32(4)), i64));
    return k.gep(ws, k.f32(), idx);
  };
  for (int64_t j = 0; j < n / 4; ++j)
    k.store(k.vector({acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]}),
            slotAt(slot, j), 16);
  k.ptxEffect("membar.gl;", "", {});
  wgBarrier();
  {
    auto first = scf::IfOp::create(b, loc, k.cmp(arith::CmpIPredicate::eq, t, k.c32(0)),
                                   /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&first.getThenRegion().front());
    Value old = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, counter, k.c32(1),
                                          LLVM::AtomicOrdering::monotonic);
    k.ptxEffect("membar.gl;", "", {});
    Value last = k.cmp(arith::CmpIPredicate::eq, old, k.sub(splits, k.c32(1)));
    k.storeIf(last, k.c32(0), counter, 4);
    k.store(arith::ExtUIOp::create(b, loc, i32, last).getResult(), flag, 4);
  }
  wgBarrier();
  Value last = k.cmp(arith::CmpIPredicate::ne, k.load(i32, flag, 4), k.c32(0));
  SmallVector<Type> types(n, k.f32());
  auto sum = scf::IfOp::create(b, loc, types, last, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&sum.getThenRegion().front());
    auto slots = scf::ForOp::create(b, loc, k.c32(0), splits, k.c32(1),
                                    SmallVector<Value>(n, k.cf32(0.0f)));
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(slots.getBody());
      auto v4 = LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(4, k.f32()));
      SmallVector<Value> next;
      for (int64_t j = 0; j < n / 4; ++j) {
        // From L2 (ld.cg): L1 is not coherent with the other CTAs' stores.
        Value r = k.ptx(v4, "ld.global.cg.v4.f32 {$0, $1, $2, $3}, [$4];", "=f,=f,=f,=f,l",
                        {slotAt(k.add(slot0, slots.getInductionVar()), j)},
                        /*sideEffects=*/true);
        for (int64_t e = 0; e < 4; ++e)
          next.push_back(k.fadd(slots.getRegionIterArgs()[4 * j + e],
                                LLVM::ExtractValueOp::create(b, loc, r, e)));
      }
      scf::YieldOp::create(b, loc, next);
    }
    scf::YieldOp::create(b, loc, slots.getResults());
    b.setInsertionPointToStart(&sum.getElseRegion().front());
    scf::YieldOp::create(b, loc, acc);
  }
  return {SmallVector<Value>(sum.getResults()), last};
}

std::pair<SmallVector<Value>, Value>
wgp::splitKMeet(KernelBuilder &k, ArrayRef<Value> acc, Value ws, Value counter, Value slot0,
                Value slot, Value splits, Value ct, Value t, Value flag,
                function_ref<void()> wgBarrier) {
  OpBuilder &b = k.b;
  SmallVector<Type> types(acc.size(), k.f32());
  types.push_back(b.getI1Type());
  auto split = scf::IfOp::create(b, k.loc, types, k.cmp(arith::CmpIPredicate::ugt, splits, k.c32(1)),
                                 /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&split.getThenRegion().front());
    auto [sums, last] = meetSlots(k, acc, ws, counter, slot0, slot, splits, ct, t, flag, wgBarrier);
    sums.push_back(last);
    scf::YieldOp::create(b, k.loc, sums);
    b.setInsertionPointToStart(&split.getElseRegion().front());
    SmallVector<Value> whole(acc); // (one unit a tile: its own sums)
    whole.push_back(k.cInt(b.getI1Type(), 1));
    scf::YieldOp::create(b, k.loc, whole);
  }
  return {SmallVector<Value>(split.getResults().drop_back()), split.getResults().back()};
}
