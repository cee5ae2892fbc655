//===- QuantizeKernelsInternal.h - shared pieces of the cast kernels -*- C++ -*-===//
//
// The loads, block scales, divisions, conversions, random bits, Hadamard
// transform and code stores of the cast kernel generators of this directory
// (QuantizeKernels.cpp, BlockQuantizeKernels.cpp, PerRowQuantizeKernels.cpp;
// defined in QuantizeKernelsInternal.cpp), so that every cast kernel computes
// scales and codes operation for operation the same way.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_QUANTIZEKERNELSINTERNAL_H
#define FPX_CONVERSION_FPXTOGPU_QUANTIZEKERNELSINTERNAL_H

#include "QuantizeKernels.h"

#include <array>

namespace fpx {
class KernelBuilder;
namespace qk {

/// A vector's row and vector-in-row index (i32).
struct RowPos {
  mlir::Value row, col;
};

/// The scale of one block and how its elements are brought into range.
struct Scale {
  mlir::Value store;  ///< what is written to the scales tensor (i8 code or f32)
  mlir::Value factor; ///< multiply by it (E8M0) or divide by it (others)
  bool divide = false;
  /// i1, true where the block takes the fast path: with `divide`, where the
  /// reciprocal-and-correct division gives every code the exact division
  /// would (see applyScale; for NVFP4 also a normal, unsaturated scale, so
  /// every |x / s| < 7); without, where the block is finite (no NaN product).
  mlir::Value fast;
  /// A power of two the values handed to applyScale / convertFp4SplitSigns
  /// still lack (the Hadamard transform's 1/sqrt(n) for n = 4, 16, 64; 1 if
  /// none; `divide` only): the fast division divides them by s / pending
  /// instead (see deferFactor), the slow one multiplies them first.
  float pending = 1.0f;
  /// The values may exceed the amax s came from (a per-tensor scale from a
  /// given amax, e.g. an earlier step's): the fast division then keeps an
  /// infinite first quotient (x = +-inf, or x / s overflowing), which its
  /// correction would turn into NaN (see fastQuotients).
  bool unbounded = false;
};

/// Lets s take values still lacking the power-of-two factor `pending`
/// (Scale::pending), narrowing s.fast to the blocks where that is exact.
void deferFactor(KernelBuilder &k, Scale &s, float pending);

/// An empty 256-thread kernel `name` with the given argument types.
mlir::gpu::GPUFuncOp makeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::StringRef name,
                                llvm::ArrayRef<mlir::Type> args);
/// A cast kernel with the parameters every cast takes: in, out, scales,
/// [amax] (plan.tensorAmax), [global_scale] (plan.globalScaleOut), [seed]
/// (rs), then two i64 extents, then [matrix] (plan.matrixAmax: elements a
/// matrix).
KernelDesc makeCastKernel(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::StringRef name, const QuantizePlan &plan,
                          std::array<const char *, 2> extents);
/// The entry-block arguments of a makeCastKernel kernel (amax /
/// globalScaleOut / seed null when the plan has none).
struct CastParams {
  mlir::Value in, out, scales, amax, globalScaleOut, amaxOut, seed, extent0, extent1, matrix;
};
CastParams castParams(mlir::Block &entry, const QuantizePlan &plan);
/// The matrix (i64) whose elements CTA `cta` covers, for matrices of
/// `matrix` elements (a multiple of kCtaElements; fewer than 2^32 CTAs): a
/// 32-bit division of CTA indices (a 64-bit one is a long subroutine).
mlir::Value ctaMatrix(KernelBuilder &k, mlir::Value cta, mlir::Value matrix);
/// Where the plan has a global-scale output, thread 0 of CTA (0, 0, 0)
/// stores `g` there.
void storeGlobalScale(KernelBuilder &k, const CastParams &p, mlir::Value g);
/// max |x| over values (NaN if any is NaN).
mlir::Value absMax(KernelBuilder &k, llvm::ArrayRef<mlir::Value> xs);
/// max |x| over the bf16 pairs of i32 words as a bf16x2 word (NaN if any is
/// NaN); `xorsign`: one max.NaN.xorsign.abs.bf16x2 a word.
mlir::Value absMaxBf16Lanes(KernelBuilder &k, llvm::ArrayRef<mlir::Value> words,
                            bool xorsign);
/// The low and high bf16 halves of an i32 word, widened to f32 (exact).
std::array<mlir::Value, 2> bf16Halves(KernelBuilder &k, mlir::Value w);
/// max |x| (f32) over the bf16 elements of raw 16-byte words (vector<4xi32>;
/// NaN if any is NaN).
mlir::Value absMaxBf16Words(KernelBuilder &k, llvm::ArrayRef<mlir::Value> raw,
                            bool xorsign = false);
/// max |x| (f32) over the bf16 elements of raw 16-byte words, each a
/// SmallVector of vector<4xi32> (NaN if any is NaN); `xorsign`: the target
/// has max.xorsign.abs.bf16x2 (QuantizePlan::bf16AbsMinMax).
mlir::Value absMaxBf16(KernelBuilder &k,
                       llvm::ArrayRef<llvm::SmallVector<mlir::Value>> raw,
                       bool xorsign = false);
/// The block scale from the block amax (and the NVFP4 global scale).
Scale blockScale(KernelBuilder &k, const QuantizePlan &plan, mlir::Value amax,
                 mlir::Value globalScale);
/// body(sc) twice behind one branch on s.fast (a divided scale's): with
/// sc.fast the constant true, then false, so that the conversions in it
/// (applyScale, convertFp4SplitSigns) emit only that path instead of a
/// branch each. `types`: what body returns, yielded out of the branch.
llvm::SmallVector<mlir::Value>
branchOnFast(KernelBuilder &k, const Scale &s, mlir::TypeRange types,
             llvm::function_ref<llvm::SmallVector<mlir::Value>(const Scale &)> body);
/// The scaled values of one block, ready for conversion.
llvm::SmallVector<mlir::Value> applyScale(KernelBuilder &k, const Scale &s,
                                          llvm::ArrayRef<mlir::Value> xs);
/// 8 scaled values -> packed output codes (i64 for bytes, i32 for fp4x2).
/// `inRange` and `bounded` are fpx.convert's promises (bounded: rs only).
mlir::Value convert8(KernelBuilder &k, const QuantizePlan &plan,
                     llvm::ArrayRef<mlir::Value> ys,
                     llvm::ArrayRef<mlir::Value> rbits, bool inRange = false,
                     bool bounded = false);
/// convert8 of applyScale's values for fp4 (e2m1) codes,
/// with the signs or-ed in per word; `raw` (the bf16 words of xs, or null)
/// spares reading the signs from the f32 values.
mlir::Value convertFp4SplitSigns(KernelBuilder &k, const QuantizePlan &plan,
                                 const Scale &s, llvm::ArrayRef<mlir::Value> xs,
                                 llvm::ArrayRef<mlir::Value> rbits, mlir::Value raw);
/// The codes (as convert8 packs them) of the 8 elements in raw 16-byte
/// words `raw` under scale s: e2m1 (satfinite) divided by its scale through
/// convertFp4SplitSigns, everything else convert8 of applyScale's values.
/// `rbits` gives the cvt.rs words (rs; else empty), asked for once the
/// values are widened.
mlir::Value vectorCodes(KernelBuilder &k, const QuantizePlan &plan, const Scale &s,
                        llvm::ArrayRef<mlir::Value> raw,
                        llvm::function_ref<llvm::SmallVector<mlir::Value>()> rbits);
/// body(s) for conversions that share one scale: behind one branch on its
/// fast path where s is divided (branchOnFast), else once.
void withScale(KernelBuilder &k, const Scale &s,
               llvm::function_ref<void(const Scale &)> body);
/// One Philox4x32-10 block (numerics/lib/Philox.cpp) of a 64-bit counter
/// under the 64-bit key `seed64`.
std::array<mlir::Value, 4> philox(KernelBuilder &k, mlir::Value counter64,
                                  mlir::Value seed64);
/// The two cvt.rs words of elements 8v..8v+7 (flat index 8v).
llvm::SmallVector<mlir::Value> rsWords(KernelBuilder &k, mlir::Value v,
                                       mlir::Value seed);
/// NVFP4's global scale g from the tensor amax.
mlir::Value nvfp4GlobalScale(KernelBuilder &k, mlir::Value amaxT);
/// Decodes a code of `f` (an i32; bits above f.bits() are ignored) to f32
/// exactly as num::decode (e8m0 excepted: its codes are scale exponents).
mlir::Value decodeCode(KernelBuilder &k, const num::Format &f, mlir::Value code);
/// Row and vector-in-row (i32) of the flat vector indices v0 + step*u,
/// u < n, in 32-bit arithmetic (needs v0 + step*n < 2^32).
llvm::SmallVector<RowPos> rowPositions(KernelBuilder &k, mlir::Value v0, int64_t step,
                                       int64_t n, mlir::Value vecsPerRow);
/// Byte offset of scale (r, c) in the blocked 128x4 layout of a matrix with
/// `scaleCols` columns (num::blockedOffset); i64 operands.
mlir::Value blockedOffset(KernelBuilder &k, mlir::Value r, mlir::Value c,
                          mlir::Value scaleCols);
/// Byte offset of scale (r, c) of a [rows, scaleCols] byte-scale matrix,
/// blocked 128x4 (blockedOffset) or row-major (r * scaleCols + c); i64.
mlir::Value scaleOffset(KernelBuilder &k, mlir::Value r, mlir::Value c,
                        mlir::Value scaleCols, bool blocked);
/// The raw 16-byte words (vector<4xi32>) of 8 consecutive elements.
llvm::SmallVector<mlir::Value> loadRaw(KernelBuilder &k, mlir::Type inElem,
                                       mlir::Value in, mlir::Value vecIdx);
/// The same words at a 16-byte aligned pointer `ptr` to the first element.
llvm::SmallVector<mlir::Value> loadRawAt(KernelBuilder &k, mlir::Type inElem,
                                         mlir::Value ptr);
/// The f32 values (exact) of raw 16-byte words (vector<4xi32>) holding
/// `inElem` elements: 8 per word for 16-bit types, 4 for f32.
llvm::SmallVector<mlir::Value> widenRaw(KernelBuilder &k, mlir::Type inElem,
                                        llvm::ArrayRef<mlir::Value> raw);
/// 8 consecutive input elements (vector `vecIdx`) widened to f32.
llvm::SmallVector<mlir::Value> loadVec8(KernelBuilder &k, mlir::Type inElem,
                                        mlir::Value in, mlir::Value vecIdx);
/// The random Hadamard transform of size n on one thread's 8 values.
void applyHadamard(KernelBuilder &k, llvm::SmallVector<mlir::Value> &xs,
                   mlir::Value v, int64_t n, uint64_t seed);
/// The raw words of vector u after `base` (the address of a vector) where
/// `ok`, else zeros (a predicated load).
llvm::SmallVector<mlir::Value> loadRawIf(KernelBuilder &k, mlir::Type inElem,
                                         mlir::Value base, int64_t u, mlir::Value ok);
/// Stores the 8 codes of vector v in the plan's packing (`codes`: i64 of 8
/// bytes, or i32 of 8 nibbles for fp4x2); `cols` is the row length. `pos`,
/// when given, is v's (row, vector in row), which spares the 4+2 layout a
/// division.
void storeCodes(KernelBuilder &k, const QuantizePlan &plan, mlir::Value out,
                mlir::Value v, mlir::Value codes, mlir::Value ok,
                mlir::Value cols, const RowPos *pos = nullptr);
/// Stores the codes of kUnroll consecutive vectors v0.. (all in range; for
/// 4+2 packing in one row; `pos0`: v0's row and vector in row) with 16-byte
/// stores where the layout allows.
void storeCodesRun(KernelBuilder &k, const QuantizePlan &plan, mlir::Value out,
                   mlir::Value v0, llvm::ArrayRef<mlir::Value> codes, mlir::Value ok,
                   mlir::Value cols, const RowPos &pos0);

} // namespace qk
} // namespace fpx

#endif
