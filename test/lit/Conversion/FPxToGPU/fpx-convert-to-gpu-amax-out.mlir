// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// Delayed scaling: the cast reads a given amax (e.g. the previous step's) and
// the function also returns the amax of this input. The row cast reduces it
// as it reads x (an amax_out parameter after global_scale, before the seed;
// zeroed before the launch), so no amax kernel reads x a second time, whether
// the fpx.amax comes before or after the cast.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg1", "result2", "arg0_0*64", "64"], kernel = "fp8_quantize0"}]
// CHECK-SAME: outputs = [{dtype = "f8e4m3fn", name = "result0", shape = ["arg0_0", "64"]}, {dtype = "f32", name = "result1", shape = ["1", "1"]}, {dtype = "f32", init = "zero", name = "result2", shape = []}]
// CHECK-SAME: launches = [{args = ["arg1", "result3"], kernel = "nvfp4_global_scale0"}, {args = ["arg0", "result0", "result1", "arg1", "result3", "result2", "arg2", "arg0_0*64", "64"], kernel = "nvfp4_quantize1"}]
// CHECK-SAME: {dtype = "f32", init = "zero", name = "result2", shape = []}
// CHECK: gpu.func @fp8_quantize0(
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "out", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "amax", type = "ptr"}, {name = "amax_out", type = "ptr"}, {name = "total", type = "i64"}, {name = "cols", type = "i64"}]
// Per tensor: |x| of every value; a warp maximum (one redux.sync), then
// lane 0 takes the atomic only where its own is larger than the stored
// amax, read before the (last) tile's cast so that the read's latency hides
// behind it.
// CHECK: %[[CUR:.*]] = llvm.load %arg4 {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.inline_asm has_side_effects ""
// CHECK: nvvm.redux.sync umax %{{.*}}, %c-1_i32{{.*}} : i32 -> i32
// CHECK: scf.if
// CHECK: %[[LARGER:.*]] = arith.cmpi ugt, %{{.*}}, %[[CUR]] : i32
// CHECK-NEXT: scf.if %[[LARGER]] {
// CHECK-NEXT: llvm.atomicrmw umax %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK: gpu.func @nvfp4_quantize1(
// CHECK-SAME: {name = "amax", type = "ptr"}, {name = "global_scale", type = "ptr"}, {name = "amax_out", type = "ptr"}, {name = "seed", type = "i64"}
// CHECK: llvm.atomicrmw umax
func.func @fp8(%x: tensor<?x64xbf16>, %prev: tensor<f32>) -> (tensor<?x64xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x64xbf16> -> tensor<?x64xf8E4M3FN>, tensor<1x1xf32>
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x64xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>
}
func.func @nvfp4(%x: tensor<?x64xbf16>, %prev: tensor<f32>, %seed: i64) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>, rounding = #fpx.rounding<rs>}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  %g = fpx.global_scale %prev : tensor<f32>
  return %q, %s, %a, %g : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>, tensor<f32>
}

// -----

