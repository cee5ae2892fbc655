//===- Module.cpp - nanobind module fpxc._fpx ---------------------------------===//
//
// A thin layer: the Python package (fpxc/) does the torch work of the slow
// paths (CPU reference, plan building) and calls these functions with raw
// pointers and shapes. This file includes no torch header: TorchOps.cpp, the
// one translation unit that does, defines torch.ops.fpxc.* and their CUDA
// kernel (a per-signature plan cache, issue 37), so the extension is built
// against the torch it runs with (pip install on each machine).
//
// Errors: fpx::rt::Error and fpx::num::Error are translated into the Python
// classes that fpx/_errors.py registers through _set_error_classes().
//
//===----------------------------------------------------------------------===//

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/Hadamard.h"
#include "fpx/Numerics/Packing.h"
#include "fpx/Numerics/Quantize.h"
#include "fpx/Numerics/Vocabulary.h"
#include "fpx/Runtime/Accept.h"
#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Jit.h"
#include "fpx/Runtime/Nvrtc.h"
#include "fpx/Runtime/Runtime.h"

#include "TorchOps.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <map>

namespace nb = nanobind;
using namespace nb::literals;
namespace rt = fpx::rt;
namespace num = fpx::num;

namespace {

/// Python exception classes by error-code name, set by fpx/_errors.py.
std::map<std::string, nb::object> &errorClasses() {
  static auto *classes = new std::map<std::string, nb::object>();
  return *classes;
}

PyObject *errorClass(const std::string &code) {
  auto it = errorClasses().find(code);
  if (it != errorClasses().end())
    return it->second.ptr();
  return PyExc_RuntimeError;
}

/// A tensor as Python passes it: (data_ptr, dtype word, shape, strides).
using PyTensor = std::tuple<uint64_t, std::string, std::vector<int64_t>,
                            std::vector<int64_t>>;

rt::TensorRef toRef(const PyTensor &t) {
  const auto &[ptr, dtype, shape, strides] = t;
  std::optional<rt::DType> type = rt::parseDType(dtype);
  if (!type)
    throw rt::Error(rt::ErrorCode::InvalidArgument, "launch", "",
                    "unknown dtype '" + dtype + "'");
  if (strides.empty())
    return rt::TensorRef(ptr, *type, shape);
  return rt::TensorRef(ptr, *type, shape, strides);
}

rt::Scalar toScalar(nb::handle value) {
  if (nb::isinstance<nb::bool_>(value))
    return rt::Scalar(int64_t(nb::cast<bool>(value)));
  if (nb::isinstance<nb::int_>(value))
    return rt::Scalar(nb::cast<int64_t>(value));
  if (nb::isinstance<nb::float_>(value))
    return rt::Scalar(nb::cast<double>(value));
  throw rt::Error(rt::ErrorCode::InvalidArgument, "launch", "",
                  "scalars must be int, float or bool");
}

/// An fp6 layout word of the Python API ("planes", "interleaved", "contiguous", ...).
num::Fp6Layout parseFp6Layout(const std::string &word) {
  std::optional<num::Fp6Layout> layout = num::fp6Layout(num::parsePacking(word));
  if (!layout)
    throw num::Error("fpx: packing '" + word + "' is not an fp6 layout");
  return *layout;
}

/// A table entry's spellings as a dict (name, api, aliases, summary).
nb::dict namesDict(const num::Names &n) {
  nb::dict d;
  d["name"] = std::string(n.name);
  d["api"] = std::string(n.api);
  nb::list aliases;
  for (std::string_view a : n.aliases)
    aliases.append(std::string(a));
  d["aliases"] = nb::tuple(aliases);
  d["summary"] = std::string(n.summary);
  return d;
}

/// The numerics vocabulary (fpx/Numerics/Vocabulary.h) as Python data:
/// {"formats": [...], "schemes": [...], "scale_kinds": [...],
///  "scale_rules": [...], "roundings": [...], "packings": [...],
///  "scale_layouts": [...], "nonfinites": [...]}, each a list of dicts in
///  table order.
nb::dict vocabulary() {
  nb::dict v;
  nb::list formats, schemes, kinds, rules, roundings, packings, layouts, nonFinites;
  for (const num::FormatNames &n : num::formatNames()) {
    num::Format f = *num::lookupFormat(n.format);
    nb::dict d;
    d["name"] = f.name;
    nb::list aliases;
    for (std::string_view a : n.aliases)
      aliases.append(std::string(a));
    d["aliases"] = nb::tuple(aliases);
    d["bits"] = f.bits();
    d["ebits"] = f.ebits;
    d["mbits"] = f.mbits;
    d["bias"] = f.bias;
    d["signed"] = f.hasSign;
    d["specials"] = std::string(num::toString(f.policy));
    d["max"] = f.maxFinite();
    formats.append(d);
  }
  for (const num::SchemeInfo &s : num::schemes()) {
    nb::dict d = namesDict(s.names);
    d["elem"] = std::string(s.elem);
    d["scale_kind"] = std::string(num::toString(s.scaleKind));
    d["block"] = nb::make_tuple(s.blockRows, s.blockCols);
    d["bits"] = num::lookupFormat(s.elem)->bits();
    schemes.append(d);
  }
  for (const num::ScaleKindInfo &k : num::scaleKinds()) {
    nb::dict d = namesDict(k.names);
    d["scale_format"] = k.scaleFormat.empty() ? nb::object(nb::none())
                                              : nb::str(k.scaleFormat.data());
    kinds.append(d);
  }
  for (const num::ScaleRuleInfo &r : num::scaleRules()) {
    nb::dict d = namesDict(r.names);
    d["pow2"] = r.pow2;
    d["compiled"] = r.compiled;
    rules.append(d);
  }
  for (const num::RoundingInfo &r : num::roundings()) {
    nb::dict d = namesDict(r.names);
    d["compiled"] = r.compiled;
    roundings.append(d);
  }
  for (const num::PackingInfo &p : num::packings()) {
    nb::dict d = namesDict(p.names);
    d["element_bits"] = p.elementBits;
    d["gemm_weight"] = p.gemmWeight;
    packings.append(d);
  }
  for (const num::ScaleLayoutInfo &l : num::scaleLayouts())
    layouts.append(namesDict(l.names));
  for (const num::NonFiniteInfo &n : num::nonFinites())
    nonFinites.append(namesDict(n.names));
  v["formats"] = formats;
  v["schemes"] = schemes;
  v["scale_kinds"] = kinds;
  v["scale_rules"] = rules;
  v["roundings"] = roundings;
  v["packings"] = packings;
  v["scale_layouts"] = layouts;
  v["nonfinites"] = nonFinites;
  return v;
}

template <typename T> T *ptr(uint64_t address) {
  return reinterpret_cast<T *>(static_cast<uintptr_t>(address));
}

void copyOut(const void *src, size_t bytes, uint64_t dst) {
  if (bytes)
    std::memcpy(ptr<void>(dst), src, bytes);
}

} // namespace

