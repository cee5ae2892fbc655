//===- Artifact.cpp - Parse and validate artifact metadata -------------------===//
//
// Validation happens once, here, so that a launch can trust the metadata:
// every name resolves, every argument matches its kernel parameter, every
// symbol an output, temp or grid uses is bound by an input shape.
//
//===----------------------------------------------------------------------===//

#include "fpx/Runtime/Artifact.h"
#include "fpx/Runtime/DiskCache.h"
#include "fpx/Runtime/Error.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <initializer_list>
#include <set>

namespace fpx::rt {

using json = nlohmann::json;

//===----------------------------------------------------------------------===//
// Target facts
//===----------------------------------------------------------------------===//

std::optional<Chip> Chip::parse(std::string_view text) {
  std::string_view rest;
  if (text.substr(0, 3) == "sm_")
    rest = text.substr(3);
  else if (text.substr(0, 8) == "compute_")
    rest = text.substr(8);
  else
    return std::nullopt;
  Chip chip;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    chip.Suffix = rest.back();
    rest.remove_suffix(1);
  }
  if (rest.size() < 2 || rest.size() > 3)
    return std::nullopt;
  int number = 0;
  for (char c : rest) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
    number = number * 10 + (c - '0');
  }
  chip.Major = number / 10;
  chip.Minor = number % 10;
  return chip;
}

std::string Chip::str() const {
  std::string out = "sm_" + std::to_string(Major * 10 + Minor);
  if (Suffix)
    out += Suffix;
  return out;
}

bool Chip::runsOn(int devMajor, int devMinor, bool ptx) const {
  if (Suffix == 'a')
    return devMajor == Major && devMinor == Minor;
  if (Suffix == 'f')
    return devMajor == Major && devMinor >= Minor;
  if (ptx)
    return devMajor > Major || (devMajor == Major && devMinor >= Minor);
  // SASS is compatible within a major version only.
  return devMajor == Major && devMinor >= Minor;
}

