// The column cast's access pattern moved by Hopper's bulk tensor copy engine
// (TMA) instead of cp.async and 16-byte stores: does the copy engine lift the
// column pattern's ceiling (pattern_ceiling.cu) towards the row pattern's?
// No arithmetic, as pattern_ceiling.cu: a CTA reads a 128x128 bf16 tile of
// the (M, K) input and writes 128 output rows of 128 bytes into the (K, M)
// transposed output (one byte an element, the high byte of each bf16), plus
// one scale byte a 32x1 block.
//
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o pattern_tma \
//        bench/quantize/pattern_tma.cu -lcuda
//   ./pattern_tma [M K ...]      (default 16384 8192  8192 5120  2048 7168)
//
// Kernels, each timed against a copy of the same bytes and the 1 GiB copy:
//   rows      the row cast's pattern (16-byte loads, 8-byte stores)
//   cp.async  the column cast's pattern as pattern_ceiling.cu has it (plain
//             loads staged in shared memory, 16-byte stores)
//   tma-ld    the tile loaded by one cp.async.bulk.tensor completing on an
//             mbarrier, the output rows stored by 16-byte stores
//   tma-both  loaded as tma-ld, the transposed tile staged in shared memory
//             and stored by one cp.async.bulk.tensor
//   tma-pipe  tma-both in a persistent grid: each CTA walks its tiles with
//             two input stages, the next tile's load in flight while it
//             converts the current one
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "pattern_common.cuh"

#define CHECK_CU(x)                                                            \
  do {                                                                         \
    CUresult r_ = (x);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = nullptr;                                                \
      cuGetErrorString(r_, &s_);                                               \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_ ? s_ : "?");  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int T = 128; // tile rows and columns

// --- mbarrier and bulk tensor copies (PTX) ---------------------------------
__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return uint32_t(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarInit(uint64_t *bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(bar)), "r"(count));
}
__device__ __forceinline__ void mbarExpectTx(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarWait(uint64_t *bar, uint32_t parity) {
  asm volatile("{\n .reg .pred p;\n"
               "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra W;\n}" ::"r"(smemAddr(bar)),
               "r"(parity)
               : "memory");
}
__device__ __forceinline__ void tmaLoad2d(void *dst, const CUtensorMap *map, int x, int y,
                                          uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];" ::"r"(smemAddr(dst)),
               "l"(map), "r"(x), "r"(y), "r"(smemAddr(bar))
               : "memory");
}
__device__ __forceinline__ void tmaStore2d(const CUtensorMap *map, int x, int y, const void *src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   map),
               "r"(x), "r"(y), "r"(smemAddr(src))
               : "memory");
}
__device__ __forceinline__ void bulkCommit() { asm volatile("cp.async.bulk.commit_group;"); }
__device__ __forceinline__ void bulkWaitRead0() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void fenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// The output rows of a staged 128x128 bf16 tile: row c (input column c0 + c)
// holds 128 bytes, 8 units of 16; a unit's 16 bytes come from two staged
// vectors as in pattern_ceiling.cu (a stand-in for 16 codes).
__device__ __forceinline__ uint4 unitBytes(const uint4 *tile, int q) {
  constexpr int vecs = T * T / 8;
  uint4 a = tile[q % vecs], b = tile[(q + vecs / 2) % vecs];
  uint2 lo = fold(a), hi = fold(b);
  return make_uint4(lo.x, lo.y, hi.x, hi.y);
}

__device__ __forceinline__ void storeScales(const uint4 *tile, uint32_t *scales, int64_t M,
                                            int64_t r0, int64_t c0) {
  for (int q = threadIdx.x; q < T * T / 128; q += 256) {
    int c = q, w = 0; // T / 128 == 1 word of 4 scale bytes a column
    scales[((c0 + c) * M + r0) / 128 + w] = tile[q].x;
  }
}

