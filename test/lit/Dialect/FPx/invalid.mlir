// RUN: fpx-opt %s -split-input-file -verify-diagnostics

// One case per verifier and parser message of FPxAttrs.cpp and FPxOps.cpp.

//===----------------------------------------------------------------------===//
// #fpx.format
//===----------------------------------------------------------------------===//

// expected-error @+1 {{unknown format 'e9m9' (see `fpxc formats`)}}
func.func @unknown_format() attributes {f = #fpx.format<e9m9>} {
  return
}

// -----

// expected-error @+1 {{unknown format 'float8'}}
func.func @unknown_format_name() attributes {f = #fpx.format<float8>} {
  return
}

// -----

// 1 + E + M > 8 is not a format.
// expected-error @+1 {{unknown format 'e5m3'}}
func.func @format_too_wide() attributes {f = #fpx.format<e5m3>} {
  return
}

// -----

// expected-error @+1 {{format bias 300 is out of range}}
func.func @format_bias_high() attributes {f = #fpx.format<e4m2, bias = 300>} {
  return
}

// -----

// expected-error @+1 {{format bias -128 is out of range}}
func.func @format_bias_low() attributes {f = #fpx.format<e4m3fn, bias = -128>} {
  return
}

//===----------------------------------------------------------------------===//
// #fpx.scaling
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{unknown scale rule 'nearest' (expected floor, ceil, even, rceil or amax)}}
func.func @unknown_rule() attributes {s = #fpx.scaling<block = [1, 32], rule = nearest, scale = f8E8M0FNU>} {
  return
}

// -----

// expected-error @+1 {{scaling block must have 1 to 3 entries}}
func.func @empty_block() attributes {s = #fpx.scaling<block = [], rule = amax, scale = f32>} {
  return
}

// -----

// expected-error @+1 {{scaling block must have 1 to 3 entries}}
func.func @rank4_block() attributes {s = #fpx.scaling<block = [1, 1, 1, 32], rule = amax, scale = f32>} {
  return
}

// -----

// expected-error @+1 {{scaling block entries must be positive or '*'}}
func.func @zero_block() attributes {s = #fpx.scaling<block = [1, 0], rule = amax, scale = f32>} {
  return
}

// -----

// expected-error @+1 {{scaling block entries must be positive or '*'}}
func.func @negative_block() attributes {s = #fpx.scaling<block = [-2, 32], rule = amax, scale = f32>} {
  return
}

// -----

// expected-error @+1 {{scale rule 'rceil' makes power-of-two scales: scale type must be f8E8M0FNU, got 'f32'}}
func.func @pow2_rule_f32_scale() attributes {s = #fpx.scaling<block = [1, 32], rule = rceil, scale = f32>} {
  return
}

// -----

// expected-error @+1 {{scale rule 'floor' makes power-of-two scales: scale type must be f8E8M0FNU, got 'f8E4M3FN'}}
func.func @pow2_rule_e4m3_scale() attributes {s = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E4M3FN>} {
  return
}

// -----

// expected-error @+1 {{scale rule 'amax' needs an f32, bf16, f16 or f8E4M3FN scale type, got 'f8E8M0FNU'}}
func.func @amax_rule_e8m0_scale() attributes {s = #fpx.scaling<block = [1, 32], rule = amax, scale = f8E8M0FNU>} {
  return
}

// -----

// expected-error @+1 {{scale rule 'amax' needs an f32, bf16, f16 or f8E4M3FN scale type, got 'i8'}}
func.func @amax_rule_i8_scale() attributes {s = #fpx.scaling<block = [1, 32], rule = amax, scale = i8>} {
  return
}

//===----------------------------------------------------------------------===//
// fpx.quantize: formats
//===----------------------------------------------------------------------===//

// -----

func.func @result_type_disagrees_with_format(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op result element type 'f8E4M3FN' disagrees with format #fpx.format<e5m2>}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e5m2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @packed_result_not_bytes(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op packed result must hold bytes (i8), not 'f4E2M1FN'}}
  %q, %s = fpx.quantize %x {packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<4x32xbf16> -> tensor<4x16xf4E2M1FN>, tensor<4x2xf8E4M3FN>
  return
}

// -----

func.func @result_not_fpx_or_i8(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op result element type must be an FPx type or i8 codes, got 'i16'}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e4m3fn>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xi16>, tensor<1x1xf32>
  return
}

// -----

func.func @i8_codes_without_format(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op needs a 'format' attribute: result holds i8 codes}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xi8>, tensor<1x1xf32>
  return
}

// -----

func.func @quantize_to_scale_format(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op cannot quantize elements to the scale format 'e8m0fnu'}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E8M0FNU>, tensor<1x1xf32>
  return
}

// -----

func.func @quantize_to_wide_format(%x: tensor<4x32xf32>) {
  // expected-error @+1 {{format 'bf16' is wider than 8 bits}}
  %q, %s = fpx.quantize %x {format = #fpx.format<bf16>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xf32> -> tensor<4x32xi8>, tensor<1x1xf32>
  return
}

// -----

func.func @fp4x2_packing_8bit_format(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op packing 'fp4x2' cannot hold the 8-bit format 'e4m3fn'}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e4m3fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x16xi8>, tensor<1x1xf32>
  return
}

// -----

func.func @fp6_packing_4bit_format(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op packing 'fp6_planes' cannot hold the 4-bit format 'e2m1fn'}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x24xi8>, tensor<1x1xf32>
  return
}

// -----

// A scale layout is not an element packing.
func.func @blocked_as_packing(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op packing 'blocked_128x4' cannot hold the 6-bit format 'e3m2fn'}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e3m2fn>, packing = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xi8>, tensor<1x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// fpx.quantize: shapes
//===----------------------------------------------------------------------===//

// -----

func.func @quantized_rank_differs(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op quantized data must have the same rank as the high-precision tensor}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<128xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @fp4x2_odd_dim(%x: tensor<4x33xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op fp4x2 packing needs an even innermost dimension (got 33)}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x33xbf16> -> tensor<4x16xi8>, tensor<1x1xf32>
  return
}

