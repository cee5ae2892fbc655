// Input the fuzzers found crashing fpxc, or compiling to PTX that ptxas
// rejects, or failing without a location: each is a located error, exit 1.
//
// Nesting deep enough to overflow the parser's stack.
// RUN: %python -c "print('module {' * 10000)" > %t.deep.mlir
// RUN: not fpxc compile %t.deep.mlir --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:1:2056: error: nested more than 256 levels deep
// RUN: %python %S/Inputs/exit_status.py fpxc compile %t.deep.mlir --emit ptx -o - | FileCheck %s --check-prefix=STATUS
// STATUS: exit status 1
//
// Function names PTX cannot carry (LLVM aborted on the space; the dot made
// PTX that ptxas rejects).
// RUN: not fpxc compile %S/Inputs/name-with-space.mlir --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=SPACE
// SPACE: name-with-space.mlir:1:1: error: function name 'a b' cannot name PTX kernels
// RUN: not fpxc compile %S/Inputs/name-with-dot.mlir --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=DOT
// DOT: name-with-dot.mlir:1:1: error: function name 'a.b' cannot name PTX kernels
//
// A prologue named like a symbol of the PTX backend's own.
// RUN: not fpxc compile %S/Inputs/prologue-reserved.mlir --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=PROLOGUE
// PROLOGUE: prologue-reserved.mlir:2:12: error: 'fpx.quantize' op prologue 'param0' is a name the PTX backend uses
//
// A static shape whose sizes overflow the runtime's int64 expressions.
// RUN: not fpxc compile %S/Inputs/huge-static-shape.mlir --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: huge-static-shape.mlir:1:1: error: tensor type 'tensor<9223372036854775807x32xbf16>' has more than 2^56 elements
//
// Nothing to compile, and a spec with a gpu.module of its own.
// RUN: rm -rf %t && mkdir -p %t && touch %t/empty.mlir
// RUN: not fpxc compile %t/empty.mlir --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: empty.mlir:1:1: error: nothing to compile
// RUN: not fpxc compile %S/Inputs/spec-with-gpu-module.mlir --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: spec-with-gpu-module.mlir:1:1: error: a spec cannot hold gpu.modules beside its functions
//
// Kernels legalized for one target are not lowered for another.
// RUN: fpxc compile %s --target sm_100a --emit mlir -o %t/k.mlir
// RUN: not fpxc compile %t/k.mlir --target sm_80 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=RETARGET
// RETARGET: k.mlir:{{[0-9]+}}:{{[0-9]+}}: error: these kernels were legalized for sm_100a, not sm_80
// RUN: fpxc compile %t/k.mlir --target sm_100a --emit ptx -o - | FileCheck %s --check-prefix=SAME
// SAME: .target sm_100a
//
// Outputs are checked before any is written: no PTX is left behind when the
// JSON would overwrite the input, a directory is not an artifact stem, and
// --cubin does nothing outside an artifact.
// RUN: cp %s %t/y.json && cd %t
// RUN: not fpxc compile y.json 2>&1 | FileCheck %s --check-prefix=OVERWRITE
// OVERWRITE: fpxc: error: refusing to overwrite the input 'y.json'
// RUN: not ls %t/y.ptx
// RUN: diff %s %t/y.json
// RUN: mkdir -p %t/d
// RUN: not fpxc compile %s -o %t/d/ 2>&1 | FileCheck %s --check-prefix=STEM
// RUN: not fpxc compile %s -o - 2>&1 | FileCheck %s --check-prefix=STEM
// STEM: fpxc: error: -o '{{.*}}': an artifact needs a file stem
// RUN: not fpxc compile %s --emit ptx -o %t/d 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: fpxc: error: cannot write '{{.*}}d': it is a directory
// RUN: not fpxc compile %s --emit ptx --cubin -o %t/x.ptx 2>&1 | FileCheck %s --check-prefix=CUBIN
// CUBIN: fpxc: error: --cubin adds a cubin to an artifact
//
// A device or pipe is written in place, not replaced by a renamed file.
// RUN: fpxc compile %s --emit ptx -o /dev/stdout | FileCheck %s --check-prefix=PIPE
// PIPE: .visible .entry f_
// RUN: test -p /dev/stdout || test -L /dev/stdout || test -c /dev/stdout
//
// A ptxas that writes nothing, or that cannot be run, is an error.
// RUN: env FPX_PTXAS=/bin/true not fpxc compile %s --emit cubin -o %t/r.cubin 2>&1 | FileCheck %s --check-prefix=EMPTYCUBIN
// EMPTYCUBIN: fpxc: error: ptxas '/bin/true' exited 0 but wrote no cubin
// RUN: env FPX_PTXAS=%t/no-such-ptxas not fpxc compile %s --emit cubin -o %t/r.cubin 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// NOPTXAS: fpxc: error: cannot run ptxas '{{.*}}no-such-ptxas'

func.func @f(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}
