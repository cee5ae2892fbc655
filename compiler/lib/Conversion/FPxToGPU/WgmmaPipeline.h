//===- WgmmaPipeline.h - TMA / mbarrier / wgmma building blocks -*- C++ -*-===//
//
// Pieces of the warp-specialized sm_90a GEMMs (CUTLASS 3.x's collective
// mainloop, DeepGEMM's kernels): a 1024-aligned dynamic shared-memory base,
// mbarrier waits and arrivals, 2-D TMA loads into a 128B-swizzled ring, the
// wgmma shared-memory descriptor of such a ring row, setmaxnreg and a
// persistent grouped tile order. The weight-only wgmma kernel, the Hopper
// scaled GEMM and the tcgen05 kernel use them.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_WGMMAPIPELINE_H
#define FPX_CONVERSION_FPXTOGPU_WGMMAPIPELINE_H

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <utility>

namespace fpx::wgp {

/// try_wait's suspend hint (ns).
constexpr int64_t kWaitTicks = 10000000;

/// A gpu.func kernel of `threads` threads (nvvm.maxntid: setmaxnreg needs
/// it), one CTA an SM, whose parameters `tensorMaps` are by-value
/// CUtensorMaps (the pipeline makes them byval grid_constant).
mlir::gpu::GPUFuncOp makeKernel(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                                llvm::ArrayRef<mlir::Type> argTypes, int32_t threads,
                                llvm::ArrayRef<int32_t> tensorMaps);

/// The kernel's dynamic shared memory (an extern array `name` in `module`)
/// from a 1024-byte aligned base (the 128B swizzle atom repeats every 1024
/// bytes; launch with 1024 bytes of slack): the base as a pointer and as a
/// 32-bit shared address.
std::pair<mlir::Value, mlir::Value> alignedSharedBase(KernelBuilder &k,
                                                      mlir::gpu::GPUModuleOp module,
                                                      llvm::StringRef name);

/// The wgmma descriptor of a K-major tile that TMA wrote with the 128B
/// swizzle (8-row x 128-byte atoms, 1024 bytes apart) at shared address
/// `addr32`; a k step inside the 128-byte row adds its bytes to the address.
mlir::Value smemDescriptor128B(KernelBuilder &k, mlir::Value addr32);

/// Blocks until mbarrier `bar` completes phase `parity`.
void wait(KernelBuilder &k, mlir::Value bar, mlir::Value parity);
/// One arrival on `bar` that also expects `bytes` of transactions.
void arriveExpectTx(KernelBuilder &k, mlir::Value bar, int64_t bytes);
/// One arrival on `bar`.
void arrive(KernelBuilder &k, mlir::Value bar);
/// A 2-D TMA load of tensor map `map`'s box at (c0, c1) into shared `dst`,
/// completing on mbarrier `bar`.
void tmaLoad2d(KernelBuilder &k, mlir::Value dst, mlir::Value map, mlir::Value c0,
               mlir::Value c1, mlir::Value bar);
/// A bulk copy (cp.async.bulk, no tensor map) of `bytes` (a multiple of 16,
/// both addresses 16-byte aligned) from global `src` to shared `dst`,
/// completing on mbarrier `bar`.
void bulkLoad(KernelBuilder &k, mlir::Value dst, mlir::Value src, int64_t bytes, mlir::Value bar);
/// setmaxnreg.inc / .dec.
void setMaxRegisters(KernelBuilder &k, int32_t regs, bool increase);

/// The persistent tile order: tiles t = blockIdx.x, + gridDim.x, ... of a
/// rows x cols grid of tiles, `groupRows` tile rows at a time (cols walked
/// inside a group) so that a wave shares its operands in L2.
struct GroupedTiles {
  mlir::Value rows, cols; ///< i32 tile counts
  int64_t groupRows = 8;
  /// (row, col) tile indices of tile `t` (i32).
  std::pair<mlir::Value, mlir::Value> coords(KernelBuilder &k, mlir::Value t) const;
  /// Walks this CTA's tiles; `body(tile, it)` returns the stage counter
  /// after the tile (`it` before it; 0 at the first). With `units` (i32),
  /// walks work units 0 .. units - 1 instead (split-K: `splits` units a
  /// tile, unit u of tile u / splits).
  void forEach(KernelBuilder &k,
               llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> body,
               mlir::Value units = {}) const;
};

/// Split-K's meeting of a tile's units, for one consumer warpgroup of two
/// (threads ct = 0-255 of both): its unit's fp32 partial sums `acc` (a
/// multiple of 4 a thread) go to workspace slot `slot` of `ws` (256 x
/// acc.size() floats; thread ct's j-th 4 at (256 j + ct) * 4), and the
/// warpgroup counts itself on `counter` (i32). The last of the tile's
/// `splits` units to count resets the counter (no other unit touches it in
/// this launch, so the next launch finds it zero) and adds the slots
/// `slot0` .. `slot0 + splits - 1` up in that order, so the sums do not
/// depend on which unit came last. Returns (the sums, true) there, (acc,
/// false) elsewhere, and (acc, true) with one unit a tile (splits 1). `flag`: an i32 of shared memory of the warpgroup;
/// `wgBarrier` syncs its 128 threads; `t`: the thread in the warpgroup.
std::pair<llvm::SmallVector<mlir::Value>, mlir::Value>
splitKMeet(KernelBuilder &k, llvm::ArrayRef<mlir::Value> acc, mlir::Value ws,
           mlir::Value counter, mlir::Value slot0, mlir::Value slot, mlir::Value splits,
           mlir::Value ct, mlir::Value t, mlir::Value flag,
           llvm::function_ref<void()> wgBarrier);

} // namespace fpx::wgp

#endif // FPX_CONVERSION_FPXTOGPU_WGMMAPIPELINE_H