// -----

func.func @fp6_planes_dim_not_multiple_of_4(%x: tensor<4x30xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op fp6 packing needs an innermost dimension that is a multiple of 4 (got 30)}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x30xbf16> -> tensor<4x22xi8>, tensor<1x1xf32>
  return
}

// -----

func.func @fp6_packed_wrong_dim(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op quantized dimension 1 is 32, expected 24}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_packed>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xi8>, tensor<1x1xf32>
  return
}

// -----

func.func @quantized_dim_differs(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op quantized dimension 0 is 8, expected 4}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<8x32xf8E4M3FN>, tensor<1x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// fpx.quantize: scales
//===----------------------------------------------------------------------===//

// -----

func.func @block_rank_vs_tensor_rank(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scaling block has 3 entries but the tensor has rank 2 (a rank-3 tensor takes a rank-2 block per matrix)}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @rank1_block_on_rank3(%x: tensor<2x4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scaling block has 1 entries but the tensor has rank 3}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [32], rule = floor, scale = f8E8M0FNU>}
    : tensor<2x4x32xbf16> -> tensor<2x4x32xf8E4M3FN>, tensor<2x4x1xf8E8M0FNU>
  return
}

// -----

func.func @scale_type_vs_scaling(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scales element type 'bf16' differs from the scaling's 'f32'}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<1x1xbf16>
  return
}

// -----

func.func @scales_rank(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scales must have rank 2}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @block_does_not_divide(%x: tensor<4x48xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op block size 32 does not divide dimension 1 of size 48}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x48xbf16> -> tensor<4x48xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @blocked_scales_rank1(%x: tensor<64xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op blocked_128x4 scales need a rank-2 or rank-3 tensor}}
  %q, %s = fpx.quantize %x {scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [32], rule = floor, scale = f8E8M0FNU>}
    : tensor<64xbf16> -> tensor<64xf8E4M3FN>, tensor<4xf8E8M0FNU>
  return
}

// -----

// A rank-3 tensor's blocked scales: each matrix's padded to 128x4 tiles.
func.func @blocked_scales_rank3_unpadded(%x: tensor<2x4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scales dimension 1 is 4, expected 128}}
  %q, %s = fpx.quantize %x {scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<2x4x32xbf16> -> tensor<2x4x32xf8E4M3FN>, tensor<2x4x4xf8E8M0FNU>
  return
}

// -----

func.func @scale_layout_is_packing(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scale_layout must be row_major or blocked_128x4}}
  %q, %s = fpx.quantize %x {scale_layout = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @scales_dim_mismatch(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scales dimension 1 is 4, expected 2}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<4x4xf8E8M0FNU>
  return
}

// -----

// Per-tensor scales are 1x1.
func.func @per_tensor_scales_shape(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scales dimension 0 is 4, expected 1}}
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<4x1xf32>
  return
}

// -----

// blocked_128x4 pads 4 rows of scales to 128.
func.func @blocked_rows_not_padded(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scales dimension 0 is 4, expected 128}}
  %q, %s = fpx.quantize %x {scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<4x4xf8E8M0FNU>
  return
}

// -----

// blocked_128x4 pads 2 columns of scales to 4.
func.func @blocked_cols_not_padded(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op scales dimension 1 is 2, expected 4}}
  %q, %s = fpx.quantize %x {scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
  return
}

//===----------------------------------------------------------------------===//
// fpx.quantize: rounding, amax, hadamard
//===----------------------------------------------------------------------===//

// -----

func.func @nonfinite_unknown(%x: tensor<4x32xbf16>) {
  // expected-error @+2 {{expected ::fpx::NonFiniteKind to be one of: nan, saturate}}
  // expected-error @+1 {{failed to parse FPx_NonFiniteAttr parameter 'value' which is to be a `::fpx::NonFiniteKind`}}
  %q, %s = fpx.quantize %x {nonfinite = #fpx.nonfinite<clamp>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @nonfinite_needs_e8m0_scales(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op 'nonfinite' is a choice of E8M0 (f8E8M0FNU) scales; these 'f32' scales have a fixed behaviour}}
  %q, %s = fpx.quantize %x {nonfinite = #fpx.nonfinite<saturate>,
      scaling = #fpx.scaling<block = [1, 32], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf32>
  return
}

// -----

func.func @rs_without_seed(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op stochastic rounding (rs) needs a 'seed' operand}}
  %q, %s = fpx.quantize %x {rounding = #fpx.rounding<rs>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @seed_without_rs(%x: tensor<4x32xbf16>, %seed: i64) {
  // expected-error @+1 {{'fpx.quantize' op a 'seed' operand is only used by stochastic rounding (rs)}}
  %q, %s = fpx.quantize %x seed(%seed) {rounding = #fpx.rounding<rz>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @amax_with_pow2_rule(%x: tensor<4x32xbf16>, %a: tensor<f32>) {
  // expected-error @+1 {{'fpx.quantize' op an 'amax' operand needs the 'amax' scale rule}}
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

// A given amax would be unused by fp32 scales of their own blocks (here one
// a row): only NVFP4's global scale and per-tensor scaling read it.
func.func @amax_unused_by_row_scales(%x: tensor<4x32xbf16>, %a: tensor<f32>) {
  // expected-error @+1 {{'fpx.quantize' op an 'amax' operand is used by e4m3 block scales (NVFP4's global scale) or per-tensor scaling; these 'f32' block scales come from their own blocks}}
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf32>
  return
}

// -----

func.func @per_matrix_amax_rank2(%x: tensor<4x32xbf16>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'fpx.quantize' op a per-matrix amax (rank 1) needs rank-3 data, got rank 2}}
  %q, %s = fpx.quantize %x amax(%a : tensor<4xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<4x32xbf16> -> tensor<4x16xi8>, tensor<4x2xf8E4M3FN>
  return
}

// -----

func.func @per_matrix_amax_f32_scales(%x: tensor<2x4x32xbf16>, %a: tensor<2xf32>) {
  // expected-error @+1 {{'fpx.quantize' op a per-matrix amax (rank 1) needs e4m3 block scales (NVFP4's global scale per matrix)}}
  %q, %s = fpx.quantize %x amax(%a : tensor<2xf32>) {
      scaling = #fpx.scaling<block = [*, *, *], rule = amax, scale = f32>}
    : tensor<2x4x32xbf16> -> tensor<2x4x32xf8E4M3FN>, tensor<1x1x1xf32>
  return
}

// -----

func.func @per_matrix_amax_count(%x: tensor<2x4x32xbf16>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'fpx.quantize' op has 3 amax values for 2 matrices}}
  %q, %s = fpx.quantize %x amax(%a : tensor<3xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<2x4x32xbf16> -> tensor<2x4x16xi8>, tensor<2x4x2xf8E4M3FN>
  return
}

// -----

func.func @dequantize_per_matrix_g_count(%q: tensor<2x4x16xi8>, %s: tensor<2x4x2xf8E4M3FN>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op has 3 global_scale values for 2 matrices}}
  %y = fpx.dequantize %q, %s global_scale(%g : tensor<3xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<2x4x16xi8>, tensor<2x4x2xf8E4M3FN> -> tensor<2x4x32xbf16>
  return
}

// -----

func.func @dequantize_per_matrix_g_rank2(%q: tensor<4x16xi8>, %s: tensor<4x2xf8E4M3FN>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op a per-matrix global_scale (rank 1) needs rank-3 data, got rank 2}}
  %y = fpx.dequantize %q, %s global_scale(%g : tensor<4xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<4x16xi8>, tensor<4x2xf8E4M3FN> -> tensor<4x32xbf16>
  return
}

