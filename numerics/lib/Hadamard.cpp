//===- Hadamard.cpp - Random Hadamard transform ---------------------------===//
#include "fpx/Numerics/Hadamard.h"

#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/Philox.h"

#include <cmath>
#include <string>

namespace fpx::num {

static void checkSize(int n) {
  if (n < 2 || n > 128 || (n & (n - 1)) != 0)
    throw Error("fpx: Hadamard size must be a power of two in [2, 128], got " +
                std::to_string(n));
}

std::vector<float> hadamardSigns(int n, uint64_t seed) {
  checkSize(n);
  std::vector<float> s(n);
  for (int j = 0; j < n; ++j)
    s[j] = ((philoxBits(seed, j / 32) >> (j % 32)) & 1) ? -1.0f : 1.0f;
  return s;
}

static float invSqrt(int n) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(n)));
}

std::vector<float> hadamardMatrix(int n, uint64_t seed, bool randomSigns) {
  checkSize(n);
  std::vector<float> s = randomSigns ? hadamardSigns(n, seed)
                                     : std::vector<float>(n, 1.0f);
  const float k = invSqrt(n);
  std::vector<float> m(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      m[i * n + j] = (__builtin_popcount(i & j) & 1 ? -k : k) * s[j];
  return m;
}

void randomHadamard(float *data, int64_t rows, int64_t cols, int n,
                    uint64_t seed, bool randomSigns) {
  checkSize(n);
  if (cols % n != 0)
    throw Error("fpx: Hadamard size " + std::to_string(n) +
                " does not divide the last dimension " + std::to_string(cols));
  std::vector<float> s = randomSigns ? hadamardSigns(n, seed)
                                     : std::vector<float>(n, 1.0f);
  const float k = invSqrt(n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c0 = 0; c0 < cols; c0 += n) {
      float *v = data + r * cols + c0;
      for (int j = 0; j < n; ++j)
        v[j] *= s[j];
      for (int h = 1; h < n; h *= 2)
        for (int i = 0; i < n; i += 2 * h)
          for (int j = i; j < i + h; ++j) {
            float a = v[j], b = v[j + h];
            v[j] = a + b;
            v[j + h] = a - b;
          }
      for (int j = 0; j < n; ++j)
        v[j] *= k;
    }
  }
}

} // namespace fpx::num
