// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu="chip=sm_90a" | FileCheck %s

// A weight-only fp8 linear becomes two decode kernels (8 and 16 tokens a
// CTA); each call's M picks one (the other's grid y is 0). Split-K partial
// sums go to an 8-slot f32 workspace (not cleared) and a counter per 16
// channels (cleared); N, K, the packed weight and the scales are checked
// before launch.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "4096"]}, {dtype = "f8e4m3fn", name = "arg1", shape = ["1024", "4096"]}, {dtype = "f32", name = "arg2", shape = ["1024", "1"]}]
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "arg2", "result0", "tmp0", "tmp1", "arg0_0", "1024", "4096"], kernel = "wo_wo_decode0"}, {args = ["arg0", "arg1", "arg2", "result0", "tmp0", "tmp1", "arg0_0", "1024", "4096"], kernel = "wo_wo_decode1"}]
// CHECK-SAME: outputs = [{dtype = "bf16", name = "result0", shape = ["arg0_0", "1024"]}]
// CHECK-SAME: {expr = "1024 % 128", message = "the weight-only GEMM needs N (1024) to be a multiple of 128"}, {expr = "4096 % 256", message = "the weight-only GEMM needs K (4096) to be a multiple of 256"}
// CHECK-SAME: temps = [{dtype = "f32", name = "tmp0", shape = ["8", "min(arg0_0*1024, 1048576)"]}, {dtype = "i32", init = "zero", name = "tmp1", shape = ["min(cdiv(arg0_0, 8)*1024/16, 65536)"]}]
// CHECK: llvm.mlir.global internal @wo_wo_decode1_x() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<9216 x i16>
// CHECK: llvm.mlir.global internal @wo_wo_decode0_x() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4608 x i16>
// CHECK: gpu.func @wo_wo_decode0(
// CHECK-SAME: grid = ["min(cdiv(1024/128*(4096/256), cdiv(4096/256, 7)), max(1024/128, min(1, max(0, 1048576 + 1 - arg0_0*1024))*cdiv(2*sm_count, cdiv(arg0_0, 8))))", "min(1, max(0, 9 - arg0_0))*cdiv(arg0_0, 8)", "1"]
// CHECK-SAME: nvvm.minctasm = 2
// x staged in shared memory by cp.async (zero-filled past M), double buffered.
// CHECK: cp.async.cg.shared.global [$0], [$1], 16, $2;
// CHECK: scf.while
// The weights: 16-byte loads that allocate nothing in L1, a unit ahead.
// CHECK: ld.global.nc.L1::no_allocate.v4.u32
// CHECK: scf.for
// CHECK: cp.async.wait_group 1;
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
// CHECK-SAME: "min(1, max(0, arg0_0 - 8))*cdiv(arg0_0, 16)"
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

// MX block scales on the weight are not lowered yet.
func.func @mx_weight(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %s: tensor<128x8xf8E8M0FNU>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{has no kernel lowering for weight scales other than one f32 per output channel}}
  %y = fpx.scaled_matmul %x : tensor<?x256xbf16>, %w : tensor<128x256xf8E4M3FN> scales(%s : tensor<128x8xf8E8M0FNU>) {
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
