// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu -verify-diagnostics | FileCheck %s

// 32x1 MXFP8 blocks of (E, N, K) expert weights, written per expert as
// (E, K, N): one kernel, a 128x128 shared-memory tile, grid (N/128, K/128, E).
// The tile is staged by cp.async; bf16 column pairs take their block maxima
// by packed max over the shared words (vector<2xbf16>), which are read
// again after a barrier for the conversion.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = ["arg0", "result0", "result1", "arg0_1", "arg0_2"], kernel = "experts_quantize_t0"}]
// CHECK-SAME: outputs = [{dtype = "f8e4m3fn", name = "result0", shape = ["arg0_0", "arg0_2", "arg0_1"]}, {dtype = "f8e8m0fnu", name = "result1", shape = ["arg0_0", "arg0_2", "arg0_1/32"]}]
// CHECK-SAME: requires = [{expr = "arg0_1 % 32"
// CHECK: llvm.mlir.global internal @experts_quantize_t0_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16384 x i16>
// CHECK: gpu.func @experts_quantize_t0
// CHECK-SAME: fpx.kernel = {block = [256, 1, 1], grid = ["cdiv(arg0_1, 128)", "cdiv(arg0_2, 128)", "arg0_0"]
// CHECK-COUNT-8: cp.async.cg.shared.global
// CHECK: cp.async.wait_all
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xbf16>
// CHECK: llvm.intr.maximum(%{{.*}}) : (vector<2xbf16>, vector<2xbf16>) -> vector<2xbf16>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: fpx.convert
func.func @experts(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}

// -----

// NVFP4 16x1 blocks, written transposed as fp4x2 (K, M/2): the codes go out
// through shared memory as the byte codes do, a block's 8 bytes a slot of
// its column's 64-byte row, then whole rows by 16-byte stores (two 8-byte
// halves where M is 16 mod 32, a launch-wide branch); no code is stored
// from the conversions' registers.
// CHECK-LABEL: gpu.func @nvfp4_cols_quantize_t0
// CHECK-SAME: grid = ["cdiv(arg0_0, 128)", "cdiv(arg0_1, 128)", "1"]
// CHECK: cp.async.wait_all
// CHECK: gpu.barrier
// CHECK: fpx.convert
// CHECK-NOT: !llvm.ptr<1>
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<2xi64>
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK: } else {
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<2xi64>, !llvm.ptr<1>
func.func @nvfp4_cols(%x: tensor<?x?xbf16>, %a: tensor<f32>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, transposed,
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}

// -----

// fp4x2 codes of 8x1 blocks: a block's 4 bytes are half of an 8-byte slot
// (a 4-byte shared store each), and where M is not a multiple of 32 each
// 4-byte quarter of a written unit is stored by itself (an output row starts
// only 4-byte aligned and may end a quarter into a unit).
// CHECK-LABEL: gpu.func @fp4_cols8_quantize_t0
// CHECK: gpu.barrier
// CHECK: fpx.convert
// CHECK: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xi32>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<2xi64>
// CHECK: scf.if
// CHECK: llvm.bitcast %{{.*}} : vector<2xi64> to vector<4xi32>
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: } else {
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<2xi64>, !llvm.ptr<1>
func.func @fp4_cols8(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// MXFP4 32x1 blocks of bf16 (rn): a column pair's shared words are re-paired
// to hold two rows of one column, scaled by a packed bf16x2 product and
// converted two values at a time, as the row casts do (no f32 widening).
// CHECK-LABEL: gpu.func @mxfp4_cols_quantize_t0
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: fpx.convert {{.*}} : vector<4xf32>
// CHECK-COUNT-4: fma.rn.bf16x2
// CHECK: fpx.convert %{{.*}} {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<4xbf16> -> i16
// CHECK-NOT: fpx.convert {{.*}} : vector<4xf32>
// CHECK: gpu.return
func.func @mxfp4_cols(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// 128x1 blocks with f32 scales (fp8's transposed blockwise cast): a thread
// takes 32 rows of a column pair, and the four segments' maxima of a block
// meet through a shared array (a value per unit and column) before the
// scale; only a block's first segment stores its scale.
// CHECK: llvm.mlir.global internal @fp8_cols128_quantize_t0_segmax() {{.*}} : !llvm.array<512 x f32>
// CHECK-LABEL: gpu.func @fp8_cols128_quantize_t0
// CHECK-SAME: grid = ["cdiv(arg0_0, 128)", "cdiv(arg0_1, 128)", "1"]
// CHECK-COUNT-31: llvm.intr.maximum(%{{.*}}) : (vector<2xbf16>, vector<2xbf16>) -> vector<2xbf16>
// CHECK-NOT: llvm.intr.maximum(%{{.*}}) : (vector<2xbf16>, vector<2xbf16>)
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-2: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-3: llvm.intr.maximum(%{{.*}}) : (f32, f32) -> f32
// CHECK: fpx.convert
// CHECK: arith.andi
// CHECK-NEXT: scf.if
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<1>
func.func @fp8_cols128(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [128, 1], rule = amax, scale = f32>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}

// -----

func.func @columns_not_transposed(%w: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  // expected-error @+1 {{column blocks are lowered with `transposed`}}
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// NVFP4 with a random Hadamard transform: the amax kernel and the cast both
// recompute the transform in registers. The amax kernel's threads hold one
// vector each (cross-lane butterflies by shuffles); the cast's threads hold
// 32 consecutive elements, two whole 16-point blocks (no shuffles).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: kernel = "rht_amax0"
// CHECK-SAME: kernel = "rht_quantize1"
// CHECK: gpu.func @rht_amax0
// CHECK: gpu.shuffle  xor
// CHECK: llvm.atomicrmw umax
// CHECK: gpu.func @rht_quantize1
// CHECK-NOT: gpu.shuffle
// CHECK: fpx.convert
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @rht(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %a = fpx.amax %x {hadamard = 16 : i64, hadamard_seed = 5 : i64} : tensor<?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      hadamard = 16 : i64, hadamard_seed = 5 : i64,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}

// -----

// Column blocks with blocked 128x4 scales (what a grouped GEMM reads for
// expert weights): each matrix's (K, N / 32) scales padded to 128 rows and
// 4 columns, zeroed by the runtime (the padding), a column's four blocks of
// a tile one 4-byte word at its offset in the 128x4 tile (512 bytes a tile,
// 16 a row of 32, 4 a quarter), byte by byte where M / 32 ends inside it.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: init = "zero", name = "result1", shape = ["arg0_0", "cdiv(arg0_2, 128)*128", "cdiv(arg0_1/32, 4)*4"]
// CHECK: gpu.func @experts_blocked_quantize_t0
// CHECK: arith.constant 512 : i64
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK: gpu.return
func.func @experts_blocked(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}

// -----

// fp32 scales have no blocked layout.
func.func @cols_blocked_f32(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  // expected-error @+1 {{'fpx.quantize' op blocked_128x4 scales are byte scales (E8M0 or NVFP4's e4m3)}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [128, 1], rule = amax, scale = f32>, transposed,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}

// -----

// Row blocks of rank-3 data keep row-major scales for now (their kernel runs
// on the (B*M, K) view; the blocked layout is a matrix's).
func.func @rows_blocked_rank3(%x: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.quantize' op no row-block lowering yet for rank-3 data with blocked_128x4 scales (a layout per matrix)}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}
