//===- Quantize.cpp - Scale rules and the reference block quantizer -------===//
#include "fpx/Numerics/Quantize.h"

#include "fpx/Numerics/Philox.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace fpx::num {

static uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

/// floor(log2(a)) of a positive finite float, from its bits.
static int floorLog2(uint32_t bits) {
  int exp = static_cast<int>((bits >> 23) & 0xff);
  uint32_t man = bits & 0x7fffff;
  if (exp == 0)
    return -149 + 31 - __builtin_clz(man);
  return exp - 127;
}

static bool isPowerOfTwo(uint32_t bits) {
  uint32_t man = bits & 0x7fffff;
  if ((bits >> 23) & 0xff)
    return man == 0;
  return (man & (man - 1)) == 0;
}

uint8_t e8m0Scale(float amax, const Format &elem, ScaleRule rule,
                  NonFinite nonFinite) {
  amax = std::fabs(amax);
  if (std::isnan(amax))
    return 0xff;
  if (std::isinf(amax))
    return nonFinite == NonFinite::Saturate ? 0xfe : 0xff;
  if (amax == 0.0f)
    return 0x00;
  const int emax = elem.maxNormalExp();
  const float maxElem = static_cast<float>(elem.maxFinite());
  uint32_t bits = bitsOf(amax);
  int e = 0;
  switch (rule) {
  case ScaleRule::Floor:
    e = floorLog2(bits) - emax;
    break;
  case ScaleRule::Ceil:
    e = floorLog2(bits) + (isPowerOfTwo(bits) ? 0 : 1) - emax;
    break;
  case ScaleRule::Even: {
    // Round amax half-up to the element's mantissa width; a carry moves it
    // into the next binade. Only the exponent of the result matters.
    uint32_t rounded = (bits + (1u << (22 - elem.mbits))) & 0x7f800000u;
    int field = static_cast<int>(rounded >> 23);
    if (field == 0)
      return 0x00; // amax rounds below the fp32 normal range: log2 -> -inf
    e = field - 127 - emax;
    break;
  }
  case ScaleRule::RCeil:
  case ScaleRule::Amax:
    return encode(e8m0fnu(), amax / maxElem, Rounding::RP,
                  Overflow::SatFinite);
  case ScaleRule::RCeilRcp:
    return encode(e8m0fnu(), amax * (1.0f / maxElem), Rounding::RP,
                  Overflow::SatFinite);
  }
  e = std::clamp(e, -127, 127);
  return static_cast<uint8_t>(e + 127);
}

float absMax(const float *x, size_t n) {
  float m = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i]))
      return std::numeric_limits<float>::quiet_NaN();
    m = std::max(m, std::fabs(x[i]));
  }
  return m;
}

uint32_t stochasticElementBits(const Format &elem, uint64_t seed,
                               uint64_t index) {
  uint32_t word = philoxBits(seed, index / 4);
  // Element 4k + j is operand (3 - j): f, e, b, a, so that the x4 result
  // word, stored little-endian, holds the elements in memory order.
  return (word >> cvtRsOperandShift(elem, 3 - int(index % 4))) & 0xffu;
}

/// fp32 scale s = amax / max with the defined edge cases.
static float fp32Scale(float amax, float maxElem) {
  if (std::isnan(amax))
    return amax;
  float a = std::min(std::fabs(amax), FLT_MAX);
  if (a == 0.0f)
    return 1.0f;
  float s = a / maxElem;
  return s == 0.0f ? std::ldexp(1.0f, -149) : s;
}

float nvfp4GlobalScale(float amax) {
  if (std::isnan(amax))
    return amax;
  float a = std::min(std::fabs(amax), FLT_MAX);
  if (a == 0.0f)
    return 1.0f;
  float g = a / (448.0f * 6.0f);
  return g == 0.0f ? std::ldexp(1.0f, -149) : g;
}

