// RUN: fpx-opt %s -fpx-verify-kernels | FileCheck %s --check-prefix=IR
// RUN: fpxc compile %s --target sm_90a --emit ptx -o - | FileCheck %s

// Kernel-level input that the NVPTX backend takes passes unchanged: the
// inline PTX fpxc's own kernels use (prmt, cvt.rn.satfinite, mad.lo,
// max.NaN.xorsign, mul.rz, cp.async), '$$', ${N} and ${N:r}, an immediate
// with ${N:n}, several outputs, a tied input, a clobber, and launch
// attributes at their limits.

// IR-LABEL: gpu.func @fpx_asm
// IR-SAME: nvvm.maxntid = array<i32: 1024, 1, 1>
// IR: llvm.inline_asm "prmt.b32 $0, $1, $2, 0x5410;", "=r,r,r"
// IR: llvm.inline_asm has_side_effects "cp.async.ca.shared.global [$0], [$1], 16;", "l,l"

// CHECK: .visible .entry fpx_asm(
// CHECK: .maxntid 1024, 1, 1
// CHECK: .minnctapersm 2
// CHECK: prmt.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0x5410;
// CHECK: cvt.rn.satfinite.e4m3x2.f32 {{%rs[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: mad.lo.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4, {{%r[0-9]+}};
// CHECK: max.NaN.xorsign.abs.bf16x2 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: mul.rz.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f00800000;
// CHECK: cp.async.ca.shared.global [{{%rd[0-9]+}}], [{{%rd[0-9]+}}], 16;
// CHECK: cp.async.wait_all;
// CHECK: add.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, -7; // $ and $$
// CHECK: mov.b32 {{%r[0-9]+}}, {{%r[0-9]+}}; mov.b32 {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: .visible .entry $k$1()
// CHECK: .reqntid 32, 4, 8
// CHECK: .maxnreg 255
// CHECK: .explicitcluster
// CHECK: .reqnctapercluster 4, 2, 2
// CHECK: .visible .entry _k()
// CHECK: .maxclusterrank 16

module attributes {gpu.container_module} {
  gpu.module @fpx_kernels {
    gpu.func @fpx_asm(%out: !llvm.ptr<1>, %in: !llvm.ptr<1>, %smem: !llvm.ptr<3>, %x: i32, %y: i32)
        kernel attributes {nvvm.maxntid = array<i32: 1024, 1, 1>, nvvm.minctasm = 2 : i32} {
      %f = llvm.bitcast %x : i32 to f32
      %g = llvm.bitcast %y : i32 to f32
      %p = llvm.inline_asm "prmt.b32 $0, $1, $2, 0x5410;", "=r,r,r" %x, %y : (i32, i32) -> i32
      %c = llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "=h,f,f" %f, %g : (f32, f32) -> i16
      %cz = llvm.zext %c : i16 to i32
      %m = llvm.inline_asm "mad.lo.u32 $0, $1, 4, $2;", "=r,r,r" %p, %cz : (i32, i32) -> i32
      %n = llvm.inline_asm "max.NaN.xorsign.abs.bf16x2 $0, $1, $2;", "=r,r,r" %m, %x : (i32, i32) -> i32
      %nf = llvm.bitcast %n : i32 to f32
      %z = llvm.inline_asm "mul.rz.f32 $0, $1, 0f00800000;", "=f,f" %nf : (f32) -> f32
      %zi = llvm.bitcast %z : f32 to i32
      %sp = llvm.ptrtoint %smem : !llvm.ptr<3> to i64
      %ip = llvm.ptrtoint %in : !llvm.ptr<1> to i64
      llvm.inline_asm has_side_effects "cp.async.ca.shared.global [$0], [$1], 16;", "l,l" %sp, %ip : (i64, i64) -> ()
      llvm.inline_asm has_side_effects "cp.async.wait_all;", "~{memory}" : () -> ()
      %seven = llvm.mlir.constant(7 : i32) : i32
      %imm = llvm.inline_asm "add.u32 ${0:r}, ${1}, ${2:n}; // $$ and $$$$", "=r,r,n" %zi, %seven : (i32, i32) -> i32
      %two = llvm.inline_asm "$(mov.b32 $0, $2; mov.b32 $1, $3;$)", "=r,=r,0,r" %imm, %x : (i32, i32) -> !llvm.struct<(i32, i32)>
      %t0 = llvm.extractvalue %two[0] : !llvm.struct<(i32, i32)>
      %t1 = llvm.extractvalue %two[1] : !llvm.struct<(i32, i32)>
      %sum = llvm.add %t0, %t1 : i32
      llvm.store %sum, %out : i32, !llvm.ptr<1>
      gpu.return
    }
    gpu.func @"$k$1"() kernel attributes {nvvm.reqntid = array<i32: 32, 4, 8>, nvvm.maxnreg = 255 : i32,
        nvvm.cluster_dim = array<i32: 4, 2, 2>} {
      gpu.return
    }
    gpu.func @_k() kernel attributes {nvvm.cluster_max_blocks = 16 : i32} {
      gpu.return
    }
  }
}