std::optional<int> minDriverForPtx(std::string_view ptxVersion) {
  // PTX ISA version -> first CUDA release (and so driver) that JITs it.
  static const std::pair<const char *, int> kTable[] = {
      {"7.0", 11000}, {"7.1", 11010}, {"7.2", 11020}, {"7.3", 11030},
      {"7.4", 11040}, {"7.5", 11050}, {"7.6", 11060}, {"7.7", 11070},
      {"7.8", 11080}, {"8.0", 12000}, {"8.1", 12010}, {"8.2", 12020},
      {"8.3", 12030}, {"8.4", 12040}, {"8.5", 12050}, {"8.6", 12070},
      {"8.7", 12080}, {"8.8", 12090}, {"9.0", 13000},
  };
  for (const auto &row : kTable)
    if (ptxVersion == row.first)
      return row.second;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// JSON reading helpers
//===----------------------------------------------------------------------===//

namespace {

/// Reads one artifact, tracking the JSON path for messages.
class Reader {
public:
  explicit Reader(std::string_view source) : Source(source) {}

  [[noreturn]] void fail(const std::string &path, const std::string &why) const {
    throw Error(ErrorCode::InvalidArtifact, "load artifact", Source,
                (path.empty() ? std::string() : path + ": ") + why);
  }

  const json &member(const json &object, const std::string &path,
                     const char *key) const {
    auto it = object.find(key);
    if (it == object.end())
      fail(path, std::string("missing field '") + key + "'");
    return *it;
  }

  void expectObject(const json &value, const std::string &path) const {
    if (!value.is_object())
      fail(path, "expected an object, got " + std::string(value.type_name()));
  }

  void expectArray(const json &value, const std::string &path) const {
    if (!value.is_array())
      fail(path, "expected an array, got " + std::string(value.type_name()));
  }

  /// Rejects keys outside \p allowed: a typo in a field name must not be
  /// silently ignored.
  void onlyKeys(const json &object, const std::string &path,
                std::initializer_list<const char *> allowed) const {
    for (auto it = object.begin(); it != object.end(); ++it) {
      bool known = false;
      for (const char *key : allowed)
        known |= it.key() == key;
      if (!known)
        fail(path, "unknown field '" + it.key() + "'");
    }
  }

  std::string string(const json &object, const std::string &path,
                     const char *key) const {
    const json &value = member(object, path, key);
    if (!value.is_string())
      fail(join(path, key), "expected a string, got " +
                                std::string(value.type_name()));
    return value.get<std::string>();
  }

  int64_t integer(const json &value, const std::string &path) const {
    if (!value.is_number_integer())
      fail(path, "expected an integer, got " +
                     (value.is_number() ? value.dump()
                                        : std::string(value.type_name())));
    return value.get<int64_t>();
  }

  /// An expression field: a string, or an integer written as a number.
  std::string exprText(const json &value, const std::string &path) const {
    if (value.is_string())
      return value.get<std::string>();
    if (value.is_number_integer())
      return std::to_string(value.get<int64_t>());
    fail(path, "expected an integer expression (string or integer), got " +
                   std::string(value.type_name()));
  }

  DType dtype(const json &object, const std::string &path) const {
    std::string word = string(object, path, "dtype");
    std::optional<DType> type = parseDType(word);
    if (!type)
      fail(join(path, "dtype"),
           "unknown dtype '" + word +
               "' (known: f32, bf16, f16, f8e4m3fn, f8e5m2, f8e8m0fnu, i8, "
               "u8, i32, i64)");
    return *type;
  }

  ParamType paramType(const json &object, const std::string &path,
                      bool allowPtr) const {
    std::string word = string(object, path, "type");
    std::optional<ParamType> type = parseParamType(word);
    if (!type || (!allowPtr && (*type == ParamType::Ptr ||
                                *type == ParamType::TensorMap)))
      fail(join(path, "type"),
           "unknown type '" + word + "' (known: " +
               (allowPtr ? "ptr, tensor_map, " : "") +
               "i32, i64, u32, u64, f32, f64)");
    return *type;
  }

  static std::string join(const std::string &path, const char *key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string index(const std::string &path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }

  std::string Source;
};

bool isIdentifier(std::string_view name) {
  if (name.empty() ||
      !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
          c == '$'))
      return false;
  return true;
}

KernelInfo readKernel(const Reader &r, const json &value,
                      const std::string &path) {
  r.expectObject(value, path);
  r.onlyKeys(value, path,
             {"name", "block", "grid", "shared_bytes", "params"});
  KernelInfo kernel;
  kernel.Name = r.string(value, path, "name");
  if (!isIdentifier(kernel.Name))
    r.fail(Reader::join(path, "name"),
           "'" + kernel.Name + "' is not a valid PTX entry name");

  std::string blockPath = Reader::join(path, "block");
  const json &block = r.member(value, path, "block");
  r.expectArray(block, blockPath);
  if (block.size() != 3)
    r.fail(blockPath, "expected 3 entries, got " + std::to_string(block.size()));
  int64_t threads = 1;
  for (size_t i = 0; i < 3; ++i) {
    int64_t dim = r.integer(block[i], Reader::index(blockPath, i));
    if (dim < 1 || dim > 1024)
      r.fail(Reader::index(blockPath, i),
             "block dimension " + std::to_string(dim) + " is not in [1, 1024]");
    kernel.Block[i] = static_cast<uint32_t>(dim);
    threads *= dim;
  }
  if (threads > 1024)
    r.fail(blockPath, std::to_string(threads) +
                          " threads per block exceed the limit of 1024");

  std::string gridPath = Reader::join(path, "grid");
  const json &grid = r.member(value, path, "grid");
  r.expectArray(grid, gridPath);
  if (grid.size() != 3)
    r.fail(gridPath, "expected 3 entries, got " + std::to_string(grid.size()));
  for (size_t i = 0; i < 3; ++i) {
    std::string where = Reader::index(gridPath, i);
    kernel.Grid[i] = r.exprText(grid[i], where);
    SymbolTable scratch;
    try {
      Expr::parse(kernel.Grid[i], scratch, where);
    } catch (const Error &e) {
      r.fail(where, e.cause());
    }
  }

  if (value.contains("shared_bytes") && value["shared_bytes"].is_string()) {
    // a size computed at launch from the shapes (checked there against the
    // device's per-block maximum)
    std::string where = Reader::join(path, "shared_bytes");
    kernel.SharedExpr = value["shared_bytes"].get<std::string>();
    SymbolTable scratch;
    try {
      Expr::parse(kernel.SharedExpr, scratch, where);
    } catch (const Error &e) {
      r.fail(where, e.cause());
    }
  } else if (value.contains("shared_bytes")) {
    std::string where = Reader::join(path, "shared_bytes");
    int64_t bytes = r.integer(value["shared_bytes"], where);
    if (bytes < 0 || bytes > (1 << 20))
      r.fail(where, "shared memory size " + std::to_string(bytes) +
                        " is out of range");
    kernel.SharedBytes = static_cast<uint32_t>(bytes);
  }

  std::string paramsPath = Reader::join(path, "params");
  const json &params = r.member(value, path, "params");
  r.expectArray(params, paramsPath);
  std::set<std::string> seen;
  for (size_t i = 0; i < params.size(); ++i) {
    std::string where = Reader::index(paramsPath, i);
    r.expectObject(params[i], where);
    r.onlyKeys(params[i], where, {"name", "type"});
    KernelParam param;
    param.Name = r.string(params[i], where, "name");
    param.Type = r.paramType(params[i], where, /*allowPtr=*/true);
    if (!seen.insert(param.Name).second)
      r.fail(where, "duplicate parameter name '" + param.Name + "'");
    kernel.Params.push_back(std::move(param));
  }
  return kernel;
}

/// Checks a function-local name: an identifier, unique among the function's
/// tensors and scalars.
void declareName(const Reader &r, std::set<std::string> &names,
                 const std::string &name, const std::string &path) {
  if (!isIdentifier(name))
    r.fail(path, "'" + name + "' is not a valid name");
  if (!names.insert(name).second)
    r.fail(path, "duplicate name '" + name + "'");
}

TensorInfo readTensor(const Reader &r, const json &value,
                      const std::string &path, SymbolTable &symbols,
                      bool isTemp) {
  r.expectObject(value, path);
  if (isTemp)
    r.onlyKeys(value, path, {"name", "dtype", "shape", "init"});
  else
    r.onlyKeys(value, path, {"name", "dtype", "shape"});
  TensorInfo tensor;
  tensor.Name = r.string(value, path, "name");
  tensor.Type = r.dtype(value, path);
  std::string shapePath = Reader::join(path, "shape");
  const json &shape = r.member(value, path, "shape");
  r.expectArray(shape, shapePath);
  if (shape.size() > 8)
    r.fail(shapePath, "rank " + std::to_string(shape.size()) +
                          " exceeds the maximum of 8");
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string where = Reader::index(shapePath, i);
    std::string text = r.exprText(shape[i], where);
    try {
      tensor.Shape.push_back(Expr::parse(text, symbols, where));
    } catch (const Error &e) {
      r.fail(where, e.cause());
    }
  }
  if (isTemp && value.contains("init")) {
    std::string init = r.string(value, path, "init");
    if (init == "zero" || init == "kept_zero")
      tensor.ZeroInit = true;
    else if (init != "none")
      r.fail(Reader::join(path, "init"),
             "unknown init '" + init + "' (known: zero, kept_zero, none)");
    tensor.KeptZero = init == "kept_zero";
  }
  return tensor;
}

ScalarInfo readScalar(const Reader &r, const json &value,
                      const std::string &path) {
  r.expectObject(value, path);
  r.onlyKeys(value, path, {"name", "type", "default"});
  ScalarInfo scalar;
  scalar.Name = r.string(value, path, "name");
  scalar.Type = r.paramType(value, path, /*allowPtr=*/false);
  if (value.contains("default")) {
    const json &def = value["default"];
    std::string where = Reader::join(path, "default");
    if (isIntegerParam(scalar.Type))
      scalar.DefaultInt = r.integer(def, where);
    else if (def.is_number())
      scalar.DefaultFloat = def.get<double>();
    else
      r.fail(where, "expected a number, got " + std::string(def.type_name()));
  }
  return scalar;
}

/// A launch's `tensor_map` argument (docs/artifact.md, "Tensor maps"):
/// {"tensor_map": TENSOR, "dims": [EXPR...], "box": [INT...], "swizzle": B}.
/// The rules cuTensorMapEncodeTiled would refuse at launch are checked here
/// where they do not depend on the shapes.
template <typename CheckBound>
TensorMapArg readTensorMapArg(const Reader &r, const json &value,
                              const std::string &path, FunctionInfo &fn,
                              CheckBound &checkBound) {
  r.onlyKeys(value, path, {"tensor_map", "dims", "box", "swizzle"});
  TensorMapArg arg{};
  std::string name = r.string(value, path, "tensor_map");
  bool found = false;
  auto findIn = [&](const std::vector<TensorInfo> &list, ArgSource src) {
    for (size_t i = 0; i < list.size() && !found; ++i)
      if (list[i].Name == name) {
        arg.Tensor = src;
        arg.Index = static_cast<unsigned>(i);
        arg.Type = list[i].Type;
        found = true;
      }
  };
  findIn(fn.Inputs, ArgSource::Input);
  findIn(fn.Outputs, ArgSource::Output);
  findIn(fn.Temps, ArgSource::Temp);
  if (!found)
    r.fail(Reader::join(path, "tensor_map"),
           "'" + name + "' is not an input, output or temp of function '" +
               fn.Name + "'");
  std::string dimsPath = Reader::join(path, "dims");
  const json &dims = r.member(value, path, "dims");
  r.expectArray(dims, dimsPath);
  if (dims.empty() || dims.size() > 5)
    r.fail(dimsPath, "a tensor map has 1 to 5 dimensions, got " +
                         std::to_string(dims.size()));
  for (size_t d = 0; d < dims.size(); ++d) {
    std::string where = Reader::index(dimsPath, d);
    Expr e = Expr::parse(r.exprText(dims[d], where), fn.Symbols, where);
    checkBound(e, where);
    arg.Dims.push_back(std::move(e));
  }
  std::string boxPath = Reader::join(path, "box");
  const json &box = r.member(value, path, "box");
  r.expectArray(box, boxPath);
  if (box.size() != dims.size())
    r.fail(boxPath, std::to_string(box.size()) + " box extents for " +
                        std::to_string(dims.size()) + " dims");
  for (size_t d = 0; d < box.size(); ++d) {
    std::string where = Reader::index(boxPath, d);
    int64_t v = r.integer(box[d], where);
    if (v < 1 || v > 256)
      r.fail(where, "a box extent is 1 to 256 elements, got " + std::to_string(v));
    arg.Box.push_back(static_cast<uint32_t>(v));
  }
  int64_t swizzle = r.integer(r.member(value, path, "swizzle"),
                              Reader::join(path, "swizzle"));
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    r.fail(Reader::join(path, "swizzle"),
           "the swizzle is 0, 32, 64 or 128 bytes, got " + std::to_string(swizzle));
  arg.Swizzle = static_cast<uint32_t>(swizzle);
  uint64_t innerBytes = uint64_t(arg.Box[0]) * dtypeSize(arg.Type);
  if (innerBytes % 16)
    r.fail(boxPath, "the innermost box extent (" + std::to_string(innerBytes) +
                        " bytes) must be a multiple of 16 bytes");
  if (swizzle && innerBytes > uint64_t(swizzle))
    r.fail(boxPath, "the innermost box extent (" + std::to_string(innerBytes) +
                        " bytes) exceeds the " + std::to_string(swizzle) +
                        "-byte swizzle span");
  return arg;
}

void readFunction(const Reader &r, const json &value, const std::string &path,
                  const ArtifactInfo &artifact, FunctionInfo &fn) {
  r.expectObject(value, path);
  r.onlyKeys(value, path,
             {"name", "inputs", "scalars", "outputs", "temps", "launches",
              "requires"});
  fn.Name = r.string(value, path, "name");
  if (!isIdentifier(fn.Name))
    r.fail(Reader::join(path, "name"), "'" + fn.Name + "' is not a valid name");

  std::set<std::string> names;
  auto readTensors = [&](const char *key, std::vector<TensorInfo> &out,
                         bool required, bool isTemp) {
    std::string listPath = Reader::join(path, key);
    if (!value.contains(key)) {
      if (required)
        r.fail(path, std::string("missing field '") + key + "'");
      return;
    }
    const json &list = value[key];
    r.expectArray(list, listPath);
    for (size_t i = 0; i < list.size(); ++i) {
      std::string where = Reader::index(listPath, i);
      out.push_back(readTensor(r, list[i], where, fn.Symbols, isTemp));
      declareName(r, names, out.back().Name, Reader::join(where, "name"));
    }
  };

  readTensors("inputs", fn.Inputs, /*required=*/true, false);
  // Symbols are bound by the bare-symbol dimensions of the inputs; record
  // the first binding of each (later ones are checked for agreement).
  size_t boundCount = fn.Symbols.size();
  if (fn.Symbols.lookup(kSmCountSymbol))
    r.fail(path + ".inputs", std::string("'") + kSmCountSymbol +
                                 "' is the device's multiprocessor count, not an input dimension");
  fn.Bindings.assign(boundCount, SymbolBinding{~0u, ~0u});
  for (unsigned i = 0; i < fn.Inputs.size(); ++i)
    for (unsigned d = 0; d < fn.Inputs[i].Shape.size(); ++d)
      if (std::optional<unsigned> sym = fn.Inputs[i].Shape[d].asSymbol())
        if (fn.Bindings[*sym].Input == ~0u)
          fn.Bindings[*sym] = {i, d};
  auto checkBound = [&](const Expr &expr, const std::string &where) {
    for (unsigned sym : expr.symbolsUsed())
      if (sym >= fn.Bindings.size() || fn.Bindings[sym].Input == ~0u)
        r.fail(where, "symbol '" + fn.Symbols.name(sym) +
                          "' is not bound by any input dimension");
  };
  for (size_t i = 0; i < fn.Inputs.size(); ++i)
    for (size_t d = 0; d < fn.Inputs[i].Shape.size(); ++d)
      checkBound(fn.Inputs[i].Shape[d],
                 Reader::index(Reader::index(path + ".inputs", i) + ".shape", d));

  if (value.contains("scalars")) {
    std::string listPath = Reader::join(path, "scalars");
    const json &list = value["scalars"];
    r.expectArray(list, listPath);
    for (size_t i = 0; i < list.size(); ++i) {
      std::string where = Reader::index(listPath, i);
      fn.Scalars.push_back(readScalar(r, list[i], where));
      declareName(r, names, fn.Scalars.back().Name, Reader::join(where, "name"));
    }
  }

  // Outputs may ask to be cleared too (padding of blocked scale layouts).
  readTensors("outputs", fn.Outputs, /*required=*/true, true);
  for (size_t i = 0; i < fn.Outputs.size(); ++i)
    if (fn.Outputs[i].KeptZero)
      r.fail(Reader::join(Reader::index(Reader::join(path, "outputs"), i), "init"),
             "'kept_zero' is for temps (an output is the caller's memory)");

  if (value.contains("requires")) {
    std::string listPath = Reader::join(path, "requires");
    const json &list = value["requires"];
    r.expectArray(list, listPath);
    for (size_t i = 0; i < list.size(); ++i) {
      std::string where = Reader::index(listPath, i);
      r.expectObject(list[i], where);
      r.onlyKeys(list[i], where, {"expr", "message"});
      std::string text = r.exprText(r.member(list[i], where, "expr"),
                                    Reader::join(where, "expr"));
      Requirement req;
      try {
        req.Value = Expr::parse(text, fn.Symbols, Reader::join(where, "expr"));
      } catch (const Error &e) {
        r.fail(Reader::join(where, "expr"), e.cause());
      }
      checkBound(req.Value, Reader::join(where, "expr"));
      req.Message = r.string(list[i], where, "message");
      fn.Requires.push_back(std::move(req));
    }
  }
  readTensors("temps", fn.Temps, /*required=*/false, true);
  for (const char *key : {"outputs", "temps"}) {
    const std::vector<TensorInfo> &list =
        std::string(key) == "outputs" ? fn.Outputs : fn.Temps;
    for (size_t i = 0; i < list.size(); ++i)
      for (size_t d = 0; d < list[i].Shape.size(); ++d)
        checkBound(list[i].Shape[d],
                   Reader::index(Reader::index(Reader::join(path, key), i) +
                                     ".shape",
                                 d));
  }
  for (unsigned s = 0; s < fn.Symbols.size() && s < boundCount; ++s)
    if (names.count(fn.Symbols.name(s)))
      r.fail(path, "name '" + fn.Symbols.name(s) +
                       "' is both a shape symbol and a tensor or scalar");

  std::string launchesPath = Reader::join(path, "launches");
  const json &launches = r.member(value, path, "launches");
  r.expectArray(launches, launchesPath);
  if (launches.empty())
    r.fail(launchesPath, "a function needs at least one launch");
  for (size_t l = 0; l < launches.size(); ++l) {
    std::string where = Reader::index(launchesPath, l);
    const json &launch = launches[l];
    r.expectObject(launch, where);
    r.onlyKeys(launch, where, {"kernel", "args"});
    LaunchInfo info;
    std::string kernelName = r.string(launch, where, "kernel");
    const KernelInfo *kernel = artifact.findKernel(kernelName);
    if (!kernel)
      r.fail(Reader::join(where, "kernel"),
             "no kernel named '" + kernelName + "' in 'kernels'");
    info.Kernel = static_cast<unsigned>(kernel - artifact.Kernels.data());
    // The grid and a launch-time shared memory size, over the symbols the
    // function's inputs bind.
    auto launchExpr = [&](const std::string &text, const std::string &field) {
      std::string exprWhere = "kernel '" + kernelName + "' " + field;
      Expr e = Expr::parse(text, fn.Symbols, exprWhere);
      std::optional<unsigned> sms = fn.Symbols.lookup(kSmCountSymbol);
      if (sms && *sms >= fn.Bindings.size())
        fn.SmCount = *sms;
      if ([&] {
            for (unsigned sym : e.symbolsUsed())
              if (sym != fn.SmCount &&
                  (sym >= fn.Bindings.size() || fn.Bindings[sym].Input == ~0u))
                return true;
            return false;
          }())
        r.fail(where, exprWhere + " ('" + text +
                          "') uses a symbol that no input of function '" +
                          fn.Name + "' binds");
      return e;
    };
    for (size_t i = 0; i < 3; ++i)
      info.Grid[i] =
          launchExpr(kernel->Grid[i], "grid[" + std::to_string(i) + "]");
    if (!kernel->SharedExpr.empty())
      info.Shared = launchExpr(kernel->SharedExpr, "shared_bytes");

    std::string argsPath = Reader::join(where, "args");
    const json &args = r.member(launch, where, "args");
    r.expectArray(args, argsPath);
    if (args.size() != kernel->Params.size())
      r.fail(argsPath, std::to_string(args.size()) + " arguments for kernel '" +
                           kernelName + "' which has " +
                           std::to_string(kernel->Params.size()) +
                           " parameters");
    for (size_t a = 0; a < args.size(); ++a) {
      std::string argWhere = Reader::index(argsPath, a);
      const KernelParam &param = kernel->Params[a];
      if (param.Type == ParamType::TensorMap || args[a].is_object()) {
        if (param.Type != ParamType::TensorMap || !args[a].is_object())
          r.fail(argWhere, "parameter '" + param.Name + "' of kernel '" +
                               kernelName + "' has type " +
                               paramTypeName(param.Type) +
                               "; a tensor_map parameter takes an object "
                               "{tensor_map, dims, box, swizzle} and only it");
        if (info.TensorMaps.size() == kMaxTensorMaps)
          r.fail(argWhere, "more than " + std::to_string(kMaxTensorMaps) +
                               " tensor_map arguments in one launch");
        info.Args.push_back({ArgSource::TensorMap,
                             unsigned(info.TensorMaps.size())});
        info.TensorMaps.push_back(
            readTensorMapArg(r, args[a], argWhere, fn, checkBound));
        continue;
      }
      if (!args[a].is_string())
        r.fail(argWhere, "expected a name, got " +
                             std::string(args[a].type_name()));
      std::string name = args[a].get<std::string>();
      auto mismatch = [&](const std::string &what) {
        r.fail(argWhere, "'" + name + "' is " + what + " but parameter '" +
                             param.Name + "' of kernel '" + kernelName +
                             "' has type " + paramTypeName(param.Type));
      };
      auto findIn = [&](const std::vector<TensorInfo> &list) -> int {
        for (size_t i = 0; i < list.size(); ++i)
          if (list[i].Name == name)
            return static_cast<int>(i);
        return -1;
      };
      LaunchArg arg{};
      int idx;
      if ((idx = findIn(fn.Inputs)) >= 0)
        arg = {ArgSource::Input, unsigned(idx)};
      else if ((idx = findIn(fn.Outputs)) >= 0)
        arg = {ArgSource::Output, unsigned(idx)};
      else if ((idx = findIn(fn.Temps)) >= 0)
        arg = {ArgSource::Temp, unsigned(idx)};
      else {
        idx = -1;
        for (size_t i = 0; i < fn.Scalars.size(); ++i)
          if (fn.Scalars[i].Name == name)
            idx = static_cast<int>(i);
        if (idx >= 0) {
          arg = {ArgSource::Scalar, unsigned(idx)};
        } else if (std::optional<unsigned> sym = fn.Symbols.lookup(name);
                   sym && *sym < fn.Bindings.size() &&
                   fn.Bindings[*sym].Input != ~0u) {
          arg = {ArgSource::Symbol, *sym};
        } else {
          // An integer expression over bound shape symbols ("M*K").
          Expr e;
          try {
            e = Expr::parse(name, fn.Symbols, argWhere);
          } catch (const Error &) {
            r.fail(argWhere, "'" + name +
                                 "' is not an input, output, temp, scalar, "
                                 "bound shape symbol or shape expression of "
                                 "function '" +
                                 fn.Name + "'");
          }
          checkBound(e, argWhere);
          arg = {ArgSource::Expr, unsigned(info.ArgExprs.size())};
          info.ArgExprs.push_back(std::move(e));
        }
      }
      switch (arg.Source) {
      case ArgSource::Input:
      case ArgSource::Output:
      case ArgSource::Temp:
        if (param.Type != ParamType::Ptr)
          mismatch("a tensor");
        break;
      case ArgSource::Scalar: {
        ParamType st = fn.Scalars[arg.Index].Type;
        if (param.Type == ParamType::Ptr ||
            isIntegerParam(st) != isIntegerParam(param.Type))
          mismatch(std::string("a scalar of type ") + paramTypeName(st));
        break;
      }
      case ArgSource::Symbol:
      case ArgSource::Expr:
        if (!isIntegerParam(param.Type))
          mismatch("a shape symbol (an integer)");
        break;
      case ArgSource::TensorMap:
        break; // handled above
      }
      info.Args.push_back(arg);
    }
    fn.Launches.push_back(std::move(info));
  }
}

} // namespace