// cp.async: the column pattern as pattern_ceiling.cu's colPattern<128, 128>.
__global__ void __launch_bounds__(256) colPlain(const uint4 *__restrict__ in,
                                                uint8_t *__restrict__ out,
                                                uint32_t *__restrict__ scales, int64_t M,
                                                int64_t K) {
  extern __shared__ uint4 tile[];
  constexpr int rowVecs = T / 8, vecs = T * rowVecs;
  int64_t r0 = blockIdx.x * int64_t(T), c0 = blockIdx.y * int64_t(T);
  int t = threadIdx.x;
#pragma unroll
  for (int p = 0; p < vecs / 256; ++p) {
    int v = t + p * 256, lr = v / rowVecs, chunk = v % rowVecs;
    tile[v] = in[(r0 + lr) * (K / 8) + c0 / 8 + chunk];
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < T * 8 / 256; ++p) {
    int q = t + p * 256, unit = q % 8, c = q / 8;
    *reinterpret_cast<uint4 *>(out + (c0 + c) * M + r0 + unit * 16) = unitBytes(tile, q);
  }
  storeScales(tile, scales, M, r0, c0);
}

// Thread 0 sets up `bar` and loads the T x T tile at (r0, c0) of `map` into
// `tile` by one bulk tensor copy; every thread then waits for its bytes.
__device__ __forceinline__ void loadTileTma(uint4 *tile, const CUtensorMap *map, int64_t r0,
                                            int64_t c0, uint64_t *bar) {
  if (threadIdx.x == 0) {
    mbarInit(bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbarExpectTx(bar, T * T * 2);
    tmaLoad2d(tile, map, int(c0), int(r0), bar);
  }
  mbarWait(bar, 0);
}

// tma-ld: the tile by one bulk tensor copy, the rows by 16-byte stores.
__global__ void __launch_bounds__(256) colTmaLoad(const __grid_constant__ CUtensorMap inMap,
                                                  uint8_t *__restrict__ out,
                                                  uint32_t *__restrict__ scales, int64_t M) {
  extern __shared__ __align__(128) uint4 tile[];
  __shared__ uint64_t bar;
  int64_t r0 = blockIdx.x * int64_t(T), c0 = blockIdx.y * int64_t(T);
  int t = threadIdx.x;
  loadTileTma(tile, &inMap, r0, c0, &bar);
#pragma unroll
  for (int p = 0; p < T * 8 / 256; ++p) {
    int q = t + p * 256, unit = q % 8, c = q / 8;
    *reinterpret_cast<uint4 *>(out + (c0 + c) * M + r0 + unit * 16) = unitBytes(tile, q);
  }
  storeScales(tile, scales, M, r0, c0);
}

// Converts a staged input tile into a staged output tile (128 rows of 128
// bytes, row c at c * 128), then one thread stores it by a bulk tensor copy.
__device__ __forceinline__ void stageAndStore(const uint4 *tile, uint8_t *otile,
                                              const CUtensorMap *outMap, int64_t r0,
                                              int64_t c0) {
  int t = threadIdx.x;
#pragma unroll
  for (int p = 0; p < T * 8 / 256; ++p) {
    int q = t + p * 256;
    reinterpret_cast<uint4 *>(otile)[q] = unitBytes(tile, q);
  }
  fenceProxyAsync();
  __syncthreads();
  if (t == 0) {
    tmaStore2d(outMap, int(r0), int(c0), otile);
    bulkCommit();
  }
}

// tma-both: loaded and stored by bulk tensor copies, one tile a CTA.
__global__ void __launch_bounds__(256) colTmaBoth(const __grid_constant__ CUtensorMap inMap,
                                                  const __grid_constant__ CUtensorMap outMap,
                                                  uint32_t *__restrict__ scales, int64_t M) {
  extern __shared__ __align__(128) uint4 tile[]; // input 32 KiB, then output 16 KiB
  uint8_t *otile = reinterpret_cast<uint8_t *>(tile) + T * T * 2;
  __shared__ uint64_t bar;
  int64_t r0 = blockIdx.x * int64_t(T), c0 = blockIdx.y * int64_t(T);
  int t = threadIdx.x;
  loadTileTma(tile, &inMap, r0, c0, &bar);
  storeScales(tile, scales, M, r0, c0);
  stageAndStore(tile, otile, &outMap, r0, c0);
  if (t == 0)
    bulkWaitRead0(); // the shared memory must outlive the store's reads
}

// tma-pipe: a persistent grid, two input stages a CTA.
__global__ void __launch_bounds__(256) colTmaPipe(const __grid_constant__ CUtensorMap inMap,
                                                  const __grid_constant__ CUtensorMap outMap,
                                                  uint32_t *__restrict__ scales, int64_t M,
                                                  int tilesM, int tiles) {
  extern __shared__ __align__(128) uint4 smem[]; // 2 input stages, 1 output stage
  uint8_t *otile = reinterpret_cast<uint8_t *>(smem + T * T / 4);
  __shared__ uint64_t bars[2];
  int t = threadIdx.x;
  if (t == 0) {
    mbarInit(&bars[0], 1);
    mbarInit(&bars[1], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  auto issue = [&](int tileIdx, int s) {
    int64_t r0 = int64_t(tileIdx % tilesM) * T, c0 = int64_t(tileIdx / tilesM) * T;
    mbarExpectTx(&bars[s], T * T * 2);
    tmaLoad2d(smem + s * (T * T / 8), &inMap, int(c0), int(r0), &bars[s]);
  };
  int first = blockIdx.x;
  if (t == 0 && first < tiles)
    issue(first, 0);
  uint32_t phases = 0; // bit s: the parity stage s waits for next
  int s = 0;
  for (int tileIdx = first; tileIdx < tiles; tileIdx += gridDim.x, s ^= 1) {
    int next = tileIdx + gridDim.x;
    if (t == 0 && next < tiles)
      issue(next, s ^ 1); // that stage was freed by the barrier ending the last trip
    mbarWait(&bars[s], (phases >> s) & 1);
    phases ^= 1u << s;
    const uint4 *tile = smem + s * (T * T / 8);
    int64_t r0 = int64_t(tileIdx % tilesM) * T, c0 = int64_t(tileIdx / tilesM) * T;
    storeScales(tile, scales, M, r0, c0);
    if (t == 0)
      bulkWaitRead0(); // the last trip's output stage has been read
    __syncthreads();
    stageAndStore(tile, otile, &outMap, r0, c0);
    __syncthreads(); // stage s is free for the load after next
  }
  if (t == 0)
    bulkWaitRead0();
}

static PFN_cuTensorMapEncodeTiled_v12000 encodeTiled() {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                         cudaEnableDefault, &q));
  if (!fn || q != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "pattern_tma: no cuTensorMapEncodeTiled\n");
    std::exit(1);
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

// A 2-D row-major map of `rows` x `cols` elements with a T x T box.
static CUtensorMap tileMap(void *base, CUtensorMapDataType type, int elemBytes, int64_t rows,
                           int64_t cols) {
  CUtensorMap m;
  cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  cuuint64_t strides[1] = {cuuint64_t(cols * elemBytes)};
  cuuint32_t box[2] = {T, T}, elemStrides[2] = {1, 1};
  CHECK_CU(encodeTiled()(&m, type, 2, base, dims, strides, box, elemStrides,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return m;
}

int main(int argc, char **argv) {
  auto shapes = shapesFromArgs(argc, argv, "pattern_tma", T);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  auto timeIt = [](const std::function<void()> &launch) { return timeLaunches(launch); };
  double copyGbs = copyGiBGbs();
  const int plainSmem = T * T * 2, bothSmem = T * T * 3, pipeSmem = T * T * 5;
  CHECK(cudaFuncSetAttribute(colTmaBoth, cudaFuncAttributeMaxDynamicSharedMemorySize, bothSmem));
  CHECK(cudaFuncSetAttribute(colTmaPipe, cudaFuncAttributeMaxDynamicSharedMemorySize, pipeSmem));
  for (auto shape : shapes) {
    const int64_t M = shape.first, K = shape.second;
    PatternBuffers buf(M, K);
    size_t inBytes = buf.inBytes, outBytes = buf.outBytes, scBytes = buf.scBytes,
           moved = buf.moved;
    void *in = buf.in, *out = buf.out, *sc = buf.sc, *cpy = buf.cpy;
    CUtensorMap inMap = tileMap(in, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, M, K);
    CUtensorMap outMap = tileMap(out, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, K, M);
    int64_t vectors = int64_t(inBytes / 16);
    dim3 grid(unsigned(M / T), unsigned(K / T));
    int tiles = int(M / T * (K / T));
    int perSM = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, colTmaPipe, 256, pipeSmem));
    int pipeGrid = std::min(tiles, perSM * prop.multiProcessorCount);
    struct Kernel {
      const char *name;
      std::function<void()> launch;
    };
    std::vector<Kernel> kernels = {
        {"copy of the same bytes",
         [&] { CHECK(cudaMemcpyAsync(cpy, in, moved / 2, cudaMemcpyDeviceToDevice)); }},
        {"rows",
         [&] {
           rowPattern<<<unsigned((vectors + 1023) / 1024), 256>>>(
               (const uint4 *)in, (uint2 *)out, (uint8_t *)sc, vectors);
         }},
        {"cp.async",
         [&] {
           colPlain<<<grid, 256, plainSmem + 13 * 1024>>>((const uint4 *)in, (uint8_t *)out,
                                                           (uint32_t *)sc, M, K);
         }},
        {"tma-ld",
         [&] {
           colTmaLoad<<<grid, 256, plainSmem + 13 * 1024>>>(inMap, (uint8_t *)out,
                                                             (uint32_t *)sc, M);
         }},
        {"tma-both",
         [&] { colTmaBoth<<<grid, 256, bothSmem>>>(inMap, outMap, (uint32_t *)sc, M); }},
        {"tma-pipe", [&] {
           colTmaPipe<<<pipeGrid, 256, pipeSmem>>>(inMap, outMap, (uint32_t *)sc, M,
                                                   int(M / T), tiles);
         }}};
    // Every column kernel writes the same bytes as cp.async's.
    std::vector<uint8_t> want(outBytes + scBytes), got(outBytes + scBytes);
    for (size_t i = 2; i < kernels.size(); ++i) {
      std::vector<uint8_t> &h = i == 2 ? want : got;
      CHECK(cudaMemset(out, 0, outBytes));
      CHECK(cudaMemset(sc, 0, scBytes));
      kernels[i].launch();
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(h.data(), out, outBytes, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(h.data() + outBytes, sc, scBytes, cudaMemcpyDeviceToHost));
      if (i > 2 && got != want) {
        std::fprintf(stderr, "pattern_tma: %s wrote other bytes than cp.async at %lldx%lld\n",
                     kernels[i].name, (long long)M, (long long)K);
        return 1;
      }
    }
    // Each twice, in order and then reversed, so that drift shows.
    std::vector<std::pair<const char *, double>> runs;
    for (size_t i = 0; i < kernels.size(); ++i)
      runs.push_back({kernels[i].name, timeIt(kernels[i].launch)});
    for (size_t i = kernels.size(); i-- > 0;)
      runs.push_back({kernels[i].name, timeIt(kernels[i].launch)});
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::printf("%lldx%lld, %.1f MB moved (tma-pipe: %d CTAs, %d an SM)\n", (long long)M,
                (long long)K, moved / 1e6, pipeGrid, perSM);
    for (auto [name, us] : runs)
      std::printf("  %-24s %8.1f us %6.0f GB/s %5.1f%% of the 1 GiB copy\n", name, us,
                  moved / us / 1e3, 100.0 * moved / us / 1e3 / copyGbs);
  }
  return 0;
}
