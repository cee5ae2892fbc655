// fp8_wgmma.cu - design experiment for the Hopper scaled GEMM (issue 39).
//
// Not a kernel of fpxc: the structure fpxc's lowering is to generate, written
// by hand in CUDA C++ with inline PTX so that the forms can be timed on the
// lent GPU before the MLIR builder is written (see NOTES.md, "fp8_wgmma").
//
// C[M,N] = A[M,K] (e4m3, K-major) * B[N,K]^T (e4m3, K-major), fp32
// accumulation, bf16 (or fp32) output, with one of four scale kinds:
//   tensor  sa[1], sb[1] fp32, applied in the epilogue;
//   row     sa[M], sb[N] fp32, applied in the epilogue;
//   block   sa[M][ceil(K/128)] (1x128), sb[ceil(N/128)][ceil(K/128)]
//           (128x128) fp32, row-major: every 128-K stage the wgmma partial
//           sum is promoted into the fp32 accumulator, acc += sa*sb*partial
//           (DeepGEMM's form);
//   mx      E8M0 block-32 scales on both operands, given here K-block-major
//           (saT[K/32][Mp], sbT[K/32][Np], Mp, Np rounded up to 16) so that
//           TMA can bring a stage's scales with the data; every k32 wgmma
//           is promoted on its own.
//
// Kernel structure (DESIGN.md section 9):
// - 384 threads: warpgroup 0 is the producer (setmaxnreg.dec 40; one thread
//   issues every TMA), warpgroups 1 and 2 consume (setmaxnreg.inc 232).
// - TMA (cp.async.bulk.tensor.2d, 128B swizzle, tensor maps from
//   cuTensorMapEncodeTiled) into an ST-stage ring of (BM x 128, BN x 128)
//   byte tiles with a full and an empty mbarrier a stage.
// - Each consumer warpgroup owns BM/2 rows as BM/128 m64 "waves" and issues
//   wgmma.mma_async m64nBNk32 e4m3 with both operands from shared memory
//   (descriptors with the 128B-swizzle layout, +32 bytes a k32 step).
// - Main-loop modes (template PROMO, Cfg::kMode): 0 fast accumulation (one
//   wgmma group a stage in flight, wait_group 1 releases the previous
//   stage; tensor/row); 1 promotion into an fp32 accumulator after
//   wait_group 0 (block/mx always; tensor/row with _p1); 2 the promotion
//   overlapped with the next unit's wgmmas (two partial sets).
// - Persistent: grid = min(#SMs, tiles), tiles visited in a grouped order
//   (GM tile rows at a time) for L2 reuse. Template CL = 2: clusters of two
//   CTAs along M, each loading half of the shared B tile with TMA multicast.
// - Epilogue (template EPI): 0 = scale, cvt to bf16x2, masked st.global
//   straight from the accumulator registers; 1 = the same into a 128B-
//   swizzled shared staging tile (st.shared.b32, conflict free) and a TMA
//   store (cp.async.bulk.tensor, clipped at M, N); 2 = fp32 st.global (the
//   correctness check before the output cast).
// Edges: TMA zero-fills loads past M, N and K, so a partial tile computes
// zeros there; stores are masked (EPI 0/2) or clipped by TMA (EPI 1).
// Requirements: K % 16 == 0 (the row stride of A and B in bytes must be a
// multiple of 16 for a tensor map), K % 32 == 0 for mx (the scale block);
// EPI 1 needs N % 8 == 0 (the bf16 row stride) and BN % 64 == 0.
//
// Build (sm_90a only):
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -o fp8_wgmma fp8_wgmma.cu \
//     -lcuda -lcublasLt
// (-arch=sm_90a works too: nvcc 13 then also embeds compute_90 PTX, where the
// kernel body is compiled out.)
// Run:  ./fp8_wgmma [--variants v1,v2,...] [--kinds tensor,row,block,mx]
//                   [--shapes MxNxK,...] [--iters N] [--gm N]
//   ./fp8_wgmma --list   prints the compiled variants.
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                \
              cudaGetErrorString(e_));                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CU(x)                                                                  \
  do {                                                                         \
    CUresult r_ = (x);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = nullptr;                                                \
      cuGetErrorString(r_, &s_);                                               \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?"); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CB(x)                                                                  \
  do {                                                                         \
    cublasStatus_t s_ = (x);                                                   \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                         \
      fprintf(stderr, "%s:%d %s: cublas status %d\n", __FILE__, __LINE__, #x,  \
              (int)s_);                                                        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

enum Kind { kTensor = 0, kRow = 1, kBlock = 2, kMx = 3 };
static const char *kKindNames[] = {"tensor", "row", "block", "mx"};

constexpr int kBK = 128;        // K bytes (= e4m3 elements) a stage
constexpr int kThreads = 384;   // producer warpgroup + 2 consumer warpgroups

struct Params {
  int M, N, K;
  int tilesM, tilesN, numTiles, groupM;
  const float *sa, *sb; // tensor / row / block scales (see the header)
  void *out;            // [M][N] bf16 or fp32
};

// ---------------------------------------------------------------- PTX helpers

__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbarExpectTx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred p;\nWAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               "@!p bra WAIT;\n}" ::"r"(bar),
               "r"(parity)
               : "memory");
}
__device__ __forceinline__ void tmaLoad(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0,
                                        int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
               "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1)
               : "memory");
}
// Multicast: the box lands at the same offset in every CTA of `mask`, and each
// destination CTA's mbarrier at `bar`'s offset gets the complete_tx.
__device__ __forceinline__ void tmaLoadMc(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0,
                                          int c1, uint16_t mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
               "l"((uint64_t)map), "r"(bar), "r"(c0), "r"(c1), "h"(mask)
               : "memory");
}
__device__ __forceinline__ uint32_t clusterRank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive;\nbarrier.cluster.wait;" ::: "memory");
}
// Arrive on the mbarrier at the same offset in cluster CTA `cta`.
__device__ __forceinline__ void mbarArriveCluster(uint32_t bar, uint32_t cta) {
  asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
               "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n}" ::"r"(bar),
               "r"(cta)
               : "memory");
}
__device__ __forceinline__ void tmaStore(const CUtensorMap *map, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   (uint64_t)map),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}
__device__ __forceinline__ void tmaStoreCommit() { asm volatile("cp.async.bulk.commit_group;"); }
__device__ __forceinline__ void tmaStoreWaitRead() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void tmaStoreWaitAll() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
__device__ __forceinline__ void fenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void namedBarrier(int id, int count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator reads/writes across wgmma.
template <int N> __device__ __forceinline__ void fenceRegs(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

// Shared-memory matrix descriptor, K-major operand in the 128B-swizzle
// layout TMA writes: 8-row x 128-byte atoms, 1024 bytes apart (SBO); the
// leading byte offset is unused for swizzled K-major; a k32 step inside the
// atom adds 32 bytes to the start address.
__device__ __forceinline__ uint64_t smemDesc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
         ((uint64_t)1 << 62);
}

// wgmma.mma_async m64nNk32 f32 += e4m3 * e4m3, both operands from shared
// memory; scaleD == 0 overwrites the accumulator. Thread (warp w, lane
// g*4+t) holds d[4c + e]: row 16w + g + 8*(e>>1), column 8c + 2t + (e&1).
template <int N> struct Wgmma;
template <> struct Wgmma<64> {
  static __device__ __forceinline__ void mma(float (&d)[32], uint64_t a, uint64_t b, int scaleD) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"(scaleD));
  }
};
template <> struct Wgmma<112> {
  static __device__ __forceinline__ void mma(float (&d)[56], uint64_t a, uint64_t b, int scaleD) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %58, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n112k32.f32.e4m3.e4m3 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55}, %56, %57, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
                 : "l"(a), "l"(b), "r"(scaleD));
  }
};
template <> struct Wgmma<128> {
  static __device__ __forceinline__ void mma(float (&d)[64], uint64_t a, uint64_t b, int scaleD) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(a), "l"(b), "r"(scaleD));
  }
};
template <> struct Wgmma<192> {
  static __device__ __forceinline__ void mma(float (&d)[96], uint64_t a, uint64_t b, int scaleD) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95}, %96, %97, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                 : "l"(a), "l"(b), "r"(scaleD));
  }
};
template <> struct Wgmma<256> {
  static __device__ __forceinline__ void mma(float (&d)[128], uint64_t a, uint64_t b, int scaleD) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 "
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1;\n}"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(a), "l"(b), "r"(scaleD));
  }
};

