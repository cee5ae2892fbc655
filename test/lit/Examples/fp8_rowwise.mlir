// RUN: fpxc compile %examples/fp8_rowwise.mlir --target sm_90a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/fp8_rowwise.mlir --target sm_100a --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: fpxc compile %examples/fp8_rowwise.mlir --target sm_80 --emit ptx -o - | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: rm -rf %t && mkdir -p %t && fpxc compile %examples/fp8_rowwise.mlir --target sm_90a -o %t/rw
// RUN: FileCheck %s --check-prefix=JSON < %t/rw.json

// docs/examples/fp8_rowwise.mlir: one scale a row, four kernels of which
// each launch runs one (the others' grids are 0). Rows of up to 2048
// elements: the row's vectors are loaded once (16 bytes each) by a team of
// threads, its amax reduced by a butterfly over the team's lanes and across
// the team's warps through shared memory (8 floats, one barrier), then
// converted from registers: native cvt on sm_90a and sm_100a, the exact
// integer emulation on sm_80. The grid: one CTA for 32 >> t rows (teams of
// 8 << t threads). Longer rows, up to 224 KiB on sm_90a (96 KiB on sm_80),
// are staged whole in dynamic shared memory by cp.async, two rows a CTA up
// to 4096 elements, else one; rows of more than half that keep their last
// 2048 vectors (8 a thread) in registers and stage the first ones, up to
// the budget, reading up to 4096 between twice; where the staged part fills
// the budget, one CTA an SM (sm_count) casts every G-th row, copying the
// next row in while it converts; longer rows are read twice by teams of
// 256.

// CHECK: .extern .shared .align 16 .b8 fp8_rowwise_quantize_rsl3_row[];
// CHECK: .extern .shared .align 16 .b8 fp8_rowwise_quantize_rsh1_row[];
// CHECK-LABEL: .visible .entry fp8_rowwise_quantize_r0(
// CHECK: .shared .align 16 .b8 fp8_rowwise_quantize_r0_amax[32];
// CHECK: ld.global.v{{2.b64|4.b32}}
// CHECK: ld.global.v{{2.b64|4.b32}}
// CHECK: ld.global.v{{2.b64|4.b32}}
// CHECK: ld.global.v{{2.b64|4.b32}}
// SM90: max.NaN.xorsign.abs.bf16x2
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0;
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: cvt.rn.satfinite
// CHECK: st.global.b64

// CHECK-LABEL: .visible .entry fp8_rowwise_quantize_rsh1(
// CHECK: .shared .align 16 .b8 fp8_rowwise_quantize_rsh1_amax[32];
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.wait_all;
// CHECK: bar.sync 0;
// CHECK: ld.shared.v4.b32
// SM90: max.NaN.xorsign.abs.bf16x2
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.v4.b32
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: cvt.rn.satfinite
// CHECK: st.global.b64

// The long-row kernel: each thread copies its own vectors of a row's first
// part and loads its 8 of the last 2048, waits for its own copies (no
// barrier before the amax), one barrier for the row amax, then converts
// the registers' vectors and the staged ones four a trip, copying the next
// row's into their places (where one CTA an SM casts every G-th row: rows
// whose staged part fills the budget).
// CHECK-LABEL: .visible .entry fp8_rowwise_quantize_rsl3(
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: ld.global.v{{2.b64|4.b32}}
// CHECK: cp.async.wait_all;
// CHECK-NOT: bar.sync
// CHECK: ld.shared.v4.b32
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync
// SM90: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.global.b64
// CHECK: ld.shared.v4.b32
// CHECK: ld.shared.v4.b32
// CHECK: ld.shared.v4.b32
// CHECK: ld.shared.v4.b32
// CHECK: st.global.b64
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;

// JSON: "kernel": "fp8_rowwise_quantize_r0"
// JSON: "kernel": "fp8_rowwise_quantize_rsh1"
// JSON: "kernel": "fp8_rowwise_quantize_rsp2"
// JSON: "kernel": "fp8_rowwise_quantize_rsl3"
// JSON: "dtype": "f32",
// JSON: "shape": [
// JSON-NEXT: "arg0_0",
// JSON-NEXT: "1"
// JSON: "grid": [
// JSON-NEXT: "cdiv(arg0_0, 32/(1+min(1,((arg0_1)/8-1)/32))/(1+min(1,((arg0_1)/8-1)/64))/(1+min(1,((arg0_1)/8-1)/128))/(1+3*min(1,((arg0_1)/8-1)/256)))*(1-(min(1,(((arg0_1)/8)-1)/512)*(1-min(1,(((arg0_1)/8)-1)/7168))*(1-min(1,(((arg0_1)/8)*16-1)/229376)))-(min(1,(((arg0_1)/8)-1)/256)*(1-min(1,(((arg0_1)/8)-1)/512))*(1-min(1,(2*((arg0_1)/8)*16-1)/229376)))-(min(1,(((arg0_1)/8)-1)/7168)*(1-min(1,(((arg0_1)/8)-1)/20480))))",
// JSON: "shared_bytes": 0
// JSON: "grid": [
// JSON-NEXT: "arg0_0*(min(1,(((arg0_1)/8)-1)/512)*(1-min(1,(((arg0_1)/8)-1)/7168))*(1-min(1,(((arg0_1)/8)*16-1)/229376)))",
// JSON: "shared_bytes": "16*((arg0_1)/8)"
// JSON: "grid": [
// JSON-NEXT: "(cdiv(arg0_0, 2))*(min(1,(((arg0_1)/8)-1)/256)*(1-min(1,(((arg0_1)/8)-1)/512))*(1-min(1,(2*((arg0_1)/8)*16-1)/229376)))",
// JSON: "shared_bytes": "32*((arg0_1)/8)"
// JSON: "grid": [
// JSON-NEXT: "((arg0_0-(16*min(((arg0_1)/8)-2048,14336))/229376*(arg0_0-min(arg0_0, sm_count))))*(min(1,(((arg0_1)/8)-1)/7168)*(1-min(1,(((arg0_1)/8)-1)/20480)))",
// JSON: "shared_bytes": "16*min(((arg0_1)/8)-2048,14336)"
