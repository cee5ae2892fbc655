//===- KernelBuilder.h - small helpers to write gpu.func bodies -*- C++ -*-===//
//
// Kernels are written against global pointers (!llvm.ptr<1>) and i64
// extents; this wraps the builder calls that every kernel generator repeats
// (integer arithmetic, addressing, aligned vector loads and stores, thread
// indices, warp shuffles).
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_KERNELBUILDER_H
#define FPX_CONVERSION_FPXTOGPU_KERNELBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace fpx {

/// A generated kernel and the names of its parameters, in order.
struct KernelDesc {
  mlir::gpu::GPUFuncOp func;
  llvm::SmallVector<std::string> params;
};

class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &b;
  mlir::Location loc;

  // Types.
  mlir::Type i8() { return b.getI8Type(); }
  mlir::Type i16() { return b.getI16Type(); }
  mlir::Type i32() { return b.getI32Type(); }
  mlir::Type i64() { return b.getI64Type(); }
  mlir::Type f32() { return b.getF32Type(); }
  mlir::Type gptr() { return mlir::LLVM::LLVMPointerType::get(b.getContext(), 1); }
  mlir::Type vec(unsigned n, mlir::Type elem) {
    return mlir::VectorType::get({n}, elem);
  }

  // Constants.
  mlir::Value c64(int64_t v);
  mlir::Value c32(int32_t v);
  mlir::Value cInt(mlir::Type t, int64_t v);
  mlir::Value cf32(float v);

  // Integer arithmetic (any integer width; operands must match).
  mlir::Value add(mlir::Value a, mlir::Value b);
  mlir::Value sub(mlir::Value a, mlir::Value b);
  mlir::Value mul(mlir::Value a, mlir::Value b);
  mlir::Value divu(mlir::Value a, mlir::Value b);
  mlir::Value remu(mlir::Value a, mlir::Value b);
  mlir::Value shl(mlir::Value a, mlir::Value b);
  mlir::Value shru(mlir::Value a, mlir::Value b);
  mlir::Value band(mlir::Value a, mlir::Value b);
  mlir::Value bor(mlir::Value a, mlir::Value b);
  mlir::Value bxor(mlir::Value a, mlir::Value b);
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value a, mlir::Value b);
  mlir::Value select(mlir::Value c, mlir::Value t, mlir::Value f);
  mlir::Value umin(mlir::Value a, mlir::Value b);
  mlir::Value umax(mlir::Value a, mlir::Value b);
  mlir::Value smin(mlir::Value a, mlir::Value b);
  mlir::Value smax(mlir::Value a, mlir::Value b);
  mlir::Value zext(mlir::Value v, mlir::Type t);
  mlir::Value trunc(mlir::Value v, mlir::Type t);
  mlir::Value bitcast(mlir::Value v, mlir::Type t);
  mlir::Value land(mlir::Value a, mlir::Value b) { return band(a, b); }

  // Float arithmetic.
  mlir::Value fadd(mlir::Value a, mlir::Value b);
  mlir::Value arithSub(mlir::Value a, mlir::Value b); ///< fp32 a - b
  mlir::Value fmul(mlir::Value a, mlir::Value b);
  mlir::Value fdiv(mlir::Value a, mlir::Value b);
  mlir::Value fabs(mlir::Value a);
  /// max that propagates NaN (PTX max.NaN.f32).
  mlir::Value fmaxNaN(mlir::Value a, mlir::Value b);
  mlir::Value fcmp(mlir::arith::CmpFPredicate p, mlir::Value a, mlir::Value b);

  // Memory: element-indexed addressing (the result is in the base's address
  // space: global, or shared for a kernel's tile).
  mlir::Value gep(mlir::Value base, mlir::Type elem, mlir::Value index);
  mlir::Value load(mlir::Type t, mlir::Value ptr, unsigned align);
  void store(mlir::Value v, mlir::Value ptr, unsigned align);
  /// Stores only when `cond` holds (an scf.if around the store).
  void storeIf(mlir::Value cond, mlir::Value v, mlir::Value ptr, unsigned align);
  mlir::Value extract(mlir::Value vec, int64_t i);
  mlir::Value vector(llvm::ArrayRef<mlir::Value> elems);

  /// PTX inline assembly, one result of type `t`; without side effects LLVM
  /// may merge, move or drop it like any pure value, with them it is read
  /// again each time (e.g. a special register whose CSE would keep a value
  /// live across a long stretch of code).
  mlir::Value ptx(mlir::Type t, llvm::StringRef text, llvm::StringRef constraints,
                  mlir::ValueRange operands, bool sideEffects = false);
  /// A special register (e.g. "%tid.x") as i64, read afresh: opaque to CSE,
  /// so an index rebuilt from it late in a kernel does not keep the early
  /// one live across the work in between.
  mlir::Value freshSpecial(llvm::StringRef reg);
  /// PTX inline assembly with side effects and no result (cp.async, waits,
  /// an empty statement that pins values as "used").
  void ptxEffect(llvm::StringRef text, llvm::StringRef constraints,
                 mlir::ValueRange operands);
  /// cp.async of 16 bytes from global `src` to shared `dst` (every target
  /// of the table has it: sm_80 on), and the wait for all of a thread's.
  void cpAsync16(mlir::Value dst, mlir::Value src);
  void cpAsyncWaitAll();
  /// prmt.b32: bytes of the pair (a, b) picked by the 4-nibble `selector`
  /// (nibble bit 3 replicates the picked byte's sign).
  mlir::Value prmt(mlir::Value a, mlir::Value b, uint32_t selector);
  /// The same with the selector in a register (i32).
  mlir::Value prmt(mlir::Value a, mlir::Value b, mlir::Value selector);

  // GPU indices (as i64) and warp shuffles.
  mlir::Value threadIdx(mlir::gpu::Dimension d = mlir::gpu::Dimension::x);
  mlir::Value blockIdx(mlir::gpu::Dimension d = mlir::gpu::Dimension::x);
  mlir::Value gridDim(mlir::gpu::Dimension d = mlir::gpu::Dimension::x);
  mlir::Value shuffleXor(mlir::Value v, int offset);
  /// The value of lane - offset (the lane's own below `offset`).
  mlir::Value shuffleUp(mlir::Value v, int offset);
  /// The value of lane `lane` (i32) of the warp.
  mlir::Value shuffleIdx(mlir::Value v, int lane);
  /// The unsigned maximum of i32 `v` over the (whole, converged) warp:
  /// redux.sync.max.u32 (sm_80 and later).
  mlir::Value reduxUmax(mlir::Value v);
  /// A __syncthreads().
  void barrier();
};

} // namespace fpx

#endif // FPX_CONVERSION_FPXTOGPU_KERNELBUILDER_H
