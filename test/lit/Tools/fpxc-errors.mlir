// Bad input gives `file:line:col: error:` (or `fpxc: error:`) and exit
// status 1: `not` fails on any other non-zero status or a signal, and the
// exit status is compared explicitly where it matters.
//
// RUN: not fpxc compile %S/Inputs/malformed.mlir --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: malformed.mlir:3:2: error: expected ')'
//
// RUN: not fpxc compile %s --target sm_99 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: fpxc: error: unknown target 'sm_99' (known: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a, sm_103a, sm_120a, sm_121a)
//
// RUN: not fpxc compile %s --emit exe -o - 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: fpxc: error: unknown --emit 'exe' (artifact, mlir, llvm, ptx, cubin)
//
// RUN: not fpxc compile %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: fpxc: error: cannot read '{{.*}}does-not-exist.mlir': No such file or directory
//
// RUN: not fpxc bogus 2>&1 | FileCheck %s --check-prefix=COMMAND
// COMMAND: fpxc: error: unknown command 'bogus'
//
// RUN: not fpxc compile 2>&1 | FileCheck %s --check-prefix=NOSPEC
// NOSPEC: fpxc: error: compile takes exactly one spec file
//
// RUN: not fpxc --frobnicate 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: fpxc: error: unrecognised option '--frobnicate'
//
// The exit status is exactly 1 (not 2, not a signal).
// RUN: %python %S/Inputs/exit_status.py fpxc compile %s --target sm_99 --emit ptx -o - | FileCheck %s --check-prefix=STATUS
// RUN: %python %S/Inputs/exit_status.py fpxc compile %S/Inputs/malformed.mlir --emit ptx -o - | FileCheck %s --check-prefix=STATUS
// RUN: %python %S/Inputs/exit_status.py fpxc compile %S/fpxc-unknown-format.mlir --emit ptx -o - | FileCheck %s --check-prefix=STATUS
// RUN: %python %S/Inputs/exit_status.py fpxc compile %S/fpxc-unsupported-op.mlir --emit ptx -o - | FileCheck %s --check-prefix=STATUS
// RUN: %python %S/Inputs/exit_status.py fpxc compile %S/fpxc-verifier-error.mlir --emit ptx -o - | FileCheck %s --check-prefix=STATUS
// RUN: %python %S/Inputs/exit_status.py fpxc bogus | FileCheck %s --check-prefix=STATUS
// STATUS: exit status 1

func.func @ok(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}
