//===- CudaApi.h - The dlopen'd CUDA driver and NVRTC entry points -*- C++ -*-===//
//
// libfpxrt never links libcuda or libnvrtc: a CPU-only machine must be able to
// load it (and the Python module) and only fail, with a clear error, when it
// asks for a GPU. Both libraries are opened with dlopen into ONE table of
// function pointers. cuda.h and nvrtc.h are used for their types only.
//
// The pointer types come from the headers' own prototypes, and the symbol
// names are the headers' macro expansions (cuMemAlloc -> cuMemAlloc_v2), so
// the table always binds the ABI version the types describe.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_CUDAAPI_H
#define FPX_RUNTIME_CUDAAPI_H

#include <cuda.h>
#include <nvrtc.h>

#include <string>
#include <string_view>

// Driver entry points used by the runtime (and the GPU tests).
#define FPX_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxSynchronize)                                                          \
  X(cuStreamGetCtx)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamIsCapturing)                                                       \
  X(cuThreadExchangeStreamCaptureMode)                                         \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuLinkCreate)                                                              \
  X(cuLinkAddData)                                                             \
  X(cuLinkComplete)                                                            \
  X(cuLinkDestroy)                                                             \
  X(cuFuncSetAttribute)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuMemsetD32Async)                                                          \
  X(cuMemPoolCreate)                                                           \
  X(cuMemPoolDestroy)                                                          \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemAllocFromPoolAsync)                                                   \
  X(cuMemFreeAsync)

// Optional driver entry points: absent in older drivers, the runtime copes.
// (cuStreamGetCaptureInfo is its _v3, CUDA 12.3; cuStreamGetId 12.0.)
#define FPX_CUDA_DRIVER_OPTIONAL_FUNCTIONS(X)                                  \
  X(cuCtxGetId) X(cuTensorMapEncodeTiled) X(cuStreamGetCaptureInfo) X(cuStreamGetId)

// NVRTC entry points.
#define FPX_NVRTC_FUNCTIONS(X)                                                 \
  X(nvrtcVersion)                                                              \
  X(nvrtcGetErrorString)                                                       \
  X(nvrtcCreateProgram)                                                        \
  X(nvrtcDestroyProgram)                                                       \
  X(nvrtcCompileProgram)                                                       \
  X(nvrtcGetPTXSize)                                                           \
  X(nvrtcGetPTX)                                                               \
  X(nvrtcGetProgramLogSize)                                                    \
  X(nvrtcGetProgramLog)

namespace fpx::rt {

/// The process-wide table of driver and NVRTC entry points. Each half is
/// loaded lazily and at most once; a failure is remembered and re-thrown.
class CudaApi {
public:
#define FPX_DECLARE_ENTRY(Name) decltype(&::Name) Name = nullptr;
  FPX_CUDA_DRIVER_FUNCTIONS(FPX_DECLARE_ENTRY)
  FPX_CUDA_DRIVER_OPTIONAL_FUNCTIONS(FPX_DECLARE_ENTRY)
  FPX_NVRTC_FUNCTIONS(FPX_DECLARE_ENTRY)
#undef FPX_DECLARE_ENTRY

  /// The table, with the driver loaded and cuInit done. Throws
  /// Error(NoDevice) naming the cause when there is no usable driver or GPU.
  static const CudaApi &driver();

  /// The table, with NVRTC loaded (needs no GPU). Throws Error(NotFound).
  static const CudaApi &nvrtc();

  /// True when driver() would succeed; never throws.
  static bool hasDriver() noexcept;

  /// The driver's CUDA version (e.g. 13000); throws like driver().
  static int driverVersion();

  /// The file the driver or NVRTC library was opened from ("" if not yet).
  static std::string driverLibrary();
  static std::string nvrtcLibrary();

  /// The table as loaded so far, without loading anything: pointers of a
  /// library not (successfully) loaded are null. For error paths.
  static const CudaApi &loaded() noexcept;

private:
  CudaApi() = default;
  static CudaApi &instance();
};

/// Throws an Error naming \p call and \p subject unless \p result is
/// CUDA_SUCCESS; the code is derived from the CUresult (OOM, launch failure,
/// unsupported PTX, ...). \p detail (e.g. a JIT log) is appended to the cause.
void checkCu(CUresult result, const char *call, std::string_view subject,
             std::string_view detail = {});

/// Same for NVRTC results.
void checkNvrtc(nvrtcResult result, const char *call, std::string_view subject,
                std::string_view detail = {});

/// "CUDA_ERROR_OUT_OF_MEMORY: out of memory" for a CUresult (works without a
/// loaded driver too, then only the number is known).
std::string describeCuResult(CUresult result);

} // namespace fpx::rt

#endif // FPX_RUNTIME_CUDAAPI_H
