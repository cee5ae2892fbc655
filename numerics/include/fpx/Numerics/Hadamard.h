//===- Hadamard.h - Random Hadamard transform -------------------*- C++ -*-===//
//
// The orthonormal Walsh-Hadamard transform applied to contiguous blocks of
// the last dimension, with a seeded random sign vector (the "RHT" that
// spreads outliers before NVFP4/MXFP4 quantization).
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_HADAMARD_H
#define FPX_NUMERICS_HADAMARD_H

#include <cstdint>
#include <vector>

namespace fpx::num {

/// The random signs s_j (j < n, n a power of two <= 128):
/// s_j = -1 if bit (j % 32) of philoxBits(seed, j / 32) is set, else +1.
std::vector<float> hadamardSigns(int n, uint64_t seed);

/// The n x n orthonormal matrix M with y = M x for one block:
/// M[i][j] = (-1)^popcount(i & j) * s_j / sqrt(n) (Sylvester order); with
/// `randomSigns` false all s_j = +1. Entries are fp32(+-1/sqrt(n)).
std::vector<float> hadamardMatrix(int n, uint64_t seed, bool randomSigns);

/// In place on a row-major [rows, cols] fp32 array, for every block of n
/// contiguous elements of a row: x_j *= s_j; then log2(n) butterfly stages
/// (h = 1, 2, 4, ...: (a, b) -> (a + b, a - b) on elements j and j + h) in
/// fp32; then each element *= fp32(1 / sqrt(n)). Throws Error unless n is a
/// power of two in [2, 128] dividing cols.
void randomHadamard(float *data, int64_t rows, int64_t cols, int n,
                    uint64_t seed, bool randomSigns = true);

} // namespace fpx::num

#endif // FPX_NUMERICS_HADAMARD_H
