// RUN: fpx-opt %s -split-input-file | fpx-opt -split-input-file | FileCheck %s
// RUN: fpx-opt %s -split-input-file -mlir-print-op-generic | fpx-opt -split-input-file | FileCheck %s

// Round trips of every fpx op in its custom assembly form, through the
// generic form too: every operand, optional operand and attribute survives.

// CHECK-LABEL: func.func @quantize_mxfp8
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xbf16>)
// CHECK: %[[Q:.*]], %[[S:.*]] = fpx.quantize %[[X]] {
// CHECK-SAME: scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>
// CHECK-SAME: : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
// CHECK: return %[[Q]], %[[S]]
func.func @quantize_mxfp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// What an MX block holding inf or NaN produces: saturate (nan, the default,
// prints when written).
// CHECK-LABEL: func.func @quantize_nonfinite
// CHECK: fpx.quantize %{{.*}} {nonfinite = #fpx.nonfinite<saturate>,
// CHECK: fpx.quantize %{{.*}} {nonfinite = #fpx.nonfinite<nan>,
// CHECK: fpx.quantize %{{.*}} {scaling
// CHECK-NOT: nonfinite
// CHECK: return
func.func @quantize_nonfinite(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {nonfinite = #fpx.nonfinite<saturate>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  %q2, %s2 = fpx.quantize %x {nonfinite = #fpx.nonfinite<nan>,
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  %q3, %s3 = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// Every optional operand and attribute at once (NVFP4 with rs and a fused
// Hadamard transform).
// CHECK-LABEL: func.func @quantize_all_options
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xbf16>, %[[A:.*]]: tensor<f32>, %[[SEED:.*]]: i64)
// CHECK: fpx.quantize %[[X]] amax(%[[A]] : tensor<f32>) seed(%[[SEED]]) {
// CHECK-SAME: format = #fpx.format<e2m1fn>
// CHECK-SAME: hadamard = 16 : i64
// CHECK-SAME: hadamard_seed = 3 : i64
// CHECK-SAME: overflow_to_special
// CHECK-SAME: packing = #fpx.layout<fp4x2>
// CHECK-SAME: rounding = #fpx.rounding<rs>
// CHECK-SAME: scale_layout = #fpx.layout<row_major>
// CHECK-SAME: scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>
// CHECK-SAME: : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
func.func @quantize_all_options(%x: tensor<?x64xbf16>, %a: tensor<f32>, %seed: i64) -> (tensor<?x32xi8>, tensor<?x4xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scale_layout = #fpx.layout<row_major>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>, hadamard = 16, hadamard_seed = 3,
      overflow_to_special}
    : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
  return %q, %s : tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
}

// -----

// NVFP4 over a batch of matrices with one amax per matrix (rank-1).
// CHECK-LABEL: func.func @quantize_per_matrix_amax
// CHECK: fpx.quantize %{{.*}} amax(%{{.*}} : tensor<?xf32>) {
// CHECK-SAME: : tensor<?x64x128xbf16> -> tensor<?x64x64xi8>, tensor<?x64x8xf8E4M3FN>
func.func @quantize_per_matrix_amax(%x: tensor<?x64x128xbf16>, %a: tensor<?xf32>) -> (tensor<?x64x64xi8>, tensor<?x64x8xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<?xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x64x128xbf16> -> tensor<?x64x64xi8>, tensor<?x64x8xf8E4M3FN>
  return %q, %s : tensor<?x64x64xi8>, tensor<?x64x8xf8E4M3FN>
}

// -----

