//===- MmaTiles.h - weights pre-packed for the weight-only GEMM -*- C++ -*-===//
//
// The mma_tiles layout: an N x K matrix of codes (N output channels,
// K-major) stored in the order the weight-only GEMM's warps read it, so that
// each lane's one 16-byte load is its A fragments of several mma.sync
// m16n8k16 steps. The tile is 16 rows by 128 bytes of codes (32 columns of
// 8-bit codes, 64 of 4-bit ones), row tiles one after the other, K tiles in
// order inside a row tile; a tile is 512 bytes, 16 a lane.
//
// 8-bit codes (16 x 32 tiles): lane l = 4g + t (g = 0..7, t = 0..3) holds
// rows g and g + 8 at k = 8t .. 8t + 7; its byte 4w + b is row g + 8 (b / 2)
// at k = 8t + 2w + (b % 2). Word w is the A register a_(b/2 + 2(w%2)) of
// MMA step w / 2.
//
// 4-bit codes (16 x 64 tiles): the same permutation of each 32-column half
// h of the tile, a lane's word 2h + s being its four A registers of step s
// of that half: nibble p (bits 4p..4p+3, p = 0..3) is the low element of
// register a_p, nibble p + 4 its high element. Register a_p holds row
// g + 8 (p % 2) at k = 32h + 8t + 4s + 2 (p / 2) + {0, 1}. Shifting the word
// left by 12 - 4p puts register p's two codes at the top of the two 16-bit
// halves, where the decode wants them.
//
// A pure permutation: every code keeps its bits.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_MMATILES_H
#define FPX_NUMERICS_MMATILES_H

#include <cstdint>
#include <vector>

namespace fpx::num {

/// Rows a tile and bytes a tile row (the layout's divisibility rules).
constexpr int64_t kMmaTileRows = 16;
constexpr int64_t kMmaTileBytes = 32;
/// Columns a tile of 8-bit codes (kept for the 8-bit callers).
constexpr int64_t kMmaTileCols = 32;

/// Columns a tile for codes of `bits` (8: 32, 4: 64); throws Error for
/// other widths.
int64_t mmaTileCols(int bits);

/// Byte offset of 8-bit code (r, k) of a rows x cols matrix in the
/// mma_tiles buffer; throws Error unless rows % 16 == 0 and cols % 32 == 0
/// (and r, k are inside).
int64_t mmaTileOffset(int64_t r, int64_t k, int64_t rows, int64_t cols);
/// Nibble offset of 4-bit code (r, k) (byte offset / 2, the high nibble when
/// odd); throws Error unless rows % 16 == 0 and cols % 64 == 0.
int64_t mmaTileNibbleOffset(int64_t r, int64_t k, int64_t rows, int64_t cols);

/// Row-major codes (one per byte, 4-bit codes in the low nibble) ->
/// mma_tiles (rows * cols * bits / 8 bytes).
std::vector<uint8_t> packMmaTiles(const uint8_t *codes, int64_t rows, int64_t cols,
                                  int bits = 8);
/// mma_tiles -> row-major codes (one per byte).
std::vector<uint8_t> unpackMmaTiles(const uint8_t *packed, int64_t rows, int64_t cols,
                                    int bits = 8);

} // namespace fpx::num

#endif // FPX_NUMERICS_MMATILES_H
