// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-convert-to-gpu

// What the kernel lowering cannot do yet is an error at the op (or argument)
// that needs it, never a crash or a silently wrong kernel.

func.func @unsupported_op(%a: tensor<4x32xbf16>, %b: tensor<16x32xbf16>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{'fpx.scaled_matmul' op has no kernel lowering for a weight that is not packed as mma_tiles (lowered: weight-only linears, a bf16/f16 activation times a weight packed as mma_tiles: fp8, fp6 and fp5 with one f32 scale per output channel, MXFP8/MXFP6/MXFP4 with row-major e8m0 scales [1, 32], NVFP4 with row-major e4m3 scales [1, 16] and a rank-0 f32 global_scale)}}
  %y = fpx.scaled_matmul %a : tensor<4x32xbf16>, %b : tensor<16x32xbf16> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

func.func @unsupported_matmul(%a: tensor<4x32xbf16>, %b: tensor<16x32xbf16>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{'fpx.matmul' op has no kernel lowering yet}}
  %y = fpx.matmul %a, %b {transpose_b} : tensor<4x32xbf16>, tensor<16x32xbf16> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

func.func @fused_hadamard_transposed(%x: tensor<64x64xbf16>) -> (tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.quantize' op no transposed lowering yet for a fused Hadamard transform}}
  %q, %s = fpx.quantize %x {hadamard = 16, transposed, scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>}
    : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
}

// -----

func.func @square_blocks_12(%x: tensor<64x48xbf16>) -> (tensor<64x48xf8E4M3FN>, tensor<4x4xf32>) {
  // expected-error @+1 {{'fpx.quantize' op 2-D blocks must be a power of two between 8 and 256 long along the row, got 12}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [16, 12], rule = amax, scale = f32>}
    : tensor<64x48xbf16> -> tensor<64x48xf8E4M3FN>, tensor<4x4xf32>
  return %q, %s : tensor<64x48xf8E4M3FN>, tensor<4x4xf32>
}

// -----

func.func @blocks_2d_blocked_scales(%x: tensor<256x256xbf16>) -> (tensor<256x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.quantize' op no 2-D block lowering yet for blocked_128x4 scales}}
  %q, %s = fpx.quantize %x {scale_layout = #fpx.layout<blocked_128x4>, scaling = #fpx.scaling<block = [32, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<256x256xbf16> -> tensor<256x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  return %q, %s : tensor<256x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
}

// -----

// One scale a row ([1, *]) is lowered, but not with a fused Hadamard
// transform or blocked scales.
func.func @per_row_hadamard(%x: tensor<4x64xbf16>) -> (tensor<4x64xf8E4M3FN>, tensor<4x1xf32>) {
  // expected-error @+1 {{'fpx.quantize' op no per-row lowering yet for a fused Hadamard transform}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>, hadamard = 16}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<4x1xf32>
  return %q, %s : tensor<4x64xf8E4M3FN>, tensor<4x1xf32>
}

// -----

func.func @per_row_blocked(%x: tensor<4x64xbf16>) -> (tensor<4x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) {
  // expected-error @+1 {{'fpx.quantize' op blocked_128x4 scales take blocks of 16 or 32 along rows, not one scale a row}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, *], rule = floor, scale = f8E8M0FNU>, scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return %q, %s : tensor<4x64xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
}

// -----

// Other block shapes with a whole dimension are not lowered. (The message
// prints the block as [*, 1]; only its stable part is checked.)
func.func @per_column(%x: tensor<4x64xbf16>) -> (tensor<4x64xf8E4M3FN>, tensor<1x64xf32>) {
  // expected-error @+1 {{'fpx.quantize' op no kernel lowering yet for block shape}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, 1], rule = amax, scale = f32>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<1x64xf32>
  return %q, %s : tensor<4x64xf8E4M3FN>, tensor<1x64xf32>
}

// -----

func.func @bf16_scales(%x: tensor<4x64xbf16>) -> (tensor<4x64xf8E4M3FN>, tensor<4x2xbf16>) {
  // expected-error @+1 {{'fpx.quantize' op no kernel lowering yet for 'bf16' scales}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 32], rule = amax, scale = bf16>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<4x2xbf16>
  return %q, %s : tensor<4x64xf8E4M3FN>, tensor<4x2xbf16>
}

// -----

func.func @fp4_unpacked(%x: tensor<4x64xbf16>) -> (tensor<4x64xf4E2M1FN>, tensor<4x4xf8E4M3FN>) {
  // expected-error @+1 {{'fpx.quantize' op fp4 results are lowered packed: add packing = #fpx.layout<fp4x2>}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<4x64xbf16> -> tensor<4x64xf4E2M1FN>, tensor<4x4xf8E4M3FN>
  return %q, %s : tensor<4x64xf4E2M1FN>, tensor<4x4xf8E4M3FN>
}

// -----

func.func @row_block_12(%x: tensor<4x48xbf16>) -> (tensor<4x48xf8E4M3FN>, tensor<4x4xf32>) {
  // expected-error @+1 {{'fpx.quantize' op row blocks must be a multiple of 8 and at most 256 long, got 12}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 12], rule = amax, scale = f32>}
    : tensor<4x48xbf16> -> tensor<4x48xf8E4M3FN>, tensor<4x4xf32>
  return %q, %s : tensor<4x48xf8E4M3FN>, tensor<4x4xf32>
}

// -----

func.func @row_block_512(%x: tensor<4x512xbf16>) -> (tensor<4x512xf8E4M3FN>, tensor<4x1xf32>) {
  // expected-error @+1 {{'fpx.quantize' op row blocks must be a multiple of 8 and at most 256 long, got 512}}
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, 512], rule = amax, scale = f32>}
    : tensor<4x512xbf16> -> tensor<4x512xf8E4M3FN>, tensor<4x1xf32>
  return %q, %s : tensor<4x512xf8E4M3FN>, tensor<4x1xf32>
}

