//===- GpuTestSupport.h - shared helpers of the GPU tests -------*- C++ -*-===//
//
// Skipping without a GPU, device buffers, artifact lookup and input
// generators with the values that break conversions (inf, NaN, +-0,
// subnormals, +-max, all-zero blocks).
//
//===----------------------------------------------------------------------===//
#ifndef FPX_TEST_GPU_GPUTESTSUPPORT_H
#define FPX_TEST_GPU_GPUTESTSUPPORT_H

#include "fpx/Numerics/Convert.h"
#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace fpx::gputest {

inline bool gpuAvailable(std::string &why) {
  try {
    rt::CudaApi::driver();
    return true;
  } catch (const rt::Error &e) {
    why = e.what();
    return false;
  }
}

#define FPX_REQUIRE_GPU()                                                      \
  do {                                                                         \
    std::string why_;                                                          \
    if (!::fpx::gputest::gpuAvailable(why_))                                   \
      GTEST_SKIP() << "no GPU: " << why_;                                      \
  } while (0)

#define FPX_CU(call) ::fpx::rt::checkCu((call), #call, "gpu test")

/// Device 0's primary context, made current on this thread.
inline CUcontext primaryContext() {
  const rt::CudaApi &api = rt::CudaApi::driver();
  CUdevice dev;
  FPX_CU(api.cuDeviceGet(&dev, 0));
  CUcontext ctx;
  FPX_CU(api.cuDevicePrimaryCtxRetain(&ctx, dev));
  FPX_CU(api.cuCtxSetCurrent(ctx));
  return ctx;
}

