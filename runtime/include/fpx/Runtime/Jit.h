//===- Jit.h - Compile a spec with fpxc, cache it, load it ------*- C++ -*-===//
//
// The JIT path: a spec (MLIR text) + target + options goes through the
// `fpxc` executable into a temp directory; the artifact files are stored as
// one disk-cache entry keyed by the spec hash, target, options and the fpxc,
// ptxas and driver versions; the result is loaded as a Module.
//
// fpxc is found at $FPX_FPXC, else on PATH. It is run as
//   fpxc SPEC.mlir --target=CHIP -o OUTDIR [options...]
// and must leave exactly one NAME.json (plus the files it names) in OUTDIR.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_JIT_H
#define FPX_RUNTIME_JIT_H

#include "fpx/Runtime/DiskCache.h"
#include "fpx/Runtime/Runtime.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::rt {

/// Result of running a child process.
struct ProcessResult {
  int ExitCode = -1;  ///< exit status, or 128+signal
  std::string Output; ///< stdout and stderr, interleaved
};

/// Runs \p argv (argv[0] is a path or a name looked up on PATH) with
/// posix_spawn, capturing its output. Throws Error(NotFound) when it cannot
/// be started.
ProcessResult runProcess(const std::vector<std::string> &argv);

/// Absolute path of the fpxc executable ($FPX_FPXC or PATH); throws NotFound.
std::string findFpxc();

/// First line of `TOOL --version` (cached per path); "" when unavailable.
std::string toolVersion(const std::string &path);

/// The ptxas version line ($FPX_PTXAS, PATH, or $CUDA_HOME/bin); "" if none.
std::string ptxasVersion();

/// Target for the current context's device: "sm_90a" for 9.0, "sm_100a" for
/// 10.0 (the arch-specific variants fpxc emits), else "sm_XY".
std::string currentTarget();

/// The disk-cache key for a compile: hashes every input that changes code.
std::string compileCacheKey(std::string_view specText, std::string_view target,
                            const std::vector<std::string> &options,
                            std::string_view fpxcVersion);

/// Compiles \p specText for \p target (currentTarget() when empty) with
/// fpxc, through \p cache (the global one when null), and loads it with
/// the user functions \p link (Module::load). The cache key includes every
/// \p link symbol and source text. Throws Error(CompileFailed) with fpxc's
/// output.
std::shared_ptr<Module> compileSpec(std::string_view specText,
                                    std::string_view target = {},
                                    const std::vector<std::string> &options = {},
                                    const DiskCache *cache = nullptr,
                                    const LinkSources &link = {});

/// Writes \p files into \p directory (created) and returns the path of the
/// JSON among them; used to materialise cached artifacts for tools.
std::string writeFiles(const FileBundle &files, const std::string &directory);

/// Reads an artifact directory's files: the JSON and every file it names.
FileBundle readArtifactFiles(const std::string &jsonPath);

/// Loads a module from a bundle as produced by readArtifactFiles().
std::shared_ptr<Module> moduleFromBundle(const FileBundle &files,
                                         const std::string &source,
                                         const LinkSources &link = {});

} // namespace fpx::rt

#endif // FPX_RUNTIME_JIT_H