// E8M0 code -> fp32 2^(e-127) (0 -> 2^-127 as a subnormal; 255, NaN, is not
// special-cased in this experiment).
__device__ __forceinline__ float e8m0ToF32(uint32_t e) {
  return __uint_as_float(max(e << 23, 0x00400000u));
}

// Grouped tile order: GM tile rows at a time, N fastest within the group
// column by column, so concurrently running CTAs share A and B tiles in L2.
__host__ __device__ __forceinline__ void tileCoords(const Params &p, int tile, int &mt, int &nt) {
  int per = p.groupM * p.tilesN;
  int grp = tile / per, first = grp * p.groupM;
  int gm = min(p.tilesM - first, p.groupM);
  int r = tile - grp * per;
  mt = first + r % gm;
  nt = r / gm;
}

template <int BM, int BN, int ST, int KIND, int EPI, int PROMO, int CL> struct Cfg {
  static constexpr int W = BM / 128;   // m64 waves a consumer warpgroup
  static constexpr int NA = BN / 2;    // accumulators a thread a wave
  static constexpr int BNp = (BN + 15) / 16 * 16;
  static constexpr uint32_t kA = BM * kBK, kB = BN * kBK;
  static constexpr uint32_t kSc = KIND == kMx ? 4 * (BM + BNp) : 0; // mx scale bytes a stage
  static constexpr uint32_t kScStride = (kSc + 127) / 128 * 128;     // TMA wants 128B-aligned dst
  static constexpr uint32_t kEpi = EPI == 1 ? BM * BN * 2 : 0;
  static constexpr uint32_t kSmem = 1024 + ST * (kA + kB + kScStride) + kEpi + 2 * ST * 8;
  // Main-loop mode: 0 fast accumulation (tensor/row), 1 promote after
  // wait_group 0, 2 promote overlapped with the next unit (block/mx: >= 1).
  static constexpr int kMode = (KIND == kBlock || KIND == kMx) && PROMO == 0 ? 1 : PROMO;
  static constexpr int kAccRegs = (W + (kMode == 0 ? 0 : kMode == 1 ? 1 : 2)) * NA;
  static_assert(BM == 128 || BM == 256, "BM: 128 or 256");
  static_assert(kMode != 2 || W == 1, "the overlapped promotion is written for one wave");
  static_assert(BN % 8 == 0 && BN <= 256, "BN: a multiple of 8, at most 256");
  static_assert(EPI != 1 || BN % 64 == 0, "the TMA-store epilogue stores 64-column boxes");
  static_assert(CL == 1 || (CL == 2 && BN % 16 == 0), "clusters of 2 along M split B in halves");
  // Register split (128 x producer + 256 x consumer <= 64512, the launch's 168 a thread): the
  // cluster producer carries more state (40 spilled a few words there).
  static constexpr int kProducerRegs = CL == 1 ? 40 : 56, kConsumerRegs = CL == 1 ? 232 : 224;
};

template <int BM, int BN, int ST, int KIND, int EPI, int PROMO, int CL>
__global__ void __launch_bounds__(kThreads, 1)
    fp8Gemm(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
            const __grid_constant__ CUtensorMap tmSA, const __grid_constant__ CUtensorMap tmSB,
            const __grid_constant__ CUtensorMap tmOut, const Params p) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // nvcc -arch=sm_90a also embeds compute_90 PTX, which has no wgmma/setmaxnreg.
  __trap();
