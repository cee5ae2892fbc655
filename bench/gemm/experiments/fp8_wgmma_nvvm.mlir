// fp8_wgmma_nvvm.mlir - the sm_90a building blocks of fp8_wgmma.cu as MLIR 22
// NVVM ops: a compile check for the lowering (issue 39), not a kernel. Each
// op once, in the order the kernel uses them; no control flow.
//
// Check (CPU machine, Debian's MLIR 22.1.8, CUDA 13.0 ptxas):
//   mlir-opt fp8_wgmma_nvvm.mlir --convert-nvvm-to-llvm \
//     | mlir-translate --mlir-to-llvmir -o /tmp/b.ll
//   llc -march=nvptx64 -mcpu=sm_90a -mattr=+ptx86 /tmp/b.ll -o /tmp/b.ptx
//   ptxas -arch=sm_90a -v /tmp/b.ptx -o /tmp/b.cubin
// See NOTES.md ("fp8_wgmma", MLIR side) for what each step showed.
!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
module {
  llvm.func @fp8_wgmma_blocks(%tmap: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant, llvm.align = 64 : i64}, %smem: !llvm.ptr<3>, %bar: !llvm.ptr<3>,
                              %descA: i64, %descB: i64, %stage: !llvm.ptr<3>,
                              %x0: i32, %x1: i32, %x2: i32, %x3: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c8 = llvm.mlir.constant(8 : i32) : i32
    %c128 = llvm.mlir.constant(128 : i32) : i32
    %tx = llvm.mlir.constant(32768 : i32) : i32
    %ticks = llvm.mlir.constant(1000000 : i32) : i32
    nvvm.prefetch tensormap, %tmap : !llvm.ptr
    nvvm.mbarrier.init %bar, %c8 : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    nvvm.setmaxregister decrease 40
    nvvm.setmaxregister increase 232
    %leader = nvvm.elect.sync -> i1
    nvvm.mbarrier.arrive.expect_tx %bar, %tx : !llvm.ptr<3>, i32
    nvvm.cp.async.bulk.tensor.shared.cluster.global %smem, %tmap, %bar, box[%c0, %c1] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
    %smem7 = llvm.addrspacecast %smem : !llvm.ptr<3> to !llvm.ptr<7>
    nvvm.cp.async.bulk.tensor.shared.cluster.global %smem7, %tmap, %bar, box[%c0, %c1] : !llvm.ptr<7>, !llvm.ptr
    nvvm.mbarrier.try_wait.parity %bar, %c0, %ticks : !llvm.ptr<3>, i32, i32
    %undef = llvm.mlir.undef : !acc
    nvvm.wgmma.fence.aligned
    %r = nvvm.wgmma.mma_async %descA, %descB, %undef, #nvvm.shape<m = 64, n = 128, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>] : !acc -> !acc
    %r2 = nvvm.wgmma.mma_async %descA, %descB, %r, #nvvm.shape<m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>] : !acc -> !acc
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 1
    nvvm.wgmma.wait.group.sync.aligned 0
    %st = nvvm.mbarrier.arrive %bar : !llvm.ptr<3> -> i64
    %v = llvm.extractvalue %r2[0] : !acc
    %vi = llvm.bitcast %v : f32 to i32
    nvvm.stmatrix %stage, %vi, %x1, %x2, %x3 {layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : !llvm.ptr<3>, i32, i32, i32, i32
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    nvvm.barrier id = %c1 number_of_threads = %c128
    nvvm.cp.async.bulk.tensor.global.shared.cta %tmap, %stage, box[%c0, %c0] : !llvm.ptr, !llvm.ptr<3>
    nvvm.cp.async.bulk.commit.group
    nvvm.cp.async.bulk.wait_group 0 {read}
    llvm.return
  }
}
