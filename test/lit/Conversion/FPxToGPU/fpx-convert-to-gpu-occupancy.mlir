// RUN: fpx-opt %s -split-input-file -fpx-fuse-quantize -fpx-convert-to-gpu="chip=sm_90a" | FileCheck %s

// Launch-shape decisions of the row casts, each measured on an H200
// (docs/results/2026-11-22-h200-4).

// MXFP4 + rs from bf16 casts two tiles of 8192 elements a CTA (its grid one
// CTA per 16384), the second tile's loads issued before the first one's
// cast, at four CTAs an SM (docs/results/2026-11-23-h200-8; five CTAs of
// one tile before). The thread's four adjacent vectors of a tile load from
// one base address at constant offsets, each under its own predicate (zeros
// where it does not exist).
// CHECK-LABEL: gpu.func @mxfp4_rs_quantize0(
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1, 16384)", "1", "1"]
// CHECK-SAME: nvvm.minctasm = 4 : i32
// CHECK: %[[BASE:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: scf.if %{{.*}} -> (vector<4xi32>) {
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
// CHECK: llvm.load %[[P0]] {alignment = 16 : i64}
// CHECK: } else {
// CHECK: llvm.mlir.zero : vector<4xi32>
// CHECK-COUNT-3: llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
// The second tile's four loads come next, before any of the first tile's
// work (its values pinned by an empty asm statement that reads them):
// CHECK: %[[BASE2:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-COUNT-4: llvm.getelementptr %[[BASE2]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
// CHECK: llvm.inline_asm has_side_effects ""
func.func @mxfp4_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// NVFP4 from bf16 takes two tiles a CTA at four CTAs an SM too, under rn
// and under rs (which spills 28 bytes there and is still faster: 70.7 ->
// 73.3% of copy at 16384x8192, docs/results/2026-11-24-h200-11).
// CHECK-LABEL: gpu.func @nvfp4_rn_rs_quantize0(
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1, 16384)", "1", "1"]
// CHECK-SAME: nvvm.minctasm = 4 : i32
// CHECK-LABEL: gpu.func @nvfp4_rn_rs_quantize1(
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1, 16384)", "1", "1"]
// CHECK-SAME: nvvm.minctasm = 4 : i32
func.func @nvfp4_rn_rs(%x: tensor<?x?xbf16>, %a: tensor<f32>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  %q2, %s2 = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %q2, %s2 : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}

// -----

// With an amax per matrix (expert batches) too: when its cast starts (after
// both tiles' loads) the first tile finds its matrix by one division and
// reads its amax; the second steps from the first (the next matrix when the
// first ended one, unless past the end) and reads its amax and computes g
// only in another matrix.
// CHECK-LABEL: gpu.func @nvfp4_experts_quantize0(
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1*arg0_2, 16384)", "1", "1"]
// CHECK-SAME: nvvm.minctasm = 4 : i32
// CHECK: %[[MT64:.*]] = arith.divui %arg6, %c8192_i64 : i64
// CHECK-NEXT: %[[MT:.*]] = arith.trunci %[[MT64]] : i64 to i32
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: llvm.inline_asm has_side_effects ""
// CHECK: %[[E0:.*]] = arith.divui %{{.*}}, %[[MT]] : i32
// CHECK-NEXT: %[[E0R:.*]] = arith.muli %[[E0]], %[[MT]] : i32
// CHECK-NEXT: %[[R0:.*]] = arith.subi %{{.*}}, %[[E0R]] : i32
// CHECK-NEXT: %[[E0W:.*]] = arith.extui %[[E0]] : i32 to i64
// CHECK-NEXT: llvm.getelementptr %arg3[%[[E0W]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.inline_asm has_side_effects ""
// CHECK-NEXT: %[[T1:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ule, %[[T1]], %{{.*}} : i32
// CHECK: %[[STEP:.*]] = arith.addi %[[R0]], %{{.*}} : i32
// CHECK-NEXT: %[[ENDS:.*]] = arith.cmpi eq, %[[STEP]], %[[MT]] : i32
// CHECK-NEXT: %[[WRAPS:.*]] = arith.andi %[[VALID]], %[[ENDS]] : i1
// CHECK: %[[NEXT:.*]] = arith.addi %[[E0]], %{{.*}} : i32
// CHECK-NEXT: %[[E1:.*]] = arith.select %[[WRAPS]], %[[NEXT]], %[[E0]] : i32
// CHECK: %[[E1W:.*]] = arith.extui %[[E1]] : i32 to i64
// CHECK-NEXT: %[[OTHER:.*]] = arith.cmpi ne, %[[E1]], %[[E0]] : i32
// CHECK-NEXT: scf.if %[[OTHER]] -> (f32, f32) {
// CHECK-NEXT: llvm.getelementptr %arg3[%[[E1W]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK-NOT: arith.divui %{{.*}}, %[[MT]] : i32
// CHECK: gpu.return
func.func @nvfp4_experts(%x: tensor<?x?x?xbf16>, %a: tensor<?xf32>) -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  return %q, %s : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
}

