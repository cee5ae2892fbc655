//===- Packing.h - Sub-byte packings and scale layouts ----------*- C++ -*-===//
//
// How FPx codes and their scales are laid out in memory: fp4x2, the fp6
// layouts, and the blocked 128x4 scale layout that cuBLAS and Blackwell
// tensor cores read. Every function here is a pure permutation of bits, so
// each has an exact inverse.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_PACKING_H
#define FPX_NUMERICS_PACKING_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fpx::num {

//===----------------------------------------------------------------------===//
// fp4
//===----------------------------------------------------------------------===//

/// Packs 4-bit codes two per byte: element 2k in the LOW nibble of byte k,
/// element 2k+1 in the high nibble (PyTorch float4_e2m1fn_x2 / OCP order).
/// An odd count leaves the last high nibble 0. Bits above 4 are ignored.
std::vector<uint8_t> packFp4x2(const uint8_t *codes, size_t n);
/// Inverse of packFp4x2; `n` is the number of elements.
std::vector<uint8_t> unpackFp4x2(const uint8_t *packed, size_t n);
/// Swaps the nibbles of each byte: converts between fp4x2 storage order and
/// the order of PTX `cvt.*.e2m1x2` (first operand in the HIGH nibble).
uint8_t swapNibbles(uint8_t byte);

//===----------------------------------------------------------------------===//
// fp6
//===----------------------------------------------------------------------===//

/// Memory layouts of 6-bit codes, packed along the last (contiguous) dim.
enum class Fp6Layout {
  /// One code per byte, in bits [5:0]; bits [7:6] are zero.
  Bytes,
  /// 4 codes in 3 bytes as one little-endian 24-bit word
  /// w = c0 | c1 << 6 | c2 << 12 | c3 << 18.
  Contiguous24,
  /// 4 codes in 3 bytes, most significant bits first (one 6-bit stream, the
  /// 6-bit input of FP6-LLM's weight pre-packing):
  /// byte0 = c0 << 2 | c1 >> 4, byte1 = (c1 & 15) << 4 | c2 >> 2,
  /// byte2 = (c2 & 3) << 6 | c3.
  Contiguous24Msb,
  /// "4+2" split into two bit planes per row of C codes (C % 4 == 0): the
  /// first C/4 bytes hold the 2 HIGH bits of each code (code 4j+t in bits
  /// [2t+1:2t] of byte j), the next C/2 bytes hold the 4 LOW bits (code 2j
  /// in the low nibble of byte C/4 + j, code 2j+1 in its high nibble).
  /// (Formerly called "4+2"; FP6-LLM splits the same way, 2 high + 4 low,
  /// but orders each plane in tensor-core fragment order: docs/formats.md.)
  Planes,
  /// "4+2" interleaved every 4 codes, as torchao PR #1810's reference
  /// `pack_uint6_pytorch` writes it: 4 HIGH bits of each code in two bytes,
  /// the 2 LOW bits in the third, codes 2 and 3 swapped in both:
  /// byte0 = c0[5:2] << 4 | c1[5:2], byte1 = c3[5:2] << 4 | c2[5:2],
  /// byte2 = c0[1:0] << 6 | c1[1:0] << 4 | c3[1:0] << 2 | c2[1:0].
  Interleaved4p2,
};

const char *toString(Fp6Layout layout);

/// Where Interleaved4p2 puts code t (0..3) of a group in the group's three
/// bytes read as a little-endian 24-bit word b0 | b1 << 8 | b2 << 16: its 4
/// high bits [5:2] at bit kInterleavedHi[t], its 2 low bits [1:0] at bit
/// kInterleavedLo[t]. The GPU kernels place these; packFp6 spells them out.
inline constexpr int kInterleavedHi[4] = {4, 0, 8, 12};
inline constexpr int kInterleavedLo[4] = {22, 20, 16, 18};

/// Bytes per row of `cols` fp6 codes in `layout`; throws Error when the
/// layout packs 4 codes in 3 bytes and cols % 4 != 0.
int64_t fp6PackedCols(int64_t cols, Fp6Layout layout);
/// Packs a row-major [rows, cols] array of fp6 codes (one per byte).
std::vector<uint8_t> packFp6(const uint8_t *codes, int64_t rows, int64_t cols,
                             Fp6Layout layout);
/// Unpacks to one code per byte; rows/cols are the unpacked shape.
std::vector<uint8_t> unpackFp6(const uint8_t *packed, int64_t rows,
                               int64_t cols, Fp6Layout layout);
/// Re-packs between two layouts.
std::vector<uint8_t> convertFp6(const uint8_t *packed, int64_t rows,
                                int64_t cols, Fp6Layout from, Fp6Layout to);

//===----------------------------------------------------------------------===//
// Blocked (swizzled) 128x4 scale layout
//===----------------------------------------------------------------------===//

/// The scale matrix [rows, cols] (rows = M or N, cols = K / block) is padded
/// to [ceil(rows/128)*128, ceil(cols/4)*4] and cut into 128x4 tiles, stored
/// tile after tile in row-major tile order; inside a tile, element (r, c)
/// goes to byte (r % 32) * 16 + (r / 32) * 4 + c (the "to_blocked" layout of
/// cuBLAS / tcgen05 block-scaled MMA).
int64_t blockedRows(int64_t rows);
int64_t blockedCols(int64_t cols);
/// Offset of scale (r, c) in the blocked buffer of a [rows, cols] matrix.
int64_t blockedOffset(int64_t r, int64_t c, int64_t cols);
/// Row-major scales -> blocked layout; padding bytes are `pad`.
std::vector<uint8_t> swizzleBlocked(const uint8_t *scales, int64_t rows,
                                    int64_t cols, uint8_t pad = 0);
/// Blocked layout -> row-major [rows, cols] (the padding is dropped).
std::vector<uint8_t> unswizzleBlocked(const uint8_t *blocked, int64_t rows,
                                      int64_t cols);

/// Grouped GEMM variant: the rows are split into groups by `groupEnds`
/// (cumulative end offsets, non-decreasing, last == rows, as the `offs`
/// argument of torch._scaled_grouped_mm). Each group is blocked on its own,
/// padded to a multiple of 128 rows, and the groups are concatenated; group g
/// starts at row groupBlockedRowStarts(groupEnds)[g] of the output.
std::vector<int64_t> groupBlockedRowStarts(const std::vector<int32_t> &groupEnds);
std::vector<uint8_t> swizzleBlockedGrouped(const uint8_t *scales, int64_t rows,
                                           int64_t cols,
                                           const std::vector<int32_t> &groupEnds,
                                           uint8_t pad = 0);
std::vector<uint8_t>
unswizzleBlockedGrouped(const uint8_t *blocked, int64_t rows, int64_t cols,
                        const std::vector<int32_t> &groupEnds);

} // namespace fpx::num

#endif // FPX_NUMERICS_PACKING_H
