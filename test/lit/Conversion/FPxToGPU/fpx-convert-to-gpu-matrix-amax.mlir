// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// NVFP4 over a batch of matrices (E, M, K) with one amax per matrix: one
// launch, the kernel taking the matrix's element count as a last parameter;
// each 8192-element tile (counted from the end after the reversal for L2)
// reads the amax of its matrix when its cast starts (after its loads),
// tile / (M * K / 8192) in 32 bits, the tile clamped to the last one (on
// sm_90 a CTA casts two tiles, the second possibly past the end). The
// launch record requires one amax per matrix and matrices of a multiple of
// 8192 elements.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg1", "arg2", "arg0_0*arg0_1*arg0_2", "arg0_2", "arg0_1*arg0_2"], kernel = "experts_quantize0"}]
// CHECK-SAME: {expr = "arg1_0 - arg0_0", message = "dimension 0 of arg1 must be arg0_0 (one amax per matrix of arg0)"}
// CHECK-SAME: {expr = "(arg0_1*arg0_2) % 8192", message = "a per-matrix amax needs matrices of a multiple of 8192 elements; arg0's have arg0_1*arg0_2"}
// CHECK: gpu.func @experts_quantize0(%{{.*}}, %[[AMAX:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %[[TOTAL:.*]]: i64, %{{.*}}: i64, %[[MATRIX:.*]]: i64)
// CHECK-SAME: {name = "matrix", type = "i64"}
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[CTA:.*]] = arith.subi %[[LAST]], %{{.*}} : i64
// CHECK: %[[MT64:.*]] = arith.divui %[[MATRIX]], %c8192_i64 : i64
// CHECK-NEXT: %[[MT:.*]] = arith.trunci %[[MT64]] : i64 to i32
// CHECK: %[[NT64:.*]] = arith.divui %[[TOTAL]], %c8192_i64{{.*}} : i64
// CHECK-NEXT: %[[NT:.*]] = arith.trunci %[[NT64]] : i64 to i32
// CHECK: %[[LASTTILE:.*]] = arith.subi %[[NT]], %c1_i32 : i32
// CHECK: %[[TILE:.*]] = arith.muli %[[CTA]], %{{.*}} : i64
// CHECK: llvm.inline_asm has_side_effects ""
// CHECK-NEXT: %[[T:.*]] = arith.trunci %[[TILE]] : i64 to i32
// CHECK-NEXT: arith.cmpi ule, %[[T]], %[[LASTTILE]] : i32
// CHECK-NEXT: %[[IN:.*]] = arith.minui %[[T]], %[[LASTTILE]] : i32
// CHECK-NEXT: %[[E:.*]] = arith.divui %[[IN]], %[[MT]] : i32
// CHECK: %[[E64:.*]] = arith.extui %[[E]] : i32 to i64
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[AMAX]][%[[E64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: llvm.load %[[AT]]
func.func @experts(%x: tensor<?x?x?xbf16>, %a: tensor<?xf32>, %seed: i64) -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  return %q, %s : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
}

// -----

// Dequantize of such a batch with one g per matrix (what the quantize's
// caller derives from the amaxes): one launch, each CTA reading its
// matrix's g (CTA / (M * K / 8192), in 32 bits); the same launch-record
// requirements over the result.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "arg1", "arg2", "result0", "arg0_0*arg0_1*(arg0_2*2)", "arg0_2*2", "arg0_1*(arg0_2*2)"], kernel = "experts_dq_dequantize0"}]
// CHECK-SAME: {expr = "arg2_0 - arg0_0", message = "dimension 0 of arg2 must be arg0_0 (one global_scale per matrix of result0)"}
// CHECK-SAME: {expr = "(arg0_1*(arg0_2*2)) % 8192", message = "a per-matrix global_scale needs matrices of a multiple of 8192 elements; result0's have arg0_1*(arg0_2*2)"}
// CHECK: gpu.func @experts_dq_dequantize0(%{{.*}}, %{{.*}}, %[[G:.*]]: !llvm.ptr<1>, %{{.*}}, %{{.*}}: i64, %{{.*}}: i64, %[[MATRIX:.*]]: i64)
// CHECK-SAME: {name = "matrix", type = "i64"}
// CHECK: %[[CTAS64:.*]] = arith.divui %[[MATRIX]], %c8192_i64 : i64
// CHECK-NEXT: %[[CTAS:.*]] = arith.trunci %[[CTAS64]] : i64 to i32
// CHECK-NEXT: %[[CTA:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK-NEXT: %[[E:.*]] = arith.divui %[[CTA]], %[[CTAS]] : i32
// CHECK-NEXT: %[[E64:.*]] = arith.extui %[[E]] : i32 to i64
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[G]][%[[E64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT: llvm.load %[[AT]]
func.func @experts_dq(%q: tensor<?x?x?xi8>, %s: tensor<?x?x?xf8E4M3FN>, %g: tensor<?xf32>) -> tensor<?x?x?xbf16> {
  %y = fpx.dequantize %q, %s global_scale(%g : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN> -> tensor<?x?x?xbf16>
  return %y : tensor<?x?x?xbf16>
}

// -----

// fpx.global_scale of the per-matrix amax, only returned: fused into the
// cast, g[e] stored by thread 0 of the tile that starts matrix e (its place
// r in the matrix 0, and within the input: never a tile past the end, whose
// e is clamped); an empty input launches no cast CTA, and then (only then)
// a kernel of one thread a matrix stores them.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {args = ["arg1", "result2", "arg1_0"], kernel = "experts_g_global_scale0"}
// CHECK-SAME: outputs = [{{.*}}{dtype = "f32", name = "result2", shape = ["arg1_0"]}]
// CHECK: gpu.func @experts_g_global_scale0(%[[A:.*]]: !llvm.ptr<1>, %[[OUT:.*]]: !llvm.ptr<1>, %[[N:.*]]: i64)
// CHECK-SAME: grid = ["(1-min(arg0_0*arg0_1*arg0_2, 1))*cdiv(arg1_0, 256)", "1", "1"]
// CHECK: %[[MINE:.*]] = arith.cmpi ult, %[[I:.*]], %[[N]] : i64
// CHECK: gpu.func @experts_g_quantize1(%{{.*}}, %[[GOUT:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %[[MATRIX:.*]]: i64)
// CHECK: %[[MT64:.*]] = arith.divui %[[MATRIX]], %c8192_i64 : i64
// CHECK-NEXT: %[[MT:.*]] = arith.trunci %[[MT64]] : i64 to i32
// CHECK: llvm.inline_asm has_side_effects ""
// CHECK-NEXT: %[[T:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ule, %[[T]], %{{.*}} : i32
// CHECK-NEXT: %[[IN:.*]] = arith.minui %[[T]], %{{.*}} : i32
// CHECK-NEXT: %[[E:.*]] = arith.divui %[[IN]], %[[MT]] : i32
// CHECK-NEXT: %[[ER:.*]] = arith.muli %[[E]], %[[MT]] : i32
// CHECK-NEXT: %[[R:.*]] = arith.subi %[[IN]], %[[ER]] : i32
// CHECK-NEXT: %[[E64:.*]] = arith.extui %[[E]] : i32 to i64
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[R]], %{{.*}} : i32
// CHECK-NEXT: %[[STARTS:.*]] = arith.andi %[[VALID]], %[[FIRST]] : i1
// CHECK-NEXT: %[[AT:.*]] = llvm.getelementptr %[[GOUT]][%[[E64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[T0:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[WHO:.*]] = arith.andi %[[STARTS]], %[[T0]] : i1
// CHECK: scf.if %[[WHO]] {
// CHECK-NEXT: llvm.store %{{.*}}, %[[AT]]
func.func @experts_g(%x: tensor<?x?x?xbf16>, %a: tensor<?xf32>) -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  %g = fpx.global_scale %a : tensor<?xf32>
  return %q, %s, %g : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>
}

// -----

// Two passes per matrix: fpx.amax with a rank-1 result launches a grid of
// (CTAs a matrix, E): each CTA reduces its matrix (blockIdx.y), from the
// matrix's first element, into the matrix's amax.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {args = ["arg0", "result2", "arg0_1*arg0_2"], kernel = "two_pass_amax0"}
// CHECK-SAME: {dtype = "f32", init = "zero", name = "result2", shape = ["arg0_0"]}
// CHECK: gpu.func @two_pass_amax0(%[[IN:.*]]: !llvm.ptr<1>, %[[OUT:.*]]: !llvm.ptr<1>, %[[MK:.*]]: i64)
// CHECK-SAME: grid = ["min(cdiv(arg0_1*arg0_2, 2048), 512)", "arg0_0", "1"]
// CHECK: %[[Y:.*]] = arith.index_castui %block_id_y : index to i64
// CHECK: %[[ELEMS:.*]] = arith.muli %[[Y]], %[[MK]] : i64
// CHECK-NEXT: %[[BYTES:.*]] = arith.muli %[[ELEMS]], %c2_i64 : i64
// CHECK-NEXT: llvm.getelementptr %[[IN]][%[[BYTES]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.getelementptr %[[OUT]][%[[Y]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: gpu.func @two_pass_quantize1(
func.func @two_pass(%x: tensor<?x?x?xbf16>) -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>) {
  %a = fpx.amax %x : tensor<?x?x?xbf16> -> tensor<?xf32>
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>
}

// -----

// A static count of per-matrix amaxes over a dynamic batch: the launch record
// requires the input's matrix count to equal it.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: {expr = "arg0_0 - 4", message = "dimension 0 of arg0 must be 4 (the result holds that many amaxes, one per matrix)"}
func.func @static_count(%x: tensor<?x?x?xbf16>) -> tensor<4xf32> {
  %a = fpx.amax %x : tensor<?x?x?xbf16> -> tensor<4xf32>
  return %a : tensor<4xf32>
}
