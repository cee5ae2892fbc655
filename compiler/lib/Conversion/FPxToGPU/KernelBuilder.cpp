//===- KernelBuilder.cpp --------------------------------------------------===//
#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"

#include <cstdio>

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace fpx;

Value KernelBuilder::c64(int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 64);
}
Value KernelBuilder::c32(int32_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}
Value KernelBuilder::cInt(Type t, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, t, v);
}
Value KernelBuilder::cf32(float v) {
  return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                        llvm::APFloat(v));
}

Value KernelBuilder::add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
Value KernelBuilder::sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
Value KernelBuilder::mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
Value KernelBuilder::divu(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
Value KernelBuilder::remu(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
Value KernelBuilder::shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
Value KernelBuilder::shru(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
Value KernelBuilder::band(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
Value KernelBuilder::bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
Value KernelBuilder::bxor(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
Value KernelBuilder::cmp(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
Value KernelBuilder::select(Value c, Value t, Value f) {
  return arith::SelectOp::create(b, loc, c, t, f);
}
Value KernelBuilder::umin(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
Value KernelBuilder::umax(Value x, Value y) { return arith::MaxUIOp::create(b, loc, x, y); }
Value KernelBuilder::smin(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
Value KernelBuilder::smax(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
Value KernelBuilder::zext(Value v, Type t) {
  if (v.getType() == t)
    return v;
  return arith::ExtUIOp::create(b, loc, t, v);
}
Value KernelBuilder::trunc(Value v, Type t) {
  if (v.getType() == t)
    return v;
  return arith::TruncIOp::create(b, loc, t, v);
}
Value KernelBuilder::bitcast(Value v, Type t) {
  if (v.getType() == t)
    return v;
  // arith.bitcast keeps the shape; a reinterpretation that changes it
  // (i32 <-> vector<2xbf16>) is an llvm.bitcast.
  auto shape = [](Type x) {
    auto vt = dyn_cast<VectorType>(x);
    return vt ? vt.getShape() : ArrayRef<int64_t>{};
  };
  if (shape(v.getType()) != shape(t))
    return LLVM::BitcastOp::create(b, loc, t, v);
  return arith::BitcastOp::create(b, loc, t, v);
}

Value KernelBuilder::fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
Value KernelBuilder::arithSub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
Value KernelBuilder::fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
Value KernelBuilder::fdiv(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
Value KernelBuilder::fabs(Value x) {
  // Clearing the sign bit: GPU-to-NVVM would send llvm.intr.fabs to libdevice.
  return bitcast(band(bitcast(x, i32()), c32(0x7fffffff)), f32());
}
Value KernelBuilder::fmaxNaN(Value x, Value y) {
  return LLVM::MaximumOp::create(b, loc, x, y);
}
Value KernelBuilder::fcmp(arith::CmpFPredicate p, Value x, Value y) {
  return arith::CmpFOp::create(b, loc, p, x, y);
}

Value KernelBuilder::ptx(Type t, StringRef text, StringRef constraints,
                         ValueRange operands, bool sideEffects) {
  return LLVM::InlineAsmOp::create(b, loc, t, operands, text, constraints,
                                   sideEffects, /*is_align_stack=*/false,
                                   LLVM::TailCallKind::None,
                                   LLVM::AsmDialectAttr{}, ArrayAttr{})
      .getResult(0);
}

Value KernelBuilder::freshSpecial(StringRef reg) {
  return zext(ptx(i32(), ("mov.u32 $0, " + reg + ";").str(), "=r", {},
                  /*sideEffects=*/true),
              i64());
}

void KernelBuilder::ptxEffect(StringRef text, StringRef constraints,
                              ValueRange operands) {
  LLVM::InlineAsmOp::create(b, loc, TypeRange{}, operands, text, constraints,
                            /*has_side_effects=*/true, /*is_align_stack=*/false,
                            LLVM::TailCallKind::None, LLVM::AsmDialectAttr{},
                            ArrayAttr{});
}

void KernelBuilder::cpAsync16(Value dst, Value src) {
  Value shared = LLVM::PtrToIntOp::create(b, loc, i64(), dst);
  ptxEffect("cp.async.cg.shared.global [$0], [$1], 16;", "l,l", {shared, src});
}

void KernelBuilder::cpAsyncWaitAll() { ptxEffect("cp.async.wait_all;", "", {}); }

Value KernelBuilder::prmt(Value a, Value b, uint32_t selector) {
  char text[40];
  std::snprintf(text, sizeof text, "prmt.b32 $0, $1, $2, 0x%04X;", selector);
  return ptx(i32(), text, "=r,r,r", {a, b});
}

Value KernelBuilder::prmt(Value a, Value b, Value selector) {
  return ptx(i32(), "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r", {a, b, selector});
}

Value KernelBuilder::gep(Value base, Type elem, Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), elem, base,
                             ArrayRef<LLVM::GEPArg>{index});
}
Value KernelBuilder::load(Type t, Value ptr, unsigned align) {
  return LLVM::LoadOp::create(b, loc, t, ptr, align);
}
void KernelBuilder::store(Value v, Value ptr, unsigned align) {
  LLVM::StoreOp::create(b, loc, v, ptr, align);
}
void KernelBuilder::storeIf(Value cond, Value v, Value ptr, unsigned align) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  store(v, ptr, align);
}
Value KernelBuilder::extract(Value v, int64_t i) {
  return LLVM::ExtractElementOp::create(b, loc, v, c32(i));
}
Value KernelBuilder::vector(ArrayRef<Value> elems) {
  Type t = vec(elems.size(), elems.front().getType());
  Value v = LLVM::UndefOp::create(b, loc, t);
  for (auto [i, e] : llvm::enumerate(elems))
    v = LLVM::InsertElementOp::create(b, loc, v, e, c32(i));
  return v;
}

Value KernelBuilder::threadIdx(gpu::Dimension d) {
  Value v = gpu::ThreadIdOp::create(b, loc, d);
  return arith::IndexCastUIOp::create(b, loc, i64(), v);
}
Value KernelBuilder::blockIdx(gpu::Dimension d) {
  Value v = gpu::BlockIdOp::create(b, loc, d);
  return arith::IndexCastUIOp::create(b, loc, i64(), v);
}

Value KernelBuilder::gridDim(gpu::Dimension d) {
  Value v = gpu::GridDimOp::create(b, loc, d);
  return arith::IndexCastUIOp::create(b, loc, i64(), v);
}
Value KernelBuilder::shuffleXor(Value v, int offset) {
  auto sh = gpu::ShuffleOp::create(b, loc, v, c32(offset), c32(32),
                                   gpu::ShuffleMode::XOR);
  return sh.getShuffleResult();
}
Value KernelBuilder::shuffleUp(Value v, int offset) {
  return gpu::ShuffleOp::create(b, loc, v, c32(offset), c32(32), gpu::ShuffleMode::UP)
      .getShuffleResult();
}
Value KernelBuilder::shuffleIdx(Value v, int lane) {
  return gpu::ShuffleOp::create(b, loc, v, c32(lane), c32(32), gpu::ShuffleMode::IDX)
      .getShuffleResult();
}
Value KernelBuilder::reduxUmax(Value v) {
  return NVVM::ReduxOp::create(b, loc, i32(), v, NVVM::ReduxKind::UMAX, c32(-1));
}
void KernelBuilder::barrier() { gpu::BarrierOp::create(b, loc); }
