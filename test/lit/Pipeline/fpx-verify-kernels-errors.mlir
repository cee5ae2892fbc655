// RUN: fpx-opt %s -split-input-file -verify-diagnostics -fpx-verify-kernels

// What the NVPTX backend aborts on (LLVM ERROR, a segfault), or prints as
// PTX that ptxas rejects, is an error at the op before the lowering.

// Names: PTX identifiers only ('a.b' gave PTX that ptxas rejects, 'a b'
// and '%a' "Symbol name with unsupported characters").

// expected-error @+1 {{'gpu.module' op name 'a b' is not a PTX identifier ([a-zA-Z][a-zA-Z0-9_$]* or [_$][a-zA-Z0-9_$]+)}}
gpu.module @"a b" {
  // expected-error @+1 {{'gpu.func' op name 'a.b' is not a PTX identifier ([a-zA-Z][a-zA-Z0-9_$]* or [_$][a-zA-Z0-9_$]+)}}
  gpu.func @"a.b"() kernel {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op name '_' is not a PTX identifier}}
  gpu.func @_() kernel {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op name 'ü' is not a PTX identifier}}
  gpu.func @"ü"() kernel {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op name '%a' is not a PTX identifier}}
  gpu.func @"%a"() kernel {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op name '1a' is not a PTX identifier}}
  gpu.func @"1a"() kernel {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op name '' is not a PTX identifier}}
  gpu.func @""() kernel {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op name 'WARP_SZ' is a predefined PTX identifier}}
  gpu.func @WARP_SZ() kernel {
    gpu.return
  }
  // expected-error @+1 {{'llvm.func' op name 'ext.fn' is not a PTX identifier}}
  llvm.func @"ext.fn"(f32) -> f32
  // expected-error @+1 {{'llvm.mlir.global' op name 'g.h' is not a PTX identifier}}
  llvm.mlir.global external @"g.h"(0 : i32) {addr_space = 1 : i32} : i32
  // Local symbols are renamed by the backend, intrinsics are not symbols of
  // the PTX, and '$' is an identifier character.
  llvm.func private @"local.fn"() { llvm.return }
  llvm.mlir.global internal @"local g"(0 : i32) {addr_space = 1 : i32} : i32
  llvm.func @llvm.nvvm.read.ptx.sreg.tid.x() -> i32
  gpu.func @"$k$1"() kernel {
    gpu.return
  }
}

// -----

// Launch attributes: positive and in range (nvvm.maxntid 0 gave PTX that
// ptxas rejects, -1 an unlocated error).

gpu.module @launch {
  // expected-error @+1 {{'gpu.func' op nvvm.maxntid: size 0 in dimension 0, sizes must be positive}}
  gpu.func @maxntid_zero() kernel attributes {nvvm.maxntid = array<i32: 0, 1, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.maxntid: size -1 in dimension 0, sizes must be positive}}
  gpu.func @maxntid_negative() kernel attributes {nvvm.maxntid = array<i32: -1, 1, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.maxntid: 32x33x1 threads per block, more than 1024}}
  gpu.func @maxntid_large() kernel attributes {nvvm.maxntid = array<i32: 32, 33, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.reqntid: 2147483647x2147483647x2147483647 threads per block, more than 1024}}
  gpu.func @reqntid_huge() kernel attributes {nvvm.reqntid = array<i32: 2147483647, 2147483647, 2147483647>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.reqntid: size 0 in dimension 2, sizes must be positive}}
  gpu.func @reqntid_zero() kernel attributes {nvvm.reqntid = array<i32: 1, 1, 0>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op known_block_size: size 0 in dimension 0, sizes must be positive}}
  gpu.func @block_size() kernel attributes {known_block_size = array<i32: 0, 1, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op known_grid_size: size 0 in dimension 1, sizes must be positive}}
  gpu.func @grid_size() kernel attributes {known_grid_size = array<i32: 1, 0, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.cluster_dim: 17x1x1 blocks per cluster, more than 16}}
  gpu.func @cluster_dim() kernel attributes {nvvm.cluster_dim = array<i32: 17, 1, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op known_cluster_size: size 0 in dimension 0, sizes must be positive}}
  gpu.func @cluster_size() kernel attributes {known_cluster_size = array<i32: 0, 1, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.cluster_max_blocks = 0 is out of range [1, 16]}}
  gpu.func @cluster_max() kernel attributes {nvvm.cluster_max_blocks = 0 : i32} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.minctasm = -3 is out of range [1, 32]}}
  gpu.func @minctasm() kernel attributes {nvvm.minctasm = -3 : i32} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.minctasm must be an integer, got true}}
  gpu.func @minctasm_bool() kernel attributes {nvvm.minctasm = true} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.maxnreg = 0 is out of range [1, 255]}}
  gpu.func @maxnreg_zero() kernel attributes {nvvm.maxnreg = 0 : i32} {
    gpu.return
  }
  // 99999999999 : i64 became .maxnreg 1215752191.
  // expected-error @+1 {{'gpu.func' op nvvm.maxnreg = 99999999999 is out of range [1, 255]}}
  gpu.func @maxnreg_wide() kernel attributes {nvvm.maxnreg = 99999999999 : i64} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.maxnreg = 99999999999999999999999 is out of range [1, 255]}}
  gpu.func @maxnreg_i128() kernel attributes {nvvm.maxnreg = 99999999999999999999999 : i128} {
    gpu.return
  }
  // expected-error @+1 {{'llvm.func' op nvvm.maxntid: size 0 in dimension 0, sizes must be positive}}
  llvm.func @llvm_kernel() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 0, 1, 1>} {
    llvm.return
  }
  // expected-error @+1 {{'gpu.func' op nvvm.maxntid and nvvm.reqntid cannot both be given (PTX's .maxntid and .reqntid conflict)}}
  gpu.func @maxntid_reqntid() kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.reqntid = array<i32: 128, 1, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op known_block_size and nvvm.reqntid cannot both be given}}
  gpu.func @block_size_reqntid() kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.reqntid = array<i32: 256, 1, 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op known_cluster_size and nvvm.cluster_max_blocks cannot both be given (PTX's .reqnctapercluster and .maxclusterrank conflict)}}
  gpu.func @cluster_size_max() kernel attributes {known_cluster_size = array<i32: 2, 1, 1>, nvvm.cluster_max_blocks = 4 : i32} {
    gpu.return
  }
  // The limits themselves are fine.
  gpu.func @at_limits() kernel attributes {nvvm.maxntid = array<i32: 32, 32, 1>,
      nvvm.minctasm = 32 : i32, nvvm.maxnreg = 255 : i32, nvvm.cluster_dim = array<i32: 4, 2, 2>} {
    gpu.return
  }
  gpu.func @at_limits2() kernel attributes {nvvm.reqntid = array<i32: 1024>,
      nvvm.cluster_max_blocks = 16 : i32} {
    gpu.return
  }
}

