//===- Artifact.h - The compiler -> runtime contract ------------*- C++ -*-===//
//
// An artifact is NAME.json + NAME.ptx (+ optional NAME.cubin) in one
// directory, written by fpxc and described in docs/artifact.md. This header
// holds its parsed, validated metadata; nothing here touches CUDA, so it is
// unit-tested on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_ARTIFACT_H
#define FPX_RUNTIME_ARTIFACT_H

#include "fpx/Runtime/DType.h"
#include "fpx/Runtime/Expr.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::rt {

/// The metadata format this runtime reads.
constexpr std::string_view kArtifactFormat = "fpx-artifact";
constexpr int kArtifactVersion = 1;

/// A GPU architecture as the artifact names it: "sm_90a" -> {9, 0, 'a'}.
struct Chip {
  int Major = 0;
  int Minor = 0;
  char Suffix = 0; ///< 0, 'a' (this exact arch) or 'f' (this family)

  /// Parses "sm_XY", "sm_XYa", "sm_XYf" (also "compute_" spellings).
  static std::optional<Chip> parse(std::string_view text);
  std::string str() const;
  /// Whether code built for this chip (as PTX when \p ptx, else as SASS)
  /// runs on a device of compute capability major.minor.
  bool runsOn(int devMajor, int devMinor, bool ptx) const;
};

/// One kernel parameter as the PTX entry declares it.
struct KernelParam {
  std::string Name;
  ParamType Type;
};

/// One `.entry` of the PTX module.
struct KernelInfo {
  std::string Name;
  std::array<uint32_t, 3> Block = {1, 1, 1};
  std::array<std::string, 3> Grid; ///< expression texts
  uint32_t SharedBytes = 0;        ///< dynamic shared memory (a constant)
  /// Or an expression over shape symbols (text), evaluated at launch: the
  /// runtime then allows the kernel up to the device's per-block maximum.
  std::string SharedExpr;
  std::vector<KernelParam> Params;
};

/// A tensor a function reads, writes or uses as scratch.
struct TensorInfo {
  std::string Name;
  DType Type;
  std::vector<Expr> Shape;
  bool ZeroInit = false; ///< temps and outputs: cleared before the first launch
  /// Temps ("init": "kept_zero"): zero at launch, and the function's kernels
  /// leave it zero, so the runtime keeps one cleared once (no memset a launch).
  bool KeptZero = false;
};

/// A scalar argument of a function, with an optional default.
struct ScalarInfo {
  std::string Name;
  ParamType Type;
  std::optional<double> DefaultFloat;
  std::optional<int64_t> DefaultInt;
  bool hasDefault() const { return DefaultFloat || DefaultInt; }
};

/// Where a launch argument comes from.
enum class ArgSource : uint8_t { Input, Output, Temp, Scalar, Symbol, Expr, TensorMap };

struct LaunchArg {
  ArgSource Source;
  unsigned Index; ///< into inputs/outputs/temps/scalars, the symbol table,
                  ///< LaunchInfo::ArgExprs or LaunchInfo::TensorMaps
};

/// The most `tensor_map` arguments a launch takes.
constexpr unsigned kMaxTensorMaps = 8;

/// A `tensor_map` argument: a TMA descriptor (CUtensorMap) the runtime
/// encodes at launch (cuTensorMapEncodeTiled) over a dense row-major view
/// of a tensor's buffer. Dims[0] is the innermost (contiguous) dimension;
/// the byte stride of dimension d is the product of Dims[0..d) times the
/// element size. Loads past the dims are zero-filled.
struct TensorMapArg {
  ArgSource Tensor; ///< Input, Output or Temp
  unsigned Index;   ///< into that list
  DType Type;       ///< the tensor's element type
  std::vector<Expr> Dims; ///< 1 to 5 extents in elements, innermost first
  std::vector<uint32_t> Box; ///< the box a copy moves, elements per dim (1..256)
  uint32_t Swizzle = 0; ///< shared-memory swizzle in bytes: 0, 32, 64 or 128
};