// Not fused (an amax kernel of its own): the amax feeds another op; a cast
// computing its own amax (two passes already); a different transform; a
// prologue (the cast sees f(x), the amax x); column blocks.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: kernel = "used_amax1"
// CHECK-SAME: kernel = "own_amax0"
// CHECK-SAME: kernel = "own_amax2"
// CHECK-SAME: kernel = "transform_amax1"
// CHECK-SAME: kernel = "prologue_amax1"
// CHECK-SAME: kernel = "cols_amax1"
// CHECK-NOT: amax_out
func.func @used(%x: tensor<?x64xbf16>, %prev: tensor<f32>) -> (tensor<?x64xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x64xbf16> -> tensor<?x64xf8E4M3FN>, tensor<1x1xf32>
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  %g = fpx.global_scale %a : tensor<f32>
  return %q, %s, %g : tensor<?x64xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>
}
func.func @own(%x: tensor<?x64xbf16>) -> (tensor<?x64xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x64xbf16> -> tensor<?x64xf8E4M3FN>, tensor<1x1xf32>
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x64xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>
}
func.func @transform(%x: tensor<?x64xbf16>, %prev: tensor<f32>) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>, hadamard = 16, hadamard_seed = 5}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  %a = fpx.amax %x {hadamard = 16, hadamard_seed = 6} : tensor<?x64xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>
}
func.func private @twice(f32) -> f32
func.func @prologue(%x: tensor<?x64xbf16>, %prev: tensor<f32>) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {prologue = "twice",
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>
}
func.func @cols(%x: tensor<?x64xbf16>, %prev: tensor<f32>) -> (tensor<64x?xi8>, tensor<64x?xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>, transposed}
    : tensor<?x64xbf16> -> tensor<64x?xi8>, tensor<64x?xf8E4M3FN>
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<64x?xi8>, tensor<64x?xf8E4M3FN>, tensor<f32>
}

// -----

// With the transform (as fpx-fuse-quantize leaves it): the amax of the same
// Hadamard transform fuses too (the cast's block maxima are those of the
// transformed values).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg1", "result2", "arg2", "arg0_0*64", "64"], kernel = "rht_quantize0"}]
func.func @rht(%x: tensor<?x64xbf16>, %prev: tensor<f32>, %seed: i64) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>, rounding = #fpx.rounding<rs>,
      hadamard = 16, hadamard_seed = 5}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  %a = fpx.amax %x {hadamard = 16, hadamard_seed = 5} : tensor<?x64xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>
}

// -----

// One amax per matrix of a batch, given and returned: the per-matrix cast
// reduces its maximum into its tile's matrix's amax (the tile's matrix e,
// an atomic max where larger than the stored value, read when the tile's
// cast starts), with the requirement a static result size over a dynamic
// batch needs. (Two tiles a CTA: fpx-convert-to-gpu-occupancy.mlir.)
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg1", "result2", "arg0_0*arg0_1*arg0_2", "arg0_2", "arg0_1*arg0_2"], kernel = "experts_quantize0"}]
// CHECK-SAME: {dtype = "f32", init = "zero", name = "result2", shape = ["arg0_0"]}
// CHECK-SAME: {expr = "arg0_0 - 4", message = "dimension 0 of arg0 must be 4 (the result holds that many amaxes, one per matrix)"}
// CHECK: gpu.func @experts_quantize0(%{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %{{[^:]*}}: !llvm.ptr<1>, %[[OUT:[^:]*]]: !llvm.ptr<1>,
// CHECK: %[[E:.*]] = arith.divui %{{.*}} : i32
// CHECK: %[[E64:.*]] = arith.extui %[[E]] : i32 to i64
// CHECK-NEXT: llvm.getelementptr %arg3[%[[E64]]]
// CHECK: %[[E64B:.*]] = arith.extui %[[E]] : i32 to i64
// CHECK-NEXT: %[[AT0:.*]] = llvm.getelementptr %[[OUT]][%[[E64B]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: %[[KNOWN:.*]] = llvm.load %[[AT0]] {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: %[[E64C:.*]] = arith.extui %[[E]] : i32 to i64
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[OUT]][%[[E64C]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NOT: gpu.func
// CHECK: nvvm.redux.sync umax %{{.*}}, %c-1_i32{{.*}} : i32 -> i32
// CHECK: arith.cmpi ugt, %{{.*}}, %[[KNOWN]] : i32
// CHECK: llvm.atomicrmw umax %[[AT]]
// CHECK-NOT: llvm.atomicrmw
func.func @experts(%x: tensor<?x?x?xbf16>, %prev: tensor<?xf32>) -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<4xf32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<?xf32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  %a = fpx.amax %x : tensor<?x?x?xbf16> -> tensor<4xf32>
  return %q, %s, %a : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<4xf32>
}
