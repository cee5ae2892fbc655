//===- ConvertExhaustiveTest.cpp - fpx.convert on all 2^32 fp32 inputs ----===//
//
// For every (format, rounding) kernel of specs/convert_all.mlir (e4m3fn,
// e5m2, e2m3fn, e3m2fn, e2m1fn x rn, rz, rs; satfinite; and e2m1fn rn through
// one 8-value convert, "rn8"), sweep ALL 2^32 fp32
// bit patterns on the GPU, 2^28 inputs per launch, and check bit for bit:
//
//  (a) fpxc's kernels for every target the device can run (on an H100:
//      sm_90a = native cvt.rn for fp8, emulation for the rest; sm_80 = all
//      emulated) against each other: native and emulated paths identical.
//  (b) fpxc against NVIDIA's own device conversions, compiled through NVRTC
//      from the toolkit's cuda_fp8.h / cuda_fp6.h / cuda_fp4.h:
//        - fp8 rn: __nv_cvt_float2_to_fp8x2(__NV_SATFINITE) (on sm_89+ this is
//          the cvt instruction itself) AND the header's software path
//          (__nv_cvt_double_to_fp8 after the header's NaN canonicalization,
//          exactly what __nv_cvt_float_to_fp8 does without the instruction);
//        - fp6/fp4 rn and rz: __nv_cvt_float2_to_fp6x2 / _fp4x2 with
//          cudaRoundNearest / cudaRoundZero (software path below sm_100).
//        cuda_fp8.h has no round-toward-zero and no stochastic conversion:
//        fp8 rz and every rs kernel are checked by (c) and (d) only.
//  (c) fpxc against a value-table oracle on the GPU, for every kernel: the
//      codes' values come from the numerics core (decode), and the rounding
//      is done by value (binary search + exact double arithmetic), which is
//      independent of the bit tricks of both fpxc and CUDA. For rs it uses
//      the same per-group random bits as the kernel (hash below) and the
//      per-element byte of cvt.rs.
//  (d) fpxc against the numerics core itself (the source of truth) on the
//      CPU, on a sample of 2^22 jittered groups of 4 inputs (2^24 inputs)
//      plus the groups around every code value, midpoint and special:
//      num::encode for rn/rz, num::cvtRsX4(fmt, x3, x2, x1, x0, rbits) for rs.
//
// NaN: every side gives the same canonical result, so NaN inputs are
// compared like the rest (mismatches on NaN inputs are also counted apart in
// the report): e4m3fn/e5m2 give 0x7F (positive) for any NaN (the cvt
// instruction and cuda_fp8.h's software path after its canonicalization);
// fp6/fp4 have no NaN and give +max (0x1F / 0x7), as cuda_fp6.h / cuda_fp4.h
// and PTX do; docs/formats.md states the same for numerics. Inf saturates to
// +-max (satfinite); zero and results that round to zero keep their sign.
//
// Kernel layout (see specs/convert_all.mlir): thread gid converts the inputs
// with bit patterns base + 4*gid + j (j = 0..3) and writes one word at
// out + gid: u32 with code j in byte j (8/6-bit), u16 with code j in nibble j
// (e2m1). rs random bits of a group: w = first_input_bits >> 2,
// h = w * 0x9E3779B9; h ^= h >> 15; h *= 0x85EBCA6B; h ^= h >> 13; rbits = h.
// Element i uses byte (rbits >> kShift[i]) with kShift = {0, 8, 16, 24}
// (8/6-bit) or {0, 16, 8, 24} (e2m1): element i is cvt.rs operand 3 - i.
//
// Everything but the CPU sample stays on the device; expect ~5-20 s on an
// H100 (see the printed timings). sm_100a artifacts (all native, cvt.rs) are
// built and checked for their instructions, but run only on an sm_100 GPU.
//
//===----------------------------------------------------------------------===//

#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"
#include "fpx/Runtime/Nvrtc.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <memory>
#include <sstream>
#include <thread>

