//===- MatmulKernels.h - weight-only GEMM kernel generators -----*- C++ -*-===//
//
// fpx.scaled_matmul with a high-precision activation x (M x K, bf16/f16) and
// an FPx weight (8-bit or e2m1 codes) pre-packed in the mma_tiles layout
// (numerics MmaTiles.h): y = x * dequantize(w)^T. The weight is read once from global
// memory and decoded in registers; mma.sync m16n8k16 takes it as the A
// operand (16 output channels) and the tokens as B (8 a tile).
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_MATMULKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_MATMULKERNELS_H

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Numerics/Format.h"
#include "fpx/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace fpx {

/// Geometry of the decode kernel (bench/gemm/experiments/NOTES.md, form `c`).
constexpr int64_t kMatmulWarps = 8;        ///< warps a CTA, each 16 channels
constexpr int64_t kMatmulGroupRows = 128;  ///< output channels a CTA unit
constexpr int64_t kMatmulChunk = 256;      ///< K a unit (8 steps of 32)
/// The token tiles (8 tokens each) of the kernels a spec gets: a CTA takes
/// up to 64 tokens, so that M <= 64 reads each weight byte once.
constexpr int64_t kMatmulTokenTiles[] = {1, 2, 4, 8};
/// CTAs an SM (nvvm.minctasm): 2 for up to 16 tokens (at most 128
/// registers a thread); one above, where the accumulators of 32 or 64 tokens
/// need more.
constexpr int64_t matmulCtasPerSm(int64_t tokenTiles) { return tokenTiles <= 2 ? 2 : 1; }
/// CTAs that may share a row group's K (split-K partial-sum slots): at most
/// kMatmulSlots, and as many as keep the workspace (slots x M x N fp32) within
/// kMatmulWorkspace values, at least 2. Split-K runs only while M * N <=
/// kMatmulSplitCap, so there are at least 8 slots whenever it runs; small
/// products get 16, which short K (4096: 16 units a row group) needs to
/// spread its units over every SM.
constexpr int64_t kMatmulSlots = 16;
constexpr int64_t kMatmulWorkspace = int64_t(1) << 23;
constexpr int64_t kMatmulSplitCap = int64_t(1) << 20;

/// How the weight's scales apply (the scales are row-major, as fpx.quantize
/// writes them: a lane reads its two rows' scales of a unit with one or two
/// loads, no pre-packing).
enum class WeightScales {
  /// One f32 per output channel, on the fp32 accumulator in the epilogue.
  Channel,
  /// E8M0 per row and 32 of K (MXFP8, MXFP4): each 32-block's two MMA steps
  /// go to a fresh fp32 partial sum, added to the accumulator times 2^(e-127)
  /// (exact for any scale in both bf16 and f16; NaN for scale 0xFF).
  Mx32,
  /// ue4m3 (f8E4M3FN codes) per row and 16 of K, and an f32 tensor scale
  /// (NVFP4): the block scale multiplies the decoded e2m1 pairs (e2m1 x
  /// ue4m3 is exact in bf16 and f16), the tensor scale the accumulator.
  Nv16,
};

/// Everything a weight-only decode kernel depends on.
struct WeightOnlyPlan {
  num::Format elem;        ///< the weight codes' format (8-bit or e2m1)
  WeightScales scales = WeightScales::Channel;
  mlir::Type act;          ///< x's element type: bf16 or f16
  mlir::Type out;          ///< y's element type: bf16 or f16
  int64_t tokenTiles = 1;  ///< tokens a CTA in tiles of 8 (kMatmulTokenTiles)
  /// The bias's element type (bf16, f16 or f32; N values added in f32 in
  /// the epilogue, after the scales); null: none.
  mlir::Type bias;
};

/// Bytes of dynamic shared memory a decode kernel's launch takes: two
/// buffers of x's K chunk (its tokens) and two of the CTA's unit of weights
/// and scales.
int64_t matmulSharedBytes(const WeightOnlyPlan &plan);

