//===- LayoutKernels.h - standalone pack/unpack/swizzle/hadamard -*- C++ -*-===//
//
// The layout ops that fpx-fuse-quantize could not fold into a cast (their
// input is a function argument, or it has other uses) as kernels of their own.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_LAYOUTKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_LAYOUTKERNELS_H

#include "QuantizeKernels.h"

namespace fpx {

/// Row-major (rows, cols) byte scales -> the blocked 128x4 layout, zero
/// padded (num::swizzleBlocked), by bands: a CTA stages 128 rows x 64
/// columns of scales in shared memory and writes their 16 tiles as 16-byte
/// rows. Grouped (MoE, num::swizzleBlockedGrouped): each CTA first finds its
/// band's input rows by scanning the i32 group ends; bands past the groups
/// are zero. Params: in, out, [ends, groups,] rows, cols. Grid: bands of the
/// result x cdiv(cols, 64), a band's strips adjacent.
KernelDesc buildBandSwizzleKernel(mlir::OpBuilder &b, mlir::Location loc,
                                  llvm::StringRef name, mlir::gpu::GPUModuleOp module,
                                  bool grouped);

/// One code per byte -> packed (fp4x2, fp6_planes, fp6_packed,
/// fp6_interleaved): 8 codes per
/// thread. Params: in, out, total (codes), cols. Grid: cdiv(total, 2048).
KernelDesc buildPackKernel(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::StringRef name, LayoutKind layout,
                           const num::Format &fmt);

/// The inverse of buildPackKernel. Same params and grid.
KernelDesc buildUnpackKernel(mlir::OpBuilder &b, mlir::Location loc,
                             llvm::StringRef name, LayoutKind layout);

/// The random Hadamard transform written to memory in the input's type
/// (fp32 arithmetic, then RNE to bf16/f16 with IEEE overflow).
/// Params: in, out, total. Grid: cdiv(total, 2048).
KernelDesc buildHadamardKernel(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::StringRef name, mlir::Type elem,
                               int64_t size, uint64_t seed);

} // namespace fpx

#endif