#else
  using C = Cfg<BM, BN, ST, KIND, EPI, PROMO, CL>;
  constexpr int W = C::W, NA = C::NA;
  extern __shared__ uint8_t smemRaw[];
  const uint32_t raw = smemAddr(smemRaw);
  const uint32_t sA = (raw + 1023) & ~1023u; // 128B swizzle wants 1024-byte aligned tiles
  const uint32_t sB = sA + ST * C::kA;
  const uint32_t sEpi = sB + ST * C::kB;
  const uint32_t sSc = sEpi + C::kEpi;
  const uint32_t sBar = sSc + ST * C::kScStride; // full[ST], then empty[ST]
  uint8_t *const gsSc = smemRaw + (sSc - raw);
  auto full = [&](int s) { return sBar + 8 * s; };
  auto empty = [&](int s) { return sBar + 8 * (ST + s); };

  const int kIters = (p.K + kBK - 1) / kBK;
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < ST; ++s) {
      mbarInit(full(s), 1);
      mbarInit(empty(s), 8 * CL); // one arrive per consumer warp of every CTA that fills it
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)&tmA) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)&tmB) : "memory");
  }
  if constexpr (CL == 2)
    clusterSync(); // the peer's barriers are initialized before anyone multicasts or arrives
  else
    __syncthreads();

  // Scheduler. With clusters of 2 along M, a cluster takes a pair of tile
  // rows with the same tile column (rank r: tile row 2i + r); both CTAs walk
  // the same pairs, so their stage counts match.
  Params q = p;
  if constexpr (CL == 2) {
    q.tilesM = (p.tilesM + 1) / 2;
    q.numTiles = q.tilesM * p.tilesN;
  }
  const uint32_t rank = CL == 2 ? clusterRank() : 0;
  const int firstTile = blockIdx.x / CL, tileStride = gridDim.x / CL;
  auto coords = [&](int tile, int &m0, int &n0) {
    int mt, nt;
    tileCoords(q, tile, mt, nt);
    m0 = (mt * CL + (int)rank) * BM;
    n0 = nt * BN;
  };

  if (wg == 0) {
    // ------------------------------------------------------------ producer
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(C::kProducerRegs));
    if (tid == 0) {
      uint32_t it = 0;
      for (int tile = firstTile; tile < q.numTiles; tile += tileStride) {
        int m0, n0;
        coords(tile, m0, n0);
        for (int kb = 0; kb < kIters; ++kb, ++it) {
          const int s = it % ST;
          mbarWait(empty(s), ((it / ST) & 1) ^ 1);
          mbarExpectTx(full(s), C::kA + C::kB + C::kSc);
          tmaLoad(sA + s * C::kA, &tmA, full(s), kb * kBK, m0);
          if constexpr (CL == 2) // each CTA loads half of B into both
            tmaLoadMc(sB + s * C::kB + rank * (BN / 2) * kBK, &tmB, full(s), kb * kBK,
                      n0 + (int)rank * (BN / 2), 0x3);
          else
            tmaLoad(sB + s * C::kB, &tmB, full(s), kb * kBK, n0);
          if constexpr (KIND == kMx) {
            tmaLoad(sSc + s * C::kScStride, &tmSA, full(s), m0, kb * 4);
            tmaLoad(sSc + s * C::kScStride + 4 * BM, &tmSB, full(s), n0, kb * 4);
          }
        }
      }
    }
    if constexpr (CL == 2)
      clusterSync(); // the peer may still arrive on this CTA's barriers
    return;
  }

  // -------------------------------------------------------------- consumers
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(C::kConsumerRegs));
  const int cw = wg - 1, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  float acc[W][NA];
  const int kScales = (p.K + 127) / 128; // block-scale columns
  uint32_t it = 0;
  auto rowOf = [&](int w) { return (w * 2 + cw) * 64 + 16 * warp + g; }; // + 8 for d[4c+2,3]
  auto descA = [&](int s, int w, int kk) {
    return smemDesc(sA + s * C::kA + (w * 2 + cw) * 64 * kBK + kk * 32);
  };
  auto descB = [&](int s, int kk) { return smemDesc(sB + s * C::kB + kk * 32); };

  // The scales of one promotion unit (a stage, or a k32 step for mx).
  struct Sc {
    float a0[W], a1[W], b[3]; // block: rows g, g+8 of each wave; up to 3 128-column blocks
    int s, kk;                // mx: the stage and k32 step whose scales sit in shared memory
  };
  auto loadBlockScales = [&](Sc &sc, int m0, int n0, int kb) {
    if constexpr (KIND == kBlock) {
#pragma unroll
      for (int w = 0; w < W; ++w) {
        int r = m0 + rowOf(w);
        sc.a0[w] = r < p.M ? __ldg(p.sa + (size_t)r * kScales + kb) : 0.f;
        sc.a1[w] = r + 8 < p.M ? __ldg(p.sa + (size_t)(r + 8) * kScales + kb) : 0.f;
      }
      const int nbLast = (p.N - 1) / 128, nb0 = n0 / 128;
#pragma unroll
      for (int j = 0; j < 3; ++j)
        sc.b[j] = __ldg(p.sb + (size_t)min(nb0 + j, nbLast) * kScales + kb);
    }
  };
  // acc[w] += scale * partial: block acc += sa*sb*P; mx acc += 2^ea * 2^eb * P;
  // tensor/row (promoted forms) acc += P (their scales stay in the epilogue).
  auto promote = [&](float(&acc_)[NA], const float(&P)[NA], const Sc &sc, int w, int n0) {
    if constexpr (KIND == kBlock) {
      const int nOff = BN % 128 == 0 ? 0 : n0 % 128;
#pragma unroll
      for (int c = 0; c < NA / 4; ++c) {
        const int j = (nOff + 8 * c) / 128;
        const float b = j == 0 ? sc.b[0] : j == 1 ? sc.b[1] : sc.b[2];
        const float s0 = sc.a0[w] * b, s1 = sc.a1[w] * b;
        acc_[4 * c + 0] = fmaf(s0, P[4 * c + 0], acc_[4 * c + 0]);
        acc_[4 * c + 1] = fmaf(s0, P[4 * c + 1], acc_[4 * c + 1]);
        acc_[4 * c + 2] = fmaf(s1, P[4 * c + 2], acc_[4 * c + 2]);
        acc_[4 * c + 3] = fmaf(s1, P[4 * c + 3], acc_[4 * c + 3]);
      }
    } else if constexpr (KIND == kMx) {
      const uint8_t *scA = gsSc + sc.s * C::kScStride, *scB = scA + 4 * BM;
      const int rl = rowOf(w);
      const float fa0 = e8m0ToF32(scA[sc.kk * BM + rl]), fa1 = e8m0ToF32(scA[sc.kk * BM + rl + 8]);
#pragma unroll
      for (int c = 0; c < NA / 4; ++c) {
        const uint32_t eb = *reinterpret_cast<const uint16_t *>(scB + sc.kk * C::BNp + 8 * c + 2 * t);
        const float fb0 = e8m0ToF32(eb & 0xFF), fb1 = e8m0ToF32(eb >> 8);
        acc_[4 * c + 0] = fmaf(fa0 * fb0, P[4 * c + 0], acc_[4 * c + 0]);
        acc_[4 * c + 1] = fmaf(fa0 * fb1, P[4 * c + 1], acc_[4 * c + 1]);
        acc_[4 * c + 2] = fmaf(fa1 * fb0, P[4 * c + 2], acc_[4 * c + 2]);
        acc_[4 * c + 3] = fmaf(fa1 * fb1, P[4 * c + 3], acc_[4 * c + 3]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < NA; ++i)
        acc_[i] += P[i];
    }
  };
  // One promotion unit: KKU k32 wgmmas of stage s from k32 step kk0 into P.
  auto issue = [&](float(&P)[NA], int s, int w, int kk0, int nk) {
    fenceRegs(P);
    wgmmaFence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      if (kk < nk)
        Wgmma<BN>::mma(P, descA(s, w, kk0 + kk), descB(s, kk0 + kk), kk > 0);
    wgmmaCommit();
    fenceRegs(P);
  };
  constexpr int UPS = KIND == kMx ? 4 : 1; // promotion units a stage
  constexpr int KKU = 4 / UPS;             // k32 steps a unit

  // Frees a stage slot: in every CTA whose producer fills it.
  auto release = [&](int s) {
    if constexpr (CL == 2) {
      mbarArriveCluster(empty(s), 0);
      mbarArriveCluster(empty(s), 1);
    } else {
      mbarArrive(empty(s));
    }
  };

  for (int tile = firstTile; tile < q.numTiles; tile += tileStride) {
    int m0, n0;
    coords(tile, m0, n0);
#pragma unroll
    for (int w = 0; w < W; ++w)
#pragma unroll
      for (int i = 0; i < NA; ++i)
        acc[w][i] = 0.f;

    if constexpr (C::kMode == 0) {
      // Fast accumulation: all of K in the wgmma accumulators, one stage's
      // group in flight (tensor and row only).
      for (int kb = 0; kb < kIters; ++kb, ++it) {
        const int s = it % ST;
        mbarWait(full(s), (it / ST) & 1);
#pragma unroll
        for (int w = 0; w < W; ++w)
          fenceRegs(acc[w]);
        wgmmaFence();
#pragma unroll
        for (int w = 0; w < W; ++w)
#pragma unroll
          for (int kk = 0; kk < kBK / 32; ++kk)
            Wgmma<BN>::mma(acc[w], descA(s, w, kk), descB(s, kk), 1);
        wgmmaCommit();
#pragma unroll
        for (int w = 0; w < W; ++w)
          fenceRegs(acc[w]);
        wgmmaWait<1>(); // the previous stage's wgmmas are done: release its slot
        if (kb > 0 && lane == 0)
          release((it + ST - 1) % ST);
      }
      wgmmaWait<0>();
      if (lane == 0)
        release((it + ST - 1) % ST);
    } else if constexpr (C::kMode == 1) {
      // Promotion after wait_group 0 (DeepGEMM's form): the tensor core idles
      // in this warpgroup while it promotes; the other warpgroup fills it.
      float P[NA];
      for (int kb = 0; kb < kIters; ++kb, ++it) {
        const int s = it % ST;
        Sc sc;
        sc.s = s;
        loadBlockScales(sc, m0, n0, kb); // before the wait: the latency hides behind it
        mbarWait(full(s), (it / ST) & 1);
#pragma unroll
        for (int u = 0; u < UPS; ++u) {
          sc.kk = u * KKU;
#pragma unroll
          for (int w = 0; w < W; ++w) {
            issue(P, s, w, u * KKU, KKU);
            wgmmaWait<0>();
            promote(acc[w], P, sc, w, n0);
          }
        }
        if (lane == 0)
          release(s); // after the last read of the stage (mx scales)
      }
    } else {
      // Promotion overlapped with the next unit's wgmmas: two partial sets,
      // one group in flight (W == 1 only; acc + 2 partials in registers).
      // ptxas 13.0 serializes the wgmmas of this form (advisory C7514: "non
      // wgmma instructions reading accumulator registers of a wgmma between
      // start and end of the pipeline stage"), even in a minimal kernel; it
      // is kept to measure what that costs against mode 1.
      float P[2][NA];
      Sc sc[2];
      const uint32_t it0 = it;
      const int U = kIters * UPS;
      auto body = [&](auto parC, int u) {
        constexpr int par = decltype(parC)::value;
        const uint32_t itu = it0 + u / UPS;
        const int s = itu % ST, kk0 = (u % UPS) * KKU;
        sc[par].s = s;
        sc[par].kk = kk0;
        if (kk0 == 0) {
          loadBlockScales(sc[par], m0, n0, u / UPS);
          mbarWait(full(s), (itu / ST) & 1);
        }
        issue(P[par], s, 0, kk0, KKU);
        if (u > 0) {
          wgmmaWait<1>(); // unit u-1 is done
          promote(acc[0], P[1 - par], sc[1 - par], 0, n0);
          if ((u - 1) % UPS == UPS - 1 && lane == 0)
            release(sc[1 - par].s);
        }
      };
      for (int u = 0; u < U; u += 2) {
        body(std::integral_constant<int, 0>(), u);
        if (u + 1 < U)
          body(std::integral_constant<int, 1>(), u + 1);
      }
      wgmmaWait<0>();
      const int par = (U - 1) % 2;
      if (par == 0)
        promote(acc[0], P[0], sc[0], 0, n0);
      else
        promote(acc[0], P[1], sc[1], 0, n0);
      if (lane == 0)
        release(par == 0 ? sc[0].s : sc[1].s); // (no runtime index: keeps sc in registers)
      it = it0 + kIters;
    }

    // ------------------------------------------------------------ epilogue
    float ts = 1.f;
    if constexpr (KIND == kTensor)
      ts = __ldg(p.sa) * __ldg(p.sb);
    if constexpr (EPI == 1) {
      // The previous tile's TMA store must have read the staging tile.
      if (tid == 0)
        tmaStoreWaitRead();
      namedBarrier(1 + cw, 128);
    }
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const int rl = rowOf(w), r0 = m0 + rl, r1 = r0 + 8;
      float ra0 = ts, ra1 = ts;
      if constexpr (KIND == kRow) {
        ra0 = r0 < p.M ? __ldg(p.sa + r0) : 0.f;
        ra1 = r1 < p.M ? __ldg(p.sa + r1) : 0.f;
      }
#pragma unroll
      for (int c = 0; c < NA / 4; ++c) {
        const int cl = 8 * c + 2 * t, col = n0 + cl;
        float b0 = 1.f, b1 = 1.f;
        if constexpr (KIND == kRow) {
          b0 = col < p.N ? __ldg(p.sb + col) : 0.f;
          b1 = col + 1 < p.N ? __ldg(p.sb + col + 1) : 0.f;
        }
        const float v0 = acc[w][4 * c + 0] * (ra0 * b0), v1 = acc[w][4 * c + 1] * (ra0 * b1);
        const float v2 = acc[w][4 * c + 2] * (ra1 * b0), v3 = acc[w][4 * c + 3] * (ra1 * b1);
        if constexpr (EPI == 1) {
          // 64-column boxes of 64 rows x 128 bytes, 16-byte chunks XOR (row % 8).
          const uint32_t box = sEpi + (w * 2 + cw) * 64 * BN * 2 + (cl / 64) * 8192;
          const int lr = 16 * warp + g, ch = (cl % 64) / 8;
          __nv_bfloat162 h0 = __floats2bfloat162_rn(v0, v1), h1 = __floats2bfloat162_rn(v2, v3);
          asm volatile("st.shared.b32 [%0], %1;" ::"r"(box + lr * 128 + ((ch ^ (lr & 7)) * 16) + 4 * t),
                       "r"(*reinterpret_cast<uint32_t *>(&h0)));
          asm volatile("st.shared.b32 [%0], %1;" ::"r"(box + (lr + 8) * 128 +
                                                      ((ch ^ ((lr + 8) & 7)) * 16) + 4 * t),
                       "r"(*reinterpret_cast<uint32_t *>(&h1)));
        } else if constexpr (EPI == 0) {
          __nv_bfloat16 *o = static_cast<__nv_bfloat16 *>(p.out);
          const bool pair = col + 1 < p.N && (p.N % 2 == 0);
          if (r0 < p.M) {
            if (pair)
              *reinterpret_cast<__nv_bfloat162 *>(o + (size_t)r0 * p.N + col) =
                  __floats2bfloat162_rn(v0, v1);
            else if (col < p.N) {
              o[(size_t)r0 * p.N + col] = __float2bfloat16_rn(v0);
              if (col + 1 < p.N)
                o[(size_t)r0 * p.N + col + 1] = __float2bfloat16_rn(v1);
            }
          }
          if (r1 < p.M) {
            if (pair)
              *reinterpret_cast<__nv_bfloat162 *>(o + (size_t)r1 * p.N + col) =
                  __floats2bfloat162_rn(v2, v3);
            else if (col < p.N) {
              o[(size_t)r1 * p.N + col] = __float2bfloat16_rn(v2);
              if (col + 1 < p.N)
                o[(size_t)r1 * p.N + col + 1] = __float2bfloat16_rn(v3);
            }
          }
        } else {
          float *o = static_cast<float *>(p.out);
          if (r0 < p.M && col < p.N)
            o[(size_t)r0 * p.N + col] = v0;
          if (r0 < p.M && col + 1 < p.N)
            o[(size_t)r0 * p.N + col + 1] = v1;
          if (r1 < p.M && col < p.N)
            o[(size_t)r1 * p.N + col] = v2;
          if (r1 < p.M && col + 1 < p.N)
            o[(size_t)r1 * p.N + col + 1] = v3;
        }
      }
    }
    if constexpr (EPI == 1) {
      fenceProxyAsync(); // generic-proxy smem writes -> visible to the TMA store
      namedBarrier(1 + cw, 128);
      if (tid == 0) {
#pragma unroll
        for (int w = 0; w < W; ++w)
#pragma unroll
          for (int b = 0; b < BN / 64; ++b)
            tmaStore(&tmOut, sEpi + (w * 2 + cw) * 64 * BN * 2 + b * 8192, n0 + 64 * b,
                     m0 + (w * 2 + cw) * 64);
        tmaStoreCommit();
      }
    }
  }
  if constexpr (EPI == 1)
    if (tid == 0)
      tmaStoreWaitAll();
  if constexpr (CL == 2)
    clusterSync();
