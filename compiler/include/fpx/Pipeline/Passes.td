//===- Passes.td - passes of the fpxc pipeline itself ------*- tablegen -*-===//
#ifndef FPX_PIPELINE_PASSES_TD
#define FPX_PIPELINE_PASSES_TD

include "mlir/Pass/PassBase.td"

def FPxVerifyKernels : Pass<"fpx-verify-kernels", "mlir::ModuleOp"> {
  let summary = "Reject kernels that the NVPTX backend or ptxas cannot take";
  let description = [{
    Kernel-level input (a module of `gpu.module`s, e.g. the output of
    `fpxc compile --emit mlir`) reaches LLVM's NVPTX backend as written. The
    pipeline runs this pass first on the way from kernels to NVVM, so that
    what the backend would abort on, or turn into PTX that ptxas rejects, is
    an error at the op instead. It changes nothing. In every `gpu.module`:

    * symbol names (the `gpu.module`, its `gpu.func`s, and its external
      `llvm.func`s and globals) are PTX identifiers: `[a-zA-Z][a-zA-Z0-9_$]*`
      or `_`/`$` followed by `[a-zA-Z0-9_$]+` (PTX also allows a leading `%`,
      which the NVPTX backend cannot print), and not `WARP_SZ`;
    * launch bounds are positive and in range: `nvvm.maxntid`,
      `nvvm.reqntid` and `known_block_size` 1 to 3 sizes of at most 1024
      threads in all, `known_grid_size` positive, `nvvm.cluster_dim` and
      `known_cluster_size` at most 16 blocks in all, `nvvm.cluster_max_blocks`
      in [1, 16], `nvvm.minctasm` in [1, 32], `nvvm.maxnreg` in [1, 255];
      and not `nvvm.reqntid` beside `nvvm.maxntid` or `known_block_size`,
      nor `nvvm.cluster_max_blocks` beside `nvvm.cluster_dim` or
      `known_cluster_size` (ptxas rejects both pairs);
    * each `llvm.inline_asm` has constraints the NVPTX backend takes (outputs,
      then inputs, then clobbers; codes b, c, h, r, l, N, q, f, d, n, i or a
      tied output's index; no indirect operands), one result per output and
      one operand per input, and its string refers only to those: `$N`,
      `${N}` or `${N:r}` with N below outputs + inputs (`${N:c}`, `${N:n}`,
      `${N:s}` on `n`/`i` operands), `$$` for a literal `$`,
      `${:comment}`, `${:private}`, `${:uid}`.

    Example:
    ```mlir
    gpu.module @m {
      gpu.func @k() kernel attributes {nvvm.maxntid = array<i32: 0, 1, 1>} {
        // error: 'gpu.func' op nvvm.maxntid: size 0 in dimension 0, sizes must be positive
        %c = arith.constant 1 : i32
        // error: 'llvm.inline_asm' op '$5' refers to operand 5, but the op has 2 (1 output, 1 input)
        %r = llvm.inline_asm has_side_effects "mov.b32 $0, $5;", "=r,r" %c : (i32) -> i32
        gpu.return
      }
    }
    ```
  }];
}

#endif // FPX_PIPELINE_PASSES_TD