// -----

func.func @amax_per_matrix_rank2(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.amax' op an amax per matrix (rank-1 result) needs a rank-3 input, got rank 2}}
  %a = fpx.amax %x : tensor<4x32xbf16> -> tensor<4xf32>
  return
}

// -----

func.func @amax_per_matrix_count(%x: tensor<2x4x32xbf16>) {
  // expected-error @+1 {{'fpx.amax' op has 3 results for 2 matrices}}
  %a = fpx.amax %x : tensor<2x4x32xbf16> -> tensor<3xf32>
  return
}

// -----

func.func @per_matrix_amax_rank2_tensor(%x: tensor<2x4x32xbf16>, %a: tensor<2x1xf32>) {
  // expected-error @+1 {{'fpx.quantize' op operand #1 must be 0D/1D tensor of 32-bit float values}}
  %q, %s = fpx.quantize %x amax(%a : tensor<2x1xf32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<2x4x32xbf16> -> tensor<2x4x16xi8>, tensor<2x4x2xf8E4M3FN>
  return
}

// -----

func.func @hadamard_size_not_pow2(%x: tensor<4x96xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op hadamard size must be a power of two from 2 to 128, got 24}}
  %q, %s = fpx.quantize %x {hadamard = 24,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x96xbf16> -> tensor<4x96xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @hadamard_size_too_big(%x: tensor<4x512xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op hadamard size must be a power of two from 2 to 128, got 512}}
  %q, %s = fpx.quantize %x {hadamard = 512,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x512xbf16> -> tensor<4x512xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @hadamard_size_does_not_divide(%x: tensor<4x48xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op hadamard size 32 does not divide the innermost dimension 48}}
  %q, %s = fpx.quantize %x {hadamard = 32,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x48xbf16> -> tensor<4x48xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @hadamard_seed_without_hadamard(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op 'hadamard_seed' without 'hadamard'}}
  %q, %s = fpx.quantize %x {hadamard_seed = 5,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<1x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// fpx.dequantize
//===----------------------------------------------------------------------===//

// -----

func.func @dequantize_input_disagrees(%q: tensor<4x32xf8E5M2>, %s: tensor<1x1xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op input element type 'f8E5M2' disagrees with format #fpx.format<e4m3fn>}}
  %r = fpx.dequantize %q, %s {format = #fpx.format<e4m3fn>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xf8E5M2>, tensor<1x1xf32> -> tensor<4x32xbf16>
  return
}

// -----

func.func @dequantize_amax_and_g(%q: tensor<4x8xi8>, %s: tensor<4x1xf8E4M3FN>, %a: tensor<f32>, %g: tensor<f32>) {
  // expected-error @+1 {{'fpx.dequantize' op takes the NVFP4 global scale as an 'amax' or as a 'global_scale' operand, not both}}
  %r = fpx.dequantize %q, %s amax(%a : tensor<f32>) global_scale(%g : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<4x8xi8>, tensor<4x1xf8E4M3FN> -> tensor<4x16xbf16>
  return
}

// -----

func.func @dequantize_i8_without_format(%q: tensor<4x32xi8>, %s: tensor<1x1xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op needs a 'format' attribute: input holds i8 codes}}
  %r = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xi8>, tensor<1x1xf32> -> tensor<4x32xbf16>
  return
}

// -----

func.func @dequantize_packed_not_bytes(%q: tensor<4x32xf4E2M1FN>, %s: tensor<1x1xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op packed input must hold bytes (i8), not 'f4E2M1FN'}}
  %r = fpx.dequantize %q, %s {packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xf4E2M1FN>, tensor<1x1xf32> -> tensor<4x64xbf16>
  return
}

// -----

func.func @dequantize_packing_wrong_width(%q: tensor<4x24xi8>, %s: tensor<1x1xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op packing 'fp6_planes' cannot hold the 8-bit format 'e5m2'}}
  %r = fpx.dequantize %q, %s {format = #fpx.format<e5m2>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x24xi8>, tensor<1x1xf32> -> tensor<4x32xbf16>
  return
}

// -----

func.func @dequantize_fp6_dim(%q: tensor<4x7xi8>, %s: tensor<1x1xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op fp6 packing needs an innermost dimension that is a multiple of 4 (got 10)}}
  %r = fpx.dequantize %q, %s {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x7xi8>, tensor<1x1xf32> -> tensor<4x10xbf16>
  return
}

