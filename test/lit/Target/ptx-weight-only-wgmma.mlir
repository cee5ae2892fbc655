// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_90a --emit ptx -o %t/wo.ptx
// RUN: FileCheck %s < %t/wo.ptx
// RUN: %ptxas -arch=sm_90a -v %t/wo.ptx -o %t/wo.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The sm_90a PTX of the weight-only prefill kernels (checked: the 256-token
// ones; the 128-token ones have fewer accumulators) (fp8 e4m3 with bf16 x,
// e5m2 with f16 x and an f32 bias, MXFP8 and MXFP4 with bf16 x, NVFP4 with
// f16 x, FP6-LLM's e3m2 with bf16 x, fp5 e2m2 with f16 x, MXFP6 e2m3 with
// bf16 x) assembles without spills and without
// ptxas serializing the wgmmas: the register-A wgmma m64n256k16 (each
// stage's group waited for before the next decode: ptxas neither keeps an
// in-flight wgmma's A registers from later values nor warns), the weights' quad
// transpose (shfl.sync.bfly 2 and 1), TMA loads of x on mbarriers.

// (Block order within a kernel is the backend's: CHECK-DAG.)
// CHECK-LABEL: .visible .entry bf16_wo_wgmma5(
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: mbarrier.arrive.expect_tx.shared.b64
// CHECK-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-DAG: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-DAG: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-DAG: prmt.b32
// CHECK-DAG: wgmma.fence.sync.aligned;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK-DAG: wgmma.commit_group.sync.aligned;
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: mbarrier.arrive.shared.b64
// CHECK-LABEL: .visible .entry f16_bias_wo_wgmma5(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK-LABEL: .visible .entry mxfp8_wo_wgmma5(
// CHECK-DAG: mul.rn.bf16x2
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-LABEL: .visible .entry mxfp4_wo_wgmma5(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-LABEL: .visible .entry nvfp4_wo_wgmma5(
// CHECK-DAG: mul.rn.f16x2
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// 6-/5-bit: 768- or 640-byte row tiles a stage, the high plane read with
// one 8- or 4-byte shared load a lane.
// CHECK-LABEL: .visible .entry fp6_wo_wgmma5(
// CHECK-DAG: mov.b32 {{.*}}, 768;
// CHECK-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: ld.shared.v2.b32
// CHECK-DAG: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-DAG: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-LABEL: .visible .entry fp5_wo_wgmma5(
// CHECK-DAG: mov.b32 {{.*}}, 640;
// CHECK-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-DAG: ld.shared.b32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK-LABEL: .visible .entry mxfp6_wo_wgmma5(
// CHECK-DAG: mov.b32 {{.*}}, 768;
// CHECK-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-DAG: mul.rn.bf16x2
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16

// PTXAS-NOT: {{warning|serialized|[1-9][0-9]* bytes spill}}
// PTXAS-NOT: error
// (ptxas reports the entries last first.)
// PTXAS: Compiling entry function 'mxfp6_wo_wgmma5' for 'sm_90a'
// PTXAS-NEXT: Function properties for mxfp6_wo_wgmma5
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'fp5_wo_wgmma5' for 'sm_90a'
// PTXAS-NEXT: Function properties for fp5_wo_wgmma5
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'fp6_wo_wgmma5' for 'sm_90a'
// PTXAS-NEXT: Function properties for fp6_wo_wgmma5
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'nvfp4_wo_wgmma5' for 'sm_90a'
// PTXAS-NEXT: Function properties for nvfp4_wo_wgmma5
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'mxfp4_wo_wgmma5' for 'sm_90a'
// PTXAS-NEXT: Function properties for mxfp4_wo_wgmma5
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'mxfp8_wo_wgmma5' for 'sm_90a'
// PTXAS-NEXT: Function properties for mxfp8_wo_wgmma5
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'f16_bias_wo_wgmma5' for 'sm_90a'
// PTXAS-NEXT: Function properties for f16_bias_wo_wgmma5
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'bf16_wo_wgmma5' for 'sm_90a'
// PTXAS-NEXT: Function properties for bf16_wo_wgmma5
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{warning|serialized|[1-9][0-9]* bytes spill}}
// PTXAS-NOT: error

func.func @bf16(%x: tensor<?x4096xbf16>, %w: tensor<4096x4096xf8E4M3FN>,
                %s: tensor<4096x1xf32>) -> tensor<?x4096xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<4096x4096xf8E4M3FN>
      scales(%s : tensor<4096x1xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}

func.func @f16_bias(%x: tensor<?x?xf16>, %w: tensor<?x?xf8E5M2>, %s: tensor<?x1xf32>,
                    %b: tensor<?xf32>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xf8E5M2>
      scales(%s : tensor<?x1xf32>) bias(%b : tensor<?xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}

func.func @mxfp8(%x: tensor<?x4096xbf16>, %w: tensor<4096x4096xf8E4M3FN>,
                 %s: tensor<4096x128xf8E8M0FNU>) -> tensor<?x4096xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<4096x4096xf8E4M3FN>
      scales(%s : tensor<4096x128xf8E8M0FNU>) {
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}

func.func @mxfp4(%x: tensor<?x4096xbf16>, %w: tensor<4096x2048xi8>,
                 %s: tensor<4096x128xf8E8M0FNU>) -> tensor<?x4096xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<4096x2048xi8>
      scales(%s : tensor<4096x128xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}

func.func @nvfp4(%x: tensor<?x4096xf16>, %w: tensor<4096x2048xi8>,
                 %s: tensor<4096x256xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x4096xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xf16>, %w : tensor<4096x2048xi8>
      scales(%s : tensor<4096x256xf8E4M3FN>) global_scale(%g : tensor<f32>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x4096xf16>
  return %y : tensor<?x4096xf16>
}

func.func @fp6(%x: tensor<?x4096xbf16>, %w: tensor<4096x3072xi8>,
               %s: tensor<4096x1xf32>) -> tensor<?x4096xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<4096x3072xi8>
      scales(%s : tensor<4096x1xf32>) {
      rhs_format = #fpx.format<e3m2fn>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}

func.func @fp5(%x: tensor<?x4096xf16>, %w: tensor<4096x2560xi8>,
               %s: tensor<4096x1xf32>) -> tensor<?x4096xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xf16>, %w : tensor<4096x2560xi8>
      scales(%s : tensor<4096x1xf32>) {
      rhs_format = #fpx.format<e2m2>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x4096xf16>
  return %y : tensor<?x4096xf16>
}

func.func @mxfp6(%x: tensor<?x4096xbf16>, %w: tensor<4096x3072xi8>,
                 %s: tensor<4096x128xf8E8M0FNU>) -> tensor<?x4096xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<4096x3072xi8>
      scales(%s : tensor<4096x128xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m3fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}
