//===- PackingTest.cpp - fp4/fp6 packings and the blocked scale layout ----===//
#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"
#include "fpx/Numerics/Packing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace fpx::num;

namespace {

TEST(Fp4x2, FirstElementInLowNibble) {
  const uint8_t codes[] = {0x1, 0x2, 0xF, 0x8, 0x7};
  auto p = packFp4x2(codes, 5);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], 0x21);
  EXPECT_EQ(p[1], 0x8F);
  EXPECT_EQ(p[2], 0x07); // odd count: high nibble zero
  EXPECT_EQ(swapNibbles(0x21), 0x12);
}

TEST(Fp4x2, EveryPairRoundTrips) {
  std::vector<uint8_t> codes;
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b)
      codes.insert(codes.end(), {uint8_t(a), uint8_t(b)});
  auto p = packFp4x2(codes.data(), codes.size());
  EXPECT_EQ(unpackFp4x2(p.data(), codes.size()), codes);
  for (size_t i = 0; i < p.size(); ++i)
    EXPECT_EQ(p[i], swapNibbles(uint8_t(i))); // (a, b) -> a | b << 4
}

TEST(Fp6, BitExactExamples) {
  const uint8_t codes[] = {0x01, 0x02, 0x03, 0x3F};
  EXPECT_EQ(packFp6(codes, 1, 4, Fp6Layout::Contiguous24),
            (std::vector<uint8_t>{0x81, 0x30, 0xFC}));
  EXPECT_EQ(packFp6(codes, 1, 4, Fp6Layout::Contiguous24Msb),
            (std::vector<uint8_t>{0x04, 0x20, 0xFF}));
  EXPECT_EQ(packFp6(codes, 1, 4, Fp6Layout::Planes),
            (std::vector<uint8_t>{0xC0, 0x21, 0xF3}));
  EXPECT_EQ(packFp6(codes, 1, 4, Fp6Layout::Bytes),
            (std::vector<uint8_t>{0x01, 0x02, 0x03, 0x3F}));
  // torchao's interleaved 4+2: c0hi|c1hi, c3hi|c2hi, c0lo c1lo c3lo c2lo.
  EXPECT_EQ(packFp6(codes, 1, 4, Fp6Layout::Interleaved4p2),
            (std::vector<uint8_t>{0x00, 0xF0, 0x6F})); // 0x6F = 01 10 11 11
  // Split 4+2 over 8 codes: 2 bytes of high bits, then 4 bytes of nibbles.
  const uint8_t eight[] = {0x10, 0x20, 0x30, 0x00, 0x3A, 0x05, 0x11, 0x2F};
  EXPECT_EQ(packFp6(eight, 1, 8, Fp6Layout::Planes),
            (std::vector<uint8_t>{0x39, 0x93, 0x00, 0x00, 0x5A, 0xF1}));
}

TEST(Fp6, EveryCodeAtEveryPositionRoundTrips) {
  // 3 rows x 256 cols: every code at each position mod 4, plus random rows.
  const int64_t rows = 3, cols = 256;
  std::vector<uint8_t> codes(rows * cols);
  std::mt19937 rng(7);
  for (int64_t c = 0; c < cols; ++c)
    codes[c] = uint8_t((c / 4 + 16 * (c % 4)) & 0x3F);
  for (int64_t i = cols; i < rows * cols; ++i)
    codes[i] = uint8_t(rng() & 0x3F);
  const Fp6Layout layouts[] = {Fp6Layout::Bytes, Fp6Layout::Contiguous24,
                               Fp6Layout::Contiguous24Msb, Fp6Layout::Planes,
                               Fp6Layout::Interleaved4p2};
  for (Fp6Layout from : layouts) {
    auto packed = packFp6(codes.data(), rows, cols, from);
    EXPECT_EQ(int64_t(packed.size()), rows * fp6PackedCols(cols, from));
    EXPECT_EQ(unpackFp6(packed.data(), rows, cols, from), codes) << toString(from);
    for (Fp6Layout to : layouts) {
      auto other = convertFp6(packed.data(), rows, cols, from, to);
      EXPECT_EQ(other, packFp6(codes.data(), rows, cols, to));
    }
  }
  EXPECT_EQ(fp6PackedCols(256, Fp6Layout::Planes), 192);
  EXPECT_EQ(fp6PackedCols(256, Fp6Layout::Interleaved4p2), 192);
}