// -----

func.func @dequantize_packed_dim(%q: tensor<4x32xi8>, %s: tensor<1x1xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op quantized dimension 1 is 32, expected 16}}
  %r = fpx.dequantize %q, %s {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xi8>, tensor<1x1xf32> -> tensor<4x32xbf16>
  return
}

// -----

func.func @dequantize_scales_type(%q: tensor<4x32xf8E4M3FN>, %s: tensor<4x1xf32>) {
  // expected-error @+1 {{'fpx.dequantize' op scales element type 'f32' differs from the scaling's 'f8E8M0FNU'}}
  %r = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x32xf8E4M3FN>, tensor<4x1xf32> -> tensor<4x32xbf16>
  return
}

// -----

func.func @dequantize_scales_shape(%q: tensor<4x64xf8E4M3FN>, %s: tensor<4x1xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.dequantize' op scales dimension 1 is 1, expected 2}}
  %r = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x64xf8E4M3FN>, tensor<4x1xf8E8M0FNU> -> tensor<4x64xbf16>
  return
}

// -----

func.func @dequantize_amax_rule(%q: tensor<4x32xf8E4M3FN>, %s: tensor<4x1xf8E8M0FNU>, %a: tensor<f32>) {
  // expected-error @+1 {{'fpx.dequantize' op an 'amax' operand needs the 'amax' scale rule}}
  %r = fpx.dequantize %q, %s amax(%a : tensor<f32>) {
      scaling = #fpx.scaling<block = [1, 32], rule = even, scale = f8E8M0FNU>}
    : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU> -> tensor<4x32xbf16>
  return
}

//===----------------------------------------------------------------------===//
// fpx.pack / fpx.unpack
//===----------------------------------------------------------------------===//

// -----

func.func @pack_wrong_width(%q: tensor<4x32xf8E4M3FN>) {
  // expected-error @+1 {{'fpx.pack' op packing 'fp4x2' cannot hold the 8-bit format 'e4m3fn'}}
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<4x32xf8E4M3FN> -> tensor<4x16xi8>
  return
}

// -----

func.func @pack_fp6_byte_wrong_width(%q: tensor<4x32xf4E2M1FN>) {
  // expected-error @+1 {{'fpx.pack' op packing 'fp6_byte' cannot hold the 4-bit format 'e2m1fn'}}
  %p = fpx.pack %q {layout = #fpx.layout<fp6_byte>} : tensor<4x32xf4E2M1FN> -> tensor<4x32xi8>
  return
}

// -----

func.func @pack_odd(%q: tensor<4x31xf4E2M1FN>) {
  // expected-error @+1 {{'fpx.pack' op fp4x2 packing needs an even innermost dimension (got 31)}}
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<4x31xf4E2M1FN> -> tensor<4x15xi8>
  return
}

// -----

func.func @pack_fp6_interleaved_not_multiple_of_4(%q: tensor<4x10xf6E2M3FN>) {
  // expected-error @+1 {{'fpx.pack' op fp6 packing needs an innermost dimension that is a multiple of 4 (got 10)}}
  %p = fpx.pack %q {layout = #fpx.layout<fp6_interleaved>} : tensor<4x10xf6E2M3FN> -> tensor<4x7xi8>
  return
}

// -----

func.func @fp6_interleaved_holds_no_fp4(%x: tensor<4x32xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op packing 'fp6_interleaved' cannot hold the 4-bit format 'e2m1fn'}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x32xbf16> -> tensor<4x24xi8>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @fp6_4p2_is_no_longer_a_layout(%x: tensor<4x32xbf16>) {
  // expected-error @+2 {{expected ::fpx::LayoutKind to be one of: row_major, fp4x2, fp6_planes, fp6_packed, fp6_byte, blocked_128x4, mma_tiles, fp6_interleaved}}
  // expected-error @+1 {{failed to parse FPx_LayoutAttr parameter 'value'}}
  %q, %s = fpx.quantize %x {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_4p2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<4x32xbf16> -> tensor<4x24xi8>, tensor<4x1xf8E8M0FNU>
  return
}

// -----

func.func @pack_fp6_planes_not_multiple_of_4(%q: tensor<4x6xf6E3M2FN>) {
  // expected-error @+1 {{'fpx.pack' op fp6 packing needs an innermost dimension that is a multiple of 4 (got 6)}}
  %p = fpx.pack %q {layout = #fpx.layout<fp6_planes>} : tensor<4x6xf6E3M2FN> -> tensor<4x4xi8>
  return
}

// -----

func.func @pack_wrong_result_dim(%q: tensor<4x32xf4E2M1FN>) {
  // expected-error @+1 {{'fpx.pack' op quantized dimension 1 is 32, expected 16}}
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<4x32xf4E2M1FN> -> tensor<4x32xi8>
  return
}

// -----

func.func @pack_i8_without_format(%q: tensor<4x32xi8>) {
  // expected-error @+1 {{'fpx.pack' op needs a 'format' attribute: unpacked holds i8 codes}}
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<4x32xi8> -> tensor<4x16xi8>
  return
}

// -----

func.func @pack_type_disagrees(%q: tensor<4x32xf4E2M1FN>) {
  // expected-error @+1 {{'fpx.pack' op unpacked element type 'f4E2M1FN' disagrees with format #fpx.format<e3m2fn>}}
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>, format = #fpx.format<e3m2fn>} : tensor<4x32xf4E2M1FN> -> tensor<4x16xi8>
  return
}

// -----

func.func @pack_input_not_codes(%q: tensor<4x32xf32>) {
  // expected-error @+1 {{'fpx.pack' op unpacked element type must be an FPx type or i8 codes, got 'f32'}}
  %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<4x32xf32> -> tensor<4x16xi8>
  return
}

// -----

func.func @unpack_wrong_width(%p: tensor<4x24xi8>) {
  // expected-error @+1 {{'fpx.unpack' op packing 'fp6_planes' cannot hold the 4-bit format 'e2m1fn'}}
  %q = fpx.unpack %p {layout = #fpx.layout<fp6_planes>} : tensor<4x24xi8> -> tensor<4x32xf4E2M1FN>
  return
}

// -----

func.func @unpack_fp6_not_multiple_of_4(%p: tensor<4x4xi8>) {
  // expected-error @+1 {{'fpx.unpack' op fp6 packing needs an innermost dimension that is a multiple of 4 (got 6)}}
  %q = fpx.unpack %p {layout = #fpx.layout<fp6_packed>} : tensor<4x4xi8> -> tensor<4x6xf6E2M3FN>
  return
}

// -----

func.func @unpack_rank(%p: tensor<4x24xi8>) {
  // expected-error @+1 {{'fpx.unpack' op quantized data must have the same rank as the high-precision tensor}}
  %q = fpx.unpack %p {layout = #fpx.layout<fp6_planes>} : tensor<4x24xi8> -> tensor<128xf6E3M2FN>
  return
}

//===----------------------------------------------------------------------===//
// fpx.swizzle_scales
//===----------------------------------------------------------------------===//

// -----

func.func @swizzle_layout(%s: tensor<128x4xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.swizzle_scales' op layout must be blocked_128x4}}
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<row_major>} : tensor<128x4xf8E8M0FNU> -> tensor<128x4xf8E8M0FNU>
  return
}

// -----

func.func @swizzle_rank(%s: tensor<2x128x4xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.swizzle_scales' op scales must be rank 2}}
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>} : tensor<2x128x4xf8E8M0FNU> -> tensor<2x128x4xf8E8M0FNU>
  return
}

// -----

func.func @swizzle_element_type(%s: tensor<128x4xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.swizzle_scales' op swizzling keeps the element type}}
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>} : tensor<128x4xf8E8M0FNU> -> tensor<128x4xi8>
  return
}

// -----

func.func @swizzle_rows_not_padded(%s: tensor<200x4xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.swizzle_scales' op swizzled scales need 256 rows (padded to a multiple of 128), got 200}}
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>} : tensor<200x4xf8E8M0FNU> -> tensor<200x4xf8E8M0FNU>
  return
}

// -----

func.func @swizzle_cols_not_padded(%s: tensor<128x6xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.swizzle_scales' op swizzled scales need 8 columns (padded to a multiple of 4), got 6}}
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>} : tensor<128x6xf8E8M0FNU> -> tensor<128x6xf8E8M0FNU>
  return
}

// -----

// With offsets each of the 2 groups may add up to 128 rows of padding.
func.func @swizzle_grouped_rows(%s: tensor<100x4xf8E8M0FNU>, %off: tensor<2xi32>) {
  // expected-error @+1 {{'fpx.swizzle_scales' op swizzled scales need 384 rows (padded to a multiple of 128), got 128}}
  %b = fpx.swizzle_scales %s offsets(%off : tensor<2xi32>) {layout = #fpx.layout<blocked_128x4>} : tensor<100x4xf8E8M0FNU> -> tensor<128x4xf8E8M0FNU>
  return
}

//===----------------------------------------------------------------------===//
// fpx.hadamard
//===----------------------------------------------------------------------===//

// -----

func.func @hadamard_size_1(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{'fpx.hadamard' op hadamard size must be a power of two from 2 to 128, got 1}}
  %h = fpx.hadamard %x {size = 1} : tensor<4x64xbf16>
  return
}

// -----

func.func @hadamard_size_not_power_of_two(%x: tensor<4x96xbf16>) {
  // expected-error @+1 {{'fpx.hadamard' op hadamard size must be a power of two from 2 to 128, got 12}}
  %h = fpx.hadamard %x {size = 12} : tensor<4x96xbf16>
  return
}

// -----

func.func @hadamard_does_not_divide(%x: tensor<4x96xbf16>) {
  // expected-error @+1 {{'fpx.hadamard' op hadamard size 64 does not divide the innermost dimension 96}}
  %h = fpx.hadamard %x {size = 64} : tensor<4x96xbf16>
  return
}

//===----------------------------------------------------------------------===//
// fpx.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank(%a: tensor<2x4x8xbf16>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{'fpx.matmul' op operands and result must be rank 2}}
  %c = fpx.matmul %a, %b : tensor<2x4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  return
}

// -----

func.func @matmul_k(%a: tensor<4x8xbf16>, %b: tensor<16x16xbf16>) {
  // expected-error @+1 {{'fpx.matmul' op contraction dimension mismatch: 8 vs 16}}
  %c = fpx.matmul %a, %b : tensor<4x8xbf16>, tensor<16x16xbf16> -> tensor<4x16xbf16>
  return
}

// -----

// With transpose_b, B is N x K.
func.func @matmul_k_transposed(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{'fpx.matmul' op contraction dimension mismatch: 8 vs 16}}
  %c = fpx.matmul %a, %b {transpose_b} : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x8xbf16>
  return
}

// -----

func.func @matmul_m(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{'fpx.matmul' op M mismatch: 4 vs 5}}
  %c = fpx.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<5x16xbf16>
  return
}