// -----

// Hadamard 16 fused into NVFP4 + rs: the transform is applied per block
// group and the cast asks for four CTAs an SM; after the tensor amax pass
// its CTAs run from the last backwards (grid_dim - 1 - block_id).
// CHECK-LABEL: gpu.func @nvfp4_rht_rs_amax0(
// CHECK-LABEL: gpu.func @nvfp4_rht_rs_quantize1(
// CHECK-SAME: nvvm.minctasm = 4 : i32
// CHECK: %[[BID:.*]] = arith.index_castui %block_id_x
// CHECK: %[[GRID:.*]] = arith.index_castui %grid_dim_x
// CHECK: %[[LAST:.*]] = arith.subi %[[GRID]], %{{.*}}
// CHECK: arith.subi %[[LAST]], %[[BID]]
func.func @nvfp4_rht_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %h = fpx.hadamard %x {size = 16, seed = 5} : tensor<?x?xbf16>
  %a = fpx.amax %h : tensor<?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %h amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}

// -----

// Without a tensor amax the row cast keeps launch order and ptxas's
// register choice.
// CHECK-LABEL: gpu.func @mxfp8_quantize0(
// CHECK-NOT: minctasm
// CHECK-NOT: gpu.grid_dim
// CHECK: gpu.return
func.func @mxfp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// A batch of NVFP4 casts with an amax per matrix and the global scales
// stored by the cast (fpx.global_scale fused), two tiles a CTA: the first
// tile finds its matrix e by a 32-bit division and stores g where it starts
// one (r = 0, thread 0); the second steps from it (r + 1, wrapping into
// e + 1 at the matrix's tile count), reads an amax and computes g only in
// another matrix, and stores that g where it starts one too.
// CHECK-LABEL: gpu.func @pm_quantize1(
// CHECK-SAME: %[[AMAX:[^:]*]]: !llvm.ptr<1>, %[[GOUT:[^:]*]]: !llvm.ptr<1>, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64)
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1*arg0_2, 16384)", "1", "1"]
// CHECK-SAME: nvvm.minctasm = 4 : i32
// CHECK: %[[IN1:.*]] = arith.minui
// CHECK-NEXT: %[[E1:.*]] = arith.divui %[[IN1]], %[[MT:.*]] : i32
// CHECK: %[[R1:.*]] = arith.subi %[[IN1]], %{{.*}} : i32
// CHECK: %[[E1W:.*]] = arith.extui %[[E1]] : i32 to i64
// CHECK: arith.cmpi eq, %[[R1]], %c0_i32{{.*}} : i32
// CHECK: %[[AT1:.*]] = llvm.getelementptr %[[GOUT]][%[[E1W]]]
// CHECK: scf.if
// CHECK-NEXT: llvm.store %[[G1:.*]], %[[AT1]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK: %[[STEP:.*]] = arith.addi %[[R1]], %c1_i32{{.*}} : i32
// CHECK-NEXT: %[[WRAP:.*]] = arith.cmpi eq, %[[STEP]], %[[MT]] : i32
// CHECK: %[[E2:.*]] = arith.select %{{.*}}, %{{.*}}, %[[E1]] : i32
// CHECK: %[[R2:.*]] = arith.select %{{.*}}, %{{.*}}, %[[R1]] : i32
// CHECK: %[[E2W:.*]] = arith.extui %[[E2]] : i32 to i64
// CHECK-NEXT: %[[OTHER:.*]] = arith.cmpi ne, %[[E2]], %[[E1]] : i32
// CHECK-NEXT: %[[AG:.*]]:2 = scf.if %[[OTHER]] -> (f32, f32) {
// CHECK-NEXT: llvm.getelementptr %[[AMAX]][%[[E2W]]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}}, %[[G1]] : f32, f32
// CHECK: arith.cmpi eq, %[[R2]], %c0_i32{{.*}} : i32
// CHECK: %[[AT2:.*]] = llvm.getelementptr %[[GOUT]][%[[E2W]]]
// CHECK: scf.if
// CHECK-NEXT: llvm.store %[[AG]]#1, %[[AT2]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @pm(%x: tensor<?x?x?xbf16>, %a: tensor<?xf32>) -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  %g = fpx.global_scale %a : tensor<?xf32>
  return %q, %s, %g : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>
}