#endif
}

// ------------------------------------------------------------ reference, data

__host__ __device__ inline uint32_t hash32(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (uint32_t)x;
}

// Random e4m3 codes over the whole range, NaN codes (0x7F, 0xFF) avoided.
__global__ void initFp8(uint8_t *p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint8_t c = hash32(i * 0x9E3779B97F4A7C15ull + seed) & 0xFF;
    if ((c & 0x7F) == 0x7F)
      c &= 0xFE;
    p[i] = c;
  }
}
// fp32 scales in [0.5, 2) * base.
__global__ void initScales(float *p, size_t n, uint64_t seed, float base) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = base * (0.5f + 1.5f * (hash32(i + seed) % 4096) / 4096.f);
}
// E8M0 scales 2^(-12..-4), written row-major [R][KB] and K-block-major [KB][Rp].
__global__ void initE8m0(uint8_t *rowMajor, uint8_t *kMajor, int R, int KB, int Rp, uint64_t seed) {
  size_t n = (size_t)R * KB;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint8_t e = 127 - 12 + hash32(i + seed) % 9;
    int r = i / KB, kb = i % KB;
    rowMajor[i] = e;
    kMajor[(size_t)kb * Rp + r] = e;
  }
}

// The scale of element (r, k) of A (isA) or B in each kind; the dequantized
// value is fp8(code) * scale.
template <int KIND>
__device__ inline float refScale(const void *s, bool isA, int r, int k, int K) {
  const float *f = static_cast<const float *>(s);
  if (KIND == kTensor)
    return f[0];
  if (KIND == kRow)
    return f[r];
  if (KIND == kBlock) {
    int kbs = (K + 127) / 128;
    return isA ? f[(size_t)r * kbs + k / 128] : f[(size_t)(r / 128) * kbs + k / 128];
  }
  const uint8_t *e = static_cast<const uint8_t *>(s);
  return exp2f((float)e[(size_t)r * (K / 32) + k / 32] - 127.f);
}
__device__ inline float fp8ToF32(uint8_t c) {
  __nv_fp8_e4m3 v;
  v.__x = c;
  return float(v);
}

