//===- BlockQuantizeKernels.h - 2-D block casts (Br x Bc) -------*- C++ -*-===//
#ifndef FPX_CONVERSION_FPXTOGPU_BLOCKQUANTIZEKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_BLOCKQUANTIZEKERNELS_H

#include "QuantizeKernels.h"

namespace fpx {

/// How a CTA of the 2-D block cast covers its tile: blockRows rows of
/// `tileCols` columns (a multiple of blockCols), 256 threads of 8-element
/// vectors along rows, `rowsPerPass` rows per pass of the CTA, each thread
/// `vecsPerThread` vectors of one column chunk (so of one block).
struct Block2DTiling {
  int64_t blockRows = 0, blockCols = 0;
  int64_t tileCols = 0;
  int64_t chunksPerRow = 0; ///< tileCols / 8
  int64_t rowsPerPass = 0;  ///< kThreads / chunksPerRow
  int64_t vecsPerThread = 0;
  /// The rowsPerPass threads of a column chunk lie in one warp (lane
  /// groups of 32 / rowsPerPass lanes, each a whole number of blocks wide):
  /// the block amax crosses rows by shuffles, without shared memory or a
  /// barrier.
  bool warpRows = false;
  /// The tile is staged in shared memory by cp.async (registers then hold
  /// one vector at a time) instead of held in registers.
  bool staged = false;
  int32_t minCtas = 0; ///< nvvm.minctasm
};

/// The tiling of [blockRows, blockCols] blocks for `inElem` inputs, or a
/// message saying why the block shape is not lowered.
llvm::FailureOr<Block2DTiling> block2DTiling(int64_t blockRows,
                                             int64_t blockCols,
                                             mlir::Type inElem,
                                             std::string &why);

/// 2-D block (Br x Bc, Br > 1, Bc > 1) cast of an (E, M, K) input, row-major
/// output. A CTA owns Br rows x tileCols columns (grid (M/Br, cdiv(K,
/// tileCols), E)): every thread issues its 16-byte loads first and keeps the
/// raw vectors in registers, all its vectors lie in one block; the block amax
/// is reduced over the block's lanes with warp shuffles and over the
/// block's rows through shared memory; one scale per block; the codes go out
/// as 8-byte (bytes) or 4-byte (fp4x2) stores, contiguous across a warp.
/// Params: in, out, scales, [amax], [seed], rows (M), cols (K).
KernelDesc buildBlock2DQuantizeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                      llvm::StringRef name,
                                      const Block2DTiling &tiling,
                                      const QuantizePlan &plan,
                                      mlir::gpu::GPUModuleOp module);

} // namespace fpx

#endif