ArtifactInfo ArtifactInfo::parse(std::string_view jsonText,
                                 std::string_view source) {
  Reader r(source);
  json root;
  try {
    root = json::parse(jsonText.begin(), jsonText.end());
  } catch (const json::exception &e) { // parse_error, out_of_range (1e400)
    r.fail("", std::string("not valid JSON: ") + e.what());
  }
  r.expectObject(root, "");
  r.onlyKeys(root, "",
             {"format", "version", "compiler", "spec_hash", "target", "ptx",
              "cubin", "kernels", "functions", "options", "source", "link"});

  ArtifactInfo info;
  info.Source = std::string(source);
  std::string format = r.string(root, "", "format");
  if (format != kArtifactFormat)
    r.fail("format", "expected '" + std::string(kArtifactFormat) + "', got '" +
                         format + "'");
  int64_t version = r.integer(r.member(root, "", "version"), "version");
  if (version != kArtifactVersion)
    r.fail("version", "artifact format version " + std::to_string(version) +
                          " is not supported by this runtime (it reads " +
                          std::to_string(kArtifactVersion) + ")" +
                          (version > kArtifactVersion
                               ? "; update libfpxrt or rebuild with an older fpxc"
                               : ""));
  info.Version = static_cast<int>(version);

  const json &compiler = r.member(root, "", "compiler");
  r.expectObject(compiler, "compiler");
  r.onlyKeys(compiler, "compiler", {"name", "version"});
  info.CompilerName = r.string(compiler, "compiler", "name");
  info.CompilerVersion = r.string(compiler, "compiler", "version");

  info.SpecHash = r.string(root, "", "spec_hash");
  for (char c : info.SpecHash)
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      r.fail("spec_hash", "'" + info.SpecHash + "' is not a hex string");

  const json &target = r.member(root, "", "target");
  r.expectObject(target, "target");
  r.onlyKeys(target, "target", {"chip", "ptx_version"});
  info.Target = r.string(target, "target", "chip");
  std::optional<Chip> chip = Chip::parse(info.Target);
  if (!chip)
    r.fail("target.chip", "'" + info.Target +
                              "' is not an architecture like sm_90a");
  info.TargetChip = *chip;
  info.PtxVersion = r.string(target, "target", "ptx_version");
  if (!minDriverForPtx(info.PtxVersion))
    r.fail("target.ptx_version",
           "unknown PTX ISA version '" + info.PtxVersion + "'");

  auto fileName = [&](const char *key) {
    std::string name = r.string(root, "", key);
    if (name.empty() || name.find('/') != std::string::npos ||
        name.find("..") != std::string::npos)
      r.fail(key, "'" + name +
                      "' must be a plain file name in the artifact's directory");
    return name;
  };
  info.PtxFile = fileName("ptx");
  if (root.contains("cubin"))
    info.CubinFile = fileName("cubin");
  if (root.contains("source") && !root["source"].is_string())
    r.fail("source", "expected a string");
  if (root.contains("options"))
    info.Options = root["options"].dump();

  const json &kernels = r.member(root, "", "kernels");
  r.expectArray(kernels, "kernels");
  if (kernels.empty())
    r.fail("kernels", "an artifact needs at least one kernel");
  std::set<std::string> kernelNames;
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::string where = Reader::index("kernels", i);
    info.Kernels.push_back(readKernel(r, kernels[i], where));
    if (!kernelNames.insert(info.Kernels.back().Name).second)
      r.fail(where, "duplicate kernel '" + info.Kernels.back().Name + "'");
  }

  const json &functions = r.member(root, "", "functions");
  r.expectArray(functions, "functions");
  std::set<std::string> functionNames;
  info.Functions.reserve(functions.size());
  for (size_t i = 0; i < functions.size(); ++i) {
    std::string where = Reader::index("functions", i);
    info.Functions.emplace_back();
    readFunction(r, functions[i], where, info, info.Functions.back());
    if (!functionNames.insert(info.Functions.back().Name).second)
      r.fail(where, "duplicate function '" + info.Functions.back().Name + "'");
  }

  // User functions linked at load time (docs/artifact.md, "link").
  if (root.contains("link")) {
    const json &links = root["link"];
    r.expectArray(links, "link");
    for (size_t i = 0; i < links.size(); ++i) {
      std::string where = Reader::index("link", i);
      r.expectObject(links[i], where);
      r.onlyKeys(links[i], where, {"symbol", "signature"});
      LinkSymbol link;
      link.Symbol = r.string(links[i], where, "symbol");
      bool ok = !link.Symbol.empty() &&
                (std::isalpha(static_cast<unsigned char>(link.Symbol[0])) ||
                 link.Symbol[0] == '_');
      for (char c : link.Symbol)
        ok &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      if (!ok)
        r.fail(where + ".symbol", "'" + link.Symbol +
                                      "' is not a C identifier (the name of "
                                      "an extern \"C\" __device__ function)");
      link.Signature = r.string(links[i], where, "signature");
      if (link.Signature != "float(float)")
        r.fail(where + ".signature", "unknown signature '" + link.Signature +
                                         "' (known: float(float))");
      for (const LinkSymbol &other : info.Link)
        if (other.Symbol == link.Symbol)
          r.fail(where, "duplicate symbol '" + link.Symbol + "'");
      if (info.findKernel(link.Symbol))
        r.fail(where, "symbol '" + link.Symbol + "' is also a kernel name");
      info.Link.push_back(std::move(link));
    }
    if (!info.CubinFile.empty() && !info.Link.empty())
      r.fail("cubin", "an artifact that links user functions cannot carry a "
                      "cubin (its kernels are only complete once linked at "
                      "load time)");
  }
  return info;
}

const KernelInfo *ArtifactInfo::findKernel(std::string_view name) const {
  for (const KernelInfo &kernel : Kernels)
    if (kernel.Name == name)
      return &kernel;
  return nullptr;
}

const FunctionInfo *ArtifactInfo::findFunction(std::string_view name) const {
  for (const FunctionInfo &fn : Functions)
    if (fn.Name == name)
      return &fn;
  return nullptr;
}

const FunctionInfo &ArtifactInfo::function(std::string_view name) const {
  if (const FunctionInfo *fn = findFunction(name))
    return *fn;
  std::string known;
  for (const FunctionInfo &fn : Functions)
    known += (known.empty() ? "" : ", ") + fn.Name;
  throw Error(ErrorCode::NotFound, "find function", Source,
              "no function '" + std::string(name) + "' (it has: " +
                  (known.empty() ? "none" : known) + ")");
}

ArtifactInfo ArtifactInfo::read(const std::string &jsonPath) {
  std::string jsonText, why;
  if (!readRegularFile(jsonPath, jsonText, &why))
    throw Error(ErrorCode::NotFound, "load artifact", jsonPath,
                "cannot read the file: " + why);
  return parse(jsonText, jsonPath);
}

} // namespace fpx::rt
