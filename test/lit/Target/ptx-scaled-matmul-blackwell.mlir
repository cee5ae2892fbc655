// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_100a --emit ptx -o %t/mx100.ptx
// RUN: FileCheck %s --check-prefix=SM100 < %t/mx100.ptx
// RUN: %ptxas -arch=sm_100a -v %t/mx100.ptx -o %t/mx100.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fpxc compile %s --target sm_120a --emit ptx -o %t/mx120.ptx
// RUN: FileCheck %s --check-prefix=SM120 < %t/mx120.ptx
// RUN: %ptxas -arch=sm_120a -v %t/mx120.ptx -o %t/mx120.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fpxc compile %S/Inputs/scaled-matmul-fp8.mlir --target sm_100a --emit ptx -o %t/fp8.ptx
// RUN: FileCheck %s --check-prefix=FP8 < %t/fp8.ptx
// RUN: %ptxas -arch=sm_100a -v %t/fp8.ptx -o %t/fp8.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fpxc compile %examples/sm_100a/nvfp4_scaled_mm.mlir --target sm_100a --emit ptx -o %t/nv100.ptx
// RUN: FileCheck %s --check-prefix=NV100 < %t/nv100.ptx
// RUN: %ptxas -arch=sm_100a -v %t/nv100.ptx -o %t/nv100.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fpxc compile %examples/sm_120a/nvfp4_scaled_mm.mlir --target sm_120a --emit ptx -o %t/nv120.ptx
// RUN: FileCheck %s --check-prefix=NV120 < %t/nv120.ptx
// RUN: %ptxas -arch=sm_120a -v %t/nv120.ptx -o %t/nv120.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// The Blackwell PTX of the MXFP8 and NVFP4 scaled GEMMs assembles for sm_100a (tcgen05:
// tensor memory allocated, scales copied into it with tcgen05.cp, four
// block-scaled MMAs a stage committed to mbarriers, the accumulator read
// back with tcgen05.ld) and for sm_120a (the block-scaled mma.sync), and the
// fp8 tensorwise / rowwise forms through tcgen05 kind::f8f6f4, without
// spills. No GPU of this project runs them.

// (Block order within a kernel is the backend's: CHECK-DAG.)
// SM100: .version 8.7
// SM100: .target sm_100a
// SM100-LABEL: .visible .entry mxfp8_mxfp8_tcgen05_gemm0(
// SM100-DAG: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// SM100-DAG: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// SM100-DAG: fence.proxy.async.shared::cta;
// SM100-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SM100-DAG: tcgen05.cp.cta_group::1.32x128b.warpx4
// SM100-DAG: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, [%r{{[0-9]+}}], [%r{{[0-9]+}}], p;
// SM100-DAG: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// SM100-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// SM100-DAG: tcgen05.wait::ld.sync.aligned;
// SM100-DAG: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// SM100-NOT: .entry

// SM120: .target sm_120a
// SM120-LABEL: .visible .entry mxfp8_mxfp8_mma_gemm0(
// SM120: mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0

// FP8-LABEL: .visible .entry tw_fp8_tcgen05_gemm0(
// FP8-DAG: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard
// FP8-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// FP8-LABEL: .visible .entry rw_fp8_tcgen05_gemm0(
// FP8-DAG: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard

// NVFP4 (docs/examples/sm_100a/nvfp4_scaled_mm.mlir): eight scale copies a
// stage, the 4X MMA, and the two tensor scales loaded for the epilogue.
// NV100-LABEL: .visible .entry nvfp4_scaled_mm_nvfp4_tcgen05_gemm0(
// NV100-DAG: tcgen05.cp.cta_group::1.32x128b.warpx4
// NV100-DAG: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X
// NV100-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// NV120-LABEL: .visible .entry nvfp4_scaled_mm_nvfp4_mma_gemm0(
// NV120: mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3

// PTXAS-NOT: error
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: error

func.func @mxfp8(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>,
                 %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>),
                         %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
