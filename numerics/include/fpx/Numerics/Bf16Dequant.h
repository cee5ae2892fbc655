//===- Bf16Dequant.h - block-scaled codes -> bf16 as PTX -------*- C++ -*-===//
//
// The dequantization the sm_90a bf16 scaled GEMM (ScaledMatmulKernels.h,
// plan.bf16Mma) runs on each operand on its way from the fp8 (or fp4) TMA
// stage into the bf16 shared-memory tile that its wgmma reads: MXFP8 codes
// (e4m3, e5m2) times their E8M0 block scale, NVFP4 codes (e2m1) times their
// e4m3 (ue4m3) block scale. The sequences are data (a Program of 32-bit
// integer and bf16x2 operations): the kernel emits a Program as inline PTX
// (ptxText) and the unit test runs the same Program here (run) against
// num::decode for every code and every scale code, so the model is the
// kernel's bit sequence.
//
// A word of codes becomes bf16 pairs in two steps:
// - the rebias: a code's exponent and mantissa bits are moved into a bf16's
//   low exponent bits, which is the code's value times 2^-R (R = 120 for
//   e4m3, 112 for e5m2, 126 for e2m1), subnormal codes included (a
//   subnormal code lands on a bf16 subnormal of the same scale); the sign
//   goes to bit 15. NaN codes (e4m3 S.1111.111) and e5m2's inf / NaN set the
//   bf16 exponent to all ones (their mantissa kept: inf stays inf). No
//   branches, no tables.
// - two mul.rn.bf16x2 by the scale factors f1, f2 of the code's block: MX
//   f1 = 2^(min(e, 127) - 127 + R), f2 = 2^(max(e, 127) - 127) (one factor
//   2^(e - 127 + R) would overflow bf16); e = 0xFF gives f2 NaN. NVFP4
//   f1 = 2^126, f2 = the e4m3 scale as a bf16 (exact; its NaN codes NaN).
// Exact wherever the dequantized value is a normal fp32: bf16 has fp32's
// exponent range and a code times a power of two (MX) or an e2m1 code
// times an e4m3 value (4 significant bits at most) fits its 8-bit
// significand; a product below 2^-126 is rounded to a bf16 subnormal (or 0)
// and one past bf16's largest finite becomes inf.
//
// Element order: fp8 words keep theirs (bytes 0, 1 -> pair 0; 2, 3 -> pair
// 1). An e2m1 word (8 nibbles, element i at bits 4i..4i+3) gives pair j =
// (element j, element j + 4): the GEMM writes both operands in that order,
// a permutation of K inside each 8-element group that both share.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_NUMERICS_BF16DEQUANT_H
#define FPX_NUMERICS_BF16DEQUANT_H

#include <cstdint>
#include <string>
#include <vector>

namespace fpx::num {

/// An operand: a register of the program or a 32-bit immediate.
struct DqOperand {
  bool imm = false;
  uint32_t v = 0; ///< register index, or the immediate
};

/// One PTX instruction of a Program.
struct DqOp {
  enum Kind {
    And,   ///< and.b32 d, a, b
    Or,    ///< or.b32 d, a, b
    Add,   ///< add.u32 d, a, b
    Shl,   ///< shl.b32 d, a, b (b immediate)
    Shr,   ///< shr.u32 d, a, b (b immediate)
    Min,   ///< min.u32 d, a, b
    Max,   ///< max.u32 d, a, b
    MulLo, ///< mul.lo.u32 d, a, b
    Prmt,  ///< prmt.b32 d, a, b, c (c the selector, immediate)
    Lop3,  ///< lop3.b32 d, a, b, c, lut
    Mov,   ///< mov.b32 d, a
    MulBf, ///< mul.rn.bf16x2 d, a, b (both registers)
  } kind;
  uint32_t d;
  DqOperand a, b, c;
  uint8_t lut = 0;
};

/// Registers 0 .. inputs - 1 are the inputs, then the outputs, then
/// temporaries.
struct DqProgram {
  unsigned inputs = 0, outputs = 0, regs = 0;
  std::vector<DqOp> ops;
};

/// fp8 codes: inputs (word of 4 codes, f1, f2), outputs (pair of bytes 0, 1;
/// pair of bytes 2, 3) as bf16x2 words. `e5m2`: else e4m3.
const DqProgram &fp8ToBf16Program(bool e5m2);
/// e2m1 codes: inputs (word of 8 codes, f1, f2), outputs four bf16x2 words
/// (pair j = elements j, j + 4).
const DqProgram &e2m1ToBf16Program();
/// MX scale factors: input an E8M0 code (0..255), outputs (f1, f2) as
/// bf16x2 words (both halves equal) for codes of rebias 2^-R (R =
/// dequantRebias(e5m2 ? 5 : 4)).
const DqProgram &e8m0FactorsProgram(bool e5m2);
/// NVFP4 scale factors: input an e4m3 scale code (the op's scale type;
/// NVFP4's are non-negative, ue4m3), outputs (f1 = 2^126, f2 = its value
/// as bf16, sign included; its NaN codes NaN) as bf16x2 words.
const DqProgram &e4m3ScaleFactorsProgram();

/// The rebias R of the codes of a format with `ebits` exponent bits: bf16's
/// bias less the format's (4: e4m3, 120; 5: e5m2, 112; 2: e2m1, 126).
int dequantRebias(int ebits);

/// Runs `p` on `in` (p.inputs words); returns its p.outputs words. The
/// bf16x2 multiply rounds to nearest even with subnormals, as
/// mul.rn.bf16x2 does.
std::vector<uint32_t> run(const DqProgram &p, const std::vector<uint32_t> &in);

/// `p` as inline PTX in braces: inputs $outputs.., outputs $0..; scratch
/// registers %dq<n> declared inside.
std::string ptxText(const DqProgram &p);

} // namespace fpx::num

#endif // FPX_NUMERICS_BF16DEQUANT_H
