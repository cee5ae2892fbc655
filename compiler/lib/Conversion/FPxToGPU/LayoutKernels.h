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

/// Row-major (rows, cols) byte scales -> the blocked 128x4 layout, padding
/// with zeros. One thread per output byte (outputs are written in order).
/// Params: in, out, rows, cols, total (padded bytes). Grid: cdiv(total, 256).
KernelDesc buildSwizzleKernel(mlir::OpBuilder &b, mlir::Location loc,
                              llvm::StringRef name);

/// The same for groups of rows (MoE: `offsets`, the groups' i32 end rows):
/// each group padded and tiled on its own, one after another
/// (num::swizzleBlockedGrouped); the rows of the result past the last group
/// are zero. Params: in, offsets, out, rows, cols, groups, total (padded
/// bytes of the result). Grid: cdiv(total, 256).
KernelDesc buildGroupedSwizzleKernel(mlir::OpBuilder &b, mlir::Location loc,
                                     llvm::StringRef name);

/// One code per byte -> packed (fp4x2, fp6_4p2, fp6_packed): 8 codes per
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
