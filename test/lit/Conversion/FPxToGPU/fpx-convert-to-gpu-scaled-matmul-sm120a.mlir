// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu="chip=sm_120a" | FileCheck %s
// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu="chip=sm_121a" | FileCheck %s

// MXFP8 x MXFP8 on sm_120a / sm_121a (no tcgen05 there): the block-scaled
// mma.sync kernel, 128 threads a 64x64 tile, A, B and the row-major scales
// read from global memory into fragments; each 32-K step issues 2 x 4
// m16n8k32 MMAs with the step's e8m0 scale byte (ids 0).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "arg2", "arg1", "arg3", "result0", "arg0_0", "arg2_0", "arg0_1"], kernel = "mx_mxfp8_mma_gemm0"}]
// CHECK-SAME: {expr = "arg0_1 % 32", message = "the sm_12{{[01]}}a scaled GEMM needs K (arg0_1) to be a multiple of 32"}
// CHECK: gpu.func @mx_mxfp8_mma_gemm0(
// CHECK-SAME: block = [128, 1, 1], grid = ["cdiv(arg0_0, 64)*cdiv(arg2_0, 64)", "1", "1"]
// CHECK-SAME: shared_bytes = 0
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK-COUNT-8: nvvm.mma.block_scale A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] scaleA[%{{.*}}, %c0_i16, %c0_i16] scaleB[%{{.*}}, %c0_i16, %c0_i16] {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf8f6f4>, multiplicandAPtxType = #nvvm.mma_type<e4m3>, multiplicandBPtxType = #nvvm.mma_type<e5m2>, scaleVecSize = #nvvm.scale_vec_size<x1>, shape = #nvvm.shape<m = 16, n = 8, k = 32>}
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @mx(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E5M2>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E5M2> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// fp8 with f32 scales has no kernel form on sm_120a (no wgmma, no tcgen05).
func.func @tw(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x256xbf16> {
  // expected-error-re @+1 {{'fpx.scaled_matmul' op with scales (lhs #fpx.scaling<block = [*, *], rule = amax, scale = f32>, rhs #fpx.scaling<block = [*, *], rule = amax, scale = f32>) has no kernel form on sm_12{{[01]}}a (lowered there: MXFP8 (e4m3/e5m2 with e8m0 [1, 32] scales) x MXFP8 and NVFP4 (fp4x2 e2m1 with e4m3 [1, 16] scales) x NVFP4 through the block-scaled mma.sync; bf16 or f32 result)}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// NVFP4 x NVFP4: m16n8k64 kind::mxf4nvf4 with 4X ue4m3 scales (the lane's
// four scale bytes of the step, one 4-byte load), K a multiple of 64, the
// tensor scales ga * gb in the epilogue.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "arg3", "arg1", "arg4", "result0", "arg0_0", "arg3_0", "arg0_1*2", "arg2", "arg5"], kernel = "nv_nvfp4_mma_gemm0"}]
// CHECK-SAME: {expr = "(arg0_1*2) % 64", message = "the sm_12{{[01]}}a scaled GEMM needs K (arg0_1*2) to be a multiple of 64"}
// CHECK: gpu.func @nv_nvfp4_mma_gemm0(
// CHECK-COUNT-8: nvvm.mma.block_scale {{.*}} {blockScaleFormat = #nvvm.block_scale_format<ue4m3>, kind = #nvvm.block_scale_kind<mxf4nvf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x4>, shape = #nvvm.shape<m = 16, n = 8, k = 64>}
// CHECK: arith.mulf
func.func @nv(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>, %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>), %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// A static K the k64 MMA does not divide.
func.func @nv_k(%a: tensor<?x48xi8>, %sa: tensor<?x6xf8E4M3FN>, %b: tensor<256x48xi8>, %sb: tensor<256x6xf8E4M3FN>) -> tensor<?x256xbf16> {
  // expected-error-re @+1 {{'fpx.scaled_matmul' op on sm_12{{[01]}}a needs K (96) to be a multiple of 64}}
  %c = fpx.scaled_matmul %a : tensor<?x48xi8> scales(%sa : tensor<?x6xf8E4M3FN>), %b : tensor<256x48xi8> scales(%sb : tensor<256x6xf8E4M3FN>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// NVFP4 x NVFP4 with both sides' e4m3 scales blocked 128x4 (as
// fpx.quantize writes them for these tensor cores): the launch checks ask
// for the padded shapes, and a scale's offset is its 128x4 tile's (512
// bytes) plus its row's 16 bytes and word within the tile.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg1_0 - cdiv(arg0_0, 128)*128", message = "the e4m3 scales arg1 of A must have cdiv(arg0_0, 128)*128 rows (blocked 128x4: M (arg0_0) padded to a multiple of 128)"}
// CHECK-SAME: {expr = "arg4_1 - cdiv(cdiv(arg0_1*2, 16), 4)*4"
// CHECK: gpu.func @nvb_nvfp4_mma_gemm0(
// CHECK: arith.muli %{{.*}}, %c512_i64
func.func @nvb(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>, %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>), %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>, rhs_scale_layout = #fpx.layout<blocked_128x4>}
      -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