// Plain fp32 GEMM of the dequantized operands, 16x16 shared-memory tiles.
template <int KIND>
__global__ void refGemm(const uint8_t *A, const uint8_t *B, const void *sa, const void *sb, float *out,
                        int M, int N, int K) {
  __shared__ float As[16][17], Bs[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m = blockIdx.y * 16 + ty, n = blockIdx.x * 16 + tx, nb = blockIdx.x * 16 + ty;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    const int k = k0 + tx;
    As[ty][tx] = m < M && k < K ? fp8ToF32(A[(size_t)m * K + k]) * refScale<KIND>(sa, true, m, k, K) : 0.f;
    Bs[ty][tx] = nb < N && k < K ? fp8ToF32(B[(size_t)nb * K + k]) * refScale<KIND>(sb, false, nb, k, K) : 0.f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 16; ++kk)
      acc = fmaf(As[ty][kk], Bs[tx][kk], acc);
    __syncthreads();
  }
  if (m < M && n < N)
    out[(size_t)m * N + n] = acc;
}

// max |out - ref|, max |ref| (as ordered uint bits) and the NaN count.
__global__ void errKernel(const void *out, bool f32, const float *ref, size_t n, unsigned *res) {
  float e = 0.f, r = 0.f;
  unsigned nan = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float o = f32 ? static_cast<const float *>(out)[i] : __bfloat162float(static_cast<const __nv_bfloat16 *>(out)[i]);
    if (!isfinite(o))
      ++nan;
    e = fmaxf(e, fabsf(o - ref[i]));
    r = fmaxf(r, fabsf(ref[i]));
  }
  atomicMax(&res[0], __float_as_uint(e));
  atomicMax(&res[1], __float_as_uint(r));
  if (nan)
    atomicAdd(&res[2], nan);
}

// ------------------------------------------------------------------- host side

static CUtensorMap makeMap(const void *ptr, CUtensorMapDataType dt, uint64_t inner, uint64_t outer,
                           uint64_t rowBytes, uint32_t boxInner, uint32_t boxOuter,
                           CUtensorMapSwizzle sw) {
  CUtensorMap m;
  cuuint64_t dims[2] = {inner, outer};
  cuuint64_t strides[1] = {rowBytes};
  cuuint32_t box[2] = {boxInner, boxOuter};
  cuuint32_t es[2] = {1, 1};
  CU(cuTensorMapEncodeTiled(&m, dt, 2, const_cast<void *>(ptr), dims, strides, box, es,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return m;
}

struct Problem {
  int M, N, K;
  const uint8_t *A, *B;
  const void *sa, *sb;            // kernel-side scales (mx: K-block-major bytes)
  const uint8_t *saT, *sbT;       // mx
  void *out;
};

using LaunchFn = void (*)(const Problem &, int gm, int sms, cudaStream_t);

template <int BM, int BN, int ST, int KIND, int EPI, int PROMO, int CL>
static void launchGemm(const Problem &pr, int gm, int sms, cudaStream_t st) {
  using C = Cfg<BM, BN, ST, KIND, EPI, PROMO, CL>;
  auto kern = fp8Gemm<BM, BN, ST, KIND, EPI, PROMO, CL>;
  static int maxClusters = 0; // co-resident clusters of CL CTAs (GPCs may not fit sms / CL)
  if (!maxClusters) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmem));
    maxClusters = sms / CL;
    if (CL > 1) {
      CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      cudaLaunchConfig_t cfg = {};
      cudaLaunchAttribute at;
      at.id = cudaLaunchAttributeClusterDimension;
      at.val.clusterDim.x = CL;
      at.val.clusterDim.y = 1;
      at.val.clusterDim.z = 1;
      cfg.gridDim = dim3(CL * (sms / CL));
      cfg.blockDim = dim3(kThreads);
      cfg.dynamicSmemBytes = C::kSmem;
      cfg.attrs = &at;
      cfg.numAttrs = 1;
      int n = 0;
      CK(cudaOccupancyMaxActiveClusters(&n, kern, &cfg));
      if (n > 0)
        maxClusters = std::min(maxClusters, n);
    }
  }
  // Tensor maps are built per call here (host-only work, ~us); a library
  // caches them per (pointer, shape).
  CUtensorMap tA = makeMap(pr.A, CU_TENSOR_MAP_DATA_TYPE_UINT8, pr.K, pr.M, pr.K, kBK, BM,
                           CU_TENSOR_MAP_SWIZZLE_128B);
  CUtensorMap tB = makeMap(pr.B, CU_TENSOR_MAP_DATA_TYPE_UINT8, pr.K, pr.N, pr.K, kBK, BN / CL,
                           CU_TENSOR_MAP_SWIZZLE_128B);
  CUtensorMap tSA = tA, tSB = tA, tOut = tA;
  if (KIND == kMx) {
    int Mp = (pr.M + 15) / 16 * 16, Np = (pr.N + 15) / 16 * 16;
    tSA = makeMap(pr.saT, CU_TENSOR_MAP_DATA_TYPE_UINT8, pr.M, pr.K / 32, Mp, BM, 4,
                  CU_TENSOR_MAP_SWIZZLE_NONE);
    tSB = makeMap(pr.sbT, CU_TENSOR_MAP_DATA_TYPE_UINT8, pr.N, pr.K / 32, Np, C::BNp, 4,
                  CU_TENSOR_MAP_SWIZZLE_NONE);
  }
  if (EPI == 1)
    tOut = makeMap(pr.out, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, pr.N, pr.M, (uint64_t)pr.N * 2, 64, 64,
                   CU_TENSOR_MAP_SWIZZLE_128B);
  Params p;
  p.M = pr.M;
  p.N = pr.N;
  p.K = pr.K;
  p.tilesM = (pr.M + BM - 1) / BM;
  p.tilesN = (pr.N + BN - 1) / BN;
  p.numTiles = p.tilesM * p.tilesN;
  p.groupM = gm;
  p.sa = static_cast<const float *>(pr.sa);
  p.sb = static_cast<const float *>(pr.sb);
  p.out = pr.out;
  if constexpr (CL == 1) {
    int grid = std::min(maxClusters, p.numTiles);
    kern<<<grid, kThreads, C::kSmem, st>>>(tA, tB, tSA, tSB, tOut, p);
  } else {
    int pairs = (p.tilesM + 1) / 2 * p.tilesN;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at;
    at.id = cudaLaunchAttributeClusterDimension;
    at.val.clusterDim.x = CL;
    at.val.clusterDim.y = 1;
    at.val.clusterDim.z = 1;
    cfg.gridDim = dim3(CL * std::min(maxClusters, pairs));
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = C::kSmem;
    cfg.stream = st;
    cfg.attrs = &at;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, kern, tA, tB, tSA, tSB, tOut, p));
  }
}

