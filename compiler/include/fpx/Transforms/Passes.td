//===- Passes.td - fpx tensor-level transforms -------------*- tablegen -*-===//
#ifndef FPX_TRANSFORMS_PASSES_TD
#define FPX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FPxFuseQuantize : Pass<"fpx-fuse-quantize", "mlir::func::FuncOp"> {
  let summary = "Fuse amax, Hadamard, packing and scale swizzling into fpx.quantize";
  let description = [{
    Folds the stages around a quantize into the one op, so that one kernel
    reads the input once and writes packed data and laid-out scales:

    - `fpx.pack` of a quantize result becomes the quantize's `packing`;
    - `fpx.swizzle_scales` of its scales becomes `scale_layout`;
    - an `fpx.hadamard` whose users are all quantizes and amaxes becomes
      `hadamard` / `hadamard_seed` on each of them (the transform is
      recomputed in registers, never written to memory).

    Pack and swizzle fuse only when the quantize result has no other use.

    Before:
    ```mlir
    %q, %s = fpx.quantize %x {...} : tensor<?x64xbf16> -> tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN>
    %p = fpx.pack %q {layout = #fpx.layout<fp4x2>} : tensor<?x64xf4E2M1FN> -> tensor<?x32xi8>
    ```
    After:
    ```mlir
    %p, %s = fpx.quantize %x {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, ...}
      : tensor<?x64xbf16> -> tensor<?x32xi8>, tensor<?x4xf8E4M3FN>
    ```
  }];
  let dependentDialects = ["::fpx::FPxDialect"];
}

def FPxFuseDequantMatmul : Pass<"fpx-fuse-dequant-matmul", "mlir::func::FuncOp"> {
  let summary = "Fold fpx.dequantize of a matmul operand into fpx.scaled_matmul";
  let description = [{
    `fpx.matmul(a, fpx.dequantize(w, s))` reads the dequantized weight from
    memory at full width; `fpx.scaled_matmul(a, w, s)` decodes it in the
    matmul's prologue instead, reading the packed bytes once.

    Before:
    ```mlir
    %wd = fpx.dequantize %w, %s {...} : tensor<11008x3072xi8>, tensor<11008x1xbf16> -> tensor<11008x4096xbf16>
    %y = fpx.matmul %a, %wd {transpose_b} : ...
    ```
    After:
    ```mlir
    %y = fpx.scaled_matmul %a, %w scales(%s) {rhs_format = ..., rhs_packing = ..., rhs_scaling = ...} : ...
    ```

    A bias added to a scaled matmul's result (its only use) becomes its
    `bias` operand, added in f32 in the kernel's epilogue: `arith.addf` (either
    operand order) of the result and a row broadcast of a 1-D bias, written
    in the dialects fpxc takes as a `tensor.generate` whose body yields
    `tensor.extract %bias[%j]` (%j: the column index):
    ```mlir
    %bb = tensor.generate %m {
    ^bb0(%i: index, %j: index):
      %e = tensor.extract %bias[%j] : tensor<11008xbf16>
      tensor.yield %e : bf16
    } : tensor<?x11008xbf16>
    %z = arith.addf %y, %bb : tensor<?x11008xbf16>
    ```
    becomes `%z = fpx.scaled_matmul ... bias(%bias : tensor<11008xbf16>) ...`.
    Not folded: a matmul whose result has other users, a broadcast along the
    other dimension, an add to an unfused `fpx.matmul`.

    An output cast, `arith.truncf` (round to nearest even) of an f32 scaled
    matmul's only result, becomes the matmul's result type: the kernels
    round once from f32, after the scales and the bias.

    Left alone: a K x N weight (`fpx.matmul` without `transpose_b`: the
    kernels read B K-major, and no op here transposes the codes), a
    dequantized lhs, a dequantized weight with another user (it is written
    at full width anyway; a fold would decode it twice), an NVFP4 dequantize
    that computes its global scale from `amax`, blocked_128x4 scales.
  }];
  let dependentDialects = ["::fpx::FPxDialect"];
}

#endif // FPX_TRANSFORMS_PASSES_TD
