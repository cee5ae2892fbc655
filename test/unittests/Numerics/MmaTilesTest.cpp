//===- MmaTilesTest.cpp - the mma_tiles weight layout ---------------------===//
//
// The layout's definition (docs/formats.md, MmaTiles.h) written out as the
// mma.sync m16n8k16 A fragment a lane holds, independently of
// mmaTileOffset's arithmetic: lane l's register j (two 16-bit halves) holds
// rows g (j even) or g + 8 (j odd) at logical k 2t, 2t+1 (j < 2) or 2t+8,
// 2t+9 (j >= 2); the layout's K permutation maps those logical columns of
// MMA step s to k = 8t + 4s + {0,1} and 8t + 4s + {2,3}.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/MmaTiles.h"

#include <gtest/gtest.h>

#include <random>

using namespace fpx::num;

TEST(MmaTiles, LaneHoldsItsFragments) {
  const int64_t rows = 32, cols = 64;
  std::vector<uint8_t> codes(rows * cols);
  for (size_t i = 0; i < codes.size(); ++i)
    codes[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<uint8_t> p = packMmaTiles(codes.data(), rows, cols);
  for (int64_t rt = 0; rt < rows / 16; ++rt)
    for (int64_t kt = 0; kt < cols / 32; ++kt)
      for (int lane = 0; lane < 32; ++lane) {
        int g = lane / 4, t = lane % 4;
        const uint8_t *mine = &p[((rt * (cols / 32) + kt) * 32 + lane) * 16];
        for (int s = 0; s < 2; ++s)     // MMA step
          for (int j = 0; j < 4; ++j)   // A register a0..a3 (pairs)
            for (int h = 0; h < 2; ++h) { // low, high half
              int64_t row = rt * 16 + g + (j % 2) * 8;
              int64_t k = kt * 32 + 8 * t + 4 * s + (j / 2) * 2 + h;
              // register j of step s is bytes 8s + 2j, 8s + 2j + 1
              EXPECT_EQ(mine[8 * s + 2 * j + h], codes[row * cols + k])
                  << "tile " << rt << "," << kt << " lane " << lane << " step " << s << " reg "
                  << j << " half " << h;
            }
      }
}

TEST(MmaTiles, RoundTripsAndPermutes) {
  std::mt19937 rng(7);
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{16, 32}, {48, 96}, {128, 256}}) {
    std::vector<uint8_t> codes(rows * cols);
    for (auto &c : codes)
      c = rng() & 0xff;
    std::vector<uint8_t> p = packMmaTiles(codes.data(), rows, cols);
    EXPECT_EQ(unpackMmaTiles(p.data(), rows, cols), codes);
    std::vector<bool> hit(rows * cols);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < cols; ++k) {
        int64_t o = mmaTileOffset(r, k, rows, cols);
        ASSERT_FALSE(hit[o]) << "offset " << o << " taken twice";
        hit[o] = true;
      }
  }
}

TEST(MmaTiles, RefusesShapesOffTheTile) {
  std::vector<uint8_t> codes(24 * 32);
  EXPECT_THROW(packMmaTiles(codes.data(), 24, 32), Error);
  EXPECT_THROW(packMmaTiles(codes.data(), 16, 40), Error);
  EXPECT_THROW(mmaTileOffset(16, 0, 16, 32), Error);
}
