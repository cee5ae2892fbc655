//===- NvrtcTest.cpp - NVRTC through the dlopen'd table (no GPU needed) ----===//

#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Nvrtc.h"

#include <gtest/gtest.h>

using namespace fpx::rt;

namespace {

bool haveNvrtc(std::string &why) {
  try {
    CudaApi::nvrtc();
    return true;
  } catch (const Error &e) {
    why = e.what();
    return false;
  }
}

// The GPU tests use kernels like this one as an oracle: NVIDIA's own fp8
// conversions from cuda_fp8.h.
const char *kFp8Source = R"CU(
#include <cuda_fp8.h>
extern "C" __global__ void to_e4m3(const float *x, unsigned char *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    q[i] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
}
)CU";

TEST(Nvrtc, CompilesCudaFp8Kernel) {
  std::string why;
  if (!haveNvrtc(why))
    GTEST_SKIP() << "NVRTC not available: " << why;
  std::string ptx = compileCuda(kFp8Source, "sm_90a");
  EXPECT_NE(ptx.find(".entry to_e4m3"), std::string::npos);
  EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos);
  // sm_90 has the native cvt to e4m3x2.
  EXPECT_NE(ptx.find("cvt.rn.satfinite.e4m3x2.f32"), std::string::npos) << ptx;
  EXPECT_FALSE(nvrtcVersionString().empty());
}

TEST(Nvrtc, OptionsAreForwarded) {
  std::string why;
  if (!haveNvrtc(why))
    GTEST_SKIP() << "NVRTC not available: " << why;
  std::string ptx = compileCuda(
      "extern \"C\" __global__ void k(int *p) { *p = VALUE; }", "sm_80",
      {"-DVALUE=12345"});
  EXPECT_NE(ptx.find("12345"), std::string::npos);
}

TEST(Nvrtc, CompileErrorCarriesTheLog) {
  std::string why;
  if (!haveNvrtc(why))
    GTEST_SKIP() << "NVRTC not available: " << why;
  try {
    compileCuda("__global__ void k() { undefined_thing(); }", "sm_80", {},
                "broken.cu");
    FAIL() << "compiled";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::CompileFailed);
    std::string msg = e.what();
    EXPECT_NE(msg.find("nvrtcCompileProgram"), std::string::npos) << msg;
    EXPECT_NE(msg.find("broken.cu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undefined_thing"), std::string::npos) << msg;
  }
}

} // namespace
