//===- Packing.cpp - Sub-byte packings and scale layouts ------------------===//
#include "fpx/Numerics/Packing.h"

#include "fpx/Numerics/Format.h"

#include <string>

namespace fpx::num {

std::vector<uint8_t> packFp4x2(const uint8_t *codes, size_t n) {
  std::vector<uint8_t> out((n + 1) / 2, 0);
  for (size_t i = 0; i < n; ++i)
    out[i / 2] |= static_cast<uint8_t>((codes[i] & 0xf) << ((i & 1) * 4));
  return out;
}

std::vector<uint8_t> unpackFp4x2(const uint8_t *packed, size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = (packed[i / 2] >> ((i & 1) * 4)) & 0xf;
  return out;
}

uint8_t swapNibbles(uint8_t b) {
  return static_cast<uint8_t>((b >> 4) | (b << 4));
}

int64_t fp6PackedCols(int64_t cols, Fp6Layout layout) {
  if (cols < 0)
    throw Error("fpx: negative fp6 dimension");
  if (layout == Fp6Layout::Bytes)
    return cols;
  if (cols % 4 != 0)
    throw Error("fpx: fp6 layout '" + std::string(toString(layout)) +
                "' packs 4 values in 3 bytes; the packed dimension (" +
                std::to_string(cols) + ") must be a multiple of 4");
  return cols / 4 * 3;
}

static void checkShape(int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0)
    throw Error("fpx: negative shape");
}

std::vector<uint8_t> packFp6(const uint8_t *codes, int64_t rows, int64_t cols,
                             Fp6Layout layout) {
  checkShape(rows, cols);
  int64_t pc = fp6PackedCols(cols, layout);
  std::vector<uint8_t> out(static_cast<size_t>(rows * pc), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t *in = codes + r * cols;
    uint8_t *o = out.data() + r * pc;
    switch (layout) {
    case Fp6Layout::Bytes:
      for (int64_t c = 0; c < cols; ++c)
        o[c] = in[c] & 0x3f;
      break;
    case Fp6Layout::Contiguous24:
      for (int64_t g = 0; g < cols / 4; ++g) {
        uint32_t w = 0;
        for (int t = 0; t < 4; ++t)
          w |= uint32_t(in[4 * g + t] & 0x3f) << (6 * t);
        o[3 * g] = uint8_t(w);
        o[3 * g + 1] = uint8_t(w >> 8);
        o[3 * g + 2] = uint8_t(w >> 16);
      }
      break;
    case Fp6Layout::Contiguous24Msb:
      for (int64_t g = 0; g < cols / 4; ++g) {
        uint32_t w = 0;
        for (int t = 0; t < 4; ++t)
          w |= uint32_t(in[4 * g + t] & 0x3f) << (18 - 6 * t);
        o[3 * g] = uint8_t(w >> 16);
        o[3 * g + 1] = uint8_t(w >> 8);
        o[3 * g + 2] = uint8_t(w);
      }
      break;
    case Fp6Layout::Interleaved4p2:
      for (int64_t g = 0; g < cols / 4; ++g) {
        const uint8_t *c = in + 4 * g;
        uint8_t c0 = c[0] & 0x3f, c1 = c[1] & 0x3f, c2 = c[2] & 0x3f,
                c3 = c[3] & 0x3f;
        o[3 * g] = uint8_t((c0 >> 2) << 4 | c1 >> 2);
        o[3 * g + 1] = uint8_t((c3 >> 2) << 4 | c2 >> 2);
        o[3 * g + 2] = uint8_t((c0 & 3) << 6 | (c1 & 3) << 4 | (c3 & 3) << 2 |
                               (c2 & 3));
      }
      break;
    case Fp6Layout::Planes: {
      uint8_t *hi2 = o;
      uint8_t *lo4 = o + cols / 4;
      for (int64_t c = 0; c < cols; ++c) {
        uint8_t v = in[c] & 0x3f;
        hi2[c / 4] |= uint8_t((v >> 4) << (2 * (c % 4)));
        lo4[c / 2] |= uint8_t((v & 0xf) << (4 * (c % 2)));
      }
      break;
    }
    }
  }
  return out;
}

std::vector<uint8_t> unpackFp6(const uint8_t *packed, int64_t rows,
                               int64_t cols, Fp6Layout layout) {
  checkShape(rows, cols);
  int64_t pc = fp6PackedCols(cols, layout);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t *in = packed + r * pc;
    uint8_t *o = out.data() + r * cols;
    switch (layout) {
    case Fp6Layout::Bytes:
      for (int64_t c = 0; c < cols; ++c)
        o[c] = in[c] & 0x3f;
      break;
    case Fp6Layout::Contiguous24:
      for (int64_t g = 0; g < cols / 4; ++g) {
        uint32_t w = in[3 * g] | uint32_t(in[3 * g + 1]) << 8 |
                     uint32_t(in[3 * g + 2]) << 16;
        for (int t = 0; t < 4; ++t)
          o[4 * g + t] = (w >> (6 * t)) & 0x3f;
      }
      break;
    case Fp6Layout::Contiguous24Msb:
      for (int64_t g = 0; g < cols / 4; ++g) {
        uint32_t w = uint32_t(in[3 * g]) << 16 | uint32_t(in[3 * g + 1]) << 8 |
                     in[3 * g + 2];
        for (int t = 0; t < 4; ++t)
          o[4 * g + t] = (w >> (18 - 6 * t)) & 0x3f;
      }
      break;
    case Fp6Layout::Interleaved4p2:
      for (int64_t g = 0; g < cols / 4; ++g) {
        uint8_t b0 = in[3 * g], b1 = in[3 * g + 1], b2 = in[3 * g + 2];
        o[4 * g] = uint8_t((b0 >> 4) << 2 | b2 >> 6);
        o[4 * g + 1] = uint8_t((b0 & 15) << 2 | (b2 >> 4 & 3));
        o[4 * g + 2] = uint8_t((b1 & 15) << 2 | (b2 & 3));
        o[4 * g + 3] = uint8_t((b1 >> 4) << 2 | (b2 >> 2 & 3));
      }
      break;
    case Fp6Layout::Planes: {
      const uint8_t *hi2 = in;
      const uint8_t *lo4 = in + cols / 4;
      for (int64_t c = 0; c < cols; ++c) {
        uint8_t hi = (hi2[c / 4] >> (2 * (c % 4))) & 0x3;
        uint8_t lo = (lo4[c / 2] >> (4 * (c % 2))) & 0xf;
        o[c] = uint8_t(hi << 4 | lo);
      }
      break;
    }
    }
  }
  return out;
}

