//===- MmaTiles.cpp - weights pre-packed for the weight-only GEMM ---------===//
#include "fpx/Numerics/MmaTiles.h"
#include "fpx/Numerics/Format.h"

#include <string>

using namespace fpx::num;

int64_t fpx::num::mmaTileCols(int bits) {
  if (bits != 8 && bits != 6 && bits != 5 && bits != 4)
    throw Error("mma_tiles holds 8-, 6-, 5- or 4-bit codes, not " + std::to_string(bits) +
                "-bit");
  return bits == 8 ? 32 : 64;
}

int64_t fpx::num::mmaTileSize(int bits) { return kMmaTileRows * mmaTileCols(bits) * bits / 8; }

int64_t fpx::num::mmaTileHighBytes(int bits) {
  if (bits != 6 && bits != 5)
    throw Error("mma_tiles has a high plane for 6- and 5-bit codes only, not " +
                std::to_string(bits) + "-bit");
  return 4 * (bits - 4);
}

static void checkShape(int64_t rows, int64_t cols, int bits) {
  int64_t tc = mmaTileCols(bits);
  if (rows < 0 || cols < 0 || rows % kMmaTileRows || cols % tc)
    throw Error("mma_tiles of " + std::to_string(bits) +
                "-bit codes needs rows a multiple of 16 and columns a multiple of " +
                std::to_string(tc) + ", not " + std::to_string(rows) + " x " +
                std::to_string(cols));
}

static void checkInside(int64_t r, int64_t k, int64_t rows, int64_t cols) {
  if (r < 0 || r >= rows || k < 0 || k >= cols)
    throw Error("mma_tiles: element (" + std::to_string(r) + ", " + std::to_string(k) +
                ") is outside " + std::to_string(rows) + " x " + std::to_string(cols));
}

int64_t fpx::num::mmaTileOffset(int64_t r, int64_t k, int64_t rows, int64_t cols) {
  checkShape(rows, cols, 8);
  checkInside(r, k, rows, cols);
  int64_t tile = (r / kMmaTileRows) * (cols / kMmaTileCols) + k / kMmaTileCols;
  int64_t rr = r % kMmaTileRows, kk = k % kMmaTileCols;
  int64_t g = rr % 8, upper = rr / 8, t = kk / 8, e = kk % 8;
  int64_t lane = 4 * g + t;
  return tile * 512 + lane * 16 + (e / 2) * 4 + 2 * upper + e % 2;
}

namespace {
/// Where code (r, k) of a 16 x 64 tile sits: the tile, the lane, the lane's
/// low word (2h + s) and the nibble in it (register + 4 * odd).
struct NibblePlace {
  int64_t tile, lane, word, nibble;
};
NibblePlace nibblePlace(int64_t r, int64_t k, int64_t cols) {
  const int64_t tc = 64;
  int64_t tile = (r / kMmaTileRows) * (cols / tc) + k / tc;
  int64_t rr = r % kMmaTileRows, kk = k % tc;
  int64_t g = rr % 8, upper = rr / 8;
  int64_t h = kk / 32, t = (kk % 32) / 8, e = kk % 8;
  int64_t step = e / 4, reg = 2 * ((e % 4) / 2) + upper, odd = e % 2;
  return {tile, 4 * g + t, 2 * h + step, reg + 4 * odd};
}
} // namespace

int64_t fpx::num::mmaTileNibbleOffset(int64_t r, int64_t k, int64_t rows, int64_t cols) {
  checkShape(rows, cols, 4);
  checkInside(r, k, rows, cols);
  NibblePlace q = nibblePlace(r, k, cols);
  return 2 * (q.tile * 512 + q.lane * 16 + q.word * 4) + q.nibble;
}

