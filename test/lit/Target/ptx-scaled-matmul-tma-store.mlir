// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_90a --emit ptx -o %t/ts.ptx
// RUN: FileCheck %s < %t/ts.ptx
// RUN: %ptxas -arch=sm_90a -v %t/ts.ptx -o %t/ts.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The TMA-store epilogue of the sm_90a fp8 GEMMs in PTX (kernels gemm0 and
// gemm2 of a function; gemm1 and gemm3 keep the masked st.global one for a
// C whose rows are not a multiple of 16 bytes): C's tensor map is a third
// by-value 128-byte parameter; thread 0 of each consumer warpgroup waits
// until the previous tile's bulk stores have read the staging tile
// (wait_group.read), the warpgroup meets at its named barrier (128
// threads), bf16 results go in as pairs (cvt.rn.bf16x2) with stmatrix x4
// (f32 ones with st.shared.v2), the writes are fenced to the async proxy,
// and one thread stores the 64-row boxes with cp.async.bulk.tensor (C
// clipped by TMA) and commits them; before exit it waits for all of them.
// No st.global of C in those kernels (the 128x128 kernels' st.global.v4
// are split-K's partial sums: the workspace, an atomic counter, membar.gl,
// the sums read back through L2, and the last unit's `st.global.b32 [..], 0`
// that resets its counter; the 128x192 ones do not split). A store of C
// stores a register.

// CHECK-LABEL: .visible .entry tw_bf16_fp8_gemm0(
// CHECK: .param .align 64 .b8 tw_bf16_fp8_gemm0_param_2[128]
// CHECK-NOT: st.global.b{{[0-9]+}} [{{[^]]+}}], %
// CHECK-NOT: st.global.v2
// CHECK-DAG: cp.async.bulk.wait_group.read 0;
// CHECK-DAG: bar.sync %r{{[0-9]+}}, 128;
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-DAG: fence.proxy.async.shared::cta;
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];
// CHECK-DAG: cp.async.bulk.commit_group;
// CHECK-DAG: cp.async.bulk.wait_group 0;
// CHECK-DAG: st.global.v4.b32
// CHECK-DAG: membar.gl;
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: ld.global.cg.v4.f32
// CHECK-NOT: st.global.b{{[0-9]+}} [{{[^]]+}}], %
// CHECK-NOT: st.global.v2
// CHECK-LABEL: .visible .entry tw_bf16_fp8_gemm1(
// CHECK-NOT: stmatrix
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK: st.global.b32
// CHECK-LABEL: .visible .entry tw_bf16_fp8_gemm2(
// CHECK-NOT: atom.global
// CHECK-NOT: st.global.v4
// CHECK-NOT: st.global.b{{[0-9]+}} [{{[^]]+}}], %
// CHECK-NOT: st.global.v2
// CHECK: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// CHECK-NOT: st.global.b{{[0-9]+}} [{{[^]]+}}], %
// CHECK-NOT: st.global.v2
// CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: st.global.b{{[0-9]+}} [{{[^]]+}}], %
// CHECK-NOT: st.global.v2
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NOT: st.global.b{{[0-9]+}} [{{[^]]+}}], %
// CHECK-NOT: st.global.v2
// CHECK-LABEL: .visible .entry tw_bf16_fp8_gemm3(
// CHECK: st.global.b32

// f32 out with row scales and a bf16 bias: 8-byte shared stores, no stmatrix.
// CHECK-LABEL: .visible .entry rw_bias_f32_fp8_gemm0(
// CHECK: .param .align 64 .b8 rw_bias_f32_fp8_gemm0_param_2[128]
// CHECK-NOT: stmatrix
// CHECK-NOT: st.global.b{{[0-9]+}} [{{[^]]+}}], %
// CHECK-NOT: st.global.v2
// CHECK-DAG: st.shared.v2.b32
// CHECK-DAG: fence.proxy.async.shared::cta;
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NOT: stmatrix
// CHECK-NOT: st.global.b{{[0-9]+}} [{{[^]]+}}], %
// CHECK-NOT: st.global.v2
// CHECK-LABEL: .visible .entry rw_bias_f32_fp8_gemm1(
// CHECK: st.global.v2.b32

// Eight kernels, none spilling.
// PTXAS-NOT: error
// PTXAS-COUNT-8: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: error

func.func @tw_bf16(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

func.func @rw_bias_f32(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x1xf32>, %bias: tensor<?xbf16>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x1xf32>) bias(%bias : tensor<?xbf16>) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
