//===- Accept.cpp - Whether a function accepts a call ---------------------===//
//
// The contract's checks on a call's inputs, shared by Function::launch (which
// raises the reason) and accepts() (which returns it). No CUDA here.
//
//===----------------------------------------------------------------------===//

#include "fpx/Runtime/Accept.h"
#include "fpx/Runtime/Error.h"

#include <algorithm>

namespace fpx::rt {

std::string shapeString(const int64_t *shape, int rank) {
  std::string out = "[";
  for (int i = 0; i < rank; ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

namespace {
/// With leading inputs only: the later input that binds a symbol \p e uses
/// and the given inputs left unbound, else null.
const TensorInfo *laterInput(const FunctionInfo &fn, const Expr &e,
                             const bool *bound) {
  for (unsigned sym : e.symbolsUsed())
    if (!bound[sym])
      return &fn.Inputs[fn.Bindings[sym].Input];
  return nullptr;
}
} // namespace

std::string checkCall(const FunctionInfo &fn, const CallInputs &call,
                      int64_t *values, bool withRequires) {
  size_t numInputs = call.Count;
  if (call.Leading ? numInputs > fn.Inputs.size()
                   : numInputs != fn.Inputs.size())
    return "expected " + std::to_string(fn.Inputs.size()) +
           " input tensors, got " + std::to_string(numInputs);
  if (fn.Symbols.size() > kMaxSymbols)
    return "function has more than " + std::to_string(kMaxSymbols) +
           " shape symbols";
  bool bound[kMaxSymbols] = {};
  for (size_t i = 0; i < numInputs; ++i) {
    const TensorInfo &spec = fn.Inputs[i];
    const int64_t *shape = call.Shapes[i];
    int rank = call.Ranks[i];
    if (call.Types && call.Types[i] != spec.Type)
      return "input '" + spec.Name + "' must have dtype " +
             dtypeName(spec.Type) + ", got " + dtypeName(call.Types[i]);
    if (rank != static_cast<int>(spec.Shape.size()))
      return "input '" + spec.Name + "' must have rank " +
             std::to_string(spec.Shape.size()) + ", got shape " +
             shapeString(shape, rank);
    for (int d = 0; d < rank; ++d) {
      int64_t size = shape[d];
      if (size < 0)
        return "input '" + spec.Name + "' has a negative dimension";
      std::optional<unsigned> sym = spec.Shape[d].asSymbol();
      if (!sym)
        continue;
      if (!bound[*sym]) {
        bound[*sym] = true;
        values[*sym] = size;
      } else if (values[*sym] != size) {
        const SymbolBinding &first = fn.Bindings[*sym];
        return "shape symbol '" + fn.Symbols.name(*sym) + "' is " +
               std::to_string(values[*sym]) + " from input '" +
               fn.Inputs[first.Input].Name + "' dim " +
               std::to_string(first.Dim) + " but " + std::to_string(size) +
               " from input '" + spec.Name + "' dim " + std::to_string(d);
      }
    }
  }
  // Literal and derived dimensions, now that every symbol has a value.
  for (size_t i = 0; i < numInputs; ++i) {
    const TensorInfo &spec = fn.Inputs[i];
    const int64_t *shape = call.Shapes[i];
    int rank = call.Ranks[i];
    for (int d = 0; d < rank; ++d) {
      const Expr &dim = spec.Shape[d];
      if (dim.asSymbol())
        continue;
      if (call.Leading)
        if (const TensorInfo *later = laterInput(fn, dim, bound))
          return "input '" + spec.Name + "' dim " + std::to_string(d) + " (" +
                 dim.text() + ") needs the shape of input '" + later->Name +
                 "'";
      int64_t expected = dim.eval(values);
      if (shape[d] != expected)
        return "input '" + spec.Name + "' dim " + std::to_string(d) +
               " must be " + std::to_string(expected) + " (" + dim.text() +
               "), got shape " + shapeString(shape, rank);
    }
  }
  if (withRequires) {
    for (const Requirement &req : fn.Requires) {
      if (call.Leading)
        if (const TensorInfo *later = laterInput(fn, req.Value, bound))
          return "requirement '" + req.Value.text() + "' (" + req.Message +
                 ") needs the shape of input '" + later->Name + "'";
      if (req.Value.eval(values) != 0)
        return req.Message;
    }
  }
  return {};
}

Verdict accepts(const FunctionInfo &fn,
                const std::vector<std::vector<int64_t>> &shapes,
                const std::vector<DType> &types, bool leading) {
  if (!types.empty() && types.size() != shapes.size())
    return {false, std::to_string(shapes.size()) + " shapes but " +
                       std::to_string(types.size()) + " dtypes"};
  std::vector<const int64_t *> data;
  std::vector<int> ranks;
  for (const std::vector<int64_t> &s : shapes) {
    data.push_back(s.data());
    ranks.push_back(static_cast<int>(s.size()));
  }
  CallInputs call;
  call.Shapes = data.data();
  call.Ranks = ranks.data();
  call.Types = types.empty() ? nullptr : types.data();
  call.Count = shapes.size();
  call.Leading = leading;
  std::vector<int64_t> values(std::max<size_t>(fn.Symbols.size(), 1));
  try {
    std::string why = checkCall(fn, call, values.data());
    return {why.empty(), std::move(why)};
  } catch (const Error &e) { // an expression overflowed on these sizes
    return {false, e.cause() + " in '" + e.subject() + "'"};
  }
}

Verdict accepts(const ArtifactInfo &artifact, std::string_view function,
                const std::vector<std::vector<int64_t>> &shapes,
                const std::vector<DType> &types, bool leading) {
  return accepts(artifact.function(function), shapes, types, leading);
}

} // namespace fpx::rt
