//===- fpxc/TorchOps.h - torch.ops.fpxc.* from C++ -------------------------===//
//
// The fpxc ops through torch's dispatcher, for C++ code that uses libtorch:
// the same kernels and the same per-signature plan cache as
// torch.ops.fpxc.quantize(...) from Python (docs/runtime.md, "C++ API").
// Header-only; the ops are registered by the fpxc._fpx extension
// (python-bindings/src/TorchOps.cpp), so the process must have imported the
// fpxc package (or loaded its extension, e.g. torch.ops.load_library on the
// _fpx file, in a process with a Python interpreter where fpxc is
// importable): a signature's first CUDA call, and every CPU call, runs the
// package's Python implementation, which builds the plan the next CUDA calls
// launch from C++. The arguments are the ops' schemas', with the block sizes
// and options spelled out (fpxc.quantize's defaults: docs/api.md).
//
//===----------------------------------------------------------------------===//

#ifndef FPXC_TORCHOPS_H
#define FPXC_TORCHOPS_H

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/SymInt.h>

#include <optional>
#include <string_view>
#include <tuple>

namespace fpx::torch_ops {

using Tensors3 = std::tuple<at::Tensor, at::Tensor, at::Tensor>;

/// torch.ops.fpxc.quantize: (data, scales, global scale) of x, 2-D or 3-D.
/// Column blocks (block_rows > 1, block_cols = 1) return the transpose's
/// row-block data, as the op does (fpxc.quantize hands out data.mT).
inline Tensors3 quantize(const at::Tensor &x, std::string_view format, int64_t blockRows,
                         int64_t blockCols, std::string_view scale = "",
                         std::string_view rule = "", std::string_view rounding = "rn",
                         std::string_view scaleLayout = "row_major",
                         std::string_view packing = "auto", int64_t seed = 0,
                         bool globalScale = true, int64_t hadamard = 0,
                         int64_t hadamardSeed = 0,
                         const std::optional<at::Tensor> &amax = std::nullopt,
                         std::string_view nonfinite = "nan") {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("fpxc::quantize", "")
          .typed<Tensors3(const at::Tensor &, c10::string_view, c10::SymInt, c10::SymInt,
                          c10::string_view, c10::string_view, c10::string_view,
                          c10::string_view, c10::string_view, c10::SymInt, bool, c10::SymInt,
                          c10::SymInt, const std::optional<at::Tensor> &, c10::string_view)>();
  return op.call(x, format, blockRows, blockCols, scale, rule, rounding, scaleLayout, packing,
                 seed, globalScale, hadamard, hadamardSeed, amax, nonfinite);
}

/// torch.ops.fpxc.dequantize: the values of codes and scales as `dtype`
/// (float32, bfloat16 or float16); cols = 0: from the data's width.
inline at::Tensor dequantize(const at::Tensor &data, const at::Tensor &scales,
                             const std::optional<at::Tensor> &globalScale,
                             std::string_view format, int64_t blockRows, int64_t blockCols,
                             std::string_view scale = "",
                             std::string_view scaleLayout = "row_major",
                             std::string_view packing = "auto", int64_t cols = 0,
                             at::ScalarType dtype = at::kFloat) {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("fpxc::dequantize", "")
          .typed<at::Tensor(const at::Tensor &, const at::Tensor &,
                            const std::optional<at::Tensor> &, c10::string_view, c10::SymInt,
                            c10::SymInt, c10::string_view, c10::string_view, c10::string_view,
                            c10::SymInt, at::ScalarType)>();
  return op.call(data, scales, globalScale, format, blockRows, blockCols, scale, scaleLayout,
                 packing, cols, dtype);
}

/// torch.ops.fpxc.hadamard: the random Hadamard transform over blocks of
/// `block` elements of the last dimension.
inline at::Tensor hadamard(const at::Tensor &x, int64_t block = 16, int64_t seed = 0,
                           bool randomSigns = true) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("fpxc::hadamard", "")
                       .typed<at::Tensor(const at::Tensor &, c10::SymInt, c10::SymInt, bool)>();
  return op.call(x, block, seed, randomSigns);
}

