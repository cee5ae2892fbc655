// RUN: fpx-opt %s -fpx-pipeline="chip=sm_90a until=kernels" | FileCheck %s --check-prefix=KERNELS
// RUN: fpx-opt %s -fpx-pipeline="chip=sm_100a until=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: fpx-opt %s -fpx-pipeline="chip=sm_100a until=ptx" | FileCheck %s --check-prefix=PTX
// RUN: fpx-opt --help | FileCheck %s --check-prefix=HELP

// fpx-opt runs the same pipeline as fpxc, stage by stage.

// KERNELS: gpu.module @fpx_kernels
// KERNELS: gpu.func @fp8_quantize1
// KERNELS: llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;"
// KERNELS-NOT: fpx.convert

// The PTX version comes from the target table (+ptx87), not LLVM's default.
// LLVM: gpu.module @fpx_kernels [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx87">]
// LLVM: llvm.func @fp8_quantize1
// LLVM-NOT: gpu.func

// PTX: gpu.binary @fpx_kernels
// PTX-SAME: .version 8.7
// PTX-SAME: .target sm_100a

// HELP-DAG: --fpx-convert-to-gpu
// HELP-DAG: --fpx-fuse-dequant-matmul
// HELP-DAG: --fpx-fuse-quantize
// HELP-DAG: --fpx-legalize-formats
// HELP-DAG: --fpx-pipeline
func.func @fp8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}
