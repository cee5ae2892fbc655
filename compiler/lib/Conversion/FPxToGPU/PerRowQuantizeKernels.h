//===- PerRowQuantizeKernels.h - one scale a row ([1, *]) ------*- C++ -*-===//
#ifndef FPX_CONVERSION_FPXTOGPU_PERROWQUANTIZEKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_PERROWQUANTIZEKERNELS_H

#include "QuantizeKernels.h"

#include <string>

namespace fpx {

/// Vectors of 8 elements a thread of the per-row cast holds in registers
/// per chunk of its row.
constexpr int64_t kPerRowVecs = 4;

/// The team kernel's launch grid along x for `rows` rows of `cols`
/// elements (integer expressions of the artifact's shape symbols): rows are
/// cast by teams of T = 8, 16, .. 256 threads, the smallest team whose
/// kPerRowVecs vectors a thread cover the row (T = 256 beyond 8192
/// elements), 256 / T rows a CTA. The kernel computes the same T from
/// `cols`. (The lowering multiplies it by 0 where a staged kernel
/// takes the rows.)
std::string perRowGrid(const std::string &rows, const std::string &cols);

/// fpx.quantize with one scale a row (block [1, *]) of a 2-D or 3-D input
/// (rows of every matrix, batch-flat), row-major output and an (..., M, 1)
/// scale per row. A team of T threads (perRowGrid) owns a row: each thread
/// loads kPerRowVecs 16-byte vectors, lane-strided along the row so that a
/// team's loads are contiguous, and keeps them in registers; the row amax is
/// a butterfly over the team's lanes, then for teams wider than a warp a
/// maximum over its warps through shared memory (one barrier);
/// then one scale and the conversions from registers.
/// Rows longer than T * 8 * kPerRowVecs elements take further chunks in a
/// loop: read once for the amax and again (mostly from L2) to convert.
/// Params: in, out, scales, [amax], [global_scale], [seed], rows, cols.
KernelDesc buildPerRowQuantizeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                     llvm::StringRef name,
                                     const QuantizePlan &plan,
                                     mlir::gpu::GPUModuleOp module);

/// Rows of more than this many vectors whose bytes fit in the target's
/// staging budget take the staged kernel (below) instead.
constexpr int64_t kStagedMinVecs = 256;
/// Rows of up to this many vectors are staged two a CTA.
constexpr int64_t kStagedPairVecs = 512;
/// Threads of a staged kernel's CTA.
constexpr int64_t kStagedThreads = 256;

/// 1 where a row of `cols` elements (an expression) of `inVecBytes` bytes a
/// vector takes the staged kernel of `rowsPerCta` rows a CTA: two for rows
/// of more than kStagedMinVecs and at most kStagedPairVecs vectors, one for
/// longer rows, while the CTA's rows take at most `maxBytes`; else 0.
std::string perRowStaged(const std::string &cols, int64_t inVecBytes,
                         int64_t rowsPerCta, int64_t maxBytes);

/// The per-row cast of rows staged whole in dynamic shared memory,
/// `rowsPerCta` (1 or 2) a CTA, a team of 256 / rowsPerCta threads each,
/// the size given at launch: 16-byte cp.async
/// copies of the CTA's rows, so a CTA has their bytes in flight however
/// long they are and an SM as many rows as its shared memory holds; then
/// the row amax over the staged vectors (thread maxima, a warp butterfly,
/// the team's warps through shared memory), one scale, and the conversions
/// from shared memory. Same parameters, scales, codes and random bits as
/// buildPerRowQuantizeKernel. Grid: cdiv(rows, rowsPerCta).
KernelDesc buildStagedPerRowQuantizeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                           llvm::StringRef name,
                                           const QuantizePlan &plan,
                                           int64_t rowsPerCta,
                                           mlir::gpu::GPUModuleOp module);

} // namespace fpx

#endif