// A kernel for each kind where it fits: shared memory (227 KB) and the
// accumulator plus partial sets in registers (<= 192 of the 232); none where
// the kernel would be the same as PROMO 0's (block/mx with PROMO 1).
template <int BM, int BN, int ST, int KIND, int EPI, int PROMO, int CL> constexpr LaunchFn pick() {
  constexpr bool promoted = KIND == kBlock || KIND == kMx;
  if constexpr ((promoted && PROMO == 1) || (PROMO == 2 && BM != 128))
    return nullptr;
  else {
    using C = Cfg<BM, BN, ST, KIND, EPI, PROMO, CL>;
    if constexpr (C::kSmem > 232448 || C::kAccRegs > 192)
      return nullptr;
    else
      return &launchGemm<BM, BN, ST, KIND, EPI, PROMO, CL>;
  }
}

struct Variant {
  const char *name, *what;
  bool check; // fp32 output: a correctness check (<= 1e-3), not timed
  LaunchFn fn[4];
};
#define VARIANT(name, what, BM, BN, ST, EPI, PROMO, CL)                                         \
  {                                                                                             \
    name, what, EPI == 2, {                                                                     \
      pick<BM, BN, ST, kTensor, EPI, PROMO, CL>(), pick<BM, BN, ST, kRow, EPI, PROMO, CL>(),    \
          pick<BM, BN, ST, kBlock, EPI, PROMO, CL>(), pick<BM, BN, ST, kMx, EPI, PROMO, CL>()   \
    }                                                                                           \
  }
// Name: BMxBN_sSTAGES, then t = TMA-store epilogue (else st.global), f = fp32
// output (check only), _p1 / _p2 = promotion mode (see Cfg::kMode; without
// it tensor/row accumulate all of K in the wgmma accumulators and block/mx
// promote after wait_group 0), _c2 = clusters of 2 with B multicast.
static const Variant kVariants[] = {
    VARIANT("128x128_s6f", "fp32 out check, fast accum (tensor/row), wait0 promotion (block/mx)", 128, 128, 6, 2, 0, 1),
    VARIANT("128x128_s6f_p1", "fp32 out check, tensor/row promoted every 128 K after wait0", 128, 128, 6, 2, 1, 1),
    VARIANT("128x128_s6f_p2", "fp32 out check, overlapped promotion (all kinds)", 128, 128, 6, 2, 2, 1),
    VARIANT("128x128_s6", "BM128 BN128 6 stages, st.global epilogue", 128, 128, 6, 0, 0, 1),
    VARIANT("128x128_s5t", "BM128 BN128 5 stages, TMA-store epilogue", 128, 128, 5, 1, 0, 1),
    VARIANT("128x128_s6_p1", "as 128x128_s6, tensor/row promoted every 128 K (wait0)", 128, 128, 6, 0, 1, 1),
    VARIANT("128x128_s6_p2", "as 128x128_s6, overlapped promotion (2 partial sets)", 128, 128, 6, 0, 2, 1),
    VARIANT("128x256_s4", "BM128 BN256 4 stages, st.global", 128, 256, 4, 0, 0, 1),
    VARIANT("128x256_s3t", "BM128 BN256 3 stages, TMA store", 128, 256, 3, 1, 0, 1),
    VARIANT("256x128_s4", "BM256 (2 waves a warpgroup) BN128 4 stages, st.global", 256, 128, 4, 0, 0, 1),
    VARIANT("256x128_s3t", "BM256 BN128 3 stages, TMA store", 256, 128, 3, 1, 0, 1),
    VARIANT("128x192_s5", "BM128 BN192 5 stages, st.global", 128, 192, 5, 0, 0, 1),
    VARIANT("128x192_s4t", "BM128 BN192 4 stages, TMA store", 128, 192, 4, 1, 0, 1),
    VARIANT("128x112_s7", "BM128 BN112 7 stages, st.global (N tiles that fill SMs)", 128, 112, 7, 0, 0, 1),
    VARIANT("128x64_s8", "BM128 BN64 8 stages, st.global (skinny M)", 128, 64, 8, 0, 0, 1),
    // Clusters of 2 CTAs along M; each loads half of the shared B tile and
    // multicasts it to both (the last in the list: a new barrier protocol).
    VARIANT("128x128_s6f_c2", "fp32 out check, cluster 2 multicast B", 128, 128, 6, 2, 0, 2),
    VARIANT("128x128_s6_c2", "as 128x128_s6, cluster 2 along M, B multicast", 128, 128, 6, 0, 0, 2),
    VARIANT("128x256_s4_c2", "as 128x256_s4, cluster 2 along M, B multicast", 128, 256, 4, 0, 0, 2),
    VARIANT("256x128_s4_c2", "as 256x128_s4, cluster 2 along M, B multicast", 256, 128, 4, 0, 0, 2),
};

// cuBLASLt fp8 peer: D[M,N] (row-major) = A * B^T computed column-major as
// D^T[N,M] = op(B_l)... i.e. the standard TN call with m = N, n = M.
struct LtPeer {
  cublasLtHandle_t h = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulAlgo_t algo;
  void *ws = nullptr;
  size_t wsBytes = 64ull << 20;
  bool ok = false;
  const void *A, *B;
  void *D;
  // mode: CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F (tensorwise) or OUTER_VEC_32F (rowwise)
  bool init(int M, int N, int K, const uint8_t *dA, const uint8_t *dB, const float *sa,
            const float *sb, void *dD, int mode, bool fastAccum = false) {
    A = dA;
    B = dB;
    D = dD;
    CB(cublasLtCreate(&h));
    CK(cudaMalloc(&ws, wsBytes));
    CB(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
    int8_t fa = fastAccum; // off is torch._scaled_mm's default (use_fast_accum=False)
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fa, sizeof(fa)));
    // cuBLAS's A is our B (N x K), its B is our A.
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sb, sizeof(sb)));
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sa, sizeof(sa)));
    if (mode != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F) {
      if (cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof(mode)) ||
          cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof(mode)))
        return false;
    }
    CB(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, N, K));
    CB(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, M, K));
    CB(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N));
    cublasLtMatmulPreference_t pref;
    CB(cublasLtMatmulPreferenceCreate(&pref));
    CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes,
                                            sizeof(wsBytes)));
    cublasLtMatmulHeuristicResult_t res;
    int n = 0;
    cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, lc, lc, pref, 1, &res, &n);
    cublasLtMatmulPreferenceDestroy(pref);
    if (s != CUBLAS_STATUS_SUCCESS || n == 0)
      return false;
    algo = res.algo;
    ok = true;
    return true;
  }
  void run(cudaStream_t st) {
    const float one = 1.f, zero = 0.f;
    CB(cublasLtMatmul(h, op, &one, B, la, A, lb, &zero, D, lc, D, lc, &algo, ws, wsBytes, st));
  }
  ~LtPeer() {
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (op) cublasLtMatmulDescDestroy(op);
    if (h) cublasLtDestroy(h);
    if (ws) cudaFree(ws);
  }
};

