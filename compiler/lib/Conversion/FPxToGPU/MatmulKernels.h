//===- MatmulKernels.h - weight-only GEMM kernel generators -----*- C++ -*-===//
//
// fpx.scaled_matmul with a high-precision activation x (M x K, bf16/f16) and
// an FPx weight pre-packed in the mma_tiles layout (numerics
// MmaTiles.h): y = x * dequantize(w)^T. The weight is read once from global
// memory and decoded in registers; mma.sync m16n8k16 takes it as the A
// operand (16 output channels) and the tokens as B (8 a tile).
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_MATMULKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_MATMULKERNELS_H

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Numerics/Format.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace fpx {

/// Geometry of the decode kernel (bench/gemm/experiments/NOTES.md, form `c`).
constexpr int64_t kMatmulWarps = 8;        ///< warps a CTA, each 16 channels
constexpr int64_t kMatmulGroupRows = 128;  ///< output channels a CTA unit
constexpr int64_t kMatmulChunk = 256;      ///< K a unit (8 steps of 32)
constexpr int64_t kMatmulCtasPerSm = 2;
/// CTAs that may share a row group's K (split-K partial-sum slots).
constexpr int64_t kMatmulSlots = 8;

/// Everything a weight-only decode kernel depends on.
struct WeightOnlyPlan {
  num::Format elem;        ///< the weight codes' format (8-bit so far)
  mlir::Type act;          ///< x's element type: bf16 or f16
  mlir::Type out;          ///< y's element type: bf16 or f16
  int64_t tokenTiles = 1;  ///< tokens a CTA in tiles of 8 (1 or 2)
  /// Weight loads allocate nothing in L1 (`.L1::no_allocate`, PTX 7.4).
  bool noAllocate = true;
};

/// The decode kernel: a CTA's 8 warps take one K chunk of 128 channels at a
/// time (a unit), x's chunk staged once in shared memory by cp.async, each
/// warp's weights streamed from global memory into registers a unit ahead.
/// The units are split evenly over gridDim.x CTAs (stream-K); a warp that
/// does not cover all of K for its 16 channels writes its fp32 partial sums
/// to its slot of the workspace `ws` ([kMatmulSlots][M][N]) and the last
/// contributor (counter `cnt`) adds the slots up in order: deterministic.
/// blockIdx.y picks 8 * tokenTiles tokens.
/// Params: x, w, scale (f32 per channel), y, ws, cnt, M, N, K.
/// Needs N % 128 == 0, K % 256 == 0; cnt zero at launch (and left zero).
KernelDesc buildWeightOnlyDecodeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                       llvm::StringRef name, const WeightOnlyPlan &plan,
                                       mlir::gpu::GPUModuleOp module);

} // namespace fpx

#endif // FPX_CONVERSION_FPXTOGPU_MATMULKERNELS_H
