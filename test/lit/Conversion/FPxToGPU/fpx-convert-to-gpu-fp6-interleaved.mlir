// RUN: fpx-opt %s -split-input-file -fpx-convert-to-gpu | FileCheck %s

// torchao #1810's interleaved 4+2 (docs/formats.md). It has the density of
// fp6_packed and takes its path: no row arithmetic, a thread's 8 codes become
// 6 bytes at 6v, written as one 16-bit and one 32-bit store (2-byte aligned);
// the low 2 bits of codes 0..3 land at bits 22, 20, 16, 18 of a group's
// 24-bit word, the high 4 bits at 4, 0, 8, 12.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: outputs = [{dtype = "u8", name = "result0", shape = ["arg0_0", "arg0_1/4*3"]}
// CHECK-SAME: {expr = "arg0_1 % 4", message = "fp6 4-in-3 packing needs the innermost dimension of arg0 to be a multiple of 4"}
// CHECK: gpu.func @q_quantize0(
// CHECK-NOT: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK-DAG: arith.constant 22 : i64
// CHECK-DAG: arith.constant 18 : i64
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i32, !llvm.ptr<1>
// CHECK: gpu.return
func.func @q(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// -----

// The fused unpack-dequantize: the packed dimension must split into 3-byte
// groups and unpacks to 4/3 of it; three 16-bit loads per 8 codes, no row
// arithmetic, the bits regrouped in registers, 16-byte bf16 stores.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: outputs = [{dtype = "bf16", name = "result0", shape = ["arg0_0", "arg0_1/3*4"]}]
// CHECK-SAME: {expr = "arg0_1 % 3", message = "the innermost dimension of arg0 (fp6 packed 4 in 3 bytes) must be a multiple of 3"}
// CHECK: gpu.func @dq_dequantize0(
// CHECK-NOT: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK-DAG: arith.constant 22 : i32
// CHECK-DAG: arith.constant 60 : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: gpu.return
func.func @dq(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}

// -----

// fpx.pack / fpx.unpack: 8 codes a thread either way.
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: kernel = "pk_pack0"
// CHECK-SAME: outputs = [{dtype = "u8", name = "result0", shape = ["arg0_0", "arg0_1/4*3"]}]
// CHECK-SAME: requires = [{expr = "arg0_1 % 8"
// CHECK-SAME: {expr = "arg0_1 % 4", message = "the innermost dimension of arg0 does not split into fp6 groups"}
// CHECK: gpu.func @pk_pack0(
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr<1>
// CHECK-LABEL: gpu.module @fpx_kernels
// CHECK-SAME: kernel = "uk_unpack0"
// CHECK-SAME: outputs = [{dtype = "u8", name = "result0", shape = ["arg0_0", "arg0_1/3*4"]}]
// CHECK: gpu.func @uk_unpack0(
// CHECK-COUNT-3: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
func.func @pk(%q: tensor<?x?xf6E3M2FN>) -> tensor<?x?xi8> {
  %p = fpx.pack %q {layout = #fpx.layout<fp6_interleaved>} : tensor<?x?xf6E3M2FN> -> tensor<?x?xi8>
  return %p : tensor<?x?xi8>
}

// -----

func.func @uk(%p: tensor<?x?xi8>) -> tensor<?x?xf6E3M2FN> {
  %q = fpx.unpack %p {layout = #fpx.layout<fp6_interleaved>} : tensor<?x?xi8> -> tensor<?x?xf6E3M2FN>
  return %q : tensor<?x?xf6E3M2FN>
}
