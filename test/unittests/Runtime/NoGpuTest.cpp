//===- NoGpuTest.cpp - libfpxrt on a machine without a GPU -----------------===//
//
// Loading the library and artifacts must work anywhere; asking for the GPU
// must throw Error(NoDevice) naming the cause, never crash. Each case runs
// in a forked child with FPX_DISABLE_CUDA=1 so that it holds on a GPU
// machine too (the driver state is per process and loaded once).
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

using namespace fpx::rt;

namespace {

/// Runs \p body in a child process; returns its exit code.
template <typename Fn> int inChild(Fn body) {
  pid_t pid = fork();
  if (pid == 0) {
    int rc = 3;
    try {
      rc = body();
    } catch (...) {
      rc = 4;
    }
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(NoGpu, DisabledDriverGivesNamedError) {
  int rc = inChild([] {
    setenv("FPX_DISABLE_CUDA", "1", 1);
    if (CudaApi::hasDriver())
      return 10;
    try {
      CudaApi::driver();
      return 11;
    } catch (const Error &e) {
      if (e.code() != ErrorCode::NoDevice)
        return 12;
      if (std::string(e.what()).find("FPX_DISABLE_CUDA") == std::string::npos)
        return 13;
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(NoGpu, LaunchWithoutDriverThrowsNoDevice) {
  int rc = inChild([] {
    setenv("FPX_DISABLE_CUDA", "1", 1);
    auto m = Module::fromMemory(test::kTestJson, test::kTestPtx, "", "t.json");
    const Function &f = m->function("add_one");
    try {
      f.launch(nullptr, {TensorRef(0x1000, DType::F32, {4})},
               {TensorRef(0x2000, DType::F32, {4})});
      return 20;
    } catch (const Error &e) {
      return e.code() == ErrorCode::NoDevice ? 0 : 21;
    }
  });
  EXPECT_EQ(rc, 0);
}

TEST(NoGpu, MissingDriverLibrary) {
  // Point the loader at a library that does not exist: the error names the
  // file and the dlopen failure.
  int rc = inChild([] {
    setenv("FPX_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    if (CudaApi::hasDriver())
      return 0; // a real driver was found after the override: nothing to test
    try {
      CudaApi::driver();
      return 30;
    } catch (const Error &e) {
      std::string msg = e.what();
      if (e.code() != ErrorCode::NoDevice)
        return 31;
      if (msg.find("/nonexistent/libcuda.so.1") == std::string::npos)
        return 32;
    }
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(NoGpu, ThisMachine) {
  // In this process, without overrides: either a driver works, or the
  // error is NoDevice (never a crash, never another code).
  try {
    CudaApi::driver();
    GTEST_SKIP() << "a CUDA driver is present (" << CudaApi::driverLibrary()
                 << "): the no-GPU path is covered by the forked cases";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NoDevice) << e.what();
    EXPECT_NE(std::string(e.what()).find("fpx: "), std::string::npos);
    // The failure is remembered: the second call throws the same error.
    try {
      CudaApi::driver();
      FAIL();
    } catch (const Error &again) {
      EXPECT_STREQ(again.what(), e.what());
    }
  }
}

} // namespace
