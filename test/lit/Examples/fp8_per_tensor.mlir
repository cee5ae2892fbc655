// RUN: fpxc compile %examples/fp8_per_tensor.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/fp8_per_tensor.mlir --target sm_100a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: fpxc compile %examples/fp8_per_tensor.mlir --target sm_80 --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: fpxc compile %examples/fp8_per_tensor.mlir --target sm_90a --emit mlir -o - | FileCheck %s --check-prefix=MLIR
// RUN: fpxc compile %examples/fp8_per_tensor.mlir --target sm_90a --emit llvm -o - | FileCheck %s --check-prefix=LLVM
// RUN: rm -rf %t && mkdir -p %t && fpxc compile %examples/fp8_per_tensor.mlir --target sm_90a -o %t/fp8
// RUN: FileCheck %s --check-prefix=JSON < %t/fp8.json
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t/fp8.ptx

// docs/examples/fp8_per_tensor.mlir: the first end-to-end slice (bf16 ->
// e4m3 with one per-tensor scale), an amax kernel then the cast kernel.

// SM90: .version 8.0
// SM90: .target sm_90a
// SM100: .version 8.7
// SM100: .target sm_100a
// SM80: .version 7.0
// SM80: .target sm_80
// CHECK-LABEL: .visible .entry fp8_per_tensor_amax0(
// CHECK-LABEL: .visible .entry fp8_per_tensor_quantize1(
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM100: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: cvt.rn.satfinite

// After the kernel stage the fp8 conversion is inline PTX (sm_90a has it).
// MLIR: gpu.module @fpx_kernels
// MLIR-SAME: name = "fp8_per_tensor"
// MLIR: gpu.func @fp8_per_tensor_amax0
// MLIR: gpu.func @fp8_per_tensor_quantize1
// MLIR: llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;"
// MLIR-NOT: fpx.convert

// LLVM: target triple = "nvptx64-nvidia-cuda"
// LLVM: define ptx_kernel void @fp8_per_tensor_amax0(
// LLVM: define ptx_kernel void @fp8_per_tensor_quantize1(
// LLVM: call i16 asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "=h,f,f"

// The artifact: metadata for the runtime next to the PTX.
// JSON-DAG: "chip": "sm_90a"
// JSON-DAG: "ptx_version": "8.0"
// JSON-DAG: "ptx": "fp8.ptx"
// JSON-DAG: "name": "fp8_per_tensor"
// JSON-DAG: "kernel": "fp8_per_tensor_amax0"
// JSON-DAG: "kernel": "fp8_per_tensor_quantize1"
// JSON-DAG: "init": "zero"