// -----

func.func @matmul_n(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) {
  // expected-error @+1 {{'fpx.matmul' op N mismatch: 16 vs 32}}
  %c = fpx.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x32xbf16>
  return
}

//===----------------------------------------------------------------------===//
// fpx.scaled_matmul
//===----------------------------------------------------------------------===//

// -----

// The scaled_matmul cases without scales use the generic form: the custom
// form cannot express them (see ops-scaled-matmul-rhs-scales.mlir).
func.func @scaled_matmul_rank(%a: tensor<4x64xf8E4M3FN>, %b: tensor<2x16x64xf8E4M3FN>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op operands and result must be rank 2}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>}>
      : (tensor<4x64xf8E4M3FN>, tensor<2x16x64xf8E4M3FN>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_lhs_scales_without_scaling(%a: tensor<4x64xf8E4M3FN>, %sa: tensor<4x2xf8E8M0FNU>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op lhs scales and lhs_scaling go together}}
  %c = fpx.scaled_matmul %a : tensor<4x64xf8E4M3FN> scales(%sa : tensor<4x2xf8E8M0FNU>), %b : tensor<16x64xbf16> -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_lhs_scaling_without_scales(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op lhs scales and lhs_scaling go together}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>, lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}>
      : (tensor<4x64xbf16>, tensor<16x64xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

// Blocked 128x4 scales: rows padded to 128 and scale columns to 4; a
// row-major shape is refused.
func.func @scaled_matmul_blocked_shape(%a: tensor<4x64xf8E4M3FN>, %sa: tensor<4x2xf8E8M0FNU>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<128x4xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op scales dimension 0 is 4, expected 128}}
  %c = fpx.scaled_matmul %a : tensor<4x64xf8E4M3FN> scales(%sa : tensor<4x2xf8E8M0FNU>), %b : tensor<16x64xf8E4M3FN> scales(%sb : tensor<128x4xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>, rhs_scale_layout = #fpx.layout<blocked_128x4>} -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_blocked_f32(%a: tensor<4x256xf8E4M3FN>, %sa: tensor<128x4xf32>, %b: tensor<16x256xf8E4M3FN>, %sb: tensor<16x2xf32>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op lhs_scale_layout blocked_128x4 holds byte scales of [1, n] blocks (e8m0 or e4m3), not #fpx.scaling<block = [1, 128], rule = amax, scale = f32>}}
  %c = fpx.scaled_matmul %a : tensor<4x256xf8E4M3FN> scales(%sa : tensor<128x4xf32>), %b : tensor<16x256xf8E4M3FN> scales(%sb : tensor<16x2xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>} -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_scale_layout_without_scales(%a: tensor<4x64xbf16>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op lhs_scale_layout needs lhs scales}}
  %c = fpx.scaled_matmul %a : tensor<4x64xbf16>, %b : tensor<16x64xf8E4M3FN> scales(%sb : tensor<16x2xf8E8M0FNU>) {
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      lhs_scale_layout = #fpx.layout<blocked_128x4>} -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_scale_layout_kind(%a: tensor<4x64xf8E4M3FN>, %sa: tensor<4x2xf8E8M0FNU>, %b: tensor<16x64xf8E4M3FN>, %sb: tensor<16x2xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op rhs_scale_layout must be row_major or blocked_128x4}}
  %c = fpx.scaled_matmul %a : tensor<4x64xf8E4M3FN> scales(%sa : tensor<4x2xf8E8M0FNU>), %b : tensor<16x64xf8E4M3FN> scales(%sb : tensor<16x2xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scale_layout = #fpx.layout<fp4x2>} -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_rhs_scaling_without_scales(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op rhs scales and rhs_scaling go together}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>, rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}>
      : (tensor<4x64xbf16>, tensor<16x64xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_k(%a: tensor<4x64xbf16>, %b: tensor<16x32xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op contraction dimension mismatch: 64 vs 32}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>}>
      : (tensor<4x64xbf16>, tensor<16x32xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

// The packed rhs holds 2 fp4 codes per byte: 32 bytes are K = 64.
func.func @scaled_matmul_k_packed(%a: tensor<4x32xbf16>, %b: tensor<16x32xi8>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op contraction dimension mismatch: 32 vs 64}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>, rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>}>
      : (tensor<4x32xbf16>, tensor<16x32xi8>) -> tensor<4x16xbf16>
  return
}

// -----

// The packed lhs holds 2 fp4 codes per byte: 32 bytes are K = 64.
func.func @scaled_matmul_k_packed_lhs(%a: tensor<4x32xi8>, %b: tensor<16x32xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op contraction dimension mismatch: 64 vs 32}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>, lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>}>
      : (tensor<4x32xi8>, tensor<16x32xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_lhs_packing_kind(%a: tensor<4x48xi8>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op lhs_packing must be fp4x2 (e2m1 codes two a byte)}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>, lhs_format = #fpx.format<e3m2fn>, lhs_packing = #fpx.layout<fp6_packed>}>
      : (tensor<4x48xi8>, tensor<16x64xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_lhs_packing_format(%a: tensor<4x32xi8>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op a packed lhs needs lhs_format (or an FPx element type)}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>, lhs_packing = #fpx.layout<fp4x2>}>
      : (tensor<4x32xi8>, tensor<16x64xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_lhs_global_scale(%a: tensor<4x64xf8E4M3FN>, %sa: tensor<4x2xf8E8M0FNU>, %g: tensor<f32>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op an lhs global_scale (NVFP4's tensor scale) needs e4m3 block scales on the lhs}}
  %c = fpx.scaled_matmul %a : tensor<4x64xf8E4M3FN> scales(%sa : tensor<4x2xf8E8M0FNU>) global_scale(%g : tensor<f32>), %b : tensor<16x64xbf16> {lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_m(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op M mismatch: 4 vs 8}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>}>
      : (tensor<4x64xbf16>, tensor<16x64xbf16>) -> tensor<8x16xbf16>
  return
}

// -----

func.func @scaled_matmul_n(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op N mismatch: 16 vs 8}}
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>}>
      : (tensor<4x64xbf16>, tensor<16x64xbf16>) -> tensor<4x8xbf16>
  return
}

// -----

func.func @scaled_matmul_lhs_scales_shape(%a: tensor<4x64xf8E4M3FN>, %sa: tensor<4x4xf8E8M0FNU>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op scales dimension 1 is 4, expected 2}}
  %c = fpx.scaled_matmul %a : tensor<4x64xf8E4M3FN> scales(%sa : tensor<4x4xf8E8M0FNU>), %b : tensor<16x64xbf16> {lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<4x16xbf16>
  return
}

