// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_90a --emit ptx -o %t/mx.ptx
// RUN: FileCheck %s < %t/mx.ptx
// RUN: %ptxas -arch=sm_90a -v %t/mx.ptx -o %t/mx.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The sm_90a PTX of the MXFP8 x MXFP8 GEMM (one kernel a function: the
// 128x128 tile with the st.global epilogue) assembles without spills and
// without ptxas serializing the wgmmas: the scale warp's 32-bit (aligned) or
// byte loads of the E8M0 codes, decoded to f32 into shared memory; the
// consumers promote every k32 (a fresh partial a wgmma, wait_group 1 with
// the next one in flight, then the last with wait_group 0): a column pair
// of scales with one ld.shared.v2, mul.rn.f32 of sa * sb and fma.rn.f32 into
// the accumulator.

// (Block order within a kernel is the backend's: CHECK-DAG.)
// CHECK-LABEL: .visible .entry mx_bf16_mxfp8_gemm0(
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: ld.global.b32
// CHECK-DAG: ld.global.b8
// CHECK-DAG: st.shared.b32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: wgmma.wait_group.sync.aligned 1;
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: ld.shared.v2.b32
// CHECK-DAG: mul.rn.f32
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: st.global.b32
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK-LABEL: .visible .entry mx_f32_bias_mxfp8_gemm0(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3
// CHECK-DAG: wgmma.wait_group.sync.aligned 1;
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: st.global.v2.b32

// PTXAS-NOT: error
// PTXAS-NOT: serialized
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: error
// PTXAS-NOT: serialized

func.func @mx_bf16(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

func.func @mx_f32_bias(%a: tensor<?x?xf8E5M2>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>, %bias: tensor<?xbf16>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E5M2> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) bias(%bias : tensor<?xbf16>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