namespace {

using namespace fpx;
using gputest::DeviceBuffer;

//===----------------------------------------------------------------------===//
// Code shared by the GPU oracle (NVRTC) and the CPU self-check of the oracle.
// It is written once, as a macro, and both stringified for NVRTC and
// expanded here; FPX_HD is `__device__` there and empty here.
//===----------------------------------------------------------------------===//

#define FPX_STR_(...) #__VA_ARGS__
#define FPX_STR(...) FPX_STR_(__VA_ARGS__)

// NOLINTBEGIN
#define FPX_ORACLE_SHARED_CODE                                                 \
  /* rs random bits of the group whose first input has bit pattern b0 */       \
  FPX_HD unsigned fpxGroupRbits(unsigned b0) {                                 \
    unsigned h = (b0 >> 2) * 0x9E3779B9u;                                      \
    h ^= h >> 15;                                                              \
    h *= 0x85EBCA6Bu;                                                          \
    h ^= h >> 13;                                                              \
    return h;                                                                  \
  }                                                                            \
  /* the random byte element i (0..3) of a group consumes */                   \
  FPX_HD unsigned fpxElementRandomByte(unsigned rbits, int width, int i) {     \
    int sh = width == 4 ? (i == 1 ? 16 : i == 2 ? 8 : 8 * i) : 8 * i;          \
    return (rbits >> sh) & 0xFFu;                                              \
  }                                                                            \
  /* Reference encode by value. tab[c] = value of magnitude code c, for    */  \
  /* c = 0..maxCode (increasing, tab[0] = 0, steps are powers of two).     */  \
  /* mode: 0 rn (ties to even code), 1 rz, 2 rs (rnd8 = random byte).      */  \
  /* satfinite; NaN -> nanOut; zero keeps its sign.                        */  \
  FPX_HD unsigned fpxRefEncode(unsigned xb, const double *tab, int maxCode,    \
                               int signShift, unsigned nanOut, int mode,       \
                               unsigned rnd8) {                                \
    unsigned absb = xb & 0x7FFFFFFFu;                                          \
    unsigned sign = (xb >> 31) << signShift;                                   \
    if (absb > 0x7F800000u)                                                    \
      return nanOut;                                                           \
    if (absb == 0x7F800000u)                                                   \
      return sign | (unsigned)maxCode;                                         \
    double a = (double)fpxAsFloat(absb);                                       \
    if (a >= tab[maxCode])                                                     \
      return sign | (unsigned)maxCode;                                         \
    int lo = 0, hi = maxCode; /* tab[lo] <= a < tab[hi] */                     \
    while (hi - lo > 1) {                                                      \
      int mid = (lo + hi) / 2;                                                 \
      if (tab[mid] <= a)                                                       \
        lo = mid;                                                              \
      else                                                                     \
        hi = mid;                                                              \
    }                                                                          \
    double step = tab[lo + 1] - tab[lo];                                       \
    double d = a - tab[lo]; /* exact: Sterbenz, or tab[lo] == 0 */             \
    int code = lo;                                                             \
    if (mode == 0) {                                                           \
      double twice = d + d;                                                    \
      if (twice > step || (twice == step && (lo & 1)))                         \
        code = lo + 1;                                                         \
    } else if (mode == 2) {                                                    \
      /* top 8 discarded bits = floor(256 * d / step), step = 2^k: exact */    \
      unsigned top = (unsigned)fpxFloor(d / step * 256.0);                     \
      if (top + rnd8 >= 256u)                                                  \
        code = lo + 1;                                                         \
    }                                                                          \
    return sign | (unsigned)code;                                              \
  }
// NOLINTEND

/// The NVRTC source: NVIDIA's conversions, the value-table oracle, the
/// compare and gather kernels. Every kernel writes the same layout as fpxc's.
const std::string &oracleSource() {
  static const std::string src =
      std::string(R"CU(
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>
#define FPX_HD static __device__ __forceinline__
FPX_HD float fpxAsFloat(unsigned u) { return __uint_as_float(u); }
FPX_HD double fpxFloor(double d) { return floor(d); }
)CU") + FPX_STR(FPX_ORACLE_SHARED_CODE) +
      R"CU(

#define GROUP_PROLOGUE                                                         \
  unsigned long long gid =                                                     \
      (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;               \
  if (gid >= nGroups)                                                          \
    return;                                                                    \
  unsigned b0 = (unsigned)(base + 4ull * gid);                                 \
  float x0 = __uint_as_float(b0), x1 = __uint_as_float(b0 + 1u);               \
  float x2 = __uint_as_float(b0 + 2u), x3 = __uint_as_float(b0 + 3u);

// fp8 through cuda_fp8.h (.x in the LOW byte of the x2 result; on sm_89+ this
// is cvt.rn.satfinite.<fmt>x2 itself).
#define NV_FP8(NAME, INTERP)                                                   \
  extern "C" __global__ void NAME(unsigned *out, unsigned long long base,       \
                                  unsigned long long nGroups) {                \
    GROUP_PROLOGUE                                                             \
    unsigned lo = __nv_cvt_float2_to_fp8x2(make_float2(x0, x1),                \
                                           __NV_SATFINITE, INTERP);            \
    unsigned hi = __nv_cvt_float2_to_fp8x2(make_float2(x2, x3),                \
                                           __NV_SATFINITE, INTERP);            \
    out[gid] = (lo & 0xFFFFu) | ((hi & 0xFFFFu) << 16);                        \
  }
NV_FP8(nv_e4m3_rn, __NV_E4M3)
NV_FP8(nv_e5m2_rn, __NV_E5M2)

// cuda_fp8.h's software path, as __nv_cvt_float_to_fp8 takes it where the
// instruction is missing: NaN -> 0x7FFFFFFF, then the exact double routine.
static __device__ unsigned nvSoftFp8(float x, __nv_fp8_interpretation_t interp) {
  unsigned xb = __float_as_uint(x);
  if ((xb & 0x7FFFFFFFu) > 0x7F800000u)
    xb = 0x7FFFFFFFu;
  return (unsigned)__nv_cvt_double_to_fp8((double)__uint_as_float(xb),
                                          __NV_SATFINITE, interp) & 0xFFu;
}
#define NV_SOFT_FP8(NAME, INTERP)                                              \
  extern "C" __global__ void NAME(unsigned *out, unsigned long long base,       \
                                  unsigned long long nGroups) {                \
    GROUP_PROLOGUE                                                             \
    out[gid] = nvSoftFp8(x0, INTERP) | (nvSoftFp8(x1, INTERP) << 8) |          \
               (nvSoftFp8(x2, INTERP) << 16) | (nvSoftFp8(x3, INTERP) << 24);  \
  }
NV_SOFT_FP8(nvsoft_e4m3_rn, __NV_E4M3)
NV_SOFT_FP8(nvsoft_e5m2_rn, __NV_E5M2)

// fp6 through cuda_fp6.h (.x in the LOW byte).
#define NV_FP6(NAME, INTERP, MODE)                                             \
  extern "C" __global__ void NAME(unsigned *out, unsigned long long base,       \
                                  unsigned long long nGroups) {                \
    GROUP_PROLOGUE                                                             \
    unsigned lo = __nv_cvt_float2_to_fp6x2(make_float2(x0, x1), INTERP, MODE); \
    unsigned hi = __nv_cvt_float2_to_fp6x2(make_float2(x2, x3), INTERP, MODE); \
    out[gid] = (lo & 0xFFFFu) | ((hi & 0xFFFFu) << 16);                        \
  }
NV_FP6(nv_e2m3_rn, __NV_E2M3, cudaRoundNearest)
NV_FP6(nv_e2m3_rz, __NV_E2M3, cudaRoundZero)
NV_FP6(nv_e3m2_rn, __NV_E3M2, cudaRoundNearest)
NV_FP6(nv_e3m2_rz, __NV_E3M2, cudaRoundZero)

// fp4 through cuda_fp4.h (.x in the LOW nibble).
#define NV_FP4(NAME, MODE)                                                     \
  extern "C" __global__ void NAME(unsigned short *out,                          \
                                  unsigned long long base,                     \
                                  unsigned long long nGroups) {                \
    GROUP_PROLOGUE                                                             \
    unsigned lo = __nv_cvt_float2_to_fp4x2(make_float2(x0, x1), __NV_E2M1, MODE); \
    unsigned hi = __nv_cvt_float2_to_fp4x2(make_float2(x2, x3), __NV_E2M1, MODE); \
    out[gid] = (unsigned short)((lo & 0xFFu) | ((hi & 0xFFu) << 8));           \
  }
NV_FP4(nv_e2m1_rn, cudaRoundNearest)
NV_FP4(nv_e2m1_rz, cudaRoundZero)

// The value-table oracle (any format of at most 8 bits, rn/rz/rs).
extern "C" __global__ void table_ref(void *out, unsigned long long base,
                                     unsigned long long nGroups,
                                     const double *table, int maxCode,
                                     int signShift, unsigned nanOut, int mode,
                                     int width) {
  __shared__ double tab[256];
  for (int i = threadIdx.x; i <= maxCode; i += blockDim.x)
    tab[i] = table[i];
  __syncthreads();
  unsigned long long gid =
      (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= nGroups)
    return;
  unsigned b0 = (unsigned)(base + 4ull * gid);
  unsigned rbits = fpxGroupRbits(b0);
  unsigned word = 0;
  for (int j = 0; j < 4; ++j) {
    unsigned c = fpxRefEncode(b0 + j, tab, maxCode, signShift, nanOut, mode,
                              fpxElementRandomByte(rbits, width, j));
    word |= (c & (width == 4 ? 0xFu : 0xFFu)) << (j * width);
  }
  if (width == 4)
    ((unsigned short *)out)[gid] = (unsigned short)word;
  else
    ((unsigned *)out)[gid] = word;
}

// Counts the elements whose codes differ (counters[0]; counters[1]: those
// with a NaN input; counters[2]: slots claimed) and records the first
// maxSamples as (input bits, code a, code b, element).
extern "C" __global__ void compare_codes(const void *a, const void *b,
                                         unsigned long long nGroups, int width,
                                         unsigned long long base,
                                         unsigned long long *counters,
                                         unsigned *samples, int maxSamples) {
  unsigned long long gid =
      (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= nGroups)
    return;
  unsigned wa, wb;
  if (width == 4) {
    wa = ((const unsigned short *)a)[gid];
    wb = ((const unsigned short *)b)[gid];
  } else {
    wa = ((const unsigned *)a)[gid];
    wb = ((const unsigned *)b)[gid];
  }
  if (wa == wb)
    return;
  unsigned mask = width == 4 ? 0xFu : 0xFFu;
  unsigned b0 = (unsigned)(base + 4ull * gid);
  for (int j = 0; j < 4; ++j) {
    unsigned ca = (wa >> (j * width)) & mask, cb = (wb >> (j * width)) & mask;
    if (ca == cb)
      continue;
    unsigned xb = b0 + j;
    atomicAdd(&counters[0], 1ull);
    if ((xb & 0x7FFFFFFFu) > 0x7F800000u)
      atomicAdd(&counters[1], 1ull);
    unsigned long long slot = atomicAdd(&counters[2], 1ull);
    if (slot < (unsigned long long)maxSamples) {
      samples[4 * slot + 0] = xb;
      samples[4 * slot + 1] = ca;
      samples[4 * slot + 2] = cb;
      samples[4 * slot + 3] = j;
    }
  }
}

// dst[i] = word of group groups[i] - groupBase (the CPU sample).
extern "C" __global__ void gather_words(const void *src, int width,
                                        const unsigned *groups,
                                        unsigned long long n,
                                        unsigned long long groupBase,
                                        unsigned *dst) {
  unsigned long long i =
      (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned long long g = groups[i] - groupBase;
  dst[i] = width == 4 ? ((const unsigned short *)src)[g]
                      : ((const unsigned *)src)[g];
}
)CU";
  return src;
}

// The CPU instance of the shared code (for the oracle self-check).
float fpxAsFloat(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
double fpxFloor(double d) { return std::floor(d); }
#define FPX_HD static inline
FPX_ORACLE_SHARED_CODE
#undef FPX_HD

//===----------------------------------------------------------------------===//
// The cases
//===----------------------------------------------------------------------===//

struct Case {
  const char *Format;   ///< numerics / fpx format name
  const char *Round;    ///< rn, rz, rs
  num::Rounding Rounding;
  const char *Nv;       ///< NVIDIA conversion kernel, or null
  const char *NvSoft;   ///< cuda_fp8.h software-path kernel, or null
};

const Case kCases[] = {
    {"e4m3fn", "rn", num::Rounding::RN, "nv_e4m3_rn", "nvsoft_e4m3_rn"},
    {"e5m2", "rn", num::Rounding::RN, "nv_e5m2_rn", "nvsoft_e5m2_rn"},
    {"e2m3fn", "rn", num::Rounding::RN, "nv_e2m3_rn", nullptr},
    {"e3m2fn", "rn", num::Rounding::RN, "nv_e3m2_rn", nullptr},
    {"e2m1fn", "rn", num::Rounding::RN, "nv_e2m1_rn", nullptr},
    {"e2m1fn", "rn8", num::Rounding::RN, "nv_e2m1_rn", nullptr},
    {"e4m3fn", "rz", num::Rounding::RZ, nullptr, nullptr},
    {"e5m2", "rz", num::Rounding::RZ, nullptr, nullptr},
    {"e2m3fn", "rz", num::Rounding::RZ, "nv_e2m3_rz", nullptr},
    {"e3m2fn", "rz", num::Rounding::RZ, "nv_e3m2_rz", nullptr},
    {"e2m1fn", "rz", num::Rounding::RZ, "nv_e2m1_rz", nullptr},
    {"e4m3fn", "rs", num::Rounding::RS, nullptr, nullptr},
    {"e5m2", "rs", num::Rounding::RS, nullptr, nullptr},
    {"e2m3fn", "rs", num::Rounding::RS, nullptr, nullptr},
    {"e3m2fn", "rs", num::Rounding::RS, nullptr, nullptr},
    {"e2m1fn", "rs", num::Rounding::RS, nullptr, nullptr},
};

const char *const kOracleKernels[] = {
    "nv_e4m3_rn", "nv_e5m2_rn", "nvsoft_e4m3_rn", "nvsoft_e5m2_rn",
    "nv_e2m3_rn", "nv_e2m3_rz", "nv_e3m2_rn",     "nv_e3m2_rz",
    "nv_e2m1_rn", "nv_e2m1_rz", "table_ref",      "compare_codes",
    "gather_words"};

const char *const kTargets[] = {"sm_90a", "sm_80", "sm_100a"};
constexpr const char *kArtifact = "convert_all";

std::string kernelName(const Case &c) {
  return std::string("cvt_") + c.Format + "_" + c.Round;
}
std::string caseName(const Case &c) {
  return std::string(c.Format) + " " + c.Round;
}
int codeWidth(const num::Format &f) { return f.bits() <= 4 ? 4 : 8; }

constexpr uint64_t kTotalInputs = uint64_t(1) << 32;
constexpr uint64_t kChunkInputs = uint64_t(1) << 28; // per launch
constexpr uint64_t kChunkGroups = kChunkInputs / 4;
constexpr unsigned kBlock = 256;
constexpr int kMaxSamples = 8;

/// The magnitude values of fmt's finite codes (from the numerics core),
/// checked for the oracle's assumptions.
std::vector<double> valueTable(const num::Format &f, std::string &err) {
  std::vector<double> t;
  for (uint32_t c = 0; c <= f.maxFiniteCode(); ++c)
    t.push_back(static_cast<double>(num::decode(f, c)));
  if (t.empty() || t[0] != 0.0)
    err = "code 0 is not +0";
  for (size_t i = 1; i < t.size() && err.empty(); ++i) {
    double step = t[i] - t[i - 1];
    int e;
    if (!(step > 0) || std::frexp(step, &e) != 0.5)
      err = "value step " + std::to_string(i) + " is not a power of two";
  }
  return t;
}

uint32_t nanOutCode(const num::Format &f) {
  return f.hasNaN() ? f.nanCode() : f.maxFiniteCode();
}

float bitsToFloat(uint32_t u) { return fpxAsFloat(u); }
uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// numerics' word for the group whose first input is b0 (source of truth).
uint32_t numericsWord(const num::Format &f, num::Rounding r, uint32_t b0) {
  float x[4];
  for (int j = 0; j < 4; ++j)
    x[j] = bitsToFloat(b0 + j);
  if (r == num::Rounding::RS)
    return num::cvtRsX4(f, x[3], x[2], x[1], x[0], fpxGroupRbits(b0));
  int w = codeWidth(f);
  uint32_t word = 0;
  for (int j = 0; j < 4; ++j)
    word |= uint32_t(num::encode(f, x[j], r, num::Overflow::SatFinite))
            << (j * w);
  return word;
}

/// The oracle's word for the same group (CPU instance of the GPU oracle).
uint32_t oracleWord(const num::Format &f, num::Rounding r,
                    const std::vector<double> &tab, uint32_t b0) {
  int mode = r == num::Rounding::RN ? 0 : r == num::Rounding::RZ ? 1 : 2;
  int w = codeWidth(f);
  uint32_t rbits = fpxGroupRbits(b0);
  uint32_t word = 0;
  for (int j = 0; j < 4; ++j) {
    uint32_t c = fpxRefEncode(b0 + j, tab.data(), int(f.maxFiniteCode()),
                              f.bits() - 1, nanOutCode(f), mode,
                              fpxElementRandomByte(rbits, w, j));
    word |= (c & (w == 4 ? 0xFu : 0xFFu)) << (j * w);
  }
  return word;
}

/// Sorted group indices (group g = inputs 4g .. 4g+3, g < 2^30) for the CPU
/// sample: `strided` jittered groups spread over the whole range, plus the
/// groups around every code value, every midpoint between neighbouring
/// codes, the format's max, and the fp32 specials, with both signs.
std::vector<uint32_t> sampleGroups(const num::Format &f,
                                   const std::vector<double> &tab,
                                   uint32_t strided) {
  std::vector<uint32_t> g;
  const uint32_t numGroups = uint32_t(kTotalInputs / 4);
  uint32_t stride = numGroups / strided;
  for (uint32_t k = 0; k < strided; ++k) {
    uint32_t h = k * 0x9E3779B9u;
    h ^= h >> 16;
    g.push_back(k * stride + h % stride);
  }
  std::vector<uint32_t> points = {0u,          1u,          0x007FFFFFu,
                                  0x00800000u, 0x3F800000u, 0x7F7FFFFFu,
                                  0x7F800000u, 0x7F800001u, 0x7FC00000u,
                                  0x7FFFFFFFu};
  for (size_t c = 0; c < tab.size(); ++c) {
    points.push_back(floatToBits(float(tab[c])));
    if (c + 1 < tab.size())
      points.push_back(floatToBits(float((tab[c] + tab[c + 1]) / 2)));
    // a quarter step above: exercises rs with many random bytes
    if (c + 1 < tab.size())
      points.push_back(floatToBits(float(tab[c] + (tab[c + 1] - tab[c]) / 4)));
  }
  (void)f;
  for (uint32_t p : points)
    for (uint32_t sign : {0u, 0x80000000u}) {
      int64_t center = int64_t((p | sign) >> 2);
      for (int64_t d = -2; d <= 2; ++d)
        if (center + d >= 0 && center + d < int64_t(numGroups))
          g.push_back(uint32_t(center + d));
    }
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

template <typename Fn> void parallelFor(size_t n, Fn fn) {
  unsigned threads = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (size_t i = t; i < n; i += threads)
        fn(i);
    });
  for (auto &th : pool)
    th.join();
}

std::string hex(uint32_t v, int digits = 8) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*X", digits, v);
  return buf;
}

//===----------------------------------------------------------------------===//
// Tests that need no GPU
//===----------------------------------------------------------------------===//

/// NVIDIA's conversions and the oracle compile through NVRTC (no GPU needed):
/// for sm_90 (software fp6/fp4 paths) and sm_100a (native instructions).
TEST(ConvertExhaustive, OracleCompilesWithNvrtc) {
  for (const char *arch : {"sm_90", "sm_100a"}) {
    std::string ptx;
    try {
      ptx = rt::compileCuda(oracleSource(), arch, {"--ftz=false"},
                            "convert_oracle.cu");
    } catch (const rt::Error &e) {
      if (e.code() == rt::ErrorCode::NotFound)
        GTEST_SKIP() << "NVRTC not available: " << e.what();
      FAIL() << "NVRTC failed for " << arch << ": " << e.what();
    }
    for (const char *k : kOracleKernels)
      EXPECT_NE(ptx.find(std::string(".entry ") + k + "("), std::string::npos)
          << k << " missing from the " << arch << " PTX";
  }
}

/// The GPU oracle's algorithm (by value) agrees with the numerics core on a
/// CPU sample: what the exhaustive test trusts it for.
TEST(ConvertExhaustive, TableOracleMatchesNumericsOnCpu) {
  for (const Case &c : kCases) {
    SCOPED_TRACE(caseName(c));
    num::Format f = num::getFormat(c.Format);
    std::string err;
    std::vector<double> tab = valueTable(f, err);
    ASSERT_TRUE(err.empty()) << err;
    std::vector<uint32_t> groups = sampleGroups(f, tab, 1u << 16);
    uint64_t bad = 0;
    for (uint32_t g : groups) {
      uint32_t b0 = g << 2;
      uint32_t want = numericsWord(f, c.Rounding, b0);
      uint32_t got = oracleWord(f, c.Rounding, tab, b0);
      if (want != got && ++bad <= 4)
        ADD_FAILURE() << "group of " << hex(b0) << ": numerics " << hex(want)
                      << ", oracle " << hex(got);
    }
    EXPECT_EQ(bad, 0u) << "of " << groups.size() << " groups";
  }
}

/// The artifacts hold every kernel with the expected parameters, and each
/// target took the native/emulated path it should (read from the PTX).
TEST(ConvertExhaustive, ArtifactsHaveEveryKernelAndPath) {
  for (const char *target : kTargets) {
    SCOPED_TRACE(target);
    FPX_LOAD_ARTIFACT(mod, target, kArtifact);
    const rt::ArtifactInfo &info = mod->info();
    for (const Case &c : kCases) {
      std::string name = kernelName(c);
      auto it = std::find_if(info.Kernels.begin(), info.Kernels.end(),
                             [&](const rt::KernelInfo &k) { return k.Name == name; });
      ASSERT_NE(it, info.Kernels.end()) << name << " missing";
      ASSERT_EQ(it->Params.size(), 2u) << name;
      EXPECT_EQ(it->Params[0].Name, "out");
      EXPECT_EQ(it->Params[1].Name, "base");
    }
    const std::string &ptx = mod->ptx();
    auto has = [&](const char *s) { return ptx.find(s) != std::string::npos; };
    std::string t = target;
    if (t == "sm_80") {
      EXPECT_FALSE(has("cvt.rn.satfinite.e")) << "sm_80 must emulate everything";
      EXPECT_FALSE(has("cvt.rs."));
    } else if (t == "sm_90a") {
      EXPECT_TRUE(has("cvt.rn.satfinite.e4m3x2"));
      EXPECT_TRUE(has("cvt.rn.satfinite.e5m2x2"));
      EXPECT_FALSE(has("e2m1x2") || has("e2m3x2") || has("e3m2x2"));
      EXPECT_FALSE(has("cvt.rs."));
    } else {
      for (const char *s :
           {"cvt.rn.satfinite.e4m3x2", "cvt.rn.satfinite.e5m2x2",
            "cvt.rn.satfinite.e2m3x2", "cvt.rn.satfinite.e3m2x2",
            "cvt.rn.satfinite.e2m1x2", "cvt.rs.satfinite.e4m3x4",
            "cvt.rs.satfinite.e5m2x4", "cvt.rs.satfinite.e2m3x4",
            "cvt.rs.satfinite.e3m2x4", "cvt.rs.satfinite.e2m1x4"})
        EXPECT_TRUE(has(s)) << s << " missing from the sm_100a PTX";
    }
  }
}

//===----------------------------------------------------------------------===//
// The exhaustive sweep
//===----------------------------------------------------------------------===//

#define CHECK_CU(call, what)                                                   \
  ::fpx::rt::checkCu((call), #call, (what))

/// A CUmodule from NVRTC PTX, with the JIT log in the error.
struct RawModule {
  CUmodule Mod = nullptr;
  RawModule(const std::string &ptx, const std::string &what) {
    const rt::CudaApi &api = rt::CudaApi::driver();
    static char log[16384];
    log[0] = 0;
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof log))};
    CUresult r = api.cuModuleLoadDataEx(&Mod, ptx.c_str(), 2, opts, vals);
    CHECK_CU(r, what + std::string(" (JIT log: ") + log + ")");
  }
  ~RawModule() {
    if (Mod)
      rt::CudaApi::driver().cuModuleUnload(Mod);
  }
  CUfunction get(const char *name) const {
    CUfunction f;
    CHECK_CU(rt::CudaApi::driver().cuModuleGetFunction(&f, Mod, name), name);
    return f;
  }
};

