// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-legalize-formats="chip=sm_90a allow-emulation=false"
// RUN: fpx-opt %s -split-input-file -fpx-legalize-formats="chip=sm_100a allow-emulation=false" | FileCheck %s
// RUN: not fpx-opt %s -fpx-legalize-formats="chip=sm_42" 2>&1 | FileCheck %s --check-prefix=CHIP

// With allow-emulation=false a conversion the target lacks is an error at the
// op; the same IR is fine on sm_100a, which has every conversion natively.

// CHIP: error: unknown target 'sm_42' (known: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a, sm_103a, sm_120a, sm_121a)

// CHECK-LABEL: func.func @fp4_on_sm90
// CHECK: cvt.rn.satfinite.e2m1x2.f32
func.func @fp4_on_sm90(%v: vector<2xf32>) -> i8 {
  // expected-error @+1 {{target sm_90a has no native conversion to 'e2m1fn' with rn rounding, and emulation is disabled}}
  %c = fpx.convert %v {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i8
  return %c : i8
}

// -----

// CHECK-LABEL: func.func @rs_on_sm90
// CHECK: cvt.rs.satfinite.e4m3x4.f32
func.func @rs_on_sm90(%v: vector<4xf32>, %r: i32) -> i32 {
  // expected-error @+1 {{target sm_90a has no native conversion to 'e4m3fn' with rs rounding, and emulation is disabled}}
  %c = fpx.convert %v rbits(%r) {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i32
  return %c : i32
}

// -----

// A native conversion passes; the first one the target lacks is the error.
// CHECK-LABEL: func.func @mixed_on_sm90
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: cvt.rn.satfinite.e3m2x2.f32
func.func @mixed_on_sm90(%v: vector<2xf32>) -> (i16, i16) {
  %a = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  // expected-error @+1 {{target sm_90a has no native conversion to 'e3m2fn' with rn rounding}}
  %b = fpx.convert %v {format = #fpx.format<e3m2fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  return %a, %b : i16, i16
}
