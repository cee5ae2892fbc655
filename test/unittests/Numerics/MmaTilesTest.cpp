//===- MmaTilesTest.cpp - the mma_tiles weight layout ---------------------===//
//
// The layout's definition (docs/formats.md, MmaTiles.h) written out as the
// mma.sync m16n8k16 A fragment a lane holds, independently of
// mmaTileOffset's arithmetic: lane l's register j (two 16-bit halves) holds
// rows g (j even) or g + 8 (j odd) at logical k 2t, 2t+1 (j < 2) or 2t+8,
// 2t+9 (j >= 2); the layout's K permutation maps those logical columns of
// MMA step s to k = 8t + 4s + {0,1} and 8t + 4s + {2,3}. 4-bit codes: the
// same for each 32-column half h of a 16 x 64 tile, word 2h + s of the lane
// holding step s's registers a0..a3 as nibble pairs (p, p + 4); the decode the
// GEMM kernel does on such a word (shift, mask, one multiply by 2^126) is
// replayed on the CPU against num::decode. 6- and 5-bit codes: the low
// nibbles as 4-bit codes, the high bits in a plane after them whose bit
// positions are written out here from docs/formats.md; the kernel's
// reassembly (mmaTileDecodeShifts) and decode replayed for every code; the
// wgmma kernel's quad transposes of such a tile replayed against wgmma's
// fragment in natural K order.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/MmaTiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
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
  for (int bits : {8, 4, 6, 5})
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{16, 64}, {48, 192}, {128, 256}}) {
      SCOPED_TRACE(std::to_string(bits) + "-bit " + std::to_string(rows) + " x " +
                   std::to_string(cols));
      std::vector<uint8_t> codes(rows * cols);
      for (auto &c : codes)
        c = rng() & ((1u << bits) - 1);
      std::vector<uint8_t> p = packMmaTiles(codes.data(), rows, cols, bits);
      EXPECT_EQ(p.size(), size_t(rows * cols * bits / 8));
      EXPECT_EQ(unpackMmaTiles(p.data(), rows, cols, bits), codes);
      // Every bit of the buffer is some code's bit, exactly once.
      std::vector<bool> hit(rows * cols * bits);
      auto take = [&](int64_t bit, int n) {
        for (int i = 0; i < n; ++i) {
          ASSERT_FALSE(hit[bit + i]) << "bit " << bit + i << " taken twice";
          hit[bit + i] = true;
        }
      };
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k) {
          if (bits == 8) {
            take(8 * mmaTileOffset(r, k, rows, cols), 8);
          } else if (bits == 4) {
            take(4 * mmaTileNibbleOffset(r, k, rows, cols), 4);
          } else {
            take(mmaTileLowBitOffset(r, k, rows, cols, bits), 4);
            take(mmaTileHighBitOffset(r, k, rows, cols, bits), bits - 4);
          }
        }
      EXPECT_EQ(std::count(hit.begin(), hit.end(), true), int64_t(hit.size()));
    }
}

TEST(MmaTiles, RefusesShapesOffTheTile) {
  std::vector<uint8_t> codes(24 * 32);
  EXPECT_THROW(packMmaTiles(codes.data(), 24, 32), Error);
  EXPECT_THROW(packMmaTiles(codes.data(), 16, 40), Error);
  EXPECT_THROW(mmaTileOffset(16, 0, 16, 32), Error);
  EXPECT_THROW(packMmaTiles(codes.data(), 16, 32, 4), Error); // 4-bit: K % 64
  EXPECT_THROW(packMmaTiles(codes.data(), 16, 32, 6), Error); // 6-bit: K % 64
  EXPECT_THROW(packMmaTiles(codes.data(), 16, 32, 5), Error);
  EXPECT_THROW(packMmaTiles(codes.data(), 16, 64, 7), Error);
  EXPECT_THROW(mmaTileHighBitOffset(0, 0, 16, 64, 4), Error);
  EXPECT_THROW(mmaTileNibbleOffset(0, 64, 16, 64), Error);
}

