//===- FloatBits.h - fp32 <-> bit pattern for the numerics tests -*- C++ -*-===//
#ifndef FPX_TEST_UNITTESTS_NUMERICS_FLOATBITS_H
#define FPX_TEST_UNITTESTS_NUMERICS_FLOATBITS_H

#include <cstdint>
#include <cstring>

namespace fpx::test {

inline float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint32_t toBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

} // namespace fpx::test

#endif
