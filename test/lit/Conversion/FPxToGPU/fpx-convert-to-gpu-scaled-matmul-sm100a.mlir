// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu="chip=sm_100a" | FileCheck %s

// MXFP8 x MXFP8 (e8m0 [1, 32] scales, row-major) on sm_100a: one tcgen05
// kernel, a 128x128 tile a CTA of 192 threads. A and B are tensor maps
// (boxes of 128 K bytes x 128 rows, 128B swizzle); the scales are checked at
// launch against cdiv(K, 32) columns.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = [{box = [128, 128], dims = ["arg0_1", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, {box = [128, 128], dims = ["arg0_1", "arg2_0"], swizzle = 128 : i64, tensor_map = "arg2"}, "arg1", "arg3", "result0", "arg0_0", "arg2_0", "arg0_1"], kernel = "mx_mxfp8_tcgen05_gemm0"}]
// CHECK-SAME: {expr = "arg0_1 % 32", message = "the sm_100a scaled GEMM needs K (arg0_1) to be a multiple of 32"}
// CHECK-SAME: {expr = "arg1_0 - arg0_0", message = "the e8m0 scales arg1 of A must have M (arg0_0) rows"}, {expr = "arg1_1 - cdiv(arg0_1, 32)", message = "the e8m0 scales arg1 of A must have cdiv(arg0_1, 32) columns (row-major, one a 32-element block of K)"}
// CHECK-SAME: {expr = "arg3_1 - cdiv(arg0_1, 32)", message = "the e8m0 scales arg3 of B must have cdiv(arg0_1, 32) columns (row-major, one a 32-element block of K)"}
// CHECK: gpu.func @mx_mxfp8_tcgen05_gemm0(
// CHECK-SAME: block = [192, 1, 1], grid = ["cdiv(arg0_0, 128)*cdiv(arg2_0, 128)", "1", "1"]
// 6 stages of 128x128 A + B bytes and two 512-byte scale tiles, barriers.
// CHECK-SAME: shared_bytes = 203896
// CHECK-SAME: fpx.tensor_map_args = array<i32: 0, 1>, nvvm.maxntid = array<i32: 192, 1, 1>
// Barriers (one arrival each: TMA's arming, tcgen05.commit), then warp 5
// allocates 256 tensor-memory columns (128 accumulator + scale columns).
// CHECK-COUNT-13: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %c256_i32
// CHECK: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.fence <before>
// CHECK: gpu.barrier
// CHECK: nvvm.tcgen05.fence <after>
// Producer: the stage's scales packed a byte at a time into 16-byte rows of
// the 128x4 tiles, fenced for the async proxy, then the two TMA loads.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.bar.warp.sync
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// MMA issuer: scales to tensor memory (no swizzle, 128-byte 8-row groups),
// four k32 MMAs with 128B-swizzle descriptors (1024-byte groups), the
// instruction descriptor's scale ids stepping through the bytes
// (144703488 = M 128, N 128, ue8m0, e4m3 x e4m3, ids 0; + 0x20000010 per id).
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.mma_smem_desc(%{{.*}}, %{{.*}}, %c8_i32{{.*}}, %{{.*}}, %false{{.*}}, %c0_i8{{.*}})
// CHECK: nvvm.tcgen05.cp {{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK: nvvm.tcgen05.cp {{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK: nvvm.tcgen05.mma_smem_desc(%{{.*}}, %{{.*}}, %c64_i32{{.*}}, %{{.*}}, %false{{.*}}, %c2_i8{{.*}})
// CHECK: %c144703488_i32
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: %c681574416_i32
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: %c1218445344_i32
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: %c1755316272_i32
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: nvvm.tcgen05.commit
// CHECK: nvvm.tcgen05.commit
// Epilogue: the accumulator 32 columns at a time, bf16 16-byte stores for
// whole chunks of rows inside C, masked stores otherwise.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-COUNT-3: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %c256_i32
func.func @mx(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// e5m2 x e4m3 MXFP8 with an f32 result and a bf16 bias: the descriptor
// names A's e5m2 (bit 7); f32 chunks are 16-byte stores of 4.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK: gpu.func @mx_e5m2_mxfp8_tcgen05_gemm0(
// CHECK-SAME: {name = "bias", type = "ptr"}
// CHECK: %c144703616_i32
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @mx_e5m2(%a: tensor<?x256xf8E5M2>, %sa: tensor<?x8xf8E8M0FNU>, %b: tensor<512x256xf8E4M3FN>, %sb: tensor<512x8xf8E8M0FNU>, %bias: tensor<512xbf16>) -> tensor<?x512xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E5M2> scales(%sa : tensor<?x8xf8E8M0FNU>), %b : tensor<512x256xf8E4M3FN> scales(%sb : tensor<512x8xf8E8M0FNU>) bias(%bias : tensor<512xbf16>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x512xf32>
  return %c : tensor<?x512xf32>
}

// -----

// fp8 with f32 per-tensor scales on sm_100a: the same kernel with
// tcgen05.mma kind::f8f6f4 (no scale columns, no tcgen05.cp), the scales
// in the epilogue. 136314896 = M 128, N 128, f32 D, e4m3 x e4m3.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg0_1 % 16", message = "the sm_100a scaled GEMM needs K (arg0_1) to be a multiple of 16"}
// CHECK: gpu.func @tw_fp8_tcgen05_gemm0(
// CHECK-NOT: nvvm.fence.proxy
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: %c136314896_i32
// CHECK: nvvm.tcgen05.mma %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f8f6f4>}
// CHECK: nvvm.tcgen05.ld
// CHECK: arith.mulf
func.func @tw(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// Row scales: checked at launch, read per row and per column in the epilogue.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg1_0 - arg0_0", message = "the row scales arg1 of A must have M (arg0_0) rows"}, {expr = "arg3_0 - arg2_0", message = "the row scales arg3 of B must have N (arg2_0) rows"}
// CHECK: gpu.func @rw_fp8_tcgen05_gemm0(
// CHECK: nvvm.tcgen05.mma
func.func @rw(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x1xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// Blockwise f32 scales (1x128 x 128x128) have no tcgen05 form yet.
func.func @blockwise(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x2xf32>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<2x2xf32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with blockwise f32 scales (lhs #fpx.scaling<block = [1, 128], rule = amax, scale = f32>, rhs #fpx.scaling<block = [128, 128], rule = amax, scale = f32>) needs wgmma (sm_90a), whose kernel promotes each 128-K partial sum; sm_100a has no kernel form for them yet}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<?x2xf32>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<2x2xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// MX on one side, f32 scales on the other.
func.func @mixed(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x8xf8E8M0FNU>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with scales (lhs #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, rhs #fpx.scaling<block = [*, *], rule = amax, scale = f32>) has no kernel form on sm_100a}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<?x8xf8E8M0FNU>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// An f16 result.
func.func @f16_out(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x8xf8E8M0FNU>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<256x8xf8E8M0FNU>) -> tensor<?x256xf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with a result of element type other than bf16 or f32 has no kernel form on sm_100a}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<?x8xf8E8M0FNU>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<256x8xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x256xf16>
  return %c : tensor<?x256xf16>
}

// -----

// fp8 with f32 scales and a static K that TMA cannot stride.
func.func @k_not_16(%a: tensor<?x200xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x200xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op on sm_100a needs K (200) to be a multiple of 16}}
  %c = fpx.scaled_matmul %a : tensor<?x200xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<256x200xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// NVFP4 x NVFP4 (fp4x2 codes, e4m3 [1, 16] scales, a tensor scale each):
// K is twice A's bytes; the tensor maps walk bytes; a stage holds 256 K,
// so four scale tiles a side (one per MMA, scale_vec::4X: the four 16-blocks
// of a k64 MMA fill a column) and eight tcgen05.cp; the descriptor names
// e2m1 x e2m1 and ue4m3 scales (136316032); ga * gb in the epilogue.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = [{box = [128, 128], dims = ["arg0_1", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, {box = [128, 128], dims = ["arg0_1", "arg3_0"], swizzle = 128 : i64, tensor_map = "arg3"}, "arg1", "arg4", "result0", "arg0_0", "arg3_0", "arg0_1*2", "arg2", "arg5"], kernel = "nv_nvfp4_tcgen05_gemm0"}]
// CHECK-SAME: {expr = "arg3_1 - arg0_1", message = "the sm_100a scaled GEMM needs B (arg3) to have arg0_1 columns, as A"}
// CHECK-SAME: {expr = "(arg0_1*2) % 32", message = "the sm_100a scaled GEMM needs K (arg0_1*2) to be a multiple of 32"}
// CHECK-SAME: {expr = "arg1_1 - cdiv(arg0_1*2, 16)", message = "the e4m3 scales arg1 of A must have cdiv(arg0_1*2, 16) columns (row-major, one a 16-element block of K)"}
// CHECK: gpu.func @nv_nvfp4_tcgen05_gemm0(
// CHECK-SAME: {name = "ga", type = "ptr"}, {name = "gb", type = "ptr"}
// CHECK-SAME: shared_bytes = 222328
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// CHECK-COUNT-8: nvvm.tcgen05.cp
// CHECK: %c136316032_i32
// CHECK: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X
// CHECK: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X
// CHECK: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X
// CHECK: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X
// CHECK: nvvm.tcgen05.commit
// CHECK: llvm.load %arg8 {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.load %arg9 {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.mulf
// CHECK: nvvm.tcgen05.ld
func.func @nv(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>, %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>), %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// Unpacked e2m1 codes (f4E2M1FN elements, a byte each) are refused.
func.func @nv_unpacked(%a: tensor<?x256xf4E2M1FN>, %sa: tensor<?x16xf8E4M3FN>, %b: tensor<256x256xf4E2M1FN>, %sb: tensor<256x16xf8E4M3FN>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with e2m1 operands that are not both packed fp4x2 has no kernel form on sm_100a}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf4E2M1FN> scales(%sa : tensor<?x16xf8E4M3FN>), %b : tensor<256x256xf4E2M1FN> scales(%sb : tensor<256x16xf8E4M3FN>) {
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// MXFP4 (e2m1 with e8m0 [1, 32] scales) is not lowered.
func.func @mxfp4(%a: tensor<?x128xi8>, %sa: tensor<?x8xf8E8M0FNU>, %b: tensor<256x128xi8>, %sb: tensor<256x8xf8E8M0FNU>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with e2m1 operands with scales (lhs #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, rhs #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>) (NVFP4's are e4m3 [1, 16]; MXFP4 is not lowered) has no kernel form on sm_100a}}
  %c = fpx.scaled_matmul %a : tensor<?x128xi8> scales(%sa : tensor<?x8xf8E8M0FNU>), %b : tensor<256x128xi8> scales(%sb : tensor<256x8xf8E8M0FNU>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x256xbf16>
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
// CHECK: gpu.func @nvb_nvfp4_tcgen05_gemm0(
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
