// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// One scale a row (block [1, *]): one kernel, rows of every matrix
// batch-flat (the kernel's `rows` is E*M), scales (E, M, 1). A team of
// 8 << t threads owns a row (t from the row length, 32 >> t rows a CTA:
// the grid says the same); the row's first chunk is loaded once into
// registers, the rest of a long row read by a loop for the amax and again to
// convert; the row amax is a butterfly over the team's lanes, then over the
// team's warps through an 8-float shared array and one barrier; one branch
// on the scale's fast path around each chunk's conversions.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg0_0*arg0_1", "arg0_2"], kernel = "rows3_quantize_r0"}]
// CHECK-SAME: outputs = [{dtype = "f8e4m3fn", name = "result0", shape = ["arg0_0", "arg0_1", "arg0_2"]}, {dtype = "f32", name = "result1", shape = ["arg0_0", "arg0_1", "1"]}]
// CHECK: llvm.mlir.global internal @rows3_quantize_r0_amax() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x f32>
// CHECK: gpu.func @rows3_quantize_r0
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1, 32/(1+min(1,((arg0_2)/8-1)/32))/(1+min(1,((arg0_2)/8-1)/64))/(1+min(1,((arg0_2)/8-1)/128))/(1+min(1,((arg0_2)/8-1)/256))/(1+min(1,((arg0_2)/8-1)/512)))", "1", "1"]
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: scf.for {{.*}} iter_args
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: scf.yield
// CHECK: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK: gpu.shuffle  xor
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: scf.if
// CHECK-COUNT-16: fpx.convert
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: scf.if
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @rows3(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x1xf32>) {
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x1xf32>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x1xf32>
}

// -----

// Static shapes: the same kernel; rs takes its seed, e2m1 codes their
// signs per word (the divided-scale fp4 path).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg1", "6", "64"], kernel = "e2m1_rs_quantize_r0"}]
// CHECK: gpu.func @e2m1_rs_quantize_r0
// CHECK-SAME: grid = ["cdiv(6, 32/(1+min(1,((64)/8-1)/32))/(1+min(1,((64)/8-1)/64))/(1+min(1,((64)/8-1)/128))/(1+min(1,((64)/8-1)/256))/(1+min(1,((64)/8-1)/512)))", "1", "1"]
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "out", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "seed", type = "i64"}, {name = "rows", type = "i64"}, {name = "cols", type = "i64"}]
// CHECK: fpx.convert {{.*}}rounding = #fpx.rounding<rs>
func.func @e2m1_rs(%x: tensor<6x64xbf16>, %seed: i64) -> (tensor<6x32xi8>, tensor<6x1xf8E4M3FN>) {
  %q, %s = fpx.quantize %x seed(%seed) {
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f8E4M3FN>,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, rounding = #fpx.rounding<rs>}
    : tensor<6x64xbf16> -> tensor<6x32xi8>, tensor<6x1xf8E4M3FN>
  return %q, %s : tensor<6x32xi8>, tensor<6x1xf8E4M3FN>
}
