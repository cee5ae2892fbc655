//===- MmaTiles.h - weights pre-packed for the weight-only GEMM -*- C++ -*-===//
//
// The mma_tiles layout: an N x K matrix of 8-bit codes (N output channels,
// K-major) stored in the order the weight-only GEMM's warps read it, so that
// each lane's one 16-byte load is its A fragments of two mma.sync m16n8k16
// steps. The matrix is cut into 16 x 32 tiles (N % 16 == 0, K % 32 == 0),
// stored row tile after row tile, K tiles in order inside a row tile; a tile
// is 512 bytes, 16 a lane. Lane l = 4g + t (g = 0..7, t = 0..3) holds rows g
// and g + 8 at k = 8t .. 8t + 7; its byte 4w + b is row g + 8 (b / 2) at
// k = 8t + 2w + (b % 2). A pure permutation: every code keeps its bits.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_MMATILES_H
#define FPX_NUMERICS_MMATILES_H

#include <cstdint>
#include <vector>

namespace fpx::num {

/// Rows and columns a tile (the layout's divisibility rules).
constexpr int64_t kMmaTileRows = 16;
constexpr int64_t kMmaTileCols = 32;

/// Byte offset of code (r, k) of a rows x cols matrix in the mma_tiles
/// buffer; throws Error unless rows % 16 == 0 and cols % 32 == 0 (and r, k
/// are inside).
int64_t mmaTileOffset(int64_t r, int64_t k, int64_t rows, int64_t cols);
/// Row-major codes (one per byte) -> mma_tiles.
std::vector<uint8_t> packMmaTiles(const uint8_t *codes, int64_t rows, int64_t cols);
/// mma_tiles -> row-major codes.
std::vector<uint8_t> unpackMmaTiles(const uint8_t *packed, int64_t rows, int64_t cols);

} // namespace fpx::num

#endif // FPX_NUMERICS_MMATILES_H
