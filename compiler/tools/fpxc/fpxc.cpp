//===- fpxc.cpp - the fpx kernel compiler driver --------------------------===//
//
//   fpxc compile SPEC.mlir --target sm_90a [--emit artifact|mlir|llvm|ptx|cubin] -o OUT
//   fpxc targets | fpxc formats | fpxc vocabulary [--json] | fpxc --version
//
// User errors print `file:line:col: error: ...` (or `fpxc: error: ...`) and
// exit 1; nothing the user gave is overwritten.
//
//===----------------------------------------------------------------------===//
#include "fpx/Config/Version.h"
#include "fpx/Numerics/Format.h"
#include "fpx/Dialect/FPx/IR/FPxVocabulary.h"
#include "fpx/Numerics/Vocabulary.h"
#include "fpx/Pipeline/Artifact.h"
#include "fpx/Pipeline/OutputFile.h"
#include "fpx/Pipeline/Pipeline.h"
#include "fpx/Target/TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

namespace po = boost::program_options;
using namespace mlir;

#ifndef FPX_DEFAULT_PTXAS
#define FPX_DEFAULT_PTXAS ""
#endif

/// The gpu.module attribute naming the target its kernels were legalized for.
static constexpr llvm::StringLiteral kTargetAttr = "fpx.target";

static int fail(const std::string &msg) {
  llvm::errs() << "fpxc: error: " << msg << "\n";
  return 1;
}

/// MLIR's parser recurses once per nesting level, so a spec nested a few
/// thousand levels deep ("module {" * 10000) overflowed its stack. No spec
/// nests more than a handful; deeper input is refused at the bracket that
/// crosses the limit, before parsing. Brackets in string literals and
/// comments do not count, nor the '>' of "->".
static bool checkNesting(llvm::SourceMgr &sourceMgr) {
  constexpr int kMaxNesting = 256;
  llvm::StringRef text = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') { // a string literal, with \-escapes
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = std::min(text.find('\n', i), text.size());
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > kMaxNesting) {
        sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(text.data() + i),
                               llvm::SourceMgr::DK_Error,
                               "nested more than " + llvm::Twine(kMaxNesting) +
                                   " levels deep");
        return false;
      }
    } else if (c == '}' || c == ')' || c == ']' ||
               (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      depth = std::max(depth - 1, 0);
    }
  }
  return true;
}

static std::string findPtxas() {
  if (const char *env = std::getenv("FPX_PTXAS"))
    return env;
  if (auto p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  for (const char *c : {FPX_DEFAULT_PTXAS, "/usr/local/cuda/bin/ptxas"})
    if (*c && llvm::sys::fs::can_execute(c))
      return c;
  return "";
}

/// Assembles PTX to a cubin with ptxas; returns false with a message.
static bool runPtxas(llvm::StringRef ptx, llvm::StringRef chip,
                     std::string &cubin, std::string &err) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    err = "ptxas not found (set FPX_PTXAS or put CUDA's bin on PATH)";
    return false;
  }
  llvm::SmallString<128> in, out, log;
  llvm::sys::fs::createTemporaryFile("fpxc", "ptx", in);
  llvm::sys::fs::createTemporaryFile("fpxc", "cubin", out);
  llvm::sys::fs::createTemporaryFile("fpxc", "log", log);
  llvm::FileRemover r1(in), r2(out), r3(log);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    os << ptx;
  }
  std::string arch = "-arch=" + chip.str();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, arch, "-O3", in, "-o", out};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &execError);
  if (rc < 0) {
    err = "cannot run ptxas '" + ptxas + "': " + execError;
    return false;
  }
  if (rc != 0) {
    auto buf = llvm::MemoryBuffer::getFile(log);
    err = "ptxas rejected the PTX for " + chip.str() + ":\n" +
          (buf ? (*buf)->getBuffer().str() : std::string());
    return false;
  }
  auto buf = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!buf || (*buf)->getBufferSize() == 0) {
    err = "ptxas '" + ptxas + "' exited 0 but wrote no cubin";
    return false;
  }
  cubin = (*buf)->getBuffer().str();
  return true;
}