/// One kernel launch of a function, in order.
struct LaunchInfo {
  unsigned Kernel; ///< index into ArtifactInfo::Kernels
  std::vector<LaunchArg> Args;
  std::array<Expr, 3> Grid; ///< the kernel's grid over this function's symbols
  /// The kernel's dynamic shared memory over this function's symbols, when
  /// KernelInfo::SharedExpr gives one.
  std::optional<Expr> Shared;
  std::vector<Expr> ArgExprs; ///< integer arguments given as expressions
  std::vector<TensorMapArg> TensorMaps; ///< `tensor_map` arguments
};

/// A precondition on the shapes: Value must evaluate to 0 (e.g. "K % 32").
struct Requirement {
  Expr Value;
  std::string Message;
};

/// Where a shape symbol is bound: dimension Dim of input Input.
struct SymbolBinding {
  unsigned Input;
  unsigned Dim;
};

/// A callable function: tensors in, tensors out, a sequence of launches.
struct FunctionInfo {
  std::string Name;
  std::vector<TensorInfo> Inputs;
  std::vector<ScalarInfo> Scalars;
  std::vector<TensorInfo> Outputs;
  std::vector<TensorInfo> Temps;
  std::vector<LaunchInfo> Launches;
  std::vector<Requirement> Requires;
  SymbolTable Symbols;
  /// Per symbol, the first input dimension that binds it.
  std::vector<SymbolBinding> Bindings;
  /// The symbol kSmCountSymbol where a launch's grid or shared memory uses
  /// it: the multiprocessor count of the device the launch runs on.
  std::optional<unsigned> SmCount;
};

/// A symbol that no input binds: launch expressions (grid, shared_bytes)
/// may use it for the launching device's multiprocessor count, e.g. a
/// persistent kernel's grid "min(rows, sm_count)".
inline constexpr const char *kSmCountSymbol = "sm_count";

/// A function the kernels call but do not define (e.g. a quantize
/// prologue): the runtime links it from user CUDA C++ at load time.
struct LinkSymbol {
  std::string Symbol;    ///< a C identifier (an extern "C" __device__ function)
  std::string Signature; ///< "float(float)"
};

/// The whole metadata record.
struct ArtifactInfo {
  std::string Source; ///< file it came from, for messages
  int Version = 0;
  std::string CompilerName;
  std::string CompilerVersion;
  std::string SpecHash;
  std::string Target;     ///< as written, e.g. "sm_90a"
  Chip TargetChip;
  std::string PtxVersion; ///< e.g. "8.0"
  std::string PtxFile;
  std::string CubinFile;  ///< empty when absent
  std::vector<KernelInfo> Kernels;
  std::vector<FunctionInfo> Functions;
  std::vector<LinkSymbol> Link; ///< empty: the PTX is self-contained
  /// The free-form "options" object as JSON text; empty when absent.
  std::string Options;

  /// Parses and validates the JSON text. Every error is an
  /// Error(InvalidArtifact) whose message names \p source and the field.
  static ArtifactInfo parse(std::string_view jsonText, std::string_view source);

  /// Reads and parses NAME.json alone (not the PTX or cubin it names), e.g.
  /// to look at an artifact's options or shapes without loading it. Throws
  /// Error(NotFound) when the file cannot be read, else as parse().
  static ArtifactInfo read(const std::string &jsonPath);

  const KernelInfo *findKernel(std::string_view name) const;
  const FunctionInfo *findFunction(std::string_view name) const;
  /// The function called \p name; throws Error(NotFound) listing the names.
  const FunctionInfo &function(std::string_view name) const;
};

/// The CUDA version (e.g. 12000) whose driver first JITs PTX ISA
/// \p ptxVersion ("8.0"); nullopt for versions this table does not know.
std::optional<int> minDriverForPtx(std::string_view ptxVersion);

} // namespace fpx::rt

#endif // FPX_RUNTIME_ARTIFACT_H
