// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_90a --emit ptx -o %t/bw.ptx
// RUN: FileCheck %s < %t/bw.ptx
// RUN: %ptxas -arch=sm_90a -v %t/bw.ptx -o %t/bw.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The sm_90a PTX of the blockwise FP8 GEMMs (1x128 x 128x128 and 1x128 x
// 1x128) assembles, without spills: the scale warp's global loads land in
// shared memory, each stage's full barrier counts its 32 lanes (33
// arrivals), the consumers read the scales from shared memory (a column
// pair with one ld.shared.v2 for 1x128 B scales) and promote with fma.
// Four kernels a function: 128x128 (split-K) and 128x192 tiles, each with the
// TMA-store epilogue (gemm0, gemm2) and the st.global one (gemm1, gemm3).

// (Block order within a kernel is the backend's: CHECK-DAG.)
// CHECK-LABEL: .visible .entry bw_128x128_fp8_gemm0(
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: ld.shared.b32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: wgmma.wait_group.sync.aligned 0
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: mbarrier.arrive.shared.b64
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: mbarrier.arrive.expect_tx.shared.b64
// CHECK-DAG: ld.global.b32
// CHECK-DAG: st.shared.b32
// CHECK-DAG: mbarrier.arrive.shared.b64
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-LABEL: .visible .entry bw_128x128_fp8_gemm1(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .visible .entry bw_128x128_fp8_gemm2(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-LABEL: .visible .entry bw_128x128_fp8_gemm3(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// CHECK-LABEL: .visible .entry bw_1x128_fp8_gemm0(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2
// CHECK-DAG: ld.shared.v2.b32
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: st.shared.v2.b32
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-LABEL: .visible .entry bw_1x128_fp8_gemm1(
// CHECK-DAG: ld.shared.v2.b32
// CHECK-DAG: st.global.v2.b32
// CHECK-LABEL: .visible .entry bw_1x128_fp8_gemm2(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e5m2
// CHECK-DAG: ld.shared.v2.b32
// CHECK-DAG: fma.rn.f32
// CHECK-LABEL: .visible .entry bw_1x128_fp8_gemm3(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e5m2

// PTXAS-NOT: error
// PTXAS-COUNT-8: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: error

func.func @bw_128x128(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

func.func @bw_1x128(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf32>, %b: tensor<?x?xf8E5M2>, %sb: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf32>), %b : tensor<?x?xf8E5M2> scales(%sb : tensor<?x?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
