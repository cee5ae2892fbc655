//===- WeightDecode.h - in-register decode of mma_tiles weights -*- C++ -*-===//
//
// The weight-only GEMMs' dequant prologue, shared by the mma.sync decode
// kernel (MatmulKernels.cpp, which defines these) and the wgmma prefill
// kernel (WeightOnlyWgmmaKernel.cpp): a lane's packed words (numerics
// MmaTiles.h, docs/formats.md "mma_tiles") become the bf16x2/f16x2 A
// registers of a 16-row x 16-K MMA step (rows g, g + 8; the same per-warp
// fragment for mma.sync m16n8k16 and wgmma m64nNk16).
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_WEIGHTDECODE_H
#define FPX_CONVERSION_FPXTOGPU_WEIGHTDECODE_H

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Numerics/Format.h"

namespace fpx::wo {

/// How codes of one format become bf16/f16 pairs.
struct Decoder {
  int bits = 8;   ///< code width (8, 6, 5 or 4)
  int shift = 0;  ///< right shift of the code's magnitude bits
  int rebias = 0; ///< the pair is multiplied by 2^rebias (0: nothing)
  bool bf16 = true;
};

/// The decode of `fmt` codes (8, 6, 5 or 4 bits) into `act` (bf16 or f16).
Decoder decoderFor(const num::Format &fmt, mlir::Type act);

/// Two 8-bit codes of `word` (bytes 0,1 or, `high`, 2,3) at the top of the
/// two 16-bit lanes of the result, magnitude shifted right by `shift`.
mlir::Value placePair(KernelBuilder &k, mlir::Value word, bool high, int shift);
/// Two 4-bit codes (nibbles p, p + 4) likewise.
mlir::Value placeNibblePair(KernelBuilder &k, mlir::Value word, int p, int shift);
/// Two 6-/5-bit codes from their low- and high-plane words likewise.
mlir::Value placeSplitPair(KernelBuilder &k, mlir::Value lo, mlir::Value hi, int bits, int i,
                           int p, int shift);
/// A bf16x2 / f16x2 pair (as i32) times 2^d.rebias, exact.
mlir::Value scalePair(KernelBuilder &k, const Decoder &d, mlir::Value pair);

/// The A registers a0..a3 of MMA step `s` (0, 1) of 32-block `j`, decoded
/// from a unit's words `wv` (8-bit codes: 4 words a 32-block, word 2s + p/2
/// holding register p's pair in its low (p even) or high half; 4-bit: 2
/// words a 32-block; 6-/5-bit: 2 low words a 32-block as 4-bit, and the
/// high-plane words, hb = bits - 4 a 64-of-K tile, from wv[highAt]);
/// `nvPairs` (NVFP4) are the block's scale pairs of rows g and g + 8
/// (nvScalePair: the decoded pairs skip their rebias and take that pair's
/// product), else empty.
llvm::SmallVector<mlir::Value> decodeStep(KernelBuilder &k, const Decoder &d,
                                          llvm::ArrayRef<mlir::Value> wv, int64_t j, int64_t s,
                                          llvm::ArrayRef<mlir::Value> nvPairs, int64_t highAt);

/// The A registers `a` (a0..a3: rows g, g + 8, g, g + 8) times their row's
/// pair of `rowPairs` (rows g, g + 8), lane by lane.
llvm::SmallVector<mlir::Value> mulRowPairs(KernelBuilder &k, const Decoder &d,
                                           llvm::ArrayRef<mlir::Value> a,
                                           llvm::ArrayRef<mlir::Value> rowPairs);

/// NVFP4: the power of two the fp32 result is multiplied by. decodeStep
/// leaves the e2m1 pairs' rebias (2^rebias) to the block scale pairs, which
/// carry 2^(rebias - nvResultShift): one multiply a weight pair. The product
/// e2m1 x ue4m3 x 2^-shift keeps its at most 6 significant bits exactly
/// (bf16: 2^-18 .. 10.5, normal; f16: 2^-17 .. 21, with subnormals down to
/// 2^-24), and the scale pair (at most 448 x 2^118 in bf16, 448 x 2^7 in
/// f16) stays in range.
int nvResultShift(const Decoder &d);
/// An NVFP4 block scale at the top of both 16-bit lanes of `dup` (b << 24 |
/// b << 8), decoded by `scaleDec` (decoderFor(e4m3fn, act)) into the pair
/// that multiplies the e2m1 pairs of `dec`: the scale times 2^(dec.rebias -
/// nvResultShift(dec)).
mlir::Value nvScalePair(KernelBuilder &k, const Decoder &scaleDec, const Decoder &dec,
                        mlir::Value dup);
/// The same from the ue4m3 code `code` (i32, 0..0x7E).
mlir::Value ue4m3Pair(KernelBuilder &k, const Decoder &scaleDec, const Decoder &dec,
                      mlir::Value code);

/// An scf.if without results around `body`.
void when(KernelBuilder &k, mlir::Value cond, llvm::function_ref<void()> body);

/// E8M0 code `e` (i32, 0..255) as the f32 2^(e-127) (NaN for 255).
mlir::Value e8m0ToF32(KernelBuilder &k, mlir::Value e);

} // namespace fpx::wo

#endif // FPX_CONVERSION_FPXTOGPU_WEIGHTDECODE_H
