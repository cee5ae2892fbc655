// RUN: fpx-opt %s -verify-diagnostics -fpx-convert-to-gpu="chip=sm_89" -split-input-file
// RUN: fpx-opt %s -verify-diagnostics -fpx-convert-to-gpu="chip=sm_80" -split-input-file
// RUN: fpx-opt %s -verify-diagnostics -fpx-convert-to-gpu="chip=sm_103a" -split-input-file

// The scaled GEMMs have kernel forms for sm_90a (wgmma), sm_100a (tcgen05)
// and sm_120a / sm_121a (block-scaled mma.sync); elsewhere the lowering
// refuses them, naming the op and the target. sm_103a has tcgen05, but MLIR
// 22's NVVM tcgen05 ops do not verify for it, so the table gives it none.
func.func @tw(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<1x1xf32>) -> tensor<?x256xbf16> {
  // expected-error-re @+1 {{'fpx.scaled_matmul' op with fp8 operands needs wgmma (sm_90a); target sm_{{89|80|103a}} has no kernel form for it yet}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// MXFP8 lowers on sm_90a (wgmma), sm_100a and sm_120a only.
func.func @mx(%a: tensor<?x256xf8E4M3FN>, %sa: tensor<?x8xf8E8M0FNU>, %b: tensor<256x256xf8E4M3FN>, %sb: tensor<256x8xf8E8M0FNU>) -> tensor<?x256xbf16> {
  // expected-error-re @+1 {{'fpx.scaled_matmul' op with MXFP8 operands needs wgmma (sm_90a), tcgen05 (sm_100a) or the block-scaled mma.sync (sm_120a); target sm_{{89|80|103a}} has no kernel form for it yet}}
  %c = fpx.scaled_matmul %a : tensor<?x256xf8E4M3FN> scales(%sa : tensor<?x8xf8E8M0FNU>), %b : tensor<256x256xf8E4M3FN> scales(%sb : tensor<256x8xf8E8M0FNU>) {
      lhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rhs_scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// NVFP4 (fp4x2 e2m1, e4m3 [1, 16] scales) lowers on sm_90a (the bf16 form),
// sm_100a and sm_120a only.
func.func @nvfp4(%a: tensor<?x128xi8>, %sa: tensor<?x16xf8E4M3FN>, %b: tensor<256x128xi8>, %sb: tensor<256x16xf8E4M3FN>) -> tensor<?x256xbf16> {
  // expected-error-re @+1 {{'fpx.scaled_matmul' op with NVFP4 operands needs wgmma (sm_90a), tcgen05 (sm_100a) or the block-scaled mma.sync (sm_120a); target sm_{{89|80|103a}} has no kernel form for it yet}}
  %c = fpx.scaled_matmul %a : tensor<?x128xi8> scales(%sa : tensor<?x16xf8E4M3FN>), %b : tensor<256x128xi8> scales(%sb : tensor<256x16xf8E4M3FN>) {
      lhs_format = #fpx.format<e2m1fn>, lhs_packing = #fpx.layout<fp4x2>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      lhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>} -> tensor<?x256xbf16>
  return %c : tensor<?x256xbf16>
}

// -----

// The grouped fp8 GEMM (the MoE forward) lowers on sm_90a only.
func.func @grouped(%a: tensor<?x256xf8E4M3FN>, %b: tensor<4x128x256xf8E4M3FN>, %off: tensor<4xi32>,
                   %sa: tensor<?x1xf32>, %sb: tensor<4x128x1xf32>) -> tensor<?x128xbf16> {
  // expected-error-re @+1 {{'fpx.grouped_matmul' op with fp8 operands needs wgmma (sm_90a); target sm_{{89|80|103a}} has no kernel form for it yet}}
  %y = fpx.grouped_matmul %a, %b offsets(%off) scales(%sa, %sb) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x256xf8E4M3FN>, tensor<4x128x256xf8E4M3FN>, tensor<4xi32>, tensor<?x1xf32>, tensor<4x128x1xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}