static cudaEvent_t gE0, gE1;

// Median GPU time (us) of one call, under a CUDA graph of `reps` calls.
template <class F> static float timeIt(F fn, cudaStream_t st, int iters) {
  for (int i = 0; i < 3; ++i)
    fn();
  CK(cudaEventRecord(gE0, st));
  fn();
  CK(cudaEventRecord(gE1, st));
  CK(cudaEventSynchronize(gE1));
  float one;
  CK(cudaEventElapsedTime(&one, gE0, gE1));
  int reps = iters > 0 ? iters : std::max(3, std::min(200, (int)(40.f / std::max(one, 1e-3f))));
  cudaGraph_t gr;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < reps; ++i)
    fn();
  CK(cudaStreamEndCapture(st, &gr));
  CK(cudaGraphInstantiate(&ge, gr, 0));
  CK(cudaGraphLaunch(ge, st));
  std::vector<float> t;
  for (int r = 0; r < 5; ++r) {
    CK(cudaEventRecord(gE0, st));
    CK(cudaGraphLaunch(ge, st));
    CK(cudaEventRecord(gE1, st));
    CK(cudaEventSynchronize(gE1));
    float ms;
    CK(cudaEventElapsedTime(&ms, gE0, gE1));
    t.push_back(ms * 1e3f / reps);
  }
  std::sort(t.begin(), t.end());
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(gr);
  CK(cudaGetLastError());
  return t[2];
}

// Normwise error max|out - ref| / max|ref|; NaN/Inf outputs make it +inf.
static double checkErr(const void *out, bool f32, const float *ref, size_t n, unsigned *dRes,
                       cudaStream_t st) {
  CK(cudaMemsetAsync(dRes, 0, 12, st));
  errKernel<<<1024, 256, 0, st>>>(out, f32, ref, n, dRes);
  unsigned h[3];
  CK(cudaMemcpyAsync(h, dRes, 12, cudaMemcpyDeviceToHost, st));
  CK(cudaStreamSynchronize(st));
  float e, r;
  memcpy(&e, &h[0], 4);
  memcpy(&r, &h[1], 4);
  if (h[2])
    return INFINITY;
  return r > 0 ? e / r : e;
}

static std::vector<std::string> split(const std::string &s, char c) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(c, b);
    if (e == std::string::npos)
      e = s.size();
    if (e > b)
      out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