static int cmdTargets() {
  std::printf("%-9s %-4s %-5s %-40s %s\n", "target", "sm", "ptx",
              "native conversions", "matrix instructions");
  for (const fpx::TargetInfo &t : fpx::allTargets()) {
    std::string cvt, mma;
    auto add = [](std::string &s, const char *x) { s += s.empty() ? x : std::string(",") + x; };
    if (t.has(fpx::CvtF8x2)) add(cvt, "rn.e4m3x2/e5m2x2");
    if (t.has(fpx::CvtF6F4x2)) add(cvt, "rn.e2m1x2/e2m3x2/e3m2x2");
    if (t.has(fpx::CvtUe8m0x2)) add(cvt, "rz/rp.ue8m0x2");
    if (t.has(fpx::CvtRs)) add(cvt, "rs.x4");
    if (cvt.empty()) cvt = "none (all emulated)";
    if (t.mma & fpx::MmaSync) add(mma, "mma.sync");
    if (t.mma & fpx::MmaSyncFp8) add(mma, "mma.sync.fp8");
    if (t.mma & fpx::Wgmma) add(mma, "wgmma");
    if (t.mma & fpx::Tcgen05) add(mma, "tcgen05");
    if (t.mma & fpx::MmaBlockScaled) add(mma, "mma.block_scale");
    std::printf("%-9s %-4u %-5s %-40s %s\n", t.chip.str().c_str(), t.sm,
                t.ptxVersionString().c_str(), cvt.c_str(), mma.c_str());
  }
  return 0;
}

static int cmdFormats() {
  std::printf("%-8s %4s %5s %5s %5s %-20s %-12s %-12s %-12s\n", "format", "bits",
              "ebits", "mbits", "bias", "specials", "max", "min normal",
              "min subnorm");
  for (const fpx::num::Format &f : fpx::num::namedFormats())
    std::printf("%-8s %4d %5d %5d %5d %-20s %-12g %-12g %-12g\n", f.name.c_str(),
                f.bits(), f.ebits, f.mbits, f.bias, fpx::num::toString(f.policy),
                f.maxFinite(), f.minNormal(), f.minSubnormal());
  std::printf("\nAny signed e<E>m<M> with 1+E+M <= 8 is accepted too "
              "(e.g. #fpx.format<e3m2>, #fpx.format<e4m2, bias = 11>).\n");
  return 0;
}

/// The spellings of a vocabulary entry, plus `ir`: the dialect's keyword
/// (null where the dialect has none).
static llvm::json::Object namesJson(const fpx::num::Names &n,
                                    std::optional<llvm::StringRef> ir) {
  llvm::json::Array aliases;
  for (std::string_view a : n.aliases)
    aliases.push_back(std::string(a));
  llvm::json::Object o{{"name", std::string(n.name)},
                       {"api", std::string(n.api)},
                       {"aliases", std::move(aliases)},
                       {"summary", std::string(n.summary)}};
  o["ir"] = ir ? llvm::json::Value(ir->str()) : llvm::json::Value(nullptr);
  return o;
}

