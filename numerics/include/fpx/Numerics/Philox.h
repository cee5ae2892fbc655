//===- Philox.h - Philox4x32-10 counter-based random bits -------*- C++ -*-===//
//
// The Philox4x32-10 generator of Salmon et al. (SC'11), the one cuRAND's
// curandStatePhilox4_32_10_t and Random123 implement. Counter based, so a GPU
// thread can produce the bits of any element without state: that is what
// makes stochastic rounding reproducible between the CPU reference and the
// generated kernels.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_PHILOX_H
#define FPX_NUMERICS_PHILOX_H

#include <array>
#include <cstdint>

namespace fpx::num {

/// One Philox4x32 block: 10 rounds of
///   (hi0, lo0) = mulhilo(0xD2511F53, c0); (hi1, lo1) = mulhilo(0xCD9E8D57, c2)
///   c = {hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0}
/// with the key bumped by (0x9E3779B9, 0xBB67AE85) between rounds.
std::array<uint32_t, 4> philox4x32x10(std::array<uint32_t, 4> counter,
                                      std::array<uint32_t, 2> key);

/// The 32 random bits of stream position `index` for `seed`:
///   philox4x32x10(counter = {lo32(index / 4), hi32(index / 4), 0, 0},
///                 key = {lo32(seed), hi32(seed)})[index % 4].
/// This is the index-th 32-bit output of cuRAND's Philox4_32_10 stream after
/// curand_init(seed, /*subsequence=*/0, /*offset=*/0).
uint32_t philoxBits(uint64_t seed, uint64_t index);

} // namespace fpx::num

#endif // FPX_NUMERICS_PHILOX_H
