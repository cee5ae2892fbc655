//===- ScaledMatmulKernels.h - fp8 x fp8 scaled GEMM kernels ----*- C++ -*-===//
//
// fpx.scaled_matmul with fp8 operands on both sides (the scaled GEMMs of FP8
// training): C = (A * sa) x (B * sb)^T, A (M, K) and B (N, K) both K-major
// e4m3/e5m2 codes, sa/sb one fp32 per tensor, per row or per block
// (DeepSeek-V3's 1x128 for A, 128x128 or 1x128 for B), or MXFP8's E8M0
// [1, 32] block scales on both sides, fp32 accumulation, bf16 or f32 out. The sm_90a kernel form of
// bench/gemm/experiments/fp8_wgmma.cu (NOTES.md "fp8_wgmma"): TMA into a
// shared-memory ring with full/empty mbarriers, a producer warpgroup and two
// consumer warpgroups (setmaxnreg), wgmma m64nBNk32 from shared memory, a
// persistent tile scheduler (split-K for few tiles); tensor and row scales
// in the epilogue, block scales at each 128-K promotion (read from a
// shared-memory slot of the stage that a producer warp fills ahead of the
// consumers); MX scales at each k32 promotion (the same slot, decoded to
// f32 by that warp; two partial sums in flight); C stored through a swizzled shared tile and TMA,
// or with masked st.global where its rows are not a multiple of 16 bytes.
//
// The bf16 form (plan.bf16Mma; NVFP4 x NVFP4, and MXFP8 x MXFP8 with the
// fpx.mx_bf16 attribute): the operands' codes come into the ring by TMA as
// above; the consumer warpgroups dequantize each 64-K half of a stage
// exactly to bf16 with its E8M0 block scales applied (num::fp8ToBf16Program,
// Bf16Dequant.h: a rebias by bit operations and two mul.rn.bf16x2 by
// factors the scale warp derives from the codes) into one of two
// 128B-swizzled bf16 slices while the previous slice's bf16 wgmma
// m64nBNk16 run, with fp32 accumulation and no promotion: the scales are in
// the operands. NVFP4's e2m1 codes (two a
// byte, a stage 256 K) the same way with their e4m3 [1, 16] scales
// (num::e2m1ToBf16Program), its two f32 tensor scales in the epilogue.
// bf16 has fp32's exponent range, so a dequantized e4m3/e5m2 code times
// 2^(e - 127), or an e2m1 code times an e4m3 scale, is exact in bf16
// wherever it is a normal fp32 (below 2^-126 it rounds to a bf16 subnormal,
// past bf16's largest finite it is inf; E8M0 0xFF and the codes' NaN / inf
// stay NaN / inf), the same caveat as the promoted form's.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_SCALEDMATMULKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_SCALEDMATMULKERNELS_H

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Conversion/FPxToGPU/LoweringContext.h"
#include "fpx/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace fpx {

/// K bytes (= fp8 elements) a pipeline stage: one 128-byte swizzle row.
constexpr int64_t kScaledGemmStageK = 128;
/// The longest K for which the wide (M > 128) tile stores C through TMA
/// (ScaledMatmulOpToGPU.cpp: measured on an H200); above, masked st.global.
constexpr int64_t kScaledGemmTmaStoreMaxK = 8192;
/// Producer warpgroup + two consumer warpgroups.
constexpr int64_t kScaledGemmThreads = 384;
/// The bf16 form's bf16 slices (64 K each: two a 128-K stage), written and
/// read in turn.
constexpr int64_t kScaledGemmBf16Slots = 2;
/// Dynamic shared memory a block may use on every sm_90a part (227 KiB).
constexpr int64_t kScaledGemmSharedLimit = 227 * 1024;
/// Rows of C a TMA store box covers: one consumer warpgroup's 64.
constexpr int64_t kScaledGemmStoreRows = 64;

/// A CTA tile, its ring depth (the most: the TMA store's staging tile may
/// take some, scaledGemmMaxStages) and how many ways K may be split.
struct ScaledGemmTile {
  int64_t bm, bn, stages;
  /// Split-K: a tile's K blocks go to up to this many CTAs when the tiles
  /// are fewer than half the CTAs (and at most kScaledGemmSplitTiles); the
  /// partial sums meet in an fp32 workspace (params ws, cnt). 1: never.
  int64_t maxSplit = 1;
};

/// The most tiles a split-K kernel splits (its workspace is sized for them).
constexpr int64_t kScaledGemmSplitTiles = 128;

/// The tiles a target's scaled GEMM is built with: for M <= 128, 128x128
/// with split-K up to 4 ways (7 stages; with few N tiles, e.g. 56 at N =
/// 7168, a tile's K is split so that the CTAs fill the SMs), else 128x192
/// (5 stages; the promoted main loop leaves no registers for 128x256).
/// From the measured table (H200, NOTES.md "fp8_wgmma"), except the split
/// (not measured yet). Empty: the target has no kernel form (no wgmma).
llvm::SmallVector<ScaledGemmTile> scaledGemmTiles(const TargetInfo &target);

