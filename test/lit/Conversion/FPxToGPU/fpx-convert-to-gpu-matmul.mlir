// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu="chip=sm_90a" | FileCheck %s

// A weight-only fp8 linear becomes four decode kernels (8, 16, 32 and 64
// tokens a CTA) and, on sm_90a, two wgmma prefill kernels (128 and 256
// tokens a tile); each call's M picks one (the others' grid is 0): the
// smallest decode kernel that holds M up to 64, above it the 256-token
// wgmma kernel when its tiles fill every SM or M holds a whole 256-token
// tile, else the 128-token one. Split-K partial
// sums go to an 8-slot f32 workspace (not cleared) and a counter per 16
// channels (cleared); the 128-token wgmma kernel, where its tiles are at
// most 66, splits K over up to 4 CTAs a tile with a workspace slot of fp32
// partial sums a unit and a kept-zero counter a warpgroup a tile (tmp2,
// tmp3; the 256-token kernel likewise, tmp4 and tmp5, where M holds a
// whole 256-token tile). N, K, the packed
// weight and the scales are checked before launch.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "4096"]}, {dtype = "f8e4m3fn", name = "arg1", shape = ["1024", "4096"]}, {dtype = "f32", name = "arg2", shape = ["1024", "1"]}]
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "arg2", "result0", "tmp0", "tmp1", "arg0_0", "1024", "4096"], kernel = "wo_wo_decode0"}, {args = ["arg0", "arg1", "arg2", "result0", "tmp0", "tmp1", "arg0_0", "1024", "4096"], kernel = "wo_wo_decode1"}, {args = ["arg0", "arg1", "arg2", "result0", "tmp0", "tmp1", "arg0_0", "1024", "4096"], kernel = "wo_wo_decode2"}, {args = ["arg0", "arg1", "arg2", "result0", "tmp0", "tmp1", "arg0_0", "1024", "4096"], kernel = "wo_wo_decode3"}, {args = [{box = [64, 128], dims = ["4096", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, "arg1", "arg2", "result0", "arg0_0", "1024", "4096", "tmp2", "tmp3"], kernel = "wo_wo_wgmma4"}, {args = [{box = [64, 256], dims = ["4096", "arg0_0"], swizzle = 128 : i64, tensor_map = "arg0"}, "arg1", "arg2", "result0", "arg0_0", "1024", "4096", "tmp4", "tmp5"], kernel = "wo_wo_wgmma5"}]
// CHECK-SAME: outputs = [{dtype = "bf16", name = "result0", shape = ["arg0_0", "1024"]}]
// CHECK-SAME: {expr = "1024 % 128", message = "the weight-only GEMM needs N (1024) to be a multiple of 128"}, {expr = "4096 % 256", message = "the weight-only GEMM needs K (4096) to be a multiple of 256"}
// CHECK-SAME: temps = [{dtype = "f32", name = "tmp0", shape = ["max(2, min(16, 8388608/max(1, arg0_0*1024)))", "max(1, min(1, max(0, 1048576 + 1 - arg0_0*1024))*arg0_0*1024)"]}, {dtype = "i32", init = "kept_zero", name = "tmp1", shape = ["min(cdiv(arg0_0, 8)*1024/16, 65536)"]}, {dtype = "f32", name = "tmp2", shape = ["min(1, max(0, arg0_0 - 64))*min(1, 4096)*min(1, max(0, 67 - cdiv(arg0_0, 128)*(1024/128)))*max(0, 1 - min(1, max(0, arg0_0 - 255)))*65536*cdiv(arg0_0, 128)*(1024/128)"]}, {dtype = "i32", init = "kept_zero", name = "tmp3", shape = ["min(1, max(0, arg0_0 - 64))*min(1, 4096)*min(1, max(0, 67 - cdiv(arg0_0, 128)*(1024/128)))*max(0, 1 - min(1, max(0, arg0_0 - 255)))*2*cdiv(arg0_0, 128)*(1024/128)"]}, {dtype = "f32", name = "tmp4", shape = ["min(1, max(0, arg0_0 - 64))*min(1, 4096)*min(1, max(0, 67 - cdiv(arg0_0, 256)*(1024/128)))*min(1, max(0, arg0_0 - 255))*131072*cdiv(arg0_0, 256)*(1024/128)"]}, {dtype = "i32", init = "kept_zero", name = "tmp5", shape = ["min(1, max(0, arg0_0 - 64))*min(1, 4096)*min(1, max(0, 67 - cdiv(arg0_0, 256)*(1024/128)))*min(1, max(0, arg0_0 - 255))*2*cdiv(arg0_0, 256)*(1024/128)"]}
// x is staged in dynamic shared memory (64 tokens' buffers pass 48 KiB).
// CHECK: llvm.mlir.global external @wo_wo_decode3_x() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i16>
// CHECK: llvm.mlir.global external @wo_wo_decode0_x() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i16>
// CHECK: gpu.func @wo_wo_decode0(
// CHECK-SAME: grid = ["min(cdiv(1024/128*(4096/256), cdiv(4096/256, max(2, min(16, 8388608/max(1, arg0_0*1024))) - 1)), max(1024/128, min(1, max(0, 1048576 + 1 - arg0_0*1024))*cdiv(2*sm_count, cdiv(arg0_0, 8))))", "min(1, max(0, 9 - arg0_0))*cdiv(arg0_0, 8)", "1"]
// Two buffers of x's chunk (9216 bytes for 8 tokens) and two of the CTA's
// unit of weights (8 warps x 32 lanes x 128 bytes).
// CHECK-SAME: shared_bytes = 74752 : i64
// CHECK-SAME: nvvm.minctasm = 2
// A unit's weights (each lane's 16-byte pieces) and x (zero-filled past M)
// staged in shared memory by cp.async, the first before the run loop, then
// each unit the next (across runs), double buffered.
// CHECK: cp.async.cg.shared.global [$0], [$1], 16;
// CHECK: cp.async.cg.shared.global [$0], [$1], 16, $2;
// CHECK: scf.while
// CHECK: scf.for
// CHECK: cp.async.cg.shared.global [$0], [$1], 16;
// CHECK: cp.async.cg.shared.global [$0], [$1], 16, $2;
// CHECK: cp.async.wait_group 1;
// The unit's weights read back from shared memory.
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// Decode: the code's byte to the top of its 16-bit lane, sign kept,
// magnitude shifted right by 4 (e4m3 -> bf16), times 2^120.
// CHECK: %[[T:.*]] = llvm.inline_asm "prmt.b32 $0, $1, $2, 0x1404;"
// CHECK: %[[SIGN:.*]] = arith.andi %[[T]], %{{.*}} : i32
// CHECK: %[[MAG:.*]] = arith.andi %[[T]], %{{.*}} : i32
// CHECK: %[[SH:.*]] = arith.shrui %[[MAG]], %c4_i32 : i32
// CHECK: %[[P:.*]] = arith.ori %[[SIGN]], %[[SH]] : i32
// CHECK: %[[H:.*]] = llvm.bitcast %[[P]] : i32 to vector<2xbf16>
// CHECK: arith.mulf %[[H]], %{{.*}} : vector<2xbf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// Split-K: slots, a counter, the last sums the slots in order (ld.cg).
// CHECK: llvm.atomicrmw add
// CHECK: ld.global.cg.f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: gpu.func @wo_wo_decode1(
// CHECK-SAME: "min(1, max(0, arg0_0 - 8))*min(1, max(0, 17 - arg0_0))*cdiv(arg0_0, 16)"
// CHECK-SAME: shared_bytes = 83968 : i64
// CHECK-SAME: nvvm.minctasm = 2
// CHECK: gpu.func @wo_wo_decode2(
// CHECK-SAME: cdiv(1*sm_count, cdiv(arg0_0, 32))
// CHECK-SAME: "min(1, max(0, arg0_0 - 16))*min(1, max(0, 33 - arg0_0))*cdiv(arg0_0, 32)"
// CHECK-SAME: shared_bytes = 102400 : i64
// CHECK-SAME: nvvm.minctasm = 1
// CHECK: gpu.func @wo_wo_decode3(
// CHECK-SAME: "min(1, max(0, arg0_0 - 32))*min(1, max(0, 65 - arg0_0))*cdiv(arg0_0, 64)"
// CHECK-SAME: shared_bytes = 139264 : i64
// CHECK-SAME: nvvm.minctasm = 1
// The wgmma kernels: persistent over 128-channel x 128- or 256-token tiles,
// x as a by-value tensor map, rings of 8 x (16 KiB of x + 8 KiB of codes) or
// 5 x (32 + 8) KiB.
// CHECK: gpu.func @wo_wo_wgmma4(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr<1>
// The 128-token kernel where the 256-token one does not run (M holds no
// whole 256-token tile and those fill no SM once); split-K: with at most 66
// tiles the grid holds up to 4 CTAs a tile.
// CHECK-SAME: grid = ["min(1, max(0, arg0_0 - 64))*min(1, 4096)*max(0, 1 - min(1, min(1, max(0, cdiv(arg0_0, 256)*(1024/128) + 1 - sm_count)) + min(1, max(0, arg0_0 - 255))))*min(cdiv(arg0_0, 128)*(1024/128)*(1 + 3*min(1, max(0, 67 - cdiv(arg0_0, 128)*(1024/128)))), sm_count)", "1", "1"]
// CHECK-SAME: shared_bytes = 197768 : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// Split-K's meeting: the unit's partial sums to its slot, the counter, and
// the last unit's sum of the slots from L2.
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic
// CHECK: ld.global.cg.v4.f32
// CHECK: gpu.func @wo_wo_wgmma5(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr<1>
// CHECK-SAME: fpx.kernel = {block = [384, 1, 1], grid = ["min(1, max(0, arg0_0 - 64))*min(1, 4096)*min(1, min(1, max(0, cdiv(arg0_0, 256)*(1024/128) + 1 - sm_count)) + min(1, max(0, arg0_0 - 255)))*min(cdiv(arg0_0, 256)*(1024/128)*(1 + 3*min(1, max(0, 67 - cdiv(arg0_0, 256)*(1024/128)))), sm_count)", "1", "1"], params = [{name = "tmX", type = "tensor_map"}, {name = "w", type = "ptr"}, {name = "scale", type = "ptr"}, {name = "y", type = "ptr"}, {name = "M", type = "i64"}, {name = "N", type = "i64"}, {name = "K", type = "i64"}, {name = "ws", type = "ptr"}, {name = "cnt", type = "ptr"}], shared_bytes = 205912 : i64}
// CHECK-SAME: fpx.tensor_map_args = array<i32: 0>
// CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c8_i32
// Producer: one thread, a 64 K x 256 token box of x and the 8 row tiles of
// codes (1 KiB each, bulk copies) a stage, on one barrier.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c40960_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-COUNT-8: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c1024_i32
// Consumers: the stage's codes from the shared weight ring, the quad
// transpose into natural K order, the decode of the decode kernel, then
// four register-A wgmmas a stage.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: llvm.inline_asm "prmt.b32 $0, $1, $2, 0x1404;"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}}, {$128, $129, $130, $131}, $132, p, 1, 1, 0;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.yield
// Epilogue: the channel's scale, bf16 stores of y[token][channel].
// CHECK: arith.mulf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: llvm.store %{{.*}} {alignment = 2 : i64} : bf16, !llvm.ptr<1>
func.func @wo(%x: tensor<?x4096xbf16>, %w: tensor<1024x4096xf8E4M3FN>, %s: tensor<1024x1xf32>) -> tensor<?x1024xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x4096xbf16>, %w : tensor<1024x4096xf8E4M3FN> scales(%s : tensor<1024x1xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x1024xbf16>
  return %y : tensor<?x1024xbf16>
}

// -----

// f16 activations with e5m2 weights: the code's byte is already the top of
// an f16 (no shift, no multiply); the MMA takes f16 fragments.
// CHECK-LABEL: gpu.func @wo_f16_wo_decode0(
// CHECK-NOT: arith.mulf %{{.*}} : vector<2xf16>
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// The wgmma kernel takes them too, as f16 wgmma.
// CHECK-LABEL: gpu.func @wo_f16_wo_wgmma5(
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @wo_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xf8E5M2>, %s: tensor<?x1xf32>) -> tensor<?x?xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x?xf16>, %w : tensor<?x?xf8E5M2> scales(%s : tensor<?x1xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}

