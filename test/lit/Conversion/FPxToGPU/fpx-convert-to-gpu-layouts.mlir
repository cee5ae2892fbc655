// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// Standalone layout ops get kernels of their own. The blocked swizzle runs
// by bands: a CTA stages 128 rows x 64 scale columns in shared memory and
// writes their 16 tiles as 16-byte rows; a band's strips of 64 columns are
// adjacent CTAs of a 1-D grid. A staged row is 17 words (16 and a
// pad word), so the tile writers of a warp read 32 distinct banks. Rows
// of whole words: one branch around a thread's 8 word loads, all in flight
// before the first shared store; elsewhere halves or bytes, two passes a
// branch.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "arg0_0", "arg0_1"], kernel = "sw_swizzle0"}]
// CHECK-SAME: outputs = [{dtype = "f8e8m0fnu", name = "result0", shape = ["cdiv(arg0_0, 128)*128", "cdiv(arg0_1, 4)*4"]}]
// CHECK: llvm.mlir.global internal @sw_swizzle0_band() {{.*}} : !llvm.array<2176 x i32>
// CHECK: gpu.func @sw_swizzle0
// CHECK-SAME: grid = ["cdiv(arg0_0, 128)*cdiv(arg0_1, 64)", "1", "1"]
// CHECK: %[[STRIPS:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: %[[CTA:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: arith.divui %[[CTA]], %[[STRIPS]] : i32
// CHECK: arith.remui %[[CTA]], %[[STRIPS]] : i32
// CHECK: %[[STRIDE:.*]] = arith.constant 17 : i64
// CHECK-NEXT: arith.muli %{{.*}}, %[[STRIDE]] : i64
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NOT: llvm.load
// CHECK-COUNT-8: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (i32, i32) {
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: } else {
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK-NOT: llvm.load
// CHECK-COUNT-2: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
func.func @sw(%s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf8E8M0FNU> {
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>} : tensor<?x?xf8E8M0FNU> -> tensor<?x?xf8E8M0FNU>
  return %b : tensor<?x?xf8E8M0FNU>
}

// -----

// Groups of rows (MoE, i32 group end rows): each group padded to 128 rows and
// tiled on its own, one after another; the result holds the upper bound of
// rows + 128 a group, zero past the last group. One launch: each CTA finds
// its band's first input row and group end itself. It reads the ends 256 at
// a time (an scf.for, a load a thread), scans them by shuffles within warps
// and across the 8 warps by words in shared memory after the staged band
// (the largest end so far, then the bands so far), and the thread whose
// group holds the band writes its entry there. Groups over no rows at all
// are refused (there are bands but no scales to read). Five CTAs an SM.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "arg1", "arg1_0", "arg0_0", "arg0_1"], kernel = "swg_swizzle_groups0"}]
// CHECK-SAME: outputs = [{dtype = "f8e8m0fnu", name = "result0", shape = ["cdiv(arg0_0+128*arg1_0, 128)*128", "cdiv(arg0_1, 4)*4"]}]
// CHECK-SAME: requires = [{expr = "arg1_0 / (arg0_0*(arg1_0+1) + 1)", message = "a grouped blocked swizzle needs at least one row of scales"}]
// CHECK-SAME: temps = []
// CHECK: llvm.mlir.global internal @swg_swizzle_groups0_band() {{.*}} : !llvm.array<2194 x i32>
// CHECK: gpu.func @swg_swizzle_groups0
// CHECK-SAME: grid = ["cdiv(arg0_0+128*arg1_0, 128)*cdiv(arg0_1, 64)", "1", "1"]
// CHECK-SAME: nvvm.minctasm = 5 : i32
// CHECK: %[[STEP:.*]] = arith.constant 256 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]]
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: gpu.shuffle  up
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
func.func @swg(%s: tensor<?x?xf8E8M0FNU>, %ends: tensor<?xi32>) -> tensor<?x?xf8E8M0FNU> {
  %b = fpx.swizzle_scales %s offsets(%ends : tensor<?xi32>) {layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xf8E8M0FNU> -> tensor<?x?xf8E8M0FNU>
  return %b : tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: kernel = "pk_pack0"
// CHECK-SAME: outputs = [{dtype = "u8", name = "result0", shape = ["arg0_0", "arg0_1/4*3"]}]
// CHECK-SAME: requires = [{expr = "arg0_1 % 16"
func.func @pk(%q: tensor<?x?xf6E3M2FN>) -> tensor<?x?xi8> {
  %p = fpx.pack %q {layout = #fpx.layout<fp6_planes>} : tensor<?x?xf6E3M2FN> -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}

// -----

// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: kernel = "hd_hadamard0"
// CHECK: gpu.func @hd_hadamard0
// CHECK: gpu.shuffle  xor
func.func @hd(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %h = fpx.hadamard %x {size = 16, seed = 3} : tensor<?x?xbf16>
  return %h : tensor<?x?xbf16>
}
