//===- MmaTiles.cpp - weights pre-packed for the weight-only GEMM ---------===//
#include "fpx/Numerics/MmaTiles.h"
#include "fpx/Numerics/Format.h"

#include <string>

using namespace fpx::num;

static void checkShape(int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0 || rows % kMmaTileRows || cols % kMmaTileCols)
    throw Error("mma_tiles needs rows a multiple of 16 and columns a multiple of 32, not " +
                std::to_string(rows) + " x " + std::to_string(cols));
}

int64_t fpx::num::mmaTileOffset(int64_t r, int64_t k, int64_t rows, int64_t cols) {
  checkShape(rows, cols);
  if (r < 0 || r >= rows || k < 0 || k >= cols)
    throw Error("mma_tiles: element (" + std::to_string(r) + ", " + std::to_string(k) +
                ") is outside " + std::to_string(rows) + " x " + std::to_string(cols));
  int64_t tile = (r / kMmaTileRows) * (cols / kMmaTileCols) + k / kMmaTileCols;
  int64_t rr = r % kMmaTileRows, kk = k % kMmaTileCols;
  int64_t g = rr % 8, upper = rr / 8, t = kk / 8, e = kk % 8;
  int64_t lane = 4 * g + t;
  return tile * 512 + lane * 16 + (e / 2) * 4 + 2 * upper + e % 2;
}

std::vector<uint8_t> fpx::num::packMmaTiles(const uint8_t *codes, int64_t rows, int64_t cols) {
  checkShape(rows, cols);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k)
      out[mmaTileOffset(r, k, rows, cols)] = codes[r * cols + k];
  return out;
}

std::vector<uint8_t> fpx::num::unpackMmaTiles(const uint8_t *packed, int64_t rows, int64_t cols) {
  checkShape(rows, cols);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k)
      out[r * cols + k] = packed[mmaTileOffset(r, k, rows, cols)];
  return out;
}
