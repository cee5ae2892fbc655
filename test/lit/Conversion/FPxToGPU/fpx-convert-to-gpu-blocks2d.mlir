// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu -verify-diagnostics | FileCheck %s

// 2-D blocks [Br, Bc], row-major output: one kernel per cast; a CTA owns Br
// rows x tileCols columns (grid (M/Br, cdiv(K, tileCols), E)), the block amax
// goes through warp shuffles and, where a block's rows span warps, a small
// shared-memory array.

// NVFP4 16x16 weights with the two-level scale: amax kernel, then the cast
// (tile 16 x 1024, 64 elements a thread held in registers: each thread 8 rows
// of a column chunk, the chunk's two threads in lane groups 0-15 / 16-31 of
// one warp, so the block amax crosses rows by a shuffle, with no shared
// memory and no barrier; one branch on the block's fast path around all 8
// conversions: 79.5 -> 92.4% of copy at 16384x8192 on an H200,
// docs/results/2026-11-24-h200-12).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result2", "arg0_0*arg0_1"], kernel = "nvfp4_16x16_amax0"}, {args = ["arg0", "result0", "result1", "result2", "arg0_0", "arg0_1"], kernel = "nvfp4_16x16_quantize_b1"}]
// CHECK-SAME: outputs = [{dtype = "u8", name = "result0", shape = ["arg0_0", "arg0_1/2"]}, {dtype = "f8e4m3fn", name = "result1", shape = ["arg0_0/16", "arg0_1/16"]}, {dtype = "f32", init = "zero", name = "result2", shape = []}]
// CHECK-SAME: {expr = "arg0_0 % 16", message = "dimension 0 of arg0 must be a multiple of 16 (the scaling block)"}, {expr = "arg0_1 % 16", message = "the innermost dimension of arg0 must be a multiple of 16 (the scaling block)"}
// CHECK-NOT: addr_space = 3
// CHECK: gpu.func @nvfp4_16x16_quantize_b1
// CHECK-SAME: fpx.kernel = {block = [256, 1, 1], grid = ["arg0_0/16", "cdiv(arg0_1, 1024)", "1"]
// CHECK-SAME: shared_bytes = 0
// CHECK-SAME: nvvm.minctasm = 4
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: fpx.convert {{.*}}in_range
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @nvfp4_16x16(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [16, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}

// -----

// Blockwise fp8 128x128 of (E, M, K) expert weights, f32 scales: the tile is
// one block (128 x 128, 16 rows per pass, 8 vectors per thread), staged in
// shared memory by cp.async (6 CTAs an SM), read back for the amax and again
// for the conversion; the launch index is renumbered row-major over the
// tiles (grid_dim x).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg0_1", "arg0_2"], kernel = "fp8_128_quantize_b0"}]
// CHECK-SAME: outputs = [{dtype = "f8e4m3fn", name = "result0", shape = ["arg0_0", "arg0_1", "arg0_2"]}, {dtype = "f32", name = "result1", shape = ["arg0_0", "arg0_1/128", "arg0_2/128"]}]
// CHECK: llvm.mlir.global internal @fp8_128_quantize_b0_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32768 x i8>
// CHECK: llvm.mlir.global internal @fp8_128_quantize_b0_amax() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x f32>
// CHECK: gpu.func @fp8_128_quantize_b0
// CHECK-SAME: grid = ["arg0_1/128", "cdiv(arg0_2, 128)", "arg0_0"]
// CHECK-SAME: nvvm.minctasm = 6
// CHECK: gpu.grid_dim  x
// CHECK-COUNT-8: cp.async.cg.shared.global [$0], [$1], 16;
// CHECK: cp.async.wait_all;
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: gpu.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: fpx.convert
func.func @fp8_128(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf32>) {
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf32>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf32>
}

// -----

// MXFP8 32x32 with stochastic rounding on static shapes: the seed is a
// kernel argument, static dims appear as numbers.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg1", "64", "512"], kernel = "mx32_quantize_b0"}]
// CHECK-SAME: shape = ["64/32", "512/32"]
// CHECK: gpu.func @mx32_quantize_b0
// CHECK-SAME: grid = ["64/32", "cdiv(512, 256)", "1"]
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "out", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "seed", type = "i64"}, {name = "rows", type = "i64"}, {name = "cols", type = "i64"}]
// CHECK: fpx.convert {{.*}}rounding = #fpx.rounding<rs>
func.func @mx32(%x: tensor<64x512xbf16>, %seed: i64) -> (tensor<64x512xf8E4M3FN>, tensor<2x16xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x seed(%seed) {rounding = #fpx.rounding<rs>,
      scaling = #fpx.scaling<block = [32, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<64x512xbf16> -> tensor<64x512xf8E4M3FN>, tensor<2x16xf8E8M0FNU>
  return %q, %s : tensor<64x512xf8E4M3FN>, tensor<2x16xf8E8M0FNU>
}

// -----

func.func @block_rows_not_tiling(%x: tensor<40x256xbf16>) -> (tensor<40x256xf8E4M3FN>, tensor<4x8xf32>) {
  // expected-error @+1 {{'fpx.quantize' op 2-D blocks of 10 rows do not tile a CTA pass of 4 rows}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [10, 32], rule = amax, scale = f32>}
    : tensor<40x256xbf16> -> tensor<40x256xf8E4M3FN>, tensor<4x8xf32>
  return %q, %s : tensor<40x256xf8E4M3FN>, tensor<4x8xf32>
}

// -----

func.func @block_too_large(%x: tensor<256x256xbf16>) -> (tensor<256x256xf8E4M3FN>, tensor<1x1xf32>) {
  // expected-error @+1 {{'fpx.quantize' op 2-D block 256x256 needs 32 vectors per thread (at most 16 are lowered)}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [256, 256], rule = amax, scale = f32>}
    : tensor<256x256xbf16> -> tensor<256x256xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<256x256xf8E4M3FN>, tensor<1x1xf32>
}