// -----

// A batch's amaxes returned too (delayed scaling), two tiles a CTA: a
// CTA's maximum goes to its matrix's amax once, after its last tile, with
// the stored value read when that tile's cast starts; only where the second
// tile lies in another matrix does the first one's maximum go to its own
// matrix first (and the second starts from zero).
// CHECK-LABEL: gpu.func @pm_ra_quantize0(
// CHECK-SAME: %[[OUT:[^:]*]]: !llvm.ptr<1>, %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i64)
// CHECK-SAME: nvvm.minctasm = 4 : i32
// CHECK: %[[E1:.*]] = arith.divui %{{.*}}, %{{.*}} : i32
// CHECK-NOT: llvm.atomicrmw
// CHECK: %[[E2:.*]] = arith.select %{{.*}}, %{{.*}}, %[[E1]] : i32
// CHECK: %[[OTHER:.*]] = arith.cmpi ne, %[[E2]], %[[E1]] : i32
// CHECK: scf.if %[[OTHER]] {
// CHECK-NEXT: %[[E1W:.*]] = arith.extui %[[E1]] : i32 to i64
// CHECK-NEXT: %[[AT1:.*]] = llvm.getelementptr %[[OUT]][%[[E1W]]]
// CHECK: nvvm.redux.sync umax %{{.*}}, %c-1_i32{{.*}} : i32 -> i32
// CHECK: llvm.atomicrmw umax %[[AT1]]
// CHECK: arith.select %[[OTHER]], %cst{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[E2W:.*]] = arith.extui %[[E2]] : i32 to i64
// CHECK-NEXT: %[[AT2:.*]] = llvm.getelementptr %[[OUT]][%[[E2W]]]
// CHECK-NEXT: %[[KNOWN:.*]] = llvm.load %[[AT2]] {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NOT: llvm.atomicrmw
// CHECK: %[[E2W2:.*]] = arith.extui %[[E2]] : i32 to i64
// CHECK-NEXT: %[[AT3:.*]] = llvm.getelementptr %[[OUT]][%[[E2W2]]]
// CHECK: nvvm.redux.sync umax %{{.*}}, %c-1_i32{{.*}} : i32 -> i32
// CHECK: arith.cmpi ugt, %{{.*}}, %[[KNOWN]] : i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: llvm.atomicrmw umax %[[AT3]]
// CHECK-NOT: llvm.atomicrmw
// CHECK: gpu.return
func.func @pm_ra(%x: tensor<?x?x?xbf16>, %a: tensor<?xf32>) -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  %r = fpx.amax %x : tensor<?x?x?xbf16> -> tensor<?xf32>
  return %q, %s, %r : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<?xf32>
}

// -----