// -----

// rhs scales are checked against the unpacked K (64 = 32 bytes x 2).
func.func @scaled_matmul_rhs_scales_shape(%a: tensor<4x64xf8E4M3FN>, %sa: tensor<4x2xf8E8M0FNU>, %b: tensor<16x32xi8>, %sb: tensor<16x2xf8E4M3FN>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op scales dimension 1 is 2, expected 4}}
  %c = fpx.scaled_matmul %a : tensor<4x64xf8E4M3FN> scales(%sa : tensor<4x2xf8E8M0FNU>), %b : tensor<16x32xi8> scales(%sb : tensor<16x2xf8E4M3FN>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<4x16xbf16>
  return
}

// -----

// f32 block scales count ceil(K / 128) blocks: 208 K need 2.
func.func @scaled_matmul_blockwise_floor(%a: tensor<4x208xf8E4M3FN>, %sa: tensor<4x1xf32>, %b: tensor<16x208xf8E4M3FN>, %sb: tensor<1x2xf32>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op scales dimension 1 is 1, expected 2}}
  %c = fpx.scaled_matmul %a : tensor<4x208xf8E4M3FN> scales(%sa : tensor<4x1xf32>), %b : tensor<16x208xf8E4M3FN> scales(%sb : tensor<1x2xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>} -> tensor<4x16xbf16>
  return
}

