// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// Standalone layout ops get kernels of their own.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "arg0_0", "arg0_1", "(cdiv(arg0_0, 128)*128)*(cdiv(arg0_1, 4)*4)"], kernel = "sw_swizzle0"}]
// CHECK-SAME: outputs = [{dtype = "f8e8m0fnu", name = "result0", shape = ["cdiv(arg0_0, 128)*128", "cdiv(arg0_1, 4)*4"]}]
// CHECK: gpu.func @sw_swizzle0
func.func @sw(%s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf8E8M0FNU> {
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>} : tensor<?x?xf8E8M0FNU> -> tensor<?x?xf8E8M0FNU>
  return %b : tensor<?x?xf8E8M0FNU>
}

// -----

// Groups of rows (MoE, i32 group end rows): each group padded to 128 rows and
// tiled on its own, one after another; the result holds the upper bound of
// rows + 128 a group, zero past the last group. The kernel walks the group
// ends (an scf.for over the groups) to find its tile's group.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "result0", "arg0_0", "arg0_1", "arg1_0", "(cdiv(arg0_0+128*arg1_0, 128)*128)*(cdiv(arg0_1, 4)*4)"], kernel = "swg_swizzle_groups0"}]
// CHECK-SAME: outputs = [{dtype = "f8e8m0fnu", name = "result0", shape = ["cdiv(arg0_0+128*arg1_0, 128)*128", "cdiv(arg0_1, 4)*4"]}]
// CHECK: gpu.func @swg_swizzle_groups0
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: scf.yield
// CHECK: llvm.store %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
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
  %p = fpx.pack %q {layout = #fpx.layout<fp6_4p2>} : tensor<?x?xf6E3M2FN> -> tensor<?x?xi8>
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
