//===- Runtime.h - Load artifacts and launch their functions ----*- C++ -*-===//
//
// The C++ API of libfpxrt:
//
//   auto art = fpx::rt::Module::load("build/kernels/mxfp8_rows.json");
//   const fpx::rt::Function &f = art->function("mxfp8_rows");
//   auto shapes = f.outputShapes({{M, K}});      // allocate the outputs
//   f.launch(stream, {x}, {q, s}, {seed});        // on any CUstream
//
// A Module owns the artifact's images and a thread-safe cache of loaded
// CUmodules, one per CUDA context, filled lazily on first launch. Loading
// metadata needs no GPU; launching does.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_RUNTIME_H
#define FPX_RUNTIME_RUNTIME_H

#include "fpx/Runtime/Artifact.h"
#include "fpx/Runtime/DType.h"

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace fpx::rt {

/// Most dimensions a tensor argument may have.
constexpr int kMaxRank = 8;
/// Alignment the kernels assume for every tensor pointer.
constexpr uint64_t kTensorAlignment = 16;

/// A device tensor passed to a launch: a pointer, its dtype and its shape,
/// and optionally its strides (in elements) so the runtime can reject
/// non-contiguous views. It does not own the memory. Fixed-size, no heap.
struct TensorRef {
  CUdeviceptr Data = 0;
  DType Type = DType::F32;
  int Rank = 0;
  int64_t Shape[kMaxRank] = {};
  int64_t Strides[kMaxRank] = {};
  bool HasStrides = false;

  TensorRef() = default;
  /// A contiguous tensor.
  TensorRef(CUdeviceptr data, DType type, std::initializer_list<int64_t> shape);
  TensorRef(CUdeviceptr data, DType type, const std::vector<int64_t> &shape);
  /// A tensor with explicit element strides (checked for contiguity).
  TensorRef(CUdeviceptr data, DType type, const std::vector<int64_t> &shape,
            const std::vector<int64_t> &strides);

  int64_t numel() const;
  std::vector<int64_t> shape() const { return {Shape, Shape + Rank}; }
};

/// A scalar argument: an integer or a floating-point value, converted to the
/// kernel parameter's type (integers are range-checked).
struct Scalar {
  bool IsFloat = false;
  int64_t Int = 0;
  double Float = 0;

  Scalar() = default;
  template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  Scalar(T v) : IsFloat(false), Int(static_cast<int64_t>(v)) {}
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : IsFloat(true), Float(static_cast<double>(v)) {}
};

/// Named scalar for launches that pass only some scalars.
struct NamedScalar {
  std::string Name;
  Scalar Value;
};

/// Per-launch switches.
struct LaunchOptions {
  /// Skip the per-launch checks of alignment and contiguity (shapes and
  /// dtypes are still checked). For callers that already checked.
  bool SkipPointerChecks = false;
  /// Where the function's temporaries (workspaces, counters) come from: a
  /// caller's allocator (e.g. torch's caching allocator, so that a launch
  /// inside a CUDA graph capture allocates nothing of its own), returning
  /// device memory of at least `bytes`, 16-byte aligned, usable on the
  /// launch's stream until the work queued there after the launch; the
  /// caller keeps it alive until the launch returns and frees it in stream
  /// order. Empty: the runtime's stream-ordered pool. Not asked for
  /// kept-zero temps (the runtime's kept buffers serve those).
  std::function<CUdeviceptr(size_t bytes)> AllocateTemp;
};

class Module;

/// User CUDA C++ linked into an artifact's kernels at load time, by symbol:
/// {"fpx_user_scale", "extern \"C\" __device__ float fpx_user_scale(float x)
/// { return x * 0.5f - 1.0f; }"}. Every symbol of the artifact's "link" list
/// needs one entry (several symbols may share one source text; it is
/// compiled once). Each distinct source is compiled by NVRTC with
/// -rdc=true --fmad=false for the device, then linked with the artifact's
/// PTX by the driver's JIT linker (docs/runtime.md).
using LinkSources = std::map<std::string, std::string>;

/// One callable function of an artifact. Owned by its Module.
class Function {
public:
  const FunctionInfo &info() const { return *Info; }
  const std::string &name() const { return Info->Name; }
  const Module &module() const { return *Owner; }

  /// The shapes of the outputs for inputs of these shapes. Checks input
  /// ranks and that a symbol bound twice agrees; throws InvalidArgument.
  std::vector<std::vector<int64_t>>
  outputShapes(const std::vector<std::vector<int64_t>> &inputShapes) const;

  /// Binds the shape symbols from the inputs (checked: count, dtype, rank,
  /// agreement, literal and derived dims) and returns their values, indexed
  /// like info().Symbols.
  std::vector<int64_t> bindSymbols(const TensorRef *inputs,
                                   size_t numInputs) const;

  /// Launches the function's kernels in order on \p stream (0 = the current
  /// context's legacy stream). The inputs are checked as accepts()
  /// (fpx/Runtime/Accept.h) checks them. Scalars are positional, those not
  /// given take their defaults. Temps come from a per-device stream-ordered
  /// pool (or options.AllocateTemp); kept-zero temps (split-K counters) from a
  /// buffer the runtime keeps per stream (per capture under CUDA graph
  /// capture), cleared once (docs/artifact.md). Throws Error naming the call,
  /// the kernel and the cause.
  void launch(CUstream stream, const std::vector<TensorRef> &inputs,
              const std::vector<TensorRef> &outputs,
              const std::vector<Scalar> &scalars = {},
              const LaunchOptions &options = {}) const;

  /// Pointer-and-count form of launch(), allocation-free on the fast path.
  void launch(CUstream stream, const TensorRef *inputs, size_t numInputs,
              const TensorRef *outputs, size_t numOutputs,
              const Scalar *scalars, size_t numScalars,
              const LaunchOptions &options = {}) const;

  /// Index of the scalar called \p name; throws NotFound.
  unsigned scalarIndex(std::string_view name) const;

private:
  friend class Module;
  Function(const Module *owner, const FunctionInfo *info)
      : Owner(owner), Info(info) {}
  const Module *Owner;
  const FunctionInfo *Info;
};

/// A loaded artifact: metadata, PTX/cubin images and per-context modules.
class Module : public std::enable_shared_from_this<Module> {
public:
  /// Loads NAME.json (and the PTX/cubin it names, from the same directory).
  /// A path to a directory holding exactly one .json file works too.
  /// \p link supplies the user functions the artifact's "link" list names;
  /// a missing, unknown or non-defining entry is an error here (no GPU
  /// needed), compile and link errors come at the first load on a device.
  static std::shared_ptr<Module> load(const std::string &path,
                                      const LinkSources &link = {});

  /// Builds a module from in-memory files (e.g. from the disk cache).
  static std::shared_ptr<Module> fromMemory(std::string jsonText,
                                            std::string ptx,
                                            std::string cubin,
                                            std::string source,
                                            LinkSources link = {});

  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const ArtifactInfo &info() const { return Info; }
  const std::string &ptx() const { return Ptx; }
  const std::string &cubin() const { return Cubin; }
  const LinkSources &linkSources() const { return Link; }

  /// The function called \p name; throws Error(NotFound) listing the names.
  const Function &function(std::string_view name) const;
  /// All functions, in artifact order.
  const std::vector<Function> &functions() const { return Functions; }

  /// The CUfunction of kernel \p kernelIndex in context \p ctx (the current
  /// context when null), loading the module into that context on first use.
  CUfunction kernel(unsigned kernelIndex, CUcontext ctx = nullptr) const;

  /// Loads the module into \p ctx (current when null) now rather than at the
  /// first launch; returns which image was used ("cubin", "ptx", or
  /// "linked" for PTX linked with user functions).
  std::string preload(CUcontext ctx = nullptr) const;

  /// Number of contexts this module is loaded into (for tests).
  size_t loadedContexts() const;

  struct Impl;

private:
  Module();
  ArtifactInfo Info;
  std::string Ptx;
  std::string Cubin;
  LinkSources Link;
  std::vector<Function> Functions;
  std::unique_ptr<Impl> State;
  friend class Function;
};

/// The compute capability of the device that owns \p ctx (current if null),
/// as a chip string "sm_90a" style without suffix ("sm_90").
std::string deviceChip(CUcontext ctx = nullptr);

/// fpxc's version ("major.minor.patch": project(fpxc VERSION ...) in the
/// top CMakeLists.txt), the version of this runtime and of the compiler
/// built beside it.
const char *version();

} // namespace fpx::rt

#endif // FPX_RUNTIME_RUNTIME_H