/// The decode kernel: a CTA's 8 warps take one K chunk of 128 channels at a
/// time (a unit); the unit's x chunk and each warp's weights and scales are
/// staged in shared memory by cp.async a unit ahead.
/// The units are split evenly over gridDim.x CTAs (stream-K); a warp that
/// does not cover all of K for its 16 channels writes its fp32 partial sums
/// to its slot of the workspace `ws` ([kMatmulSlots][M][N]) and the last
/// contributor (counter `cnt`) adds the slots up in order: deterministic.
/// blockIdx.y picks 8 * tokenTiles tokens. Dynamic shared memory:
/// matmulSharedBytes(plan) a launch.
/// Params: x, w, scale (per plan.scales), [gscale (f32, Nv16 only)], y, ws,
/// cnt, M, N, K, [bias (plan.bias only)]. Needs N % 128 == 0, K % 256 == 0; cnt zero at launch (and
/// left zero).
KernelDesc buildWeightOnlyDecodeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                       llvm::StringRef name, const WeightOnlyPlan &plan,
                                       mlir::gpu::GPUModuleOp module);

/// The prefill (large-M) kernel on sm_90a (WeightOnlyWgmmaKernel.cpp):
/// wgmma with the decoded weight as the register A operand (64 output
/// channels a consumer warpgroup, two of them a CTA) and x's tokens as the
/// shared-memory B operand (TMA, 128B swizzle, 64 of K a ring stage).
constexpr int64_t kWgmmaChannels = 128; ///< output channels a CTA tile
constexpr int64_t kWgmmaStageK = 64;    ///< K a ring stage (128 bytes of x a token)
constexpr int64_t kWgmmaThreads = 384;  ///< producer + two consumer warpgroups
/// The wgmma kernel runs for M above this; the decode kernels below.
constexpr int64_t kWgmmaMinTokens = 64;

/// Split-K of the wgmma kernel: a call with at most this many tiles (half
/// a 132-SM part's CTAs) cuts each tile's K over up to its tile's maxSplit
/// CTAs (as many as the SMs hold).
constexpr int64_t kWgmmaSplitTiles = 66;

/// Tokens a CTA tile (wgmma N), ring stages, and the most CTAs a tile's K
/// may be split over (1: never).
struct WeightOnlyWgmmaTile {
  int64_t tokens = 0, stages = 0, maxSplit = 1;
};

/// The tiles of the target's wgmma kernels, narrowest first: 128 tokens
/// while the 256-token tiles of a call would not fill every SM once (M up to
/// a few hundred, or few channels), else 256. Empty: the target has no
/// wgmma, its weight-only GEMMs are the decode kernels for every M.
llvm::SmallVector<WeightOnlyWgmmaTile> weightOnlyWgmmaTiles(const TargetInfo &target);

/// Whether the wgmma kernel takes `plan`'s weights: 8-, 6- and 5-bit codes
/// with one f32 scale per output channel (fp8, FP6-LLM's e3m2, fp5 e2m2),
/// MXFP8, MXFP6 and MXFP4 with bf16 activations (the E8M0 scale multiplies
/// the decoded bf16 operand, exact down to bf16's normal range; f16's range
/// cannot hold it), NVFP4. The others (MX with f16) keep the decode kernels
/// for every M.
bool weightOnlyWgmmaTakes(const WeightOnlyPlan &plan);

/// Dynamic shared memory of the wgmma kernel: 1024-byte alignment slack, the
/// x and weight rings and two mbarriers a stage.
int64_t weightOnlyWgmmaSharedBytes(const WeightOnlyPlan &plan, const WeightOnlyWgmmaTile &tile);

/// The wgmma kernel. Params: tmX (x's tensor map: dims [K, M], box [64,
/// tile.tokens], 128B swizzle), w, scale, [gscale (f32, NVFP4 only)], y, M,
/// N, K[, bias]. Persistent:
/// launch min(tiles, SMs) CTAs of kWgmmaThreads. Needs N % 128 == 0 and
/// K % 64 == 0 (the op's K % 256 covers it).
KernelDesc buildWeightOnlyWgmmaKernel(mlir::OpBuilder &b, mlir::Location loc,
                                      llvm::StringRef name, const WeightOnlyPlan &plan,
                                      const WeightOnlyWgmmaTile &tile,
                                      mlir::gpu::GPUModuleOp module);

} // namespace fpx

#endif // FPX_CONVERSION_FPXTOGPU_MATMULKERNELS_H
