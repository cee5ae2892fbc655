//===- ScaledMatmulBlackwell.h - scaled GEMMs for sm_100a / sm_120a -*- C++ -*-===//
//
// fpx.scaled_matmul with quantized operands on both sides on Blackwell:
// C = (A * sa) x (B * sb)^T, A (M, K) and B (N, K) K-major, fp32
// accumulation, bf16 or f32 out, optional bias. One plan, three forms:
//
// - Fp8:   e4m3/e5m2 codes with f32 per-tensor or per-row scales, applied in
//          the epilogue (tcgen05 kind::f8f6f4).
// - Mxfp8: e4m3/e5m2 codes with E8M0 [1, 32] block scales (kind::mxf8f6f4,
//          scale_vec::1X).
// - Nvfp4: e2m1 codes packed two a byte (fp4x2) with e4m3 [1, 16] block
//          scales and an f32 tensor scale (kind::mxf4nvf4, scale_vec::4X).
//
// Two kernel families read the plan: ScaledMatmulSm100.cpp (tcgen05: TMA
// ring, a single-thread MMA issuer, the accumulator and the block scales in
// tensor memory, an epilogue warpgroup) and ScaledMatmulSm120.cpp (the
// block-scaled mma.sync, register tiles). The target table's MmaKind bits
// (Tcgen05, MmaBlockScaled) pick the family. No GPU of this project runs
// either: they are compiled and ptxas-checked (docs/results/scaled-gemm.md).
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_SCALEDMATMULBLACKWELL_H
#define FPX_CONVERSION_FPXTOGPU_SCALEDMATMULBLACKWELL_H

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Conversion/FPxToGPU/LoweringContext.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace fpx {

/// How the operands are scaled (the same on both sides).
enum class BlockScaledForm { Fp8, Mxfp8, Nvfp4 };

/// Everything one Blackwell scaled-GEMM kernel depends on.
struct BlackwellGemmPlan {
  BlockScaledForm form = BlockScaledForm::Mxfp8;
  bool e5m2A = false, e5m2B = false; ///< fp8 codes: e5m2, else e4m3
  bool rowA = false, rowB = false;   ///< Fp8: a scale per row, else per tensor
  /// Nvfp4: A's and B's f32 tensor scales (params `ga`, `gb`: rank-0),
  /// applied in the epilogue.
  bool globalA = false, globalB = false;
  /// Block scales of A / B in the blocked 128x4 layout, else row-major.
  bool blockedA = false, blockedB = false;
  mlir::Type out;                    ///< bf16 or f32
  mlir::Type bias;                   ///< bias element type; null: none

  bool blockScaled() const { return form != BlockScaledForm::Fp8; }
  /// Logical K elements a scale covers (32 MX, 16 NVFP4; 0: f32 scales).
  int64_t scaleBlock() const {
    return form == BlockScaledForm::Mxfp8 ? 32 : form == BlockScaledForm::Nvfp4 ? 16 : 0;
  }
  /// Logical K elements one byte of an operand row holds.
  int64_t elemsPerByte() const { return form == BlockScaledForm::Nvfp4 ? 2 : 1; }
  /// The kernels' parameters, names and types: the operands `a`, `b` (of
  /// type `operand`), then sa, sb, c (`gptr`), M, N, K (i64)[, ga][, gb]
  /// [, bias].
  void params(llvm::StringRef a, llvm::StringRef b, mlir::Type operand, mlir::Type gptr,
              llvm::SmallVector<std::string> &names,
              llvm::SmallVector<mlir::Type> &types) const;
};

/// A kernel's arguments in BlackwellGemmPlan::params's order, M, N and K
/// truncated to i32; ga, gb and bias null where the plan has none.
/// An f32 result `v` at column `col` (< N, or clamped by the caller) plus
/// the plan's bias (`bias`: its pointer; added in f32), cast to plan.out:
/// the last step of both kernels' epilogues.
mlir::Value biasAndCast(KernelBuilder &k, const BlackwellGemmPlan &plan, mlir::Value v,
                        mlir::Value bias, mlir::Value col);

struct BlackwellGemmArgs {
  mlir::Value a, b, sa, sb, c, M, N, K, ga, gb, bias;
  BlackwellGemmArgs(KernelBuilder &k, mlir::Block &entry, const BlackwellGemmPlan &plan);
};

// ----------------------------------------------------------------- sm_100a

/// The tcgen05 CTA tile: 128 rows of A (the MMA's M, one accumulator lane
/// each) x 128 of B, 128 bytes of K a stage (one 128B-swizzle row: 128 fp8
/// or 256 fp4 elements).
constexpr int64_t kTcgen05TileM = 128, kTcgen05TileN = 128, kTcgen05StageBytes = 128;
constexpr int64_t kTcgen05Stages = 4;
/// Warps 0-3: the epilogue warpgroup (warp w reads tensor-memory lanes
/// 32w..32w+31), warp 4: the producer (TMA + block scales), warp 5: tensor
/// memory allocation and the MMA issuer.
constexpr int64_t kTcgen05Threads = 192;

/// Dynamic shared memory of the tcgen05 kernel for `plan`.
int64_t tcgen05GemmSharedBytes(const BlackwellGemmPlan &plan);

/// The tcgen05 kernel: one 128x128 output tile a CTA (grid cdiv(M, 128) x
/// cdiv(N, 128)). Params: tmA, tmB (tensor maps: dims [K bytes, rows], box
/// [128, 128], 128B swizzle), sa, sb, c, M, N, K (logical elements)[, ga][, gb]
/// [, bias].
KernelDesc buildTcgen05GemmKernel(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                                  const BlackwellGemmPlan &plan, mlir::gpu::GPUModuleOp module);

// ----------------------------------------------------------------- sm_120a

/// The block-scaled mma.sync kernel: 4 warps, each a 32x32 tile of C, the
/// CTA 64x64. Operands and scales are read from global memory into MMA
/// fragments (L1/L2 serve the reuse). Params: a, b, sa, sb, c, M, N, K[,
/// ga][, gb][, bias].
constexpr int64_t kMmaBlockScaledTile = 64;
constexpr int64_t kMmaBlockScaledThreads = 128;
KernelDesc buildMmaBlockScaledGemmKernel(mlir::OpBuilder &b, mlir::Location loc,
                                         llvm::StringRef name, const BlackwellGemmPlan &plan,
                                         mlir::gpu::GPUModuleOp module);

/// Lowers fpx.scaled_matmul with quantized operands on both sides on a
/// target whose MmaKind has Tcgen05 or MmaBlockScaled
/// (ScaledMatmulBlackwell.cpp); ScaledMatmulOpToGPU.cpp dispatches here. A
/// located error naming the op and the target for every form it refuses.
mlir::LogicalResult lowerBlackwellScaledMatmul(LoweringContext &c, ScaledMatmulOp op);

} // namespace fpx

#endif // FPX_CONVERSION_FPXTOGPU_SCALEDMATMULBLACKWELL_H
