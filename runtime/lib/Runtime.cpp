//===- Runtime.cpp - Modules, per-context loading and launches ---------------===//
//
// The launch path is the hot path (a Python call lands here for every
// quantize): it binds shape symbols into a fixed array, looks the module up
// in a small per-context list under one mutex, marshals parameters into
// stack storage and calls cuLaunchKernel. Nothing on it allocates unless
// the function has temps.
//
//===----------------------------------------------------------------------===//

#include "fpx/Runtime/Runtime.h"
#include "fpx/Config/Version.h"
#include "fpx/Runtime/Accept.h"
#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/DiskCache.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Nvrtc.h"
#include "fpx/Runtime/TensorMap.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <sys/stat.h>
#include <dirent.h>

namespace fpx::rt {

namespace {
constexpr unsigned kMaxParams = 128;
constexpr size_t kJitLogBytes = 16384;

/// The JIT's info and error log buffers and the four options that hand them
/// to cuLinkCreate / cuModuleLoadDataEx; withLogs appends what they caught.
struct JitLogs {
  JitLogs() = default;
  JitLogs(const JitLogs &) = delete; // Values points into this object's buffers
  JitLogs &operator=(const JitLogs &) = delete;

  std::vector<char> Info = std::vector<char>(kJitLogBytes, 0);
  std::vector<char> Errors = std::vector<char>(kJitLogBytes, 0);
  CUjit_option Options[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                             CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *Values[4] = {Info.data(), reinterpret_cast<void *>(uintptr_t(kJitLogBytes - 1)),
                     Errors.data(), reinterpret_cast<void *>(uintptr_t(kJitLogBytes - 1))};

  std::string withLogs(std::string detail) const {
    if (Errors[0])
      detail += "\nJIT error log:\n" + std::string(Errors.data());
    if (Info[0])
      detail += "\nJIT info log:\n" + std::string(Info.data());
    return detail;
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// TensorRef
//===----------------------------------------------------------------------===//

static void setShape(TensorRef &t, const int64_t *shape, size_t rank) {
  if (rank > static_cast<size_t>(kMaxRank))
    throw Error(ErrorCode::InvalidArgument, "TensorRef", "",
                "rank " + std::to_string(rank) + " exceeds the maximum of " +
                    std::to_string(kMaxRank));
  t.Rank = static_cast<int>(rank);
  std::copy(shape, shape + rank, t.Shape);
}

TensorRef::TensorRef(CUdeviceptr data, DType type,
                     std::initializer_list<int64_t> shape)
    : Data(data), Type(type) {
  setShape(*this, shape.begin(), shape.size());
}

TensorRef::TensorRef(CUdeviceptr data, DType type,
                     const std::vector<int64_t> &shape)
    : Data(data), Type(type) {
  setShape(*this, shape.data(), shape.size());
}

TensorRef::TensorRef(CUdeviceptr data, DType type,
                     const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides)
    : Data(data), Type(type) {
  setShape(*this, shape.data(), shape.size());
  if (strides.size() != shape.size())
    throw Error(ErrorCode::InvalidArgument, "TensorRef", "",
                "strides have rank " + std::to_string(strides.size()) +
                    " but the shape has rank " + std::to_string(shape.size()));
  std::copy(strides.begin(), strides.end(), Strides);
  HasStrides = true;
}

int64_t TensorRef::numel() const {
  int64_t n = 1;
  for (int i = 0; i < Rank; ++i)
    n *= Shape[i];
  return n;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

static bool isDirectory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// The single NAME.json inside \p dir.
static std::string findJsonIn(const std::string &dir) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    throw Error(ErrorCode::NotFound, "load artifact", dir,
                "cannot open the directory");
  std::vector<std::string> found;
  while (dirent *entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
      found.push_back(name);
  }
  ::closedir(d);
  if (found.size() != 1)
    throw Error(ErrorCode::NotFound, "load artifact", dir,
                found.empty()
                    ? "no .json artifact in the directory"
                    : "several .json files in the directory; name one");
  return dir + "/" + found[0];
}

//===----------------------------------------------------------------------===//
// Per-device temp pools
//===----------------------------------------------------------------------===//

namespace {
/// A stream-ordered memory pool per device, shared by all modules: temps are
/// allocated and freed on the launch stream, so they are safe across streams
/// and under CUDA graph capture, and the pool keeps memory between calls.
struct DevicePools {
  std::mutex Mutex;
  std::map<CUdevice, CUmemoryPool> Pools; ///< null: pools unsupported

  CUmemoryPool get(const CudaApi &api, CUdevice dev, const std::string &who) {
    std::lock_guard<std::mutex> lock(Mutex);
    auto it = Pools.find(dev);
    if (it != Pools.end())
      return it->second;
    int supported = 0;
    checkCu(api.cuDeviceGetAttribute(
                &supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev),
            "cuDeviceGetAttribute", who);
    CUmemoryPool pool = nullptr;
    if (supported) {
      CUmemPoolProps props;
      std::memset(&props, 0, sizeof(props));
      props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
      props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
      props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      props.location.id = dev;
      checkCu(api.cuMemPoolCreate(&pool, &props), "cuMemPoolCreate", who);
      // Keep up to 64 MiB cached between launches instead of returning it
      // to the driver at every synchronisation.
      cuuint64_t threshold = 64ull << 20;
      checkCu(api.cuMemPoolSetAttribute(
                  pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
              "cuMemPoolSetAttribute", who);
    }
    Pools[dev] = pool;
    return pool;
  }
};

DevicePools &devicePools() {
  static DevicePools *pools = new DevicePools; // never destroyed: outlives
  return *pools;                               // static modules at exit
}

/// Temps that a function's kernels leave zero ("init": "kept_zero": split-K
/// counters) live in buffers the runtime keeps, cleared once when made,
/// instead of a memset every launch. One buffer a context and stream; under
/// CUDA graph capture one a capture and stream, so that no two graphs, and no
/// graph and eager work, share one (a graph's kernels use its buffer on every
/// replay). Buffers are never freed: a graph may use one for the life of the
/// process. A buffer too small is replaced by one of at least twice the size
/// (the old one stays allocated: queued work or a graph may still use it).
class KeptZeroBuffers {
public:
  /// `bytes` of zeroed memory for a launch on `stream`; 0 where the driver
  /// cannot say which capture the stream belongs to (the caller clears a temp
  /// of its own then).
  CUdeviceptr get(const CudaApi &api, CUcontext ctx, CUstream stream, size_t bytes,
                  const std::string &who) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    checkCu(api.cuStreamIsCapturing(stream, &status), "cuStreamIsCapturing", who);
    const bool capturing = status != CU_STREAM_CAPTURE_STATUS_NONE;
    Key key{ctx, capturing ? handleId(stream) : streamId(api, stream), 0};
    if (capturing) {
      if (!api.cuStreamGetCaptureInfo)
        return 0;
      cuuint64_t id = 0;
      checkCu(api.cuStreamGetCaptureInfo(stream, &status, &id, nullptr, nullptr, nullptr,
                                         nullptr),
              "cuStreamGetCaptureInfo", who);
      key.Capture = id + 1;
    }
    std::lock_guard<std::mutex> lock(Mutex);
    Buffer &buf = Buffers[key];
    if (buf.Bytes >= bytes)
      return buf.Ptr;
    size_t size = std::max<size_t>({bytes, 2 * buf.Bytes, 4096});
    // Relaxed capture mode: an allocation (not captured) is legal while any
    // stream of this thread captures.
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    checkCu(api.cuThreadExchangeStreamCaptureMode(&mode), "cuThreadExchangeStreamCaptureMode",
            who);
    CUdeviceptr ptr = 0;
    const char *call = "cuMemAlloc";
    CUresult rc = api.cuMemAlloc(&ptr, size);
    if (rc == CUDA_SUCCESS) {
      call = "cuMemsetD8Async";
      if (capturing) {
        // Cleared now, on a stream of the runtime's own, not in the graph.
        CUstream clear = clearingStream(api, ctx, who);
        rc = api.cuMemsetD8Async(ptr, 0, size, clear);
        if (rc == CUDA_SUCCESS) {
          call = "cuStreamSynchronize";
          rc = api.cuStreamSynchronize(clear);
        }
      } else {
        rc = api.cuMemsetD8Async(ptr, 0, size, stream); // before the launch, in stream order
      }
    }
    api.cuThreadExchangeStreamCaptureMode(&mode);
    if (rc != CUDA_SUCCESS && ptr)
      api.cuMemFree(ptr);
    checkCu(rc, call, who, "while making " + std::to_string(size) + " bytes of kept-zero temps");
    buf = Buffer{ptr, size};
    return ptr;
  }

private:
  struct Key {
    CUcontext Ctx;
    unsigned long long Stream;
    cuuint64_t Capture; ///< the capture's id + 1; 0: not capturing
    bool operator<(const Key &o) const {
      return std::tie(Ctx, Stream, Capture) < std::tie(o.Ctx, o.Stream, o.Capture);
    }
  };
  struct Buffer {
    CUdeviceptr Ptr = 0;
    size_t Bytes = 0;
  };

  /// The stream's process-unique id where the driver gives one (a handle
  /// may be reused after cuStreamDestroy), else its handle. Not while the
  /// stream captures: cuStreamGetId is refused then, and the refusal
  /// invalidates the capture (the key's capture id is unique instead).
  static unsigned long long streamId(const CudaApi &api, CUstream stream) {
    unsigned long long id = 0;
    if (stream && api.cuStreamGetId && api.cuStreamGetId(stream, &id) == CUDA_SUCCESS)
      return id;
    return handleId(stream);
  }
  static unsigned long long handleId(CUstream stream) {
    return static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(stream));
  }

  CUstream clearingStream(const CudaApi &api, CUcontext ctx, const std::string &who) {
    CUstream &s = Clearing[ctx];
    if (!s)
      checkCu(api.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate", who);
    return s;
  }

  std::mutex Mutex;
  std::map<Key, Buffer> Buffers;
  std::map<CUcontext, CUstream> Clearing;
};

KeptZeroBuffers &keptZeroBuffers() {
  static KeptZeroBuffers *buffers = new KeptZeroBuffers; // never destroyed
  return *buffers;
}

/// Temps of one launch; frees them on the stream when the launch ends, also
/// when it ends with an exception.
class TempBuffers {
public:
  TempBuffers(const CudaApi &api, CUstream stream) : Api(api), Stream(stream) {}
  ~TempBuffers() {
    if (Pointers.empty())
      return;
    if (Pool) {
      for (CUdeviceptr p : Pointers)
        Api.cuMemFreeAsync(p, Stream);
    } else {
      // No stream-ordered allocator: wait for the launches, then free.
      Api.cuStreamSynchronize(Stream);
      for (CUdeviceptr p : Pointers)
        Api.cuMemFree(p);
    }
  }

  CUdeviceptr allocate(CUmemoryPool pool, size_t bytes,
                       const std::string &who) {
    Pool = pool;
    CUdeviceptr ptr = 0;
    if (bytes == 0)
      return 0;
    if (pool)
      checkCu(Api.cuMemAllocFromPoolAsync(&ptr, bytes, pool, Stream),
              "cuMemAllocFromPoolAsync", who,
              "while allocating " + std::to_string(bytes) + " bytes of temps");
    else
      checkCu(Api.cuMemAlloc(&ptr, bytes), "cuMemAlloc", who,
              "while allocating " + std::to_string(bytes) + " bytes of temps");
    Pointers.push_back(ptr);
    return ptr;
  }

private:
  const CudaApi &Api;
  CUstream Stream;
  CUmemoryPool Pool = nullptr;
  std::vector<CUdeviceptr> Pointers;
};

/// Makes \p ctx current for the scope if it is not already.
class ContextScope {
public:
  ContextScope(const CudaApi &api, CUcontext ctx, const std::string &who)
      : Api(api) {
    CUcontext current = nullptr;
    checkCu(api.cuCtxGetCurrent(&current), "cuCtxGetCurrent", who);
    if (current != ctx) {
      checkCu(api.cuCtxPushCurrent(ctx), "cuCtxPushCurrent", who);
      Pushed = true;
    }
  }
  ~ContextScope() {
    if (Pushed) {
      CUcontext popped;
      Api.cuCtxPopCurrent(&popped);
    }
  }

private:
  const CudaApi &Api;
  bool Pushed = false;
};

/// The current context, or device 0's primary context made current (as the
/// CUDA runtime does lazily) when the thread has none.
CUcontext currentOrPrimary(const CudaApi &api, const std::string &who) {
  CUcontext ctx = nullptr;
  checkCu(api.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent", who);
  if (ctx)
    return ctx;
  CUdevice dev;
  checkCu(api.cuDeviceGet(&dev, 0), "cuDeviceGet", who);
  checkCu(api.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain",
          who);
  checkCu(api.cuCtxSetCurrent(ctx), "cuCtxSetCurrent", who);
  return ctx;
}

CUcontext contextOf(const CudaApi &api, CUstream stream, CUcontext ctx,
                    const std::string &who) {
  if (ctx)
    return ctx;
  if (stream) {
    checkCu(api.cuStreamGetCtx(stream, &ctx), "cuStreamGetCtx", who);
    return ctx;
  }
  return currentOrPrimary(api, who);
}

unsigned long long contextId(const CudaApi &api, CUcontext ctx) {
  // Context ids are unique for the process lifetime, unlike pointers which a
  // new context may reuse after one is destroyed.
  unsigned long long id = 0;
  if (api.cuCtxGetId && api.cuCtxGetId(ctx, &id) == CUDA_SUCCESS)
    return id;
  return reinterpret_cast<uintptr_t>(ctx);
}
} // namespace

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// One module loaded into one context.
struct LoadedModule {
  unsigned long long ContextId;
  CUcontext Context;
  CUdevice Device;
  CUmodule Handle;
  std::vector<CUfunction> Kernels;
  /// Per kernel: the most dynamic shared memory a launch may ask for (the
  /// constant size, or for a launch-time size the device's per-block
  /// maximum less the kernel's static shared memory).
  std::vector<int64_t> SharedLimit;
  /// The device's multiprocessor count (kSmCountSymbol).
  int64_t SmCount = 0;
  bool FromCubin;
  bool Linked = false; ///< PTX JIT-linked with the user's functions
};

struct Module::Impl {
  std::mutex Mutex;
  std::vector<LoadedModule> Loaded;
};

Module::Module() : State(std::make_unique<Impl>()) {}

Module::~Module() {
  if (!State || State->Loaded.empty())
    return;
  // Unload best-effort: at process exit the driver may already be gone.
  const CudaApi &api = CudaApi::driver();
  for (LoadedModule &lm : State->Loaded) {
    if (api.cuCtxPushCurrent(lm.Context) != CUDA_SUCCESS)
      continue;
    api.cuModuleUnload(lm.Handle);
    CUcontext popped;
    api.cuCtxPopCurrent(&popped);
  }
}

/// Checks the user sources against the artifact's "link" list (no GPU): each
/// symbol has a source that mentions it, and no source is for an unknown
/// symbol (a typo must not be silently ignored).
static void checkLinkSources(const ArtifactInfo &info, const std::string &ptx,
                             const LinkSources &link,
                             const std::string &source) {
  std::string known;
  for (const LinkSymbol &l : info.Link)
    known += (known.empty() ? "'" : ", '") + l.Symbol + "'";
  for (const LinkSymbol &l : info.Link) {
    auto it = link.find(l.Symbol);
    if (it == link.end())
      throw Error(ErrorCode::NotFound, "load artifact", source,
                  "the kernels call the user function '" + l.Symbol + "' (" +
                      l.Signature + "), which is linked at load time: pass "
                      "its CUDA C++ source, e.g. Module::load(path, {{\"" +
                      l.Symbol + "\", src}}) or fpx.load(path, link={\"" +
                      l.Symbol + "\": src}) with src defining extern \"C\" "
                      "__device__ float " + l.Symbol + "(float x)");
    if (it->second.find(l.Symbol) == std::string::npos)
      throw Error(ErrorCode::InvalidArgument, "load artifact", source,
                  "the CUDA source given for '" + l.Symbol +
                      "' does not mention '" + l.Symbol + "'");
    if (!ptx.empty() && ptx.find(l.Symbol) == std::string::npos)
      throw Error(ErrorCode::InvalidArtifact, "load artifact", source,
                  "link lists '" + l.Symbol + "' but " + info.PtxFile +
                      " never mentions it");
  }
  for (const auto &[symbol, text] : link) {
    bool listed = false;
    for (const LinkSymbol &l : info.Link)
      listed |= l.Symbol == symbol;
    if (!listed)
      throw Error(ErrorCode::InvalidArgument, "load artifact", source,
                  "a CUDA source was given for '" + symbol +
                      "' but the artifact " +
                      (known.empty() ? std::string("links no user functions")
                                     : "links only " + known));
  }
}

std::shared_ptr<Module> Module::fromMemory(std::string jsonText,
                                           std::string ptx, std::string cubin,
                                           std::string source,
                                           LinkSources link) {
  std::shared_ptr<Module> module(new Module());
  module->Info = ArtifactInfo::parse(jsonText, source);
  checkLinkSources(module->Info, ptx, link, source);
  module->Link = std::move(link);
  module->Ptx = std::move(ptx);
  module->Cubin = std::move(cubin);
  if (module->Ptx.empty() && module->Cubin.empty())
    throw Error(ErrorCode::InvalidArtifact, "load artifact", source,
                "the artifact has neither PTX nor cubin contents");
  for (const KernelInfo &kernel : module->Info.Kernels) {
    if (kernel.Params.size() > kMaxParams)
      throw Error(ErrorCode::InvalidArtifact, "load artifact", source,
                  "kernel '" + kernel.Name + "' has more than " +
                      std::to_string(kMaxParams) + " parameters");
    // A PTX module without the entry would only fail at first launch; say
    // so now, naming the kernel. (A cubin cannot be inspected this way.)
    if (!module->Ptx.empty() &&
        module->Ptx.find(".entry " + kernel.Name) == std::string::npos)
      throw Error(ErrorCode::InvalidArtifact, "load artifact", source,
                  "kernel '" + kernel.Name + "' is listed in the metadata "
                  "but " + module->Info.PtxFile + " has no '.entry " +
                  kernel.Name + "'");
  }
  for (const FunctionInfo &fn : module->Info.Functions)
    if (fn.Symbols.size() > kMaxSymbols || fn.Inputs.size() > kMaxSymbols ||
        fn.Temps.size() > kMaxSymbols)
      throw Error(ErrorCode::InvalidArtifact, "load artifact", source,
                  "function '" + fn.Name + "' has more than " +
                      std::to_string(kMaxSymbols) +
                      " shape symbols, inputs or temps");
  for (const FunctionInfo &fn : module->Info.Functions)
    module->Functions.push_back(Function(module.get(), &fn));
  return module;
}

std::shared_ptr<Module> Module::load(const std::string &path,
                                     const LinkSources &link) {
  std::string jsonPath = isDirectory(path) ? findJsonIn(path) : path;
  std::string jsonText, why;
  if (!readRegularFile(jsonPath, jsonText, &why))
    throw Error(ErrorCode::NotFound, "load artifact", jsonPath,
                "cannot read the file: " + why);
  // Parse once here for the file names; fromMemory validates again, which
  // costs little and keeps one code path.
  ArtifactInfo info = ArtifactInfo::parse(jsonText, jsonPath);
  std::string dir = ".";
  if (size_t slash = jsonPath.rfind('/'); slash != std::string::npos)
    dir = jsonPath.substr(0, slash);
  std::string ptx, cubin;
  std::string ptxPath = dir + "/" + info.PtxFile;
  if (!readRegularFile(ptxPath, ptx, &why))
    throw Error(ErrorCode::InvalidArtifact, "load artifact", jsonPath,
                "ptx: cannot read '" + ptxPath + "': " + why);
  if (!info.CubinFile.empty()) {
    std::string cubinPath = dir + "/" + info.CubinFile;
    if (!readRegularFile(cubinPath, cubin, &why))
      throw Error(ErrorCode::InvalidArtifact, "load artifact", jsonPath,
                  "cubin: cannot read '" + cubinPath + "': " + why);
  }
  return fromMemory(std::move(jsonText), std::move(ptx), std::move(cubin),
                    jsonPath, link);
}

const Function &Module::function(std::string_view name) const {
  return Functions[&Info.function(name) - Info.Functions.data()];
}

/// Whether NVRTC's \p ptx defines a visible `float NAME(float)`-shaped
/// function \p symbol: `.visible .func (.param .b32 func_retval0) NAME(
/// .param .b32 NAME_param_0 )`. Returns "" when it does, else why not.
static std::string checkDefinition(const std::string &ptx,
                                   const std::string &symbol) {
  size_t pos = 0;
  while ((pos = ptx.find(".func", pos)) != std::string::npos) {
    size_t lineStart = ptx.rfind('\n', pos);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    size_t lineEnd = ptx.find('\n', pos);
    std::string line = ptx.substr(lineStart, lineEnd - lineStart);
    pos += 5;
    size_t name = line.find(symbol + "(");
    if (name == std::string::npos || name == 0 ||
        (line[name - 1] != ' ' && line[name - 1] != ')' &&
         line[name - 1] != '\t'))
      continue;
    if (line.rfind(".visible", 0) != 0 && line.rfind(".weak", 0) != 0)
      return "it is not externally visible (declare it extern \"C\" "
             "__device__, not static)";
    size_t close = ptx.find(')', lineStart + name + symbol.size());
    std::string params =
        ptx.substr(lineStart + name + symbol.size(),
                   close == std::string::npos ? 0
                                              : close - lineStart - name -
                                                    symbol.size());
    size_t count = 0;
    for (size_t p = params.find(".param"); p != std::string::npos;
         p = params.find(".param", p + 1))
      ++count;
    if (line.find(".param .b32 func_retval0") == std::string::npos ||
        count != 1 || params.find(".b32") == std::string::npos)
      return "it does not have the signature float(float)";
    return "";
  }
  return "its PTX defines no function '" + symbol +
         "' (declare it extern \"C\" __device__ float " + symbol +
         "(float x); C++ names are mangled)";
}

/// The artifact's PTX linked with the user's functions for the device
/// major.minor, as a cubin: each distinct source compiled by NVRTC
/// (-rdc=true --fmad=false), then the driver's JIT linker. Linked images are
/// kept in the disk cache under a key of the PTX, the sources, the arch and
/// the driver and NVRTC versions.
static std::string linkUserCode(const CudaApi &api, const Module &m, int major,
                                int minor, const std::string &deviceDesc) {
  const ArtifactInfo &info = m.info();
  const std::string &who = info.Source;
  const Chip &chip = info.TargetChip;
  // The artifact's arch-specific target when it is this device's (sm_90a),
  // else the device's own arch.
  std::string arch = chip.Suffix && chip.Major == major && chip.Minor == minor
                         ? chip.str()
                         : "sm_" + std::to_string(major * 10 + minor);
  int driver = 0;
  checkCu(api.cuDriverGetVersion(&driver), "cuDriverGetVersion", who);
  std::string symbols;
  for (const LinkSymbol &l : info.Link)
    symbols += (symbols.empty() ? "'" : ", '") + l.Symbol + "'";

  CacheKeyBuilder key;
  key.add("kind", "fpx-linked-cubin")
      .add("ptx", m.ptx())
      .add("arch", arch)
      .add("driver", std::to_string(driver))
      .add("nvrtc", nvrtcVersionString());
  for (const auto &[symbol, text] : m.linkSources())
    key.add("symbol", symbol).add("source", text);

  auto produce = [&]() -> std::string {
    // One NVRTC program per distinct source text (two symbols defined by one
    // source must not be linked twice).
    std::map<std::string, std::vector<std::string>> bySource;
    for (const auto &[symbol, text] : m.linkSources())
      bySource[text].push_back(symbol);
    std::vector<std::pair<std::string, std::string>> objects; // name, PTX
    for (const auto &[text, syms] : bySource) {
      std::string name = "fpx_link_" + syms.front() + ".cu";
      std::string ptx;
      try {
        ptx = compileCuda(text, arch, {"-rdc=true", "--fmad=false"}, name);
      } catch (const Error &e) {
        throw Error(e.code(), "link user code", who,
                    "compiling the CUDA source of '" + syms.front() +
                        "' for " + arch + " failed: " + e.what());
      }
      for (const std::string &symbol : syms)
        if (std::string why = checkDefinition(ptx, symbol); !why.empty())
          throw Error(ErrorCode::NotFound, "link user code", who,
                      "the CUDA source given for '" + symbol +
                          "' compiled, but " + why);
      objects.emplace_back(name, std::move(ptx));
    }

    JitLogs logs;
    CUlinkState state = nullptr;
    checkCu(api.cuLinkCreate(4, logs.Options, logs.Values, &state), "cuLinkCreate", who);
    struct Destroy {
      const CudaApi &Api;
      CUlinkState State;
      ~Destroy() { Api.cuLinkDestroy(State); }
    } destroy{api, state};
    auto check = [&](CUresult result, const char *call,
                     const std::string &what) {
      if (result == CUDA_SUCCESS)
        return;
      checkCu(result, call, who, logs.withLogs(what + " on " + deviceDesc));
    };
    std::string ptx = m.ptx();
    check(api.cuLinkAddData(state, CU_JIT_INPUT_PTX, ptx.data(), ptx.size() + 1,
                            info.PtxFile.c_str(), 0, nullptr, nullptr),
          "cuLinkAddData", "while adding the PTX " + info.PtxFile);
    for (auto &[name, objectPtx] : objects)
      check(api.cuLinkAddData(state, CU_JIT_INPUT_PTX, objectPtx.data(),
                              objectPtx.size() + 1, name.c_str(), 0, nullptr,
                              nullptr),
            "cuLinkAddData", "while adding the user code " + name);
    void *image = nullptr;
    size_t size = 0;
    check(api.cuLinkComplete(state, &image, &size), "cuLinkComplete",
          "while linking " + info.PtxFile + " with the user functions " +
              symbols + " (the artifact's link list)");
    return std::string(static_cast<const char *>(image), size);
  };
  try {
    return DiskCache::global().getOrCreate(key.key(), produce);
  } catch (const Error &e) {
    if (e.code() != ErrorCode::CacheError)
      throw;
    return produce(); // an unusable cache must not stop a launch
  }
}

/// Loads the artifact into \p ctx (which must be current): picks the cubin
/// when it matches the device, else JITs the PTX with the logs captured.
static LoadedModule loadInto(const CudaApi &api, const Module &m,
                             CUcontext ctx) {
  const ArtifactInfo &info = m.info();
  const std::string &who = info.Source;
  LoadedModule lm;
  lm.Context = ctx;
  lm.ContextId = contextId(api, ctx);
  checkCu(api.cuCtxGetDevice(&lm.Device), "cuCtxGetDevice", who);
  int major = 0, minor = 0;
  checkCu(api.cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, lm.Device),
          "cuDeviceGetAttribute", who);
  checkCu(api.cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, lm.Device),
          "cuDeviceGetAttribute", who);
  int sms = 0;
  checkCu(api.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, lm.Device),
          "cuDeviceGetAttribute", who);
  lm.SmCount = sms;
  char deviceName[256] = {0};
  api.cuDeviceGetName(deviceName, sizeof(deviceName) - 1, lm.Device);
  std::string deviceDesc = std::string(deviceName) + " (sm_" +
                           std::to_string(major * 10 + minor) + ")";

  const Chip &chip = info.TargetChip;
  lm.FromCubin = !m.cubin().empty() && chip.runsOn(major, minor, false);
  if (!lm.FromCubin) {
    if (m.ptx().empty() || !chip.runsOn(major, minor, true))
      throw Error(ErrorCode::WrongArchitecture, "load module", who,
                  "the artifact targets " + info.Target + " but the device is " +
                      deviceDesc + "; compile the spec for this device "
                      "(fpxc --target=sm_" + std::to_string(major * 10 + minor) +
                      (major >= 9 ? "a" : "") + ")");
    int driver = 0;
    checkCu(api.cuDriverGetVersion(&driver), "cuDriverGetVersion", who);
    std::optional<int> needed = minDriverForPtx(info.PtxVersion);
    if (needed && driver < *needed)
      throw Error(ErrorCode::DriverTooOld, "load module", who,
                  "PTX ISA " + info.PtxVersion + " needs a CUDA " +
                      std::to_string(*needed / 1000) + "." +
                      std::to_string(*needed % 1000 / 10) +
                      " driver, this driver supports CUDA " +
                      std::to_string(driver / 1000) + "." +
                      std::to_string(driver % 1000 / 10) +
                      "; update the driver or ship a cubin");
  }

  std::string linked;
  if (!info.Link.empty()) {
    linked = linkUserCode(api, m, major, minor, deviceDesc);
    lm.Linked = true;
  }

  JitLogs logs;
  const void *image = lm.Linked ? static_cast<const void *>(linked.data())
                      : lm.FromCubin
                          ? static_cast<const void *>(m.cubin().data())
                          : static_cast<const void *>(m.ptx().c_str());
  CUresult result =
      api.cuModuleLoadDataEx(&lm.Handle, image, 4, logs.Options, logs.Values);
  if (result != CUDA_SUCCESS) {
    std::string detail = std::string("while loading the ") +
                         (lm.Linked     ? "linked image of " + info.PtxFile
                          : lm.FromCubin ? "cubin " + info.CubinFile
                                         : "PTX " + info.PtxFile) +
                         " on " + deviceDesc;
    checkCu(result, "cuModuleLoadDataEx", who, logs.withLogs(detail));
  }
  try {
    for (const KernelInfo &kernel : info.Kernels) {
      CUfunction fn = nullptr;
      checkCu(api.cuModuleGetFunction(&fn, lm.Handle, kernel.Name.c_str()),
              "cuModuleGetFunction", kernel.Name,
              "the module " + who + " has no such entry");
      int limit = static_cast<int>(kernel.SharedBytes);
      if (!kernel.SharedExpr.empty()) {
        int optin = 0, fixed = 0;
        checkCu(api.cuDeviceGetAttribute(
                    &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                    lm.Device),
                "cuDeviceGetAttribute", kernel.Name,
                "asking for the per-block shared memory maximum");
        checkCu(api.cuFuncGetAttribute(&fixed, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn),
                "cuFuncGetAttribute", kernel.Name,
                "asking for the kernel's static shared memory");
        limit = std::max(0, optin - fixed);
      }
      if (limit > 48 * 1024)
        checkCu(api.cuFuncSetAttribute(
                    fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, limit),
                "cuFuncSetAttribute", kernel.Name,
                "requesting " + std::to_string(limit) +
                    " bytes of dynamic shared memory");
      lm.Kernels.push_back(fn);
      lm.SharedLimit.push_back(limit);
    }
  } catch (...) {
    api.cuModuleUnload(lm.Handle);
    throw;
  }
  return lm;
}

/// The module's state for \p ctx, loading it on first use.
static const LoadedModule &loadedFor(const CudaApi &api, const Module &m,
                                     Module::Impl &state, CUcontext ctx) {
  unsigned long long id = contextId(api, ctx);
  std::lock_guard<std::mutex> lock(state.Mutex);
  for (const LoadedModule &lm : state.Loaded)
    if (lm.ContextId == id)
      return lm;
  ContextScope scope(api, ctx, m.info().Source);
  state.Loaded.push_back(loadInto(api, m, ctx));
  return state.Loaded.back();
}

CUfunction Module::kernel(unsigned kernelIndex, CUcontext ctx) const {
  const CudaApi &api = CudaApi::driver();
  if (kernelIndex >= Info.Kernels.size())
    throw Error(ErrorCode::NotFound, "Module::kernel", Info.Source,
                "kernel index " + std::to_string(kernelIndex) + " out of range");
  ctx = contextOf(api, nullptr, ctx, Info.Source);
  return loadedFor(api, *this, *State, ctx).Kernels[kernelIndex];
}

std::string Module::preload(CUcontext ctx) const {
  const CudaApi &api = CudaApi::driver();
  ctx = contextOf(api, nullptr, ctx, Info.Source);
  const LoadedModule &lm = loadedFor(api, *this, *State, ctx);
  return lm.Linked ? "linked" : lm.FromCubin ? "cubin" : "ptx";
}

size_t Module::loadedContexts() const {
  std::lock_guard<std::mutex> lock(State->Mutex);
  return State->Loaded.size();
}

const char *version() { return FPX_VERSION; }

std::string deviceChip(CUcontext ctx) {
  const CudaApi &api = CudaApi::driver();
  ctx = contextOf(api, nullptr, ctx, "deviceChip");
  ContextScope scope(api, ctx, "deviceChip");
  CUdevice dev;
  checkCu(api.cuCtxGetDevice(&dev), "cuCtxGetDevice", "");
  int major = 0, minor = 0;
  checkCu(api.cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
          "cuDeviceGetAttribute", "");
  checkCu(api.cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
          "cuDeviceGetAttribute", "");
  return "sm_" + std::to_string(major * 10 + minor);
}

//===----------------------------------------------------------------------===//
// Function
//===----------------------------------------------------------------------===//

namespace {
[[noreturn]] void badArgument(const FunctionInfo &fn, const std::string &why) {
  throw Error(ErrorCode::InvalidArgument, "launch", fn.Name, why);
}

void checkPointer(const FunctionInfo &fn, const TensorInfo &spec,
                  const TensorRef &t, const char *role) {
  if (t.Data % kTensorAlignment != 0)
    badArgument(fn, std::string(role) + " '" + spec.Name + "' at 0x" +
                        [&] {
                          char buf[32];
                          std::snprintf(buf, sizeof(buf), "%llx",
                                        (unsigned long long)t.Data);
                          return std::string(buf);
                        }() +
                        " is not 16-byte aligned (fpx kernels use vector "
                        "loads; pass a fresh or .contiguous() tensor)");
  if (t.Data == 0 && t.numel() != 0)
    badArgument(fn, std::string(role) + " '" + spec.Name +
                        "' has a null data pointer");
  if (t.HasStrides) {
    int64_t expected = 1;
    for (int d = t.Rank - 1; d >= 0; --d) {
      if (t.Shape[d] != 1 && t.Strides[d] != expected)
        badArgument(fn, std::string(role) + " '" + spec.Name +
                            "' is not contiguous (strides " +
                            shapeString(t.Strides, t.Rank) + " for shape " +
                            shapeString(t.Shape, t.Rank) +
                            "); call .contiguous() first");
      expected *= t.Shape[d];
    }
  }
}

/// Writes \p value converted to \p type into \p slot, range-checked.
/// (\p what names the value, built only for the error: launches are hot.)
template <typename Describe>
void storeInteger(const FunctionInfo &fn, const Describe &what,
                  ParamType type, int64_t value, void *slot) {
  auto outOfRange = [&] {
    badArgument(fn, what() + " = " + std::to_string(value) +
                        " does not fit the kernel parameter type " +
                        paramTypeName(type));
  };
  switch (type) {
  case ParamType::I32: {
    if (value < INT32_MIN || value > INT32_MAX)
      outOfRange();
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(slot, &v, 4);
    break;
  }
  case ParamType::U32: {
    if (value < 0 || value > static_cast<int64_t>(UINT32_MAX))
      outOfRange();
    uint32_t v = static_cast<uint32_t>(value);
    std::memcpy(slot, &v, 4);
    break;
  }
  case ParamType::U64:
    if (value < 0)
      outOfRange();
    [[fallthrough]];
  case ParamType::I64:
    std::memcpy(slot, &value, 8);
    break;
  case ParamType::F32: {
    float v = static_cast<float>(value);
    std::memcpy(slot, &v, 4);
    break;
  }
  case ParamType::F64: {
    double v = static_cast<double>(value);
    std::memcpy(slot, &v, 8);
    break;
  }
  case ParamType::Ptr:
  case ParamType::TensorMap:
    outOfRange();
  }
}
} // namespace

std::vector<std::vector<int64_t>>
Function::outputShapes(const std::vector<std::vector<int64_t>> &inputShapes) const {
  const FunctionInfo &fn = *Info;
  std::vector<const int64_t *> shapes;
  std::vector<int> ranks;
  for (const std::vector<int64_t> &s : inputShapes) {
    shapes.push_back(s.data());
    ranks.push_back(static_cast<int>(s.size()));
  }
  int64_t values[kMaxSymbols] = {};
  CallInputs call;
  call.Shapes = shapes.data();
  call.Ranks = ranks.data();
  call.Count = inputShapes.size();
  std::string why = checkCall(fn, call, values, /*withRequires=*/false);
  if (!why.empty())
    badArgument(fn, why);
  std::vector<std::vector<int64_t>> out;
  for (const TensorInfo &o : fn.Outputs) {
    std::vector<int64_t> shape;
    for (const Expr &e : o.Shape) {
      int64_t size = e.eval(values);
      if (size < 0)
        badArgument(fn, "output '" + o.Name + "' would have a negative "
                        "dimension (" + e.text() + " = " +
                        std::to_string(size) + ")");
      shape.push_back(size);
    }
    out.push_back(std::move(shape));
  }
  return out;
}

std::vector<int64_t> Function::bindSymbols(const TensorRef *inputs,
                                           size_t numInputs) const {
  const int64_t *shapes[kMaxSymbols];
  int ranks[kMaxSymbols];
  DType types[kMaxSymbols];
  if (numInputs > kMaxSymbols)
    badArgument(*Info, "too many inputs");
  for (size_t i = 0; i < numInputs; ++i) {
    shapes[i] = inputs[i].Shape;
    ranks[i] = inputs[i].Rank;
    types[i] = inputs[i].Type;
  }
  std::vector<int64_t> values(std::max<unsigned>(Info->Symbols.size(), 1));
  std::string why = checkCall(*Info, {shapes, ranks, types, numInputs},
                              values.data(), /*withRequires=*/false);
  if (!why.empty())
    badArgument(*Info, why);
  values.resize(Info->Symbols.size());
  return values;
}

unsigned Function::scalarIndex(std::string_view name) const {
  for (unsigned i = 0; i < Info->Scalars.size(); ++i)
    if (Info->Scalars[i].Name == name)
      return i;
  throw Error(ErrorCode::NotFound, "find scalar", Info->Name,
              "no scalar named '" + std::string(name) + "'");
}

void Function::launch(CUstream stream, const std::vector<TensorRef> &inputs,
                      const std::vector<TensorRef> &outputs,
                      const std::vector<Scalar> &scalars,
                      const LaunchOptions &options) const {
  launch(stream, inputs.data(), inputs.size(), outputs.data(), outputs.size(),
         scalars.data(), scalars.size(), options);
}

void Function::launch(CUstream stream, const TensorRef *inputs,
                      size_t numInputs, const TensorRef *outputs,
                      size_t numOutputs, const Scalar *scalars,
                      size_t numScalars, const LaunchOptions &options) const {
  const FunctionInfo &fn = *Info;
  // Shapes first: argument errors must not depend on having a GPU.
  const int64_t *shapes[kMaxSymbols];
  int ranks[kMaxSymbols];
  DType types[kMaxSymbols];
  if (numInputs > kMaxSymbols)
    badArgument(fn, "too many inputs");
  for (size_t i = 0; i < numInputs; ++i) {
    shapes[i] = inputs[i].Shape;
    ranks[i] = inputs[i].Rank;
    types[i] = inputs[i].Type;
  }
  int64_t values[kMaxSymbols] = {};
  // The contract's checks, as accepts() runs them (fpx/Runtime/Accept.h).
  std::string why = checkCall(fn, {shapes, ranks, types, numInputs}, values);
  if (!why.empty())
    badArgument(fn, why);

  if (numOutputs != fn.Outputs.size())
    badArgument(fn, "expected " + std::to_string(fn.Outputs.size()) +
                        " output tensors, got " + std::to_string(numOutputs));
  for (size_t i = 0; i < numOutputs; ++i) {
    const TensorInfo &spec = fn.Outputs[i];
    const TensorRef &t = outputs[i];
    if (t.Type != spec.Type)
      badArgument(fn, "output '" + spec.Name + "' must have dtype " +
                          dtypeName(spec.Type) + ", got " + dtypeName(t.Type));
    bool ok = t.Rank == static_cast<int>(spec.Shape.size());
    for (int d = 0; ok && d < t.Rank; ++d)
      ok = t.Shape[d] == spec.Shape[d].eval(values);
    if (!ok) {
      std::string expected = "[";
      for (size_t d = 0; d < spec.Shape.size(); ++d)
        expected += (d ? ", " : "") + std::to_string(spec.Shape[d].eval(values));
      badArgument(fn, "output '" + spec.Name + "' must have shape " +
                          expected + "], got " + shapeString(t.Shape, t.Rank));
    }
  }
  if (!options.SkipPointerChecks) {
    for (size_t i = 0; i < numInputs; ++i)
      checkPointer(fn, fn.Inputs[i], inputs[i], "input");
    for (size_t i = 0; i < numOutputs; ++i)
      checkPointer(fn, fn.Outputs[i], outputs[i], "output");
  }
  if (numScalars > fn.Scalars.size())
    badArgument(fn, "expected at most " + std::to_string(fn.Scalars.size()) +
                        " scalars, got " + std::to_string(numScalars));
  for (size_t i = numScalars; i < fn.Scalars.size(); ++i)
    if (!fn.Scalars[i].hasDefault())
      badArgument(fn, "scalar '" + fn.Scalars[i].Name +
                          "' has no default and was not given");
  for (size_t i = 0; i < numScalars; ++i)
    if (scalars[i].IsFloat && isIntegerParam(fn.Scalars[i].Type))
      badArgument(fn, "scalar '" + fn.Scalars[i].Name + "' is an integer (" +
                          paramTypeName(fn.Scalars[i].Type) +
                          "), got a floating-point value");

  const CudaApi &api = CudaApi::driver();
  CUcontext ctx = contextOf(api, stream, nullptr, fn.Name);
  const LoadedModule &lm = loadedFor(api, *Owner, *Owner->State, ctx);
  ContextScope scope(api, ctx, fn.Name);

  TempBuffers temps(api, stream);
  CUdeviceptr tempPtrs[kMaxSymbols] = {};
  if (!fn.Temps.empty()) {
    // Kept-zero temps share one kept buffer (256-byte aligned pieces).
    size_t tempBytes[kMaxSymbols] = {}, keptBytes = 0;
    for (size_t i = 0; i < fn.Temps.size(); ++i) {
      int64_t count = 1;
      for (const Expr &e : fn.Temps[i].Shape)
        count *= e.eval(values);
      tempBytes[i] = static_cast<size_t>(count) * dtypeSize(fn.Temps[i].Type);
      if (fn.Temps[i].KeptZero)
        keptBytes += (tempBytes[i] + 255) / 256 * 256;
    }
    CUdeviceptr kept =
        keptBytes ? keptZeroBuffers().get(api, ctx, stream, keptBytes, fn.Name) : 0;
    CUmemoryPool pool = options.AllocateTemp
                            ? CUmemoryPool{}
                            : devicePools().get(api, lm.Device, fn.Name);
    for (size_t i = 0; i < fn.Temps.size(); ++i) {
      const TensorInfo &spec = fn.Temps[i];
      size_t bytes = tempBytes[i];
      if (spec.KeptZero && kept) {
        tempPtrs[i] = bytes ? kept : 0;
        kept += (bytes + 255) / 256 * 256;
        continue;
      }
      tempPtrs[i] = options.AllocateTemp ? options.AllocateTemp(bytes)
                                         : temps.allocate(pool, bytes, fn.Name);
      if (spec.ZeroInit && bytes)
        checkCu(api.cuMemsetD8Async(tempPtrs[i], 0, bytes, stream),
                "cuMemsetD8Async", fn.Name, "clearing temp '" + spec.Name + "'");
    }
  }

  for (size_t i = 0; i < numOutputs; ++i) {
    if (!fn.Outputs[i].ZeroInit)
      continue;
    size_t bytes = static_cast<size_t>(outputs[i].numel()) * dtypeSize(fn.Outputs[i].Type);
    if (bytes)
      checkCu(api.cuMemsetD8Async(outputs[i].Data, 0, bytes, stream),
              "cuMemsetD8Async", fn.Name,
              "clearing output '" + fn.Outputs[i].Name + "'");
  }

  if (fn.SmCount)
    values[*fn.SmCount] = lm.SmCount;
  uint64_t slots[kMaxParams];
  void *params[kMaxParams];
  CUtensorMap maps[kMaxTensorMaps]; // `tensor_map` arguments, by value
  for (const LaunchInfo &launch : fn.Launches) {
    const KernelInfo &kernel = Owner->Info.Kernels[launch.Kernel];
    unsigned grid[3];
    bool empty = false;
    for (int d = 0; d < 3; ++d) {
      int64_t g = launch.Grid[d].eval(values);
      int64_t limit = d == 0 ? INT32_MAX : 65535;
      if (g < 0 || g > limit)
        throw Error(ErrorCode::InvalidArgument, "launch", kernel.Name,
                    "grid dimension " + std::to_string(d) + " = " +
                        std::to_string(g) + " (" + launch.Grid[d].text() +
                        ") is outside [0, " + std::to_string(limit) + "]");
      empty |= g == 0;
      grid[d] = static_cast<unsigned>(g);
    }
    if (empty)
      continue; // an empty tensor: nothing to launch
    int64_t shared = kernel.SharedBytes;
    if (launch.Shared) {
      shared = launch.Shared->eval(values);
      if (shared < 0 || shared > lm.SharedLimit[launch.Kernel])
        throw Error(ErrorCode::InvalidArgument, "launch", kernel.Name,
                    "these shapes need " + std::to_string(shared) +
                        " bytes of shared memory a block (" +
                        launch.Shared->text() + ") where this device allows " +
                        std::to_string(lm.SharedLimit[launch.Kernel]) +
                        ", function '" + fn.Name + "'");
    }
    for (size_t a = 0; a < launch.Args.size(); ++a) {
      const LaunchArg &arg = launch.Args[a];
      const KernelParam &param = kernel.Params[a];
      void *slot = &slots[a];
      params[a] = slot;
      switch (arg.Source) {
      case ArgSource::Input:
        std::memcpy(slot, &inputs[arg.Index].Data, 8);
        break;
      case ArgSource::Output:
        std::memcpy(slot, &outputs[arg.Index].Data, 8);
        break;
      case ArgSource::Temp:
        std::memcpy(slot, &tempPtrs[arg.Index], 8);
        break;
      case ArgSource::Symbol:
        storeInteger(fn, [&] { return "shape symbol '" + fn.Symbols.name(arg.Index) + "'"; },
                     param.Type, values[arg.Index], slot);
        break;
      case ArgSource::Expr:
        storeInteger(fn, [&] { return "argument '" + launch.ArgExprs[arg.Index].text() + "'"; },
                     param.Type, launch.ArgExprs[arg.Index].eval(values), slot);
        break;
      case ArgSource::TensorMap: {
        const TensorMapArg &tm = launch.TensorMaps[arg.Index];
        CUdeviceptr address = 0;
        uint64_t bytes = 0;
        if (tm.Tensor == ArgSource::Temp) {
          address = tempPtrs[tm.Index];
          bytes = dtypeSize(tm.Type);
          for (const Expr &e : fn.Temps[tm.Index].Shape)
            bytes *= static_cast<uint64_t>(e.eval(values));
        } else {
          const TensorRef &t = tm.Tensor == ArgSource::Input ? inputs[tm.Index]
                                                             : outputs[tm.Index];
          address = t.Data;
          bytes = static_cast<uint64_t>(t.numel()) * dtypeSize(tm.Type);
        }
        encodeTensorMap(tensorMapEncoding(tm, values, bytes, kernel.Name), address,
                        &maps[arg.Index], kernel.Name);
        params[a] = &maps[arg.Index];
        break;
      }
      case ArgSource::Scalar: {
        const ScalarInfo &spec = fn.Scalars[arg.Index];
        Scalar value;
        if (arg.Index < numScalars)
          value = scalars[arg.Index];
        else if (spec.DefaultInt)
          value = Scalar(*spec.DefaultInt);
        else
          value = Scalar(*spec.DefaultFloat);
        if (isFloatParam(param.Type) && value.IsFloat) {
          if (param.Type == ParamType::F32) {
            float v = static_cast<float>(value.Float);
            std::memcpy(slot, &v, 4);
          } else {
            std::memcpy(slot, &value.Float, 8);
          }
        } else {
          storeInteger(fn, [&] { return "scalar '" + spec.Name + "'"; }, param.Type, value.Int,
                       slot);
        }
        break;
      }
      }
    }
    CUresult result = api.cuLaunchKernel(
        lm.Kernels[launch.Kernel], grid[0], grid[1], grid[2], kernel.Block[0],
        kernel.Block[1], kernel.Block[2], static_cast<unsigned>(shared), stream, params,
        nullptr);
    if (result != CUDA_SUCCESS)
      checkCu(result, "cuLaunchKernel", kernel.Name,
              "grid [" + std::to_string(grid[0]) + ", " +
                  std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
                  "], block [" + std::to_string(kernel.Block[0]) + ", " +
                  std::to_string(kernel.Block[1]) + ", " +
                  std::to_string(kernel.Block[2]) + "], " +
                  std::to_string(shared) +
                  " bytes of dynamic shared memory, function '" + fn.Name +
                  "'");
  }
}

} // namespace fpx::rt
