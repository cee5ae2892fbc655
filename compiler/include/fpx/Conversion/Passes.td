//===- Passes.td - fpx conversions -------------------------*- tablegen -*-===//
#ifndef FPX_CONVERSION_PASSES_TD
#define FPX_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def FPxConvertToGPU : Pass<"fpx-convert-to-gpu", "mlir::ModuleOp"> {
  let summary = "Turn each kernel spec function into gpu kernels and a launch plan";
  let description = [{
    Every `func.func` of fpx ops on tensors becomes kernels in one
    `gpu.module @fpx_kernels`, one `gpu.func` per op (after fusion).
    Kernels take global pointers (`!llvm.ptr<1>`) and i64 extents; their
    launch geometry and the function's tensors, shapes and launches are
    recorded as attributes (`fpx.kernel`, `fpx.functions`) that fpxc writes
    into the artifact's JSON metadata. The spec function is erased.

    Element conversions are emitted as `fpx.convert`, still target-neutral.
    `chip` (optional) lets the kernels use packed bf16x2 instructions the
    target has beyond sm_80's (`max/min.xorsign.abs.bf16x2` for block
    maxima and clamps); without it they use sm_80's.

    Before:
    ```mlir
    func.func @f(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
      %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} : ...
      return %q, %s : ...
    }
    ```
    After:
    ```mlir
    gpu.module @fpx_kernels attributes {fpx.functions = [ {name = "f", ...} ]} {
      gpu.func @f_amax0(%x: !llvm.ptr<1>, ...) kernel attributes {fpx.kernel = {...}} { ... }
      gpu.func @f_quantize1(...) kernel { ... fpx.convert ... }
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"\"",
           "target chip from the target table (empty: sm_80's instructions)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::math::MathDialect", "::fpx::FPxDialect"];
}

def FPxLegalizeFormats : Pass<"fpx-legalize-formats", "mlir::ModuleOp"> {
  let summary = "Lower fpx.convert to native cvt or exact integer emulation per target";
  let description = [{
    Looks up `chip` in the target table. Where the target has the
    conversion (`cvt.rn.satfinite.e4m3x2.f32` from sm_89, e2m1x2/e2m3x2/
    e3m2x2 on sm_100a/sm_120a, `cvt.rs` on sm_100a/sm_103a) it emits that
    instruction as inline PTX, swapping operands because `cvt` puts its
    first operand in the HIGH half; elsewhere it emits integer arithmetic
    that gives the same bits. With `allow-emulation=false` a conversion the
    target lacks is an error at the op's location.

    Before:
    ```mlir
    %c = fpx.convert %v {format = #fpx.format<e4m3fn>, rounding = #fpx.rounding<rn>} : vector<2xf32> -> i16
    ```
    After (sm_90a):
    ```mlir
    %c = llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "=h,f,f" %a, %b : (f32, f32) -> i16
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90a\"", "target chip from the target table">,
    Option<"allowEmulation", "allow-emulation", "bool", "true",
           "emulate conversions the target lacks (else error)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // FPX_CONVERSION_PASSES_TD
