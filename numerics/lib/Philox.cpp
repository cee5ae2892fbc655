//===- Philox.cpp - Philox4x32-10 -----------------------------------------===//
#include "fpx/Numerics/Philox.h"

namespace fpx::num {

std::array<uint32_t, 4> philox4x32x10(std::array<uint32_t, 4> c,
                                      std::array<uint32_t, 2> k) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    uint64_t p0 = uint64_t(kM0) * c[0];
    uint64_t p1 = uint64_t(kM1) * c[2];
    uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

uint32_t philoxBits(uint64_t seed, uint64_t index) {
  uint64_t block = index >> 2;
  auto r = philox4x32x10({uint32_t(block), uint32_t(block >> 32), 0u, 0u},
                         {uint32_t(seed), uint32_t(seed >> 32)});
  return r[index & 3];
}

} // namespace fpx::num
