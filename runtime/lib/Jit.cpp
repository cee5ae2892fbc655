//===- Jit.cpp - fpxc as a subprocess, cached on disk ------------------------===//

#include "fpx/Runtime/Jit.h"
#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/DiskCache.h"
#include "fpx/Runtime/Error.h"

#include <cctype>
#include <cerrno>
#include <fcntl.h>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace fpx::rt {

namespace fs = std::filesystem;

ProcessResult runProcess(const std::vector<std::string> &argv) {
  if (argv.empty())
    throw Error(ErrorCode::NotFound, "runProcess", "", "empty command");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Error(ErrorCode::NotFound, "pipe", argv[0], std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The child's stdout and stderr both go to the pipe, stdin from /dev/null.
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr,
                          args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw Error(ErrorCode::NotFound, "posix_spawn", argv[0], std::strerror(rc));
  }
  ProcessResult result;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    result.Output.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    result.ExitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.ExitCode = 128 + WTERMSIG(status);
  return result;
}

static bool isExecutable(const std::string &path) {
  return ::access(path.c_str(), X_OK) == 0 && !fs::is_directory(path);
}

static std::string searchPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  if (!path)
    return {};
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty())
      dir = ".";
    std::string candidate = dir + "/" + name;
    if (isExecutable(candidate))
      return fs::absolute(candidate).string();
  }
  return {};
}

std::string findFpxc() {
  if (const char *env = std::getenv("FPX_FPXC"); env && *env) {
    if (!isExecutable(env))
      throw Error(ErrorCode::NotFound, "find fpxc", env,
                  "FPX_FPXC does not name an executable file");
    return env;
  }
  std::string found = searchPath("fpxc");
  if (found.empty())
    throw Error(ErrorCode::NotFound, "find fpxc", "fpxc",
                "fpxc is not on PATH; set FPX_FPXC to its path, or load a "
                "prebuilt artifact with Module::load instead");
  return found;
}

std::string toolVersion(const std::string &path) {
  static std::mutex mutex;
  static std::map<std::string, std::string> versions;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = versions.find(path);
    if (it != versions.end())
      return it->second;
  }
  std::string version;
  try {
    ProcessResult r = runProcess({path, "--version"});
    if (r.ExitCode == 0) {
      version = r.Output;
      while (!version.empty() && std::isspace(static_cast<unsigned char>(version.back())))
        version.pop_back();
    }
  } catch (const Error &) {
  }
  std::lock_guard<std::mutex> lock(mutex);
  versions[path] = version;
  return version;
}

std::string ptxasVersion() {
  // Looked up once per process: it is part of every cache key.
  static const std::string version = [] {
  std::string path;
  if (const char *env = std::getenv("FPX_PTXAS"); env && *env)
    path = env;
  if (path.empty())
    path = searchPath("ptxas");
  if (path.empty())
    for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
      if (const char *root = std::getenv(var); root && *root &&
                                               isExecutable(std::string(root) + "/bin/ptxas"))
        path = std::string(root) + "/bin/ptxas";
  if (path.empty() && isExecutable("/usr/local/cuda/bin/ptxas"))
    path = "/usr/local/cuda/bin/ptxas";
  return path.empty() ? std::string() : toolVersion(path);
  }();
  return version;
}

std::string currentTarget() {
  std::string chip = deviceChip();
  // fpxc emits the arch-specific variants from sm_90 on (wgmma, tcgen05 and
  // the block-scaled conversions need them).
  int number = std::atoi(chip.c_str() + 3);
  return number >= 90 ? chip + "a" : chip;
}

std::string compileCacheKey(std::string_view specText, std::string_view target,
                            const std::vector<std::string> &options,
                            std::string_view fpxcVersion) {
  CacheKeyBuilder key;
  key.add("kind", "fpxc-artifact")
      .add("spec", specText)
      .add("target", target)
      .add("fpxc", fpxcVersion)
      .add("ptxas", ptxasVersion());
  for (const std::string &option : options)
    key.add("option", option);
  std::string driver = "none";
  if (CudaApi::hasDriver())
    driver = std::to_string(CudaApi::driverVersion());
  key.add("driver", driver);
  return key.key();
}

FileBundle readArtifactFiles(const std::string &jsonPath) {
  FileBundle files;
  auto read = [&](const std::string &path) {
    std::string text, why;
    if (!readRegularFile(path, text, &why))
      throw Error(ErrorCode::NotFound, "read artifact", path,
                  "cannot read the file: " + why);
    return text;
  };
  std::string json = read(jsonPath);
  ArtifactInfo info = ArtifactInfo::parse(json, jsonPath);
  fs::path dir = fs::path(jsonPath).parent_path();
  files.emplace_back(fs::path(jsonPath).filename().string(), json);
  files.emplace_back(info.PtxFile, read((dir / info.PtxFile).string()));
  if (!info.CubinFile.empty())
    files.emplace_back(info.CubinFile, read((dir / info.CubinFile).string()));
  return files;
}

std::string writeFiles(const FileBundle &files, const std::string &directory) {
  fs::create_directories(directory);
  std::string jsonPath;
  for (const auto &[name, data] : files) {
    std::string path = (fs::path(directory) / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out)
      throw Error(ErrorCode::CacheError, "write artifact", path,
                  "cannot write the file");
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
      jsonPath = path;
  }
  return jsonPath;
}