int main(int argc, char **argv) {
  std::vector<std::string> variants, kinds = {"tensor", "row", "block", "mx"};
  std::vector<std::string> shapes = {"8192x8192x8192", "16384x8192x5120", "4096x7168x16384",
                                     "128x7168x16384", "1000x1000x1024", "1000x1000x1056"};
  int iters = 0, gm = 8;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", a.c_str());
        exit(2);
      }
      return argv[++i];
    };
    if (a == "--variants")
      variants = split(next(), ',');
    else if (a == "--kinds")
      kinds = split(next(), ',');
    else if (a == "--shapes")
      shapes = split(next(), ',');
    else if (a == "--iters")
      iters = atoi(next().c_str());
    else if (a == "--gm")
      gm = atoi(next().c_str());
    else if (a == "--list") {
      for (auto &v : kVariants) {
        printf("%-15s %-72s kinds:", v.name, v.what);
        for (int k = 0; k < 4; ++k)
          if (v.fn[k])
            printf(" %s", kKindNames[k]);
        printf("\n");
      }
      return 0;
    } else {
      fprintf(stderr, "unknown argument %s (see the file header)\n", a.c_str());
      return 2;
    }
  }
  if (variants.empty())
    for (auto &v : kVariants)
      variants.push_back(v.name);
  auto findVariant = [](const std::string &n) -> const Variant * {
    for (auto &v : kVariants)
      if (n == v.name)
        return &v;
    return nullptr;
  };
  for (auto &v : variants)
    if (!findVariant(v)) {
      fprintf(stderr, "unknown variant %s (--list)\n", v.c_str());
      return 2;
    }
  std::vector<int> kindIds;
  for (auto &k : kinds) {
    int id = -1;
    for (int j = 0; j < 4; ++j)
      if (k == kKindNames[j])
        id = j;
    if (id < 0) {
      fprintf(stderr, "unknown kind %s\n", k.c_str());
      return 2;
    }
    kindIds.push_back(id);
  }

  CK(cudaFree(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int clk = 0;
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  printf("device %s, %d SMs, max clock %d MHz, L2 %d MB; group M %d\n", prop.name, sms, clk / 1000,
         prop.l2CacheSize >> 20, gm);
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  CK(cudaEventCreate(&gE0));
  CK(cudaEventCreate(&gE1));
  unsigned *dRes;
  CK(cudaMalloc(&dRes, 16));
  bool allPass = true;

  printf("\n%-16s %-6s %-14s %9s %8s %7s %9s  %s\n", "MxNxK", "kind", "variant", "us", "TFLOP/s",
         "%cuBLAS", "err", "check");
  for (auto &shs : shapes) {
    int M, N, K;
    if (sscanf(shs.c_str(), "%dx%dx%d", &M, &N, &K) != 3 || M <= 0 || N <= 0 || K <= 0) {
      fprintf(stderr, "bad shape %s\n", shs.c_str());
      return 2;
    }
    if (K % 16) {
      printf("%-16s skipped: K must be a multiple of 16 (TMA row stride)\n", shs.c_str());
      continue;
    }
    const double flops = 2.0 * M * N * K;
    uint8_t *dA, *dB;
    CK(cudaMalloc(&dA, (size_t)M * K));
    CK(cudaMalloc(&dB, (size_t)N * K));
    initFp8<<<1024, 256, 0, st>>>(dA, (size_t)M * K, 11);
    initFp8<<<1024, 256, 0, st>>>(dB, (size_t)N * K, 22);
    float *dRef, *dOut32;
    __nv_bfloat16 *dOut;
    CK(cudaMalloc(&dRef, (size_t)M * N * 4));
    CK(cudaMalloc(&dOut32, (size_t)M * N * 4));
    CK(cudaMalloc(&dOut, (size_t)M * N * 2));
    const int kbs = (K + 127) / 128, Mp = (M + 15) / 16 * 16, Np = (N + 15) / 16 * 16;
    float *dSa, *dSb;
    uint8_t *dEa, *dEb, *dEaT, *dEbT;
    CK(cudaMalloc(&dSa, (size_t)std::max(M * kbs, 16) * 4));
    CK(cudaMalloc(&dSb, (size_t)std::max(N * kbs, 16) * 4));
    CK(cudaMalloc(&dEa, (size_t)M * (K / 32 + 1)));
    CK(cudaMalloc(&dEb, (size_t)N * (K / 32 + 1)));
    CK(cudaMalloc(&dEaT, (size_t)Mp * (K / 32 + 1)));
    CK(cudaMalloc(&dEbT, (size_t)Np * (K / 32 + 1)));

    // Same-run peers: cuBLASLt tensorwise without fast accumulation (the
    // denominator of %cuBLAS; torch._scaled_mm's default) and with it.
    initScales<<<1, 32, 0, st>>>(dSa, 1, 1, 1.f / 64);
    initScales<<<1, 32, 0, st>>>(dSb, 1, 2, 1.f / 64);
    refGemm<kTensor><<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, st>>>(dA, dB, dSa, dSb, dRef, M, N, K);
    float peerUs = 0;
    for (int fast = 0; fast < 2; ++fast) {
      LtPeer peer;
      const char *name = fast ? "cuBLASLt_fast" : "cuBLASLt";
      if (peer.init(M, N, K, dA, dB, dSa, dSb, dOut, CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F, fast)) {
        peer.run(st);
        double err = checkErr(dOut, false, dRef, (size_t)M * N, dRes, st);
        float us = timeIt([&] { peer.run(st); }, st, iters);
        if (!fast)
          peerUs = us;
        char pct[16] = "-";
        if (peerUs > 0)
          snprintf(pct, sizeof pct, "%.1f", 100.0 * peerUs / us);
        printf("%-16s %-6s %-14s %9.1f %8.1f %7s %9.2e  %s\n", shs.c_str(), "tensor", name, us,
               flops / us / 1e6, pct, err, err <= 1e-2 ? "PASS" : "FAIL");
      } else {
        printf("%-16s %-6s %-14s no algorithm\n", shs.c_str(), "tensor", name);
      }
    }

    for (int kind : kindIds) {
      if (kind == kMx && K % 32) {
        printf("%-16s %-6s skipped: K must be a multiple of 32 for MX\n", shs.c_str(), "mx");
        continue;
      }
      Problem pr{M, N, K, dA, dB, dSa, dSb, dEaT, dEbT, dOut};
      const void *refSa = dSa, *refSb = dSb;
      switch (kind) {
      case kTensor:
        initScales<<<1, 32, 0, st>>>(dSa, 1, 1, 1.f / 64);
        initScales<<<1, 32, 0, st>>>(dSb, 1, 2, 1.f / 64);
        break;
      case kRow:
        initScales<<<256, 256, 0, st>>>(dSa, M, 3, 1.f / 64);
        initScales<<<256, 256, 0, st>>>(dSb, N, 4, 1.f / 64);
        break;
      case kBlock:
        initScales<<<256, 256, 0, st>>>(dSa, (size_t)M * kbs, 5, 1.f / 64);
        initScales<<<256, 256, 0, st>>>(dSb, (size_t)((N + 127) / 128) * kbs, 6, 1.f / 64);
        break;
      case kMx:
        initE8m0<<<256, 256, 0, st>>>(dEa, dEaT, M, K / 32, Mp, 7);
        initE8m0<<<256, 256, 0, st>>>(dEb, dEbT, N, K / 32, Np, 8);
        refSa = dEa;
        refSb = dEb;
        break;
      }
      dim3 rg((N + 15) / 16, (M + 15) / 16), rb(16, 16);
      switch (kind) {
      case kTensor: refGemm<kTensor><<<rg, rb, 0, st>>>(dA, dB, refSa, refSb, dRef, M, N, K); break;
      case kRow: refGemm<kRow><<<rg, rb, 0, st>>>(dA, dB, refSa, refSb, dRef, M, N, K); break;
      case kBlock: refGemm<kBlock><<<rg, rb, 0, st>>>(dA, dB, refSa, refSb, dRef, M, N, K); break;
      case kMx: refGemm<kMx><<<rg, rb, 0, st>>>(dA, dB, refSa, refSb, dRef, M, N, K); break;
      }
      CK(cudaGetLastError());

      for (auto &vn : variants) {
        const Variant *v = findVariant(vn);
        if (!v->fn[kind]) {
          printf("%-16s %-6s %-14s n/a for this kind (no such mode, shared memory or registers)\n",
                 shs.c_str(), kKindNames[kind], v->name);
          continue;
        }
        if (v->check) {
          // fp32-output check (before any output cast): <= 1e-3.
          Problem p32 = pr;
          p32.out = dOut32;
          CK(cudaMemsetAsync(dOut32, 0xFF, (size_t)M * N * 4, st)); // NaN: unwritten outputs fail
          v->fn[kind](p32, gm, sms, st);
          CK(cudaGetLastError());
          double err = checkErr(dOut32, true, dRef, (size_t)M * N, dRes, st);
          bool pass = err <= 1e-3;
          allPass &= pass;
          printf("%-16s %-6s %-14s %9s %8s %7s %9.2e  %s (fp32 out, <= 1e-3)\n", shs.c_str(),
                 kKindNames[kind], v->name, "-", "-", "-", err, pass ? "PASS" : "FAIL");
          continue;
        }
        CK(cudaMemsetAsync(dOut, 0xFF, (size_t)M * N * 2, st));
        v->fn[kind](pr, gm, sms, st);
        CK(cudaGetLastError());
        double err = checkErr(dOut, false, dRef, (size_t)M * N, dRes, st);
        bool pass = err <= 1e-2;
        allPass &= pass;
        float us = timeIt([&] { v->fn[kind](pr, gm, sms, st); }, st, iters);
        char pct[16] = "-";
        if (peerUs > 0)
          snprintf(pct, sizeof pct, "%.1f", 100.0 * peerUs / us);
        printf("%-16s %-6s %-14s %9.1f %8.1f %7s %9.2e  %s\n", shs.c_str(), kKindNames[kind],
               v->name, us, flops / us / 1e6, pct, err, pass ? "PASS" : "FAIL");
      }
      // Rowwise peer, where this cuBLASLt has it on this GPU.
      if (kind == kRow) {
        LtPeer peer;
        if (peer.init(M, N, K, dA, dB, dSa, dSb, dOut, CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F)) {
          peer.run(st);
          double err = checkErr(dOut, false, dRef, (size_t)M * N, dRes, st);
          float us = timeIt([&] { peer.run(st); }, st, iters);
          printf("%-16s %-6s %-14s %9.1f %8.1f %7.1f %9.2e  %s\n", shs.c_str(), "row", "cuBLASLt",
                 us, flops / us / 1e6, 100.0 * peerUs / us, err, err <= 1e-2 ? "PASS" : "FAIL");
        } else {
          printf("%-16s %-6s %-14s not supported here (OUTER_VEC_32F)\n", shs.c_str(), "row",
                 "cuBLASLt");
        }
      }
      fflush(stdout);
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dRef);
    cudaFree(dOut32);
    cudaFree(dOut);
    cudaFree(dSa);
    cudaFree(dSb);
    cudaFree(dEa);
    cudaFree(dEb);
    cudaFree(dEaT);
    cudaFree(dEbT);
  }
  printf("\n%s\n", allPass ? "ALL PASS" : "SOME FAIL");
  return allPass ? 0 : 1;
}