// Per-tensor fp32 scale, f32 input, e5m2, rz; blocked 128x4 scale layout on
// a static shape (4 scales padded to 128x4).
// CHECK-LABEL: func.func @quantize_per_tensor_rz
// CHECK: fpx.quantize %{{.*}} {rounding = #fpx.rounding<rz>, scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
// CHECK-SAME: : tensor<128x256xf32> -> tensor<128x256xf8E5M2>, tensor<1x1xf32>
// CHECK: fpx.quantize %{{.*}} {scale_layout = #fpx.layout<blocked_128x4>, scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
// CHECK-SAME: : tensor<2x128xf16> -> tensor<2x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
func.func @quantize_per_tensor_rz(%x: tensor<128x256xf32>, %y: tensor<2x128xf16>)
    -> (tensor<128x256xf8E5M2>, tensor<1x1xf32>, tensor<2x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rounding = #fpx.rounding<rz>}
    : tensor<128x256xf32> -> tensor<128x256xf8E5M2>, tensor<1x1xf32>
  %q2, %s2 = fpx.quantize %y {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<2x128xf16> -> tensor<2x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return %q, %s, %q2, %s2 : tensor<128x256xf8E5M2>, tensor<1x1xf32>, tensor<2x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
}

// -----

// Rank-3 tensor (a batch of expert matrices) with a rank-2 block, i8 codes of
// a generic format, fp6 4+2 packing.
// CHECK-LABEL: func.func @quantize_rank3_fp6
// CHECK: fpx.quantize %{{.*}} {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_planes>, scaling = #fpx.scaling<block = [1, 32], rule = even, scale = f8E8M0FNU>}
// CHECK-SAME: : tensor<8x?x64xbf16> -> tensor<8x?x48xi8>, tensor<8x?x2xf8E8M0FNU>
func.func @quantize_rank3_fp6(%x: tensor<8x?x64xbf16>) -> (tensor<8x?x48xi8>, tensor<8x?x2xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e3m2>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [1, 32], rule = even, scale = f8E8M0FNU>}
    : tensor<8x?x64xbf16> -> tensor<8x?x48xi8>, tensor<8x?x2xf8E8M0FNU>
  return %q, %s : tensor<8x?x48xi8>, tensor<8x?x2xf8E8M0FNU>
}

// -----

// CHECK-LABEL: func.func @dequantize_fp6_llm
// CHECK-SAME: (%[[W:.*]]: tensor<11008x3072xi8>, %[[S:.*]]: tensor<11008x1xbf16>)
// CHECK: %[[R:.*]] = fpx.dequantize %[[W]], %[[S]] {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_planes>, scaling = #fpx.scaling<block = [1, *], rule = amax, scale = bf16>}
// CHECK-SAME: : tensor<11008x3072xi8>, tensor<11008x1xbf16> -> tensor<11008x4096xbf16>
// CHECK: return %[[R]]
func.func @dequantize_fp6_llm(%w: tensor<11008x3072xi8>, %s: tensor<11008x1xbf16>) -> tensor<11008x4096xbf16> {
  %r = fpx.dequantize %w, %s {format = #fpx.format<e3m2>,
      packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = bf16>}
    : tensor<11008x3072xi8>, tensor<11008x1xbf16> -> tensor<11008x4096xbf16>
  return %r : tensor<11008x4096xbf16>
}

// -----