// -----

// expected-error @+1 {{argument 1 has type 'f32'; kernel specs take ranked tensors and i64 scalars}}
func.func @f32_scalar_argument(%x: tensor<4x64xbf16>, %y: f32) -> (tensor<4x64xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<4x64xf8E4M3FN>, tensor<1x1xf32>
}

// -----

// expected-error @+1 {{argument 0 has element type 'i16', which kernels cannot take}}
func.func @i16_tensor_argument(%x: tensor<4x64xi16>) -> tensor<4x64xi16> {
  return %x : tensor<4x64xi16>
}

// -----

func.func @returns_argument(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
  // expected-error @+1 {{'func.return' op result 0 must be a new tensor computed by the function}}
  return %x : tensor<4x64xbf16>
}

// -----

func.func @returns_value_twice(%x: tensor<4x64xbf16>) -> (tensor<4x64xf8E4M3FN>, tensor<4x64xf8E4M3FN>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<1x1xf32>
  // expected-error @+1 {{'func.return' op result 1 must be a new tensor computed by the function}}
  return %q, %q : tensor<4x64xf8E4M3FN>, tensor<4x64xf8E4M3FN>
}

// -----

// The seed must be a function argument (the launch passes it by name).
func.func @seed_from_constant(%x: tensor<4x64xbf16>) -> (tensor<4x64xf8E4M3FN>, tensor<1x1xf32>) {
  // expected-error @+1 {{'arith.constant' op has no kernel lowering yet}}
  %seed = arith.constant 5 : i64
  %q, %s = fpx.quantize %x seed(%seed) {rounding = #fpx.rounding<rs>, scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<4x64xf8E4M3FN>, tensor<1x1xf32>
}

// -----

// A per-matrix amax is read per CTA by the row kernel only.
func.func @per_matrix_amax_columns(%x: tensor<2x64x64xbf16>, %a: tensor<2xf32>) -> (tensor<2x64x32xi8>, tensor<2x64x4xf8E4M3FN>) {
  // expected-error @+1 {{'fpx.quantize' op a per-matrix amax is lowered for row blocks [1, N] only}}
  %q, %s = fpx.quantize %x amax(%a : tensor<2xf32>) {transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16, 1], rule = amax, scale = f8E4M3FN>}
    : tensor<2x64x64xbf16> -> tensor<2x64x32xi8>, tensor<2x64x4xf8E4M3FN>
  return %q, %s : tensor<2x64x32xi8>, tensor<2x64x4xf8E4M3FN>
}
