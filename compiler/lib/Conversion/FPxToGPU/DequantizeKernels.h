//===- DequantizeKernels.h - kernel generator for fpx.dequantize -*- C++ -*-===//
//
// The inverse of the cast kernels: codes (one per byte, fp4x2 or fp6 packed)
// are decoded with integer ops in registers, multiplied by the scale of their
// block in fp32 (numerics `dequantize`: decode(code) * scale) and written as
// f32, or rounded to nearest even to bf16 / f16, with 16-byte stores.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_DEQUANTIZEKERNELS_H
#define FPX_CONVERSION_FPXTOGPU_DEQUANTIZEKERNELS_H

#include "QuantizeKernels.h"

namespace fpx {

/// How a block's fp32 factor is read from the scales tensor.
enum class DequantScale {
  E8M0,  ///< e8m0fnu code c: 2^(c - 127), NaN for 0xFF
  UE4M3, ///< NVFP4 block scale: decode(ue4m3, code & 0x7f) [* global scale]
  F32,   ///< the fp32 value itself
  BF16,  ///< a bf16 value, widened exactly
  F16,   ///< an IEEE half value, widened exactly
};

/// Everything a dequantize kernel depends on, resolved from one op.
struct DequantizePlan {
  mlir::Type outElem;    ///< f32, bf16 or f16
  num::Format elem;      ///< element format of the codes
  /// nullopt / fp6_byte: one code per byte; fp4x2; fp6_planes; fp6_packed;
  /// fp6_interleaved.
  std::optional<LayoutKind> packing;
  DequantScale scale = DequantScale::E8M0;
  /// NVFP4 two-level: the global scale g from an f32 amax (parameter
  /// `amax`, g = amax / (448 * 6) as fpx.global_scale computes it) or g
  /// itself (parameter `global_scale`).
  enum class Global { none, amax, value } global = Global::none;
  /// With a global scale: one per matrix of a rank-3 result (the kernel
  /// takes the matrix's element count `matrix`, a multiple of a CTA's 8192,
  /// and each CTA reads its matrix's value).
  bool matrixGlobal = false;
  /// Consecutive (row-major) elements that share one scale: > 0 a constant
  /// (row blocks [1, N]), 0 a kernel parameter `group` (per row [1, *], per
  /// matrix), -1 one scale for the whole tensor.
  int64_t group = 32;
  /// Scales in the blocked 128x4 layout (rank 2, row blocks of `group`).
  bool blockedScales = false;
};

/// One thread per 8 consecutive output elements, kUnroll vectors per thread
/// with every code and scale load issued before the first decode, 256
/// threads. Needs cols % 8 == 0 and the scale group a multiple of 8.
/// Params: in, scales, [amax | global_scale], out, total, cols, [group],
/// [matrix].
/// Grid: cdiv(total, 8 * 256 * kUnroll).
KernelDesc buildDequantizeKernel(mlir::OpBuilder &b, mlir::Location loc,
                                 llvm::StringRef name,
                                 const DequantizePlan &plan);

} // namespace fpx

#endif // FPX_CONVERSION_FPXTOGPU_DEQUANTIZEKERNELS_H
