// RUN: fpx-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fpx-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | fpx-opt -split-input-file -verify-diagnostics | FileCheck %s

// `prologue` on fpx.quantize: the name of a user `extern "C" __device__
// float NAME(float)` applied to every input element before the cast. It
// round-trips through the custom and generic forms; a name that is not a C
// identifier is a verifier error.

// CHECK-LABEL: func.func @prologue_mxfp8
// CHECK: fpx.quantize %{{.*}} {prologue = "fpx_user_scale", scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
// CHECK-SAME: : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
func.func @prologue_mxfp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {prologue = "fpx_user_scale",
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// With the other fused stages: all attributes survive.
// CHECK-LABEL: func.func @prologue_with_hadamard
// CHECK: fpx.quantize %{{.*}} {format = #fpx.format<e2m1fn>, hadamard = 32 : i64, hadamard_seed = 3 : i64, packing = #fpx.layout<fp4x2>, prologue = "_gelu2",
func.func @prologue_with_hadamard(%x: tensor<4x64xf32>) -> (tensor<4x32xi8>, tensor<4x2xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {prologue = "_gelu2", hadamard = 32, hadamard_seed = 3,
      format = #fpx.format<e2m1>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x64xf32> -> tensor<4x32xi8>, tensor<4x2xf8E8M0FNU>
  return %q, %s : tensor<4x32xi8>, tensor<4x2xf8E8M0FNU>
}

// -----

func.func @prologue_not_identifier(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.quantize' op prologue 'my-act' is not a C identifier (the name of an extern "C" __device__ float NAME(float) function)}}
  %q, %s = fpx.quantize %x {prologue = "my-act",
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

func.func @prologue_leading_digit(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  // expected-error @+1 {{prologue '1scale' is not a C identifier}}
  %q, %s = fpx.quantize %x {prologue = "1scale",
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

func.func @prologue_empty(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  // expected-error @+1 {{prologue '' is not a C identifier}}
  %q, %s = fpx.quantize %x {prologue = "",
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

func.func @prologue_not_string(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  // expected-error @+1 {{attribute 'prologue' failed to satisfy constraint: string attribute}}
  %q, %s = fpx.quantize %x {prologue = 3 : i64,
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