/// torch.ops.fpxc.swizzle_scales: byte block scales (rows x cols) in the
/// blocked 128x4 layout; group_ends (int32, MoE) tiles each group on its own.
/// (fpxc.swizzle_scales's check of the ends on the host is Python's.)
inline at::Tensor swizzleScales(const at::Tensor &scales,
                                const std::optional<at::Tensor> &groupEnds = std::nullopt) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("fpxc::swizzle_scales", "")
                       .typed<at::Tensor(const at::Tensor &, const std::optional<at::Tensor> &)>();
  return op.call(scales, groupEnds);
}

/// torch.ops.fpxc.scaled_mm: (a * scaleA) x (b * scaleB)^T (+ bias), (M, N)
/// in outDtype (bfloat16 or float32 from the kernels; float16 from the
/// dequantize fallback). a (M, K) and b (N, K) are K-major fp8 codes
/// (float8_e4m3fn or float8_e5m2; b as a Linear weight, the transpose of
/// torch._scaled_mm's second operand), the scales float32 per tensor (1, 1)
/// or per row ((M, 1), (N, 1)): the data and scales of fpxc.quantize with
/// block (0, 0) or (1, 0); or the other kinds fpxc.scaled_mm takes (its
/// docstring): blockwise, MXFP8, and NVFP4 (uint8 codes two a byte, e4m3
/// scales, and globalScaleA / globalScaleB, the fp32 global scales of
/// fpxc.quantize(x, "nvfp4")). K a multiple of 16 (32 for MXFP8 and NVFP4).
/// bias (N,) is added after the GEMM. scaleLayoutA / scaleLayoutB:
/// "row_major" or "blocked" (MX and NVFP4 scales in the 128x4 tiles of
/// fpxc.quantize(..., scale_layout="blocked")).
inline at::Tensor scaledMM(const at::Tensor &a, const at::Tensor &scaleA, const at::Tensor &b,
                           const at::Tensor &scaleB, at::ScalarType outDtype = at::kBFloat16,
                           const std::optional<at::Tensor> &bias = std::nullopt,
                           const std::optional<at::Tensor> &globalScaleA = std::nullopt,
                           const std::optional<at::Tensor> &globalScaleB = std::nullopt,
                           std::string_view scaleLayoutA = "row_major",
                           std::string_view scaleLayoutB = "row_major") {
  using Opt = const std::optional<at::Tensor> &;
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("fpxc::scaled_mm", "")
                       .typed<at::Tensor(const at::Tensor &, const at::Tensor &,
                                         const at::Tensor &, const at::Tensor &,
                                         at::ScalarType, Opt, Opt, Opt, c10::string_view,
                                         c10::string_view)>();
  return op.call(a, scaleA, b, scaleB, outDtype, bias, globalScaleA, globalScaleB, scaleLayoutA,
                 scaleLayoutB);
}

/// torch.ops.fpxc.grouped_mm: the grouped (MoE) fp8 GEMM, (M, N) in
/// outDtype: rows [offs[g - 1], offs[g]) of a (M, K) times b[g]^T (b (G, N,
/// K), K-major), each with its fp32 row scales (scaleA (M, 1), scaleB (G, N,
/// 1): fpxc.quantize's block (1, 0)); offs int32 (G,) holds each group's end
/// row and is read on the device only (ends clamped to [0, M]; rows past the
/// last end are zeros). fp8 codes float8_e4m3fn or float8_e5m2; K a multiple
/// of 16; bfloat16 or float32 from the kernels, float16 from the fallback.
inline at::Tensor groupedMM(const at::Tensor &a, const at::Tensor &scaleA, const at::Tensor &b,
                            const at::Tensor &scaleB, const at::Tensor &offs,
                            at::ScalarType outDtype = at::kBFloat16) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("fpxc::grouped_mm", "")
                       .typed<at::Tensor(const at::Tensor &, const at::Tensor &,
                                         const at::Tensor &, const at::Tensor &,
                                         const at::Tensor &, at::ScalarType)>();
  return op.call(a, scaleA, b, scaleB, offs, outDtype);
}

} // namespace fpx::torch_ops

#endif // FPXC_TORCHOPS_H
