//===- Lowerings.h - the op families of fpx-convert-to-gpu ------*- C++ -*-===//
//
// One populate...Lowerings entry per op family, each defined in its own file
// of lib/Conversion/FPxToGPU beside the family's kernel generators; the
// driver (FPxToGPU.cpp) calls each once. A new family (e.g. the GEMMs,
// fpx.scaled_matmul and fpx.grouped_matmul) adds a file, a declaration here
// and one line in the driver's populateOpLowerings.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_LOWERINGS_H
#define FPX_CONVERSION_FPXTOGPU_LOWERINGS_H

#include "fpx/Conversion/FPxToGPU/LoweringContext.h"

namespace fpx {

/// fpx.quantize (row, per-row, column and 2-D block casts) and the planners
/// that fuse an fpx.amax or fpx.global_scale into a cast
/// (QuantizeOpToGPU.cpp).
void populateQuantizeOpLowerings(OpLoweringSet &set);
/// fpx.dequantize (DequantizeOpToGPU.cpp).
void populateDequantizeOpLowerings(OpLoweringSet &set);
/// fpx.amax and fpx.global_scale (AmaxOpToGPU.cpp).
void populateAmaxOpLowerings(OpLoweringSet &set);
/// fpx.pack, fpx.unpack and fpx.swizzle_scales (LayoutOpToGPU.cpp).
void populateLayoutOpLowerings(OpLoweringSet &set);
/// fpx.hadamard (HadamardOpToGPU.cpp).
void populateHadamardOpLowerings(OpLoweringSet &set);
/// fpx.scaled_matmul: weight-only linears (MatmulOpToGPU.cpp), fp8 x fp8
/// (ScaledMatmulOpToGPU.cpp); fpx.grouped_matmul (GroupedMatmulOpToGPU.cpp).
void populateMatmulOpLowerings(OpLoweringSet &set);

// The amax family's pieces a cast uses where it reduces or stores them itself
// (AmaxOpToGPU.cpp).

/// The tensor amax kernel's grid for `total` elements.
std::string amaxGrid(const std::string &total);
/// The shape of fpx.amax's result over `in`: none, or one value per matrix
/// (a static count the input's matrix count must match: a requirement).
llvm::SmallVector<std::string> amaxShape(LoweringContext &c, AmaxOp op, const Buffer &in);
/// Reduces max |x| of `in` (of element type `inElem`, after a random
/// Hadamard transform of size `hadamard` if nonzero) into a new scalar
/// temporary; returns its name.
std::string addTensorAmax(LoweringContext &c, mlir::Location loc, const Buffer &in,
                          mlir::Type inElem, int64_t hadamard, uint64_t hadamardSeed);
/// A kernel storing NVFP4's global scale of `amax` in `out`: one thread,
/// or one per value of a per-matrix amax; `grid` 0 launches nothing.
void addGlobalScaleLaunch(LoweringContext &c, mlir::Location loc, const Buffer &amax,
                          const std::string &out, const std::string &grid);

} // namespace fpx

#endif // FPX_CONVERSION_FPXTOGPU_LOWERINGS_H
