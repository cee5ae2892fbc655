//===- PerRowQuantizeKernels.h - one scale a row ([1, *]) ------*- C++ -*-===//
#ifndef FPX_CONVERSION_FPXTOGPU_PERROWQUANTIZEKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_PERROWQUANTIZEKERNELS_H

#include "QuantizeKernels.h"

#include <optional>
#include <string>

namespace fpx {

/// Vectors of 8 elements a thread of the per-row cast holds in registers
/// per chunk of its row.
constexpr int64_t kPerRowVecs = 4;

/// The team kernel's launch grid along x for `rows` rows of `cols`
/// elements (integer expressions of the artifact's shape symbols): rows are
/// cast by teams of T = 8, 16, 32 or 64 threads, the smallest team whose
/// kPerRowVecs vectors a thread cover the row, and T = 256 for rows of more
/// than kStagedMinVecs vectors (those no staged kernel takes), 256 / T rows
/// a CTA. The kernel computes the same T from `cols`. (The lowering
/// multiplies it by 0 where a staged kernel takes the rows.)
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

/// Rows of more than this many vectors take a staged kernel (below)
/// instead.
constexpr int64_t kStagedMinVecs = 64 * kPerRowVecs;
/// Rows of up to this many vectors are staged two a CTA.
constexpr int64_t kStagedPairVecs = 512;
/// Threads of a staged kernel's CTA.
constexpr int64_t kStagedThreads = 256;
/// Vectors a thread of the long-row kernel holds in registers: the row's
/// last kStagedThreads * kStagedRegVecs vectors, the rest staged.
constexpr int64_t kStagedRegVecs = 8;
/// Vectors a long row may have between its staged ones and its registers',
/// read twice (64 KiB of bf16): rows of 151936 bf16 elements with 41 KiB
/// there ran 56.6 -> 63.6% of the H200's copy, rows of 262144 with 256 KiB
/// 58.3 -> 44.4% (the team kernel's, reading whole rows twice, at four CTAs
/// an SM; docs/results/2026-11-25-h200-22).
constexpr int64_t kMaxMiddleVecs = 4096;

/// The staged kernels: two rows a CTA (rows of kStagedMinVecs + 1 ..
/// kStagedPairVecs vectors), one row a CTA (longer rows of up to half the
/// staging budget, or Staging::longFrom), and one long row a CTA, its last
/// vectors in registers (longer rows), so that a row of more than half an
/// SM's shared memory stages less than half and two CTAs share an SM; a
/// long row stages at most the budget and reads the vectors between its
/// staged and its registers' twice (at most kMaxMiddleVecs).
enum class StagedRows { Pair, One, Long };

/// What decides which staged kernel takes a row: its vectors' bytes and
/// the bytes a CTA may stage (an SM's shared memory less 4 KiB).
struct Staging {
  int64_t inVecBytes, maxBytes;
  /// Rows of more than this many vectors take the long-row kernel: half
  /// the budget, at least its register vectors (so that it always stages a
  /// row's first part).
  int64_t longFrom() const;
  /// Rows of more than longFrom and at most this many vectors take the
  /// long-row kernel: the budget's, the registers' and kMaxMiddleVecs.
  int64_t longTo() const;
  /// Vectors a CTA of `kind` stages for rows of `nv` vectors (a long row
  /// all but its last 2048, at most the budget's).
  int64_t stagedVecs(StagedRows kind, int64_t nv) const;
  /// The staged kernel that takes rows of `nv` vectors (a static row
  /// length), none where the team kernel does.
  std::optional<StagedRows> kernelFor(int64_t nv) const;
  /// 1 where a row of `cols` elements (an expression) takes the staged
  /// kernel `kind`, as kernelFor; else 0.
  std::string takes(const std::string &cols, StagedRows kind) const;
  /// Dynamic shared memory a CTA of `kind` takes for rows of `cols`
  /// elements (an expression, evaluated at launch).
  std::string bytes(const std::string &cols, StagedRows kind) const;
  /// The launch grid of `kind` for `rows` rows of `cols` elements: a CTA a
  /// pair of rows, or a row; for long rows whose staged part fills the
  /// budget, one CTA an SM (sm_count), each casting every G-th row.
  std::string grid(const std::string &rows, const std::string &cols, StagedRows kind) const;
};

/// The per-row cast of rows staged in dynamic shared memory (StagedRows):
/// a team of 256 threads a row, 128 for two rows a CTA, the size given at
/// launch: 16-byte cp.async copies of the CTA's rows (but a long row's
/// last vectors, which its threads load into registers, and those past the
/// budget, read from global memory twice), so a CTA has
/// their bytes in flight however long they are and an SM as many rows as
/// its shared memory holds; then the row amax over the staged vectors
/// (thread maxima, a warp butterfly, the team's warps through shared
/// memory), one scale, and the conversions from shared memory. Same
/// parameters, scales, codes and random bits as buildPerRowQuantizeKernel.
/// Grid: Staging::grid (the long-row kernel casts every G-th row where its
/// staged part fills the budget, copying the next row in while it converts).
KernelDesc buildStagedPerRowQuantizeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                           llvm::StringRef name,
                                           const QuantizePlan &plan,
                                           const Staging &staging, StagedRows kind,
                                           mlir::gpu::GPUModuleOp module);

} // namespace fpx

#endif
