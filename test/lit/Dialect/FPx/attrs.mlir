// RUN: fpx-opt %s -split-input-file | fpx-opt -split-input-file | FileCheck %s
// RUN: fpx-opt %s -split-input-file -mlir-print-op-generic | fpx-opt -split-input-file | FileCheck %s

// Round trips of every fpx attribute, held as discardable attributes of a
// function: named formats (and the aliases that canonicalize to them),
// generic e<E>m<M> with default and explicit bias, every layout, every
// rounding, every scale rule, '*' blocks and rank-1/2/3 blocks.

// CHECK-LABEL: func.func @named_formats
// CHECK-SAME: f0 = #fpx.format<e4m3fn>
// CHECK-SAME: f1 = #fpx.format<e5m2>
// CHECK-SAME: f2 = #fpx.format<e2m3fn>
// CHECK-SAME: f3 = #fpx.format<e3m2fn>
// CHECK-SAME: f4 = #fpx.format<e2m1fn>
// CHECK-SAME: f5 = #fpx.format<e8m0fnu>
// CHECK-SAME: f6 = #fpx.format<ue4m3>
// CHECK-SAME: f7 = #fpx.format<e2m2>
func.func @named_formats() attributes {
    f0 = #fpx.format<e4m3fn>, f1 = #fpx.format<e5m2>, f2 = #fpx.format<e2m3fn>,
    f3 = #fpx.format<e3m2fn>, f4 = #fpx.format<e2m1fn>, f5 = #fpx.format<e8m0fnu>,
    f6 = #fpx.format<ue4m3>, f7 = #fpx.format<e2m2>} {
  return
}

// -----

// Aliases and quoted names parse to the canonical name; a bias equal to the
// default is not printed.
// CHECK-LABEL: func.func @format_aliases
// CHECK-SAME: a0 = #fpx.format<e3m2fn>
// CHECK-SAME: a1 = #fpx.format<e4m3fn>
// CHECK-SAME: a2 = #fpx.format<e4m3fn>
// CHECK-SAME: a3 = #fpx.format<e2m1fn>
func.func @format_aliases() attributes {
    a0 = #fpx.format<e3m2>, a1 = #fpx.format<"e4m3fn">,
    a2 = #fpx.format<e4m3fn, bias = 7>, a3 = #fpx.format<"E2M1FN">} {
  return
}

// -----

// Generic formats: default bias 2^(E-1)-1 is elided, any other is printed,
// including on a named format; negative biases round trip.
// CHECK-LABEL: func.func @generic_formats
// CHECK-SAME: g0 = #fpx.format<e4m2>
// CHECK-SAME: g1 = #fpx.format<e4m2, bias = 11>
// CHECK-SAME: g2 = #fpx.format<e1m6>
// CHECK-SAME: g3 = #fpx.format<e5m2, bias = 16>
// CHECK-SAME: g4 = #fpx.format<e3m3, bias = -2>
// CHECK-SAME: g5 = #fpx.format<e6m1, bias = 254>
// CHECK-SAME: g6 = #fpx.format<e7m0>
func.func @generic_formats() attributes {
    g0 = #fpx.format<e4m2>, g1 = #fpx.format<e4m2, bias = 11>, g2 = #fpx.format<e1m6>,
    g3 = #fpx.format<e5m2, bias = 16>, g4 = #fpx.format<e3m3, bias = -2>,
    g5 = #fpx.format<e6m1, bias = 254>, g6 = #fpx.format<e7m0>} {
  return
}

// -----

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: l0 = #fpx.layout<row_major>
// CHECK-SAME: l1 = #fpx.layout<fp4x2>
// CHECK-SAME: l2 = #fpx.layout<fp6_planes>
// CHECK-SAME: l3 = #fpx.layout<fp6_packed>
// CHECK-SAME: l4 = #fpx.layout<fp6_byte>
// CHECK-SAME: l5 = #fpx.layout<blocked_128x4>
// CHECK-SAME: l6 = #fpx.layout<fp6_interleaved>
func.func @layouts() attributes {
    l0 = #fpx.layout<row_major>, l1 = #fpx.layout<fp4x2>, l2 = #fpx.layout<fp6_planes>,
    l3 = #fpx.layout<fp6_packed>, l4 = #fpx.layout<fp6_byte>, l5 = #fpx.layout<blocked_128x4>,
    l6 = #fpx.layout<fp6_interleaved>} {
  return
}

// -----

// CHECK-LABEL: func.func @roundings
// CHECK-SAME: r0 = #fpx.rounding<rn>
// CHECK-SAME: r1 = #fpx.rounding<rz>
// CHECK-SAME: r2 = #fpx.rounding<rs>
func.func @roundings() attributes {
    r0 = #fpx.rounding<rn>, r1 = #fpx.rounding<rz>, r2 = #fpx.rounding<rs>} {
  return
}