int64_t fpx::num::mmaTileLowBitOffset(int64_t r, int64_t k, int64_t rows, int64_t cols,
                                      int bits) {
  mmaTileHighBytes(bits); // 6 or 5
  checkShape(rows, cols, bits);
  checkInside(r, k, rows, cols);
  NibblePlace q = nibblePlace(r, k, cols);
  return 8 * (q.tile * mmaTileSize(bits) + q.lane * 16 + q.word * 4) + 4 * q.nibble;
}

int64_t fpx::num::mmaTileHighBitOffset(int64_t r, int64_t k, int64_t rows, int64_t cols,
                                       int bits) {
  const int64_t lb = mmaTileHighBytes(bits), hb = bits - 4, per = 4 / hb;
  checkShape(rows, cols, bits);
  checkInside(r, k, rows, cols);
  NibblePlace q = nibblePlace(r, k, cols);
  int64_t byte = q.tile * mmaTileSize(bits) + 512 + q.lane * lb + 4 * (q.word / per);
  int64_t bit = 16 * (q.nibble / 4) + hb * (4 * (q.word % per) + q.nibble % 4);
  return 8 * byte + bit;
}

MmaTileDecodeShifts fpx::num::mmaTileDecodeShifts(int bits, int i, int p) {
  const int hb = static_cast<int>(mmaTileHighBytes(bits)) / 4, per = 4 / hb;
  if (i < 0 || i > 3 || p < 0 || p > 3)
    throw Error("mmaTileDecodeShifts: word " + std::to_string(i) + ", register " +
                std::to_string(p) + " (0..3 each)");
  MmaTileDecodeShifts d;
  d.lowShift = (16 - bits) - 4 * p;
  d.lowMask = (0xFu << (16 - bits)) * 0x10001u;
  d.highWord = i / per;
  d.highShift = (16 - hb) - hb * (4 * (i % per) + p);
  d.highMask = (((1u << hb) - 1) << (16 - hb)) * 0x10001u;
  return d;
}

std::vector<uint8_t> fpx::num::packMmaTiles(const uint8_t *codes, int64_t rows, int64_t cols,
                                            int bits) {
  checkShape(rows, cols, bits);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols * bits / 8));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k) {
      uint8_t c = codes[r * cols + k];
      if (bits == 8) {
        out[mmaTileOffset(r, k, rows, cols)] = c;
      } else if (bits != 4) {
        int64_t lo = mmaTileLowBitOffset(r, k, rows, cols, bits);
        int64_t hi = mmaTileHighBitOffset(r, k, rows, cols, bits);
        out[lo / 8] |= static_cast<uint8_t>((c & 0xF) << (lo % 8));
        out[hi / 8] |= static_cast<uint8_t>(((c >> 4) & ((1u << (bits - 4)) - 1)) << (hi % 8));
      } else {
        int64_t o = mmaTileNibbleOffset(r, k, rows, cols);
        out[o / 2] |= static_cast<uint8_t>((c & 0xF) << (4 * (o % 2)));
      }
    }
  return out;
}

std::vector<uint8_t> fpx::num::unpackMmaTiles(const uint8_t *packed, int64_t rows, int64_t cols,
                                              int bits) {
  checkShape(rows, cols, bits);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k) {
      if (bits == 8) {
        out[r * cols + k] = packed[mmaTileOffset(r, k, rows, cols)];
      } else if (bits != 4) {
        int64_t lo = mmaTileLowBitOffset(r, k, rows, cols, bits);
        int64_t hi = mmaTileHighBitOffset(r, k, rows, cols, bits);
        uint32_t l = (packed[lo / 8] >> (lo % 8)) & 0xF;
        uint32_t h = (packed[hi / 8] >> (hi % 8)) & ((1u << (bits - 4)) - 1);
        out[r * cols + k] = static_cast<uint8_t>(l | (h << 4));
      } else {
        int64_t o = mmaTileNibbleOffset(r, k, rows, cols);
        out[r * cols + k] = (packed[o / 2] >> (4 * (o % 2))) & 0xF;
      }
    }
  return out;
}
