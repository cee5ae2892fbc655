//===- HadamardTest.cpp - Random Hadamard transform -----------------------===//
#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/Hadamard.h"
#include "fpx/Numerics/Philox.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace fpx::num;

namespace {

TEST(Hadamard, MatrixIsOrthonormal) {
  for (int n = 2; n <= 128; n *= 2) {
    auto m = hadamardMatrix(n, 17, true);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double dot = 0;
        for (int k = 0; k < n; ++k)
          dot += double(m[i * n + k]) * m[j * n + k];
        EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-6) << n;
      }
  }
}

TEST(Hadamard, SignsFollowTheDocumentedGenerator) {
  const uint64_t seed = 0xFEEDull;
  auto s = hadamardSigns(128, seed);
  int negatives = 0;
  for (int j = 0; j < 128; ++j) {
    bool bit = (philoxBits(seed, j / 32) >> (j % 32)) & 1;
    EXPECT_EQ(s[j], bit ? -1.0f : 1.0f);
    negatives += s[j] < 0;
  }
  EXPECT_GT(negatives, 32);
  EXPECT_LT(negatives, 96);
  EXPECT_NE(hadamardSigns(16, 1), hadamardSigns(16, 2));
}

TEST(Hadamard, TransformEqualsTheMatrixProduct) {
  std::mt19937 rng(9);
  std::normal_distribution<float> nd;
  for (int n : {2, 16, 32, 128}) {
    const int64_t rows = 3, cols = 2 * n;
    std::vector<float> x(rows * cols);
    for (auto &v : x)
      v = nd(rng);
    std::vector<float> y = x;
    randomHadamard(y.data(), rows, cols, n, 5);
    auto m = hadamardMatrix(n, 5, true);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t b = 0; b < cols; b += n)
        for (int i = 0; i < n; ++i) {
          double want = 0;
          for (int j = 0; j < n; ++j)
            want += double(m[i * n + j]) * x[r * cols + b + j];
          EXPECT_NEAR(y[r * cols + b + i], want, 1e-4) << n;
        }
  }
}

TEST(Hadamard, ExactOn16AndInvolutionWithoutSigns) {
  // Sylvester H16 / 4 is exact in fp32 on small integers.
  std::vector<float> e0(16, 0.0f);
  e0[0] = 1.0f;
  randomHadamard(e0.data(), 1, 16, 16, 0, false);
  for (float v : e0)
    EXPECT_EQ(v, 0.25f);
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i)
    x[i] = float(i - 7);
  std::vector<float> y = x;
  randomHadamard(y.data(), 1, 16, 16, 0, false);
  randomHadamard(y.data(), 1, 16, 16, 0, false);
  EXPECT_EQ(y, x); // H H = I, exact here
}

TEST(Hadamard, Errors) {
  std::vector<float> x(24);
  EXPECT_THROW(randomHadamard(x.data(), 1, 24, 16, 0), Error);
  EXPECT_THROW(randomHadamard(x.data(), 1, 24, 12, 0), Error);
  EXPECT_THROW(hadamardSigns(256, 0), Error);
}

} // namespace
