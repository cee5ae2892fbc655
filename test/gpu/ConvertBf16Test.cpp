//===- ConvertBf16Test.cpp - fpx.convert of bf16 pairs, exhaustively ------===//
//
// The bf16 form of fpx.convert (what the bf16 cast kernels hand their scaled
// pairs to) on every 32-bit word, i.e. every pair of bf16 values, for e2m1,
// e2m3 and e3m2 and each target build the device can run: sm_90a (packed
// bf16x2 emulation of e2m1; fp6 clamped and scaled packed for the fp8 cvt),
// sm_80 (widened to f32, scalar integer emulation), sm_100a (widened,
// native cvt). The oracle is the numerics core's encodeBf16 of each half,
// which the f32 conversion kernels already match on all 2^32 f32 inputs
// against NVIDIA's cuda_fp4.h (ConvertExhaustiveTest).
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Format.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>

using namespace fpx;
using gputest::DeviceBuffer;

namespace {

constexpr const char *kTargets[] = {"sm_90a", "sm_80", "sm_100a"};
constexpr uint64_t kThreadsPerChunk = uint64_t(1) << 28; // 2^29 words
constexpr unsigned kBlock = 256;

bool runnableOn(const std::string &target, const std::string &chip) {
  if (target.back() == 'a')
    return target.substr(0, target.size() - 1) == chip;
  return std::atoi(chip.c_str() + 3) >= std::atoi(target.c_str() + 3);
}

struct Case {
  const char *Kernel;
  num::Format Format;
};

TEST(ConvertBf16, EveryBf16PairEveryTarget) {
  FPX_REQUIRE_GPU();
  const rt::CudaApi &api = rt::CudaApi::driver();
  gputest::primaryContext();
  std::string chip = rt::deviceChip();
  const Case cases[] = {{"cvt_e2m1fn_rn_bf16", num::e2m1fn()},
                        {"cvt_e2m3fn_rn_bf16", num::e2m3fn()},
                        {"cvt_e3m2fn_rn_bf16", num::e3m2fn()}};

  int swept = 0;
  for (const char *target : kTargets) {
    FPX_LOAD_ARTIFACT(mod, target, "convert_bf16");
    if (!runnableOn(target, chip)) {
      std::printf("[ bf16 ] %s artifact built; not runnable on %s\n", target,
                  chip.c_str());
      continue;
    }
    const auto &ks = mod->info().Kernels;
    for (const Case &c : cases) {
      auto it = std::find_if(ks.begin(), ks.end(),
                             [&](const rt::KernelInfo &ki) { return ki.Name == c.Kernel; });
      ASSERT_NE(it, ks.end()) << c.Kernel << " missing from " << target;
      CUfunction fn = mod->kernel(unsigned(it - ks.begin()));
      std::array<uint8_t, 65536> table;
      for (uint32_t b = 0; b < 65536; ++b)
        table[b] = num::encodeBf16(c.Format, uint16_t(b), num::Rounding::RN,
                                   num::Overflow::SatFinite);
      bool fp4 = c.Format.bits() <= 4;
      size_t outBytes = fp4 ? 2 : 4;
      DeviceBuffer out(kThreadsPerChunk * outBytes);
      std::vector<uint32_t> host(kThreadsPerChunk);
      std::vector<uint16_t> host16(kThreadsPerChunk);
      uint64_t mismatches = 0;
      for (uint64_t base = 0; base < (uint64_t(1) << 32); base += 2 * kThreadsPerChunk) {
        out.poison();
        void *args[] = {&out.Ptr, &base};
        FPX_CU(api.cuLaunchKernel(fn, unsigned(kThreadsPerChunk / kBlock), 1, 1, kBlock,
                                  1, 1, 0, nullptr, args, nullptr));
        FPX_CU(api.cuCtxSynchronize());
        if (fp4)
          FPX_CU(api.cuMemcpyDtoH(host16.data(), out.Ptr, host16.size() * 2));
        else
          FPX_CU(api.cuMemcpyDtoH(host.data(), out.Ptr, host.size() * 4));
        for (uint64_t g = 0; g < kThreadsPerChunk; ++g) {
          uint32_t w0 = uint32_t(base + 2 * g), w1 = w0 + 1;
          uint32_t v[4] = {table[w0 & 0xffff], table[w0 >> 16], table[w1 & 0xffff],
                           table[w1 >> 16]};
          uint32_t want = 0, got = fp4 ? host16[g] : host[g];
          for (int j = 0; j < 4; ++j)
            want |= v[j] << (j * (fp4 ? 4 : 8));
          if (got != want && ++mismatches <= 8)
            ADD_FAILURE() << target << " " << c.Kernel << " words " << std::hex << w0
                          << "," << w1 << ": got " << got << ", numerics " << want;
        }
      }
      EXPECT_EQ(mismatches, 0u) << target << " " << c.Kernel;
      std::printf("[ bf16 ] %s %s: all 2^32 bf16 pairs, %llu mismatches\n", target,
                  c.Kernel, static_cast<unsigned long long>(mismatches));
    }
    ++swept;
  }
  EXPECT_GT(swept, 0) << "no convert_bf16 artifact runs on " << chip;
}

} // namespace