static llvm::json::Value typeName(mlir::Type type) {
  if (!type)
    return nullptr;
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// The numerics vocabulary with the dialect's spellings (MLIR types,
/// keywords): what python-bindings/tools/build_bundle.py reads.
static llvm::json::Object vocabularyJson(mlir::MLIRContext &ctx) {
  namespace num = fpx::num;
  llvm::json::Array formats, schemes, kinds, rules, roundings, packings, layouts;
  for (const num::FormatNames &n : num::formatNames()) {
    num::Format f = *num::lookupFormat(n.format);
    llvm::json::Array aliases;
    for (std::string_view a : n.aliases)
      aliases.push_back(std::string(a));
    formats.push_back(llvm::json::Object{
        {"name", f.name}, {"aliases", std::move(aliases)}, {"bits", f.bits()},
        {"ebits", f.ebits}, {"mbits", f.mbits}, {"bias", f.bias},
        {"signed", f.hasSign}, {"specials", num::toString(f.policy)},
        {"max", f.maxFinite()},
        {"mlir_type", typeName(fpx::storageTypeOf(f, &ctx))}});
  }
  for (const num::SchemeInfo &s : num::schemes()) {
    llvm::json::Object o = namesJson(s.names, std::nullopt);
    o.erase("ir");
    o["elem"] = std::string(s.elem);
    o["scale_kind"] = num::toString(s.scaleKind);
    o["block"] = llvm::json::Array{s.blockRows, s.blockCols};
    o["bits"] = num::lookupFormat(s.elem)->bits();
    schemes.push_back(std::move(o));
  }
  for (const num::ScaleKindInfo &k : num::scaleKinds()) {
    llvm::json::Object o = namesJson(k.names, std::nullopt);
    o.erase("ir");
    o["scale_format"] = k.scaleFormat.empty()
                            ? llvm::json::Value(nullptr)
                            : llvm::json::Value(std::string(k.scaleFormat));
    o["mlir_type"] = typeName(fpx::scaleTypeOf(k.value, &ctx));
    kinds.push_back(std::move(o));
  }
  for (const num::ScaleRuleInfo &r : num::scaleRules()) {
    std::optional<fpx::ScaleRule> ir = fpx::toScaleRuleAttr(r.value);
    llvm::json::Object o = namesJson(
        r.names, ir ? std::optional(fpx::stringifyScaleRule(*ir)) : std::nullopt);
    o["pow2"] = r.pow2;
    rules.push_back(std::move(o));
  }
  for (const num::RoundingInfo &r : num::roundings()) {
    std::optional<fpx::RoundingKind> ir = fpx::toRoundingKind(r.value);
    roundings.push_back(namesJson(
        r.names, ir ? std::optional(fpx::stringifyRoundingKind(*ir)) : std::nullopt));
  }
  for (const num::PackingInfo &p : num::packings()) {
    std::optional<fpx::LayoutKind> ir = fpx::toLayoutKind(p.value);
    llvm::json::Object o = namesJson(
        p.names, ir ? std::optional(fpx::stringifyLayoutKind(*ir)) : std::nullopt);
    o["element_bits"] = p.elementBits;
    o["gemm_weight"] = p.gemmWeight;
    packings.push_back(std::move(o));
  }
  for (const num::ScaleLayoutInfo &l : num::scaleLayouts())
    layouts.push_back(namesJson(
        l.names, fpx::stringifyLayoutKind(fpx::toLayoutKind(l.value))));
  llvm::json::Array nonFinites;
  for (const num::NonFiniteInfo &n : num::nonFinites())
    nonFinites.push_back(namesJson(
        n.names, fpx::stringifyNonFiniteKind(fpx::toNonFiniteKind(n.value))));
  return llvm::json::Object{
      {"version", FPX_VERSION},     {"formats", std::move(formats)},
      {"schemes", std::move(schemes)}, {"scale_kinds", std::move(kinds)},
      {"scale_rules", std::move(rules)}, {"roundings", std::move(roundings)},
      {"packings", std::move(packings)}, {"scale_layouts", std::move(layouts)},
      {"nonfinites", std::move(nonFinites)}};
}

/// `fpxc vocabulary`: every word of fpx, as a table per kind or as JSON.
static int cmdVocabulary(bool asJson) {
  mlir::MLIRContext ctx;
  llvm::json::Object v = vocabularyJson(ctx);
  if (asJson) {
    llvm::outs() << llvm::formatv("{0:1}", llvm::json::Value(std::move(v)))
                 << "\n";
    return 0;
  }
  for (const char *table : {"schemes", "scale_kinds", "scale_rules", "roundings",
                            "packings", "scale_layouts", "nonfinites"}) {
    llvm::outs() << table << ":\n";
    for (const llvm::json::Value &e : *v.getArray(table)) {
      const llvm::json::Object &o = *e.getAsObject();
      llvm::outs() << "  " << *o.getString("name");
      std::vector<std::string> other;
      auto add = [&](llvm::StringRef w) {
        if (w != *o.getString("name") && !llvm::is_contained(other, w.str()))
          other.push_back(w.str());
      };
      add(*o.getString("api"));
      for (const llvm::json::Value &a : *o.getArray("aliases"))
        add(*a.getAsString());
      if (std::optional<llvm::StringRef> ir = o.getString("ir"))
        add(*ir);
      if (!other.empty())
        llvm::outs() << " (" << llvm::join(other, ", ") << ")";
      llvm::outs() << ": " << *o.getString("summary");
      // A rule or rounding without a dialect keyword: fpxc does not lower it.
      llvm::StringRef t(table);
      if ((t == "scale_rules" || t == "roundings") && o.get("ir") &&
          o.get("ir")->kind() == llvm::json::Value::Null)
        llvm::outs() << " [CPU reference only]";
      llvm::outs() << "\n";
    }
  }
  llvm::outs() << "formats: see `fpxc formats`\n";
  return 0;
}

/// The files `compile` will write, checked before it writes any: none may be
/// the input (by any path) or a directory, and an artifact needs a stem.
static bool checkOutputs(const std::string &input, const std::string &emit,
                         const std::string &stem, const std::string &output,
                         bool withCubin, std::string &err) {
  std::vector<std::string> files;
  if (emit == "artifact") {
    if (stem == "-" || stem.empty() || stem.back() == '/' ||
        llvm::sys::fs::is_directory(stem)) {
      err = "-o '" + stem + "': an artifact needs a file stem (it writes STEM.json "
            "and STEM.ptx), e.g. -o DIR/name";
      return false;
    }
    files = {stem + ".ptx", stem + ".json"};
    if (withCubin)
      files.push_back(stem + ".cubin");
  } else if (!output.empty() && output != "-") {
    files = {output};
  } else if (emit == "cubin") {
    err = "--emit cubin needs -o FILE";
    return false;
  }
  for (const std::string &f : files) {
    if (f.back() == '/' || llvm::sys::fs::is_directory(f)) {
      err = "cannot write '" + f + "': it is a directory";
      return false;
    }
    if (fpx::isSameFile(input, f)) {
      err = "refusing to overwrite the input '" + input + "'";
      return false;
    }
  }
  return true;
}

/// Kernel-level input (gpu.modules, e.g. `--emit mlir` output) is lowered as
/// written: its conversions were legalized for the target it names.
static bool checkKernelTarget(ModuleOp module, llvm::StringRef chip) {
  bool ok = true;
  module->walk([&](gpu::GPUModuleOp m) {
    auto target = m->getAttrOfType<StringAttr>(kTargetAttr);
    if (target && target.getValue() != chip) {
      m.emitError() << "these kernels were legalized for " << target.getValue()
                    << ", not " << chip << ": compile the spec for " << chip
                    << " instead";
      ok = false;
    }
  });
  return ok;
}

static int cmdCompile(const std::string &input, const std::string &chip,
                      const std::string &emit, std::string output,
                      bool allowEmulation, bool withCubin) {
  if (!fpx::lookupTarget(chip))
    return fail("unknown target '" + chip + "' (known: " + fpx::targetNames() + ")");
  static const char *kEmits[] = {"artifact", "mlir", "llvm", "ptx", "cubin"};
  if (!llvm::is_contained(kEmits, emit))
    return fail("unknown --emit '" + emit + "' (artifact, mlir, llvm, ptx, cubin)");
  if (withCubin && emit != "artifact")
    return fail("--cubin adds a cubin to an artifact; with --emit " + emit +
                " it would do nothing (--emit cubin writes one)");
  std::string stem = output.empty() ? llvm::sys::path::stem(input).str() : output;
  std::string error;
  if (!checkOutputs(input, emit, stem, output, withCubin, error))
    return fail(error);
  auto file = llvm::MemoryBuffer::getFile(input, /*IsText=*/true);
  if (!file)
    return fail("cannot read '" + input + "': " + file.getError().message());
  std::string specText = (*file)->getBuffer().str();

  DialectRegistry registry;
  fpx::registerFPxDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false); // the location is enough; no IR dumps
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diag(sourceMgr, &context);
  if (!checkNesting(sourceMgr))
    return 1;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  bool hasSpecFunctions = false;
  module->walk([&](func::FuncOp f) { hasSpecFunctions |= !f.isDeclaration(); });
  gpu::GPUModuleOp firstKernels;
  module->walk([&](gpu::GPUModuleOp m) {
    if (!firstKernels)
      firstKernels = m;
  });
  bool hasKernels = bool(firstKernels);
  if (!hasSpecFunctions && !hasKernels) {
    emitError(FileLineColLoc::get(&context, input, 1, 1),
              "nothing to compile: no function with a body (a spec defines "
              "func.func ops of fpx ops)");
    return 1;
  }
  if (hasSpecFunctions && hasKernels) {
    firstKernels.emitError("a spec cannot hold gpu.modules beside its functions: fpxc "
                    "writes the kernels (compile kernel-level input on its own)");
    return 1;
  }
  if (hasKernels && !checkKernelTarget(*module, chip))
    return 1;

  // Phase 1: spec -> kernels (fusion, launch records, legalization).
  fpx::PipelineOptions opts;
  opts.chip = chip;
  opts.allowEmulation = allowEmulation;
  opts.until = fpx::Stage::Kernels;
  // A module of gpu.modules and no functions is kernel-level input: it is
  // legalized and lowered as written (its kernels carry fpx.kernel records).
  opts.fromSpec = hasSpecFunctions;
  PassManager pm1(&context);
  if (failed(fpx::buildFPxPipeline(pm1, opts, error)))
    return fail(error);
  if (failed(pm1.run(*module)))
    return 1;
  // The legalized kernels name their target, so that `--emit mlir` output is
  // not lowered for another one later (checkKernelTarget).
  module->walk([&](gpu::GPUModuleOp m) {
    m->setAttr(kTargetAttr, StringAttr::get(&context, chip));
  });
  auto writeOut = [&](llvm::StringRef path, llvm::StringRef data) -> bool {
    if (!fpx::writeOutputFile(path, data, input, error)) {
      fail(error);
      return false;
    }
    return true;
  };
  if (emit == "mlir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    if (output.empty() || output == "-") {
      llvm::outs() << text;
      return 0;
    }
    return writeOut(output, text) ? 0 : 1;
  }
  FailureOr<llvm::json::Object> collected = fpx::collectLaunchRecords(*module);
  if (failed(collected))
    return 1;
  llvm::json::Object records = std::move(*collected);

  // Phase 2: kernels -> NVVM -> PTX (or LLVM IR).
  opts.fromSpec = false;
  opts.legalize = false;
  opts.until = fpx::Stage::PTX;
  PassManager pm2(&context);
  if (emit == "llvm") {
    opts.until = fpx::Stage::LLVM;
    (void)fpx::buildFPxPipeline(pm2, opts, error);
    GpuModuleToBinaryPassOptions bin;
    bin.compilationTarget = "llvm";
    pm2.addPass(createGpuModuleToBinaryPass(bin));
  } else {
    (void)fpx::buildFPxPipeline(pm2, opts, error);
  }
  if (failed(pm2.run(*module)))
    return 1;
  FailureOr<std::string> object = fpx::extractPtx(*module);
  if (failed(object))
    return fail("the spec produced no kernels");
  if (emit == "llvm") {
    llvm::LLVMContext llctx;
    auto mod = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(*object, "kernels"), llctx);
    if (!mod)
      return fail("internal: cannot read the generated LLVM bitcode");
    std::string text;
    llvm::raw_string_ostream os(text);
    (*mod)->print(os, nullptr);
    if (output.empty() || output == "-") {
      llvm::outs() << text;
      return 0;
    }
    return writeOut(output, text) ? 0 : 1;
  }
  const std::string &ptx = *object;
  if (emit == "ptx") {
    if (output.empty() || output == "-") {
      llvm::outs() << ptx;
      return 0;
    }
    return writeOut(output, ptx) ? 0 : 1;
  }
  std::string cubin;
  if (const llvm::json::Array *links = records.getArray("link");
      links && (emit == "cubin" || withCubin)) {
    std::string names;
    for (const llvm::json::Value &l : *links)
      if (const llvm::json::Object *o = l.getAsObject())
        if (auto sym = o->getString("symbol"))
          names += (names.empty() ? "'" : ", '") + sym->str() + "'";
    return fail("cannot assemble a cubin: the kernels call user functions (" +
                names + ") that are only linked at load time; drop " +
                (emit == "cubin" ? "--emit cubin" : "--cubin") +
                " (the runtime links the PTX with the CUDA sources given to "
                "Module::load / fpx.load(link=...), docs/artifact.md)");
  }
  if (emit == "cubin" || withCubin)
    if (!runPtxas(ptx, chip, cubin, error))
      return fail(error);
  if (emit == "cubin")
    return writeOut(output, cubin) ? 0 : 1;
  // Artifact: STEM.json + STEM.ptx (+ STEM.cubin).
  std::string base = llvm::sys::path::filename(stem).str();
  std::string hash = fpx::specHash(specText, chip + (allowEmulation ? "" : ";noemu"));
  llvm::json::Object json = fpx::makeArtifactJson(
      std::move(records), *fpx::lookupTarget(chip), hash, base, withCubin);
  std::string jsonText;
  llvm::raw_string_ostream js(jsonText);
  js << llvm::formatv("{0:2}", llvm::json::Value(std::move(json))) << "\n";
  if (!writeOut(stem + ".ptx", ptx))
    return 1;
  if (withCubin && !writeOut(stem + ".cubin", cubin))
    return 1;
  return writeOut(stem + ".json", jsonText) ? 0 : 1;
}

