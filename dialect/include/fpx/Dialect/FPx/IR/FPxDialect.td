//===- FPxDialect.td - the fpx dialect ---------------------*- tablegen -*-===//
#ifndef FPX_DIALECT_FPX_IR_FPXDIALECT_TD
#define FPX_DIALECT_FPX_IR_FPXDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def FPx_Dialect : Dialect {
  let name = "fpx";
  let cppNamespace = "::fpx";
  let summary = "Low-precision floating-point quantization, packing and scaled matmul";
  let description = [{
    The `fpx` dialect describes the kernels that low-precision training and
    inference need: quantize/dequantize over FPx formats (FP8, FP6, FP4, and
    any `e<E>m<M>`), block scales (MX, NVFP4, blockwise FP8) with their scale
    rules, bit packing (fp4x2, fp6 4+2), the scale layouts tensor cores read,
    random Hadamard transforms, and scaled / grouped matmuls.

    Ops have value semantics on tensors. A kernel spec is a `func.func` whose
    body uses these ops; fpxc fuses them and lowers them to GPU kernels. The
    bit-level meaning of every format, rounding and layout is defined once in
    the numerics core and documented in `docs/formats.md`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Adds the attributes (defined in FPxAttrs.cpp with their storage).
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

class FPx_Op<string mnemonic, list<Trait> traits = []>
    : Op<FPx_Dialect, mnemonic, traits>;

class FPx_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<FPx_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // FPX_DIALECT_FPX_IR_FPXDIALECT_TD
