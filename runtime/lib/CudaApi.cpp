//===- CudaApi.cpp - dlopen the CUDA driver and NVRTC ------------------------===//
//
// Each library is opened at most once per process, on first need. A failure
// is remembered as an Error and re-thrown on every later request, so a CPU
// machine pays for the dlopen attempt once and always gets the same message.
//
//===----------------------------------------------------------------------===//

#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <optional>
#include <vector>

// Two-level stringification expands cuda.h's versioning macros first
// (cuMemAlloc -> "cuMemAlloc_v2").
#define FPX_STRINGIFY_IMPL(X) #X
#define FPX_STRINGIFY(X) FPX_STRINGIFY_IMPL(X)
// Binds api.Name from `handle`, naming it in `missing` where the library
// lacks it (used inside the loaders below).
#define FPX_BIND(Name)                                                         \
  if (!bind(handle, FPX_STRINGIFY(Name), api.Name))                            \
    missing += std::string(missing.empty() ? "" : ", ") + FPX_STRINGIFY(Name);

namespace fpx::rt {

namespace {
struct LibraryState {
  std::once_flag Once;
  std::optional<Error> Failure;
  std::string Path;
  void *Handle = nullptr;
};

LibraryState &driverState() {
  static LibraryState state;
  return state;
}
LibraryState &nvrtcState() {
  static LibraryState state;
  return state;
}

bool envSet(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && std::string(value) != "0";
}

/// dlopen the first candidate that loads; collects each dlerror for the
/// message when none does.
void *openFirst(const std::vector<std::string> &candidates, std::string &path,
                std::string &errors) {
  for (const std::string &candidate : candidates) {
    if (candidate.empty())
      continue;
    if (void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      path = candidate;
      return handle;
    }
    const char *err = dlerror();
    errors += "\n  " + candidate + ": " + (err ? err : "unknown error");
  }
  return nullptr;
}

template <typename Fn>
bool bind(void *handle, const char *name, Fn &slot) {
  slot = reinterpret_cast<Fn>(dlsym(handle, name));
  return slot != nullptr;
}

std::string envOr(const char *name) {
  const char *value = std::getenv(name);
  return value ? std::string(value) : std::string();
}
} // namespace

CudaApi &CudaApi::instance() {
  static CudaApi api;
  return api;
}

const CudaApi &CudaApi::loaded() noexcept { return instance(); }

static void loadDriver(CudaApi &api, LibraryState &state) {
  const char *call = "load CUDA driver";
  if (envSet("FPX_DISABLE_CUDA")) {
    state.Failure.emplace(ErrorCode::NoDevice, call, "",
                          "CUDA is disabled by FPX_DISABLE_CUDA");
    return;
  }
  // libcuda.so (unversioned) is deliberately not tried: on machines without
  // a driver it is usually the toolkit's stub, which fails every call.
  std::string errors;
  void *handle =
      openFirst({envOr("FPX_CUDA_DRIVER"), "libcuda.so.1"}, state.Path, errors);
  if (!handle) {
    state.Failure.emplace(ErrorCode::NoDevice, call, "libcuda.so.1",
                          "no NVIDIA driver found (this machine has no usable "
                          "GPU, or libcuda.so.1 is not on the loader path):" +
                              errors);
    return;
  }
  state.Handle = handle;
  std::string missing;
  FPX_CUDA_DRIVER_FUNCTIONS(FPX_BIND)
#define FPX_BIND_OPTIONAL(Name) bind(handle, FPX_STRINGIFY(Name), api.Name);
  FPX_CUDA_DRIVER_OPTIONAL_FUNCTIONS(FPX_BIND_OPTIONAL)
#undef FPX_BIND_OPTIONAL
  if (!missing.empty()) {
    state.Failure.emplace(ErrorCode::DriverTooOld, call, state.Path,
                          "the driver lacks " + missing +
                              "; install a driver for CUDA 12 or newer");
    return;
  }
  CUresult result = api.cuInit(0);
  if (result != CUDA_SUCCESS) {
    state.Failure.emplace(ErrorCode::NoDevice, "cuInit", state.Path,
                          describeCuResult(result) +
                              " (no usable GPU or driver on this machine)");
    return;
  }
  int count = 0;
  result = api.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS || count == 0) {
    state.Failure.emplace(ErrorCode::NoDevice, "cuDeviceGetCount", state.Path,
                          result != CUDA_SUCCESS ? describeCuResult(result)
                                                 : "no CUDA device visible");
    return;
  }
}