void launch(CUfunction f, uint64_t threads, std::vector<void *> args,
            const std::string &what) {
  const rt::CudaApi &api = rt::CudaApi::driver();
  uint64_t blocks = (threads + kBlock - 1) / kBlock;
  CHECK_CU(api.cuLaunchKernel(f, unsigned(blocks), 1, 1, kBlock, 1, 1, 0,
                              nullptr, args.data(), nullptr),
           what);
}

void sync(const std::string &what) {
  CHECK_CU(rt::CudaApi::driver().cuCtxSynchronize(), what);
}

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

struct Variant {
  std::string Label; ///< "fpxc sm_90a"
  CUfunction Fn = nullptr;
  bool IsFpxc = false;
  bool Rs = false;   ///< table oracle (extra args)
  std::unique_ptr<DeviceBuffer> Out;
  uint8_t Poison = 0;
  double Seconds = 0;
};

TEST(ConvertExhaustive, AllFp32InputsEveryFormat) {
  FPX_REQUIRE_GPU();
  const rt::CudaApi &api = rt::CudaApi::driver();
  gputest::primaryContext();
  std::string chip = rt::deviceChip();
  int ccNumber = std::atoi(chip.c_str() + 3);
  char devName[256] = {0};
  {
    CUdevice dev;
    CHECK_CU(api.cuCtxGetDevice(&dev), "device");
    CHECK_CU(api.cuDeviceGetName(devName, sizeof devName - 1, dev), "device");
  }
  std::printf("[ convert ] device %s (%s), driver %d, artifacts %s\n", devName,
              chip.c_str(), rt::CudaApi::driverVersion(),
              gputest::artifactDir("<target>").string().c_str());

  // fpxc artifacts: every target must be built; those the device can run
  // are swept (sm_80 PTX runs on any sm_80+; sm_XXa only on sm_XX).
  std::vector<std::pair<std::string, std::shared_ptr<rt::Module>>> mods;
  for (const char *target : kTargets) {
    FPX_LOAD_ARTIFACT(m, target, kArtifact);
    std::string t = target;
    bool runnable = t.back() == 'a' ? t.substr(0, t.size() - 1) == chip
                                    : ccNumber >= std::atoi(t.c_str() + 3);
    if (!runnable) {
      std::printf("[ convert ] %s artifact built; not runnable on %s, not swept\n",
                  target, chip.c_str());
      continue;
    }
    mods.emplace_back(t, m);
  }
  ASSERT_FALSE(mods.empty()) << "no artifact of " << kArtifact
                             << " runs on " << chip;
  if (mods.size() < 2)
    std::printf("[ convert ] NOTE: only %s runs here: no native-vs-emulated "
                "comparison between fpxc targets\n",
                mods[0].first.c_str());

  // NVIDIA's conversions + the oracle through NVRTC, for this device.
  auto t0 = Clock::now();
  std::string oraclePtx = rt::compileCuda(oracleSource(), chip, {"--ftz=false"},
                                          "convert_oracle.cu");
  RawModule oracle(oraclePtx, "loading the NVRTC oracle module");
  std::printf("[ convert ] NVRTC %s oracle for %s compiled and loaded in %.2f s\n",
              rt::nvrtcVersionString().c_str(), chip.c_str(),
              seconds(t0, Clock::now()));
  CUfunction tableRef = oracle.get("table_ref");
  CUfunction compare = oracle.get("compare_codes");
  CUfunction gather = oracle.get("gather_words");

  const size_t maxWordBytes = kChunkGroups * 4;
  // One output buffer per producer: fpxc targets, nv, nvsoft, table.
  std::vector<std::unique_ptr<DeviceBuffer>> pool;
  for (size_t i = 0; i < mods.size() + 3; ++i)
    pool.push_back(std::make_unique<DeviceBuffer>(maxWordBytes));
  const int maxPairs = 16;
  DeviceBuffer counters(maxPairs * 3 * sizeof(uint64_t));
  DeviceBuffer samples(maxPairs * kMaxSamples * 4 * sizeof(uint32_t));
  DeviceBuffer tableBuf(256 * sizeof(double));

  uint64_t grandMismatches = 0;
  double gpuSeconds = 0;
  auto testStart = Clock::now();

  for (const Case &c : kCases) {
    SCOPED_TRACE(caseName(c));
    auto caseStart = Clock::now();
    num::Format fmt = num::getFormat(c.Format);
    int width = codeWidth(fmt);
    size_t groupBytes = width == 4 ? 2 : 4;
    std::string err;
    std::vector<double> tab = valueTable(fmt, err);
    ASSERT_TRUE(err.empty()) << err;
    CHECK_CU(api.cuMemcpyHtoD(tableBuf.Ptr, tab.data(), tab.size() * sizeof(double)),
             "table upload");

    // The CPU sample, computed by the numerics core while the GPU sweeps.
    std::vector<uint32_t> groups = sampleGroups(
        fmt, tab, 1u << 22);
    std::vector<uint32_t> expected(groups.size());
    auto cpu = std::async(std::launch::async, [&] {
      auto s = Clock::now();
      parallelFor(groups.size(), [&](size_t i) {
        expected[i] = numericsWord(fmt, c.Rounding, groups[i] << 2);
      });
      return seconds(s, Clock::now());
    });
    DeviceBuffer groupsBuf(groups.size() * 4);
    groupsBuf.upload(groups);

    // Producers: fpxc per target, then the references.
    std::vector<Variant> vars;
    size_t next = 0;
    for (auto &[target, mod] : mods) {
      Variant v;
      v.Label = "fpxc " + target;
      const auto &ks = mod->info().Kernels;
      std::string kn = kernelName(c);
      auto it = std::find_if(ks.begin(), ks.end(),
                             [&](const rt::KernelInfo &k) { return k.Name == kn; });
      ASSERT_NE(it, ks.end()) << kn << " missing from " << target;
      v.Fn = mod->kernel(unsigned(it - ks.begin()));
      v.IsFpxc = true;
      v.Poison = uint8_t(0xA5 + next);
      v.Out = std::move(pool[next++]);
      vars.push_back(std::move(v));
    }
    size_t numFpxc = vars.size();
    auto addRef = [&](const std::string &label, CUfunction fn, bool table) {
      Variant v;
      v.Label = label;
      v.Fn = fn;
      v.Rs = table;
      v.Poison = uint8_t(0x3C + next);
      v.Out = std::move(pool[next++]);
      vars.push_back(std::move(v));
    };
    if (c.Nv)
      addRef(std::string("NVIDIA ") + c.Nv +
                 (std::string(c.Format).rfind("e2m1", 0) == 0 ? " (cuda_fp4.h)"
                  : fmt.bits() == 6                            ? " (cuda_fp6.h)"
                                      : " (cuda_fp8.h)"),
             oracle.get(c.Nv), false);
    if (c.NvSoft)
      addRef(std::string("NVIDIA ") + c.NvSoft + " (cuda_fp8.h software path)",
             oracle.get(c.NvSoft), false);
    addRef("value-table oracle", tableRef, true);

    // Comparisons: every fpxc target against the first; every fpxc target
    // against every reference.
    std::vector<std::pair<size_t, size_t>> pairs;
    for (size_t i = 1; i < numFpxc; ++i)
      pairs.push_back({0, i});
    for (size_t i = 0; i < numFpxc; ++i)
      for (size_t r = numFpxc; r < vars.size(); ++r)
        pairs.push_back({i, r});
    ASSERT_LE(int(pairs.size()), maxPairs);
    CHECK_CU(api.cuMemsetD8Async(counters.Ptr, 0, counters.Bytes, nullptr),
             "zero counters");

    std::vector<std::unique_ptr<DeviceBuffer>> gathered;
    for (size_t i = 0; i < numFpxc; ++i)
      gathered.push_back(std::make_unique<DeviceBuffer>(groups.size() * 4));

    const int maxCode = int(fmt.maxFiniteCode());
    const int signShift = fmt.bits() - 1;
    const unsigned nanOut = nanOutCode(fmt);
    const int mode = c.Rounding == num::Rounding::RN   ? 0
                     : c.Rounding == num::Rounding::RZ ? 1
                                                       : 2;
    for (uint64_t chunk = 0; chunk < kTotalInputs / kChunkInputs; ++chunk) {
      uint64_t base = chunk * kChunkInputs;
      uint64_t nGroups = kChunkGroups;
      std::string where = caseName(c) + ", inputs from " + hex(uint32_t(base));
      for (Variant &v : vars) {
        CHECK_CU(api.cuMemsetD8Async(v.Out->Ptr, v.Poison, nGroups * groupBytes,
                                     nullptr),
                 "poison " + v.Label);
        CUdeviceptr out = v.Out->Ptr;
        std::string what = v.Label + " " + kernelName(c) + ", " + where;
        if (v.IsFpxc) {
          sync("before " + what);
          auto s = Clock::now();
          launch(v.Fn, nGroups, {&out, &base}, what);
          sync(what);
          v.Seconds += seconds(s, Clock::now());
        } else if (v.Rs) {
          CUdeviceptr tb = tableBuf.Ptr;
          int mc = maxCode, ss = signShift, md = mode, w = width;
          unsigned no = nanOut;
          launch(v.Fn, nGroups,
                 {&out, &base, &nGroups, &tb, &mc, &ss, &no, &md, &w}, what);
        } else {
          launch(v.Fn, nGroups, {&out, &base, &nGroups}, what);
        }
      }
      for (size_t p = 0; p < pairs.size(); ++p) {
        CUdeviceptr a = vars[pairs[p].first].Out->Ptr;
        CUdeviceptr b = vars[pairs[p].second].Out->Ptr;
        CUdeviceptr cnt = counters.Ptr + p * 3 * sizeof(uint64_t);
        CUdeviceptr smp = samples.Ptr + p * kMaxSamples * 4 * sizeof(uint32_t);
        int w = width, ms = kMaxSamples;
        launch(compare, nGroups, {&a, &b, &nGroups, &w, &base, &cnt, &smp, &ms},
               "compare " + vars[pairs[p].first].Label + " / " +
                   vars[pairs[p].second].Label + ", " + where);
      }
      // The CPU sample groups of this chunk.
      uint64_t g0 = chunk * kChunkGroups;
      auto lo = std::lower_bound(groups.begin(), groups.end(), uint32_t(g0));
      auto hi = std::lower_bound(groups.begin(), groups.end(),
                                 uint32_t(g0 + kChunkGroups));
      uint64_t n = uint64_t(hi - lo), off = uint64_t(lo - groups.begin());
      if (n)
        for (size_t i = 0; i < numFpxc; ++i) {
          CUdeviceptr src = vars[i].Out->Ptr;
          CUdeviceptr gp = groupsBuf.Ptr + off * 4;
          CUdeviceptr dst = gathered[i]->Ptr + off * 4;
          int w = width;
          launch(gather, n, {&src, &w, &gp, &n, &g0, &dst},
                 "gather the CPU sample, " + where);
        }
      sync(where);
    }

    // Report the GPU comparisons.
    std::vector<uint64_t> cnt(pairs.size() * 3);
    std::vector<uint32_t> smp(pairs.size() * kMaxSamples * 4);
    CHECK_CU(api.cuMemcpyDtoH(cnt.data(), counters.Ptr, cnt.size() * 8), "counters");
    CHECK_CU(api.cuMemcpyDtoH(smp.data(), samples.Ptr, smp.size() * 4), "samples");
    for (size_t p = 0; p < pairs.size(); ++p) {
      const Variant &a = vars[pairs[p].first], &b = vars[pairs[p].second];
      uint64_t total = cnt[3 * p], nan = cnt[3 * p + 1];
      grandMismatches += total;
      std::printf("[ convert ] %-11s %-7s vs %-48s 2^32 inputs: %llu mismatches"
                  " (%llu with NaN input)\n",
                  caseName(c).c_str(), a.Label.c_str(), b.Label.c_str(),
                  (unsigned long long)total, (unsigned long long)nan);
      std::ostringstream os;
      for (uint64_t s = 0; s < std::min<uint64_t>(total, kMaxSamples); ++s) {
        const uint32_t *q = &smp[(p * kMaxSamples + s) * 4];
        os << "\n    input " << hex(q[0]) << " (" << bitsToFloat(q[0])
           << ", element " << q[3] << "): " << a.Label << " " << hex(q[1], 2)
           << ", " << b.Label << " " << hex(q[2], 2)
           << ", numerics " << hex(numericsWord(fmt, c.Rounding, q[0] & ~3u) >>
                                       (q[3] * width) & (width == 4 ? 0xF : 0xFF),
                                   2);
      }
      EXPECT_EQ(total, 0u) << caseName(c) << ": " << a.Label << " vs "
                           << b.Label << " differ on " << total
                           << " of 2^32 inputs (" << nan
                           << " NaN); first ones:" << os.str();
    }

    // Report the CPU sample (numerics core).
    double cpuSeconds = cpu.get();
    for (size_t i = 0; i < numFpxc; ++i) {
      std::vector<uint32_t> got = gathered[i]->download<uint32_t>(groups.size());
      uint64_t bad = 0;
      std::ostringstream os;
      for (size_t k = 0; k < groups.size(); ++k) {
        uint32_t want = expected[k], have = got[k];
        if (width == 4)
          have &= 0xFFFFu;
        if (want == have)
          continue;
        if (++bad <= kMaxSamples)
          os << "\n    group of " << hex(groups[k] << 2) << ": numerics "
             << hex(want) << ", " << vars[i].Label << " " << hex(have);
      }
      grandMismatches += bad;
      std::printf("[ convert ] %-11s %-7s vs numerics core (CPU, %s) on %zu "
                  "groups of 4: %llu mismatching groups\n",
                  caseName(c).c_str(), vars[i].Label.c_str(),
                  c.Rounding == num::Rounding::RS ? "cvtRsX4" : "encode",
                  groups.size(), (unsigned long long)bad);
      EXPECT_EQ(bad, 0u) << caseName(c) << ": " << vars[i].Label
                         << " vs the numerics core on the CPU sample:"
                         << os.str();
    }

    for (size_t i = 0; i < numFpxc; ++i) {
      double s = vars[i].Seconds;
      gpuSeconds += s;
      std::printf("[ convert ] %-11s %-7s kernel %s: 2^32 conversions in %.1f ms"
                  " = %.1f Gconv/s, %.0f GB/s written\n",
                  caseName(c).c_str(), vars[i].Label.c_str(),
                  kernelName(c).c_str(), s * 1e3, double(kTotalInputs) / s / 1e9,
                  double(kTotalInputs / 4 * groupBytes) / s / 1e9);
    }
    std::printf("[ convert ] %-11s case done in %.2f s (CPU sample %.2f s)\n",
                caseName(c).c_str(), seconds(caseStart, Clock::now()), cpuSeconds);
    std::fflush(stdout);
    // Hand the output buffers back to the pool for the next case.
    for (size_t i = 0; i < vars.size(); ++i)
      pool[i] = std::move(vars[i].Out);
  }
  std::printf("[ convert ] all cases: %llu mismatches in total; fpxc kernels %.2f s,"
              " whole test %.1f s\n",
              (unsigned long long)grandMismatches, gpuSeconds,
              seconds(testStart, Clock::now()));
  EXPECT_EQ(grandMismatches, 0u);
}

} // namespace