TEST(MmaTiles, FourBitLaneHoldsItsFragments) {
  const int64_t rows = 32, cols = 128;
  std::vector<uint8_t> codes(rows * cols);
  for (size_t i = 0; i < codes.size(); ++i)
    codes[i] = static_cast<uint8_t>((i * 7 + i / 61) & 0xF);
  std::vector<uint8_t> p = packMmaTiles(codes.data(), rows, cols, 4);
  ASSERT_EQ(p.size(), size_t(rows * cols / 2));
  for (int64_t rt = 0; rt < rows / 16; ++rt)
    for (int64_t kt = 0; kt < cols / 64; ++kt)
      for (int lane = 0; lane < 32; ++lane) {
        int g = lane / 4, t = lane % 4;
        const uint8_t *mine = &p[((rt * (cols / 64) + kt) * 32 + lane) * 16];
        for (int h = 0; h < 2; ++h)       // 32-column half of the tile
          for (int s = 0; s < 2; ++s) {   // MMA step within the half
            uint32_t word = 0;
            for (int b = 0; b < 4; ++b)
              word |= uint32_t(mine[4 * (2 * h + s) + b]) << (8 * b);
            for (int j = 0; j < 4; ++j)     // A register a0..a3
              for (int e = 0; e < 2; ++e) { // low, high element
                int64_t row = rt * 16 + g + (j % 2) * 8;
                int64_t k = kt * 64 + 32 * h + 8 * t + 4 * s + (j / 2) * 2 + e;
                // the low element is nibble j, the high one nibble j + 4
                EXPECT_EQ((word >> (4 * (j + 4 * e))) & 0xF, codes[row * cols + k])
                    << "lane " << lane << " half " << h << " step " << s << " reg " << j;
              }
          }
      }
}

// The GEMM kernel's e2m1 decode: register p's codes shifted to the top of
// the two 16-bit halves (word << (12 - 4p)), the sign kept, the 3 magnitude
// bits shifted right by 6 (bf16) or 3 (f16) into the exponent's low bits and
// the mantissa's top bit, then one exact multiply by 2^126 (bf16) or 2^14
// (f16). Every code, both halves, against the numerics core.
TEST(MmaTiles, FourBitDecodeRule) {
  const Format e2m1 = e2m1fn();
  for (bool f16 : {false, true})
    for (uint32_t lo = 0; lo < 16; ++lo)
      for (uint32_t hi = 0; hi < 16; ++hi)
        for (int p = 0; p < 4; ++p) {
          uint32_t word = (lo << (4 * p)) | (hi << (4 * (p + 4)));
          uint32_t tpos = word << (12 - 4 * p);
          uint32_t pair = (tpos & 0x80008000u) | ((tpos & 0x70007000u) >> (f16 ? 3 : 6));
          for (int e = 0; e < 2; ++e) {
            uint16_t half = static_cast<uint16_t>(pair >> (16 * e));
            float raw = f16 ? halfToFloat(half) : bf16ToFloat(half);
            float v = std::ldexp(raw, f16 ? 14 : 126);
            float want = decode(e2m1, e ? hi : lo);
            EXPECT_EQ(v, want) << "code " << (e ? hi : lo) << (f16 ? " f16" : " bf16");
            EXPECT_EQ(std::signbit(v), std::signbit(want));
          }
        }
}

// 6- and 5-bit codes: lane l of tile (rt, kt) reads its 16 low bytes at
// tile * 128 * bits + 16 l (the 4-bit tile's fragments of the low nibbles)
// and its high plane, 4 (bits - 4) bytes at tile * 128 * bits + 512 +
// 4 (bits - 4) l; the high bits of nibble q (0..7) of low word i sit in high
// word i / (4 / hb) at bit 16 (q / 4) + hb (4 (i % (4 / hb)) + q % 4).
TEST(MmaTiles, SixAndFiveBitLaneHoldsItsFragments) {
  for (int bits : {6, 5}) {
    SCOPED_TRACE(std::to_string(bits) + "-bit");
    const int hb = bits - 4, per = 4 / hb;
    const int64_t rows = 32, cols = 128, tileBytes = 128 * bits;
    std::vector<uint8_t> codes(rows * cols);
    for (size_t i = 0; i < codes.size(); ++i)
      codes[i] = static_cast<uint8_t>((i * 13 + i / 67) & ((1u << bits) - 1));
    std::vector<uint8_t> p = packMmaTiles(codes.data(), rows, cols, bits);
    ASSERT_EQ(p.size(), size_t(rows * cols * bits / 8));
    auto word = [&](int64_t byte) {
      uint32_t w = 0;
      for (int b = 0; b < 4; ++b)
        w |= uint32_t(p[byte + b]) << (8 * b);
      return w;
    };
    for (int64_t rt = 0; rt < rows / 16; ++rt)
      for (int64_t kt = 0; kt < cols / 64; ++kt)
        for (int lane = 0; lane < 32; ++lane) {
          int g = lane / 4, t = lane % 4;
          int64_t tile = (rt * (cols / 64) + kt) * tileBytes;
          for (int i = 0; i < 4; ++i) { // low word 2h + s
            int h = i / 2, s = i % 2;
            uint32_t lo = word(tile + 16 * lane + 4 * i);
            uint32_t hi = word(tile + 512 + 4 * hb * lane + 4 * (i / per));
            for (int j = 0; j < 4; ++j)
              for (int e = 0; e < 2; ++e) {
                int64_t row = rt * 16 + g + (j % 2) * 8;
                int64_t k = kt * 64 + 32 * h + 8 * t + 4 * s + (j / 2) * 2 + e;
                int q = j + 4 * e;
                uint32_t code = ((lo >> (4 * q)) & 0xF) |
                                (((hi >> (16 * e + hb * (4 * (i % per) + j))) &
                                  ((1u << hb) - 1))
                                 << 4);
                EXPECT_EQ(code, codes[row * cols + k])
                    << "lane " << lane << " word " << i << " reg " << j << " elem " << e;
              }
          }
        }
  }
}

