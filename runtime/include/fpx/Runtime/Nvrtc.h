//===- Nvrtc.h - CUDA C++ to PTX through NVRTC ------------------*- C++ -*-===//
//
// NVRTC (dlopen'd like the driver) compiles CUDA C++ where that is the right
// tool: reference kernels in GPU tests (NVIDIA's cuda_fp8.h conversions as an
// oracle) and user epilogue snippets. It needs no GPU.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_NVRTC_H
#define FPX_RUNTIME_NVRTC_H

#include <string>
#include <string_view>
#include <vector>

namespace fpx::rt {

/// Compiles \p source for \p arch ("sm_90a" or "compute_90a") to PTX.
/// The CUDA toolkit's include directories (cuda_fp8.h and the CCCL headers
/// it needs) are added when found; \p options are passed through (e.g.
/// "-DN=4"). Throws Error(CompileFailed) with the program log, or
/// Error(NotFound) when NVRTC cannot be loaded.
std::string compileCuda(std::string_view source, std::string_view arch,
                        const std::vector<std::string> &options = {},
                        std::string_view name = "fpx_nvrtc.cu");

/// "13.0"; throws Error(NotFound) when NVRTC cannot be loaded.
std::string nvrtcVersionString();

/// The include directories compileCuda() adds.
std::vector<std::string> cudaIncludeDirs();

} // namespace fpx::rt

#endif // FPX_RUNTIME_NVRTC_H