const CudaApi &CudaApi::driver() {
  LibraryState &state = driverState();
  CudaApi &api = instance();
  std::call_once(state.Once, [&] { loadDriver(api, state); });
  if (state.Failure)
    throw *state.Failure;
  return api;
}

bool CudaApi::hasDriver() noexcept {
  try {
    driver();
    return true;
  } catch (...) {
    return false;
  }
}

int CudaApi::driverVersion() {
  const CudaApi &api = driver();
  int version = 0;
  checkCu(api.cuDriverGetVersion(&version), "cuDriverGetVersion", "");
  return version;
}

std::string CudaApi::driverLibrary() { return driverState().Path; }
std::string CudaApi::nvrtcLibrary() { return nvrtcState().Path; }

static void loadNvrtc(CudaApi &api, LibraryState &state) {
  std::vector<std::string> candidates = {envOr("FPX_NVRTC"), "libnvrtc.so.13",
                                         "libnvrtc.so", "libnvrtc.so.12"};
  // Toolkits outside the loader path: $CUDA_HOME/lib64 and /usr/local/cuda.
  for (const std::string &root : {envOr("CUDA_HOME"), envOr("CUDA_PATH"),
                                  std::string("/usr/local/cuda")}) {
    if (root.empty())
      continue;
    candidates.push_back(root + "/lib64/libnvrtc.so");
    candidates.push_back(root + "/lib/libnvrtc.so");
  }
  std::string errors;
  void *handle = openFirst(candidates, state.Path, errors);
  if (!handle) {
    state.Failure.emplace(ErrorCode::NotFound, "load NVRTC", "libnvrtc.so",
                          "NVRTC not found (set FPX_NVRTC to its path):" +
                              errors);
    return;
  }
  state.Handle = handle;
  std::string missing;
  FPX_NVRTC_FUNCTIONS(FPX_BIND)
  if (!missing.empty())
    state.Failure.emplace(ErrorCode::NotFound, "load NVRTC", state.Path,
                          "the library lacks " + missing);
}

const CudaApi &CudaApi::nvrtc() {
  LibraryState &state = nvrtcState();
  CudaApi &api = instance();
  std::call_once(state.Once, [&] { loadNvrtc(api, state); });
  if (state.Failure)
    throw *state.Failure;
  return api;
}

std::string describeCuResult(CUresult result) {
  const CudaApi &api = CudaApi::loaded();
  const char *name = nullptr;
  const char *text = nullptr;
  if (api.cuGetErrorName)
    api.cuGetErrorName(result, &name);
  if (api.cuGetErrorString)
    api.cuGetErrorString(result, &text);
  std::string out = name ? name : "CUresult " + std::to_string(int(result));
  if (text)
    out += std::string(": ") + text;
  return out;
}

static ErrorCode codeFor(CUresult result) {
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    return ErrorCode::OutOfMemory;
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    return ErrorCode::DriverTooOld;
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return ErrorCode::WrongArchitecture;
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_SOURCE:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    return ErrorCode::CompileFailed;
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
    return ErrorCode::LaunchFailed;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_NOT_INITIALIZED:
  case CUDA_ERROR_DEINITIALIZED:
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    return ErrorCode::NoDevice;
  default:
    return ErrorCode::CudaError;
  }
}

void checkCu(CUresult result, const char *call, std::string_view subject,
             std::string_view detail) {
  if (result == CUDA_SUCCESS)
    return;
  std::string cause = describeCuResult(result);
  if (result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    cause += " (the driver is older than the PTX ISA version of this "
             "artifact: update the driver, or rebuild for an older PTX "
             "version, or ship a cubin)";
  if (!detail.empty())
    cause += "\n" + std::string(detail);
  throw Error(codeFor(result), call, std::string(subject), cause);
}

void checkNvrtc(nvrtcResult result, const char *call, std::string_view subject,
                std::string_view detail) {
  if (result == NVRTC_SUCCESS)
    return;
  const CudaApi &api = CudaApi::loaded();
  std::string cause = api.nvrtcGetErrorString
                          ? api.nvrtcGetErrorString(result)
                          : "nvrtcResult " + std::to_string(int(result));
  if (!detail.empty())
    cause += "\n" + std::string(detail);
  ErrorCode code = result == NVRTC_ERROR_COMPILATION ||
                           result == NVRTC_ERROR_INVALID_OPTION
                       ? ErrorCode::CompileFailed
                       : ErrorCode::CudaError;
  throw Error(code, call, std::string(subject), cause);
}

} // namespace fpx::rt