/// The discardable unit attribute of an MXFP8 fpx.scaled_matmul that takes
/// the bf16 form on sm_90a (else the promoted fp8 form, which measured
/// faster at every shape: docs/results/scaled-gemm.md), for comparisons.
constexpr const char *kMxBf16Attr = "fpx.mx_bf16";

/// The gpu.func attribute listing its `tensor_map` parameters (by-value
/// CUtensorMaps, generic pointers in the gpu.func): the pipeline makes them
/// llvm.byval nvvm.grid_constant arguments of the llvm.func kernel.
constexpr const char *kTensorMapArgsAttr = "fpx.tensor_map_args";

/// Everything one kernel depends on.
struct ScaledGemmPlan {
  ScaledGemmTile tile;
  bool e5m2A = false, e5m2B = false; ///< else e4m3
  bool rowA = false, rowB = false;   ///< a scale per row, else one per tensor
  /// Block scales, applied in the main loop: A's [1, 128] (scales
  /// [M, cdiv(K, 128)]); B's [blockB, 128] with blockB 1 or 128 (scales
  /// [N or cdiv(N, 128), cdiv(K, 128)]); 0: none.
  bool blockA = false;
  int64_t blockB = 0;
  /// MXFP8: E8M0 [1, 32] scales on both sides (row-major [M, K / 32] and
  /// [N, K / 32] bytes; K % 32 == 0), applied at every k32: each of a
  /// stage's four wgmmas gives a partial sum of its own, promoted as acc +=
  /// partial * (sa[row, kb] * sb[col, kb]) while the next one runs.
  bool mx = false;
  /// With mx: the bf16 form (the header's last paragraph), else every k32
  /// promoted. Always with nvfp4.
  bool bf16Mma = false;
  /// NVFP4: e2m1 codes packed two a byte (A [M, K / 2], B [N, K / 2] bytes;
  /// a stage is 128 bytes = 256 K of a row, four bf16 slices), e4m3 [1, 16]
  /// block scales on both sides (row-major [M, K / 16] and [N, K / 16];
  /// K % 32 == 0; the consumers read them), dequantized in the bf16 form;
  /// the f32 tensor scales
  /// (globalA / globalB: params ga, gb after K, one f32 each) multiply the
  /// accumulator in the epilogue.
  bool nvfp4 = false;
  bool globalA = false, globalB = false;
  /// MX / NVFP4 scales of A / B in the blocked 128x4 layout (rows padded to
  /// 128, scale columns to 4: qk::blockedOffset), else row-major.
  bool blockedA = false, blockedB = false;
  mlir::Type out;  ///< bf16 or f32
  mlir::Type bias; ///< the bias's element type (bf16, f16, f32); null: none
  /// The epilogue: C through a 128B-swizzled shared staging tile (stmatrix
  /// for bf16) and TMA stores of 64-row x 128-byte boxes (the `tmC`
  /// parameter; needs C's row of N * elt bytes to be a multiple of 16),
  /// else masked st.global straight from the accumulator fragment.
  bool tmaStore = false;
  /// Grouped (fpx.grouped_matmul 2D x 3D; rowwise or tensor scales, no
  /// split-K, no bias; with tmaStore, a warpgroup whose 64 rows are all its
  /// group's, or whose group ends at M, stores through TMA, the others
  /// mask): B is G matrices of (N, K) seen as one
  /// (G * N, K) tensor map, and A's rows are split into groups by the i32
  /// end offsets on the device (params offs, G after K; G >= 1). Each CTA
  /// derives the tiles from the offsets (a table of maxGroups + 2 entries in
  /// shared memory, built by warp 0 at the start: group g's first tile and
  /// first row), then finds a tile's group by binary search: group g has
  /// cdiv(rows, bm) x cdiv(N, bn) tiles whose A boxes start at its first
  /// row; rows past its end are loaded but not stored, and B's columns past
  /// N (the next group's rows) are not stored either. The rows past the last
  /// end are a last pseudo-group of tiles that store zeros. B's row scales
  /// are [G, N] (sb + g * N).
  bool grouped = false;
  /// With grouped: the most groups the table holds (G <= maxGroups).
  int64_t maxGroups = 0;
  /// Whether a producer warp fills a scale slot beside each stage.
  bool anyBlock() const { return blockA || blockB || mx; }
  int64_t outBytes() const { return out.getIntOrFloatBitWidth() / 8; }
  /// C's columns a TMA store box covers (128 bytes).
  int64_t storeBoxCols() const { return 128 / outBytes(); }
};

