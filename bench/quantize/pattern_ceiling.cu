// The memory-access ceilings of the MXFP8 row and column casts, without their
// arithmetic: kernels that read a bf16 matrix and write one byte an element
// (plus one scale byte a 32 elements) in exactly the casts' access patterns,
// against a device-to-device copy of the same bytes. It tells how much of the
// column cast's gap to the row cast is its access pattern (128x128 tiles:
// 256-byte runs of 128 input rows in, 128-byte runs of 128 output rows out)
// and how much its kernel.
//   nvcc -std=c++17 -O3 -arch=sm_90a -o pattern_ceiling bench/quantize/pattern_ceiling.cu
//   ./pattern_ceiling [M K ...]      (default 16384 8192  8192 5120  2048 7168)
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pattern_common.cuh"

// Column pattern: a CTA owns a TR x TC bf16 tile (2 TC-byte runs of TR input
// rows; the column cast's is 128x128), staged in shared memory as the column
// cast does, and writes TC output rows (one per input column) of TR bytes
// into the transposed (K, M) output, plus TR / 32 scale bytes a column (32x1
// blocks) as words.
template <int TR, int TC>
__global__ void __launch_bounds__(256) colPattern(const uint4 *__restrict__ in,
                                                  uint8_t *__restrict__ out,
                                                  uint32_t *__restrict__ scales,
                                                  int64_t M, int64_t K) {
  extern __shared__ uint4 tile[]; // TR rows x TC / 8 vectors
  constexpr int rowVecs = TC / 8, vecs = TR * rowVecs;
  int64_t r0 = blockIdx.x * int64_t(TR), c0 = blockIdx.y * int64_t(TC);
  int t = threadIdx.x;
  const int64_t inRowVecs = K / 8;
#pragma unroll
  for (int p = 0; p < vecs / 256; ++p) {
    int v = t + p * 256, lr = v / rowVecs, chunk = v % rowVecs;
    tile[v] = in[(r0 + lr) * inRowVecs + c0 / 8 + chunk];
  }
  __syncthreads();
  // Output row c (input column c0 + c): TR bytes, TR / 16 threads of 16.
  constexpr int units = TR / 16;
#pragma unroll
  for (int p = 0; p < TC * units / 256; ++p) {
    int q = t + p * 256, unit = q % units, c = q / units;
    // 16 bytes from two staged vectors (consecutive threads, consecutive
    // vectors: no bank conflicts), as a stand-in for 16 codes.
    uint4 a = tile[q % vecs], b = tile[(q + vecs / 2) % vecs];
    uint2 lo = fold(a), hi = fold(b);
    uint4 w = make_uint4(lo.x, lo.y, hi.x, hi.y);
    *reinterpret_cast<uint4 *>(out + (c0 + c) * M + r0 + unit * 16) = w;
  }
  if constexpr (TR >= 128) {
    for (int q = t; q < TC * TR / 128; q += 256) {
      int c = q / (TR / 128), w = q % (TR / 128);
      scales[((c0 + c) * M + r0) / 128 + w] = tile[q % vecs].x;
    }
  } else {
    for (int c = t; c < TC; c += 256)
      reinterpret_cast<uint16_t *>(scales)[((c0 + c) * M + r0) / 64] = uint16_t(tile[c].x);
  }
}

int main(int argc, char **argv) {
  auto shapes = shapesFromArgs(argc, argv, "pattern_ceiling", 256);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s\n", prop.name);
  auto timeIt = [](auto launch) { return timeLaunches(launch); };
  copyGiBGbs(); // the copy the benchmarks compare against
  for (auto shape : shapes) {
    int64_t M = shape.first, K = shape.second;
    PatternBuffers buf(M, K);
    size_t inBytes = buf.inBytes, moved = buf.moved;
    void *in = buf.in, *out = buf.out, *sc = buf.sc, *cpy = buf.cpy;
    int64_t vectors = int64_t(inBytes / 16);
    double copyUs = timeIt([&] {
      CHECK(cudaMemcpyAsync(cpy, in, moved / 2, cudaMemcpyDeviceToDevice));
    });
    double rowUs = timeIt([&] {
      rowPattern<<<unsigned((vectors + 1023) / 1024), 256>>>(
          (const uint4 *)in, (uint2 *)out, (uint8_t *)sc, vectors);
    });
    // The column cast's 128x128 tile at as many CTAs an SM as the shared
    // memory allows (seven) and at five, as the column cast runs (shared
    // memory padded to 45 KB a CTA); then other tile shapes.
    auto colUsAt = [&](auto kernel, int tr, int tc, size_t smem) {
      CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(smem)));
      return timeIt([&] {
        kernel<<<dim3(unsigned(M / tr), unsigned(K / tc)), 256, smem>>>(
            (const uint4 *)in, (uint8_t *)out, (uint32_t *)sc, M, K);
      });
    };
    double colUs = colUsAt(colPattern<128, 128>, 128, 128, 32768);
    double col5Us = colUsAt(colPattern<128, 128>, 128, 128, 45 * 1024);
    struct Shape { int tr, tc; double us; };
    std::vector<Shape> others = {
        {128, 64, colUsAt(colPattern<128, 64>, 128, 64, 16384)},
        {128, 256, colUsAt(colPattern<128, 256>, 128, 256, 65536)},
        {256, 128, colUsAt(colPattern<256, 128>, 256, 128, 65536)},
        {256, 64, colUsAt(colPattern<256, 64>, 256, 64, 32768)},
        {64, 256, colUsAt(colPattern<64, 256>, 64, 256, 32768)}};
    CHECK(cudaGetLastError());
    auto gbs = [&](double us) { return moved / us / 1e3; };
    std::printf("%6lldx%-6lld %6.1f MB moved: copy of the same bytes %7.1f us %5.0f GB/s | "
                "row pattern %7.1f us %5.0f GB/s | column pattern %7.1f us %5.0f GB/s "
                "(%.1f%% of the row pattern), at five CTAs an SM %7.1f us %5.0f GB/s\n",
                (long long)M, (long long)K, moved / 1e6, copyUs, gbs(copyUs), rowUs,
                gbs(rowUs), colUs, gbs(colUs), 100.0 * rowUs / colUs, col5Us, gbs(col5Us));
    for (const Shape &o : others)
      std::printf("    column pattern, %dx%d tiles: %7.1f us %5.0f GB/s (%.1f%% of the row pattern)\n",
                  o.tr, o.tc, o.us, gbs(o.us), 100.0 * rowUs / o.us);
  }
  return 0;
}
