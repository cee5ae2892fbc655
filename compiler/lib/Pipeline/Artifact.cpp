//===- Artifact.cpp - artifact JSON and PTX extraction --------------------===//
#include "fpx/Pipeline/Artifact.h"
#include "fpx/Config/Version.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace fpx;
namespace json = llvm::json;

namespace {
/// Converts the launch records (fpx.functions, fpx.kernel) to JSON. They are
/// plain data: strings, integers that fit in int64, arrays and dictionaries;
/// anything else is an error at `anchor` that names the field.
struct RecordConverter {
  Operation *anchor;

  FailureOr<json::Value> convert(Attribute a, const std::string &path) const {
    if (auto s = dyn_cast<StringAttr>(a)) {
      if (!json::isUTF8(s.getValue()))
        return error(path, "string is not valid UTF-8");
      return json::Value(s.getValue().str());
    }
    if (auto i = dyn_cast<IntegerAttr>(a)) {
      if (!isa<IntegerType, IndexType>(i.getType()) || i.getType().isInteger(1))
        return error(path, "expected a string, an integer, an array or a "
                           "dictionary, got ")
               << a;
      llvm::APSInt v(i.getValue(), i.getType().isUnsignedInteger());
      if (!v.isRepresentableByInt64())
        return error(path, "") << a << " does not fit in int64";
      return json::Value(v.getExtValue());
    }
    if (auto arr = dyn_cast<ArrayAttr>(a)) {
      json::Array out;
      for (auto [i, e] : llvm::enumerate(arr)) {
        FailureOr<json::Value> v =
            convert(e, path + "[" + std::to_string(i) + "]");
        if (failed(v))
          return failure();
        out.push_back(std::move(*v));
      }
      return json::Value(std::move(out));
    }
    if (auto d = dyn_cast<DictionaryAttr>(a)) {
      json::Object out;
      for (NamedAttribute na : d) {
        std::string field = path + "." + na.getName().str();
        if (!json::isUTF8(na.getName().getValue()))
          return error(field, "field name is not valid UTF-8");
        FailureOr<json::Value> v = convert(na.getValue(), field);
        if (failed(v))
          return failure();
        out[na.getName().str()] = std::move(*v);
      }
      return json::Value(std::move(out));
    }
    if (auto i = dyn_cast<DenseI64ArrayAttr>(a))
      return json::Value(json::Array(i.asArrayRef()));
    if (auto i = dyn_cast<DenseI32ArrayAttr>(a))
      return json::Value(json::Array(i.asArrayRef()));
    return error(path, "expected a string, an integer, an array or a "
                       "dictionary, got ")
           << a;
  }

  InFlightDiagnostic error(const std::string &path, StringRef message) const {
    return anchor->emitOpError() << path << ": " << message;
  }
};
} // namespace

FailureOr<json::Object> fpx::collectLaunchRecords(ModuleOp module) {
  json::Array kernels, functions, links;
  bool ok = true;
  module.walk([&](gpu::GPUModuleOp gm) {
    RecordConverter records{gm};
    if (Attribute fsAttr = gm->getAttr("fpx.functions")) {
      auto fs = dyn_cast<ArrayAttr>(fsAttr);
      if (!fs) {
        ok = false;
        records.error("fpx.functions", "expected an array of function "
                                       "records, got ")
            << fsAttr;
        return;
      }
      for (auto [i, f] : llvm::enumerate(fs)) {
        std::string path = "fpx.functions[" + std::to_string(i) + "]";
        if (!isa<DictionaryAttr>(f)) {
          ok = false;
          records.error(path, "expected a function record (a dictionary), "
                              "got ")
              << f;
          continue;
        }
        FailureOr<json::Value> v = records.convert(f, path);
        if (failed(v)) {
          ok = false;
          continue;
        }
        // A function's user symbols (prologues) become the artifact's
        // top-level "link" list, once per symbol.
        json::Object &obj = *v->getAsObject();
        if (json::Value *l = obj.get("link")) {
          json::Array *arr = l->getAsArray();
          bool linkOk = arr && llvm::all_of(*arr, [](const json::Value &e) {
                          const json::Object *o = e.getAsObject();
                          return o && o->getString("symbol");
                        });
          if (!linkOk) {
            ok = false;
            records.error(path + ".link", "expected an array of {symbol, "
                                          "signature} records, got ")
                << cast<DictionaryAttr>(f).get("link");
            continue;
          }
          for (json::Value &e : *arr)
            if (llvm::none_of(links,
                              [&](const json::Value &x) { return x == e; }))
              links.push_back(e);
          obj.erase("link");
        }
        functions.push_back(std::move(*v));
      }
    }
    gm.walk([&](gpu::GPUFuncOp f) {
      Attribute recAttr = f->getAttr("fpx.kernel");
      if (!recAttr)
        return;
      RecordConverter kernel{f};
      if (!isa<DictionaryAttr>(recAttr)) {
        ok = false;
        kernel.error("fpx.kernel", "expected a launch record (a dictionary), "
                                   "got ")
            << recAttr;
        return;
      }
      FailureOr<json::Value> v = kernel.convert(recAttr, "fpx.kernel");
      if (failed(v)) {
        ok = false;
        return;
      }
      json::Object obj = std::move(*v->getAsObject());
      obj["name"] = f.getName().str();
      kernels.push_back(std::move(obj));
    });
  });
  if (!ok)
    return failure();
  json::Object out;
  out["kernels"] = std::move(kernels);
  out["functions"] = std::move(functions);
  if (!links.empty())
    out["link"] = std::move(links);
  return out;
}

FailureOr<std::string> fpx::extractPtx(ModuleOp module) {
  std::string ptx;
  int count = 0;
  module.walk([&](gpu::BinaryOp bin) {
    for (Attribute o : bin.getObjects()) {
      auto obj = cast<gpu::ObjectAttr>(o);
      ptx = obj.getObject().getValue().str();
      ++count;
    }
  });
  if (count != 1)
    return failure();
  return ptx;
}

std::string fpx::specHash(llvm::StringRef specText, llvm::StringRef options) {
  std::string data = specText.str();
  data.push_back('\0');
  data += options.str();
  llvm::XXH128_hash_t h = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()), data.size()));
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format_hex_no_prefix(h.high64, 16) << llvm::format_hex_no_prefix(h.low64, 16);
  return out;
}

json::Object fpx::makeArtifactJson(json::Object records, const TargetInfo &target,
                                   llvm::StringRef hash, llvm::StringRef stem,
                                   bool withCubin) {
  json::Object out;
  out["format"] = "fpx-artifact";
  out["version"] = 1;
  out["compiler"] = json::Object{{"name", "fpxc"}, {"version", FPX_VERSION}};
  out["spec_hash"] = hash.str();
  out["target"] = json::Object{{"chip", target.chip.str()},
                               {"ptx_version", target.ptxVersionString()}};
  out["ptx"] = (stem + ".ptx").str();
  if (withCubin)
    out["cubin"] = (stem + ".cubin").str();
  out["kernels"] = std::move(*records.getArray("kernels"));
  out["functions"] = std::move(*records.getArray("functions"));
  if (json::Array *links = records.getArray("link"))
    out["link"] = std::move(*links);
  return out;
}
