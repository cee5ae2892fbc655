// RUN: fpxc compile %examples/wo_mxfp6_linear.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefix=MX6
// RUN: fpxc compile %examples/wo_fp6_linear.mlir --target sm_80 --emit ptx -o - | FileCheck %s --check-prefix=FP6
// RUN: fpxc compile %examples/wo_fp5_linear.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefix=FP5

// docs/examples/wo_{mxfp6,fp6,fp5}_linear.mlir: the weight-only GEMM's
// prologue for 6- and 5-bit weights in PTX. A lane's unit of weights is
// staged in shared memory by cp.async (four 16-byte copies of the low
// nibbles, four 8-byte (fp6) or 4-byte (fp5) copies of the high plane) and
// read back with ld.shared; the codes are reassembled
// and decoded by shifts and logic ops (no branch, no table: no ld.global of
// a table, no selp on the weight path), one bf16x2 / f16x2 multiply
// rebiases; mma.sync takes the pairs.

// MX6-LABEL: .visible .entry wo_mxfp6_linear_wo_decode0(
// MX6-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16;
// MX6-COUNT-4: cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 8;
// MX6: ld.shared.v4.b32
// MX6: ld.shared.v2.b32
// MX6: mul{{(.rn)?}}.bf16x2
// MX6: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MX6: .entry wo_mxfp6_linear_wo_decode1(

// FP6: .target sm_80
// FP6-LABEL: .visible .entry wo_fp6_linear_wo_decode0(
// FP6-COUNT-4: cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 8;
// FP6: mul{{(.rn)?}}.f16x2
// FP6: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// FP5-LABEL: .visible .entry wo_fp5_linear_wo_decode0(
// FP5-COUNT-4: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16;
// FP5-COUNT-4: cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 4;
// FP5: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
