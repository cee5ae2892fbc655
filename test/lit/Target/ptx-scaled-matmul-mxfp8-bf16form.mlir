// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_90a --emit ptx -o %t/mx.ptx
// RUN: FileCheck %s < %t/mx.ptx
// RUN: %ptxas -arch=sm_90a -v %t/mx.ptx -o %t/mx.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The sm_90a PTX of the MXFP8 x MXFP8 GEMM in the bf16 form (the unit
// attribute fpx.mx_bf16, for comparisons; ptx-scaled-matmul-mxfp8.mlir
// checks the default, promoted form; one kernel a function: a 128x256 tile
// with the st.global epilogue) assembles without spills and without ptxas serializing the wgmmas: the scale warp's 32-bit
// (aligned) or byte loads of the E8M0 codes, turned into bf16x2 factor
// pairs in shared memory (st.shared.v2); the consumers read 16 codes
// (ld.shared.v4) and their factors (ld.shared.v2), dequantize them with
// prmt / lop3 / shifts and two mul.rn.bf16x2 (Bf16Dequant.h) into a bf16
// slice (st.shared.v4), fence it to the async proxy, meet at bar.sync 3 (the
// 256 consumer threads) and run bf16 wgmma m64n256k16: no fp8 wgmma, no
// promotion (no fma.rn.f32 in the main loop; only the epilogue's bias add).

// (Block order within a kernel is the backend's: CHECK-DAG.)
// CHECK-LABEL: .visible .entry mx_bf16_mxfp8_bf16_gemm0(
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: ld.global.b32
// CHECK-DAG: ld.global.b8
// CHECK-DAG: st.shared.v2.b32
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: ld.shared.v2.b32
// CHECK-DAG: prmt.b32 %dq2, %dq1, 0x00000000, 0x0000ba98;
// CHECK-DAG: lop3.b32 %dq3, %{{.*}}, %dq2, 0x80808080, 228;
// CHECK-DAG: shr.u32 %dq4, %dq4, 4;
// CHECK-DAG: mul.rn.bf16x2
// CHECK-DAG: st.shared.v4.b32
// CHECK-DAG: fence.proxy.async.shared::cta;
// CHECK-DAG: bar.sync 3, 256;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: st.global.v4.b32
// CHECK-NOT: wgmma.mma_async.sync.aligned.{{.*}}.e4m3
// CHECK-NOT: wgmma.wait_group.sync.aligned 1;
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK-LABEL: .visible .entry mx_f32_bias_mxfp8_bf16_gemm0(
// e5m2 A: its program (mask 0x7c, rebias shift 3) beside e4m3 B's.
// CHECK-DAG: and.b32 %dq1, %{{.*}}, 0x7c7c7c7c;
// CHECK-DAG: shr.u32 %dq4, %dq4, 3;
// CHECK-DAG: shr.u32 %dq4, %dq4, 4;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: st.global.v2.b32
// CHECK-NOT: wgmma.mma_async.sync.aligned.{{.*}}.e5m2
// CHECK-NOT: wgmma.mma_async.sync.aligned.{{.*}}.e4m3

// PTXAS-NOT: error
// PTXAS-NOT: serialized
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: error
// PTXAS-NOT: serialized

func.func @mx_bf16(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, fpx.mx_bf16} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

func.func @mx_f32_bias(%a: tensor<?x?xf8E5M2>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>, %bias: tensor<?xbf16>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E5M2> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) bias(%bias : tensor<?xbf16>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, fpx.mx_bf16} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