Quantized quantize(const float *x, int64_t batch, int64_t rows, int64_t cols,
                   const QuantSpec &spec) {
  if (batch < 0 || rows < 0 || cols < 0 || spec.blockRows < 0 ||
      spec.blockCols < 0)
    throw Error("fpx: quantize: negative shape or block");
  if (spec.elem.bits() > 8)
    throw Error("fpx: quantize: element format '" + spec.elem.name +
                "' is wider than 8 bits");
  if (!spec.nvfp4TensorAmax.empty()) {
    if (spec.scaleKind != ScaleKind::NVFP4 || !spec.nvfp4GlobalScale)
      throw Error("fpx: quantize: a given tensor amax is for NVFP4's global scale");
    if (spec.nvfp4TensorAmax.size() != 1 &&
        spec.nvfp4TensorAmax.size() != static_cast<size_t>(batch))
      throw Error("fpx: quantize: " + std::to_string(spec.nvfp4TensorAmax.size()) +
                  " tensor amaxes given for a batch of " + std::to_string(batch));
  }
  const int64_t br = spec.blockRows ? spec.blockRows : std::max<int64_t>(rows, 1);
  const int64_t bc = spec.blockCols ? spec.blockCols : std::max<int64_t>(cols, 1);
  Quantized q;
  q.batch = batch;
  q.rows = rows;
  q.cols = cols;
  q.blockRows = br;
  q.blockCols = bc;
  q.scaleRows = (rows + br - 1) / br;
  q.scaleCols = (cols + bc - 1) / bc;
  const size_t nScales = static_cast<size_t>(batch * q.scaleRows * q.scaleCols);
  q.codes.resize(static_cast<size_t>(batch * rows * cols));
  q.scales.resize(nScales);
  q.globalScales.assign(static_cast<size_t>(batch), 1.0f);
  if (spec.scaleKind == ScaleKind::E8M0 || spec.scaleKind == ScaleKind::NVFP4)
    q.scaleCodes.resize(nScales);
  const float maxElem = static_cast<float>(spec.elem.maxFinite());

  std::vector<float> block;
  for (int64_t b = 0; b < batch; ++b) {
    const float *xb = x + b * rows * cols;
    float g = 1.0f;
    if (spec.scaleKind == ScaleKind::NVFP4 && spec.nvfp4GlobalScale) {
      const std::vector<float> &given = spec.nvfp4TensorAmax;
      g = nvfp4GlobalScale(given.empty()
                               ? absMax(xb, static_cast<size_t>(rows * cols))
                               : given[given.size() == 1 ? 0 : static_cast<size_t>(b)]);
    }
    q.globalScales[b] = g;
    for (int64_t si = 0; si < q.scaleRows; ++si) {
      for (int64_t sj = 0; sj < q.scaleCols; ++sj) {
        const int64_t r0 = si * br, r1 = std::min(rows, r0 + br);
        const int64_t c0 = sj * bc, c1 = std::min(cols, c0 + bc);
        block.clear();
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c)
            block.push_back(xb[r * cols + c]);
        const float amax = absMax(block.data(), block.size());
        const size_t sIdx =
            static_cast<size_t>((b * q.scaleRows + si) * q.scaleCols + sj);

        // Per kind: the scale and how an element is brought to the element
        // range (E8M0 multiplies by the exact power 2^-e, others divide).
        float scale = 1.0f;
        float mulBy = 1.0f;
        bool divide = false;
        switch (spec.scaleKind) {
        case ScaleKind::E8M0: {
          uint8_t code = e8m0Scale(amax, spec.elem, spec.rule, spec.nonFinite);
          q.scaleCodes[sIdx] = code;
          scale = decode(e8m0fnu(), code);
          mulBy = code == 0xff ? std::numeric_limits<float>::quiet_NaN()
                               : std::ldexp(1.0f, 127 - int(code));
          break;
        }
        case ScaleKind::NVFP4: {
          float bs = (amax / 6.0f) / g;
          uint8_t code =
              encode(ue4m3(), bs, Rounding::RN, Overflow::SatFinite);
          q.scaleCodes[sIdx] = code;
          scale = decode(ue4m3(), code) * g;
          divide = true;
          break;
        }
        case ScaleKind::FP32:
          scale = fp32Scale(amax, maxElem);
          divide = true;
          break;
        case ScaleKind::FP32Pow2:
          if (std::isnan(amax)) {
            scale = amax;
          } else {
            float a = std::min(amax, FLT_MAX);
            scale = a == 0.0f
                        ? 1.0f
                        : decode(e8m0fnu(), encode(e8m0fnu(), a / maxElem,
                                                   Rounding::RP,
                                                   Overflow::SatFinite));
          }
          divide = true;
          break;
        }
        q.scales[sIdx] = scale;

        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c) {
            const float v = xb[r * cols + c];
            float y;
            if (!divide)
              y = v * mulBy;
            else if (scale == 0.0f)
              y = v * 0.0f; // keeps the sign of zero; NaN stays NaN
            else
              y = v / scale;
            const uint64_t flat = static_cast<uint64_t>((b * rows + r) * cols + c);
            uint32_t rnd = spec.rounding == Rounding::RS
                               ? stochasticElementBits(spec.elem, spec.seed, flat)
                               : 0u;
            q.codes[flat] =
                encode(spec.elem, y, spec.rounding, spec.elemOverflow, rnd);
          }
        }
      }
    }
  }
  return q;
}

Quantized quantizeBf16(const uint16_t *x, int64_t batch, int64_t rows,
                       int64_t cols, const QuantSpec &spec) {
  if (batch < 0 || rows < 0 || cols < 0)
    throw Error("fpx: quantize: negative shape");
  std::vector<float> wide(static_cast<size_t>(batch * rows * cols));
  for (size_t i = 0; i < wide.size(); ++i)
    wide[i] = bf16ToFloat(x[i]);
  return quantize(wide.data(), batch, rows, cols, spec);
}

std::vector<float> dequantize(const Quantized &q, const Format &elem) {
  std::vector<float> out(q.codes.size());
  for (int64_t b = 0; b < q.batch; ++b)
    for (int64_t r = 0; r < q.rows; ++r)
      for (int64_t c = 0; c < q.cols; ++c) {
        size_t flat = static_cast<size_t>((b * q.rows + r) * q.cols + c);
        size_t sIdx = static_cast<size_t>(
            (b * q.scaleRows + r / q.blockRows) * q.scaleCols + c / q.blockCols);
        out[flat] = decode(elem, q.codes[flat]) * q.scales[sIdx];
      }
  return out;
}

} // namespace fpx::num
