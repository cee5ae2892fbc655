// RUN: rm -rf %t && mkdir -p %t/sub && cp %s %t/spec.mlir
// RUN: not fpxc compile %t/spec.mlir --emit ptx -o %t/spec.mlir 2>&1 | FileCheck %s
// RUN: not fpxc compile %t/spec.mlir --emit mlir -o %t/./spec.mlir 2>&1 | FileCheck %s
// RUN: not fpxc compile %t/spec.mlir --emit cubin -o %t/sub/../spec.mlir 2>&1 | FileCheck %s
// RUN: diff %s %t/spec.mlir
// RUN: fpxc compile %t/spec.mlir --emit ptx -o %t/spec.ptx
// RUN: diff %s %t/spec.mlir

// `-o` naming the input spec (by any path) is refused, and the spec is left
// as it was; a different output path works.
// CHECK: fpxc: error: refusing to overwrite the input '{{.*}}spec.mlir'

func.func @f(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}
