// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// One scale a row (block [1, *]): rows of every matrix batch-flat (the
// kernels' `rows` is E*M), scales (E, M, 1); four kernels, each launch's
// grid 0 where another takes the rows.
// Rows of up to 256 vectors (2048 elements): a team of 8 << t threads owns
// a row (t from the row length: 8, 16, 32 or 64 threads, 256 for longer
// rows, which the staged kernels take; 32 >> t rows a CTA: the grid says
// the same); the row's first chunk is loaded once into registers, the rest of a
// longer row (none reaches it: the staged kernels take them) read by a loop
// for the amax and again to convert; the row amax is a butterfly over the team's lanes, then over
// the team's warps through an 8-float shared array and one barrier; one
// branch on the scale's fast path around each chunk's conversions.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg0_0*arg0_1", "arg0_2"], kernel = "rows3_quantize_r0"}, {args = ["arg0", "result0", "result1", "arg0_0*arg0_1", "arg0_2"], kernel = "rows3_quantize_rsh1"}, {args = ["arg0", "result0", "result1", "arg0_0*arg0_1", "arg0_2"], kernel = "rows3_quantize_rsp2"}, {args = ["arg0", "result0", "result1", "arg0_0*arg0_1", "arg0_2"], kernel = "rows3_quantize_rsl3"}]
// CHECK: llvm.mlir.global internal @rows3_quantize_rsh1_amax() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x f32>
// CHECK: llvm.mlir.global external @rows3_quantize_rsh1_row() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @rows3_quantize_r0_amax() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x f32>
// CHECK: gpu.func @rows3_quantize_r0
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1, 32/(1+min(1,((arg0_2)/8-1)/32))/(1+min(1,((arg0_2)/8-1)/64))/(1+min(1,((arg0_2)/8-1)/128))/(1+3*min(1,((arg0_2)/8-1)/256)))*(1-(min(1,(((arg0_2)/8)-1)/512)*(1-min(1,(((arg0_2)/8)-1)/3072))*(1-min(1,(((arg0_2)/8)*16-1)/98304)))-(min(1,(((arg0_2)/8)-1)/256)*(1-min(1,(((arg0_2)/8)-1)/512))*(1-min(1,(2*((arg0_2)/8)*16-1)/98304)))-(min(1,(((arg0_2)/8)-1)/3072)*(1-min(1,(((arg0_2)/8)-1)/12288))))", "1", "1"]
// CHECK-SAME: shared_bytes = 0
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
// Longer rows, while a CTA's fit in an SM's shared memory less 4 KiB (96 KiB
// without a target: chips with 100 KiB), one a CTA past 512 vectors (below:
// two a CTA up to 512) up to half that (3072 vectors of bf16): staged whole in
// dynamic shared memory (its size the row's bytes, given at launch) by
// cp.async, the amax over the staged vectors (a loop), a butterfly over the
// warp, the warps' maxima through shared memory, then a loop converting
// from shared memory.
// CHECK: gpu.func @rows3_quantize_rsh1
// CHECK-SAME: grid = ["(arg0_0*arg0_1)*(min(1,(((arg0_2)/8)-1)/512)*(1-min(1,(((arg0_2)/8)-1)/3072))*(1-min(1,(((arg0_2)/8)*16-1)/98304)))", "1", "1"]
// CHECK-SAME: shared_bytes = "16*((arg0_2)/8)"
// CHECK: scf.for
// CHECK: llvm.inline_asm has_side_effects "cp.async.cg.shared.global [$0], [$1], 16;"
// CHECK: "cp.async.wait_all;"
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for {{.*}} iter_args
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: scf.if
// CHECK: scf.for
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-4: fpx.convert
// CHECK: llvm.store {{.*}} : i64, !llvm.ptr<1>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// Rows of 257 to 512 vectors: the same, two a CTA, a team of 128 threads a
// row, the CTA's rows copied together.
// CHECK: gpu.func @rows3_quantize_rsp2
// CHECK-SAME: grid = ["(cdiv(arg0_0*arg0_1, 2))*(min(1,(((arg0_2)/8)-1)/256)*(1-min(1,(((arg0_2)/8)-1)/512))*(1-min(1,(2*((arg0_2)/8)*16-1)/98304)))", "1", "1"]
// CHECK-SAME: shared_bytes = "32*((arg0_2)/8)"
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16;"
// CHECK: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK: scf.for
// CHECK: gpu.return
// Rows of more than half the budget (the long-row kernel): one CTA a row,
// but for rows whose staged part fills the budget one CTA an SM (sm_count
// at launch), CTA b casting rows b, b + G, ... Each thread stages its own vectors of the row's first
// part (up to the budget) and loads its 8 of the last 2048 into registers;
// a row's trip reads the vectors between (up to 4096: longer rows take the
// team kernel) for the maximum, two a thread at a time, waits for its own
// copies only (no barrier), reduces the row amax through one of two sets of
// warp slots (one barrier a row), and in the scale's branch converts the
// registers' vectors, then the staged ones four a trip (a loop that copies
// the next row's vectors into their places where there is a next row, one
// that does not), then the vectors between, read again; the next row's
// register vectors are loaded last and carried to the next trip.
// CHECK: gpu.func @rows3_quantize_rsl3
// CHECK-SAME: grid = ["((arg0_0*arg0_1-(16*min(((arg0_2)/8)-2048,6144))/98304*(arg0_0*arg0_1-min(arg0_0*arg0_1, sm_count))))*(min(1,(((arg0_2)/8)-1)/3072)*(1-min(1,(((arg0_2)/8)-1)/12288)))", "1", "1"]
// CHECK-SAME: shared_bytes = "16*min(((arg0_2)/8)-2048,6144)"
// CHECK: gpu.grid_dim x
// CHECK: scf.for
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16;"
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, i64)
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32)
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: "cp.async.wait_all;"
// CHECK-NOT: gpu.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-COUNT-32: fpx.convert
// CHECK: scf.if
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-16: fpx.convert
// CHECK-COUNT-4: "cp.async.cg.shared.global [$0], [$1], 16;"
// CHECK: scf.for
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-COUNT-4: fpx.convert
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16;"
// CHECK: } else {
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: cp.async.cg
// CHECK: scf.for
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-COUNT-8: fpx.convert
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: scf.yield {{.*}} : vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, i64
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
// CHECK-SAME: grid = ["cdiv(6, 32/(1+min(1,((64)/8-1)/32))/(1+min(1,((64)/8-1)/64))/(1+min(1,((64)/8-1)/128))/(1+3*min(1,((64)/8-1)/256)))", "1", "1"]
// CHECK-SAME: params = [{name = "in", type = "ptr"}, {name = "out", type = "ptr"}, {name = "scales", type = "ptr"}, {name = "seed", type = "i64"}, {name = "rows", type = "i64"}, {name = "cols", type = "i64"}]
// CHECK: fpx.convert {{.*}}rounding = #fpx.rounding<rs>
func.func @e2m1_rs(%x: tensor<6x64xbf16>, %seed: i64) -> (tensor<6x32xi8>, tensor<6x1xf8E4M3FN>) {
  %q, %s = fpx.quantize %x seed(%seed) {
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f8E4M3FN>,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, rounding = #fpx.rounding<rs>}
    : tensor<6x64xbf16> -> tensor<6x32xi8>, tensor<6x1xf8E4M3FN>
  return %q, %s : tensor<6x32xi8>, tensor<6x1xf8E4M3FN>
}

// -----

// A static row length picks one kernel: 8192 f32 elements (32 KiB) are
// staged, with the row's bytes as a constant shared memory size.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "6", "8192"], kernel = "wide_f32_quantize_rsh0"}]
// CHECK-NOT: quantize_r0
// CHECK: gpu.func @wide_f32_quantize_rsh0
// CHECK-SAME: grid = ["6", "1", "1"]
// CHECK-SAME: shared_bytes = 32768 : i64
func.func @wide_f32(%x: tensor<6x8192xf32>) -> (tensor<6x8192xf8E4M3FN>, tensor<6x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<6x8192xf32> -> tensor<6x8192xf8E4M3FN>, tensor<6x1xf32>
  return %q, %s : tensor<6x8192xf8E4M3FN>, tensor<6x1xf32>
}

// -----

// Rows of more than half the staging budget (65536 bf16 elements, 128
// KiB; 96 KiB without a target) stage all but their last 32 KiB, which
// their threads hold in registers.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "4", "65536"], kernel = "long_quantize_rsl0"}]
// CHECK-NOT: quantize_r0
// CHECK: gpu.func @long_quantize_rsl0
// CHECK-SAME: grid = ["min(4, sm_count)", "1", "1"]
// CHECK-SAME: shared_bytes = 98304 : i64
func.func @long(%x: tensor<4x65536xbf16>) -> (tensor<4x65536xf8E4M3FN>, tensor<4x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<4x65536xbf16> -> tensor<4x65536xf8E4M3FN>, tensor<4x1xf32>
  return %q, %s : tensor<4x65536xf8E4M3FN>, tensor<4x1xf32>
}

// -----

// Rows past the staging budget with their registers (65544 elements:
// 98320 bytes would be staged) stage the budget's bytes and read the
// vectors between twice.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "4", "65544"], kernel = "longer_quantize_rsl0"}]
// CHECK-NOT: quantize_r0
// CHECK: gpu.func @longer_quantize_rsl0
// CHECK-SAME: grid = ["min(4, sm_count)", "1", "1"]
// CHECK-SAME: shared_bytes = 98304 : i64
func.func @longer(%x: tensor<4x65544xbf16>) -> (tensor<4x65544xf8E4M3FN>, tensor<4x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<4x65544xbf16> -> tensor<4x65544xf8E4M3FN>, tensor<4x1xf32>
  return %q, %s : tensor<4x65544xf8E4M3FN>, tensor<4x1xf32>
}

// -----

// Rows past the long-row kernel's reach (the budget's 6144 vectors, 2048 in
// registers and 4096 read twice: 98304 elements) take the team kernel,
// teams of 256 reading their chunks twice.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "4", "98312"], kernel = "longest_quantize_r0"}]
// CHECK-NOT: quantize_rs
// CHECK: gpu.func @longest_quantize_r0
// CHECK-SAME: shared_bytes = 0
func.func @longest(%x: tensor<4x98312xbf16>) -> (tensor<4x98312xf8E4M3FN>, tensor<4x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<4x98312xbf16> -> tensor<4x98312xf8E4M3FN>, tensor<4x1xf32>
  return %q, %s : tensor<4x98312xf8E4M3FN>, tensor<4x1xf32>
}
