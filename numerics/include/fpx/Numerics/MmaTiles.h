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
// 6-bit and 5-bit codes (e2m3, e3m2: MXFP6, FP6-LLM; e2m2: FP6-LLM's fp5)
// split as FP6-LLM does: a 16 x 64 tile of 128 * bits bytes holds first the
// low 4 bits of every code exactly as a 4-bit tile (512 bytes, the same
// fragment loads), then the high plane: hb = bits - 4 bits a code, lane l's
// 4 * hb bytes at 512 + 4 * hb * l (one aligned 64-bit load for fp6, 32-bit
// for fp5). The high bits of the codes of low word i = 2h + s, nibble p
// (p = 0..7) are in high word i / (4 / hb) at bit
// 16 (p / 4) + hb (4 (i % (4 / hb)) + p % 4): the element pairs of register
// a_p sit 16 bits apart, so one shift puts both pairs' high bits at the top
// of the two 16-bit halves, beside the low nibbles (mmaTileDecodeShifts).
//
// The layout is a permutation: every code keeps its bits.
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

/// Columns a tile for codes of `bits` (8: 32; 6, 5, 4: 64); throws Error
/// for other widths.
int64_t mmaTileCols(int bits);
/// Bytes a tile: 512 for 8- and 4-bit codes, 128 * bits for 6 and 5.
int64_t mmaTileSize(int bits);
/// Bytes of lane l's high plane in a tile of 6- or 5-bit codes (8 or 4),
/// at byte 512 + l * mmaTileHighBytes(bits) of the tile.
int64_t mmaTileHighBytes(int bits);

/// Byte offset of 8-bit code (r, k) of a rows x cols matrix in the
/// mma_tiles buffer; throws Error unless rows % 16 == 0 and cols % 32 == 0
/// (and r, k are inside).
int64_t mmaTileOffset(int64_t r, int64_t k, int64_t rows, int64_t cols);
/// Nibble offset of 4-bit code (r, k) (byte offset / 2, the high nibble when
/// odd); throws Error unless rows % 16 == 0 and cols % 64 == 0.
int64_t mmaTileNibbleOffset(int64_t r, int64_t k, int64_t rows, int64_t cols);

/// Bit offset of the low nibble of 6- or 5-bit code (r, k), as for a
/// 4-bit code but with tiles of mmaTileSize(bits) bytes.
int64_t mmaTileLowBitOffset(int64_t r, int64_t k, int64_t rows, int64_t cols, int bits);
/// Bit offset of the high bits (bits - 4 of them, lowest first) of 6- or
/// 5-bit code (r, k); throws Error unless rows % 16 == 0, cols % 64 == 0.
int64_t mmaTileHighBitOffset(int64_t r, int64_t k, int64_t rows, int64_t cols, int bits);

/// How the GEMM puts the two codes of register a_p (p = 0..3) of low word
/// i (0..3, = 2h + s) of a lane's tile at the top of the two 16-bit halves
/// of a 32-bit value (code bit bits-1 at bits 15 and 31):
///   (rot(low[i], lowShift) & lowMask) | ((high[highWord] << highShift) & highMask)
/// with rot a left shift (lowShift >= 0) or a right shift by -lowShift,
/// low[] the lane's four low words and high[] its high words of the tile.
struct MmaTileDecodeShifts {
  int lowShift;
  uint32_t lowMask;
  int highWord;
  int highShift;
  uint32_t highMask;
};
MmaTileDecodeShifts mmaTileDecodeShifts(int bits, int i, int p);

/// Row-major codes (one per byte, narrower codes in the low bits) ->
/// mma_tiles (rows * cols * bits / 8 bytes).
std::vector<uint8_t> packMmaTiles(const uint8_t *codes, int64_t rows, int64_t cols,
                                  int bits = 8);
/// mma_tiles -> row-major codes (one per byte).
std::vector<uint8_t> unpackMmaTiles(const uint8_t *packed, int64_t rows, int64_t cols,
                                    int bits = 8);

} // namespace fpx::num

#endif // FPX_NUMERICS_MMATILES_H
