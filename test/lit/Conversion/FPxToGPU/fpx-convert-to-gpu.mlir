// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// Each spec function becomes kernels in gpu.module @fpx_kernels plus an
// fpx.functions record (inputs, scalars, outputs, temps, requires, launches);
// the spec function itself is erased.

// Per-tensor scaling without an amax operand: an amax reduction kernel into a
// zero-initialized temp, then the quantize kernel that reads it.
// CHECK: module attributes {gpu.container_module}
// CHECK-NOT: func.func
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "arg0_1"]}]
// CHECK-SAME: launches = [{args = ["arg0", "tmp0", "arg0_0*arg0_1"], kernel = "fp8_per_tensor_amax0"}, {args = ["arg0", "result0", "result1", "tmp0", "arg0_0*arg0_1", "arg0_1"], kernel = "fp8_per_tensor_quantize1"}]
// CHECK-SAME: name = "fp8_per_tensor"
// CHECK-SAME: outputs = [{dtype = "f8e4m3fn", name = "result0", shape = ["arg0_0", "arg0_1"]}, {dtype = "f32", name = "result1", shape = ["1", "1"]}]
// CHECK-SAME: requires = [{expr = "arg0_1 % 8", message = "the innermost dimension of arg0 must be a multiple of 8"}]
// CHECK-SAME: scalars = []
// CHECK-SAME: temps = [{dtype = "f32", init = "zero", name = "tmp0", shape = []}]
// CHECK: gpu.func @fp8_per_tensor_amax0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64) kernel attributes {fpx.kernel = {
// CHECK-SAME: block = [256, 1, 1]
// CHECK-SAME: grid = ["min(cdiv(arg0_0*arg0_1, 2048), 512)", "1", "1"]
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "out", type = "ptr"}, {name = "total", type = "i64"}]
// CHECK-SAME: shared_bytes = 0 : i64
// CHECK: llvm.atomicrmw umax
// CHECK: gpu.return
// CHECK: gpu.func @fp8_per_tensor_quantize1(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64) kernel attributes {fpx.kernel = {
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1, 8192)", "1", "1"]
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "out", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "amax", type = "ptr"}, {name = "total", type = "i64"}, {name = "cols", type = "i64"}]
// CHECK: fpx.convert %{{.*}} {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
// CHECK: gpu.return
func.func @fp8_per_tensor(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}

// -----

// MXFP8 row blocks with blocked scales (already fused): one kernel, no temps;
// the padded scale output is zero-initialized and its shape is symbolic.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "256"]}]
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg0_0*256", "256"], kernel = "mxfp8_rows_quantize0"}]
// CHECK-SAME: outputs = [{dtype = "f8e4m3fn", name = "result0", shape = ["arg0_0", "256"]}, {dtype = "f8e8m0fnu", init = "zero", name = "result1", shape = ["cdiv(arg0_0, 128)*128", "cdiv(256/32, 4)*4"]}]
// CHECK-SAME: requires = [{expr = "256 % 32", message = "the innermost dimension of arg0 must be a multiple of 32 (the scaling block)"}, {expr = "(arg0_0*256) / 34359738368", message = "this cast handles fewer than 2^35 elements; arg0 has more"}]
// CHECK-SAME: temps = []
// CHECK-NOT: _amax
// CHECK: gpu.func @mxfp8_rows_quantize0(
// CHECK-SAME: kernel attributes {fpx.kernel = {
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "out", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "total", type = "i64"}, {name = "cols", type = "i64"}]
// CHECK: fpx.convert {{.*}}format = #fpx.format<e4m3fn>
// CHECK-NOT: gpu.func
func.func @mxfp8_rows(%x: tensor<?x256xbf16>) -> (tensor<?x256xf8E4M3FN>, tensor<?x8xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x8xf8E8M0FNU>
  return %q, %s : tensor<?x256xf8E4M3FN>, tensor<?x8xf8E8M0FNU>
}

// -----

// NVFP4 with an explicit fpx.amax (returned as an output), packed fp4x2,
// stochastic rounding seeded by an i64 scalar argument.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "bf16", name = "arg0", shape = ["arg0_0", "64"]}]
// CHECK-SAME: launches = [{args = ["arg0", "result2", "arg0_0*64"], kernel = "nvfp4_amax0"}, {args = ["arg0", "result0", "result1", "result2", "arg1", "arg0_0*64", "64"], kernel = "nvfp4_quantize1"}]
// CHECK-SAME: outputs = [{dtype = "u8", name = "result0", shape = ["arg0_0", "64/2"]}, {dtype = "f8e4m3fn", name = "result1", shape = ["arg0_0", "64/16"]}, {dtype = "f32", init = "zero", name = "result2", shape = []}]
// CHECK-SAME: requires = [{expr = "(arg0_0*64) % 8", message = "the number of elements of arg0 must be a multiple of 8"}, {expr = "64 % 16", message = "the innermost dimension of arg0 must be a multiple of 16 (the scaling block)"}]
// CHECK-SAME: scalars = [{default = 0 : i64, name = "arg1", type = "i64"}]
// CHECK-SAME: temps = []
// The fpx.amax op's kernel has the fused amax pass's grid.
// CHECK: gpu.func @nvfp4_amax0(
// CHECK-SAME: grid = ["min(cdiv(arg0_0*64, 2048), 512)", "1", "1"]
// CHECK: gpu.func @nvfp4_quantize1(
// CHECK-SAME: {name = "amax", type = "ptr"}, {name = "seed", type = "i64"}
// CHECK: fpx.convert %{{.*}} rbits(%{{.*}}) {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i16
func.func @nvfp4(%x: tensor<?x64xbf16>, %seed: i64) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>, rounding = #fpx.rounding<rs>}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  return %q, %s, %a : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>
}

// -----

// Two spec functions: one gpu.module, one record each, kernels named per
// function. fp6 packing adds its own precondition.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "f32"
// CHECK-SAME: name = "first"
// CHECK-SAME: }, {
// CHECK-SAME: outputs = [{dtype = "u8", name = "result0", shape = ["arg0_0", "arg0_1/4*3"]}
// CHECK-SAME: requires = [{expr = "arg0_1 % 32", {{.*}}}, {expr = "arg0_1 % 4", message = "fp6 4-in-3 packing needs the innermost dimension of arg0 to be a multiple of 4"}]
// CHECK: gpu.func @first_quantize0(
// CHECK: fpx.convert {{.*}}format = #fpx.format<e5m2>, rounding = #fpx.rounding<rz>
// CHECK: gpu.func @second_quantize0(
// CHECK: fpx.convert {{.*}}format = #fpx.format<e3m2fn>
func.func @first(%x: tensor<?x128xf32>) -> (tensor<?x128xf8E5M2>, tensor<?x1xf32>) {
  %q, %s = fpx.quantize %x {rounding = #fpx.rounding<rz>,
      scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>}
    : tensor<?x128xf32> -> tensor<?x128xf8E5M2>, tensor<?x1xf32>
  return %q, %s : tensor<?x128xf8E5M2>, tensor<?x1xf32>
}
func.func @second(%x: tensor<?x?xf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e3m2>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
