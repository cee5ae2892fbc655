// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu | FileCheck %s

// fpx.dequantize becomes one kernel: codes and scales are inputs, the result
// an output whose innermost dimension is unpacked from the codes'; the
// launch record requires whole vectors of 8, whole blocks, and scales of the
// shape the blocks give (so the kernel never reads past them).

// MXFP4: fp4x2 bytes (one 32-bit load per 8 codes), e8m0 scales (2^(c-127),
// NaN for 0xFF), bf16 out rounded in pairs, 16-byte stores.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "u8", name = "arg0", shape = ["arg0_0", "arg0_1"]}, {dtype = "f8e8m0fnu", name = "arg1", shape = ["arg1_0", "arg1_1"]}]
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "result0", "arg0_0*(arg0_1*2)", "arg0_1*2"], kernel = "mxfp4_dequantize0"}]
// CHECK-SAME: outputs = [{dtype = "bf16", name = "result0", shape = ["arg0_0", "arg0_1*2"]}]
// CHECK-SAME: requires = [{expr = "(arg0_1*2) % 32", message = "the innermost dimension of the result must be a multiple of 32 (the scaling block)"}, {expr = "(arg0_1*2) % 8", message = "the innermost dimension of the result must be a multiple of 8"}, {expr = "arg1_0 - arg0_0", message = "dimension 0 of the scales arg1 must be arg0_0"}, {expr = "arg1_1 - ((arg0_1*2)/32)", message = "dimension 1 of the scales arg1 must be (arg0_1*2)/32"}]
// CHECK-SAME: temps = []
// CHECK: gpu.func @mxfp4_dequantize0(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64) kernel attributes {fpx.kernel = {
// CHECK-SAME: block = [256, 1, 1]
// CHECK-SAME: grid = ["cdiv(arg0_0*(arg0_1*2), 8192)", "1", "1"]
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "out", type = "ptr"}, {name = "total", type = "i64"}, {name = "cols", type = "i64"}]
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: arith.constant 2143289344 : i32
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NOT: fpx.convert
// CHECK: gpu.return
func.func @mxfp4(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}

// -----

// MXFP6 4+2 (FP6-LLM bytes): each vector's row comes from one 32-bit
// division per thread, then steps (no 64-bit division per vector); the
// launch record bounds the element count for that.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "(arg0_0*(arg0_1/3*4)) / 34359738368", message = "this dequantize makes fewer than 2^35 elements; result0 would have more"}]
// CHECK: gpu.func @mxfp6_planes_dequantize0(
// CHECK-NOT: {{(divui|remui) %[0-9]+, %arg4 : i64}}
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK-NOT: {{(divui|remui) %[0-9]+, %arg4 : i64}}
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: gpu.return
func.func @mxfp6_planes(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}

// -----

// NVFP4 two-level with blocked scales: the amax input gives the global scale
// amax / (448 * 6); the padded scale shape is required; f16 out.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "u8", name = "arg0", shape = ["arg0_0", "32"]}, {dtype = "f8e4m3fn", name = "arg1", shape = ["arg1_0", "4"]}, {dtype = "f32", name = "arg2", shape = []}]
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "arg2", "result0", "arg0_0*64", "64"], kernel = "nvfp4_dequantize0"}]
// CHECK-SAME: outputs = [{dtype = "f16", name = "result0", shape = ["arg0_0", "64"]}]
// CHECK-SAME: {expr = "arg1_0 - (cdiv(arg0_0, 128)*128)", message = "dimension 0 of the scales arg1 must be cdiv(arg0_0, 128)*128"}, {expr = "(arg0_0*64) / 34359738368", message = "this dequantize makes fewer than 2^35 elements; result0 would have more"}]
// CHECK: gpu.func @nvfp4_dequantize0(
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "amax", type = "ptr"}, {name = "out", type = "ptr"}, {name = "total", type = "i64"}, {name = "cols", type = "i64"}]
// CHECK: arith.minimumf
// CHECK: arith.constant 2.688000e+03 : f32
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
func.func @nvfp4(%q: tensor<?x32xi8>, %s: tensor<?x4xf8E4M3FN>, %a: tensor<f32>) -> tensor<?x64xf16> {
  %x = fpx.dequantize %q, %s amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x32xi8>, tensor<?x4xf8E4M3FN> -> tensor<?x64xf16>
  return %x : tensor<?x64xf16>
}

// -----