// -----

// Every rule with a scale type it allows.
// CHECK-LABEL: func.func @scale_rules
// CHECK-SAME: s0 = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>
// CHECK-SAME: s1 = #fpx.scaling<block = [1, 32], rule = ceil, scale = f8E8M0FNU>
// CHECK-SAME: s2 = #fpx.scaling<block = [1, 32], rule = even, scale = f8E8M0FNU>
// CHECK-SAME: s3 = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>
// CHECK-SAME: s4 = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>
// CHECK-SAME: s5 = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>
// CHECK-SAME: s6 = #fpx.scaling<block = [1, 64], rule = amax, scale = bf16>
// CHECK-SAME: s7 = #fpx.scaling<block = [1, 64], rule = amax, scale = f16>
func.func @scale_rules() attributes {
    s0 = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
    s1 = #fpx.scaling<block = [1, 32], rule = ceil, scale = f8E8M0FNU>,
    s2 = #fpx.scaling<block = [1, 32], rule = even, scale = f8E8M0FNU>,
    s3 = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>,
    s4 = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
    s5 = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>,
    s6 = #fpx.scaling<block = [1, 64], rule = amax, scale = bf16>,
    s7 = #fpx.scaling<block = [1, 64], rule = amax, scale = f16>} {
  return
}

// -----

// '*' spans a whole dimension; blocks of rank 1, 2 and 3.
// CHECK-LABEL: func.func @scale_blocks
// CHECK-SAME: b0 = #fpx.scaling<block = [*, *], rule = amax, scale = f32>
// CHECK-SAME: b1 = #fpx.scaling<block = [1, *], rule = amax, scale = f32>
// CHECK-SAME: b2 = #fpx.scaling<block = [*, 1], rule = amax, scale = f32>
// CHECK-SAME: b3 = #fpx.scaling<block = [32], rule = floor, scale = f8E8M0FNU>
// CHECK-SAME: b4 = #fpx.scaling<block = [*], rule = amax, scale = f32>
// CHECK-SAME: b5 = #fpx.scaling<block = [1, 1, 32], rule = rceil, scale = f8E8M0FNU>
// CHECK-SAME: b6 = #fpx.scaling<block = [*, *, *], rule = amax, scale = f32>
// CHECK-SAME: b7 = #fpx.scaling<block = [1, *, 128], rule = amax, scale = bf16>
func.func @scale_blocks() attributes {
    b0 = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
    b1 = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
    b2 = #fpx.scaling<block = [*, 1], rule = amax, scale = f32>,
    b3 = #fpx.scaling<block = [32], rule = floor, scale = f8E8M0FNU>,
    b4 = #fpx.scaling<block = [*], rule = amax, scale = f32>,
    b5 = #fpx.scaling<block = [1, 1, 32], rule = rceil, scale = f8E8M0FNU>,
    b6 = #fpx.scaling<block = [*, *, *], rule = amax, scale = f32>,
    b7 = #fpx.scaling<block = [1, *, 128], rule = amax, scale = bf16>} {
  return
}

// -----

// A rank-3 block on a rank-3 tensor, and a rank-2 block per matrix of a
// rank-3 tensor, in ops.
// CHECK-LABEL: func.func @rank3_blocks_in_ops
// CHECK: fpx.quantize %{{.*}} {scaling = #fpx.scaling<block = [1, 1, 32], rule = rceil, scale = f8E8M0FNU>} : tensor<4x8x64xbf16> -> tensor<4x8x64xf8E4M3FN>, tensor<4x8x2xf8E8M0FNU>
// CHECK: fpx.quantize %{{.*}} {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} : tensor<4x8x64xbf16> -> tensor<4x8x64xf8E5M2>, tensor<4x1x1xf32>
func.func @rank3_blocks_in_ops(%x: tensor<4x8x64xbf16>)
    -> (tensor<4x8x64xf8E4M3FN>, tensor<4x8x2xf8E8M0FNU>, tensor<4x8x64xf8E5M2>, tensor<4x1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<4x8x64xbf16> -> tensor<4x8x64xf8E4M3FN>, tensor<4x8x2xf8E8M0FNU>
  %q2, %s2 = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x8x64xbf16> -> tensor<4x8x64xf8E5M2>, tensor<4x1x1xf32>
  return %q, %s, %q2, %s2 : tensor<4x8x64xf8E4M3FN>, tensor<4x8x2xf8E8M0FNU>, tensor<4x8x64xf8E5M2>, tensor<4x1x1xf32>
}
