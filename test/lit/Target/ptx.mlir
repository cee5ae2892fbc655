// RUN: fpxc compile %s --target sm_90a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %s --target sm_100a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: fpxc compile %s --target sm_120a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM120
// RUN: fpxc compile %s --target sm_89 --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM89
// RUN: fpxc compile %s --target sm_80 --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: not fpxc compile %s --target sm_90a --emit ptx --no-emulation -o - 2>&1 | FileCheck %s --check-prefix=NOEMU

// The PTX of a per-tensor fp8 spec and an NVFP4 spec with stochastic
// rounding: the PTX version is the target table's (8.0 for sm_90a, 8.7 for
// sm_100a, not LLVM's default), native cvt where the target has it.

// SM90: .version 8.0
// SM90: .target sm_90a
// SM100: .version 8.7
// SM100: .target sm_100a
// SM120: .version 8.7
// SM120: .target sm_120a
// SM89: .version 8.1
// SM89: .target sm_89
// SM80: .version 7.0
// SM80: .target sm_80
// CHECK: .address_size 64

// CHECK-LABEL: .visible .entry fp8_amax0(
// CHECK: atom.global.max.u32
// CHECK-LABEL: .visible .entry fp8_quantize1(
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM100: cvt.rn.satfinite.e4m3x2.f32
// SM120: cvt.rn.satfinite.e4m3x2.f32
// SM89: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: cvt.rn.satfinite
// CHECK: ret;
func.func @fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}

// cvt.rs exists on sm_100a only; elsewhere rs is emulated (no cvt.rs, no
// e2m1x2 cvt before sm_100a).
// CHECK-LABEL: .visible .entry nvfp4_rs_amax0(
// CHECK-LABEL: .visible .entry nvfp4_rs_quantize1(
// SM100: cvt.rs.satfinite.e2m1x4.f32
// SM90-NOT: cvt.rs.
// SM90-NOT: e2m1x
// SM120-NOT: cvt.rs.
// SM89-NOT: cvt.rs.
// SM80-NOT: cvt.rs.
// CHECK: ret;
// NOEMU: ptx.mlir:[[@LINE+3]]:12: error: target sm_90a has no native conversion to 'e2m1fn' with rs rounding, and emulation is disabled
func.func @nvfp4_rs(%x: tensor<?x64xbf16>, %seed: i64) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x64xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>, rounding = #fpx.rounding<rs>}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  return %q, %s, %a : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>, tensor<f32>
}
