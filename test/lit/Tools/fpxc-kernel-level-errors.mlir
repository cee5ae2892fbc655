// RUN: not fpxc compile %s --target sm_90a --emit ptx -o - 2>&1 | FileCheck %s
// RUN: not fpx-opt %s '-fpx-pipeline=chip=sm_90a until=ptx' -o %t.mlir 2>&1 | FileCheck %s
// RUN: %python %S/Inputs/exit_status.py fpxc compile %s --target sm_90a --emit ptx -o - | FileCheck %s --check-prefix=STATUS
// RUN: %python %S/Inputs/exit_status.py fpxc compile %s --target sm_100a -o %t | FileCheck %s --check-prefix=STATUS
// STATUS: exit status 1

// Kernel-level input that LLVM's NVPTX backend aborted on (exit 134, 139)
// or turned into PTX that ptxas rejects while fpxc exited 0 is an error at
// the op, from fpxc and from fpx-opt's pipeline alike (fpx-verify-kernels).

gpu.module @m {
  // A name with a '.' gave PTX that ptxas rejects, one with a space or a
  // non-ASCII letter "LLVM ERROR: Symbol name with unsupported characters".
  // CHECK-DAG: fpxc-kernel-level-errors.mlir:[[@LINE+1]]:3: error: 'gpu.func' op name 'a.b' is not a PTX identifier ([a-zA-Z][a-zA-Z0-9_$]* or [_$][a-zA-Z0-9_$]+)
  gpu.func @"a.b"() kernel {
    gpu.return
  }
  // CHECK-DAG: fpxc-kernel-level-errors.mlir:[[@LINE+1]]:3: error: 'gpu.func' op name 'a b' is not a PTX identifier
  gpu.func @"a b"() kernel {
    gpu.return
  }

  gpu.func @asm() kernel {
    %c = arith.constant 1 : i32
    // "LLVM ERROR: Invalid $ operand number in inline asm string".
    // CHECK-DAG: fpxc-kernel-level-errors.mlir:[[@LINE+1]]:10: error: 'llvm.inline_asm' op '$5' refers to operand 5, but the op has 2 (1 output, 1 input)
    %r = llvm.inline_asm has_side_effects "mov.b32 $0, $5;", "=r,r" %c : (i32) -> i32
    // "LLVM ERROR: Bad $ operand number in inline asm string".
    // CHECK-DAG: fpxc-kernel-level-errors.mlir:[[@LINE+1]]:10: error: 'llvm.inline_asm' op '$-1' is not an operand reference
    %s = llvm.inline_asm has_side_effects "mov.b32 $0, $-1;", "=r,r" %c : (i32) -> i32
    // A segfault.
    // CHECK-DAG: fpxc-kernel-level-errors.mlir:[[@LINE+1]]:10: error: 'llvm.inline_asm' op has 2 inputs in '=r,r,r' but 1 operand
    %t = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r,r" %c : (i32) -> i32
    gpu.return
  }

  // .maxntid 0, 1, 1, which ptxas rejects.
  // CHECK-DAG: fpxc-kernel-level-errors.mlir:[[@LINE+1]]:3: error: 'gpu.func' op nvvm.maxntid: size 0 in dimension 0, sizes must be positive
  gpu.func @maxntid_zero() kernel attributes {nvvm.maxntid = array<i32: 0, 1, 1>} {
    gpu.return
  }
  // An unlocated "can't parse integer attribute -1 in nvvm.maxntid".
  // CHECK-DAG: fpxc-kernel-level-errors.mlir:[[@LINE+1]]:3: error: 'gpu.func' op nvvm.maxntid: size -1 in dimension 0, sizes must be positive
  gpu.func @maxntid_negative() kernel attributes {nvvm.maxntid = array<i32: -1, 1, 1>} {
    gpu.return
  }
  // .minnctapersm 0, which ptxas rejects.
  // CHECK-DAG: fpxc-kernel-level-errors.mlir:[[@LINE+1]]:3: error: 'gpu.func' op nvvm.minctasm = 0 is out of range [1, 32]
  gpu.func @minctasm_zero() kernel attributes {nvvm.minctasm = 0 : i32} {
    gpu.return
  }
}
// CHECK-NOT: LLVM ERROR
