//===- DivisionTest.cpp - the cast kernels' division, exhaustively --------===//
//
// Casts with fp32 or NVFP4 block scales divide every element by its block's
// scale s, exactly as div.rn.f32. The kernels compute it as
//   y = RN(1/s) (once per block), q0 = RN(x y), r = fma(s, q0, -x) (exact,
//   the negated remainder), q = RN(q0 - r y)
// (QuantizeKernelsInternal.cpp, applyScale). This checks that sequence against
// div.rn.f32 for every pair of fp32 significands (2^46 pairs: all dividend
// significands against all divisor significands, both in [1, 2); the
// quotient's binade follows from their order, and scaling both by powers of
// two changes nothing while every value stays normal, which the kernels
// guarantee before taking this path). The kernels themselves are checked bit
// for bit against the numerics core by QuantizeKernelTest and
// BlockQuantizeKernelTest.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Runtime/Nvrtc.h"

#include <chrono>
#include <cstdio>

using namespace fpx;

namespace {

const char *kSource = R"(
extern "C" __global__ void markstein(unsigned long long *bad, unsigned *example) {
  unsigned bm = blockIdx.x * blockDim.x + threadIdx.x;
  if (bm >= (1u << 23)) return;
  float b = __uint_as_float(0x3f800000u | bm);
  float y = __frcp_rn(b);
  unsigned long long n = 0;
  unsigned first = 0;
  for (unsigned am = 0; am < (1u << 23); ++am) {
    float a = __uint_as_float(0x3f800000u | am);
    float q0 = __fmul_rn(a, y);
    float r = __fmaf_rn(b, q0, -a);
    float q = __fmaf_rn(-r, y, q0);
    if (__float_as_uint(q) != __float_as_uint(__fdiv_rn(a, b))) {
      if (!n) first = am;
      ++n;
    }
  }
  if (n) {
    atomicAdd(bad, n);
    example[0] = bm;
    example[1] = first;
  }
}
)";

TEST(Division, MarksteinEqualsDivRnOnEverySignificandPair) {
  FPX_REQUIRE_GPU();
  const rt::CudaApi &api = rt::CudaApi::driver();
  gputest::primaryContext();
  std::string chip = rt::deviceChip();
  std::string ptx = rt::compileCuda(kSource, chip, {"--fmad=false"}, "markstein.cu");
  CUmodule mod;
  FPX_CU(api.cuModuleLoadDataEx(&mod, ptx.c_str(), 0, nullptr, nullptr));
  CUfunction fn;
  FPX_CU(api.cuModuleGetFunction(&fn, mod, "markstein"));
  gputest::DeviceBuffer bad(8), example(8);
  bad.upload(std::vector<uint64_t>{0});
  example.upload(std::vector<uint32_t>{0, 0});
  void *args[] = {&bad.Ptr, &example.Ptr};
  auto t0 = std::chrono::steady_clock::now();
  FPX_CU(api.cuLaunchKernel(fn, (1u << 23) / 256, 1, 1, 256, 1, 1, 0, nullptr, args,
                            nullptr));
  FPX_CU(api.cuCtxSynchronize());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t n = bad.download<uint64_t>(1)[0];
  auto ex = example.download<uint32_t>(2);
  std::printf("[ division ] 2^46 significand pairs in %.1f s: %llu differ from div.rn.f32\n",
              s, static_cast<unsigned long long>(n));
  EXPECT_EQ(n, 0u) << "e.g. divisor significand 0x" << std::hex << ex[0]
                   << ", dividend 0x" << ex[1];
  api.cuModuleUnload(mod);
}

} // namespace