// The GEMM kernel's 6- and 5-bit decode: register p's two codes of low word
// i reassembled at the top of the two 16-bit halves from the low word and
// the high word (mmaTileDecodeShifts: a shift and a mask each, one or), the
// sign kept, the magnitude shifted right so that the code's mantissa ends
// where bf16's / f16's does, then one exact multiply by 2^(bias_target -
// bias_code): subnormal codes land on target subnormals that the multiply
// makes exact (no branch). Every code pair, every word and register, both
// targets, against num::decode.
TEST(MmaTiles, SixAndFiveBitDecodeRule) {
  for (const Format &fmt : {e2m3fn(), e3m2fn(), getFormat("e2m2")})
    for (bool f16 : {false, true}) {
      const int bits = fmt.bits(), hb = bits - 4, per = 4 / hb;
      const int tm = f16 ? 10 : 7, tb = f16 ? 15 : 127;
      const int shift = (16 - bits) - (tm - fmt.mbits);
      const uint32_t magMask = ((1u << (bits - 1)) - 1) << (16 - bits);
      SCOPED_TRACE(fmt.name + (f16 ? " f16" : " bf16"));
      ASSERT_GT(shift, 0);
      for (int i = 0; i < 4; ++i)
        for (int p = 0; p < 4; ++p) {
          MmaTileDecodeShifts d = mmaTileDecodeShifts(bits, i, p);
          ASSERT_EQ(d.highWord, i / per);
          for (uint32_t c0 = 0; c0 < (1u << bits); ++c0)
            for (uint32_t c1 = (c0 * 7) % (1u << bits), n = 0; n < 3;
                 ++n, c1 = (c1 + 11) % (1u << bits)) {
              // The lane's words as the layout stores them (other codes
              // all ones, to catch masks that let them in).
              uint32_t lo = 0xFFFFFFFFu, hi[2] = {0xFFFFFFFFu, 0xFFFFFFFFu};
              lo &= ~((0xFu << (4 * p)) | (0xFu << (4 * (p + 4))));
              lo |= ((c0 & 0xF) << (4 * p)) | ((c1 & 0xF) << (4 * (p + 4)));
              int pos = hb * (4 * (i % per) + p);
              uint32_t m = (1u << hb) - 1;
              uint32_t &hw = hi[i / per];
              hw &= ~((m << pos) | (m << (pos + 16)));
              hw |= ((c0 >> 4) << pos) | ((c1 >> 4) << (pos + 16));
              uint32_t l = d.lowShift >= 0 ? lo << d.lowShift : lo >> -d.lowShift;
              uint32_t t = (l & d.lowMask) | ((hi[d.highWord] << d.highShift) & d.highMask);
              uint32_t pair = (t & 0x80008000u) | ((t & (magMask * 0x10001u)) >> shift);
              for (int e = 0; e < 2; ++e) {
                uint32_t code = e ? c1 : c0;
                ASSERT_EQ((t >> (16 * e + 16 - bits)) & ((1u << bits) - 1), code)
                    << "word " << i << " reg " << p;
                uint16_t half = static_cast<uint16_t>(pair >> (16 * e));
                float raw = f16 ? halfToFloat(half) : bf16ToFloat(half);
                float v = std::ldexp(raw, tb - fmt.bias);
                float want = decode(fmt, code);
                EXPECT_EQ(v, want) << "code 0x" << std::hex << code;
                EXPECT_EQ(std::signbit(v), std::signbit(want)) << "code 0x" << std::hex << code;
              }
            }
        }
    }
}