// NVFP4 with the global scale g itself (the g a quantize returned): the
// kernel loads it and multiplies, with no amax division.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "u8", name = "arg0", shape = ["arg0_0", "8"]}, {dtype = "f8e4m3fn", name = "arg1", shape = ["arg1_0", "1"]}, {dtype = "f32", name = "arg2", shape = []}]
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "arg2", "result0", "arg0_0*16", "16"], kernel = "nvfp4_g_dequantize0"}]
// CHECK: gpu.func @nvfp4_g_dequantize0(
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "global_scale", type = "ptr"}, {name = "out", type = "ptr"}, {name = "total", type = "i64"}, {name = "cols", type = "i64"}]
// CHECK-NOT: arith.divf
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: arith.divf
// CHECK: gpu.return
func.func @nvfp4_g(%q: tensor<?x8xi8>, %s: tensor<?x1xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x16xbf16> {
  %x = fpx.dequantize %q, %s global_scale(%g : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x8xi8>, tensor<?x1xf8E4M3FN> -> tensor<?x16xbf16>
  return %x : tensor<?x16xbf16>
}

// -----

// One f32 scale per expert matrix of a 3-D (E, N, K) tensor: the scale
// group (N * K elements) is a kernel parameter; f32 out, two 16-byte stores.
// CHECK-LABEL: gpu.module @fpx_kernels attributes {fpx.functions = [{inputs = [{dtype = "f8e4m3fn", name = "arg0", shape = ["arg0_0", "arg0_1", "arg0_2"]}, {dtype = "f32", name = "arg1", shape = ["arg1_0", "1", "1"]}]
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "result0", "arg0_0*arg0_1*arg0_2", "arg0_2", "arg0_1*arg0_2"], kernel = "experts_dequantize0"}]
// CHECK: gpu.func @experts_dequantize0(
// CHECK-SAME: {name = "cols", type = "i64"}, {name = "group", type = "i64"}]
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @experts(%q: tensor<?x?x?xf8E4M3FN>, %s: tensor<?x1x1xf32>) -> tensor<?x?x?xf32> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?x?xf8E4M3FN>, tensor<?x1x1xf32> -> tensor<?x?x?xf32>
  return %x : tensor<?x?x?xf32>
}

// -----

// Rank-3 data with blocked scales (a layout per matrix) is not lowered for
// dequantize yet: a located error.
func.func @blocked_rank3(%q: tensor<2x64x32xf8E4M3FN>, %s: tensor<2x128x4xf8E8M0FNU>) -> tensor<2x64x32xbf16> {
  // expected-error @+1 {{'fpx.dequantize' op no dequantize lowering yet for rank-3 data with blocked_128x4 scales (a layout per matrix)}}
  %x = fpx.dequantize %q, %s {scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<2x64x32xf8E4M3FN>, tensor<2x128x4xf8E8M0FNU> -> tensor<2x64x32xbf16>
  return %x : tensor<2x64x32xbf16>
}

// -----

// Column blocks are not lowered for dequantize: a located error.
func.func @column_blocks(%q: tensor<64x32xf8E4M3FN>, %s: tensor<2x32xf8E8M0FNU>) -> tensor<64x32xbf16> {
  // expected-error @+1 {{'fpx.dequantize' op no dequantize lowering for this block shape (lowered: row blocks [1, N] with N a multiple of 8, [1, *] and per-tensor [*, *])}}
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>}
    : tensor<64x32xf8E4M3FN>, tensor<2x32xf8E8M0FNU> -> tensor<64x32xbf16>
  return %x : tensor<64x32xbf16>
}

// -----

// The NVFP4 global scale needs e4m3 block scales.
func.func @amax_with_f32_scales(%q: tensor<4x32xf8E4M3FN>, %s: tensor<4x1xf32>, %a: tensor<f32>) -> tensor<4x32xbf16> {
  // expected-error @+1 {{'fpx.dequantize' op the NVFP4 global scale (its 'amax' operand) is lowered with e4m3 block scales only}}
  %x = fpx.dequantize %q, %s amax(%a : tensor<f32>) {
      scaling = #fpx.scaling<block = [1, 32], rule = amax, scale = f32>}
    : tensor<4x32xf8E4M3FN>, tensor<4x1xf32> -> tensor<4x32xbf16>
  return %x : tensor<4x32xbf16>
}

// -----

// g itself needs e4m3 block scales too.
func.func @g_with_f32_scales(%q: tensor<4x32xf8E4M3FN>, %s: tensor<4x1xf32>, %g: tensor<f32>) -> tensor<4x32xbf16> {
  // expected-error @+1 {{'fpx.dequantize' op the NVFP4 global scale (its 'global_scale' operand) is lowered with e4m3 block scales only}}
  %x = fpx.dequantize %q, %s global_scale(%g : tensor<f32>) {
      scaling = #fpx.scaling<block = [1, 32], rule = amax, scale = f32>}
    : tensor<4x32xf8E4M3FN>, tensor<4x1xf32> -> tensor<4x32xbf16>
  return %x : tensor<4x32xbf16>
}