/// torchao PR #1810's reference packer (custom_cast.py, pack_uint6_pytorch at
/// commit e7bed15), transcribed literally: uint8 tensor ops on the flattened
/// codes, strided views [k::4], stack(dim=-1) of the three byte streams.
std::vector<uint8_t> packUint6Pytorch(const std::vector<uint8_t> &data) {
  auto u8 = [](int v) { return uint8_t(v); }; // torch.uint8 arithmetic wraps
  size_t n = data.size() / 4;
  std::vector<uint8_t> a(n), b(n), two(n), out;
  for (size_t i = 0; i < n; ++i) {
    uint8_t d0 = data[4 * i], d1 = data[4 * i + 1], d2 = data[4 * i + 2],
            d3 = data[4 * i + 3];
    // bits_packed_4_a = (uint8_data[1::4] >> 2) | ((uint8_data[::4] << 2) & 0xF0)
    a[i] = u8((d1 >> 2) | (u8(d0 << 2) & 0xF0));
    // bits_packed_4_b = (uint8_data[2::4] >> 2) | ((uint8_data[3::4] << 2) & 0xF0)
    b[i] = u8((d2 >> 2) | (u8(d3 << 2) & 0xF0));
    // bits_packed_2 = (uint8_data[::4] << 6) | ((uint8_data[1::4] << 4) & 0x30)
    //               | ((uint8_data[3::4] << 2) & 0xC) | (uint8_data[2::4] & 0x3)
    two[i] = u8(u8(d0 << 6) | (u8(d1 << 4) & 0x30) | (u8(d3 << 2) & 0xC) |
                (d2 & 0x3));
  }
  for (size_t i = 0; i < n; ++i) // torch.stack((a, b, two), dim=-1).view(...)
    out.insert(out.end(), {a[i], b[i], two[i]});
  return out;
}

TEST(Fp6Interleaved4p2, BitExactWithTorchaoReferenceOnRandomCodes) {
  std::mt19937 rng(1810);
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 4}, {3, 32},
                            {7, 96}, {16, 4096}}) {
    std::vector<uint8_t> codes(rows * cols);
    for (uint8_t &c : codes)
      c = uint8_t(rng() & 0x3F);
    auto packed = packFp6(codes.data(), rows, cols, Fp6Layout::Interleaved4p2);
    ASSERT_EQ(packed, packUint6Pytorch(codes)) << rows << "x" << cols;
    EXPECT_EQ(int64_t(packed.size()), rows * cols / 4 * 3);
    EXPECT_EQ(unpackFp6(packed.data(), rows, cols, Fp6Layout::Interleaved4p2),
              codes);
  }
}

TEST(Fp6Interleaved4p2, EveryCodeAtEveryPositionMatchesTheReference) {
  // 64 codes at each of the 4 positions of a group, the others cycling.
  std::vector<uint8_t> codes;
  for (int pos = 0; pos < 4; ++pos)
    for (int v = 0; v < 64; ++v)
      for (int t = 0; t < 4; ++t)
        codes.push_back(uint8_t(t == pos ? v : (v * 7 + t * 13) & 0x3F));
  int64_t cols = int64_t(codes.size());
  EXPECT_EQ(packFp6(codes.data(), 1, cols, Fp6Layout::Interleaved4p2),
            packUint6Pytorch(codes));
}

TEST(Fp6Interleaved4p2, SeedEdgeValuesMatchTheReference) {
  // The values torchao #1810's tests name (min/max normal, min/max
  // subnormal, -0.0, zero), encoded by the numerics core, for e2m3 and e3m2.
  for (const char *name : {"e2m3fn", "e3m2fn"}) {
    Format f = getFormat(name);
    std::vector<double> vals = {0.0,
                                -0.0,
                                f.minNormal(),
                                -f.minNormal(),
                                f.maxFinite(),
                                -f.maxFinite(),
                                f.minSubnormal(),
                                -f.minSubnormal(),
                                f.minNormal() - f.minSubnormal(), // max subnormal
                                -(f.minNormal() - f.minSubnormal()),
                                1.0,
                                -1.0};
    std::vector<uint8_t> codes;
    for (double v : vals)
      codes.push_back(encode(f, float(v), Rounding::RN, Overflow::SatFinite));
    ASSERT_EQ(codes.size() % 4, 0u);
    auto packed = packFp6(codes.data(), 1, int64_t(codes.size()),
                          Fp6Layout::Interleaved4p2);
    EXPECT_EQ(packed, packUint6Pytorch(codes)) << name;
    auto back = unpackFp6(packed.data(), 1, int64_t(codes.size()),
                          Fp6Layout::Interleaved4p2);
    for (size_t i = 0; i < vals.size(); ++i) {
      double d = decode(f, back[i]);
      EXPECT_EQ(d, vals[i]) << name << " " << vals[i];
      EXPECT_EQ(std::signbit(d), std::signbit(vals[i])) << name << " " << vals[i];
    }
  }
}

