// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu="chip=sm_90a" | FileCheck %s

// The float8 MoE forward GEMM (2D x 3D, e4m3 codes, rowwise f32 scales: A's
// [M, 1], B's [G, N, 1]) becomes one persistent TMA + wgmma kernel, the
// scaled GEMM's 128x192 tile in its grouped mode. A is a tensor map [K, M]
// (boxes 128 K x 128 rows), B one over its G matrices as [K, G * N] (boxes
// 128 K x 192 rows); the offsets and G follow K. The host never reads the
// offsets: the grid is min(a bound of the tiles, SMs), each group adding at
// most one partial row tile and the rows past the last end one more.
// Two kernels, as the dense GEMM's wide tile: with C's rows a multiple of
// 16 bytes and K <= 8192 (here), the TMA-store epilogue (for the
// warpgroups whose 64 rows are all their group's, or whose group ends at M;
// the others mask), else masked st.global (the other's grid is 0).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = [{box = [128, 128], dims = ["512", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, {box = [128, 192], dims = ["512", "8*1000"], swizzle = 128 : i64, tensor_map = "arg2"}, {box = [64, 64], dims = ["1000", "arg0_0"], swizzle = 128 : i64, tensor_map = "result0"}, "arg1", "arg3", "result0", "arg0_0", "1000", "512", "arg4", "8"], kernel = "moe_fp8_grouped_gemm0"}, {args = [{box = [128, 128], dims = ["512", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, {box = [128, 192], dims = ["512", "8*1000"], swizzle = 128 : i64, tensor_map = "arg2"}, "arg1", "arg3", "result0", "arg0_0", "1000", "512", "arg4", "8"], kernel = "moe_fp8_grouped_gemm1"}]
// CHECK-SAME: {expr = "arg1_0 - arg0_0", message = "the row scales arg1 of A must have M (arg0_0) rows"}
// CHECK: gpu.func @moe_fp8_grouped_gemm0(
// CHECK-SAME: grid = ["max(0, 1 - 1000 % 8)*min(1, max(0, 8193 - 512))*min((cdiv(arg0_0, 128) + 8 + 1)*cdiv(1000, 192), sm_count)", "1", "1"]
// CHECK-SAME: {name = "K", type = "i64"}, {name = "offs", type = "ptr"}, {name = "G", type = "i64"}]
// The staging tile (128 x 192 bf16) + 4 stages x (40960 + 16) + the group
// table, from a 1024-aligned base.
// CHECK-SAME: shared_bytes = 214160
// CHECK-SAME: fpx.tensor_map_args = array<i32: 0, 1, 2>
// The group table: warp 0 walks the groups 32 at a time, a group's tiles
// summed over the warp by five shuffles, the running total by a sixth.
// CHECK: nvvm.fence.mbarrier.init
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32_i32
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: gpu.shuffle  idx %{{.*}}, %c31_i32
// CHECK: gpu.barrier
// Producer: each tile's group found by a binary search over the table (4
// steps for 9 entries), no K blocks for the rows past the last end, and B's
// box at row g * N + n0.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK-COUNT-4: arith.cmpi ule
// CHECK: arith.select %{{.*}}, %c0_i32{{.*}}, %{{.*}} : i32
// CHECK: scf.for
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// Consumers: four k32 wgmmas m64n192 a stage; the epilogue branches on
// whether the warpgroup's rows are all its group's: stmatrix into the
// staging tile and the TMA store, else masked st.global.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 192, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: arith.cmpi uge
// CHECK: arith.cmpi ule
// CHECK: arith.ori %{{.*}} : i1
// CHECK: scf.if
// CHECK: nvvm.stmatrix
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: } else {
// CHECK: llvm.store %{{.*}} : vector<2xbf16>, !llvm.ptr<1>
// CHECK: gpu.return
// CHECK: gpu.func @moe_fp8_grouped_gemm1(
// CHECK-SAME: grid = ["max(0, 1 - max(0, 1 - 1000 % 8)*min(1, max(0, 8193 - 512)))*min((cdiv(arg0_0, 128) + 8 + 1)*cdiv(1000, 192), sm_count)", "1", "1"]
// 1024 + 5 stages x (40960 + 16) + the group table: 2 x (8 + 2) i32.
// CHECK-SAME: shared_bytes = 205984
// CHECK-SAME: fpx.tensor_map_args = array<i32: 0, 1>
// CHECK: llvm.store %{{.*}} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: nvvm.stmatrix
// CHECK: gpu.return
func.func @moe(%a: tensor<?x512xf8E4M3FN>, %sa: tensor<?x1xf32>, %b: tensor<8x1000x512xf8E4M3FN>, %sb: tensor<8x1000x1xf32>, %offs: tensor<8xi32>) -> tensor<?x1000xbf16> {
  %y = fpx.grouped_matmul %a, %b offsets(%offs) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x512xf8E4M3FN>, tensor<8x1000x512xf8E4M3FN>, tensor<8xi32>, tensor<?x1xf32>, tensor<8x1000x1xf32> -> tensor<?x1000xbf16>
  return %y : tensor<?x1000xbf16>
}

// -----

// Dynamic G: the table holds up to 1024 groups (8 KiB), a launch
// requirement checks G; e5m2 x e4m3, f32 out.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg4_0 - arg2_0", message = "the offsets arg4 must have one end row a group (G = arg2_0)"}
// CHECK-SAME: {expr = "min(1, max(0, 1 - arg2_0) + max(0, arg2_0 - 1024))", message = "the fp8 grouped GEMM needs 1 to 1024 groups (its group table in shared memory), got arg2_0"}
// CHECK-SAME: {expr = "arg3_0 - arg2_0", message = "the row scales arg3 of B must be [G, N, 1] ([arg2_0, arg2_1, 1]): one a group and column"}
// (f32 out: the st.global kernel alone.)
// CHECK: gpu.func @dyn_fp8_grouped_gemm0(
// CHECK-SAME: grid = ["min((cdiv(arg0_0, 128) + arg2_0 + 1)*cdiv(arg2_1, 192), sm_count)", "1", "1"]
// CHECK-SAME: shared_bytes = 214112
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 192, k = 32>, D[<f32>, <zero>], A[<e5m2>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: llvm.store %{{.*}} : vector<2xf32>, !llvm.ptr<1>
func.func @dyn(%a: tensor<?x?xf8E5M2>, %sa: tensor<?x1xf32>, %b: tensor<?x?x?xf8E4M3FN>, %sb: tensor<?x?x1xf32>, %offs: tensor<?xi32>) -> tensor<?x?xf32> {
  %y = fpx.grouped_matmul %a, %b offsets(%offs) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x?xf8E5M2>, tensor<?x?x?xf8E4M3FN>, tensor<?xi32>, tensor<?x1xf32>, tensor<?x?x1xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Refused: every form but 2D x 3D fp8 with rowwise f32 scales.
func.func @bf16(%a: tensor<8x32xbf16>, %b: tensor<2x16x32xbf16>, %offs: tensor<2xi32>) -> tensor<8x16xbf16> {
  // expected-error @+1 {{'fpx.grouped_matmul' op with unscaled (high-precision) operands is not lowered yet on sm_90a (lowered: 2D x 3D with fp8 e4m3/e5m2 operands and rowwise f32 scales, lhs_scaling and rhs_scaling block [1, *] (lhs scales [M, 1], rhs [G, N, 1]), bf16 or f32 result, on sm_90a)}}
  %y = fpx.grouped_matmul %a, %b offsets(%offs) : tensor<8x32xbf16>, tensor<2x16x32xbf16>, tensor<2xi32> -> tensor<8x16xbf16>
  return %y : tensor<8x16xbf16>
}

// -----

func.func @two_d(%a: tensor<512x256xf8E4M3FN>, %b: tensor<128x256xf8E4M3FN>, %off: tensor<4xi32>,
                 %sa: tensor<512x1xf32>, %sb: tensor<128x1xf32>) -> tensor<4x512x128xbf16> {
  // expected-error @+1 {{'fpx.grouped_matmul' op with a 2D x 2D form (offsets splitting K) is not lowered yet on sm_90a (lowered: 2D x 3D}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<512x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>, tensor<4xi32>, tensor<512x1xf32>, tensor<128x1xf32> -> tensor<4x512x128xbf16>
  return %y : tensor<4x512x128xbf16>
}

// -----

// Tensorwise scales are not torch's grouped form: refused.
func.func @tensorwise(%a: tensor<?x256xf8E4M3FN>, %b: tensor<4x128x256xf8E4M3FN>, %off: tensor<4xi32>,
                      %sa: tensor<1x1xf32>, %sb: tensor<4x1x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{'fpx.grouped_matmul' op with scales (lhs #fpx.scaling<block = [*, *], rule = amax, scale = f32>, rhs #fpx.scaling<block = [*, *], rule = amax, scale = f32>) other than rowwise f32 is not lowered yet on sm_90a}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x256xf8E4M3FN>, tensor<4x128x256xf8E4M3FN>, tensor<4xi32>, tensor<1x1xf32>, tensor<4x1x1xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// MXFP8 operands (e8m0 [1, 32] scales) are not lowered in the grouped form.
func.func @mxfp8(%a: tensor<?x256xf8E4M3FN>, %b: tensor<4x128x256xf8E4M3FN>, %off: tensor<4xi32>,
                 %sa: tensor<?x8xf8E8M0FNU>, %sb: tensor<4x128x8xf8E8M0FNU>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{'fpx.grouped_matmul' op with scales (lhs #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, rhs #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>) other than rowwise f32 is not lowered yet on sm_90a}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x256xf8E4M3FN>, tensor<4x128x256xf8E4M3FN>, tensor<4xi32>, tensor<?x8xf8E8M0FNU>, tensor<4x128x8xf8E8M0FNU> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

func.func @f16_out(%a: tensor<?x256xf8E4M3FN>, %b: tensor<4x128x256xf8E4M3FN>, %off: tensor<4xi32>,
                   %sa: tensor<?x1xf32>, %sb: tensor<4x128x1xf32>) -> tensor<?x128xf16> {
  // expected-error @+1 {{'fpx.grouped_matmul' op with a result of element type other than bf16 or f32 is not lowered yet on sm_90a}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x256xf8E4M3FN>, tensor<4x128x256xf8E4M3FN>, tensor<4xi32>, tensor<?x1xf32>, tensor<4x128x1xf32> -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}

// -----

// bf16 codes with rowwise scales are not fp8.
func.func @bf16_scaled(%a: tensor<?x256xbf16>, %b: tensor<4x128x256xbf16>, %off: tensor<4xi32>,
                       %sa: tensor<?x1xf32>, %sb: tensor<4x128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{'fpx.grouped_matmul' op with operands bf16 x bf16 is not lowered yet on sm_90a}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x256xbf16>, tensor<4x128x256xbf16>, tensor<4xi32>, tensor<?x1xf32>, tensor<4x128x1xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

func.func @k_not_16(%a: tensor<?x200xf8E4M3FN>, %b: tensor<4x128x200xf8E4M3FN>, %off: tensor<4xi32>,
                    %sa: tensor<?x1xf32>, %sb: tensor<4x128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{'fpx.grouped_matmul' op with fp8 operands needs K (200) to be a multiple of 16: A and B rows are copied by TMA, whose row stride is a multiple of 16 bytes}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x200xf8E4M3FN>, tensor<4x128x200xf8E4M3FN>, tensor<4xi32>, tensor<?x1xf32>, tensor<4x128x1xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
