// fpx.convert of bf16 values (the form the bf16 cast kernels hand packed
// pairs in), for test/gpu/ConvertBf16Test.cpp: every bf16 pair, i.e. all
// 2^32 32-bit words. sm_90a emulates e2m1 with packed bf16x2 arithmetic,
// sm_80 widens to f32 for the scalar emulation, sm_100a widens for the
// native cvt.
//
// Kernel @cvt_e2m1fn_rn_bf16(out, base), thread gid (1-D grid):
//   words    w0 = trunc_i32(base + 2*gid), w1 = w0 + 1 (two bf16 each, the
//            low half first), one fpx.convert vector<4xbf16> -> i16
//   output   out + gid: i16, code of value j (w0.lo, w0.hi, w1.lo, w1.hi)
//            in bits [4j+3:4j]
// Kernels @cvt_e2m3fn_rn_bf16, @cvt_e3m2fn_rn_bf16: the same with an i32
// output, code j in byte j.
module attributes {gpu.container_module} {
  gpu.module @fpx_kernels {
    gpu.func @cvt_e2m1fn_rn_bf16(%out: !llvm.ptr<1>, %base: i64) kernel attributes {fpx.kernel = {block = [256, 1, 1], grid = ["1", "1", "1"], params = [{name = "out", type = "ptr"}, {name = "base", type = "i64"}], shared_bytes = 0 : i64}} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2_i64 = arith.constant 2 : i64
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.index_castui %tid : index to i64
      %bi = arith.index_castui %bid : index to i64
      %bd = arith.index_castui %bdim : index to i64
      %bb = arith.muli %bi, %bd : i64
      %gid = arith.addi %bb, %t : i64
      %off = arith.muli %gid, %c2_i64 : i64
      %first = arith.addi %base, %off : i64
      %w0 = arith.trunci %first : i64 to i32
      %w1 = arith.addi %w0, %c1 : i32
      %u2 = llvm.mlir.undef : vector<2xi32>
      %v0 = llvm.insertelement %w0, %u2[%c0 : i32] : vector<2xi32>
      %v1 = llvm.insertelement %w1, %v0[%c1 : i32] : vector<2xi32>
      %x = llvm.bitcast %v1 : vector<2xi32> to vector<4xbf16>
      %code = fpx.convert %x {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rn>} : vector<4xbf16> -> i16
      %p = llvm.getelementptr %out[%gid] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
      llvm.store %code, %p {alignment = 2 : i64} : i16, !llvm.ptr<1>
      gpu.return
    }
    gpu.func @cvt_e2m3fn_rn_bf16(%out: !llvm.ptr<1>, %base: i64) kernel attributes {fpx.kernel = {block = [256, 1, 1], grid = ["1", "1", "1"], params = [{name = "out", type = "ptr"}, {name = "base", type = "i64"}], shared_bytes = 0 : i64}} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2_i64 = arith.constant 2 : i64
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.index_castui %tid : index to i64
      %bi = arith.index_castui %bid : index to i64
      %bd = arith.index_castui %bdim : index to i64
      %bb = arith.muli %bi, %bd : i64
      %gid = arith.addi %bb, %t : i64
      %off = arith.muli %gid, %c2_i64 : i64
      %first = arith.addi %base, %off : i64
      %w0 = arith.trunci %first : i64 to i32
      %w1 = arith.addi %w0, %c1 : i32
      %u2 = llvm.mlir.undef : vector<2xi32>
      %v0 = llvm.insertelement %w0, %u2[%c0 : i32] : vector<2xi32>
      %v1 = llvm.insertelement %w1, %v0[%c1 : i32] : vector<2xi32>
      %x = llvm.bitcast %v1 : vector<2xi32> to vector<4xbf16>
      %code = fpx.convert %x {format = #fpx.format<e2m3fn>, rounding = #fpx.rounding<rn>} : vector<4xbf16> -> i32
      %p = llvm.getelementptr %out[%gid] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
      llvm.store %code, %p {alignment = 4 : i64} : i32, !llvm.ptr<1>
      gpu.return
    }
    gpu.func @cvt_e3m2fn_rn_bf16(%out: !llvm.ptr<1>, %base: i64) kernel attributes {fpx.kernel = {block = [256, 1, 1], grid = ["1", "1", "1"], params = [{name = "out", type = "ptr"}, {name = "base", type = "i64"}], shared_bytes = 0 : i64}} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2_i64 = arith.constant 2 : i64
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %t = arith.index_castui %tid : index to i64
      %bi = arith.index_castui %bid : index to i64
      %bd = arith.index_castui %bdim : index to i64
      %bb = arith.muli %bi, %bd : i64
      %gid = arith.addi %bb, %t : i64
      %off = arith.muli %gid, %c2_i64 : i64
      %first = arith.addi %base, %off : i64
      %w0 = arith.trunci %first : i64 to i32
      %w1 = arith.addi %w0, %c1 : i32
      %u2 = llvm.mlir.undef : vector<2xi32>
      %v0 = llvm.insertelement %w0, %u2[%c0 : i32] : vector<2xi32>
      %v1 = llvm.insertelement %w1, %v0[%c1 : i32] : vector<2xi32>
      %x = llvm.bitcast %v1 : vector<2xi32> to vector<4xbf16>
      %code = fpx.convert %x {format = #fpx.format<e3m2fn>, rounding = #fpx.rounding<rn>} : vector<4xbf16> -> i32
      %p = llvm.getelementptr %out[%gid] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
      llvm.store %code, %p {alignment = 4 : i64} : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}
