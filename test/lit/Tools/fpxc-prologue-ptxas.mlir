// REQUIRES: ptxas
// The PTX of a kernel with a user prologue assembles as relocatable code
// (ptxas -c: what the driver's JIT linker does with it) and not as a whole
// program (the symbol is unresolved until the user's code is linked).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %S/fpxc-prologue.mlir --target sm_90a --emit ptx -o %t/pro.ptx
// RUN: %ptxas -arch=sm_90a -c %t/pro.ptx -o %t/pro.o
// RUN: not %ptxas -arch=sm_90a %t/pro.ptx -o %t/pro.cubin 2>&1 | FileCheck %s
// CHECK: Unresolved extern function 'fpx_user_scale'
