//===- QuantizeKernels.h - kernel generators for casts ----------*- C++ -*-===//
#ifndef FPX_CONVERSION_FPXTOGPU_QUANTIZEKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_QUANTIZEKERNELS_H

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Dialect/FPx/IR/FPxDialect.h"
#include "fpx/Numerics/Quantize.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace fpx {

/// Everything a cast kernel depends on, resolved from one fpx.quantize.
struct QuantizePlan {
  mlir::Type inElem;          ///< f32, bf16 or f16
  num::Format elem;           ///< element format
  num::ScaleKind scaleKind = num::ScaleKind::E8M0; ///< E8M0, NVFP4 or FP32
  ScaleRule rule = ScaleRule::floor;
  /// E8M0: what a block holding +-inf or NaN produces (fpx.quantize's
  /// `nonfinite`).
  num::NonFinite nonFinite = num::NonFinite::NaN;
  /// The target has cvt.rp{.satfinite}.ue8m0x2.f32 (the target table's
  /// CvtUe8m0x2): the rceil scale takes it (see e8m0Scale).
  bool nativeUe8m0 = false;
  int64_t blockK = 32;        ///< contiguous block length; 0 = per tensor
  RoundingKind rounding = RoundingKind::rn;
  bool satfinite = true;
  std::optional<LayoutKind> packing;
  bool blockedScales = false;
  bool tensorAmax = false;    ///< reads a per-tensor amax (NVFP4 / per-tensor)
  /// With tensorAmax: one amax per matrix of a rank-3 input (the row kernel
  /// takes the matrix's element count, a multiple of kCtaElements, and each
  /// tile reads its matrix's amax).
  bool matrixAmax = false;
  /// Also stores NVFP4's global scale (an fpx.global_scale of the amax
  /// operand, fused): one thread of the first CTA (per matrix: of the tile
  /// that starts it).
  bool globalScaleOut = false;
  /// Row casts: also reduce max |x| of the (transformed) input into the
  /// amax_out parameter, zeroed before the launch (an fpx.amax of the same
  /// input, fused: a cast from a given amax that records the next one); with
  /// matrixAmax one per matrix, a CTA's maximum into its tiles' matrix's.
  bool amaxOut = false;
  int64_t hadamard = 0;       ///< fused random Hadamard size (0 = none)
  int64_t tiles = 1;          ///< row casts: kCtaElements tiles a CTA casts in turn
  uint64_t hadamardSeed = 0;
  std::string prologue;       ///< user `float NAME(float)` applied first ("" = none)
  /// Use max/min.xorsign.abs.bf16x2 (PTX has them from sm_86; fpxc takes
  /// them where the target table says Bf16x2Math, sm_90 on): |.| of bf16 pairs
  /// folds into block maxima and clamps.
  bool bf16AbsMinMax = false;
  /// The target takes the launch shapes measured on Hopper (the target
  /// table's Tuning::Hopper; false where none is named).
  bool hopperShapes = false;
};

/// Vector width of the cast kernels: elements per thread per step.
constexpr int64_t kVec = 8;
/// Bytes of one vector of `inElem` input elements (16 for bf16 / f16, 32
/// for f32).
inline int64_t inVecBytes(mlir::Type inElem) {
  return kVec * inElem.getIntOrFloatBitWidth() / 8;
}
/// Threads per block and vectors per thread of the cast kernels.
constexpr int64_t kThreads = 256;
constexpr int64_t kUnroll = 4;
/// Elements one row-cast or dequantize CTA covers (kThreads threads, kUnroll
/// vectors each): a batch whose matrices are multiples of it has every CTA
/// inside one matrix (the per-matrix amax and global scale read one value).
constexpr int64_t kCtaElements = kVec * kThreads * kUnroll;
/// Tile of the column-block (transposed) casts: rows x columns per CTA. The
/// column count keeps the shared tile at 32 KB for 16- and 32-bit inputs;
/// the narrow tile (bf16, 64 columns, 16 KB, a column and block a thread)
/// serves casts of few tiles (colTunedForHopper).
constexpr int64_t kColTileRows = 128;
inline int64_t colTileCols(mlir::Type inElem, bool narrow = false) {
  return inElem.isF32() || narrow ? 64 : 128;
}
/// The column casts whose launch shapes were measured on Hopper (bf16, round
/// to nearest, E8M0 scales, a target of Tuning::Hopper): five CTAs an SM,
/// and a second, narrow-tile kernel that takes the casts of fewer than
/// kColNarrowTilesPerSM 128 x 128 tiles an SM of the launching device.
bool colTunedForHopper(const QuantizePlan &plan);
constexpr int64_t kColNarrowTilesPerSM = 10;

/// How many kCtaElements tiles one CTA of the row cast of `plan` casts in
/// turn (its grid: cdiv(elements, kCtaElements * tiles)).
int64_t rowCastTiles(const QuantizePlan &plan);

/// Row-block (1 x blockK) or per-tensor cast: one thread per 8 contiguous
/// elements, blockK/8 neighbouring lanes share a block's amax through warp
/// shuffles, 16-byte loads, 4 independent vectors per thread.
/// A CTA casts plan.tiles tiles of kCtaElements in turn.
/// Params: in, out, scales, [amax], [global_scale], [amax_out], [seed], total,
/// cols, [matrix].
KernelDesc buildRowQuantizeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                  llvm::StringRef name, const QuantizePlan &plan);

/// Column-block (blockM x 1) cast with transposed output: a CTA stages a
/// 128 x 128 (64 for f32 or `narrow`) tile of the (E, M, K) input in shared memory with
/// coalesced 16-byte loads, then each thread takes (column, block) pairs:
/// amax over blockM values, one scale, and blockM codes written as
/// contiguous bytes of the (E, K, M) output, so a CTA writes 128-byte runs of
/// 128 output rows and the next CTA along x continues them.
/// Params: in, out, scales, [amax], [global_scale], [seed], rows (M), cols (K).
/// Grid: (cdiv(M, 128), cdiv(K, tile columns), E). `narrow` (bf16 only):
/// 64 columns, each thread one column's block, maxima on widened values.
KernelDesc buildColQuantizeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                  llvm::StringRef name, int64_t blockM,
                                  const QuantizePlan &plan,
                                  mlir::gpu::GPUModuleOp module,
                                  bool narrow = false);

/// fpx.global_scale on its own: NVFP4's global scale of one amax, stored by
/// one thread (params: amax, out; grid (1, 1, 1)), or with `many` of n
/// amaxes, one thread each (params: amax, out, n; grid cdiv(n, 256)).
KernelDesc buildGlobalScaleKernel(mlir::OpBuilder &b, mlir::Location loc,
                                  llvm::StringRef name, bool many = false);

/// amax over a whole tensor into one f32 (zero-initialised) with atomicMax
/// on the bits: grid-stride loop, warp shuffle reduction.
/// Params: in, out, total.
/// With `hadamard` > 0 it reduces the random Hadamard transform of the input
/// (signs seeded by `hadamardSeed`), computed in registers. `perMatrix`:
/// one amax per matrix, blockIdx.y the matrix and `total` its elements.
KernelDesc buildAmaxKernel(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::StringRef name, mlir::Type inElem,
                           int64_t hadamard = 0, uint64_t hadamardSeed = 0,
                           bool perMatrix = false);

} // namespace fpx

#endif