// -----

// Inline asm: the string refers only to the op's outputs and inputs ('$5'
// with two aborted in the NVPTX AsmPrinter: "Invalid $ operand number").

gpu.module @asm {
  gpu.func @k(%x: i32) kernel {
    // expected-error @+1 {{'llvm.inline_asm' op '$5' refers to operand 5, but the op has 2 (1 output, 1 input)}}
    %a = llvm.inline_asm has_side_effects "mov.b32 $0, $5;", "=r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op '$-1' is not an operand reference ($N, ${N} or ${N:r}; write '$$' for a literal '$')}}
    %b = llvm.inline_asm has_side_effects "mov.b32 $0, $-1;", "=r,r" %x : (i32) -> i32
    // A clobber is not an operand.
    // expected-error @+1 {{'llvm.inline_asm' op '${2}' refers to operand 2, but the op has 2 (1 output, 1 input)}}
    %c = llvm.inline_asm has_side_effects "mov.b32 $0, ${2};", "=r,r,~{memory}" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op '$99999999999999999999' refers to operand 99999999999999999999, but the op has 2 (1 output, 1 input)}}
    %d = llvm.inline_asm has_side_effects "mov.b32 $0, $99999999999999999999;", "=r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op asm string ends with a lone '$' (write '$$' for a literal '$')}}
    %e = llvm.inline_asm has_side_effects "mov.b32 $0, $1; $", "=r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op '${1' is not an operand reference (${N} or ${N:r})}}
    %f = llvm.inline_asm has_side_effects "mov.b32 $0, ${1", "=r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op '${1:ab}' is not an operand reference (${N} or ${N:r})}}
    %g = llvm.inline_asm has_side_effects "mov.b32 $0, ${1:ab};", "=r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op '${1:c}': the NVPTX backend takes the modifier 'r', and 'c', 'n', 's' on immediate ('n', 'i') operands}}
    %h = llvm.inline_asm has_side_effects "mov.b32 $0, ${1:c};", "=r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op '${:foo}' is not ${:comment}, ${:private} or ${:uid}}}
    %i = llvm.inline_asm has_side_effects "mov.b32 $0, $1; ${:foo}", "=r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op nested '$(' in the asm string}}
    %j = llvm.inline_asm has_side_effects "$( $( $) mov.b32 $0, $1;", "=r,r" %x : (i32) -> i32
    gpu.return
  }
}

// -----

// Inline asm: constraints that match the op (a constraint without an
// operand was a segfault) and that the NVPTX backend takes ('m' was
// "Cannot select").

gpu.module @constraints {
  gpu.func @k(%x: i32, %p: !llvm.ptr<1>) kernel {
    // expected-error @+1 {{'llvm.inline_asm' op has 2 inputs in '=r,r,r' but 1 operand}}
    %a = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op has 2 outputs in '=r,=r,r' but returns 'i32' (no result for 0 outputs, one for 1, a struct of N for N)}}
    %b = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,=r,r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op has 1 output in '=r,r' but no result}}
    llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r" %x : (i32) -> ()
    // expected-error @+1 {{'llvm.inline_asm' op has 1 output in '=r,r' but returns '!llvm.struct<(i32)>'}}
    %c = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r" %x : (i32) -> !llvm.struct<(i32)>
    // expected-error @+1 {{'llvm.inline_asm' op cannot parse the constraints '=r,5'}}
    %d = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,5" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op constraints must list outputs, then inputs, then clobbers, got 'r,=r'}}
    %e = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "r,=r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op constraint 'm' is not one the NVPTX backend takes (b, c, h, r, l, N, q, f, d, n, i, or an output's index)}}
    %f = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,m" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op constraint '{r1}' is not one the NVPTX backend takes}}
    %g = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "={r1},r" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op indirect ('*') operands are not supported in PTX inline asm, got '=*m,r'}}
    llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;", "=*m,r" %p, %x : (!llvm.ptr<1>, i32) -> ()
    // expected-error @+1 {{'llvm.inline_asm' op label constraints ('!') need callbr, which llvm.inline_asm is not}}
    %h = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,!i" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op alternative constraints ('|') are not supported in PTX inline asm, got '=r,r|f'}}
    %i = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r|f" %x : (i32) -> i32
    // expected-error @+1 {{'llvm.inline_asm' op asm_dialect must be att (the default) for PTX}}
    %j = llvm.inline_asm has_side_effects asm_dialect = intel "mov.b32 $0, $1;", "=r,r" %x : (i32) -> i32
    gpu.return
  }
}
