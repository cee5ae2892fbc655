// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// fpx.global_scale of an NVFP4 cast's amax, only returned: the cast stores it
// (an extra pointer parameter, one thread of CTA (0, 0, 0)), whether the op
// comes before or after the cast. An empty input launches no CTA of the cast:
// then, and only then (grid 1 - min(elements, 1)), a one-thread kernel does.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "64"]}]
// CHECK-SAME: launches = [{args = ["arg0", "tmp0", "arg0_0*64"], kernel = "nvfp4_amax0"}, {args = ["tmp0", "result2"], kernel = "nvfp4_global_scale1"}, {args = ["arg0", "result0", "result1", "tmp0", "result2", "arg0_0*64", "64"], kernel = "nvfp4_quantize2"}]
// CHECK-SAME: outputs = [{dtype = "u8", name = "result0", shape = ["arg0_0", "64/2"]}, {dtype = "f8e4m3fn", name = "result1", shape = ["arg0_0", "64/16"]}, {dtype = "f32", name = "result2", shape = []}]
// CHECK-SAME: temps = [{dtype = "f32", init = "zero", name = "tmp0", shape = []}]
// CHECK: gpu.func @nvfp4_global_scale1(
// CHECK-SAME: grid = ["1-min(arg0_0*64, 1)", "1", "1"]
// CHECK: gpu.func @nvfp4_quantize2(
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "out", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "amax", type = "ptr"}, {name = "global_scale", type = "ptr"}, {name = "total", type = "i64"}, {name = "cols", type = "i64"}]
// The amax's magnitude, clamped to FLT_MAX, over 448 * 6.
// CHECK: arith.andi %{{.*}}, %c2147483647_i32 : i32
// CHECK-NEXT: %[[ABS:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: arith.minimumf %[[ABS]], %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: scf.if
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @nvfp4(%x: tensor<?x64xbf16>) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  %g = fpx.global_scale %a : tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  return %q, %s, %g : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>
}

// -----

// A given amax (delayed scaling), the global scale after the cast, rs: the
// parameter comes before the seed. Column (16x1) and 2-D (16x16) casts store
// it too.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg1", "result2"], kernel = "rows_global_scale0"}, {args = ["arg0", "result0", "result1", "arg1", "result2", "arg2", "arg0_0*64", "64"], kernel = "rows_quantize1"}]
// CHECK-SAME: launches = [{args = ["arg1", "result2"], kernel = "cols_global_scale0"}, {args = ["arg0", "result0", "result1", "arg1", "result2", "arg0_0", "64"], kernel = "cols_quantize_t1"}]
// CHECK-SAME: launches = [{args = ["arg1", "result2"], kernel = "tiles_global_scale0"}, {args = ["arg0", "result0", "result1", "arg1", "result2", "arg0_0", "64"], kernel = "tiles_quantize_b1"}]
// CHECK: gpu.func @rows_quantize1(
// CHECK-SAME: {name = "amax", type = "ptr"}, {name = "global_scale", type = "ptr"}, {name = "seed", type = "i64"}
// CHECK: gpu.func @cols_quantize_t1(
// CHECK-SAME: {name = "amax", type = "ptr"}, {name = "global_scale", type = "ptr"}
// CHECK: gpu.func @tiles_quantize_b1(
// CHECK-SAME: {name = "amax", type = "ptr"}, {name = "global_scale", type = "ptr"}
func.func @rows(%x: tensor<?x64xbf16>, %a: tensor<f32>, %seed: i64) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>, rounding = #fpx.rounding<rs>}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  %g = fpx.global_scale %a : tensor<f32>
  return %q, %s, %g : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>
}
func.func @cols(%x: tensor<?x64xbf16>, %a: tensor<f32>) -> (tensor<64x?xi8>, tensor<64x?xf8E4M3FN>, tensor<f32>) {
  %g = fpx.global_scale %a : tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>, transposed}
    : tensor<?x64xbf16> -> tensor<64x?xi8>, tensor<64x?xf8E4M3FN>
  return %q, %s, %g : tensor<64x?xi8>, tensor<64x?xf8E4M3FN>, tensor<f32>
}
func.func @tiles(%x: tensor<?x64xbf16>, %a: tensor<f32>) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>) {
  %g = fpx.global_scale %a : tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [16, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  return %q, %s, %g : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>
}

// -----

// No NVFP4 cast of that amax (or a cast that is not NVFP4): a one-thread
// kernel of its own, after the amax.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "arg0_0*arg0_1"], kernel = "scale_of_amax0"}, {args = ["result0", "result1"], kernel = "scale_of_global_scale1"}]
// CHECK-SAME: outputs = [{dtype = "f32", init = "zero", name = "result0", shape = []}, {dtype = "f32", name = "result1", shape = []}]
// CHECK: gpu.func @scale_of_global_scale1(
// CHECK-SAME: grid = ["1", "1", "1"]
// CHECK-SAME: params = [{name = "amax", type = "ptr"}, {name = "out", type = "ptr"}]
// CHECK: arith.andi %{{.*}}, %c2147483647_i32 : i32
// CHECK: scf.if
// CHECK: llvm.store
func.func @scale_of(%x: tensor<?x?xbf16>) -> (tensor<f32>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  %g = fpx.global_scale %a : tensor<f32>
  return %a, %g : tensor<f32>, tensor<f32>
}

// -----

// The same with more function arguments, so that defining the cast's
// outputs grows the buffer list: the global-scale launch still names the
// amax argument (a reference into the list read it after it moved).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {args = ["arg4", "result2"], kernel = "many_args_global_scale0"}
// CHECK-SAME: kernel = "many_args_quantize1"
func.func @many_args(%u0: tensor<?xf32>, %u1: tensor<?xf32>, %u2: tensor<?xf32>, %x: tensor<?x?xbf16>, %a: tensor<f32>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  %g = fpx.global_scale %a : tensor<f32>
  return %q, %s, %g : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