// -----

// Other block scales (MX, NVFP4) need whole blocks.
func.func @scaled_matmul_mx_partial(%a: tensor<4x48xf8E4M3FN>, %sa: tensor<4x2xf8E8M0FNU>, %b: tensor<16x48xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op block size 32 does not divide dimension 1 of size 48}}
  %c = fpx.scaled_matmul %a : tensor<4x48xf8E4M3FN> scales(%sa : tensor<4x2xf8E8M0FNU>), %b : tensor<16x48xbf16> {lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_bias_rank(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>, %bias: tensor<1x16xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op bias must be rank 1 (one value per column of the result), got rank 2}}
  %c = fpx.scaled_matmul %a : tensor<4x64xbf16>, %b : tensor<16x64xbf16> bias(%bias : tensor<1x16xbf16>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_bias_type(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>, %bias: tensor<16xf8E4M3FN>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op bias element type must be bf16, f16 or f32, got 'f8E4M3FN'}}
  %c = fpx.scaled_matmul %a : tensor<4x64xbf16>, %b : tensor<16x64xbf16> bias(%bias : tensor<16xf8E4M3FN>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_bias_length(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>, %bias: tensor<8xf32>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op bias length (N) mismatch: 8 vs 16}}
  %c = fpx.scaled_matmul %a : tensor<4x64xbf16>, %b : tensor<16x64xbf16> bias(%bias : tensor<8xf32>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @scaled_matmul_scale_type(%a: tensor<4x64xf8E4M3FN>, %sa: tensor<4x2xf32>, %b: tensor<16x64xbf16>) {
  // expected-error @+1 {{'fpx.scaled_matmul' op scales element type 'f32' differs from the scaling's 'f8E8M0FNU'}}
  %c = fpx.scaled_matmul %a : tensor<4x64xf8E4M3FN> scales(%sa : tensor<4x2xf32>), %b : tensor<16x64xbf16> {lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<4x16xbf16>
  return
}

//===----------------------------------------------------------------------===//
// fpx.grouped_matmul
//===----------------------------------------------------------------------===//

// -----

func.func @grouped_lhs_rank(%a: tensor<2x4x64xbf16>, %b: tensor<8x16x64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op lhs must be rank 2}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<2x4x64xbf16>, tensor<8x16x64xbf16>, tensor<8xi32> -> tensor<4x16xbf16>
  return
}

// -----

// Only the generic form can give one scale operand without the other.
func.func @grouped_one_scale(%a: tensor<4x64xf8E4M3FN>, %b: tensor<8x16x64xf8E4M3FN>, %off: tensor<8xi32>, %sa: tensor<4x1xf32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op give both operand scales or neither}}
  %y = "fpx.grouped_matmul"(%a, %b, %off, %sa) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}>
    : (tensor<4x64xf8E4M3FN>, tensor<8x16x64xf8E4M3FN>, tensor<8xi32>, tensor<4x1xf32>) -> tensor<4x16xbf16>
  return
}

// -----

func.func @grouped_scales_without_scaling(%a: tensor<4x64xf8E4M3FN>, %b: tensor<8x16x64xf8E4M3FN>, %off: tensor<8xi32>, %sa: tensor<4x1xf32>, %sb: tensor<8x16x1xf32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op scales and lhs_scaling / rhs_scaling go together}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb)
    : tensor<4x64xf8E4M3FN>, tensor<8x16x64xf8E4M3FN>, tensor<8xi32>, tensor<4x1xf32>, tensor<8x16x1xf32> -> tensor<4x16xbf16>
  return
}

// -----

// B's rowwise scales are one per (group, column): [G, N, 1].
func.func @grouped_rhs_scales_rank(%a: tensor<4x64xf8E4M3FN>, %b: tensor<8x16x64xf8E4M3FN>, %off: tensor<8xi32>, %sa: tensor<4x1xf32>, %sb: tensor<16x1xf32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op scales must have rank 3}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<4x64xf8E4M3FN>, tensor<8x16x64xf8E4M3FN>, tensor<8xi32>, tensor<4x1xf32>, tensor<16x1xf32> -> tensor<4x16xbf16>
  return
}

// -----

func.func @grouped_lhs_scales_rows(%a: tensor<4x64xf8E4M3FN>, %b: tensor<8x16x64xf8E4M3FN>, %off: tensor<8xi32>, %sa: tensor<5x1xf32>, %sb: tensor<8x16x1xf32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op scales dimension 0 is 5, expected 4}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<4x64xf8E4M3FN>, tensor<8x16x64xf8E4M3FN>, tensor<8xi32>, tensor<5x1xf32>, tensor<8x16x1xf32> -> tensor<4x16xbf16>
  return
}

// -----

func.func @grouped_2d3d_result_rank(%a: tensor<4x64xbf16>, %b: tensor<8x16x64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op 2D x 3D grouped matmul gives a rank-2 result}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<8x16x64xbf16>, tensor<8xi32> -> tensor<8x4x16xbf16>
  return
}

// -----

