// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_90a --emit ptx -o %t/nv.ptx
// RUN: FileCheck %s < %t/nv.ptx
// RUN: %ptxas -arch=sm_90a -v %t/nv.ptx -o %t/nv.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The sm_90a PTX of the NVFP4 x NVFP4 GEMM (the bf16 form: fp4x2 codes by
// TMA, dequantized to bf16 in shared memory, bf16 wgmma m64n256k16)
// assembles without spills and without ptxas serializing the wgmmas: the
// consumers read the e4m3 scale codes (ld.global.b8), turn them into
// factors (mov 2^126 = 0x7e807e80, the e4m3 rebias times 2^120) and
// dequantize 32 codes a chunk (shl / shr, lop3 0xEA = 234, two
// mul.rn.bf16x2) into the bf16 slice; no fp8 wgmma, no promotion.

// (Block order within a kernel is the backend's: CHECK-DAG.)
// CHECK-LABEL: .visible .entry nv_bias_bf16_nvfp4_bf16_gemm0(
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: ld.global.b8
// CHECK-DAG: 0x7e807e80
// CHECK-DAG: shl.b32 %dq0, %{{.*}}, 6;
// CHECK-DAG: lop3.b32 %dq0, %dq0, 0x01c001c0, %dq1, 234;
// CHECK-DAG: mul.rn.bf16x2
// CHECK-DAG: st.shared.v4.b32
// CHECK-DAG: fence.proxy.async.shared::cta;
// CHECK-DAG: bar.sync 3, 256;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.mma_async.sync.aligned.{{.*}}.e4m3
// CHECK-NOT: wgmma.mma_async.sync.aligned.{{.*}}.e2m1
// CHECK-LABEL: .visible .entry nv_f32_nvfp4_bf16_gemm0(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: st.global.v2.b32

// PTXAS-NOT: error
// PTXAS-NOT: serialized
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: error
// PTXAS-NOT: serialized

func.func @nv_bias_bf16(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>, %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>, %bias: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>), %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) bias(%bias : tensor<?xbf16>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

func.func @nv_f32(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>), %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