TEST(Fp6, DimensionNotMultipleOfFourIsAnError) {
  const uint8_t codes[6] = {};
  try {
    packFp6(codes, 1, 6, Fp6Layout::Planes);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 4"), std::string::npos);
  }
  EXPECT_THROW(unpackFp6(codes, 1, 6, Fp6Layout::Contiguous24), Error);
  try {
    packFp6(codes, 2, 6, Fp6Layout::Interleaved4p2);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("'interleaved' packs 4 values in 3 bytes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(packFp6(codes, 1, 6, Fp6Layout::Bytes));
}

/// torchao's to_blocked written as the tensor reshapes it performs:
/// view(nR, 128, nC, 4).permute(0, 2, 1, 3).reshape(-1, 4, 32, 4)
/// .transpose(1, 2).reshape(-1, 32, 16).
std::vector<uint8_t> toBlockedReference(const std::vector<uint8_t> &m,
                                        int64_t rows, int64_t cols) {
  int64_t nR = (rows + 127) / 128, nC = (cols + 3) / 4;
  std::vector<uint8_t> padded(nR * 128 * nC * 4, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      padded[r * nC * 4 + c] = m[r * cols + c];
  std::vector<uint8_t> out;
  for (int64_t i = 0; i < nR; ++i)
    for (int64_t j = 0; j < nC; ++j)        // permute(0, 2, 1, 3)
      for (int64_t r32 = 0; r32 < 32; ++r32) // transpose(1, 2): (32, 4, 4)
        for (int64_t q = 0; q < 4; ++q)
          for (int64_t c = 0; c < 4; ++c)
            out.push_back(padded[(i * 128 + q * 32 + r32) * nC * 4 + j * 4 + c]);
  return out;
}

TEST(Blocked, MatchesTheReshapeDefinitionAndRoundTrips) {
  std::mt19937 rng(3);
  for (int64_t rows : {1, 31, 32, 127, 128, 129, 300})
    for (int64_t cols : {1, 3, 4, 5, 9, 16}) {
      std::vector<uint8_t> m(rows * cols);
      for (auto &v : m)
        v = uint8_t(rng() % 255 + 1); // non-zero, to see the zero padding
      auto b = swizzleBlocked(m.data(), rows, cols);
      EXPECT_EQ(int64_t(b.size()), blockedRows(rows) * blockedCols(cols));
      EXPECT_EQ(b, toBlockedReference(m, rows, cols)) << rows << "x" << cols;
      EXPECT_EQ(unswizzleBlocked(b.data(), rows, cols), m);
      auto padded = swizzleBlocked(m.data(), rows, cols, 0x7F);
      size_t pads = std::count(padded.begin(), padded.end(), uint8_t(0x7F));
      size_t realPads = std::count(m.begin(), m.end(), uint8_t(0x7F));
      EXPECT_EQ(pads - realPads, padded.size() - m.size());
    }
  EXPECT_EQ(blockedOffset(0, 0, 8), 0);
  EXPECT_EQ(blockedOffset(1, 0, 8), 16);
  EXPECT_EQ(blockedOffset(32, 0, 8), 4);
  EXPECT_EQ(blockedOffset(33, 2, 8), 22);
  EXPECT_EQ(blockedOffset(0, 4, 8), 512);
  EXPECT_EQ(blockedOffset(128, 0, 8), 1024);
}

TEST(Blocked, GroupedRoundTripsAndPadsEachGroup) {
  const int64_t rows = 333, cols = 6;
  std::vector<int32_t> ends = {0, 5, 5, 200, 333};
  std::vector<uint8_t> m(rows * cols);
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = uint8_t(i * 7 + 1);
  auto starts = groupBlockedRowStarts(ends);
  EXPECT_EQ(starts, (std::vector<int64_t>{0, 0, 128, 128, 384, 640}));
  auto b = swizzleBlockedGrouped(m.data(), rows, cols, ends);
  EXPECT_EQ(int64_t(b.size()), 640 * blockedCols(cols));
  int64_t begin = 0;
  for (size_t g = 0; g < ends.size(); ++g) {
    auto part = swizzleBlocked(m.data() + begin * cols, ends[g] - begin, cols);
    EXPECT_TRUE(std::equal(part.begin(), part.end(),
                           b.begin() + starts[g] * blockedCols(cols)));
    begin = ends[g];
  }
  EXPECT_EQ(unswizzleBlockedGrouped(b.data(), rows, cols, ends), m);
  EXPECT_THROW(swizzleBlockedGrouped(m.data(), rows, cols, {5, 3, 333}), Error);
  EXPECT_THROW(swizzleBlockedGrouped(m.data(), rows, cols, {5, 300}), Error);
}

} // namespace