func.func @grouped_2d3d_group_count(%a: tensor<4x64xbf16>, %b: tensor<8x16x64xbf16>, %off: tensor<4xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op group count mismatch: 8 vs 4}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<8x16x64xbf16>, tensor<4xi32> -> tensor<4x16xbf16>
  return
}

// -----

func.func @grouped_2d3d_k(%a: tensor<4x64xbf16>, %b: tensor<8x16x32xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op contraction dimension mismatch: 64 vs 32}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<8x16x32xbf16>, tensor<8xi32> -> tensor<4x16xbf16>
  return
}

// -----

func.func @grouped_2d3d_m(%a: tensor<4x64xbf16>, %b: tensor<8x16x64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op M mismatch: 4 vs 6}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<8x16x64xbf16>, tensor<8xi32> -> tensor<6x16xbf16>
  return
}

// -----

func.func @grouped_2d3d_n(%a: tensor<4x64xbf16>, %b: tensor<8x16x64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op N mismatch: 16 vs 32}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<8x16x64xbf16>, tensor<8xi32> -> tensor<4x32xbf16>
  return
}

// -----

func.func @grouped_2d2d_result_rank(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op 2D x 2D grouped matmul gives a rank-3 result (groups, M, N)}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<16x64xbf16>, tensor<8xi32> -> tensor<4x16xbf16>
  return
}

// -----

func.func @grouped_2d2d_k(%a: tensor<4x64xbf16>, %b: tensor<16x128xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op contraction dimension mismatch: 64 vs 128}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<16x128xbf16>, tensor<8xi32> -> tensor<8x4x16xbf16>
  return
}

// -----

func.func @grouped_2d2d_group_count(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op group count mismatch: 2 vs 8}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<16x64xbf16>, tensor<8xi32> -> tensor<2x4x16xbf16>
  return
}

// -----

func.func @grouped_2d2d_m(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op M mismatch: 4 vs 5}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<16x64xbf16>, tensor<8xi32> -> tensor<8x5x16xbf16>
  return
}

// -----

func.func @grouped_2d2d_n(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op N mismatch: 16 vs 17}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<16x64xbf16>, tensor<8xi32> -> tensor<8x4x17xbf16>
  return
}

// -----

func.func @grouped_rhs_rank(%a: tensor<4x64xbf16>, %b: tensor<64xbf16>, %off: tensor<8xi32>) {
  // expected-error @+1 {{'fpx.grouped_matmul' op rhs must be rank 2 or 3}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) : tensor<4x64xbf16>, tensor<64xbf16>, tensor<8xi32> -> tensor<4x16xbf16>
  return
}

//===----------------------------------------------------------------------===//
// fpx.convert
//===----------------------------------------------------------------------===//

// -----

func.func @convert_result_width_f8(%v: vector<2xf32>) {
  // expected-error @+1 {{'fpx.convert' op result must be i16 for 2 codes of 'e4m3fn'}}
  %c = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i8
  return
}

// -----

func.func @convert_result_width_f4(%v: vector<4xf32>) {
  // expected-error @+1 {{'fpx.convert' op result must be i16 for 4 codes of 'e2m1fn'}}
  %c = fpx.convert %v {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<4xf32> -> i32
  return
}

// -----

func.func @convert_rs_without_rbits(%v: vector<4xf32>) {
  // expected-error @+1 {{'fpx.convert' op 'rbits' goes with rs rounding, and only with it}}
  %c = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i32
  return
}

// -----

func.func @convert_rbits_without_rs(%v: vector<4xf32>, %r: i32) {
  // expected-error @+1 {{'fpx.convert' op 'rbits' goes with rs rounding, and only with it}}
  %c = fpx.convert %v rbits(%r) {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<4xf32> -> i32
  return
}

// -----

func.func @convert_rs_two_values(%v: vector<2xf32>, %r: i32) {
  // expected-error @+1 {{'fpx.convert' op rs conversion takes 4 values}}
  %c = fpx.convert %v rbits(%r) {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rs>} : vector<2xf32> -> i16
  return
}

// -----

func.func @convert_bounded_rn(%v: vector<8xf32>) {
  // expected-error @+1 {{'fpx.convert' op 'bounded' goes with rs rounding and without 'in_range'}}
  %c = fpx.convert %v {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>, bounded} : vector<8xf32> -> i32
  return
}

// -----

func.func @convert_bounded_in_range(%v: vector<4xf32>, %r: i32) {
  // expected-error @+1 {{'fpx.convert' op 'bounded' goes with rs rounding and without 'in_range'}}
  %c = fpx.convert %v rbits(%r) {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>, in_range, bounded} : vector<4xf32> -> i16
  return
}

// -----

func.func @convert_eight_bf16(%v: vector<8xbf16>) {
  // expected-error @+1 {{'fpx.convert' op 8 values must be f32}}
  %c = fpx.convert %v {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<8xbf16> -> i32
  return
}

// -----

func.func @convert_bf16_rs(%v: vector<4xbf16>, %r: i32) {
  // expected-error @+1 {{'fpx.convert' op bf16 input takes rn or rz rounding}}
  %c = fpx.convert %v rbits(%r) {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>} : vector<4xbf16> -> i16
  return
}

// -----

// ODS type constraints: 2, 4 or 8 values.
func.func @convert_three_values(%v: vector<3xf32>) {
  // expected-error @+1 {{'fpx.convert' op operand #0 must be vector of 32-bit float or bfloat16 type values of length 2/4/8}}
  %c = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<3xf32> -> i24
  return
}

// -----

func.func @transposed_rank1(%x: tensor<64xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op 'transposed' needs a rank >= 2 input and a rank >= 2 block}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<64xbf16> -> tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU>
  return
}

// -----

func.func @transposed_shape(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op quantized dimension 0 is 64, expected 128}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
  return
}

// -----

func.func @global_scale_rank2(%a: tensor<1x2xf32>) {
  // expected-error @+1 {{'fpx.global_scale' op operand #0 must be 0D/1D tensor of 32-bit float values}}
  %g = fpx.global_scale %a : tensor<1x2xf32>
  return
}