int main(int argc, char **argv) {
  po::options_description opts("fpxc options");
  opts.add_options()("help,h", "show this help")("version", "print the version")(
      "target,t", po::value<std::string>()->default_value("sm_90a"),
      "target chip (see `fpxc targets`)")(
      "emit", po::value<std::string>()->default_value("artifact"),
      "artifact (STEM.json + STEM.ptx), mlir, llvm, ptx or cubin")(
      "output,o", po::value<std::string>()->default_value(""),
      "output file, or artifact stem (default: the spec's name)")(
      "cubin", "also assemble a cubin into the artifact with ptxas")(
      "no-emulation", "error instead of emulating conversions the target lacks")(
      "json", "`vocabulary`: print JSON");
  po::options_description hidden;
  hidden.add_options()("command", po::value<std::string>())(
      "inputs", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("command", 1).add("inputs", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error &e) {
    return fail(e.what());
  }
  if (vm.count("version")) {
    std::printf("fpxc %s (MLIR/LLVM %d)\n", FPX_VERSION, LLVM_VERSION_MAJOR);
    return 0;
  }
  std::string usage =
      "usage: fpxc compile SPEC.mlir [--target CHIP] [--emit KIND] [-o OUT]\n"
      "       fpxc targets | fpxc formats | fpxc vocabulary [--json] | fpxc --version\n";
  if (vm.count("help")) {
    std::cout << usage << "\n" << opts;
    return 0;
  }
  if (!vm.count("command")) {
    std::cerr << usage << "\n" << opts;
    return 1;
  }
  std::string cmd = vm["command"].as<std::string>();
  std::vector<std::string> inputs;
  if (vm.count("inputs"))
    inputs = vm["inputs"].as<std::vector<std::string>>();
  if (cmd == "targets")
    return cmdTargets();
  if (cmd == "formats")
    return cmdFormats();
  if (cmd == "vocabulary")
    return cmdVocabulary(vm.count("json"));
  if (cmd != "compile")
    return fail("unknown command '" + cmd + "'\n" + usage);
  if (inputs.size() != 1)
    return fail("compile takes exactly one spec file");
  return cmdCompile(inputs[0], vm["target"].as<std::string>(),
                    vm["emit"].as<std::string>(), vm["output"].as<std::string>(),
                    !vm.count("no-emulation"), vm.count("cubin"));
}
