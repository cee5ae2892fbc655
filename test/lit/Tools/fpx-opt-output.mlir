// RUN: rm -rf %t && mkdir -p %t && cp %s %t/spec.mlir && echo keep > %t/out.mlir
// RUN: not fpx-opt %t/spec.mlir -fpx-pipeline="chip=sm_42" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: FileCheck %s --check-prefix=KEPT --input-file %t/out.mlir
// RUN: not fpx-opt %t/spec.mlir -o %t/./spec.mlir 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: diff %s %t/spec.mlir
// RUN: ln -f %t/spec.mlir %t/hard-link.mlir
// RUN: not fpx-opt %t/spec.mlir -o %t/hard-link.mlir 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: diff %s %t/spec.mlir
// RUN: fpx-opt %t/spec.mlir -fpx-pipeline="chip=sm_90a until=kernels" -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=OK --input-file %t/out.mlir
// RUN: fpx-opt %t/spec.mlir -o /dev/null
// RUN: test -c /dev/null

// fpx-opt writes -o only when the run succeeds (mlir-opt's driver deleted
// the file on a failure), never over its input (a hard link to it included),
// and a device in place.
// FAIL: unknown target 'sm_42'
// KEPT: keep
// INPUT: fpx-opt: error: refusing to overwrite the input '{{.*}}spec.mlir'
// OK: gpu.module @fpx_kernels

func.func @fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}
