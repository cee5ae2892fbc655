//===- DivisionTest.cpp - the cast kernels' division, exhaustively --------===//
//
// Casts with fp32 or NVFP4 block scales divide every element by its block's
// scale s, exactly as div.rn.f32. The kernels compute it as
//   y = RN(1/s) (once per block), q0 = RN(x y), r = fma(s, q0, -x) (exact,
//   the negated remainder), q = RN(q0 - r y)
// (QuantizeKernels.cpp, applyScale). This checks that sequence against
// div.rn.f32 for every pair of fp32 significands (2^46 pairs: all dividend
// significands against all divisor significands, both in [1, 2); the
// quotient's binade follows from their order, and scaling both by powers of
// two changes nothing while every value stays normal, which the kernels
// guarantee before taking this path). The kernels themselves are checked bit
// for bit against the numerics core by QuantizeKernelTest and
// BlockQuantizeKernelTest.
// y = RN(1/s) itself is rcp.rn's own fast sequence without its range check
// (QuantizeKernels.cpp, rcpInRange): checked against rcp.rn for every fp32
// with an exponent field in 1..252, both signs.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Runtime/Nvrtc.h"

#include <chrono>
#include <cstdio>

using namespace fpx;

namespace {

const char *kSource = R"(
extern "C" __global__ void rcpInRange(unsigned long long *bad, unsigned *example) {
  unsigned m = blockIdx.x * blockDim.x + threadIdx.x; // sign and significand
  if (m >= (1u << 24)) return;
  unsigned long long n = 0;
  unsigned first = 0;
  for (unsigned e = 1; e <= 252; ++e) {
    unsigned bits = ((m >> 23) << 31) | (e << 23) | (m & 0x7fffffu);
    float d = __uint_as_float(bits), y;
    asm("{ .reg .f32 y0, e; rcp.approx.ftz.f32 y0, %1; fma.rn.f32 e, %1, y0, 0fBF800000; "
        "neg.ftz.f32 e, e; fma.rn.f32 %0, y0, e, y0; }" : "=f"(y) : "f"(d));
    if (__float_as_uint(y) != __float_as_uint(__frcp_rn(d))) {
      if (!n) first = bits;
      ++n;
    }
  }
  if (n) {
    atomicAdd(bad, n);
    example[0] = first;
  }
}

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

TEST(Division, RcpInRangeEqualsRcpRnOnEveryNormalBelow2To126) {
  FPX_REQUIRE_GPU();
  const rt::CudaApi &api = rt::CudaApi::driver();
  gputest::primaryContext();
  std::string ptx = rt::compileCuda(kSource, rt::deviceChip(), {"--fmad=false"}, "markstein.cu");
  CUmodule mod;
  FPX_CU(api.cuModuleLoadDataEx(&mod, ptx.c_str(), 0, nullptr, nullptr));
  CUfunction fn;
  FPX_CU(api.cuModuleGetFunction(&fn, mod, "rcpInRange"));
  gputest::DeviceBuffer bad(8), example(4);
  bad.upload(std::vector<uint64_t>{0});
  example.upload(std::vector<uint32_t>{0});
  void *args[] = {&bad.Ptr, &example.Ptr};
  FPX_CU(api.cuLaunchKernel(fn, (1u << 24) / 256, 1, 1, 256, 1, 1, 0, nullptr, args,
                            nullptr));
  FPX_CU(api.cuCtxSynchronize());
  uint64_t n = bad.download<uint64_t>(1)[0];
  std::printf("[ division ] rcpInRange on 2 x 252 x 2^23 inputs: %llu differ from rcp.rn.f32\n",
              static_cast<unsigned long long>(n));
  EXPECT_EQ(n, 0u) << "e.g. d = 0x" << std::hex << example.download<uint32_t>(1)[0];
  api.cuModuleUnload(mod);
}

} // namespace
