//===- Nvrtc.cpp - CUDA C++ to PTX through the dlopen'd NVRTC ----------------===//

#include "fpx/Runtime/Nvrtc.h"
#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"

#include <cstdlib>
#include <memory>
#include <sys/stat.h>

#ifndef FPX_CUDA_INCLUDE_DIR_DEFAULT
#define FPX_CUDA_INCLUDE_DIR_DEFAULT ""
#endif

namespace fpx::rt {

static bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::vector<std::string> cudaIncludeDirs() {
  std::vector<std::string> roots;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && *value)
      roots.push_back(std::string(value) + "/include");
  roots.push_back(FPX_CUDA_INCLUDE_DIR_DEFAULT);
  roots.push_back("/usr/local/cuda/include");
  std::vector<std::string> dirs;
  for (const std::string &root : roots) {
    if (root.empty() || !exists(root + "/cuda_fp8.h"))
      continue;
    dirs.push_back(root);
    // CUDA 13's cuda_fp16.h includes <nv/target> from the CCCL directory.
    if (exists(root + "/cccl"))
      dirs.push_back(root + "/cccl");
    break;
  }
  return dirs;
}

std::string nvrtcVersionString() {
  const CudaApi &api = CudaApi::nvrtc();
  int major = 0, minor = 0;
  checkNvrtc(api.nvrtcVersion(&major, &minor), "nvrtcVersion", "");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string compileCuda(std::string_view source, std::string_view arch,
                        const std::vector<std::string> &options,
                        std::string_view name) {
  const CudaApi &api = CudaApi::nvrtc();
  std::string programName(name);
  // NVRTC emits PTX for a virtual architecture: sm_90a -> compute_90a.
  std::string virtualArch(arch);
  if (virtualArch.rfind("sm_", 0) == 0)
    virtualArch = "compute_" + virtualArch.substr(3);

  nvrtcProgram program = nullptr;
  std::string text(source);
  checkNvrtc(api.nvrtcCreateProgram(&program, text.c_str(), programName.c_str(),
                                    0, nullptr, nullptr),
             "nvrtcCreateProgram", programName);
  auto destroy = [&api](nvrtcProgram *p) { api.nvrtcDestroyProgram(p); };
  std::unique_ptr<nvrtcProgram, decltype(destroy)> guard(&program, destroy);

  std::vector<std::string> args = {"--gpu-architecture=" + virtualArch,
                                   "-std=c++17"};
  for (const std::string &dir : cudaIncludeDirs())
    args.push_back("-I" + dir);
  args.insert(args.end(), options.begin(), options.end());
  std::vector<const char *> argv;
  for (const std::string &a : args)
    argv.push_back(a.c_str());

  nvrtcResult result =
      api.nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  size_t logSize = 0;
  std::string log;
  if (api.nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS &&
      logSize > 1) {
    log.resize(logSize);
    api.nvrtcGetProgramLog(program, log.data());
    log.resize(logSize - 1);
  }
  std::string optionText;
  for (const std::string &a : args)
    optionText += " " + a;
  checkNvrtc(result, "nvrtcCompileProgram", programName,
             "options:" + optionText + "\nlog:\n" + log);

  size_t ptxSize = 0;
  checkNvrtc(api.nvrtcGetPTXSize(program, &ptxSize), "nvrtcGetPTXSize",
             programName);
  std::string ptx(ptxSize, '\0');
  checkNvrtc(api.nvrtcGetPTX(program, ptx.data()), "nvrtcGetPTX", programName);
  if (!ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  return ptx;
}

} // namespace fpx::rt