// The wgmma prefill kernel's quad transposes of a 6- or 5-bit tile
// (docs/formats.md, "The wgmma prefill kernel ... reads the same layout"),
// replayed on the four lanes of every quad: the low words trade 16-bit
// pieces (transposeNibbles' prmt selectors and shfl.bfly 2, 1), each high
// word's rows of four 2 hb-bit groups go through a 4 x 4 transpose
// (transposeHighPlane's shifts and masks); then mmaTileDecodeShifts on low
// word 2j + S and the transposed high words must give wgmma's fragment in
// natural K order: lane 4g + t, step S of 32-block j, register p holds rows
// g + 8 (p % 2) at k = 32j + 16S + 8 (p / 2) + 2t + {0, 1}. Random codes,
// packed by packMmaTiles.
namespace {

uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
  uint64_t bytes = (uint64_t(b) << 32) | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i)
    r |= uint32_t((bytes >> (8 * ((sel >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return r;
}

// transposeNibbles over a quad: u0, u1 the lanes' words 2j, 2j + 1.
void quadTransposeNibbles(const uint32_t u0[4], const uint32_t u1[4], uint32_t o0[4],
                          uint32_t o1[4]) {
  uint32_t v0[4], v1[4], y0[4], y1[4], send[4], out[4];
  for (int t = 0; t < 4; ++t) {
    v0[t] = prmt(u0[t], 0, 0x3120);
    v1[t] = prmt(u1[t], 0, 0x3120);
    send[t] = t & 2 ? v0[t] : v1[t];
  }
  for (int t = 0; t < 4; ++t) {
    uint32_t recv = send[t ^ 2];
    y0[t] = t & 2 ? recv : v0[t];
    y1[t] = t & 2 ? v1[t] : recv;
    out[t] = t & 1 ? prmt(y0[t], y1[t], 0x5410) : prmt(y0[t], y1[t], 0x7632);
  }
  for (int t = 0; t < 4; ++t) {
    uint32_t in = out[t ^ 1];
    uint32_t z0 = t & 1 ? prmt(y0[t], in, 0x3254) : prmt(y0[t], in, 0x5410);
    uint32_t z1 = t & 1 ? prmt(y1[t], in, 0x3276) : prmt(y1[t], in, 0x7610);
    o0[t] = prmt(z0, 0, 0x3120);
    o1[t] = prmt(z1, 0, 0x3120);
  }
}

// transposeHighPlane over a quad.
void quadTransposeHigh(uint32_t w[4], int hb) {
  const int group = 2 * hb;
  const uint32_t lowHalf = hb == 2 ? 0x00FF00FFu : 0x0F0F0F0Fu,
                 even = hb == 2 ? 0x0F0F0F0Fu : 0x33333333u;
  auto round = [&](int bit, int shift, uint32_t mask) {
    uint32_t send[4], next[4];
    for (int t = 0; t < 4; ++t)
      send[t] = t & bit ? w[t] << shift : w[t] >> shift;
    for (int t = 0; t < 4; ++t) {
      uint32_t keep = t & bit ? ~mask : mask;
      next[t] = (w[t] & keep) | (send[t ^ bit] & ~keep);
    }
    std::copy(next, next + 4, w);
  };
  round(2, 2 * group, lowHalf);
  round(1, group, even);
}

} // namespace

TEST(MmaTiles, WgmmaQuadTransposeOfSixAndFiveBitTiles) {
  std::mt19937 rng(38);
  for (int bits : {6, 5}) {
    const int hb = bits - 4;
    SCOPED_TRACE("bits " + std::to_string(bits));
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<uint8_t> codes(16 * 64);
      for (uint8_t &c : codes)
        c = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
      std::vector<uint8_t> tile = packMmaTiles(codes.data(), 16, 64, bits);
      ASSERT_EQ(static_cast<int64_t>(tile.size()), mmaTileSize(bits));
      for (int g = 0; g < 8; ++g) {
        uint32_t lo[4][4], hi[2][4], nat[4][4];
        for (int t = 0; t < 4; ++t) {
          int l = 4 * g + t;
          for (int i = 0; i < 4; ++i)
            std::memcpy(&lo[i][t], &tile[16 * l + 4 * i], 4);
          for (int i = 0; i < hb; ++i)
            std::memcpy(&hi[i][t], &tile[512 + mmaTileHighBytes(bits) * l + 4 * i], 4);
        }
        quadTransposeNibbles(lo[0], lo[1], nat[0], nat[1]);
        quadTransposeNibbles(lo[2], lo[3], nat[2], nat[3]);
        for (int i = 0; i < hb; ++i)
          quadTransposeHigh(hi[i], hb);
        for (int t = 0; t < 4; ++t)
          for (int i = 0; i < 4; ++i) // low word i = 2j + S
            for (int p = 0; p < 4; ++p) {
              MmaTileDecodeShifts d = mmaTileDecodeShifts(bits, i, p);
              uint32_t l = d.lowShift >= 0 ? nat[i][t] << d.lowShift
                                           : nat[i][t] >> -d.lowShift;
              uint32_t v = (l & d.lowMask) | ((hi[d.highWord][t] << d.highShift) & d.highMask);
              for (int e = 0; e < 2; ++e) {
                int row = g + 8 * (p % 2), k = 16 * i + 8 * (p / 2) + 2 * t + e;
                ASSERT_EQ((v >> (16 * e + 16 - bits)) & ((1u << bits) - 1), codes[row * 64 + k])
                    << "lane " << 4 * g + t << " word " << i << " reg " << p << " e " << e;
              }
            }
      }
    }
  }
}