NB_MODULE(_fpx, m) {
  m.doc() = "fpx native layer: libfpxrt (artifact loading and launches) and "
            "the FPxNumerics reference (CPU quantization)";
  m.attr("__version__") = rt::version();

  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const rt::Error &e) {
      PyErr_SetString(errorClass(rt::errorCodeName(e.code())), e.what());
    } catch (const num::Error &e) {
      PyErr_SetString(errorClass("invalid_argument"), e.what());
    }
  });
  fpx::python::bindTorchOps(m);
  m.def("_set_error_classes",
        [](const std::map<std::string, nb::object> &classes) {
          errorClasses() = classes;
        });

  //===--------------------------------------------------------------------===//
  // Runtime
  //===--------------------------------------------------------------------===//

  m.def("has_driver", &rt::CudaApi::hasDriver,
        "True when the CUDA driver loads and a GPU is visible.");
  m.def("driver_version", &rt::CudaApi::driverVersion);
  m.def("require_driver", [] { rt::CudaApi::driver(); },
        "Raises fpx.NoDeviceError (with the cause) when there is no GPU.");
  m.def("current_target", &rt::currentTarget);
  m.def("compile_cuda", &rt::compileCuda, "source"_a, "arch"_a,
        "options"_a = std::vector<std::string>(), "name"_a = "fpx_nvrtc.cu");
  m.def("cache_directory", &rt::DiskCache::defaultDirectory);
  m.def("hash_hex", [](nb::bytes data) {
    return rt::hashHex(std::string_view(data.c_str(), data.size()));
  });

  nb::class_<rt::Function>(m, "Function")
      .def_prop_ro("name", &rt::Function::name)
      .def_prop_ro("inputs",
                   [](const rt::Function &f) {
                     std::vector<std::pair<std::string, std::string>> out;
                     for (const rt::TensorInfo &t : f.info().Inputs)
                       out.emplace_back(t.Name, rt::dtypeName(t.Type));
                     return out;
                   })
      .def_prop_ro("outputs",
                   [](const rt::Function &f) {
                     std::vector<std::pair<std::string, std::string>> out;
                     for (const rt::TensorInfo &t : f.info().Outputs)
                       out.emplace_back(t.Name, rt::dtypeName(t.Type));
                     return out;
                   })
      .def_prop_ro("scalars",
                   [](const rt::Function &f) {
                     // (name, type, default or None)
                     nb::list out;
                     for (const rt::ScalarInfo &s : f.info().Scalars) {
                       nb::object def = nb::none();
                       if (s.DefaultInt)
                         def = nb::int_(*s.DefaultInt);
                       else if (s.DefaultFloat)
                         def = nb::float_(*s.DefaultFloat);
                       out.append(nb::make_tuple(s.Name,
                                                 rt::paramTypeName(s.Type), def));
                     }
                     return out;
                   })
      .def("output_shapes", &rt::Function::outputShapes, "input_shapes"_a)
      .def(
          "launch",
          [](const rt::Function &f, uint64_t stream,
             const std::vector<PyTensor> &inputs,
             const std::vector<PyTensor> &outputs, nb::list scalars) {
            std::vector<rt::TensorRef> in, out;
            in.reserve(inputs.size());
            out.reserve(outputs.size());
            for (const PyTensor &t : inputs)
              in.push_back(toRef(t));
            for (const PyTensor &t : outputs)
              out.push_back(toRef(t));
            std::vector<rt::Scalar> sc;
            for (nb::handle s : scalars)
              sc.push_back(toScalar(s));
            // The launch itself is asynchronous and short; keeping the GIL
            // avoids two lock round trips on a path measured in microseconds.
            f.launch(reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream)),
                     in, out, sc);
          },
          "stream"_a, "inputs"_a, "outputs"_a, "scalars"_a = nb::list());

  nb::class_<rt::Module>(m, "Module")
      .def_static(
          "load",
          [](const std::string &path, const rt::LinkSources &link) {
            return rt::Module::load(path, link);
          },
          "path"_a, "link"_a = rt::LinkSources())
      .def_prop_ro("link_symbols",
                   [](const rt::Module &mod) {
                     std::vector<std::pair<std::string, std::string>> out;
                     for (const rt::LinkSymbol &l : mod.info().Link)
                       out.emplace_back(l.Symbol, l.Signature);
                     return out;
                   })
      .def_prop_ro("source", [](const rt::Module &mod) { return mod.info().Source; })
      .def_prop_ro("target", [](const rt::Module &mod) { return mod.info().Target; })
      .def_prop_ro("spec_hash",
                   [](const rt::Module &mod) { return mod.info().SpecHash; })
      .def_prop_ro("function_names",
                   [](const rt::Module &mod) {
                     std::vector<std::string> names;
                     for (const rt::Function &f : mod.functions())
                       names.push_back(f.name());
                     return names;
                   })
      .def("function", &rt::Module::function, "name"_a,
           nb::rv_policy::reference_internal)
      .def("preload", [](const rt::Module &mod) { return mod.preload(); });

  //===--------------------------------------------------------------------===//
  // Call acceptance (issue 34): whether an artifact's function takes a call,
  // answered by the runtime's own contract checks (fpx/Runtime/Accept.h, the
  // code launch() runs) from the metadata alone, so the package keeps no
  // second reading of artifacts and no expression interpreter.
  //===--------------------------------------------------------------------===//

  {
    using Shapes = std::vector<std::vector<int64_t>>;
    // (accepted, reason): the reason is empty when accepted, else the cause
    // a launch with these inputs would raise.
    auto verdict = [](const rt::FunctionInfo &fn, const Shapes &shapes,
                      const std::vector<std::string> &dtypes, bool leading) {
      std::vector<rt::DType> types;
      for (const std::string &word : dtypes) {
        std::optional<rt::DType> type = rt::parseDType(word);
        if (!type)
          throw rt::Error(rt::ErrorCode::InvalidArgument, "accepts", fn.Name,
                          "unknown dtype '" + word + "'");
        types.push_back(*type);
      }
      rt::Verdict v = rt::accepts(fn, shapes, types, leading);
      return std::make_pair(v.Accepted, std::move(v.Reason));
    };
    const char *acceptsDoc =
        "(accepted, reason) for inputs of these shapes (and dtype words, "
        "one per shape, when given): the checks launch() runs, no GPU "
        "needed. With leading=True the shapes may be the leading inputs' "
        "only; a rule over a later input's shape then refuses.";

    nb::class_<rt::ArtifactInfo>(m, "ArtifactInfo")
        .def_static("read", &rt::ArtifactInfo::read, "path"_a,
                    "Reads and validates NAME.json alone (not its PTX).")
        .def_prop_ro("source",
                     [](const rt::ArtifactInfo &a) { return a.Source; })
        .def_prop_ro("target",
                     [](const rt::ArtifactInfo &a) { return a.Target; })
        .def_prop_ro("options",
                     [](const rt::ArtifactInfo &a) -> nb::object {
                       // Free-form data the runtime keeps as JSON text.
                       if (a.Options.empty())
                         return nb::none();
                       return nb::module_::import_("json").attr("loads")(
                           a.Options);
                     })
        .def_prop_ro("function_names",
                     [](const rt::ArtifactInfo &a) {
                       std::vector<std::string> names;
                       for (const rt::FunctionInfo &fn : a.Functions)
                         names.push_back(fn.Name);
                       return names;
                     })
        .def(
            "accepts",
            [verdict](const rt::ArtifactInfo &a, std::string_view function,
                      const Shapes &shapes,
                      const std::vector<std::string> &dtypes, bool leading) {
              return verdict(a.function(function), shapes, dtypes, leading);
            },
            "function"_a, "input_shapes"_a,
            "dtypes"_a = std::vector<std::string>(), "leading"_a = false,
            acceptsDoc);

    auto function =
        nb::borrow<nb::class_<rt::Function>>(nb::type<rt::Function>());
    function.def(
        "accepts",
        [verdict](const rt::Function &f, const Shapes &shapes,
                  const std::vector<std::string> &dtypes, bool leading) {
          return verdict(f.info(), shapes, dtypes, leading);
        },
        "input_shapes"_a, "dtypes"_a = std::vector<std::string>(),
        "leading"_a = false, acceptsDoc);
    auto module = nb::borrow<nb::class_<rt::Module>>(nb::type<rt::Module>());
    module.def_prop_ro(
        "info",
        [](const rt::Module &mod) -> const rt::ArtifactInfo & {
          return mod.info();
        },
        nb::rv_policy::reference_internal);
  }

  m.def(
      "compile_spec",
      [](const std::string &spec, const std::string &target,
         const std::vector<std::string> &options, const rt::LinkSources &link) {
        return rt::compileSpec(spec, target, options, nullptr, link);
      },
      "spec"_a, "target"_a = "", "options"_a = std::vector<std::string>(),
      "link"_a = rt::LinkSources());

  //===--------------------------------------------------------------------===//
  // Numerics (CPU reference): raw host pointers in, caller-allocated out.
  //===--------------------------------------------------------------------===//

  nb::class_<num::Quantized>(m, "Quantized")
      .def_ro("batch", &num::Quantized::batch)
      .def_ro("rows", &num::Quantized::rows)
      .def_ro("cols", &num::Quantized::cols)
      .def_ro("scale_rows", &num::Quantized::scaleRows)
      .def_ro("scale_cols", &num::Quantized::scaleCols)
      .def_ro("block_rows", &num::Quantized::blockRows)
      .def_ro("block_cols", &num::Quantized::blockCols)
      .def_prop_ro("global_scales",
                   [](const num::Quantized &q) { return q.globalScales; })
      .def("copy_codes", [](const num::Quantized &q, uint64_t dst) {
        copyOut(q.codes.data(), q.codes.size(), dst);
      })
      .def("copy_scale_codes", [](const num::Quantized &q, uint64_t dst) {
        copyOut(q.scaleCodes.data(), q.scaleCodes.size(), dst);
      })
      .def("copy_scales", [](const num::Quantized &q, uint64_t dst) {
        copyOut(q.scales.data(), q.scales.size() * 4, dst);
      });

  m.def(
      "quantize",
      [](uint64_t x, const std::string &dtype, int64_t batch, int64_t rows,
         int64_t cols, const std::string &format, int64_t blockRows,
         int64_t blockCols, const std::string &scaleKind,
         const std::string &rule, const std::string &rounding, uint64_t seed,
         bool globalScale, std::vector<float> tensorAmax,
         const std::string &nonFinite) {
        num::QuantSpec spec;
        spec.elem = num::getFormat(format);
        spec.blockRows = blockRows;
        spec.blockCols = blockCols;
        spec.scaleKind = num::parseScaleKind(scaleKind);
        spec.rule = num::parseScaleRule(rule);
        spec.rounding = num::parseRounding(rounding);
        spec.seed = seed;
        spec.nvfp4GlobalScale = globalScale;
        spec.nvfp4TensorAmax = std::move(tensorAmax);
        spec.nonFinite = num::parseNonFinite(nonFinite);
        nb::gil_scoped_release release;
        if (dtype == "bf16")
          return num::quantizeBf16(ptr<const uint16_t>(x), batch, rows, cols,
                                   spec);
        if (dtype == "f32")
          return num::quantize(ptr<const float>(x), batch, rows, cols, spec);
        throw num::Error("the CPU quantizer reads f32 or bf16, got " + dtype);
      },
      "x"_a, "dtype"_a, "batch"_a, "rows"_a, "cols"_a, "format"_a,
      "block_rows"_a, "block_cols"_a, "scale_kind"_a, "rule"_a, "rounding"_a,
      "seed"_a, "global_scale"_a, "tensor_amax"_a = std::vector<float>{},
      "nonfinite"_a = "nan");

  m.def("decode",
        [](const std::string &format, uint64_t codes, int64_t n, uint64_t out) {
          num::Format fmt = num::getFormat(format);
          const uint8_t *in = ptr<const uint8_t>(codes);
          float *o = ptr<float>(out);
          for (int64_t i = 0; i < n; ++i)
            o[i] = num::decode(fmt, in[i]);
        });
  m.def("encode", [](const std::string &format, uint64_t x, int64_t n,
                     const std::string &rounding, bool saturate, uint64_t out) {
    num::Format fmt = num::getFormat(format);
    num::Rounding r = num::parseRounding(rounding);
    num::Overflow o =
        saturate ? num::Overflow::SatFinite : num::Overflow::ToInfOrNaN;
    const float *in = ptr<const float>(x);
    uint8_t *dst = ptr<uint8_t>(out);
    for (int64_t i = 0; i < n; ++i)
      dst[i] = num::encode(fmt, in[i], r, o);
  });
  m.def("vocabulary", &vocabulary,
        "The numerics core's tables of formats, schemes, scale kinds, scale "
        "rules, roundings, packings and scale layouts.");
  m.def("format_info", [](const std::string &format) {
    num::Format f = num::getFormat(format);
    return std::make_tuple(f.name, f.bits(), f.ebits, f.mbits, f.maxFinite());
  });

  m.def("pack_fp4x2", [](uint64_t codes, int64_t n, uint64_t out) {
    std::vector<uint8_t> packed = num::packFp4x2(ptr<const uint8_t>(codes), n);
    copyOut(packed.data(), packed.size(), out);
  });
  m.def("unpack_fp4x2", [](uint64_t packed, int64_t n, uint64_t out) {
    std::vector<uint8_t> codes = num::unpackFp4x2(ptr<const uint8_t>(packed), n);
    copyOut(codes.data(), codes.size(), out);
  });
  m.def("fp6_packed_cols", [](int64_t cols, const std::string &layout) {
    return num::fp6PackedCols(cols, parseFp6Layout(layout));
  });
  m.def("pack_fp6", [](uint64_t codes, int64_t rows, int64_t cols,
                       const std::string &layout, uint64_t out) {
    std::vector<uint8_t> packed =
        num::packFp6(ptr<const uint8_t>(codes), rows, cols, parseFp6Layout(layout));
    copyOut(packed.data(), packed.size(), out);
  });
  m.def("unpack_fp6", [](uint64_t packed, int64_t rows, int64_t cols,
                         const std::string &layout, uint64_t out) {
    std::vector<uint8_t> codes = num::unpackFp6(ptr<const uint8_t>(packed), rows,
                                                cols, parseFp6Layout(layout));
    copyOut(codes.data(), codes.size(), out);
  });
  m.def("nvfp4_global_scales", [](uint64_t amax, int64_t n, uint64_t out) {
    const float *a = ptr<const float>(amax);
    float *g = ptr<float>(out);
    for (int64_t i = 0; i < n; ++i)
      g[i] = num::nvfp4GlobalScale(a[i]);
  });
  m.def("blocked_shape", [](int64_t rows, int64_t cols) {
    return std::make_pair(num::blockedRows(rows), num::blockedCols(cols));
  });
  m.def("swizzle_blocked", [](uint64_t scales, int64_t rows, int64_t cols,
                              uint64_t out) {
    std::vector<uint8_t> b =
        num::swizzleBlocked(ptr<const uint8_t>(scales), rows, cols);
    copyOut(b.data(), b.size(), out);
  });
  m.def("swizzle_blocked_grouped", [](uint64_t scales, int64_t rows, int64_t cols,
                                      std::vector<int32_t> ends, uint64_t out) {
    std::vector<uint8_t> b =
        num::swizzleBlockedGrouped(ptr<const uint8_t>(scales), rows, cols, ends, 0);
    copyOut(b.data(), b.size(), out);
  });
  m.def("unswizzle_blocked", [](uint64_t blocked, int64_t rows, int64_t cols,
                                uint64_t out) {
    std::vector<uint8_t> s =
        num::unswizzleBlocked(ptr<const uint8_t>(blocked), rows, cols);
    copyOut(s.data(), s.size(), out);
  });
  m.def("hadamard", [](uint64_t data, int64_t rows, int64_t cols, int n,
                       uint64_t seed, bool randomSigns) {
    nb::gil_scoped_release release;
    num::randomHadamard(ptr<float>(data), rows, cols, n, seed, randomSigns);
  });
}