std::vector<uint8_t> convertFp6(const uint8_t *packed, int64_t rows,
                                int64_t cols, Fp6Layout from, Fp6Layout to) {
  std::vector<uint8_t> codes = unpackFp6(packed, rows, cols, from);
  return packFp6(codes.data(), rows, cols, to);
}

//===----------------------------------------------------------------------===//
// Blocked layout
//===----------------------------------------------------------------------===//

int64_t blockedRows(int64_t rows) { return (rows + 127) / 128 * 128; }
int64_t blockedCols(int64_t cols) { return (cols + 3) / 4 * 4; }

int64_t blockedOffset(int64_t r, int64_t c, int64_t cols) {
  int64_t tilesPerRow = blockedCols(cols) / 4;
  int64_t tile = (r / 128) * tilesPerRow + c / 4;
  int64_t rr = r % 128;
  return tile * 512 + (rr % 32) * 16 + (rr / 32) * 4 + c % 4;
}

std::vector<uint8_t> swizzleBlocked(const uint8_t *scales, int64_t rows,
                                    int64_t cols, uint8_t pad) {
  checkShape(rows, cols);
  int64_t pr = blockedRows(rows), pc = blockedCols(cols);
  std::vector<uint8_t> out(static_cast<size_t>(pr * pc), pad);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[blockedOffset(r, c, cols)] = scales[r * cols + c];
  return out;
}

std::vector<uint8_t> unswizzleBlocked(const uint8_t *blocked, int64_t rows,
                                      int64_t cols) {
  checkShape(rows, cols);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = blocked[blockedOffset(r, c, cols)];
  return out;
}

std::vector<int64_t>
groupBlockedRowStarts(const std::vector<int32_t> &groupEnds) {
  std::vector<int64_t> starts;
  int64_t prevEnd = 0, out = 0;
  for (int32_t end : groupEnds) {
    if (end < prevEnd)
      throw Error("fpx: group end offsets must be non-decreasing");
    starts.push_back(out);
    out += blockedRows(end - prevEnd);
    prevEnd = end;
  }
  starts.push_back(out); // total blocked rows
  return starts;
}

static void checkGroups(const std::vector<int32_t> &groupEnds, int64_t rows) {
  if (groupEnds.empty() || groupEnds.back() != rows)
    throw Error("fpx: the last group end offset must equal the row count (" +
                std::to_string(rows) + ")");
}

std::vector<uint8_t>
swizzleBlockedGrouped(const uint8_t *scales, int64_t rows, int64_t cols,
                      const std::vector<int32_t> &groupEnds, uint8_t pad) {
  checkShape(rows, cols);
  checkGroups(groupEnds, rows);
  std::vector<int64_t> starts = groupBlockedRowStarts(groupEnds);
  int64_t pc = blockedCols(cols);
  std::vector<uint8_t> out(static_cast<size_t>(starts.back() * pc), pad);
  int64_t begin = 0;
  for (size_t g = 0; g < groupEnds.size(); ++g) {
    int64_t n = groupEnds[g] - begin;
    std::vector<uint8_t> part = swizzleBlocked(scales + begin * cols, n, cols, pad);
    std::copy(part.begin(), part.end(), out.begin() + starts[g] * pc);
    begin = groupEnds[g];
  }
  return out;
}

std::vector<uint8_t>
unswizzleBlockedGrouped(const uint8_t *blocked, int64_t rows, int64_t cols,
                        const std::vector<int32_t> &groupEnds) {
  checkShape(rows, cols);
  checkGroups(groupEnds, rows);
  std::vector<int64_t> starts = groupBlockedRowStarts(groupEnds);
  int64_t pc = blockedCols(cols);
  std::vector<uint8_t> out(static_cast<size_t>(rows * cols));
  int64_t begin = 0;
  for (size_t g = 0; g < groupEnds.size(); ++g) {
    int64_t n = groupEnds[g] - begin;
    std::vector<uint8_t> part =
        unswizzleBlocked(blocked + starts[g] * pc, n, cols);
    std::copy(part.begin(), part.end(), out.begin() + begin * cols);
    begin = groupEnds[g];
  }
  return out;
}

} // namespace fpx::num