/// Dynamic shared memory of the kernel: 1024-byte alignment slack, the A and
/// B rings, with the TMA store the C staging tile (bm x bn outputs), 2
/// mbarriers a stage and, with block scales, a stage's scales (bm + bn
/// floats; MX: 4 x (bm + bn), one set a k32; the bf16 form: 4 x (bm + bn)
/// pairs of bf16x2 factors); the bf16 form adds kScaledGemmBf16Slots slices
/// of (bm + bn) x 64 bf16.
/// Grouped: the group table, 2 x (maxGroups + 2) i32.
int64_t scaledGemmSharedBytes(const ScaledGemmPlan &plan);

/// The most stages `plan`'s tile may have within kScaledGemmSharedLimit (the
/// staging tile of the TMA store takes one or two of the table's).
int64_t scaledGemmMaxStages(const ScaledGemmPlan &plan);

/// The kernel. Params: tmA, tmB (tensor maps of A and B: dims [K, rows],
/// box [128, bm / bn], 128B swizzle), [tmC (with plan.tmaStore: C's map,
/// dims [N, M], box [storeBoxCols, 64], 128B swizzle),] sa, sb (f32), c, M,
/// N, K[, bias (N values, added in f32 after the scales)][, ws, cnt (with
/// tile.maxSplit > 1: the split-K workspace, maxSplit * tiles * bm * bn
/// floats, and 2 * tiles i32 counters, zero at launch and left zero, where tiles <=
/// kScaledGemmSplitTiles; unused, and may be empty, otherwise)].
/// Each tile's K loop promotes the wgmma partial sum of every 128-K stage
/// into an fp32 accumulator (fast accumulation over all of K misses the 1e-3
/// bar at K = 16384 on an H200), times sa[row, kb] * sb[col's block, kb]
/// with block scales (K's last block may be partial: TMA zero-fills it).
/// With plan.mx every k32 is promoted (times sa[row, k / 32] * sb[col, k /
/// 32], E8M0 decoded to f32; 0xFF is NaN; exact where that product is a
/// normal f32), and sa, sb are the E8M0 byte matrices.
/// With plan.bf16Mma the codes are dequantized to bf16 on their way (the
/// header's last paragraph) and nothing is promoted.
/// With plan.nvfp4, K is in elements (the rows are K / 2 bytes) and ga, gb
/// follow it.
/// With plan.grouped, offs (G i32 group ends) and G (i64) follow K.
/// Launch over min(tiles, SMs) CTAs of 384 threads (grouped: min(an upper
/// bound of the tiles, SMs)). Needs K % 16 == 0 (the tensor maps' row
/// stride).
KernelDesc buildScaledGemmKernel(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                                 const ScaledGemmPlan &plan, mlir::gpu::GPUModuleOp module);

/// The format of a scaled_matmul operand: its format attribute, else its
/// element type's (null for a high-precision type). Shared by the Hopper and
/// Blackwell lowerings.
FormatAttr scaledOperandFormat(mlir::Value v, std::optional<FormatAttr> attr);
/// The buffers of the op's tensor scales (NVFP4's global scales: lhs's,
/// then rhs's, where given). Shared by the Hopper and Blackwell lowerings.
mlir::FailureOr<llvm::SmallVector<std::string>> globalScaleBuffers(LoweringContext &c,
                                                                   ScaledMatmulOp op);
/// Whether `f` is fp8 e4m3 or e5m2 (sets `e5m2` for the latter).
bool isFp8Operand(FormatAttr f, bool &e5m2);
/// The launch checks of MX / NVFP4 byte scales sa (of A, M rows) and sb (of
/// B, N rows), one a `block`-element block of K (`type`: the scale format's
/// word): [rows, cdiv(K, block)] row-major, or padded to [cdiv(rows, 128) *
/// 128, cdiv(cols, 4) * 4] where `blockedA` / `blockedB`. Shared by the Hopper
/// and Blackwell lowerings.
void requireByteScaleShapes(LoweringContext &c, const Buffer &sa, const Buffer &sb,
                            const std::string &M, const std::string &N, const std::string &K,
                            int64_t block, llvm::StringRef type, bool blockedA, bool blockedB);

/// Lowers fpx.grouped_matmul (GroupedMatmulOpToGPU.cpp): 2D x 3D, fp8
/// operands with rowwise f32 scales, on sm_90a; a located error for every
/// other form.
mlir::LogicalResult lowerGroupedMatmul(LoweringContext &c, GroupedMatmulOp op);

/// Lowers fpx.scaled_matmul with quantized operands on both sides
/// (ScaledMatmulOpToGPU.cpp); MatmulOpToGPU.cpp dispatches here. A located
/// error for every form it does not lower yet.
mlir::LogicalResult lowerFp8ScaledMatmul(LoweringContext &c, ScaledMatmulOp op);

} // namespace fpx

#endif // FPX_CONVERSION_FPXTOGPU_SCALEDMATMULKERNELS_H