/// Device buffer freed at scope exit.
struct DeviceBuffer {
  explicit DeviceBuffer(size_t bytes) : Bytes(bytes) {
    FPX_CU(rt::CudaApi::driver().cuMemAlloc(&Ptr, bytes ? bytes : 1));
  }
  ~DeviceBuffer() { rt::CudaApi::driver().cuMemFree(Ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  template <typename T> void upload(const std::vector<T> &v) {
    FPX_CU(rt::CudaApi::driver().cuMemcpyHtoD(Ptr, v.data(), v.size() * sizeof(T)));
  }
  template <typename T> std::vector<T> download(size_t n) const {
    std::vector<T> v(n);
    FPX_CU(rt::CudaApi::driver().cuMemcpyDtoH(v.data(), Ptr, n * sizeof(T)));
    return v;
  }
  /// Fills with a byte pattern, so unwritten outputs are visible.
  void poison(uint8_t byte = 0xA5) {
    std::vector<uint8_t> p(Bytes, byte);
    upload(p);
  }
  CUdeviceptr Ptr = 0;
  size_t Bytes = 0;
};

/// Directory of the artifacts of `target` (e.g. "sm_90a").
inline std::filesystem::path artifactDir(const std::string &target) {
  const char *env = std::getenv("FPX_GPU_ARTIFACTS");
  std::filesystem::path base = env ? env : FPX_GPU_ARTIFACTS_DEFAULT;
  return base / target;
}

/// Whether a table-driven test runs its case `name`: all of them, or with
/// FPX_GPU_CASES set (for a sanitizer run on a few kernels) those whose name
/// contains it. The test says how many it ran and fails when none matched.
class CaseFilter {
public:
  CaseFilter() {
    const char *env = std::getenv("FPX_GPU_CASES");
    Filter = env ? env : "";
  }
  ~CaseFilter() {
    if (Filter.empty())
      return;
    std::fprintf(stderr, "FPX_GPU_CASES=%s: ran %d of %d cases\n", Filter.c_str(), Ran, Seen);
    EXPECT_GT(Ran, 0) << "FPX_GPU_CASES=" << Filter << " matches no case";
  }
  bool operator()(const std::string &name) {
    ++Seen;
    bool run = Filter.empty() || name.find(Filter) != std::string::npos;
    Ran += run;
    return run;
  }

private:
  std::string Filter;
  int Seen = 0, Ran = 0;
};

/// Skips the test without a GPU or without the artifacts of `target`, else
/// makes device 0's primary context current.
#define FPX_REQUIRE_TARGET(target)                                             \
  do {                                                                         \
    FPX_REQUIRE_GPU();                                                         \
    auto dir_ = ::fpx::gputest::artifactDir(target);                           \
    if (!std::filesystem::exists(dir_))                                        \
      GTEST_SKIP() << "no artifacts for " << (target) << " at " << dir_;      \
    ::fpx::gputest::primaryContext();                                          \
  } while (0)

/// Loads `name` for `target`; skips the test when the artifact is missing.
#define FPX_LOAD_ARTIFACT(var, target, name)                                   \
  std::shared_ptr<::fpx::rt::Module> var;                                      \
  do {                                                                         \
    auto p_ = ::fpx::gputest::artifactDir(target) / (std::string(name) + ".json"); \
    if (!std::filesystem::exists(p_))                                          \
      GTEST_SKIP() << "artifact " << p_ << " not built (run fpxc or set "      \
                   << "FPX_GPU_ARTIFACTS)";                                    \
    var = ::fpx::rt::Module::load(p_.string());                                \
  } while (0)

inline uint16_t toBf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  // round to nearest even; NaN stays a quiet NaN
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return 0x7fc0;
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/// bf16 test data: rows x cols, blocks of `blockLen` along rows get random
/// magnitudes 2^[-40, 40] so scales vary, and every value that breaks casts
/// appears somewhere (whole blocks of zeros, NaN, inf, +-0, subnormals, max).
inline std::vector<uint16_t> bf16TestData(int64_t rows, int64_t cols,
                                          int64_t blockLen, uint32_t seed,
                                          bool specials = true) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> expo(-40, 40);
  std::vector<uint16_t> x(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < cols; b += blockLen) {
      float mag = std::ldexp(1.0f, expo(rng));
      for (int64_t c = b; c < std::min(cols, b + blockLen); ++c)
        x[r * cols + c] = toBf16Bits(normal(rng) * mag);
    }
  if (!specials || rows * cols < 64 * blockLen)
    return x;
  const uint16_t specialsList[] = {
      0x0000, 0x8000, // +-0
      0x7f80, 0xff80, // +-inf
      0x7fc0, 0xffc1, // NaNs
      0x0001, 0x8001, 0x007f, // subnormals
      0x7f7f, 0xff7f, // +-max bf16
      0x0080, // smallest normal
      0x3f80, 0x3f81, // 1.0 and next
  };
  std::uniform_int_distribution<int64_t> pos(0, rows * cols - 1);
  for (int rep = 0; rep < 4; ++rep)
    for (uint16_t s : specialsList)
      x[pos(rng)] = s;
  // A block with only a subnormal next to 1.0, and an all-zero block.
  if (rows > 2 && cols >= 2 * blockLen) {
    for (int64_t c = 0; c < blockLen; ++c) {
      x[1 * cols + c] = 0;
      x[2 * cols + c] = c == 0 ? 0x3f80 : c == 1 ? 0x0001 : 0;
    }
  }
  return x;
}

/// Input element types of the cast tests.
enum class In { BF16, F16, F32 };

/// A test input: its bytes for the GPU and the exact fp32 values the
/// numerics reference reads.
struct HostInput {
  std::vector<uint8_t> bytes;
  std::vector<float> values;
  rt::DType type;
};

/// Widens bf16 test patterns to the input type: bf16 as is; f16 through RNE
/// (IEEE overflow, so inf stays inf); f32 with random low mantissa bits added
/// to finite values, so the fp32 rounding paths are exercised too.
inline HostInput widenInput(const std::vector<uint16_t> &bits, In in,
                            uint32_t seed) {
  size_t n = bits.size();
  HostInput h;
  h.values.resize(n);
  std::mt19937 rng(seed);
  switch (in) {
  case In::BF16:
    for (size_t i = 0; i < n; ++i)
      h.values[i] = num::bf16ToFloat(bits[i]);
    h.bytes.resize(n * 2);
    std::memcpy(h.bytes.data(), bits.data(), n * 2);
    h.type = rt::DType::BF16;
    break;
  case In::F32: {
    std::vector<uint32_t> w(n);
    for (size_t i = 0; i < n; ++i) {
      uint32_t u = uint32_t(bits[i]) << 16;
      if ((u & 0x7f800000u) != 0x7f800000u)
        u |= rng() & 0xffffu;
      w[i] = u;
      std::memcpy(&h.values[i], &u, 4);
    }
    h.bytes.resize(n * 4);
    std::memcpy(h.bytes.data(), w.data(), n * 4);
    h.type = rt::DType::F32;
    break;
  }
  case In::F16: {
    std::vector<uint16_t> f(n);
    for (size_t i = 0; i < n; ++i) {
      f[i] = num::floatToHalf(num::bf16ToFloat(bits[i]), num::Rounding::RN,
                              num::Overflow::ToInfOrNaN);
      h.values[i] = num::halfToFloat(f[i]);
    }
    h.bytes.resize(n * 2);
    std::memcpy(h.bytes.data(), f.data(), n * 2);
    h.type = rt::DType::F16;
    break;
  }
  }
  return h;
}

/// The first `n` values of a GEMM's output `buf`, f32 or bf16 (widened).
inline std::vector<float> downloadFloats(const DeviceBuffer &buf, int64_t n, bool f32) {
  if (f32)
    return buf.download<float>(n);
  std::vector<float> out(n);
  std::vector<uint16_t> bits = buf.download<uint16_t>(n);
  for (int64_t i = 0; i < n; ++i)
    out[i] = num::bf16ToFloat(bits[i]);
  return out;
}

/// Random codes of an 8-bit `fmt` over its whole finite range.
inline std::vector<uint8_t> randomFiniteCodes(const num::Format &fmt, int64_t n,
                                              std::mt19937 &rng) {
  std::vector<uint8_t> out(n);
  for (auto &c : out) {
    do
      c = static_cast<uint8_t>(rng());
    while (fmt.isNaNCode(c & fmt.magnitudeMask()) || fmt.isInfCode(c & fmt.magnitudeMask()));
  }
  return out;
}

/// The outputs of a function for given shapes, allocated and poisoned so
/// that bytes no kernel wrote show up as mismatches.
struct PoisonedOutputs {
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  std::vector<rt::TensorRef> refs;
};
inline PoisonedOutputs poisonedOutputs(const rt::Function &f,
                                       const std::vector<std::vector<int64_t>> &shapes) {
  PoisonedOutputs o;
  for (size_t i = 0; i < shapes.size(); ++i) {
    rt::DType t = f.info().Outputs[i].Type;
    int64_t count = 1;
    for (int64_t d : shapes[i])
      count *= d;
    o.buffers.push_back(std::make_unique<DeviceBuffer>(count * rt::dtypeSize(t)));
    o.buffers.back()->poison();
    o.refs.emplace_back(o.buffers.back()->Ptr, t, shapes[i]);
  }
  return o;
}

/// Replaces NaN patterns (where a tensor amax is taken, one NaN would make
/// every scale NaN) by 1.0.
inline void dropNaNs(std::vector<uint16_t> &bits) {
  for (uint16_t &b : bits)
    if ((b & 0x7fff) > 0x7f80)
      b = 0x3f80;
}

/// Gives each matrix of a batch of `batch` bf16 matrices of `per` elements
/// its own amax, 2^(50 + 2e) at one element (the sign alternating), above
/// the rest of the data: |x| >= 2^48 (the specials' +-max, inf and NaN
/// included) is brought down to +-1. Then a kernel that applies another
/// matrix's amax or global scale fails.
inline void distinctMatrixAmaxes(std::vector<uint16_t> &bits, int64_t batch, int64_t per) {
  for (uint16_t &b : bits)
    if ((b & 0x7fff) >= 0x5780) // |x| >= 2^48
      b = (b & 0x8000) | 0x3f80;
  for (int64_t e = 0; e < batch; ++e)
    bits[e * per + (e * 7919) % per] =
        static_cast<uint16_t>((e % 2 ? 0x8000 : 0) | ((127 + 50 + 2 * e) << 7));
}

/// Launches the cast `f` on `input` (shape `shape`) into poisoned outputs,
/// with the i64 seed scalar when given, and returns every output's bytes.
inline std::vector<std::vector<uint8_t>> runCast(const rt::Function &f,
                                                 const HostInput &input,
                                                 const std::vector<int64_t> &shape,
                                                 std::optional<uint64_t> seed) {
  auto shapes = f.outputShapes({shape});
  DeviceBuffer in(input.bytes.size());
  in.upload(input.bytes);
  PoisonedOutputs po = poisonedOutputs(f, shapes);
  std::vector<rt::Scalar> scalars;
  if (seed)
    scalars.push_back(rt::Scalar(static_cast<int64_t>(*seed)));
  f.launch(nullptr, {rt::TensorRef(in.Ptr, input.type, shape)}, po.refs, scalars);
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  std::vector<std::vector<uint8_t>> out;
  for (const auto &b : po.buffers)
    out.push_back(b->download<uint8_t>(b->Bytes));
  return out;
}

/// `got` equals `want` byte for byte (same size asserted); the first eight
/// mismatches are reported with their offsets, e.g. "data byte 17".
inline void expectSameBytes(const std::vector<uint8_t> &got,
                            const std::vector<uint8_t> &want, const char *what) {
  ASSERT_EQ(got.size(), want.size()) << what << " bytes";
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ < 8)
      ADD_FAILURE() << what << " byte " << i << ": got 0x" << std::hex << int(got[i])
                    << " want 0x" << int(want[i]);
  EXPECT_EQ(bad, 0u) << what << " mismatches";
}

/// The tensor amax output (4 bytes of an f32) equals `want` bit for bit.
inline void expectAmaxBits(const std::vector<uint8_t> &got, float want) {
  ASSERT_EQ(got.size(), 4u) << "tensor amax bytes";
  uint32_t gotBits, wantBits;
  std::memcpy(&gotBits, got.data(), 4);
  std::memcpy(&wantBits, &want, 4);
  EXPECT_EQ(gotBits, wantBits) << "tensor amax";
}

} // namespace fpx::gputest

#endif
