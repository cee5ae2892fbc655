// RUN: fpx-opt %s -split-input-file -fpx-legalize-formats="chip=sm_90a" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpx-opt %s -split-input-file -fpx-legalize-formats="chip=sm_100a" | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: fpx-opt %s -split-input-file -fpx-legalize-formats="chip=sm_120a" | FileCheck %s --check-prefixes=CHECK,SM120
// RUN: fpx-opt %s -split-input-file -fpx-legalize-formats="chip=sm_89" | FileCheck %s --check-prefixes=CHECK,SM89
// RUN: fpx-opt %s -split-input-file -fpx-legalize-formats="chip=sm_80" | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: fpx-opt %s -split-input-file -fpx-legalize-formats="chip=sm_90a" | FileCheck %s --check-prefix=GONE
// RUN: fpx-opt %s -split-input-file -fpx-legalize-formats="chip=sm_80" | FileCheck %s --check-prefix=GONE

// Native cvt as inline PTX where the target table has it (operands swapped:
// cvt puts its first source in the high half), exact integer emulation
// elsewhere. No fpx.convert survives on any target.
// GONE-NOT: fpx.convert

// CHECK-LABEL: func.func @e4m3_rn
// CHECK-SAME: (%[[V:.*]]: vector<2xf32>)
// SM90: %[[A:.*]] = llvm.extractelement %[[V]]
// SM90: %[[B:.*]] = llvm.extractelement %[[V]]
// SM90: %[[C:.*]] = llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "=h,f,f" %[[A]], %[[B]] : (f32, f32) -> i16
// SM90: return %[[C]] : i16
// SM100: llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "=h,f,f"
// SM120: llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "=h,f,f"
// SM89: llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "=h,f,f"
// SM80-NOT: llvm.inline_asm
// SM80: arith.ori
// SM80-NOT: llvm.inline_asm
func.func @e4m3_rn(%v: vector<2xf32>) -> i16 {
  %c = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  return %c : i16
}

// -----