std::shared_ptr<Module> moduleFromBundle(const FileBundle &files,
                                         const std::string &source,
                                         const LinkSources &link) {
  const std::string *json = nullptr;
  for (const auto &[name, data] : files)
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
      json = &data;
  if (!json)
    throw Error(ErrorCode::InvalidArtifact, "load artifact", source,
                "the bundle has no .json metadata");
  ArtifactInfo info = ArtifactInfo::parse(*json, source);
  auto find = [&](const std::string &want) -> std::string {
    for (const auto &[name, data] : files)
      if (name == want)
        return data;
    throw Error(ErrorCode::InvalidArtifact, "load artifact", source,
                "the bundle lacks '" + want + "'");
  };
  std::string ptx = find(info.PtxFile);
  std::string cubin = info.CubinFile.empty() ? "" : find(info.CubinFile);
  return Module::fromMemory(*json, std::move(ptx), std::move(cubin), source,
                            link);
}

/// Runs fpxc on \p specText into a fresh temp dir and returns the packed
/// artifact files; the temp dir is removed in every case.
static std::string runFpxc(const std::string &fpxc, std::string_view specText,
                           const std::string &target,
                           const std::vector<std::string> &options) {
  std::string base = fs::temp_directory_path().string() + "/fpxc-XXXXXX";
  std::vector<char> templ(base.begin(), base.end());
  templ.push_back('\0');
  if (!::mkdtemp(templ.data()))
    throw Error(ErrorCode::CacheError, "mkdtemp", base, std::strerror(errno));
  fs::path dir(templ.data());
  struct Cleanup {
    fs::path Dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(Dir, ec);
    }
  } cleanup{dir};

  fs::path spec = dir / "spec.mlir";
  {
    std::ofstream out(spec, std::ios::binary);
    out.write(specText.data(), static_cast<std::streamsize>(specText.size()));
  }
  fs::path outDir = dir / "out";
  fs::create_directories(outDir);
  // fpxc writes the artifact OUTDIR/kernel.{json,ptx}.
  std::vector<std::string> argv = {fpxc,     "compile", spec.string(),
                                   "--target", target,    "-o",
                                   (outDir / "kernel").string()};
  argv.insert(argv.end(), options.begin(), options.end());
  ProcessResult result = runProcess(argv);
  std::string command;
  for (const std::string &a : argv)
    command += (command.empty() ? "" : " ") + a;
  if (result.ExitCode != 0)
    throw Error(ErrorCode::CompileFailed, "fpxc", target,
                "`" + command + "` exited with " +
                    std::to_string(result.ExitCode) + ":\n" + result.Output);
  std::vector<std::string> jsons;
  for (const auto &entry : fs::directory_iterator(outDir))
    if (entry.path().extension() == ".json")
      jsons.push_back(entry.path().string());
  if (jsons.size() != 1)
    throw Error(ErrorCode::CompileFailed, "fpxc", target,
                "`" + command + "` left " + std::to_string(jsons.size()) +
                    " .json files in its output directory, expected 1:\n" +
                    result.Output);
  // readArtifactFiles validates the metadata: nothing invalid is cached.
  return packFiles(readArtifactFiles(jsons[0]));
}

std::shared_ptr<Module> compileSpec(std::string_view specText,
                                    std::string_view target,
                                    const std::vector<std::string> &options,
                                    const DiskCache *cache,
                                    const LinkSources &link) {
  std::string fpxc = findFpxc();
  std::string chip = target.empty() ? currentTarget() : std::string(target);
  std::string key = compileCacheKey(specText, chip, options, toolVersion(fpxc));
  if (!link.empty()) {
    // The user's code is part of what gets loaded: same spec, other
    // snippets, other entry (and other in-process module).
    CacheKeyBuilder withLink;
    withLink.add("artifact", key);
    for (const auto &[symbol, text] : link)
      withLink.add("link-symbol", symbol).add("link-source", text);
    key = withLink.key();
  }
  if (!cache)
    cache = &DiskCache::global();

  // In-process memo: a warm call costs a hash and a map lookup.
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<Module>> loaded;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = loaded.find(cache->directory() + "/" + key);
    if (it != loaded.end())
      if (std::shared_ptr<Module> module = it->second.lock())
        return module;
  }
  auto produce = [&] { return runFpxc(fpxc, specText, chip, options); };
  std::string blob = cache->getOrCreate(key, produce);
  std::shared_ptr<Module> module;
  try {
    module = moduleFromBundle(unpackFiles(blob), "fpx cache entry " + key,
                              link);
  } catch (const Error &e) {
    // A well-formed entry with bad contents (e.g. written by a buggy older
    // runtime): rebuild it once. Errors about the caller's link sources are
    // the caller's.
    if (e.code() != ErrorCode::InvalidArtifact && e.code() != ErrorCode::CacheError)
      throw;
    cache->remove(key);
    blob = cache->getOrCreate(key, produce);
    module = moduleFromBundle(unpackFiles(blob), "fpx cache entry " + key,
                              link);
  }
  std::lock_guard<std::mutex> lock(mutex);
  loaded[cache->directory() + "/" + key] = module;
  return module;
}

} // namespace fpx::rt
