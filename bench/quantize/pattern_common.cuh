// Shared by the access-pattern benchmarks (pattern_ceiling.cu,
// pattern_tma.cu): the error check, the fold that stands in for a cast's
// conversion, the row cast's pattern and the event timer.
#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(e_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Folds a 16-byte vector to the 8 bytes a cast would write (the high byte of
// each bf16), so that the loads are used.
__device__ __forceinline__ uint2 fold(uint4 v) {
  uint2 r;
  r.x = __byte_perm(v.x, v.y, 0x7531);
  r.y = __byte_perm(v.z, v.w, 0x7531);
  return r;
}

// Row pattern: each thread reads 16-byte vectors along a row and writes 8
// bytes; every fourth vector's thread writes the block's scale byte (1x32).
__global__ void __launch_bounds__(256) rowPattern(const uint4 *__restrict__ in,
                                                  uint2 *__restrict__ out,
                                                  uint8_t *__restrict__ scales,
                                                  int64_t vectors) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) * 4 + threadIdx.x;
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    int64_t v = i + u * blockDim.x;
    if (v < vectors) {
      uint4 x = in[v];
      out[v] = fold(x);
      if ((v & 3) == 0)
        scales[v >> 2] = uint8_t(x.x);
    }
  }
}

// Mean microseconds of `launch` over 50 calls after 5 untimed ones.
template <class Launch> double timeLaunches(Launch launch) {
  static cudaEvent_t s = nullptr, e = nullptr;
  if (!s) {
    CHECK(cudaEventCreate(&s));
    CHECK(cudaEventCreate(&e));
  }
  for (int i = 0; i < 5; ++i)
    launch();
  CHECK(cudaDeviceSynchronize());
  const int reps = 50;
  CHECK(cudaEventRecord(s));
  for (int i = 0; i < reps; ++i)
    launch();
  CHECK(cudaEventRecord(e));
  CHECK(cudaEventSynchronize(e));
  float ms;
  CHECK(cudaEventElapsedTime(&ms, s, e));
  return ms * 1e3 / reps;
}

// GB/s (read + written) of the 1 GiB device-to-device copy the benchmarks
// compare against, printed.
inline double copyGiBGbs() {
  size_t n = size_t(1) << 30;
  void *a, *b;
  CHECK(cudaMalloc(&a, n));
  CHECK(cudaMalloc(&b, n));
  double us = timeLaunches([&] { CHECK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice)); });
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  double gbs = 2.0 * n / us / 1e3;
  std::printf("copy 1 GiB: %.1f us, %.0f GB/s (read + write)\n", us, gbs);
  return gbs;
}

// The buffers of one M x K cast: bf16 input, a byte an element out, a scale
// byte a 32 elements, and a copy's destination moving the same bytes.
struct PatternBuffers {
  size_t inBytes, outBytes, scBytes, moved;
  void *in, *out, *sc, *cpy;
  PatternBuffers(int64_t M, int64_t K)
      : inBytes(size_t(M) * K * 2), outBytes(size_t(M) * K), scBytes(size_t(M) * K / 32),
        moved(inBytes + outBytes + scBytes) {
    CHECK(cudaMalloc(&in, inBytes));
    CHECK(cudaMalloc(&out, outBytes));
    CHECK(cudaMalloc(&sc, scBytes));
    CHECK(cudaMalloc(&cpy, moved / 2 + 16));
    CHECK(cudaMemset(in, 0x3f, inBytes));
  }
  ~PatternBuffers() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(sc);
    cudaFree(cpy);
  }
  PatternBuffers(const PatternBuffers &) = delete;
  PatternBuffers &operator=(const PatternBuffers &) = delete;
};

// The M K pairs of the command line (default: the issue's shapes), each a
// positive multiple of `multiple`; exits with a message naming `program`
// otherwise.
inline std::vector<std::pair<int64_t, int64_t>> shapesFromArgs(int argc, char **argv,
                                                               const char *program,
                                                               int64_t multiple) {
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (int i = 1; i + 1 < argc; i += 2)
    shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1])});
  if (shapes.empty())
    shapes = {{16384, 8192}, {8192, 5120}, {2048, 7168}};
  for (auto [M, K] : shapes)
    if (M <= 0 || K <= 0 || M % multiple || K % multiple) { // whole tiles of every shape
      std::fprintf(stderr, "%s: %lldx%lld: M and K must be positive multiples of %lld\n",
                   program, (long long)M, (long long)K, (long long)multiple);
      std::exit(2);
    }
  return shapes;
}