// CHECK-LABEL: func.func @e5m2_rn
// SM90: llvm.inline_asm "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;", "=h,f,f"
// SM100: llvm.inline_asm "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;", "=h,f,f"
// SM89: llvm.inline_asm "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;", "=h,f,f"
// SM80-NOT: llvm.inline_asm
// CHECK: return
func.func @e5m2_rn(%v: vector<2xf32>) -> i16 {
  %c = fpx.convert %v {format = #fpx.format<e5m2>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  return %c : i16
}

// -----

// fp4: sm_90a has no e2m1 cvt (integer emulation); sm_100a and sm_120a do.
// CHECK-LABEL: func.func @e2m1_rn
// SM90-NOT: llvm.inline_asm
// SM90: arith.shrui
// SM90-NOT: llvm.inline_asm
// SM100: %[[R:.*]] = llvm.inline_asm "{{.*}}cvt.rn.satfinite.e2m1x2.f32 t, $2, $1;{{.*}}", "=r,f,f" %{{.*}}, %{{.*}} : (f32, f32) -> i32
// SM100: %[[T:.*]] = arith.trunci %[[R]] : i32 to i8
// SM100: return %[[T]] : i8
// SM120: llvm.inline_asm "{{.*}}cvt.rn.satfinite.e2m1x2.f32
// SM89-NOT: llvm.inline_asm
// SM80-NOT: llvm.inline_asm
func.func @e2m1_rn(%v: vector<2xf32>) -> i8 {
  %c = fpx.convert %v {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i8
  return %c : i8
}

// -----

// Eight e2m1 values in one word: without the native cvt (sm_90a, sm_89,
// sm_80) one packed emulation (fma by 2^22 + 1, pairs as v0 + 16 v1, bytes
// gathered by prmt); with it, four x2 cvts.
// CHECK-LABEL: func.func @e2m1_rn_x8
// SM90-COUNT-8: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// SM90: "prmt.b32 $0, $1, $2, 0x0040;"
// SM90: "prmt.b32 $0, $1, $2, 0x0040;"
// SM90: "prmt.b32 $0, $1, $2, 0x5410;"
// SM90-NOT: cvt.rn
// SM89-COUNT-3: prmt.b32
// SM80-COUNT-3: prmt.b32
// SM100-COUNT-4: cvt.rn.satfinite.e2m1x2.f32
// SM100-NOT: prmt.b32
// SM120-COUNT-4: cvt.rn.satfinite.e2m1x2.f32
// CHECK: return
func.func @e2m1_rn_x8(%v: vector<8xf32>) -> i32 {
  %c = fpx.convert %v {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<8xf32> -> i32
  return %c : i32
}

// -----

// in_range (every |x| < 7, no NaN, promised by the caller): the emulation
// leaves out the clamp to 6 (minnum) and the NaN test of the sign.
// CHECK-LABEL: func.func @e2m1_rn_x8_in_range
// SM90-NOT: arith.minnumf
// SM90-NOT: arith.cmpf uno
// SM90: llvm.intr.fma
// SM90: return
// SM100-COUNT-4: cvt.rn.satfinite.e2m1x2.f32
func.func @e2m1_rn_x8_in_range(%v: vector<8xf32>) -> i32 {
  %c = fpx.convert %v {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>, in_range} : vector<8xf32> -> i32
  return %c : i32
}

// -----

// Eight e4m3 values: four x2 converts, bytes in order.
// CHECK-LABEL: func.func @e4m3_rn_x8
// SM90-COUNT-4: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: llvm.inline_asm
// CHECK: return
func.func @e4m3_rn_x8(%v: vector<8xf32>) -> i64 {
  %c = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<8xf32> -> i64
  return %c : i64
}

// -----

// fp6 x2 conversions are native from sm_100a. Where only the fp8 cvt exists
// (sm_89, sm_90a), fp6 under rn is the fp8 cvt of the value scaled by 2^-6
// (e2m3 -> e4m3) or 2^-12 (e3m2 -> e5m2), clamped to the fp6 range first.
// CHECK-LABEL: func.func @fp6_rn
// SM90: arith.minnumf
// SM90: arith.maxnumf
// SM90: arith.mulf %{{.*}}, %{{.*}} : f32
// SM90: llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "=h,f,f"
// SM90: llvm.inline_asm "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;", "=h,f,f"
// SM100: llvm.inline_asm "cvt.rn.satfinite.e2m3x2.f32 $0, $2, $1;", "=h,f,f"
// SM100: llvm.inline_asm "cvt.rn.satfinite.e3m2x2.f32 $0, $2, $1;", "=h,f,f"
// SM120: llvm.inline_asm "cvt.rn.satfinite.e2m3x2.f32
// SM120: llvm.inline_asm "cvt.rn.satfinite.e3m2x2.f32
// CHECK: return
func.func @fp6_rn(%v: vector<2xf32>) -> (i16, i16) {
  %a = fpx.convert %v {format = #fpx.format<e2m3fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  %b = fpx.convert %v {format = #fpx.format<e3m2fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  return %a, %b : i16, i16
}

// -----

// Stochastic rounding: cvt.rs x4 on sm_100a (operands in reverse, rbits
// last); emulated on sm_90a and sm_120a.
// CHECK-LABEL: func.func @e4m3_rs
// CHECK-SAME: (%[[V:.*]]: vector<4xf32>, %[[R:.*]]: i32)
// SM100: llvm.inline_asm "cvt.rs.satfinite.e4m3x4.f32 $0, {$4, $3, $2, $1}, $5;", "=r,f,f,f,f,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[R]] : (f32, f32, f32, f32, i32) -> i32
// SM90-NOT: llvm.inline_asm
// SM90: arith.shrui %[[R]]
// SM90-NOT: llvm.inline_asm
// SM120-NOT: llvm.inline_asm
// SM80-NOT: llvm.inline_asm
// CHECK: return
func.func @e4m3_rs(%v: vector<4xf32>, %r: i32) -> i32 {
  %c = fpx.convert %v rbits(%r) {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i32
  return %c : i32
}

// -----

// fp4 x4 rs gives a 16-bit result. Without cvt.rs the four values are
// emulated and packed together: per value a round-toward-zero multiply by
// 2^-126, its random byte (cvt.rs order: bytes 0, 2, 1, 3) placed by prmt
// and added by an inline mad (kept an IMAD), then two gathers and one
// interleaving mad (no cvt).
// CHECK-LABEL: func.func @e2m1_rs
// SM100: llvm.inline_asm "cvt.rs.satfinite.e2m1x4.f32 $0, {$4, $3, $2, $1}, $5;", "=h,f,f,f,f,r" {{.*}} -> i16
// SM90-NOT: cvt.rs
// SM90: llvm.inline_asm "prmt.b32 $0, $1, $2, 0x4044;"
// SM90: llvm.inline_asm "mul.rz.f32 $0, $1, 0f00800000;"
// SM90: llvm.inline_asm "mad.lo.u32 $0, $1, 4, $2;"
// SM90: llvm.inline_asm "prmt.b32 $0, $1, $2, 0x4244;"
// SM90: llvm.inline_asm "prmt.b32 $0, $1, $2, 0x4144;"
// SM90: llvm.inline_asm "prmt.b32 $0, $1, $2, 0x4344;"
// SM90-COUNT-2: llvm.inline_asm "prmt.b32 $0, $1, $2, 0x0073;"
// SM90: llvm.inline_asm "mad.lo.u32 $0, $1, 16, $2;"
// SM90-NOT: cvt.rs
// SM120-NOT: cvt.rs
// SM120-COUNT-4: llvm.inline_asm "mul.rz.f32 $0, $1, 0f00800000;"
// SM120-NOT: cvt.rs
// CHECK: return
func.func @e2m1_rs(%v: vector<4xf32>, %r: i32) -> i16 {
  %c = fpx.convert %v rbits(%r) {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i16
  return %c : i16
}

// -----

// bounded (finite, every |x| < 8, promised by the caller): no clamp to 6
// (minnum) and no NaN test; the four packed codes are saturated after the
// interleave instead, codes - ((codes >> 3) & 0x1111), a carry past 6 (code
// 8) taken back to 7. sm_100a's native cvt.rs ignores the promise.
// CHECK-LABEL: func.func @e2m1_rs_bounded
// SM90-NOT: arith.minnumf
// SM90-NOT: arith.cmpf uno
// SM90-COUNT-4: llvm.inline_asm "mul.rz.f32 $0, $1, 0f00800000;"
// SM90: %[[C:.*]] = llvm.inline_asm "mad.lo.u32 $0, $1, 16, $2;"
// SM90: %[[S:.*]] = arith.shrui %[[C]], %{{.*}} : i32
// SM90: %[[M:.*]] = arith.andi %[[S]], %{{.*}} : i32
// SM90: arith.subi %[[C]], %[[M]] : i32
// SM90-NOT: arith.minnumf
// SM100: llvm.inline_asm "cvt.rs.satfinite.e2m1x4.f32 $0, {$4, $3, $2, $1}, $5;"
// CHECK: return
func.func @e2m1_rs_bounded(%v: vector<4xf32>, %r: i32) -> i16 {
  %c = fpx.convert %v rbits(%r) {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>, bounded} : vector<4xf32> -> i16
  return %c : i16
}

// -----

// No target has cvt.rz to fp8, overflow-to-special, or a non-default bias:
// always emulated.
// CHECK-LABEL: func.func @always_emulated
// CHECK-NOT: llvm.inline_asm
// CHECK: return
func.func @always_emulated(%v: vector<2xf32>) -> (i16, i16, i16, i16) {
  %a = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rz>} : vector<2xf32> -> i16
  %b = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>, overflow_to_special} : vector<2xf32> -> i16
  %c = fpx.convert %v {format = #fpx.format<e4m3fn, bias = 8>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  %d = fpx.convert %v {format = #fpx.format<e4m2, bias = 11>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  return %a, %b, %c, %d : i16, i16, i16, i16
}

// -----

// bf16 pairs of e2m1: sm_90a emulates them packed, two values per bf16x2
// instruction (one asm block for the 4 values); sm_100a / sm_120a widen them
// exactly to f32 (a shift and a mask) for the native x2 cvt; sm_89 / sm_80
// widen them for the scalar integer emulation.
// CHECK-LABEL: func.func @e2m1_rn_bf16
// SM90: %[[W:.*]] = llvm.bitcast %{{.*}} : vector<4xbf16> to i64
// SM90: llvm.inline_asm "{{.*}}min.bf16x2 a, a, c6;{{.*}}fma.rn.bf16x2 y, t, c64, a;{{.*}}set.num.u32.bf16x2{{.*}}", "=r,r,r"
// SM90-NOT: fma.rn.bf16x2
// SM90: arith.trunci %{{.*}} : i32 to i16
// SM100: arith.shli %{{.*}}, %{{.*}} : i32
// SM100: arith.andi %{{.*}}, %{{.*}} : i32
// SM100-COUNT-2: cvt.rn.satfinite.e2m1x2.f32
// SM120-COUNT-2: cvt.rn.satfinite.e2m1x2.f32
// SM89-NOT: llvm.inline_asm
// SM89: arith.shli
// SM80-NOT: llvm.inline_asm
// CHECK: return
func.func @e2m1_rn_bf16(%v: vector<4xbf16>) -> i16 {
  %c = fpx.convert %v {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<4xbf16> -> i16
  return %c : i16
}

// -----

// Other formats of bf16 values widen to f32 on every target.
// CHECK-LABEL: func.func @e4m3_rn_bf16
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: llvm.inline_asm
// CHECK: return
func.func @e4m3_rn_bf16(%v: vector<2xbf16>) -> i16 {
  %c = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<2xbf16> -> i16
  return %c : i16
}

// -----

// fp6 of bf16 values: sm_90a clamps and scales by 2^-6 two values per
// instruction, then widens for the native e4m3 cvt and moves the sign bits;
// sm_100a widens for its native fp6 cvt.
// CHECK-LABEL: func.func @e2m3_rn_bf16
// SM90: llvm.inline_asm "{{.*}}min.bf16x2 t, $1, hi;{{.*}}max.bf16x2 t, t, lo;{{.*}}mul.rn.bf16x2 $0, t, sc;{{.*}}", "=r,r"
// SM90-COUNT-2: cvt.rn.satfinite.e4m3x2.f32
// SM90: arith.andi %{{.*}}, %{{.*}} : i32
// SM100-COUNT-2: cvt.rn.satfinite.e2m3x2.f32
// SM80-NOT: llvm.inline_asm
// CHECK: return
func.func @e2m3_rn_bf16(%v: vector<4xbf16>) -> i32 {
  %c = fpx.convert %v {format = #fpx.format<e2m3fn>, rounding = #fpx.rounding<rn>} : vector<4xbf16> -> i32
  return %c : i32
}
