// RUN: fpx-opt %s -split-input-file -fpx-fuse-dequant-matmul | FileCheck %s

// FP6-LLM weights: matmul(a, dequantize(w, s)) {transpose_b} reads packed
// bytes once in a scaled matmul.
// CHECK-LABEL: func.func @fold_fp6_weight
// CHECK-SAME: (%[[A:.*]]: tensor<?x4096xbf16>, %[[W:.*]]: tensor<11008x3072xi8>, %[[S:.*]]: tensor<11008x1xbf16>)
// CHECK-NOT: fpx.dequantize
// CHECK: %[[Y:.*]] = fpx.scaled_matmul %[[A]] : {{.*}}, %[[W]] : {{.*}} scales(%[[S]] : {{.*}}) {rhs_format = #fpx.format<e3m2fn>, rhs_packing = #fpx.layout<fp6_planes>, rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = bf16>}
// CHECK-SAME: -> tensor<?x11008xbf16>
// CHECK-NOT: fpx.matmul
// CHECK: return %[[Y]]
func.func @fold_fp6_weight(%a: tensor<?x4096xbf16>, %w: tensor<11008x3072xi8>, %s: tensor<11008x1xbf16>) -> tensor<?x11008xbf16> {
  %wd = fpx.dequantize %w, %s {format = #fpx.format<e3m2>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = bf16>}
    : tensor<11008x3072xi8>, tensor<11008x1xbf16> -> tensor<11008x4096xbf16>
  %y = fpx.matmul %a, %wd {transpose_b}
    : tensor<?x4096xbf16>, tensor<11008x4096xbf16> -> tensor<?x11008xbf16>
  return %y : tensor<?x11008xbf16>
}

// -----

// An FPx element type gives the format (no format attribute on the dequantize).
// CHECK-LABEL: func.func @fold_mxfp8_weight
// CHECK-SAME: (%[[A:.*]]: tensor<?x256xbf16>, %[[W:.*]]: tensor<512x256xf8E4M3FN>, %[[S:.*]]: tensor<512x8xf8E8M0FNU>)
// CHECK: fpx.scaled_matmul %[[A]] : {{.*}}, %[[W]] : {{.*}} scales(%[[S]] : {{.*}}) {rhs_format = #fpx.format<e4m3fn>, rhs_scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
// CHECK-SAME: -> tensor<?x512xf32>
func.func @fold_mxfp8_weight(%a: tensor<?x256xbf16>, %w: tensor<512x256xf8E4M3FN>, %s: tensor<512x8xf8E8M0FNU>) -> tensor<?x512xf32> {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<512x256xf8E4M3FN>, tensor<512x8xf8E8M0FNU> -> tensor<512x256xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<?x256xbf16>, tensor<512x256xbf16> -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// -----

// The dequantized weight has another user: it is written at full width
// anyway, and a fold would decode it twice: nothing changes.
// CHECK-LABEL: func.func @no_fold_shared_dequant
// CHECK: %[[WD:.*]] = fpx.dequantize
// CHECK: %[[Y:.*]] = fpx.matmul %{{.*}}, %[[WD]] {transpose_b}
// CHECK-NOT: fpx.scaled_matmul
// CHECK: return %[[Y]], %[[WD]]
func.func @no_fold_shared_dequant(%a: tensor<4x64xbf16>, %w: tensor<16x64xf8E5M2>, %s: tensor<1x1xf32>) -> (tensor<4x16xbf16>, tensor<16x64xbf16>) {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<16x64xf8E5M2>, tensor<1x1xf32> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<4x64xbf16>, tensor<16x64xbf16> -> tensor<4x16xbf16>
  return %y, %wd : tensor<4x16xbf16>, tensor<16x64xbf16>
}

// -----

// Without transpose_b the weight is K x N, not the K-major layout the scaled
// matmul reads: nothing changes.
// CHECK-LABEL: func.func @no_fold_k_by_n
// CHECK: %[[WD:.*]] = fpx.dequantize
// CHECK: fpx.matmul %{{.*}}, %[[WD]] :
// CHECK-NOT: fpx.scaled_matmul
func.func @no_fold_k_by_n(%a: tensor<4x64xbf16>, %w: tensor<64x16xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<4x16xbf16> {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<64x16xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x16xbf16>
  %y = fpx.matmul %a, %wd : tensor<4x64xbf16>, tensor<64x16xbf16> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// A two-level (NVFP4 global amax) dequantize is not folded.
// CHECK-LABEL: func.func @no_fold_with_amax
// CHECK: %[[WD:.*]] = fpx.dequantize %{{.*}}, %{{.*}} amax(
// CHECK: fpx.matmul %{{.*}}, %[[WD]] {transpose_b}
// CHECK-NOT: fpx.scaled_matmul
func.func @no_fold_with_amax(%a: tensor<4x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x4xf8E4M3FN>, %g: tensor<f32>) -> tensor<4x16xbf16> {
  %wd = fpx.dequantize %w, %s amax(%g : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<16x32xi8>, tensor<16x4xf8E4M3FN> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<4x64xbf16>, tensor<16x64xbf16> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// Swizzled (blocked_128x4) scales are not folded.
// CHECK-LABEL: func.func @no_fold_blocked_scales
// CHECK: fpx.dequantize
// CHECK: fpx.matmul
// CHECK-NOT: fpx.scaled_matmul
func.func @no_fold_blocked_scales(%a: tensor<4x64xbf16>, %w: tensor<16x64xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>) -> tensor<4x16xbf16> {
  %wd = fpx.dequantize %w, %s {scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<16x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<4x64xbf16>, tensor<16x64xbf16> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// Only the rhs (weight) is folded; a dequantized lhs stays.
// CHECK-LABEL: func.func @no_fold_lhs
// CHECK: %[[AD:.*]] = fpx.dequantize
// CHECK: fpx.matmul %[[AD]], %{{.*}} {transpose_b}
// CHECK-NOT: fpx.scaled_matmul
func.func @no_fold_lhs(%q: tensor<4x64xf8E4M3FN>, %s: tensor<1x1xf32>, %w: tensor<16x64xbf16>) -> tensor<4x16xbf16> {
  %ad = fpx.dequantize %q, %s {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x64xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x64xbf16>
  %y = fpx.matmul %ad, %w {transpose_b} : tensor<4x64xbf16>, tensor<16x64xbf16> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// NVFP4 with its tensor scale given as g (global_scale): folded, g carried
// to the scaled matmul's global_scale.
// CHECK-LABEL: func.func @fold_nvfp4_global_scale
// CHECK-SAME: (%[[A:.*]]: tensor<?x64xbf16>, %[[W:.*]]: tensor<16x32xi8>, %[[S:.*]]: tensor<16x4xf8E4M3FN>, %[[G:.*]]: tensor<f32>)
// CHECK-NOT: fpx.dequantize
// CHECK: fpx.scaled_matmul %[[A]] : {{.*}}, %[[W]] : {{.*}} scales(%[[S]] : {{.*}}) global_scale(%[[G]] : tensor<f32>) {rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>
func.func @fold_nvfp4_global_scale(%a: tensor<?x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x4xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x16xbf16> {
  %wd = fpx.dequantize %w, %s global_scale(%g : tensor<f32>) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<16x32xi8>, tensor<16x4xf8E4M3FN> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<?x64xbf16>, tensor<16x64xbf16> -> tensor<?x16xbf16>
  return %y : tensor<?x16xbf16>
}

// -----

// A bias broadcast over the rows and added to the fused matmul becomes its
// bias operand (added in f32 in the kernel's epilogue).
// CHECK-LABEL: func.func @fold_bias
// CHECK-SAME: (%[[A:.*]]: tensor<?x64xbf16>, %[[W:.*]]: tensor<16x64xf8E4M3FN>, %[[S:.*]]: tensor<16x1xf32>, %[[B:.*]]: tensor<16xbf16>)
// CHECK-NOT: fpx.dequantize
// CHECK-NOT: tensor.generate
// CHECK: %[[Y:.*]] = fpx.scaled_matmul %[[A]] : {{.*}}, %[[W]] : {{.*}} scales(%[[S]] : {{.*}}) bias(%[[B]] : tensor<16xbf16>) {rhs_format
// CHECK-NOT: arith.addf
// CHECK: return %[[Y]]
func.func @fold_bias(%a: tensor<?x64xbf16>, %w: tensor<16x64xf8E4M3FN>, %s: tensor<16x1xf32>, %bias: tensor<16xbf16>) -> tensor<?x16xbf16> {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<16x64xf8E4M3FN>, tensor<16x1xf32> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<?x64xbf16>, tensor<16x64xbf16> -> tensor<?x16xbf16>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x64xbf16>
  %bb = tensor.generate %m {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %bias[%j] : tensor<16xbf16>
    tensor.yield %e : bf16
  } : tensor<?x16xbf16>
  %z = arith.addf %y, %bb : tensor<?x16xbf16>
  return %z : tensor<?x16xbf16>
}

// -----

// The bias on the left of the add, an f32 result: folded too.
// CHECK-LABEL: func.func @fold_bias_lhs
// CHECK: %[[Y:.*]] = fpx.scaled_matmul {{.*}} bias(%{{.*}} : tensor<16xf32>)
// CHECK-SAME: -> tensor<4x16xf32>
// CHECK-NOT: arith.addf
// CHECK: return %[[Y]]
func.func @fold_bias_lhs(%a: tensor<4x64xbf16>, %w: tensor<16x64xf8E4M3FN>, %s: tensor<16x1xf32>, %bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<16x64xf8E4M3FN>, tensor<16x1xf32> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<4x64xbf16>, tensor<16x64xbf16> -> tensor<4x16xf32>
  %bb = tensor.generate {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %bias[%j] : tensor<16xf32>
    tensor.yield %e : f32
  } : tensor<4x16xf32>
  %z = arith.addf %bb, %y : tensor<4x16xf32>
  return %z : tensor<4x16xf32>
}

// -----

// The unbiased product has another user: the add stays.
// CHECK-LABEL: func.func @no_bias_fold_shared_product
// CHECK: %[[Y:.*]] = fpx.scaled_matmul {{.*}} scales(%{{.*}} : tensor<16x1xf32>) {rhs_format
// CHECK: %[[Z:.*]] = arith.addf %[[Y]], %{{.*}}
// CHECK: return %[[Z]], %[[Y]]
func.func @no_bias_fold_shared_product(%a: tensor<4x64xbf16>, %w: tensor<16x64xf8E4M3FN>, %s: tensor<16x1xf32>, %bias: tensor<16xbf16>) -> (tensor<4x16xbf16>, tensor<4x16xbf16>) {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<16x64xf8E4M3FN>, tensor<16x1xf32> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<4x64xbf16>, tensor<16x64xbf16> -> tensor<4x16xbf16>
  %bb = tensor.generate {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %bias[%j] : tensor<16xbf16>
    tensor.yield %e : bf16
  } : tensor<4x16xbf16>
  %z = arith.addf %y, %bb : tensor<4x16xbf16>
  return %z, %y : tensor<4x16xbf16>, tensor<4x16xbf16>
}

// -----

// A broadcast along the other dimension (a value per row, extract [%i]) is
// not a bias of the output channels: the add stays.
// CHECK-LABEL: func.func @no_bias_fold_row_broadcast
// CHECK: %[[Y:.*]] = fpx.scaled_matmul {{.*}} scales(%{{.*}} : tensor<16x1xf32>) {rhs_format
// CHECK: arith.addf %[[Y]], %{{.*}}
func.func @no_bias_fold_row_broadcast(%a: tensor<16x64xbf16>, %w: tensor<16x64xf8E4M3FN>, %s: tensor<16x1xf32>, %bias: tensor<16xbf16>) -> tensor<16x16xbf16> {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<16x64xf8E4M3FN>, tensor<16x1xf32> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<16x64xbf16>, tensor<16x64xbf16> -> tensor<16x16xbf16>
  %bb = tensor.generate {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %bias[%i] : tensor<16xbf16>
    tensor.yield %e : bf16
  } : tensor<16x16xbf16>
  %z = arith.addf %y, %bb : tensor<16x16xbf16>
  return %z : tensor<16x16xbf16>
}

// -----

// An add to an unfused matmul (the K x N weight the kernels cannot read)
// stays an add.
// CHECK-LABEL: func.func @no_bias_fold_plain_matmul
// CHECK: %[[Y:.*]] = fpx.matmul
// CHECK: arith.addf %[[Y]], %{{.*}}
// CHECK-NOT: fpx.scaled_matmul
func.func @no_bias_fold_plain_matmul(%a: tensor<4x64xbf16>, %w: tensor<64x16xf8E4M3FN>, %s: tensor<1x1xf32>, %bias: tensor<16xbf16>) -> tensor<4x16xbf16> {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<64x16xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x16xbf16>
  %y = fpx.matmul %a, %wd : tensor<4x64xbf16>, tensor<64x16xbf16> -> tensor<4x16xbf16>
  %bb = tensor.generate {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %bias[%j] : tensor<16xbf16>
    tensor.yield %e : bf16
  } : tensor<4x16xbf16>
  %z = arith.addf %y, %bb : tensor<4x16xbf16>
  return %z : tensor<4x16xbf16>
}

// -----

// Output cast: a matmul accumulated to f32, then a bias, then truncf to
// bf16, folds into one scaled matmul with a bf16 result (the kernels round
// once, after the bias, to nearest even as truncf does).
// CHECK-LABEL: func.func @fold_bias_and_output_cast
// CHECK: %[[Y:.*]] = fpx.scaled_matmul {{.*}} bias(%{{.*}} : tensor<16xf32>) {{.*}} -> tensor<4x16xbf16>
// CHECK-NOT: arith.truncf
// CHECK: return %[[Y]]
func.func @fold_bias_and_output_cast(%a: tensor<4x64xbf16>, %w: tensor<16x64xf8E4M3FN>, %s: tensor<16x1xf32>, %bias: tensor<16xf32>) -> tensor<4x16xbf16> {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<16x64xf8E4M3FN>, tensor<16x1xf32> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<4x64xbf16>, tensor<16x64xbf16> -> tensor<4x16xf32>
  %bb = tensor.generate {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %bias[%j] : tensor<16xf32>
    tensor.yield %e : f32
  } : tensor<4x16xf32>
  %z = arith.addf %y, %bb : tensor<4x16xf32>
  %o = arith.truncf %z : tensor<4x16xf32> to tensor<4x16xbf16>
  return %o : tensor<4x16xbf16>
}

// -----

// A truncf with another rounding mode, or of a product with another user,
// stays.
// CHECK-LABEL: func.func @no_cast_fold
// CHECK: %[[Y:.*]] = fpx.scaled_matmul {{.*}} -> tensor<4x16xf32>
// CHECK: arith.truncf %[[Y]] toward_zero
// CHECK: arith.truncf %[[Y]] :
func.func @no_cast_fold(%a: tensor<4x64xbf16>, %w: tensor<16x64xf8E4M3FN>, %s: tensor<16x1xf32>) -> (tensor<4x16xbf16>, tensor<4x16xf16>) {
  %wd = fpx.dequantize %w, %s {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<16x64xf8E4M3FN>, tensor<16x1xf32> -> tensor<16x64xbf16>
  %y = fpx.matmul %a, %wd {transpose_b} : tensor<4x64xbf16>, tensor<16x64xbf16> -> tensor<4x16xf32>
  %o = arith.truncf %y toward_zero : tensor<4x16xf32> to tensor<4x16xbf16>
  %h = arith.truncf %y : tensor<4x16xf32> to tensor<4x16xf16>
  return %o, %h : tensor<4x16xbf16>, tensor<4x16xf16>
}
