//===- MmaTiles.cpp - weights pre-packed for the weight-only GEMM ---------===//
#include "fpx/Numerics/MmaTiles.h"
#include "fpx/Numerics/Format.h"

#include <string>

using namespace fpx::num;

int64_t fpx::num::mmaTileCols(int bits) {
  if (bits != 8 && bits != 4)
    throw Error("mma_tiles holds 8-bit or 4-bit codes, not " + std::to_string(bits) + "-bit");
  return kMmaTileBytes * 8 / bits;
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

int64_t fpx::num::mmaTileNibbleOffset(int64_t r, int64_t k, int64_t rows, int64_t cols) {
  checkShape(rows, cols, 4);
  checkInside(r, k, rows, cols);
  const int64_t tc = 64;
  int64_t tile = (r / kMmaTileRows) * (cols / tc) + k / tc;
  int64_t rr = r % kMmaTileRows, kk = k % tc;
  int64_t g = rr % 8, upper = rr / 8;
  int64_t h = kk / 32, t = (kk % 32) / 8, e = kk % 8;
  int64_t step = e / 4, reg = 2 * ((e % 4) / 2) + upper, odd = e % 2;
  int64_t lane = 4 * g + t, word = 2 * h + step, nibble = reg + 4 * odd;
  return 2 * (tile * 512 + lane * 16 + word * 4) + nibble;
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
      } else {
        int64_t o = mmaTileNibbleOffset(r, k, rows, cols);
        out[r * cols + k] = (packed[o / 2] >> (4 * (o % 2))) & 0xF;
      }
    }
  return out;
}
