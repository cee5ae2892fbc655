// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu | FileCheck %s

// A quantize prologue in the row kernel: one external llvm.func declaration
// per gpu.module (shared by every kernel that calls it), an llvm.call on each
// element right after the loads and before any Hadamard butterflies / amax,
// and a `link` entry in the function record (fpxc hoists it to the
// artifact's top-level "link"). Other lowerings reject it at the op.

// CHECK: gpu.module @fpx_kernels attributes {fpx.functions = [{
// CHECK-SAME: link = [{signature = "float(float)", symbol = "fpx_user_scale"}], name = "two"
// CHECK-NEXT: llvm.func @fpx_user_scale(f32) -> f32
// CHECK-NOT: llvm.func @fpx_user_scale
// CHECK: gpu.func @two_quantize0
// CHECK-COUNT-32: llvm.call @fpx_user_scale(%{{.*}}) : (f32) -> f32
// CHECK-NOT: llvm.call @fpx_user_scale
// CHECK: gpu.func @two_quantize1
// CHECK-COUNT-32: llvm.call @fpx_user_scale(%{{.*}}) : (f32) -> f32
// CHECK-NOT: llvm.call
// CHECK: gpu.module
func.func @two(%x: tensor<?x?xbf16>, %y: tensor<?x?xf32>)
    -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>, tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {prologue = "fpx_user_scale",
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  %q2, %s2 = fpx.quantize %y {prologue = "fpx_user_scale", hadamard = 32,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s, %q2, %s2 : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>, tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// The prologue comes before the Hadamard transform: the first call's
// operand is a loaded value, and the first butterfly adds call results.
// CHECK-LABEL: gpu.func @order_quantize0
// CHECK: llvm.load
// CHECK: llvm.call @fpx_act
// CHECK-NOT: arith.addf
// CHECK: llvm.call @fpx_act
func.func @order(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {prologue = "fpx_act", hadamard = 8,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

func.func @per_tensor(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  // expected-error @+1 {{'fpx.quantize' op prologue is lowered for row blocks [1, N] only}}
  %q, %s = fpx.quantize %x {prologue = "fpx_user_scale",
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}

// -----

func.func @columns(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.quantize' op prologue is lowered for row blocks [1, N] only}}
  %q, %s = fpx.quantize %x {prologue = "fpx_user_scale", transposed,
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

func.func @blocks2d(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  // expected-error @+1 {{'fpx.quantize' op prologue is lowered for row blocks [1, N] only}}
  %q, %s = fpx.quantize %x {prologue = "fpx_user_scale",
      scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}
