// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// Every column block height the lowering accepts (8 .. 128 rows, dividing the
// 128-row tile) for each input type, fp8 and packed fp4 codes: each kernel
// converts codes and stores them. Blocks over 32 rows once compiled to kernels
// whose threads had no unit to convert (a silent wrong answer); they are cast
// by 32-row segments now.

// CHECK-LABEL: gpu.func @c8_bf16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c8_bf16_fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c8_bf16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c8_bf16_fp4(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c8_f16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c8_f16_fp8(%x: tensor<?x?xf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c8_f16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c8_f16_fp4(%x: tensor<?x?xf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c8_f32_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c8_f32_fp8(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c8_f32_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c8_f32_fp4(%x: tensor<?x?xf32>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf32> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c16_bf16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c16_bf16_fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [16, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c16_bf16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c16_bf16_fp4(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [16, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c16_f16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c16_f16_fp8(%x: tensor<?x?xf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [16, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c16_f16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c16_f16_fp4(%x: tensor<?x?xf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [16, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c16_f32_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c16_f32_fp8(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [16, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c16_f32_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c16_f32_fp4(%x: tensor<?x?xf32>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [16, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf32> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c32_bf16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c32_bf16_fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c32_bf16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c32_bf16_fp4(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c32_f16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c32_f16_fp8(%x: tensor<?x?xf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c32_f16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c32_f16_fp4(%x: tensor<?x?xf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c32_f32_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c32_f32_fp8(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c32_f32_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c32_f32_fp4(%x: tensor<?x?xf32>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf32> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c64_bf16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c64_bf16_fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c64_bf16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c64_bf16_fp4(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c64_f16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c64_f16_fp8(%x: tensor<?x?xf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c64_f16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c64_f16_fp4(%x: tensor<?x?xf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c64_f32_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c64_f32_fp8(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c64_f32_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c64_f32_fp4(%x: tensor<?x?xf32>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf32> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c128_bf16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c128_bf16_fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [128, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c128_bf16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c128_bf16_fp4(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [128, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c128_f16_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c128_f16_fp8(%x: tensor<?x?xf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [128, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c128_f16_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c128_f16_fp4(%x: tensor<?x?xf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [128, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c128_f32_fp8_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c128_f32_fp8(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [128, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}

// -----

// CHECK-LABEL: gpu.func @c128_f32_fp4_quantize_t0
// CHECK: fpx.convert
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.store {{.*}} : vector<2xi64>, !llvm.ptr<1>
func.func @c128_f32_fp4(%x: tensor<?x?xf32>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [128, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xf32> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
