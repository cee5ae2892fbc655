// RUN: not fpx-opt %s -fpx-pipeline="chip=sm_42" 2>&1 | FileCheck %s

// fpx-opt -fpx-pipeline with an unknown chip fails with the target named.
// CHECK: unknown target 'sm_42'

func.func @fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}
