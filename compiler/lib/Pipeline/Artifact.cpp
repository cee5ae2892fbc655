//===- Artifact.cpp - artifact JSON and PTX extraction --------------------===//
#include "fpx/Pipeline/Artifact.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace fpx;
namespace json = llvm::json;

#ifndef FPX_VERSION
#define FPX_VERSION "0.1.0"
#endif

/// Attributes of the launch records are plain data: strings, integers,
/// arrays and dictionaries.
static json::Value toJson(Attribute a) {
  if (auto s = dyn_cast<StringAttr>(a))
    return s.getValue().str();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return i.getInt();
  if (auto arr = dyn_cast<ArrayAttr>(a)) {
    json::Array out;
    for (Attribute e : arr)
      out.push_back(toJson(e));
    return out;
  }
  if (auto d = dyn_cast<DictionaryAttr>(a)) {
    json::Object out;
    for (NamedAttribute na : d)
      out[na.getName().str()] = toJson(na.getValue());
    return out;
  }
  if (auto i = dyn_cast<DenseI64ArrayAttr>(a)) {
    json::Array out;
    for (int64_t v : i.asArrayRef())
      out.push_back(v);
    return out;
  }
  return nullptr;
}

json::Object fpx::collectLaunchRecords(ModuleOp module) {
  json::Array kernels, functions, links;
  module.walk([&](gpu::GPUModuleOp gm) {
    if (auto fs = gm->getAttrOfType<ArrayAttr>("fpx.functions"))
      for (Attribute f : fs) {
        json::Value v = toJson(f);
        // A function's user symbols (prologues) become the artifact's
        // top-level "link" list, once per symbol.
        if (json::Object *obj = v.getAsObject())
          if (json::Value *l = obj->get("link")) {
            for (json::Value &e : *l->getAsArray())
              if (llvm::none_of(links, [&](const json::Value &x) { return x == e; }))
                links.push_back(e);
            obj->erase("link");
          }
        functions.push_back(std::move(v));
      }
    gm.walk([&](gpu::GPUFuncOp f) {
      auto rec = f->getAttrOfType<DictionaryAttr>("fpx.kernel");
      if (!rec)
        return;
      json::Value v = toJson(rec);
      json::Object obj = std::move(*v.getAsObject());
      obj["name"] = f.getName().str();
      kernels.push_back(std::move(obj));
    });
  });
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
