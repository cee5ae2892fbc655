// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu="chip=sm_90a" | FileCheck %s

// fp8 x fp8 with per-tensor f32 scales (1x1 tensors) becomes four
// persistent TMA + wgmma kernels: 128x128 tiles with split-K for M <= 128
// and 128x192 above, each with a TMA-store epilogue (N a multiple of 8:
// bf16 rows of 16 bytes) and a masked st.global one (any N); M and N pick
// one (the others' grid is 0). A, B and C reach the kernels as tensor maps
// the runtime builds at launch: A and B [K, rows] with boxes of 128 K x the
// tile's rows, C [N, M] with boxes of 64 columns (128 bytes) x 64 rows, 128B
// swizzle; the st.global kernels take no map of C. The split-K kernels
// take a workspace of 4 slots of 128x128 floats a tile and 2 zeroed
// counters a tile, both empty unless M <= 128 and the tiles are at most
// 128; their grid is up to 4 CTAs a tile.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "f8e4m3fn", name = "arg0", shape = ["arg0_0", "arg0_1"]}
// CHECK-SAME: launches = [{args = [{box = [128, 128], dims = ["arg0_1", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, {box = [128, 128], dims = ["arg0_1", "arg2_0"], swizzle = 128 : i64, tensor_map = "arg2"}, {box = [64, 64], dims = ["arg2_0", "arg0_0"], swizzle = 128 : i64, tensor_map = "result0"}, "arg1", "arg3", "result0", "arg0_0", "arg2_0", "arg0_1", "tmp0", "tmp1"], kernel = "tw_fp8_gemm0"}, {args = [{box = [128, 128], dims = ["arg0_1", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, {box = [128, 128], dims = ["arg0_1", "arg2_0"], swizzle = 128 : i64, tensor_map = "arg2"}, "arg1", "arg3", "result0", "arg0_0", "arg2_0", "arg0_1", "tmp0", "tmp1"], kernel = "tw_fp8_gemm1"}, {args = [{box = [128, 128], dims = ["arg0_1", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, {box = [128, 192], dims = ["arg0_1", "arg2_0"], swizzle = 128 : i64, tensor_map = "arg2"}, {box = [64, 64], dims = ["arg2_0", "arg0_0"], swizzle = 128 : i64, tensor_map = "result0"}, "arg1", "arg3", "result0", "arg0_0", "arg2_0", "arg0_1"], kernel = "tw_fp8_gemm2"}, {args = [{box = [128, 128], dims = ["arg0_1", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, {box = [128, 192], dims = ["arg0_1", "arg2_0"], swizzle = 128 : i64, tensor_map = "arg2"}, "arg1", "arg3", "result0", "arg0_0", "arg2_0", "arg0_1"], kernel = "tw_fp8_gemm3"}]
// CHECK-SAME: {expr = "arg2_1 - arg0_1", message = "the fp8 scaled GEMM needs B (arg2) to have K = arg0_1 columns"}, {expr = "arg0_1 % 16", message = "the fp8 scaled GEMM needs K (arg0_1) to be a multiple of 16 (TMA row strides are multiples of 16 bytes)"}
// CHECK-SAME: temps = [{dtype = "f32", name = "tmp0", shape = ["min(1, max(0, 129 - arg0_0))*min(1, max(0, 129 - cdiv(arg0_0, 128)*cdiv(arg2_0, 128)))*65536*cdiv(arg0_0, 128)*cdiv(arg2_0, 128)"]}, {dtype = "i32", init = "kept_zero", name = "tmp1", shape = ["min(1, max(0, 129 - arg0_0))*min(1, max(0, 129 - cdiv(arg0_0, 128)*cdiv(arg2_0, 128)))*2*cdiv(arg0_0, 128)*cdiv(arg2_0, 128)"]}]
// The extern shared ring (aligned to 1024 in the kernel).
// CHECK: llvm.mlir.global external @tw_fp8_gemm0_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: gpu.func @tw_fp8_gemm0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr<1>
// CHECK-SAME: fpx.kernel = {block = [384, 1, 1], grid = ["min(1, max(0, 129 - arg0_0))*max(0, 1 - arg2_0 % 8)*min(cdiv(arg0_0, 128)*cdiv(arg2_0, 128)*4, sm_count)", "1", "1"], params = [{name = "tmA", type = "tensor_map"}, {name = "tmB", type = "tensor_map"}, {name = "tmC", type = "tensor_map"}, {name = "sa", type = "ptr"}
// CHECK-SAME: {name = "ws", type = "ptr"}, {name = "cnt", type = "ptr"}]
// 1024 + the 128x128 bf16 staging tile (32768) + 6 stages x (32768 + 16)
// + 2 split-K flags
// CHECK-SAME: shared_bytes = 230504
// CHECK-SAME: fpx.tensor_map_args = array<i32: 0, 1, 2>
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1
// Barriers: full (1 arrival + bytes), empty (one arrival per consumer warp).
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c8_i32
// CHECK: nvvm.fence.mbarrier.init
// The split: CTAs / tiles, at least 1, at most 4 and the K blocks, where the
// tiles are at most 128.
// CHECK: arith.minui %c4_i32, %{{.*}}
// CHECK: arith.divui
// CHECK: arith.cmpi ule, %{{.*}}, %c128_i32
// Producer: fewer registers, one thread, wait empty, arm full, two TMA loads.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The ring position advances without a division: the stage wraps at 6 and
// flips the parity bit (0x100).
// CHECK: arith.cmpi eq, %{{.*}}, %c5_i32
// CHECK: arith.xori %{{.*}}, %c256_i32
// Consumers: more registers, wait full, four k32 wgmmas (the first
// overwrites), wait_group 0, the partial promoted, the stage released.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: arith.addf
// CHECK: nvvm.mbarrier.arrive
// Split-K: the unit's partial sums to its slot (16 x 16 bytes a thread),
// the fence, the warpgroup's barrier, its counter, and for the last unit
// the slots added up in order, read from L2.
// CHECK-COUNT-16: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: "membar.gl;"
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: llvm.atomicrmw add %{{.*}}, %c1_i32{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK: "membar.gl;"
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: scf.for
// CHECK-COUNT-16: "ld.global.cg.v4.f32 {$0, $1, $2, $3}, [$4];"
// TMA-store epilogue: thread 0 of the warpgroup waits until the previous
// tile's stores have read the staging tile, the warpgroup's barrier, then
// sa * sb, bf16 pairs (one cvt of two) and eight stmatrix x4 (two column
// groups each) into the swizzled boxes, the proxy fence, the barrier, and
// TMA stores of the two 64x64 boxes (rows and columns clipped by TMA).
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK-COUNT-8: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT: nvvm.stmatrix
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta %arg2, %{{.*}}, box[%{{.*}}, %{{.*}}]
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.cp.async.bulk.commit.group
// Before exit: every store done.
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: llvm.store %{{.*}} !llvm.ptr<1>
// CHECK: gpu.func @tw_fp8_gemm1(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr<1>
// CHECK-SAME: grid = ["min(1, max(0, 129 - arg0_0))*min(1, arg2_0 % 8)*min(cdiv(arg0_0, 128)*cdiv(arg2_0, 128)*4, sm_count)", "1", "1"]
// 1024 + 7 stages x (32768 + 16) + 8
// CHECK-SAME: shared_bytes = 230520
// CHECK-SAME: fpx.tensor_map_args = array<i32: 0, 1>
// The st.global epilogue: masked bf16 pair stores straight from the
// fragment, no staging.
// CHECK-NOT: nvvm.stmatrix
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// The 128x192 kernels do not split K: no workspace.
// CHECK: gpu.func @tw_fp8_gemm2(
// CHECK-SAME: {name = "K", type = "i64"}]
// 1024 + the 128x192 staging tile (49152) + 4 stages x (40960 + 16): the
// staging tile takes one of the 5 stages.
// CHECK-SAME: shared_bytes = 214080
// CHECK-NOT: llvm.atomicrmw
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 192, k = 32>
// CHECK-NOT: llvm.atomicrmw
// CHECK-COUNT-12: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
// Three 64-column boxes, each skipped past N.
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: gpu.func @tw_fp8_gemm3(
// CHECK-SAME: shared_bytes = 205904
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 192, k = 32>
func.func @tw(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// Row scales (A [M, 1], B [N, 1]), e5m2 x e4m3, f32 out: the scales are read
// per row and column in the epilogue; f32 pairs are 8-byte stores.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg1_0 - arg0_0", message = "the row scales arg1 of A must have M (arg0_0) rows"}, {expr = "arg3_0 - arg2_0", message = "the row scales arg3 of B must have N (arg2_0) rows"}
// CHECK: gpu.func @rw_fp8_gemm0(
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<e5m2>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
func.func @rw(%a: tensor<?x?xf8E5M2>, %sa: tensor<?x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E5M2> scales(%sa : tensor<?x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

// Blockwise scales (DeepSeek-V3's 1x128 x 128x128): the scales are checked
// at launch against cdiv(K, 128) blocks; a producer warp copies each
// stage's scales (A's 128 rows, B's two column blocks) into shared memory
// and arrives on the stage's full barrier (33 arrivals: the TMA thread and
// 32 lanes); the consumers read them before the wgmmas and promote with
// acc = fma(partial, sa * sb, acc), the column block picked per column
// group; no scale in the epilogue.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg1_0 - arg0_0", message = "the block scales arg1 of A must have M (arg0_0) rows"}, {expr = "arg1_1 - cdiv(arg0_1, 128)", message = "the block scales arg1 of A must have cdiv(arg0_1, 128) columns"}, {expr = "arg3_0 - (cdiv(arg2_0, 128))", message = "the block scales arg3 of B must have cdiv(arg2_0, 128) rows"}, {expr = "arg3_1 - cdiv(arg0_1, 128)", message = "the block scales arg3 of B must have cdiv(arg0_1, 128) columns"}
// CHECK: gpu.func @blockwise_fp8_gemm0(
// 1024 + 32768 (staging) + 5 stages x (32784 + (128 + 128) floats) + 8
// CHECK-SAME: shared_bytes = 202840
// CHECK: nvvm.mbarrier.init %{{.*}}, %c33_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c8_i32
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The scale warp: wait for the stage, A's row scales, then B's blocks.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-COUNT-4: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.inline_asm has_side_effects "", "=r,0"
// CHECK: arith.cmpi ult, %{{.*}}, %c2_i32
// CHECK: arith.divui %{{.*}}, %c128_i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// Consumers.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[SASB:.*]] = arith.mulf
// CHECK: %[[P:.*]] = llvm.inline_asm has_side_effects "", "=f,0"
// CHECK: %[[F:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: llvm.intr.fma(%[[P]], %[[F]], %{{.*}})
// CHECK-NOT: arith.addf
// CHECK: nvvm.mbarrier.arrive
// The epilogue reads no scale.
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: nvvm.stmatrix
// CHECK: gpu.func @blockwise_fp8_gemm1(
// 1024 + 6 stages x (32784 + (128 + 128) floats) + 8
// CHECK-SAME: shared_bytes = 203880
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: gpu.func @blockwise_fp8_gemm2(
// 214080 + 4 stages x (128 + 192) floats
// CHECK-SAME: shared_bytes = 219200
// CHECK: gpu.func @blockwise_fp8_gemm3(
// 205904 + 5 stages x (128 + 192) floats
// CHECK-SAME: shared_bytes = 212304
func.func @blockwise(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// 1x128 x 1x128 (B scaled per row and 128-K block), f32 out: the scale warp
// copies B's bn column scales too; the consumers read a column pair's
// scales with one 8-byte load in the promotion and multiply them by the
// row's. A static K that is not a multiple of 128 ends in a partial block
// (TMA zero-fills the rest of the stage): 208 K are 2 scale blocks. The
// TMA-store epilogue stages f32 pairs with 8-byte shared stores (boxes of
// 32 columns x 64 rows: four for the 128 columns of a warpgroup), the
// st.global one stores them to C.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg3_0 - arg2_0", message = "the block scales arg3 of B must have arg2_0 rows"}
// CHECK: gpu.func @blockwise_1x128_fp8_gemm0(
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-COUNT-4: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-COUNT-2: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-COUNT-2: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[P:.*]] = llvm.inline_asm has_side_effects "", "=f,0"
// CHECK: %[[PAIR:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: %[[S0:.*]] = llvm.extractelement %[[PAIR]]
// CHECK: %[[F:.*]] = arith.mulf %{{.*}}, %[[S0]]
// CHECK: llvm.intr.fma(%[[P]], %[[F]], %{{.*}})
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: nvvm.stmatrix
// CHECK: nvvm.fence.proxy
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: gpu.func @blockwise_1x128_fp8_gemm1(
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
func.func @blockwise_1x128(%a: tensor<?x208xf8E4M3FN>, %sa: tensor<?x2xf32>, %b: tensor<?x208xf8E5M2>, %sb: tensor<?x2xf32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x208xf8E4M3FN> scales(%sa : tensor<?x2xf32>), %b : tensor<?x208xf8E5M2> scales(%sb : tensor<?x2xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

// A blockwise, B per row: A's block scales in the main loop (fma by the
// row's), B's row scales in the epilogue.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK: gpu.func @blockwise_rows_fp8_gemm0(
// CHECK: nvvm.mbarrier.init %{{.*}}, %c33_i32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[P:.*]] = llvm.inline_asm has_side_effects "", "=f,0"
// CHECK-NEXT: llvm.intr.fma(%[[P]], %{{.*}}, %{{.*}})
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.mulf
func.func @blockwise_rows(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x2xf32>, %b: tensor<?x256xf8E4M3FN>, %sb: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<?x2xf32>), %b : tensor<?x256xf8E4M3FN> scales(%sb : tensor<?x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

// Blocks the kernel's 128-K promotions cannot apply.
func.func @block_64(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x4xf32>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<2x2xf32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with blocks other than [1, 128] (lhs) and [128, 128] or [1, 128] (rhs) (lhs #fpx.scaling<block = [1, 64], rule = amax, scale = f32>, rhs #fpx.scaling<block = [128, 128], rule = amax, scale = f32>): block scales are applied at the kernel's 128-K promotions is not lowered yet}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<?x4xf32>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<2x2xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 64], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

func.func @lhs_block_128x128(%a: tensor<256x256xf8E4M3FN>, %sa: tensor<2x2xf32>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<2x2xf32>) -> tensor<256x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with blocks other than [1, 128] (lhs) and [128, 128] or [1, 128] (rhs)}}
  %c = fpx.scaled_matmul %a : tensor<256x256xf8E4M3FN> scales(%sa : tensor<2x2xf32>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<2x2xf32>) {
      lhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>} -> tensor<256x256xbf16>
  return %c : tensor<256x256xbf16>
}

// -----

// MXFP8 x MXFP8 (e4m3 x e5m2, E8M0 [1, 32] scales on both sides, an f32
// bias) with the unit attribute fpx.mx_bf16 (for comparisons; the default
// is the promoted fp8 form, below): one kernel, the bf16 form with a
// 128x256 tile for every M (split-K
// where the tiles are few) and the st.global epilogue. Launch checks: K a
// multiple of 32, the scales [M, K / 32] and [N, K / 32]. The scale warp
// reads each row's four codes of a stage (one 32-bit load where rows and
// pointers are 4-byte aligned, else byte loads, blocks past K as 127 =
// 2^0) and turns each into its two bf16x2 factors (Bf16Dequant.h: min /
// max against 127, the rebias 120 for e4m3 A and 112 for e5m2 B) in the
// stage's slot (1024 + 2 bf16 slices of 384 x 128 bytes + 2 stages x
// (49152 + 16 + 4 x 384 x 8) + 8). The consumers convert slice 0 (half a
// stage: 16-byte chunks of codes through the e4m3 or e5m2 program, two
// 16-byte bf16 stores each), fence to the async proxy and meet at named
// barrier 3 (256 threads); each iteration then issues four bf16 wgmma
// m64n256k16 accumulating (D one: no promotion, no fma), converts the next
// slice while they run, waits for them and meets again.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg0_1 % 32", message = "the MXFP8 scaled GEMM needs K (arg0_1) to be a multiple of 32 (one e8m0 scale a 32-element block of K)"}, {expr = "arg1_0 - arg0_0", message = "the e8m0 scales arg1 of A must have M (arg0_0) rows"}, {expr = "arg1_1 - cdiv(arg0_1, 32)", message = "the e8m0 scales arg1 of A must have cdiv(arg0_1, 32) columns (row-major, one a 32-element block of K)"}, {expr = "arg3_0 - arg2_0", message = "the e8m0 scales arg3 of B must have N (arg2_0) rows"}, {expr = "arg3_1 - cdiv(arg0_1, 32)"
// CHECK: gpu.func @mxfp8_mxfp8_bf16_gemm0(
// CHECK-SAME: grid = ["min(cdiv(arg0_0, 128)*cdiv(arg2_0, 256)*4, sm_count)", "1", "1"]
// CHECK-SAME: shared_bytes = 222248
// CHECK-SAME: fpx.tensor_map_args = array<i32: 0, 1>
// CHECK-NOT: gpu.func
// CHECK: nvvm.mbarrier.init %{{.*}}, %c33_i32
// CHECK: nvvm.setmaxregister decrease 40
// Scale warp: aligned rows (K / 32 % 4 and both pointers' low bits).
// CHECK: llvm.ptrtoint %arg3
// CHECK: llvm.ptrtoint %arg2
// CHECK: scf.if
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.inline_asm "{{.*}}min.u32 %dq0, $2, 0x0000007f;\0Aadd.u32 %dq0, %dq0, 0x00000078;{{.*}}mul.lo.u32 $1, %dq1, 0x00010001
// CHECK: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<3>
// CHECK: llvm.inline_asm "{{.*}}add.u32 %dq0, %dq0, 0x00000070;
// CHECK: } else {
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.select %{{.*}}, %{{.*}}, %c127_i32
// CHECK: nvvm.mbarrier.arrive
// Consumers: slice 0 (A rows through the e4m3 program, B's the e5m2 one).
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK: llvm.inline_asm "{{.*}}and.b32 %dq0, $2, 0x7f7f7f7f;\0Aadd.u32 %dq1, %dq0, 0x01010101;{{.*}}shr.u32 %dq4, %dq4, 4;{{.*}}mul.rn.bf16x2 %dq4, %dq4, $3;\0Amul.rn.bf16x2 $0, %dq4, $4;
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: llvm.inline_asm "{{.*}}and.b32 %dq1, $2, 0x7c7c7c7c;\0Aadd.u32 %dq1, %dq1, 0x04040404;{{.*}}shr.u32 %dq4, %dq4, 3;
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: arith.constant 256
// CHECK-NEXT: arith.constant 3
// CHECK-NEXT: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// The loop: four bf16 wgmmas into the accumulator, the next slice, the wait.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: llvm.intr.fma
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: llvm.intr.fma
// CHECK: scf.if
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: mul.rn.bf16x2
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: llvm.intr.fma
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.intr.fma
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.barrier
// No tensor scales in the epilogue: the f32 bias, then bf16 stores.
// CHECK-NOT: nvvm.wgmma
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @mxfp8(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E5M2>, %sb: tensor<?x?xf8E8M0FNU>, %bias: tensor<?xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E5M2> scales(%sb : tensor<?x?xf8E8M0FNU>) bias(%bias : tensor<?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, fpx.mx_bf16} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// MXFP8 without the attribute takes the promoted fp8 form (measured faster
// than the bf16 form at every shape): the 128x128 tile, fp8 wgmma
// m64n128k32 with a fresh partial each k32 and the fma promotion; one
// kernel, st.global.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK: gpu.func @mx_promoted_mxfp8_gemm0(
// CHECK-SAME: grid = ["min(cdiv(arg0_0, 128)*cdiv(arg2_0, 128)*4, sm_count)", "1", "1"]
// CHECK-NOT: gpu.func
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: llvm.intr.fma
// CHECK-NOT: <bf16>
func.func @mx_promoted(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

// MXFP8 needs whole 32-blocks of K (208 is a multiple of 16, not 32): a
// static K is refused by the op's verifier, a dynamic one at launch (the
// requirement checked in @mxfp8 above).
func.func @mxfp8_k_not_32(%a: tensor<?x208xf8E4M3FN>, %sa: tensor<?x6xf8E8M0FNU>, %b: tensor<256x208xf8E4M3FN>, %sb: tensor<256x6xf8E8M0FNU>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op block size 32 does not divide dimension 1 of size 208}}
  %c = fpx.scaled_matmul %a : tensor<?x208xf8E4M3FN> scales(%sa : tensor<?x6xf8E8M0FNU>), %b : tensor<256x208xf8E4M3FN> scales(%sb : tensor<256x6xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// MX scales beside f32 ones: refused.
func.func @mxfp8_one_side(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x8xf8E8M0FNU>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<256x1xf32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with MX scales on one side only (lhs #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, rhs #fpx.scaling<block = [1, *], rule = amax, scale = f32>) is not lowered yet on sm_90a}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<?x8xf8E8M0FNU>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<256x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// MX e8m0 scales of other blocks ([1, 64]): refused.
func.func @mx_block_64(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x4xf8E8M0FNU>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<256x4xf8E8M0FNU>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with MX or other non-f32 block scales (lhs #fpx.scaling<block = [1, 64], rule = floor, scale = f8E8M0FNU>}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<?x4xf8E8M0FNU>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<256x4xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 64], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 64], rule = floor, scale = f8E8M0FNU>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// Unpacked e2m1 codes (f4E2M1FN elements, a byte each) are refused: NVFP4
// operands are fp4x2.
func.func @nvfp4(%a: tensor<?x256xf4E2M1FN>, %sa: tensor<?x16xf8E4M3FN>, %b: tensor<256x256xf4E2M1FN>, %sb: tensor<256x16xf8E4M3FN>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with e2m1 operands that are not both packed fp4x2 is not lowered yet on sm_90a}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf4E2M1FN> scales(%sa : tensor<?x16xf8E4M3FN>), %b : tensor<256x256xf4E2M1FN> scales(%sb : tensor<256x16xf8E4M3FN>) {
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// NVFP4 x NVFP4 (fp4x2 e2m1 codes, e4m3 [1, 16] scales, an f32 tensor scale
// each): the bf16 form with a 128x256 tile (split-K where the tiles are
// few), the st.global epilogue. Launch checks: B's rows as A's (bytes), K
// (= 2 x A's bytes a row) a multiple of 32, the scales [M, K / 16] and
// [N, K / 16]. No scale warp (one arrival on a stage's full barrier): the
// consumers read each chunk's two e4m3 codes from global memory (byte
// loads, past K 0x38), turn them into factors and dequantize 32 codes a
// chunk with the e2m1 program (shl/shr, and, lop3 0xEA, two mul.rn.bf16x2)
// into four 16-byte bf16 stores; bf16 wgmma m64n256k16 accumulating (no
// promotion); the tensor scales multiply the accumulator in the epilogue
// (1024 + 2 slices x 49152 + 2 stages x (49152 + 16) + 8 bytes). K is
// passed in codes (arg0_1*2).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg3_1 - arg0_1", message = "the NVFP4 scaled GEMM needs B (arg3) to have arg0_1 bytes a row (K = arg0_1*2 codes), as A"}, {expr = "(arg0_1*2) % 32"
// CHECK-SAME: {expr = "arg1_1 - cdiv(arg0_1*2, 16)", message = "the e4m3 scales arg1 of A must have cdiv(arg0_1*2, 16) columns (row-major, one a 16-element block of K)"}
// CHECK: gpu.func @nv_nvfp4_bf16_gemm0(
// CHECK-SAME: grid = ["min(cdiv(arg0_0, 128)*cdiv(arg3_0, 256)*4, sm_count)", "1", "1"]
// CHECK-SAME: shared_bytes = 197672
// CHECK-NOT: gpu.func
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.setmaxregister increase 232
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.select %{{.*}}, %{{.*}}, %c56_i32
// CHECK: llvm.inline_asm "{{.*}}mov.b32 $0, 0x7e807e80;
// CHECK: llvm.inline_asm "{{.*}}shl.b32 %dq0, $4, 6;{{.*}}lop3.b32 %dq0, %dq0, 0x01c001c0, %dq1, 234;\0Amul.rn.bf16x2 %dq0, %dq0, $5;\0Amul.rn.bf16x2 $0, %dq0, $6;
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: llvm.intr.fma
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The epilogue: the two tensor scales.
// CHECK: llvm.load %arg8 {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.mulf
// CHECK: llvm.load %arg9 {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.mulf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @nv(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>, %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>), %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// NVFP4 with a static K that is not a multiple of 32 (TMA's 16-byte rows).
func.func @nv_k_not_32(%a: tensor<?x40xi8>, %sa: tensor<?x5xf8E4M3FN>, %b: tensor<256x40xi8>, %sb: tensor<256x5xf8E4M3FN>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with NVFP4 operands needs K (80) to be a multiple of 32: A and B rows are copied by TMA, whose row stride is a multiple of 16 bytes}}
  %c = fpx.scaled_matmul %a : tensor<?x40xi8> scales(%sa : tensor<?x5xf8E4M3FN>), %b : tensor<256x40xi8> scales(%sb : tensor<256x5xf8E4M3FN>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// A static K that TMA cannot stride (not a multiple of 16 bytes).
func.func @k_not_16(%a: tensor<?x200xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x200xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with fp8 operands needs K (200) to be a multiple of 16: A and B rows are copied by TMA, whose row stride is a multiple of 16 bytes}}
  %c = fpx.scaled_matmul %a : tensor<?x200xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<256x200xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// An f16 result is not lowered yet.
func.func @f16_out(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x256xf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with a result of element type other than bf16 or f32 is not lowered yet}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xf16>
  return %c : tensor<?x256xf16>
}

// -----

// fp8 activations times a bf16 weight: not lowered yet.
func.func @fp8_x_bf16(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x256xbf16>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with a high-precision or unscaled operand on one side only is not lowered yet}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<256x256xbf16> {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// An fp8 lhs format without scales: not lowered yet (and no crash).
func.func @fp8_unscaled(%a: tensor<?x256xi8>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op with a high-precision or unscaled operand on one side only is not lowered yet}}
  %c = fpx.scaled_matmul %a : tensor<?x256xi8>, %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_format = #fpx.format<e4m3fn>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// A bias (f32, N values) on the fp8 GEMM: the last kernel argument, checked
// against N at launch, added in the epilogue after the row scales and before
// the cast to bf16 (columns past N read the last value; their stores are
// masked).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: "arg0_0", "arg2_0", "arg0_1", "arg4", "tmp0", "tmp1"], kernel = "bias_fp8_gemm0"
// CHECK-SAME: "arg0_0", "arg2_0", "arg0_1", "arg4", "tmp0", "tmp1"], kernel = "bias_fp8_gemm1"
// CHECK-SAME: {expr = "arg4_0 - arg2_0", message = "the bias arg4 must have N (arg2_0) elements"}
// CHECK: gpu.func @bias_fp8_gemm0(
// CHECK-SAME: {name = "K", type = "i64"}, {name = "bias", type = "ptr"}
// CHECK: llvm.getelementptr %arg9[
// CHECK: nvvm.stmatrix
// The st.global kernel:
// CHECK: gpu.func @bias_fp8_gemm1(
// CHECK-SAME: {name = "K", type = "i64"}, {name = "bias", type = "ptr"}
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// A column group's two column scales and two bias values, then its rows:
// the accumulator (a result of the K loop) times the scales, plus the bias.
// CHECK: %[[BP:.*]] = llvm.getelementptr %arg8[
// CHECK-NEXT: %[[B:.*]] = llvm.load %[[BP]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: llvm.getelementptr %arg8[
// CHECK: %[[V:.*]] = arith.mulf %{{[0-9]+}}#{{[0-9]+}}, %{{.*}} : f32
// CHECK-NEXT: arith.mulf %{{[0-9]+}}#{{[0-9]+}}
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[V]], %[[B]] : f32
// CHECK: arith.truncf %[[S]] : f32 to bf16
func.func @bias(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x1xf32>, %bias: tensor<?xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x1xf32>) bias(%bias : tensor<?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// MXFP8 x MXFP8 with both sides' e8m0 scales blocked 128x4 (rows padded to
// 128, scale columns to 4): the same promoted kernel; the launch checks ask
// for the padded shapes; the scale warp's offsets are a tile's 512 bytes
// (tile = row / 128 * tiles a row + column / 4) plus a 16-byte row (row %
// 32) and a 4-byte word (row / 32 % 4), and a word's codes past K become
// 127 (0x7F7F7F7F: padding, whatever it holds, counts as scale 1).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg1_0 - cdiv(arg0_0, 128)*128", message = "the e8m0 scales arg1 of A must have cdiv(arg0_0, 128)*128 rows (blocked 128x4: M (arg0_0) padded to a multiple of 128)"}, {expr = "arg1_1 - cdiv(cdiv(arg0_1, 32), 4)*4", message = "the e8m0 scales arg1 of A must have cdiv(cdiv(arg0_1, 32), 4)*4 columns (blocked 128x4: one a 32-element block of K, padded to a multiple of 4)"}
// CHECK-SAME: {expr = "arg3_0 - cdiv(arg2_0, 128)*128"
// CHECK: gpu.func @mxb_mxfp8_gemm0(
// CHECK: arith.divui %{{.*}}, %c128_i64
// CHECK: arith.muli %{{.*}}, %c512_i64
// CHECK: arith.muli %{{.*}}, %c16_i64
// CHECK: arith.andi %{{.*}}, %c2139062143_i32
func.func @mxb(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x?xf8E8M0FNU>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x?xf8E8M0FNU>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x?xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>, rhs_scale_layout = #fpx.layout<blocked_128x4>}
      -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}

// -----

// NVFP4 with A's scales blocked and B's row-major: each side's launch check
// in its own layout; the consumers pick a row group's offset by its side.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg1_0 - cdiv(arg0_0, 128)*128"
// CHECK-SAME: {expr = "arg4_0 - arg3_0", message = "the e4m3 scales arg4 of B must have N (arg3_0) rows"}
// CHECK: gpu.func @nvb_nvfp4_bf16_gemm0(
// CHECK: arith.muli %{{.*}}, %c512_i64
// CHECK: arith.select
func.func @nvb(%a: tensor<?x?xi8>, %sa: tensor<?x?xf8E4M3FN>, %ga: tensor<f32>, %b: tensor<?x?xi8>, %sb: tensor<?x?xf8E4M3FN>, %gb: tensor<f32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xi8> scales(%sa : tensor<?x?xf8E4M3FN>) global_scale(%ga : tensor<f32>), %b : tensor<?x?xi8> scales(%sb : tensor<?x?xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

// A weight-only linear (mma_tiles) with blocked weight scales is refused:
// its kernels read row-major scales.
func.func @wo_blocked(%x: tensor<?x4096xbf16>, %w: tensor<256x2048xi8>, %s: tensor<256x256xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x256xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op has no kernel lowering for weight scales in the blocked 128x4 layout (the kernels read row-major ones)}}
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<256x2048xi8> scales(%s : tensor<256x256xf8E4M3FN>) global_scale(%g : tensor<f32>) {
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<mma_tiles>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scale_layout = #fpx.layout<blocked_128x4>} -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