// -----

// A weight in row-major codes: the kernel reads mma_tiles only.
func.func @not_tiled(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %s: tensor<128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{has no kernel lowering for a weight that is not packed as mma_tiles}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x256xf8E4M3FN> scales(%s : tensor<128x1xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// MXFP8: E8M0 scales of 32 along K, row-major (K/32 columns, checked before
// launch), staged with the weights a unit ahead (8 bytes a row, lanes 0-15
// copying the warp's 16 rows once), read back as one vector<2xi32> for each
// of the lane's rows g, g + 8. Each 32-block's
// two MMA steps go to a fresh partial sum, promoted by an fma with 2^(e-127)
// (e << 23; 2^-127 for 0, NaN for 255); no channel scale in the epilogue.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "256"]}, {dtype = "f8e4m3fn", name = "arg1", shape = ["128", "256"]}, {dtype = "f8e8m0fnu", name = "arg2", shape = ["128", "8"]}]
// CHECK-SAME: {expr = "8 - (256/32)", message = "the weight scales arg2 must have 256/32 columns (one per 32 of K, row-major)"}
// CHECK: gpu.func @mx_weight_wo_decode0(
// CHECK: cp.async.cg.shared.global [$0], [$1], 16;
// CHECK: cp.async.ca.shared.global [$0], [$1], 8;
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK: nvvm.mma.sync
// CHECK: nvvm.mma.sync
// CHECK: %[[E:.*]] = arith.andi %{{.*}}, %c255_i32 : i32
// CHECK: %[[B:.*]] = arith.shli %[[E]], %c23_i32 : i32
// CHECK: arith.cmpi eq, %[[E]], %c0_i32{{.*}} : i32
// CHECK: arith.cmpi eq, %[[E]], %c255_i32{{.*}} : i32
// CHECK: %[[SF:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: llvm.intr.fma(%{{.*}}, %[[SF]], %{{.*}}) : (f32, f32, f32) -> f32
// CHECK-NOT: llvm.load {{.*}} -> f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// The wgmma kernel (bf16 x) folds the E8M0 scale into the decoded pairs:
// each pair rebiased (times the constant 2^120), then times a bf16x2 of
// 2^(e-127) (e << 7; 0x0040 for 0, NaN 0x7FC0 for 255) per 32 of K, loaded
// two bytes a row a stage (and an L1 prefetch of those 8 stages on); no
// channel scale on the result.
// CHECK: gpu.func @mx_weight_wo_wgmma5(
// CHECK-SAME: params = [{name = "tmX", type = "tensor_map"}, {name = "w", type = "ptr"}, {name = "scale", type = "ptr"}, {name = "y", type = "ptr"}
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: nvvm.prefetch level = {{ *}}L1
// CHECK: %[[E:.*]] = arith.andi %{{.*}}, %c255_i32{{.*}} : i32
// CHECK: arith.shli %[[E]], %c7_i32{{.*}} : i32
// CHECK: arith.select %{{.*}}, %c64_i32{{.*}}, %{{.*}} : i32
// CHECK: arith.select %{{.*}}, %c32704_i32{{.*}}, %{{.*}} : i32
// CHECK-COUNT-4: arith.mulf %{{.*}}, %cst{{.*}} : vector<2xbf16>
// CHECK: %[[WP:.*]] = llvm.bitcast %{{.*}} : i32 to vector<2xbf16>
// CHECK-NEXT: %[[SP:.*]] = llvm.bitcast %{{.*}} : i32 to vector<2xbf16>
// CHECK-NEXT: arith.mulf %[[WP]], %[[SP]] : vector<2xbf16>
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: arith.mulf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @mx_weight(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %s: tensor<128x8xf8E8M0FNU>) -> tensor<?x128xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x256xf8E4M3FN> scales(%s : tensor<128x8xf8E8M0FNU>) {
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// MXFP4: e2m1 codes as bytes (K/2 a row, checked), 4-bit mma_tiles: four
// 16-byte pieces a lane a unit (staged by cp.async, read back from shared
// memory); register p of a step is the word shifted left by
// 12 - 4p, sign kept, magnitude >> 6 into bf16's exponent, times 2^126.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "512"]}, {dtype = "u8", name = "arg1", shape = ["128", "256"]}, {dtype = "f8e8m0fnu", name = "arg2", shape = ["128", "16"]}]
// CHECK-SAME: {expr = "256 - (512/2)", message = "the packed weight arg1 must have 512/2 bytes a row (K = 512)"}
// CHECK: gpu.func @mxfp4_wo_decode0(
// CHECK-COUNT-4: cp.async.cg.shared.global [$0], [$1], 16;
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: %[[T:.*]] = arith.shli %{{.*}}, %c12_i32 : i32
// CHECK: %[[SIGN:.*]] = arith.andi %[[T]], %c-2147450880_i32{{.*}} : i32
// CHECK: %[[MAG:.*]] = arith.andi %[[T]], %c1879076864_i32{{.*}} : i32
// CHECK: %[[SH:.*]] = arith.shrui %[[MAG]], %c6_i32{{.*}} : i32
// CHECK: %[[P:.*]] = arith.ori %[[SIGN]], %[[SH]] : i32
// CHECK: %[[H:.*]] = llvm.bitcast %[[P]] : i32 to vector<2xbf16>
// CHECK: arith.mulf %[[H]], %[[C126:.*]] : vector<2xbf16>
// CHECK: nvvm.mma.sync
// CHECK: llvm.intr.fma
func.func @mxfp4(%x: tensor<?x512xbf16>, %w: tensor<128x256xi8>, %s: tensor<128x16xf8E8M0FNU>) -> tensor<?x128xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x512xbf16>, %w : tensor<128x256xi8> scales(%s : tensor<128x16xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// NVFP4: ue4m3 scales of 16 along K (16 bytes a row a unit, staged once a
// warp; one vector<4xi32> shared load for each of rows g, g + 8) and the
// tensor scale g, an
// extra kernel parameter after the scales. The lane's scale byte (its half
// t / 2 of the 32-block) is put at the top of both 16-bit lanes by one prmt
// with a per-lane selector, decoded as e4m3 (>> 1, times 2^8 in f16) and
// taken times 2^7; the decoded e2m1 pairs (>> 3) skip their rebias (2^14)
// and are multiplied by that pair once, so the result is 2^-7 of the sum: no
// promotion (no fma), 2^7 and g on the result.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "f16", name = "arg0", shape = ["arg0_0", "256"]}, {dtype = "u8", name = "arg1", shape = ["256", "128"]}, {dtype = "f8e4m3fn", name = "arg2", shape = ["256", "16"]}, {dtype = "f32", name = "arg3", shape = []}]
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "arg2", "arg3", "result0", "tmp0", "tmp1", "arg0_0", "256", "256"], kernel = "nvfp4_wo_decode0"}
// CHECK: gpu.func @nvfp4_wo_decode0(
// CHECK: cp.async.cg.shared.global [$0], [$1], 16;
// CHECK: scf.for
// CHECK: llvm.inline_asm "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r"
// CHECK: arith.shrui %{{.*}}, %c1_i32{{.*}} : i32
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : vector<2xf16>
// CHECK: %[[S:.*]] = arith.mulf %{{.*}}, %cst{{.*}} : vector<2xf16>
// CHECK: %[[SI:.*]] = llvm.bitcast %[[S]] : vector<2xf16> to i32
// CHECK: llvm.inline_asm "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r"
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : vector<2xf16>
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : vector<2xf16>
// CHECK: arith.shrui %{{.*}}, %c3_i32{{.*}} : i32
// CHECK: %[[WR:.*]] = arith.ori %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.mulf
// CHECK: %[[WV:.*]] = llvm.bitcast %[[WR]] : i32 to vector<2xf16>
// CHECK: %[[SV:.*]] = llvm.bitcast %[[SI]] : i32 to vector<2xf16>
// CHECK: arith.mulf %[[WV]], %[[SV]] : vector<2xf16>
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT: llvm.intr.fma
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK: %[[G:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.mulf %[[P]], %[[G]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// The wgmma kernel takes NVFP4 with either activation: the 4-bit words'
// quad transpose (prmt into 16-bit pieces, one shfl a round), the block
// scale pair of each k16 step on the decoded pairs, g times 2^7 (the
// rebias the f16 scale pairs leave out) on the result.
// CHECK: gpu.func @nvfp4_wo_wgmma5(
// CHECK-SAME: params = [{name = "tmX", type = "tensor_map"}, {name = "w", type = "ptr"}, {name = "scale", type = "ptr"}, {name = "gscale", type = "ptr"}, {name = "y", type = "ptr"}
// CHECK: scf.for
// CHECK: llvm.inline_asm "prmt.b32 $0, $1, $2, 0x3120;"
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: %[[G2:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: %[[GS:.*]] = arith.mulf %[[G2]], %cst{{.*}} : f32
// CHECK: arith.mulf %{{.*}}, %[[GS]] : f32
func.func @nvfp4(%x: tensor<?x256xf16>, %w: tensor<256x128xi8>, %s: tensor<256x16xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x256xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x256xf16>, %w : tensor<256x128xi8> scales(%s : tensor<256x16xf8E4M3FN>) global_scale(%g : tensor<f32>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x256xf16>
  return %y : tensor<?x256xf16>
}

// -----

// MXFP6 (e2m3): 6-bit mma_tiles, K * 3/4 bytes a row (checked); a lane's
// unit is four 16-byte pieces of the low nibbles, then four 8-byte pieces
// of the high plane (its 8 bytes of each 64-of-K tile), staged by cp.async. Register p's codes: the low
// word shifted left by 10 - 4p (or right), masked to bits 10..13 of each
// half, or the high word shifted left by 14 - 8 (i % 2) - 2p masked to bits
// 14..15; sign kept, magnitude >> 6 into bf16, times 2^126. MX promotion.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "512"]}, {dtype = "u8", name = "arg1", shape = ["128", "384"]}, {dtype = "f8e8m0fnu", name = "arg2", shape = ["128", "16"]}]
// CHECK-SAME: {expr = "384 - (512*3/4)", message = "the packed weight arg1 must have 512*3/4 bytes a row (K = 512)"}
// CHECK: gpu.func @mxfp6_wo_decode0(
// CHECK-COUNT-4: cp.async.cg.shared.global [$0], [$1], 16;
// CHECK-COUNT-4: cp.async.ca.shared.global [$0], [$1], 8;
// CHECK: scf.for
// CHECK: %[[L:.*]] = arith.shli %{{.*}}, %c10_i32{{.*}} : i32
// CHECK: %[[H:.*]] = arith.shli %{{.*}}, %c14_i32{{.*}} : i32
// CHECK: %[[LM:.*]] = arith.andi %[[L]], %c1006648320_i32{{.*}} : i32
// CHECK: %[[HM:.*]] = arith.andi %[[H]], %c-1073692672_i32{{.*}} : i32
// CHECK: %[[T:.*]] = arith.ori %[[LM]], %[[HM]] : i32
// CHECK: %[[SIGN:.*]] = arith.andi %[[T]], %c-2147450880_i32{{.*}} : i32
// CHECK: %[[MAG:.*]] = arith.andi %[[T]], %c2080406528_i32{{.*}} : i32
// CHECK: %[[SH:.*]] = arith.shrui %[[MAG]], %c6_i32{{.*}} : i32
// CHECK: %[[P:.*]] = arith.ori %[[SIGN]], %[[SH]] : i32
// CHECK: %[[HV:.*]] = llvm.bitcast %[[P]] : i32 to vector<2xbf16>
// CHECK: arith.mulf %[[HV]], %{{.*}} : vector<2xbf16>
// CHECK: nvvm.mma.sync
// CHECK: llvm.intr.fma
// The wgmma kernel takes MXFP6 with bf16 x (M > 64): a stage's 8 row tiles
// are 8 bulk copies of 768 bytes (6 KiB of weights beside 32 KiB of x); a
// lane reads its 16 low-nibble bytes and 8 high-plane bytes from shared
// memory; each high word goes through the quad transpose of its 4-bit
// groups (shfl.bfly 2: bytes 1, 3 or 0, 2 trade places; shfl.bfly 1:
// nibbles), the low words through the 4-bit one (prmt), then the same
// reassembly as above, and the E8M0 pair times the decoded pairs.
// CHECK: gpu.func @mxfp6_wo_decode3(
// CHECK-SAME: "min(1, max(0, arg0_0 - 32))*min(1, max(0, 65 - arg0_0))*cdiv(arg0_0, 64)"
// CHECK: gpu.func @mxfp6_wo_wgmma5(
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c38912_i32
// CHECK-COUNT-8: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c768_i32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: %[[HV:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK: %[[H0:.*]] = llvm.extractelement %[[HV]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: arith.constant 16711935 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: arith.constant 252645135 : i32
// CHECK: %[[H1:.*]] = llvm.extractelement %[[HV]]
// CHECK: "prmt.b32 $0, $1, $2, 0x3120;"
// CHECK: arith.shli %{{.*}}, %c10_i32{{.*}} : i32
// CHECK: arith.shli %{{.*}}, %c14_i32{{.*}} : i32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
func.func @mxfp6(%x: tensor<?x512xbf16>, %w: tensor<128x384xi8>, %s: tensor<128x16xf8E8M0FNU>) -> tensor<?x128xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x512xbf16>, %w : tensor<128x384xi8> scales(%s : tensor<128x16xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m3fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// FP6-LLM's e3m2 with one f32 scale per output channel, f16: magnitude >> 2,
// times 2^12 (= 4096, e3m2's bias 3 against f16's 15); the channel scale on
// the fp32 result.
// CHECK-LABEL: gpu.func @fp6_channel_wo_decode0(
// CHECK-COUNT-4: cp.async.ca.shared.global [$0], [$1], 8;
// CHECK: scf.for
// CHECK: %[[MAG:.*]] = arith.andi %{{.*}}, %c2080406528_i32{{.*}} : i32
// CHECK: arith.shrui %[[MAG]], %c2_i32{{.*}} : i32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT: llvm.intr.fma
// CHECK: %[[SC:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: arith.mulf %{{.*}}, %[[SC]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// The wgmma kernel takes it too (f16 wgmma, the channel scale on the
// result).
// CHECK-LABEL: gpu.func @fp6_channel_wo_wgmma5(
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @fp6_channel(%x: tensor<?x256xf16>, %w: tensor<256x192xi8>, %s: tensor<256x1xf32>) -> tensor<?x256xf16> {
  %y = fpx.scaled_matmul %x : tensor<?x256xf16>, %w : tensor<256x192xi8> scales(%s : tensor<256x1xf32>) {
      rhs_format = #fpx.format<e3m2fn>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x256xf16>
  return %y : tensor<?x256xf16>
}

// -----

// FP6-LLM's fp5 (e2m2) per channel: K * 5/8 bytes a row, the 1-bit high
// plane (the sign) one 32-bit piece a lane a tile; the low nibble goes to
// bits 11..14 (shift 11 - 4p), the sign bit to 15 (shift 15 - 4i - p);
// magnitude >> 6 into bf16, times 2^126.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "256"]}, {dtype = "u8", name = "arg1", shape = ["128", "160"]}, {dtype = "f32", name = "arg2", shape = ["128", "1"]}]
// CHECK-SAME: {expr = "160 - (256*5/8)", message = "the packed weight arg1 must have 256*5/8 bytes a row (K = 256)"}
// CHECK: gpu.func @fp5_channel_wo_decode0(
// CHECK-COUNT-4: cp.async.cg.shared.global [$0], [$1], 16;
// CHECK-COUNT-4: cp.async.ca.shared.global [$0], [$1], 4;
// CHECK: scf.for
// CHECK: %[[L:.*]] = arith.shli %{{.*}}, %c11_i32{{.*}} : i32
// CHECK: %[[H:.*]] = arith.shli %{{.*}}, %c15_i32{{.*}} : i32
// CHECK: %[[LM:.*]] = arith.andi %[[L]], %c2013296640_i32{{.*}} : i32
// CHECK: %[[HM:.*]] = arith.andi %[[H]], %c-2147450880_i32{{.*}} : i32
// CHECK: arith.ori %[[LM]], %[[HM]] : i32
// CHECK: arith.shrui %{{.*}}, %c6_i32{{.*}} : i32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK: nvvm.mma.sync
// The wgmma kernel: 640-byte row tiles; a lane's one high word (4 bytes)
// transposed in 2-bit groups (shfl.bfly 2: nibbles, shfl.bfly 1: bit pairs).
// CHECK-LABEL: gpu.func @fp5_channel_wo_wgmma4(
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c21504_i32
// CHECK-COUNT-8: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c640_i32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<1xi32>
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: arith.constant 252645135 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: arith.constant 858993459 : i32
// CHECK: arith.shli %{{.*}}, %c11_i32{{.*}} : i32
// CHECK: arith.shli %{{.*}}, %c15_i32{{.*}} : i32
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-LABEL: gpu.func @fp5_channel_wo_wgmma5(
func.func @fp5_channel(%x: tensor<?x256xbf16>, %w: tensor<128x160xi8>, %s: tensor<128x1xf32>) -> tensor<?x128xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x160xi8> scales(%s : tensor<128x1xf32>) {
      rhs_format = #fpx.format<e2m2>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// fp5 (e2m2) with MX scales: not a format of the kernels (refused, located).
func.func @fp5_mx(%x: tensor<?x256xbf16>, %w: tensor<128x160xi8>, %s: tensor<128x8xf8E8M0FNU>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{has no kernel lowering for these weight scales for e2m2}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x160xi8> scales(%s : tensor<128x8xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m2>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// 6-bit mma_tiles hold K * 3/4 bytes a row: 96 bytes are K = 128, not 256 (verifier).
func.func @fp6_bytes_k(%x: tensor<?x256xbf16>, %w: tensor<128x96xi8>, %s: tensor<128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{contraction dimension}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x96xi8> scales(%s : tensor<128x1xf32>) {
      rhs_format = #fpx.format<e3m2fn>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// A byte count that no K of 6-bit codes gives (verifier).
func.func @fp6_odd_bytes(%x: tensor<?x?xbf16>, %w: tensor<128x100xi8>, %s: tensor<128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{mma_tiles rows of 6-bit codes are K * 6 / 8 bytes; 100 bytes hold no whole number of codes}}
  %y = fpx.scaled_matmul %x : tensor<?x?xbf16>, %w : tensor<128x100xi8> scales(%s : tensor<128x1xf32>) {
      rhs_format = #fpx.format<e3m2fn>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// fp6 codes as an FPx element type (one a byte): mma_tiles holds them as
// i8 bytes with rhs_format (verifier).
func.func @fp6_typed(%x: tensor<?x256xbf16>, %w: tensor<128x256xf6E3M2FN>, %s: tensor<128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{mma_tiles holds 6-bit codes as i8 bytes (K * 6 / 8 a row), not 'f6E3M2FN'}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x256xf6E3M2FN> scales(%s : tensor<128x1xf32>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// NVFP4 scales without the tensor scale: refused (the kernel applies g).
func.func @nvfp4_no_g(%x: tensor<?x256xbf16>, %w: tensor<128x128xi8>, %s: tensor<128x16xf8E4M3FN>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{has no kernel lowering for NVFP4 weight scales without the tensor scale (global_scale)}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x128xi8> scales(%s : tensor<128x16xf8E4M3FN>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// e2m1 with f32 channel scales, MX scales of another block: not lowered.
func.func @fp4_channel(%x: tensor<?x256xbf16>, %w: tensor<128x128xi8>, %s: tensor<128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{has no kernel lowering for these weight scales for e2m1fn}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x128xi8> scales(%s : tensor<128x1xf32>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

func.func @mx_block64(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{has no kernel lowering for these weight scales for e4m3fn}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x256xf8E4M3FN> scales(%s : tensor<128x4xf8E8M0FNU>) {
      rhs_scaling = #fpx.scaling<block = [1, 64], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// 7-bit codes in mma_tiles: the layout holds 8-, 6-, 5- and 4-bit codes only (verifier).
func.func @fp7_tiles(%x: tensor<?x256xbf16>, %w: tensor<128x224xi8>, %s: tensor<128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{packing 'mma_tiles' cannot hold the 7-bit format}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x224xi8> scales(%s : tensor<128x1xf32>) {
      rhs_format = #fpx.format<e3m3>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// 4-bit mma_tiles hold K/2 bytes a row: a K x 1-byte weight disagrees (verifier).
func.func @fp4_bytes_k(%x: tensor<?x256xbf16>, %w: tensor<128x256xi8>, %s: tensor<128x8xf8E8M0FNU>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{contraction dimension}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x256xi8> scales(%s : tensor<128x8xf8E8M0FNU>) {
      rhs_format = #fpx.format<e2m1fn>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// A global scale goes with e4m3 block scales only (verifier).
func.func @mx_global(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %s: tensor<128x8xf8E8M0FNU>, %g: tensor<f32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{a global_scale (NVFP4's tensor scale) needs e4m3 block scales on the rhs}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x256xf8E4M3FN> scales(%s : tensor<128x8xf8E8M0FNU>) global_scale(%g : tensor<f32>) {
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// Quantized activations (the scaled GEMMs of training) are not lowered yet.
func.func @fp8_both(%x: tensor<?x256xf8E4M3FN>, %sx: tensor<?x1xf32>, %w: tensor<128x256xf8E4M3FN>, %s: tensor<128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{with a packed rhs is not lowered yet}}
  %y = fpx.scaled_matmul %x : tensor<?x256xf8E4M3FN> scales(%sx : tensor<?x1xf32>), %w : tensor<128x256xf8E4M3FN> scales(%s : tensor<128x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// A bias (bf16, N values): the last kernel argument, checked against N at
// launch, loaded in the epilogue, widened to f32 and added after the channel
// scale, before the cast to the output type.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "arg2", "result0", "tmp0", "tmp1", "arg0_0", "256", "512", "arg3"], kernel = "wo_bias_wo_decode0"}
// CHECK-SAME: {expr = "arg3_0 - 256", message = "the bias arg3 must have N (256) elements"}
// CHECK: gpu.func @wo_bias_wo_decode0(
// CHECK-SAME: {name = "K", type = "i64"}, {name = "bias", type = "ptr"}
// CHECK: %[[SC:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: %[[R:.*]] = arith.mulf %{{.*}}, %[[SC]] : f32
// CHECK: %[[B:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
// CHECK: %[[BF:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[S:.*]] = arith.addf %[[R]], %[[BF]] : f32
// CHECK: arith.truncf %[[S]] : f32 to bf16
func.func @wo_bias(%x: tensor<?x512xbf16>, %w: tensor<256x512xf8E4M3FN>, %s: tensor<256x1xf32>, %bias: tensor<?xbf16>) -> tensor<?x256xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x512xbf16>, %w : tensor<256x512xf8E4M3FN> scales(%s : tensor<256x1xf32>) bias(%bias : tensor<?xbf16>) {
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_packing = #fpx.layout<mma_tiles>} -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