// The bf16 MXFP8 column cast (round to nearest) has two kernels: 128x128
// tiles at five CTAs an SM, and for casts of fewer than 10 such tiles an SM
// (sm_count, bound at launch) 128x64 tiles whose 256 threads each take one
// column's block, its maxima on widened values (at (1, 2048, 7168) on an
// H100 77 -> 79% of copy, docs/results/2026-11-25-h100-25). Each grid is 0
// where the other kernel takes the cast.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: kernel = "experts_quantize_t0"
// CHECK-SAME: kernel = "experts_quantize_tn1"
// CHECK-DAG: llvm.mlir.global internal @experts_quantize_t0_tile() {{.*}} : !llvm.array<16384 x i16>
// CHECK-DAG: llvm.mlir.global internal @experts_quantize_tn1_tile() {{.*}} : !llvm.array<8192 x i16>
// CHECK: gpu.func @experts_quantize_t0
// CHECK-SAME: block = [256, 1, 1], grid = ["cdiv(arg0_1, 128)*(1-(1-min(cdiv(arg0_1, 128)*cdiv(arg0_2, 128)*arg0_0/(10*sm_count), 1)))", "cdiv(arg0_2, 128)", "arg0_0"]
// CHECK-SAME: nvvm.minctasm = 5 : i32
// CHECK: max.NaN.xorsign.abs.bf16x2
// CHECK: gpu.func @experts_quantize_tn1
// CHECK-SAME: block = [256, 1, 1], grid = ["cdiv(arg0_1, 128)*(1-min(cdiv(arg0_1, 128)*cdiv(arg0_2, 128)*arg0_0/(10*sm_count), 1))", "cdiv(arg0_2, 64)", "arg0_0"]
// CHECK-SAME: nvvm.minctasm = 5 : i32
// CHECK-NOT: bf16x2
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i16
// CHECK-NOT: bf16x2
// CHECK: gpu.return
func.func @experts(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [32, 1], rule = rceil, scale = f8E8M0FNU>, transposed}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}

// -----

// The MXFP4 column cast's narrow tile (one widened bf16 column a thread)
// pairs two rows of its column into a bf16x2 word and converts as the wide
// tile does: a packed bf16x2 product, two values a conversion (at
// 2048x7168 on an H100 58.8 -> 66.5% of copy,
// docs/results/2026-11-27-h100-28). MXFP8's narrow tile keeps f32.
// CHECK-LABEL: gpu.func @fp4_experts_quantize_tn1
// CHECK-SAME: nvvm.minctasm = 5 : i32
// CHECK-NOT: fpx.convert {{.*}} : vector<4xf32>
// CHECK-COUNT-4: fma.rn.bf16x2
// CHECK: fpx.convert %{{.*}} {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<4xbf16> -> i16
// CHECK-NOT: fpx.convert {{.*}} : vector<4xf32>
// CHECK: gpu.return
func.func @fp4_experts(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xi8>, tensor<?x?x?xf8E8M0FNU>
}

// -----

// Column casts under rs, or from f32, keep the one kernel (three CTAs an SM).
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: launches = [{args = {{.*}} kernel = "cols_rs_quantize_t0"}]
// CHECK: gpu.func @cols_rs_quantize_t0
// CHECK-SAME: grid = ["cdiv(arg0_0, 128)", "cdiv(arg0_1, 128)", "1"]
// CHECK-SAME: nvvm.minctasm = 3 : i32
func.func @cols_rs(%w: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w seed(%seed) {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rs>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// The NVFP4 16x1 column cast (bf16, round to nearest) runs four CTAs an SM
// on Hopper (64 registers, no spill: 86 -> 90% of copy at 16384x8192 on an
// H100, docs/results/2026-11-27-h100-26); under rs it keeps three (at four
// it spills).
// CHECK-LABEL: gpu.func @nvfp4_cols_quantize_t0
// CHECK-SAME: nvvm.minctasm = 4 : i32
// CHECK-LABEL: gpu.func @nvfp4_cols_rs_quantize_t0
// CHECK-SAME: nvvm.minctasm = 3 : i32
func.func @nvfp4_cols(%x: tensor<?x?xbf16>, %a: tensor<f32>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, transposed,
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
func.func @nvfp4_cols_rs(%x: tensor<?x?xbf16>, %a: tensor<f32>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, transposed,
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>, rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
