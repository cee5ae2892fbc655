//===- ConvertBf16Test.cpp - fpx.convert of bf16 pairs, exhaustively ------===//
//
// The bf16 form of fpx.convert (what the bf16 cast kernels hand their scaled
// pairs to) on every 32-bit word, i.e. every pair of bf16 values, for each
// target build the device can run: sm_90a (packed bf16x2 emulation of
// e2m1), sm_80 (widened to f32, scalar integer emulation), sm_100a (widened,
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

TEST(ConvertBf16, E2M1EveryBf16Pair) {
  FPX_REQUIRE_GPU();
  const rt::CudaApi &api = rt::CudaApi::driver();
  gputest::primaryContext();
  std::string chip = rt::deviceChip();

  std::array<uint8_t, 65536> table;
  for (uint32_t b = 0; b < 65536; ++b)
    table[b] = num::encodeBf16(num::e2m1fn(), uint16_t(b), num::Rounding::RN,
                               num::Overflow::SatFinite);

  int swept = 0;
  for (const char *target : kTargets) {
    FPX_LOAD_ARTIFACT(mod, target, "convert_bf16");
    if (!runnableOn(target, chip)) {
      std::printf("[ bf16 ] %s artifact built; not runnable on %s\n", target,
                  chip.c_str());
      continue;
    }
    const auto &ks = mod->info().Kernels;
    ASSERT_EQ(ks.size(), 1u);
    CUfunction fn = mod->kernel(0);
    DeviceBuffer out(kThreadsPerChunk * 2);
    std::vector<uint16_t> host(kThreadsPerChunk);
    uint64_t mismatches = 0;
    for (uint64_t base = 0; base < (uint64_t(1) << 32); base += 2 * kThreadsPerChunk) {
      out.poison();
      void *args[] = {&out.Ptr, &base};
      FPX_CU(api.cuLaunchKernel(fn, unsigned(kThreadsPerChunk / kBlock), 1, 1, kBlock,
                                1, 1, 0, nullptr, args, nullptr));
      FPX_CU(api.cuCtxSynchronize());
      FPX_CU(api.cuMemcpyDtoH(host.data(), out.Ptr, host.size() * 2));
      for (uint64_t g = 0; g < kThreadsPerChunk; ++g) {
        uint32_t w0 = uint32_t(base + 2 * g), w1 = w0 + 1;
        uint16_t want = uint16_t(table[w0 & 0xffff] | table[w0 >> 16] << 4 |
                                 table[w1 & 0xffff] << 8 | table[w1 >> 16] << 12);
        if (host[g] != want && ++mismatches <= 8)
          ADD_FAILURE() << target << " words " << std::hex << w0 << "," << w1
                        << ": got " << host[g] << ", numerics " << want;
      }
    }
    EXPECT_EQ(mismatches, 0u) << target;
    std::printf("[ bf16 ] %s: e2m1 rn of all 2^32 bf16 pairs, %llu mismatches\n",
                target, static_cast<unsigned long long>(mismatches));
    ++swept;
  }
  EXPECT_GT(swept, 0) << "no convert_bf16 artifact runs on " << chip;
}

} // namespace
