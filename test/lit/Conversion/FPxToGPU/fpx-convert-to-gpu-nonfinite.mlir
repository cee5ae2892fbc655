// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu="chip=sm_100a" | FileCheck %s --check-prefix=NATIVE
// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu="chip=sm_90a" | FileCheck %s --check-prefix=EMUL

// What an MX block holding inf or NaN produces (`nonfinite`), in the cast
// kernels. Where the target converts to ue8m0 natively (sm_100a), the rceil
// scale is cvt.rp.ue8m0x2 of amax / max: without .satfinite by default (inf
// and NaN give 0xFF), with it under `saturate` (inf gives 0xFE, NaN pinned
// to 0xFF). Emulated (sm_90a), the default marks inf and NaN with one
// unsigned compare of the amax bits against 0x7f800000 (2139095040);
// `saturate` gives inf 254 and NaN 255 by two.

// NATIVE-LABEL: gpu.func @rceil_default_quantize0(
// NATIVE: llvm.inline_asm "cvt.rp.ue8m0x2.f32 $0, 0f00000000, $1;"
// NATIVE-NOT: satfinite.ue8m0x2
// NATIVE: gpu.return
// EMUL-LABEL: gpu.func @rceil_default_quantize0(
// EMUL-NOT: ue8m0x2
// EMUL: arith.cmpi uge, %{{.*}}, %{{c2139095040_i32[_0-9]*}} : i32
// EMUL: gpu.return
func.func @rceil_default(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// NATIVE-LABEL: gpu.func @rceil_saturate_quantize0(
// NATIVE: llvm.inline_asm "cvt.rp.satfinite.ue8m0x2.f32 $0, 0f00000000, $1;"
// NATIVE: arith.cmpi eq, %{{.*}}, %{{c2139095040_i32[_0-9]*}} : i32
// NATIVE: arith.cmpi ugt, %{{.*}}, %{{c2139095040_i32[_0-9]*}} : i32
// NATIVE: gpu.return
// EMUL-LABEL: gpu.func @rceil_saturate_quantize0(
// EMUL-NOT: arith.cmpi uge, %{{.*}}, %{{c2139095040_i32[_0-9]*}}
// EMUL: arith.cmpi eq, %{{.*}}, %{{c2139095040_i32[_0-9]*}} : i32
// EMUL: arith.cmpi ugt, %{{.*}}, %{{c2139095040_i32[_0-9]*}} : i32
// EMUL: gpu.return
func.func @rceil_saturate(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {nonfinite = #fpx.nonfinite<saturate>,
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// The floor rule has no native conversion: the compares on every target.
// NATIVE-LABEL: gpu.func @floor_cols_default_quantize_t0(
// NATIVE-NOT: ue8m0x2
// NATIVE: arith.cmpi uge, %{{.*}}, %{{c2139095040_i32[_0-9]*}} : i32
// NATIVE: gpu.return
// EMUL-LABEL: gpu.func @floor_cols_default_quantize_t0(
// EMUL: arith.cmpi uge, %{{.*}}, %{{c2139095040_i32[_0-9]*}} : i32
// EMUL: gpu.return
func.func @floor_cols_default(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
