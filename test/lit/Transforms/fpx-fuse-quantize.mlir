// RUN: fpx-opt %s -split-input-file -fpx-fuse-quantize | FileCheck %s

// fpx.pack of the quantized data becomes the quantize's `packing` (and the
// element format moves into `format`, the result type becomes the bytes).
// CHECK-LABEL: func.func @fuse_pack
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xbf16>)
// CHECK: %[[Q:.*]], %[[S:.*]] = fpx.quantize %[[X]] {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
// CHECK-SAME: : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
// CHECK-NOT: fpx.pack
// CHECK: return %[[Q]], %[[S]]
func.func @fuse_pack(%x: tensor<?x64xbf16>) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x64xbf16> -> tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN>
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<?x64xf4E2M1FN> -> tensor<?x32xi8>
  return %p, %s : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
}

// -----

// fp6 4+2 packing of i8 codes keeps the format attribute.
// CHECK-LABEL: func.func @fuse_pack_fp6
// CHECK: %[[Q:.*]], %{{.*}} = fpx.quantize %{{.*}} {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_planes>
// CHECK-SAME: -> tensor<16x48xi8>, tensor<16x1xbf16>
// CHECK-NOT: fpx.pack
// CHECK: return %[[Q]]
func.func @fuse_pack_fp6(%x: tensor<16x64xbf16>) -> tensor<16x48xi8> {
  %q, %s = fpx.quantize %x {format = #fpx.format<e3m2>,
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = bf16>}
    : tensor<16x64xbf16> -> tensor<16x64xi8>, tensor<16x1xbf16>
  %p = fpx.pack %q {layout = #fpx.layout<fp6_planes>, format = #fpx.format<e3m2>} : tensor<16x64xi8> -> tensor<16x48xi8>
  return %p : tensor<16x48xi8>
}

// -----

// fpx.swizzle_scales of the scales becomes `scale_layout`.
// CHECK-LABEL: func.func @fuse_swizzle
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xbf16>)
// CHECK: %[[Q:.*]], %[[S:.*]] = fpx.quantize %[[X]] {scale_layout = #fpx.layout<blocked_128x4>, scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
// CHECK-SAME: : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
// CHECK-NOT: fpx.swizzle_scales
// CHECK: return %[[Q]], %[[S]]
func.func @fuse_swizzle(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xf8E8M0FNU> -> tensor<?x?xf8E8M0FNU>
  return %q, %b : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// Static shapes: the scales take the padded (swizzled) type.
// CHECK-LABEL: func.func @fuse_swizzle_static
// CHECK: %{{.*}}, %[[S:.*]] = fpx.quantize %{{.*}} {scale_layout = #fpx.layout<blocked_128x4>
// CHECK-SAME: -> tensor<200x64xf8E4M3FN>, tensor<256x4xf8E8M0FNU>
// CHECK: return %[[S]] : tensor<256x4xf8E8M0FNU>
func.func @fuse_swizzle_static(%x: tensor<200x64xbf16>) -> tensor<256x4xf8E8M0FNU> {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<200x64xbf16> -> tensor<200x64xf8E4M3FN>, tensor<200x2xf8E8M0FNU>
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
    : tensor<200x2xf8E8M0FNU> -> tensor<256x4xf8E8M0FNU>
  return %b : tensor<256x4xf8E8M0FNU>
}

// -----

// fpx.hadamard of the input becomes `hadamard` / `hadamard_seed`.
// CHECK-LABEL: func.func @fuse_hadamard
// CHECK-SAME: (%[[X:.*]]: tensor<?x4096xbf16>)
// CHECK-NOT: fpx.hadamard
// CHECK: fpx.quantize %[[X]] {hadamard = 16 : i64, hadamard_seed = 7 : i64, scaling
func.func @fuse_hadamard(%x: tensor<?x4096xbf16>) -> (tensor<?x4096xf8E4M3FN>, tensor<?x256xf8E4M3FN>) {
  %h = fpx.hadamard %x {size = 16, seed = 7} : tensor<?x4096xbf16>
  %q, %s = fpx.quantize %h {scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x4096xbf16> -> tensor<?x4096xf8E4M3FN>, tensor<?x256xf8E4M3FN>
  return %q, %s : tensor<?x4096xf8E4M3FN>, tensor<?x256xf8E4M3FN>
}

// -----

// All three stages into one op (NVFP4 with RHT, packed, blocked scales).
// CHECK-LABEL: func.func @fuse_all
// CHECK-SAME: (%[[X:.*]]: tensor<256x64xbf16>, %[[A:.*]]: tensor<f32>)
// CHECK-NOT: fpx.hadamard
// CHECK: %[[Q:.*]], %[[S:.*]] = fpx.quantize %[[X]] amax(%[[A]] : tensor<f32>) {format = #fpx.format<e2m1fn>, hadamard = 16 : i64, hadamard_seed = 0 : i64, packing = #fpx.layout<fp4x2>, scale_layout = #fpx.layout<blocked_128x4>, scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
// CHECK-SAME: : tensor<256x64xbf16> -> tensor<256x32xi8>, tensor<256x4xf8E4M3FN>
// CHECK-NOT: fpx.pack
// CHECK-NOT: fpx.swizzle_scales
// CHECK: return %[[Q]], %[[S]]
func.func @fuse_all(%x: tensor<256x64xbf16>, %a: tensor<f32>) -> (tensor<256x32xi8>, tensor<256x4xf8E4M3FN>) {
  %h = fpx.hadamard %x {size = 16} : tensor<256x64xbf16>
  %q, %s = fpx.quantize %h amax(%a : tensor<f32>) {scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<256x64xbf16> -> tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<256x64xf4E2M1FN> -> tensor<256x32xi8>
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
    : tensor<256x4xf8E4M3FN> -> tensor<256x4xf8E4M3FN>
  return %p, %b : tensor<256x32xi8>, tensor<256x4xf8E4M3FN>
}

// -----

// The quantized data has another use: packing is not fused.
// CHECK-LABEL: func.func @no_fuse_pack_two_uses
// CHECK: %[[Q:.*]], %{{.*}} = fpx.quantize
// CHECK-NOT: packing
// CHECK-SAME: -> tensor<8x64xf4E2M1FN>
// CHECK: %[[P:.*]] = fpx.pack %[[Q]]
// CHECK: return %[[P]], %[[Q]]
func.func @no_fuse_pack_two_uses(%x: tensor<8x64xbf16>) -> (tensor<8x32xi8>, tensor<8x64xf4E2M1FN>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<8x64xbf16> -> tensor<8x64xf4E2M1FN>, tensor<8x4xf8E4M3FN>
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<8x64xf4E2M1FN> -> tensor<8x32xi8>
  return %p, %q : tensor<8x32xi8>, tensor<8x64xf4E2M1FN>
}

// -----

// The scales have another use: no scale_layout.
// CHECK-LABEL: func.func @no_fuse_swizzle_two_uses
// CHECK: %{{.*}}, %[[S:.*]] = fpx.quantize
// CHECK-NOT: scale_layout
// CHECK: %[[B:.*]] = fpx.swizzle_scales %[[S]]
// CHECK: return %[[B]], %[[S]]
func.func @no_fuse_swizzle_two_uses(%x: tensor<128x128xbf16>) -> (tensor<128x4xf8E8M0FNU>, tensor<128x4xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
    : tensor<128x4xf8E8M0FNU> -> tensor<128x4xf8E8M0FNU>
  return %b, %s : tensor<128x4xf8E8M0FNU>, tensor<128x4xf8E8M0FNU>
}

// -----

// Grouped swizzling (with offsets) is not a quantize scale layout.
// CHECK-LABEL: func.func @no_fuse_grouped_swizzle
// CHECK: fpx.quantize
// CHECK-NOT: scale_layout
// CHECK: fpx.swizzle_scales %{{.*}} offsets
func.func @no_fuse_grouped_swizzle(%x: tensor<?x128xbf16>, %off: tensor<4xi32>) -> tensor<?x4xf8E8M0FNU> {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x128xbf16> -> tensor<?x128xf8E4M3FN>, tensor<?x4xf8E8M0FNU>
  %b = fpx.swizzle_scales %s offsets(%off : tensor<4xi32>) {layout = #fpx.layout<blocked_128x4>}
    : tensor<?x4xf8E8M0FNU> -> tensor<?x4xf8E8M0FNU>
  return %b : tensor<?x4xf8E8M0FNU>
}

// -----

// A transform read by an amax and a quantize (NVFP4 with RHT): both take the
// input and recompute the transform.
// CHECK-LABEL: func.func @fuse_hadamard_amax_and_quantize
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xbf16>)
// CHECK-NOT: fpx.hadamard
// CHECK: %[[A:.*]] = fpx.amax %[[X]] {hadamard = 16 : i64, hadamard_seed = 5 : i64}
// CHECK: fpx.quantize %[[X]] amax(%[[A]] : tensor<f32>) {{.*}}hadamard = 16 : i64, hadamard_seed = 5 : i64
func.func @fuse_hadamard_amax_and_quantize(%x: tensor<?x64xbf16>) -> (tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN>) {
  %h = fpx.hadamard %x {size = 16, seed = 5} : tensor<?x64xbf16>
  %a = fpx.amax %h : tensor<?x64xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %h amax(%a : tensor<f32>) {scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x64xbf16> -> tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN>
  return %q, %s : tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN>
}

// -----

// The Hadamard output has another use: it stays.
// CHECK-LABEL: func.func @no_fuse_hadamard_two_uses
// CHECK: %[[H:.*]] = fpx.hadamard
// CHECK: fpx.quantize %[[H]]
// CHECK-NOT: hadamard =
// CHECK: return
func.func @no_fuse_hadamard_two_uses(%x: tensor<4x64xbf16>) -> (tensor<4x64xf8E4M3FN>, tensor<4x64xbf16>) {
  %h = fpx.hadamard %x {size = 32} : tensor<4x64xbf16>
  %q, %s = fpx.quantize %h {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<1x1xf32>
  return %q, %h : tensor<4x64xf8E4M3FN>, tensor<4x64xbf16>
}

// -----

// fpx.pack of a function argument: nothing to fuse.
// CHECK-LABEL: func.func @no_fuse_pack_of_argument
// CHECK: fpx.pack
func.func @no_fuse_pack_of_argument(%q: tensor<8x64xf4E2M1FN>) -> tensor<8x32xi8> {
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<8x64xf4E2M1FN> -> tensor<8x32xi8>
  return %p : tensor<8x32xi8>
}
