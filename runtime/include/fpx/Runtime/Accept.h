//===- Accept.h - Whether a function accepts a call -------------*- C++ -*-===//
//
// The artifact contract's checks on a call's inputs (docs/artifact.md,
// "Functions"): the input count, dtypes and ranks, the shape symbols the
// inputs bind and their agreement, literal and derived dimensions, and the
// function's `requires`. Function::launch runs checkCall() before any GPU
// call and raises its reason as InvalidArgument; accepts() runs the same
// code and answers with a verdict instead. Both read the metadata only (no
// GPU, no driver), so a caller choosing between a kernel and a fallback (the
// Python package's AOT bundles) and the launch cannot disagree.
//
//   const FunctionInfo &fn = *info.findFunction("dequantize");
//   Verdict v = accepts(fn, {{256, 512}, {256, 16}});
//   if (!v) use_the_fallback(v.Reason);  // e.g. "K must be a multiple of 32"
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_ACCEPT_H
#define FPX_RUNTIME_ACCEPT_H

#include "fpx/Runtime/Artifact.h"
#include "fpx/Runtime/DType.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::rt {

/// Most shape symbols a function may have: a launch binds them into a fixed
/// array (Module refuses artifacts with more).
constexpr unsigned kMaxSymbols = 64;

/// A call's tensor inputs as the contract sees them: views into the caller's
/// storage, no heap.
struct CallInputs {
  const int64_t *const *Shapes = nullptr; ///< one shape per input
  const int *Ranks = nullptr;             ///< one rank per input
  const DType *Types = nullptr;           ///< null: dtypes are not checked
  size_t Count = 0;
  /// Count may be less than the function's inputs: these are its leading
  /// ones (a caller deciding before it has built the others). What they
  /// determine is checked; a dimension or requirement over a symbol that
  /// only a later input binds refuses the call.
  bool Leading = false;
};

/// Checks \p call against \p fn's contract, in this order: the input count;
/// per input its dtype, rank, and the symbols its bare dimensions bind (a
/// symbol bound twice must agree); then every literal and derived input
/// dimension; then, when \p withRequires, fn.Requires. Binds the symbols
/// into \p values (fn.Symbols.size() entries at least). Returns an empty
/// string when the call is accepted, else why not: the cause that launch()
/// raises. An expression that overflows throws Error(InvalidArgument), as
/// at launch.
std::string checkCall(const FunctionInfo &fn, const CallInputs &call,
                      int64_t *values, bool withRequires = true);

/// A shape as messages print it: "[3, 100]".
std::string shapeString(const int64_t *shape, int rank);

/// accepts()' answer.
struct Verdict {
  bool Accepted = false;
  /// Why not (empty when accepted): the cause launch() would raise.
  std::string Reason;
  explicit operator bool() const { return Accepted; }
};

/// Whether \p fn accepts inputs of these shapes and, when \p types is not
/// empty, these dtypes (one per shape). With \p leading, \p shapes may give
/// only the leading inputs (CallInputs::Leading). Throws nothing for a call
/// it refuses: an expression that overflows is a reason too.
Verdict accepts(const FunctionInfo &fn,
                const std::vector<std::vector<int64_t>> &shapes,
                const std::vector<DType> &types = {}, bool leading = false);

/// The same for the function called \p function of \p artifact; throws
/// Error(NotFound) listing the functions when there is none.
Verdict accepts(const ArtifactInfo &artifact, std::string_view function,
                const std::vector<std::vector<int64_t>> &shapes,
                const std::vector<DType> &types = {}, bool leading = false);

} // namespace fpx::rt

#endif // FPX_RUNTIME_ACCEPT_H