// NVFP4 dequantize with the global amax and blocked scales.
// CHECK-LABEL: func.func @dequantize_nvfp4
// CHECK-SAME: (%[[Q:.*]]: tensor<256x32xi8>, %[[S:.*]]: tensor<256x4xf8E4M3FN>, %[[A:.*]]: tensor<f32>)
// CHECK: fpx.dequantize %[[Q]], %[[S]] amax(%[[A]] : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, scale_layout = #fpx.layout<blocked_128x4>, scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
// CHECK-SAME: : tensor<256x32xi8>, tensor<256x4xf8E4M3FN> -> tensor<256x64xf32>
func.func @dequantize_nvfp4(%q: tensor<256x32xi8>, %s: tensor<256x4xf8E4M3FN>, %a: tensor<f32>) -> tensor<256x64xf32> {
  %r = fpx.dequantize %q, %s amax(%a : tensor<f32>) {format = #fpx.format<e2m1fn>,
      packing = #fpx.layout<fp4x2>, scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<256x32xi8>, tensor<256x4xf8E4M3FN> -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}

// -----

// NVFP4 dequantize with the global scale g itself.
// CHECK-LABEL: func.func @dequantize_nvfp4_g
// CHECK-SAME: (%[[Q:.*]]: tensor<256x32xi8>, %[[S:.*]]: tensor<256x4xf8E4M3FN>, %[[G:.*]]: tensor<f32>)
// CHECK: fpx.dequantize %[[Q]], %[[S]] global_scale(%[[G]] : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
// CHECK-SAME: : tensor<256x32xi8>, tensor<256x4xf8E4M3FN> -> tensor<256x64xbf16>
func.func @dequantize_nvfp4_g(%q: tensor<256x32xi8>, %s: tensor<256x4xf8E4M3FN>, %g: tensor<f32>) -> tensor<256x64xbf16> {
  %r = fpx.dequantize %q, %s global_scale(%g : tensor<f32>) {format = #fpx.format<e2m1fn>,
      packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<256x32xi8>, tensor<256x4xf8E4M3FN> -> tensor<256x64xbf16>
  return %r : tensor<256x64xbf16>
}

// -----

// CHECK-LABEL: func.func @pack_unpack
// CHECK-SAME: (%[[F4:.*]]: tensor<128x64xf4E2M1FN>, %[[B6:.*]]: tensor<64x96xi8>, %[[C6:.*]]: tensor<4x8xi8>, %[[F6:.*]]: tensor<4x8xf6E2M3FN>)
// CHECK: fpx.pack %[[F4]] {layout = #fpx.layout<fp4x2>} : tensor<128x64xf4E2M1FN> -> tensor<128x32xi8>
// CHECK: fpx.unpack %[[B6]] {layout = #fpx.layout<fp6_planes>} : tensor<64x96xi8> -> tensor<64x128xf6E3M2FN>
// CHECK: fpx.pack %[[C6]] {format = #fpx.format<e3m2fn>, layout = #fpx.layout<fp6_packed>} : tensor<4x8xi8> -> tensor<4x6xi8>
// CHECK: fpx.pack %[[F6]] {layout = #fpx.layout<fp6_byte>} : tensor<4x8xf6E2M3FN> -> tensor<4x8xi8>
// CHECK: fpx.unpack %{{.*}} {format = #fpx.format<e3m2fn>, layout = #fpx.layout<fp6_packed>} : tensor<4x6xi8> -> tensor<4x8xi8>
func.func @pack_unpack(%f4: tensor<128x64xf4E2M1FN>, %b6: tensor<64x96xi8>, %c6: tensor<4x8xi8>, %f6: tensor<4x8xf6E2M3FN>)
    -> (tensor<128x32xi8>, tensor<64x128xf6E3M2FN>, tensor<4x8xi8>, tensor<4x8xi8>) {
  %p = fpx.pack %f4 {layout = #fpx.layout<fp4x2>} : tensor<128x64xf4E2M1FN> -> tensor<128x32xi8>
  %u = fpx.unpack %b6 {layout = #fpx.layout<fp6_planes>} : tensor<64x96xi8> -> tensor<64x128xf6E3M2FN>
  %p6 = fpx.pack %c6 {layout = #fpx.layout<fp6_packed>, format = #fpx.format<e3m2>} : tensor<4x8xi8> -> tensor<4x6xi8>
  %pb = fpx.pack %f6 {layout = #fpx.layout<fp6_byte>} : tensor<4x8xf6E2M3FN> -> tensor<4x8xi8>
  %u6 = fpx.unpack %p6 {layout = #fpx.layout<fp6_packed>, format = #fpx.format<e3m2>} : tensor<4x6xi8> -> tensor<4x8xi8>
  return %p, %u, %u6, %pb : tensor<128x32xi8>, tensor<64x128xf6E3M2FN>, tensor<4x8xi8>, tensor<4x8xi8>
}

// -----

// CHECK-LABEL: func.func @swizzle_scales
// CHECK-SAME: (%[[S:.*]]: tensor<16384x256xf8E8M0FNU>, %[[T:.*]]: tensor<100x3xf8E4M3FN>, %[[G:.*]]: tensor<?x8xf8E8M0FNU>, %[[OFF:.*]]: tensor<4xi32>)
// CHECK: fpx.swizzle_scales %[[S]] {layout = #fpx.layout<blocked_128x4>} : tensor<16384x256xf8E8M0FNU> -> tensor<16384x256xf8E8M0FNU>
// CHECK: fpx.swizzle_scales %[[T]] {layout = #fpx.layout<blocked_128x4>} : tensor<100x3xf8E4M3FN> -> tensor<128x4xf8E4M3FN>
// CHECK: fpx.swizzle_scales %[[G]] offsets(%[[OFF]] : tensor<4xi32>) {layout = #fpx.layout<blocked_128x4>} : tensor<?x8xf8E8M0FNU> -> tensor<?x8xf8E8M0FNU>
func.func @swizzle_scales(%s: tensor<16384x256xf8E8M0FNU>, %t: tensor<100x3xf8E4M3FN>, %g: tensor<?x8xf8E8M0FNU>, %off: tensor<4xi32>)
    -> (tensor<16384x256xf8E8M0FNU>, tensor<128x4xf8E4M3FN>, tensor<?x8xf8E8M0FNU>) {
  %a = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
    : tensor<16384x256xf8E8M0FNU> -> tensor<16384x256xf8E8M0FNU>
  %b = fpx.swizzle_scales %t {layout = #fpx.layout<blocked_128x4>}
    : tensor<100x3xf8E4M3FN> -> tensor<128x4xf8E4M3FN>
  %c = fpx.swizzle_scales %g offsets(%off : tensor<4xi32>) {layout = #fpx.layout<blocked_128x4>}
    : tensor<?x8xf8E8M0FNU> -> tensor<?x8xf8E8M0FNU>
  return %a, %b, %c : tensor<16384x256xf8E8M0FNU>, tensor<128x4xf8E4M3FN>, tensor<?x8xf8E8M0FNU>
}

// -----

// Static rows with offsets: rows + 128 * groups, padded to 128.
// CHECK-LABEL: func.func @swizzle_scales_grouped_static
// CHECK: fpx.swizzle_scales %{{.*}} offsets(%{{.*}} : tensor<2xi32>) {layout = #fpx.layout<blocked_128x4>} : tensor<100x4xf8E8M0FNU> -> tensor<384x4xf8E8M0FNU>
func.func @swizzle_scales_grouped_static(%s: tensor<100x4xf8E8M0FNU>, %off: tensor<2xi32>) -> tensor<384x4xf8E8M0FNU> {
  %a = fpx.swizzle_scales %s offsets(%off : tensor<2xi32>) {layout = #fpx.layout<blocked_128x4>}
    : tensor<100x4xf8E8M0FNU> -> tensor<384x4xf8E8M0FNU>
  return %a : tensor<384x4xf8E8M0FNU>
}

// -----

// CHECK-LABEL: func.func @amax
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xbf16>)
// CHECK: %[[A:.*]] = fpx.amax %[[X]] : tensor<?x?xbf16> -> tensor<f32>
// CHECK: return %[[A]]
func.func @amax(%x: tensor<?x?xbf16>) -> tensor<f32> {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  return %a : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @hadamard
// CHECK-SAME: (%[[G:.*]]: tensor<?x4096xbf16>)
// CHECK: %[[H:.*]] = fpx.hadamard %[[G]] {seed = 7 : i64, size = 16 : i64} : tensor<?x4096xbf16>
// CHECK: fpx.hadamard %[[H]] {size = 128 : i64} : tensor<?x4096xbf16>
func.func @hadamard(%g: tensor<?x4096xbf16>) -> tensor<?x4096xbf16> {
  %h = fpx.hadamard %g {size = 16, seed = 7} : tensor<?x4096xbf16>
  %h2 = fpx.hadamard %h {size = 128} : tensor<?x4096xbf16>
  return %h2 : tensor<?x4096xbf16>
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<?x4096xbf16>, %[[W:.*]]: tensor<11008x4096xbf16>, %[[B:.*]]: tensor<4096x32xf32>)
// CHECK: fpx.matmul %[[A]], %[[W]] {transpose_b} : tensor<?x4096xbf16>, tensor<11008x4096xbf16> -> tensor<?x11008xbf16>
// CHECK: fpx.matmul %[[A]], %[[B]] : tensor<?x4096xbf16>, tensor<4096x32xf32> -> tensor<?x32xf16>
func.func @matmul(%a: tensor<?x4096xbf16>, %w: tensor<11008x4096xbf16>, %b: tensor<4096x32xf32>)
    -> (tensor<?x11008xbf16>, tensor<?x32xf16>) {
  %y = fpx.matmul %a, %w {transpose_b}
    : tensor<?x4096xbf16>, tensor<11008x4096xbf16> -> tensor<?x11008xbf16>
  %z = fpx.matmul %a, %b : tensor<?x4096xbf16>, tensor<4096x32xf32> -> tensor<?x32xf16>
  return %y, %z : tensor<?x11008xbf16>, tensor<?x32xf16>
}

// -----

// CHECK-LABEL: func.func @scaled_matmul_mxfp8
// CHECK-SAME: (%[[A:.*]]: tensor<?x4096xf8E4M3FN>, %[[SA:.*]]: tensor<?x128xf8E8M0FNU>, %[[B:.*]]: tensor<8192x4096xf8E4M3FN>, %[[SB:.*]]: tensor<8192x128xf8E8M0FNU>)
// CHECK: fpx.scaled_matmul %[[A]] : tensor<?x4096xf8E4M3FN> scales(%[[SA]] : tensor<?x128xf8E8M0FNU>), %[[B]] : tensor<8192x4096xf8E4M3FN> scales(%[[SB]] : tensor<8192x128xf8E8M0FNU>) {
// CHECK-SAME: lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>
// CHECK-SAME: rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>
// CHECK-SAME: -> tensor<?x8192xbf16>
func.func @scaled_matmul_mxfp8(%a: tensor<?x4096xf8E4M3FN>, %sa: tensor<?x128xf8E8M0FNU>,
                               %b: tensor<8192x4096xf8E4M3FN>, %sb: tensor<8192x128xf8E8M0FNU>) -> tensor<?x8192xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x4096xf8E4M3FN> scales(%sa : tensor<?x128xf8E8M0FNU>), %b : tensor<8192x4096xf8E4M3FN> scales(%sb : tensor<8192x128xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x8192xbf16>
  return %c : tensor<?x8192xbf16>
}

// -----

// NVFP4 x NVFP4: fp4x2 codes, e4m3 [1, 16] scales and a tensor scale on
// each side (K = 4096: 2048 bytes a row, 256 scales).
// CHECK-LABEL: func.func @scaled_matmul_nvfp4
// CHECK: fpx.scaled_matmul %{{.*}} : tensor<?x2048xi8> scales(%{{.*}} : tensor<?x256xf8E4M3FN>) global_scale(%{{.*}} : tensor<f32>), %{{.*}} : tensor<8192x2048xi8> scales(%{{.*}} : tensor<8192x256xf8E4M3FN>) global_scale(%{{.*}} : tensor<f32>) {
// CHECK-SAME: lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>
func.func @scaled_matmul_nvfp4(%a: tensor<?x2048xi8>, %sa: tensor<?x256xf8E4M3FN>, %ga: tensor<f32>,
                               %b: tensor<8192x2048xi8>, %sb: tensor<8192x256xf8E4M3FN>, %gb: tensor<f32>) -> tensor<?x8192xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x2048xi8> scales(%sa : tensor<?x256xf8E4M3FN>) global_scale(%ga : tensor<f32>),
                         %b : tensor<8192x2048xi8> scales(%sb : tensor<8192x256xf8E4M3FN>) global_scale(%gb : tensor<f32>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x8192xbf16>
  return %c : tensor<?x8192xbf16>
}

// -----

// Scaled lhs, high-precision rhs (no rhs scales).
// Blockwise FP8 (DeepSeek-V3's 1x128 x 128x128) with partial blocks: f32
// block scales count ceil(dim / block) (1000 x 208 has 1000 x 2; 300 x 208
// with 128x128 blocks has 3 x 2).
// CHECK-LABEL: func.func @scaled_matmul_blockwise_partial
// CHECK: fpx.scaled_matmul %{{.*}} : tensor<1000x208xf8E4M3FN> scales(%{{.*}} : tensor<1000x2xf32>), %{{.*}} : tensor<300x208xf8E4M3FN> scales(%{{.*}} : tensor<3x2xf32>) {lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>, rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>}
func.func @scaled_matmul_blockwise_partial(%a: tensor<1000x208xf8E4M3FN>, %sa: tensor<1000x2xf32>, %b: tensor<300x208xf8E4M3FN>, %sb: tensor<3x2xf32>) -> tensor<1000x300xbf16> {
  %c = fpx.scaled_matmul %a : tensor<1000x208xf8E4M3FN> scales(%sa : tensor<1000x2xf32>), %b : tensor<300x208xf8E4M3FN> scales(%sb : tensor<3x2xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>} -> tensor<1000x300xbf16>
  return %c : tensor<1000x300xbf16>
}

// -----

// An optional bias (N values) after global_scale.
// CHECK-LABEL: func.func @scaled_matmul_bias
// CHECK-SAME: (%{{.*}}: tensor<?x64xbf16>, %{{.*}}: tensor<16x32xi8>, %{{.*}}: tensor<16x4xf8E4M3FN>, %[[G:.*]]: tensor<f32>, %[[BIAS:.*]]: tensor<16xf32>)
// CHECK: global_scale(%[[G]] : tensor<f32>) bias(%[[BIAS]] : tensor<16xf32>) {rhs_format
func.func @scaled_matmul_bias(%x: tensor<?x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x4xf8E4M3FN>, %g: tensor<f32>, %bias: tensor<16xf32>) -> tensor<?x16xbf16> {
  %y = fpx.scaled_matmul %x : tensor<?x64xbf16>, %w : tensor<16x32xi8> scales(%s : tensor<16x4xf8E4M3FN>) global_scale(%g : tensor<f32>) bias(%bias : tensor<16xf32>) {
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<mma_tiles>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x16xbf16>
  return %y : tensor<?x16xbf16>
}

// -----

// CHECK-LABEL: func.func @scaled_matmul_lhs_only
// CHECK-SAME: (%[[A:.*]]: tensor<?x64xf8E4M3FN>, %[[S:.*]]: tensor<?x4xf32>, %[[W:.*]]: tensor<256x64xbf16>)
// CHECK: fpx.scaled_matmul %[[A]] : tensor<?x64xf8E4M3FN> scales(%[[S]] : tensor<?x4xf32>), %[[W]] : tensor<256x64xbf16> {lhs_format = #fpx.format<e4m3fn>, lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f32>}
// CHECK-SAME: -> tensor<?x256xf32>
func.func @scaled_matmul_lhs_only(%a: tensor<?x64xf8E4M3FN>, %s: tensor<?x4xf32>, %w: tensor<256x64xbf16>) -> tensor<?x256xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x64xf8E4M3FN> scales(%s : tensor<?x4xf32>), %w : tensor<256x64xbf16> {lhs_format = #fpx.format<e4m3fn>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f32>} -> tensor<?x256xf32>
  return %c : tensor<?x256xf32>
}

// -----

// Packed fp4 rhs with its format and packing named, high-precision lhs.
// CHECK-LABEL: func.func @scaled_matmul_packed_rhs
// CHECK: fpx.scaled_matmul %{{.*}} : tensor<?x64xf8E4M3FN> scales(%{{.*}} : tensor<?x2xf8E8M0FNU>), %{{.*}} : tensor<256x32xi8> scales(%{{.*}} : tensor<256x4xf8E4M3FN>) {lhs_scaling = #fpx.scaling<block = [1, 32], rule = ceil, scale = f8E8M0FNU>, rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>, rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
// CHECK-SAME: -> tensor<?x256xf16>
func.func @scaled_matmul_packed_rhs(%a: tensor<?x64xf8E4M3FN>, %sa: tensor<?x2xf8E8M0FNU>, %w: tensor<256x32xi8>, %s: tensor<256x4xf8E4M3FN>) -> tensor<?x256xf16> {
  %c = fpx.scaled_matmul %a : tensor<?x64xf8E4M3FN> scales(%sa : tensor<?x2xf8E8M0FNU>), %w : tensor<256x32xi8> scales(%s : tensor<256x4xf8E4M3FN>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = ceil, scale = f8E8M0FNU>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x256xf16>
  return %c : tensor<?x256xf16>
}

// -----

// CHECK-LABEL: func.func @grouped_matmul_2d3d
// CHECK-SAME: (%[[A:.*]]: tensor<?x5120xbf16>, %[[B:.*]]: tensor<8x8192x5120xbf16>, %[[OFF:.*]]: tensor<8xi32>)
// CHECK: fpx.grouped_matmul %[[A]], %[[B]] offsets(%[[OFF]]) : tensor<?x5120xbf16>, tensor<8x8192x5120xbf16>, tensor<8xi32> -> tensor<?x8192xbf16>
func.func @grouped_matmul_2d3d(%a: tensor<?x5120xbf16>, %b: tensor<8x8192x5120xbf16>, %off: tensor<8xi32>) -> tensor<?x8192xbf16> {
  %y = fpx.grouped_matmul %a, %b offsets(%off)
    : tensor<?x5120xbf16>, tensor<8x8192x5120xbf16>, tensor<8xi32> -> tensor<?x8192xbf16>
  return %y : tensor<?x8192xbf16>
}

// -----

// The float8 MoE forward GEMM: rowwise scales, A's [M, 1], B's [G, N, 1].
// CHECK-LABEL: func.func @grouped_matmul_2d3d_rowwise
// CHECK: fpx.grouped_matmul %{{.*}}, %{{.*}} offsets(%{{.*}}) scales(%{{.*}}, %{{.*}}) {lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>, rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
// CHECK-SAME: : tensor<?x512xf8E4M3FN>, tensor<8x256x512xf8E4M3FN>, tensor<8xi32>, tensor<?x1xf32>, tensor<8x256x1xf32> -> tensor<?x256xbf16>
func.func @grouped_matmul_2d3d_rowwise(%a: tensor<?x512xf8E4M3FN>, %b: tensor<8x256x512xf8E4M3FN>, %off: tensor<8xi32>,
                                       %sa: tensor<?x1xf32>, %sb: tensor<8x256x1xf32>) -> tensor<?x256xbf16> {
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x512xf8E4M3FN>, tensor<8x256x512xf8E4M3FN>, tensor<8xi32>, tensor<?x1xf32>, tensor<8x256x1xf32> -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}

// -----

// Weight gradient (2D x 2D -> groups x M x N) with rowwise scales.
// CHECK-LABEL: func.func @grouped_matmul_2d2d_scaled
// CHECK-SAME: (%[[A:.*]]: tensor<512x?xf8E4M3FN>, %[[B:.*]]: tensor<256x?xf8E4M3FN>, %[[OFF:.*]]: tensor<4xi32>, %[[SA:.*]]: tensor<512x1xf32>, %[[SB:.*]]: tensor<256x1xf32>)
// CHECK: fpx.grouped_matmul %[[A]], %[[B]] offsets(%[[OFF]]) scales(%[[SA]], %[[SB]])
// CHECK-SAME: lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>
// CHECK-SAME: : tensor<512x?xf8E4M3FN>, tensor<256x?xf8E4M3FN>, tensor<4xi32>, tensor<512x1xf32>, tensor<256x1xf32> -> tensor<4x512x256xbf16>
func.func @grouped_matmul_2d2d_scaled(%a: tensor<512x?xf8E4M3FN>, %b: tensor<256x?xf8E4M3FN>, %off: tensor<4xi32>,
                                      %sa: tensor<512x1xf32>, %sb: tensor<256x1xf32>) -> tensor<4x512x256xbf16> {
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<512x?xf8E4M3FN>, tensor<256x?xf8E4M3FN>, tensor<4xi32>, tensor<512x1xf32>, tensor<256x1xf32> -> tensor<4x512x256xbf16>
  return %y : tensor<4x512x256xbf16>
}

// -----

// fpx.convert: x2 fp8 -> i16, x2 fp4 -> i8, x4 fp6 -> i32, rs with rbits,
// overflow to special, a generic format with an explicit bias.
// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[V2:.*]]: vector<2xf32>, %[[V4:.*]]: vector<4xf32>, %[[R:.*]]: i32)
// CHECK: fpx.convert %[[V2]] {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
// CHECK: fpx.convert %[[V2]] {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rz>} : vector<2xf32> -> i8
// CHECK: fpx.convert %[[V4]] {format = #fpx.format<e3m2fn>, overflow_to_special, rounding = #fpx.rounding<rn>} : vector<4xf32> -> i32
// CHECK: fpx.convert %[[V4]] rbits(%[[R]]) {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i32
// CHECK: fpx.convert %[[V4]] rbits(%[[R]]) {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i16
// CHECK: fpx.convert %[[V2]] {format = #fpx.format<e4m2, bias = 11>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
func.func @convert(%v2: vector<2xf32>, %v4: vector<4xf32>, %r: i32) -> (i16, i8, i32, i32, i16, i16) {
  %a = fpx.convert %v2 {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  %b = fpx.convert %v2 {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rz>} : vector<2xf32> -> i8
  %c = fpx.convert %v4 {format = #fpx.format<e3m2fn>, rounding = #fpx.rounding<rn>, overflow_to_special} : vector<4xf32> -> i32
  %d = fpx.convert %v4 rbits(%r) {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i32
  %e = fpx.convert %v4 rbits(%r) {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i16
  %f = fpx.convert %v2 {format = #fpx.format<e4m2, bias = 11>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
  return %a, %b, %c, %d, %e, %f : i16, i8, i32, i32, i16, i16
}

// -----

// Column blocks with the transposed (column-major) result.
// CHECK-LABEL: func.func @quantize_transposed
// CHECK: fpx.quantize %{{.*}} {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed}
// CHECK-SAME: : tensor<8x64x128xbf16> -> tensor<8x128x64xf8E4M3FN>, tensor<8x128x2xf8E8M0FNU>
func.func @quantize_transposed(%x: tensor<8x64x128xbf16>) -> (tensor<8x128x64xf8E4M3FN>, tensor<8x128x2xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>,
                            rounding = #fpx.rounding<rn>, transposed}
    : tensor<8x64x128xbf16> -> tensor<8x128x64xf8E4M3FN>, tensor<8x128x2xf8E8M0FNU>
  return %q, %s : tensor<8x128x64xf8E4M3FN>, tensor<8x128x2xf8E8M0FNU>
}

// -----

// NVFP4's global scale of an amax.
// CHECK-LABEL: func.func @global_scale
// CHECK: %[[G:.*]] = fpx.global_scale %{{.*}} : tensor<f32>
// CHECK: return %[[G]]
func.func @global_scale(%a: tensor<f32>) -> tensor<f32> {
  %g = fpx.global_scale %a : tensor<f32>
  return %g : tensor<f32>
}

// -----

// torchao #1810's interleaved 4+2: the packed dimension is 3/4 of the codes'.
// CHECK-LABEL: func.func @fp6_interleaved
// CHECK: fpx.quantize %{{.*}} {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_interleaved>, scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
// CHECK-SAME: -> tensor<?x96xi8>, tensor<?x4xf8E8M0FNU>
// CHECK: fpx.dequantize %{{.*}}, %{{.*}} {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_interleaved>
// CHECK-SAME: -> tensor<?x128xbf16>
// CHECK: fpx.unpack %{{.*}} {layout = #fpx.layout<fp6_interleaved>} : tensor<?x96xi8> -> tensor<?x128xf6E2M3FN>
func.func @fp6_interleaved(%x: tensor<?x128xbf16>) -> (tensor<?x128xbf16>, tensor<?x128xf6E2M3FN>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x128xbf16> -> tensor<?x96xi8>, tensor<?x4xf8E8M0FNU>
  %y = fpx.dequantize %q, %s {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x96xi8>, tensor<?x4xf8E8M0FNU> -> tensor<?x128xbf16>
  %c = fpx.unpack %q {layout = #fpx.layout<fp6_interleaved>} : tensor<?x96xi8> -> tensor<?x128xf6E2M3FN>
  return %y, %c : tensor<?x128xbf16>, tensor<?x128xf6E2M3FN>
}
