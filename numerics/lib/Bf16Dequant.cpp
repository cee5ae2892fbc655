//===- Bf16Dequant.cpp - exact block-scaled codes -> bf16 programs --------===//
//
// The programs of Bf16Dequant.h, their interpreter and their PTX text.
//
//===----------------------------------------------------------------------===//
#include "fpx/Numerics/Bf16Dequant.h"
#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Format.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

using namespace fpx::num;

namespace {

DqOperand R(uint32_t r) { return {false, r}; }
DqOperand I(uint32_t v) { return {true, v}; }

/// A program under construction: registers handed out in order.
struct Builder {
  DqProgram p;
  Builder(unsigned inputs, unsigned outputs) {
    p.inputs = inputs;
    p.outputs = outputs;
    p.regs = inputs + outputs;
  }
  uint32_t temp() { return p.regs++; }
  uint32_t out(unsigned i) const { return p.inputs + i; }
  void op(DqOp::Kind k, uint32_t d, DqOperand a, DqOperand b = {}, DqOperand c = {},
          uint8_t lut = 0) {
    p.ops.push_back({k, d, a, b, c, lut});
  }
};

// lop3 truth tables (a = 0xF0, b = 0xCC, c = 0xAA).
constexpr uint8_t kSelectAC = 0xE4; // (a & c) | (b & ~c)
constexpr uint8_t kAndOr = 0xEA;    // (a & b) | c

DqProgram makeFp8(bool e5m2) {
  Builder b(3, 2); // (w, f1, f2) -> (pair 0, pair 1)
  const uint32_t w = 0, f1 = 1, f2 = 2;
  uint32_t m = b.temp(), n = b.temp(), nb = b.temp(), z = b.temp();
  b.op(DqOp::And, m, R(w), I(0x7f7f7f7f)); // magnitudes
  // Bit 7 of byte i of n: code i is NaN (e4m3 S.1111.111) or inf / NaN (e5m2
  // S.11111.xx); no carry leaves a byte.
  if (e5m2) {
    b.op(DqOp::And, n, R(w), I(0x7c7c7c7c));
    b.op(DqOp::Add, n, R(n), I(0x04040404));
  } else {
    b.op(DqOp::Add, n, R(m), I(0x01010101));
  }
  b.op(DqOp::Prmt, nb, R(n), I(0), I(0xBA98)); // 0xFF bytes where flagged
  // z byte i: code i's sign, with 0x7f (the exponent's upper bits) where
  // it is special.
  b.op(DqOp::Lop3, z, R(w), R(nb), I(0x80808080), kSelectAC);
  for (unsigned pair = 0; pair < 2; ++pair) {
    // Bytes 2 pair, 2 pair + 1 to the upper bytes of the two halves.
    uint32_t sel = pair ? 0x3424 : 0x1404;
    uint32_t x = b.temp(), y = b.temp();
    b.op(DqOp::Prmt, x, R(m), I(0), I(sel));
    // e4m3 E.MMM to bf16 bits 7-10 . 4-6; e5m2 E.MM to bits 7-11 . 5-6.
    b.op(DqOp::Shr, x, R(x), I(e5m2 ? 3 : 4));
    b.op(DqOp::Prmt, y, R(z), I(0), I(sel));
    b.op(DqOp::Or, x, R(x), R(y));
    b.op(DqOp::MulBf, x, R(x), R(f1));
    b.op(DqOp::MulBf, b.out(pair), R(x), R(f2));
  }
  return b.p;
}

DqProgram makeE2m1() {
  Builder b(3, 4); // (w, f1, f2) -> pairs (j, j + 4), j = 0..3
  const uint32_t w = 0, f1 = 1, f2 = 2;
  for (unsigned j = 0; j < 4; ++j) {
    uint32_t x = b.temp(), y = b.temp();
    // Code j's E.EM (bits 4j..4j+2) to bf16 bits 6-8 of the low half (code
    // j + 4's to the high half's); its sign (bit 4j + 3) to bit 15.
    int sx = 6 - 4 * int(j), sy = 12 - 4 * int(j);
    b.op(sx >= 0 ? DqOp::Shl : DqOp::Shr, x, R(w), I(uint32_t(std::abs(sx))));
    if (sy > 0)
      b.op(DqOp::Shl, y, R(w), I(uint32_t(sy)));
    b.op(DqOp::And, y, R(sy > 0 ? y : w), I(0x80008000));
    b.op(DqOp::Lop3, x, R(x), I(0x01c001c0), R(y), kAndOr);
    b.op(DqOp::MulBf, x, R(x), R(f1));
    b.op(DqOp::MulBf, b.out(j), R(x), R(f2));
  }
  return b.p;
}

DqProgram makeE8m0(bool e5m2) {
  Builder b(1, 2); // e -> (f1, f2)
  const uint32_t e = 0;
  uint32_t t = b.temp(), u = b.temp(), v = b.temp();
  // f1 = 2^(min(e, 127) - 127 + R): bf16 exponent field min(e, 127) + R.
  b.op(DqOp::Min, t, R(e), I(127));
  b.op(DqOp::Add, t, R(t), I(uint32_t(dequantRebias(e5m2 ? 5 : 4))));
  b.op(DqOp::Shl, t, R(t), I(7));
  b.op(DqOp::MulLo, b.out(0), R(t), I(0x00010001));
  // f2 = 2^(max(e, 127) - 127): field max(e, 127); 0xFF: 0x7fc0 (NaN).
  b.op(DqOp::Max, u, R(e), I(127));
  b.op(DqOp::Shl, u, R(u), I(7));
  b.op(DqOp::Add, v, R(e), I(1));
  b.op(DqOp::Shr, v, R(v), I(2));
  b.op(DqOp::And, v, R(v), I(0x40));
  b.op(DqOp::Or, u, R(u), R(v));
  b.op(DqOp::MulLo, b.out(1), R(u), I(0x00010001));
  return b.p;
}

DqProgram makeE4m3Scale() {
  Builder b(1, 2); // u -> (f1 = 2^126, f2 = u's e4m3 value)
  const uint32_t u = 0;
  uint32_t m = b.temp(), r = b.temp(), k = b.temp(), n = b.temp(), sg = b.temp();
  b.op(DqOp::Mov, b.out(0), I(0x7e807e80)); // 2^126
  b.op(DqOp::And, m, R(u), I(0x7f));
  // The e4m3 rebias (2^-120) of the magnitude with its sign at bit 15, in
  // both halves, then times 2^120: exact.
  b.op(DqOp::Shl, r, R(m), I(4));
  b.op(DqOp::And, sg, R(u), I(0x80));
  b.op(DqOp::Shl, sg, R(sg), I(8));
  b.op(DqOp::Or, r, R(r), R(sg));
  b.op(DqOp::MulLo, r, R(r), I(0x00010001));
  b.op(DqOp::Mov, k, I(0x7b807b80)); // 2^120
  b.op(DqOp::MulBf, r, R(r), R(k));
  // The NaN code S.1111.111: 0x7f80 ORed into each half.
  b.op(DqOp::Add, n, R(m), I(1));
  b.op(DqOp::And, n, R(n), I(0x80));
  b.op(DqOp::MulLo, n, R(n), I(0x00ff00ff));
  b.op(DqOp::Or, b.out(1), R(r), R(n));
  return b.p;
}

/// Round-to-nearest-even bf16 bits of an exact double (subnormals, inf).
uint16_t toBf16(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x))
    return 0x7fff;
  double ax = std::fabs(x);
  if (ax == 0)
    return sign;
  if (std::isinf(ax))
    return sign | 0x7f80;
  int ex;
  (void)std::frexp(ax, &ex); // ax = f 2^ex, f in [0.5, 1)
  int E = ex - 1;            // ax in [2^E, 2^(E+1))
  if (E < -126) {
    double q = std::nearbyint(std::ldexp(ax, 133)); // units of 2^-133
    return sign | uint16_t(q);                      // 128: the least normal
  }
  double q = std::nearbyint(std::ldexp(ax, 7 - E)); // 128 .. 256
  if (q == 256) {
    q = 128;
    ++E;
  }
  if (E + 127 >= 255)
    return sign | 0x7f80;
  return sign | uint16_t(((E + 127) << 7) | (uint32_t(q) - 128));
}

uint32_t mulBf16x2(uint32_t a, uint32_t b) {
  uint32_t out = 0;
  for (int h = 0; h < 2; ++h) {
    double p = double(bf16ToFloat(uint16_t(a >> 16 * h))) * double(bf16ToFloat(uint16_t(b >> 16 * h)));
    out |= uint32_t(toBf16(p)) << 16 * h;
  }
  return out;
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
  uint64_t bytes = (uint64_t(b) << 32) | a;
  uint32_t out = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t s = (sel >> 4 * i) & 0xF;
    uint32_t byte = uint32_t(bytes >> 8 * (s & 7)) & 0xFF;
    if (s & 8) // sign replication
      byte = (byte & 0x80) ? 0xFF : 0;
    out |= byte << 8 * i;
  }
  return out;
}

uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint8_t lut) {
  uint32_t out = 0;
  for (int i = 0; i < 32; ++i) {
    unsigned idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
    out |= uint32_t((lut >> idx) & 1) << i;
  }
  return out;
}

} // namespace

int fpx::num::dequantRebias(int ebits) {
  // bf16's bias less the code format's (the formats' one owner: Format.h).
  for (const Format *f : {&e4m3fn(), &e5m2(), &e2m1fn()})
    if (f->ebits == ebits)
      return bf16().bias - f->bias;
  throw std::invalid_argument("dequantRebias: no program for codes of this exponent width");
}

const DqProgram &fpx::num::fp8ToBf16Program(bool e5m2) {
  static const DqProgram e4 = makeFp8(false), e5 = makeFp8(true);
  return e5m2 ? e5 : e4;
}
const DqProgram &fpx::num::e2m1ToBf16Program() {
  static const DqProgram p = makeE2m1();
  return p;
}
const DqProgram &fpx::num::e8m0FactorsProgram(bool e5m2) {
  static const DqProgram e4 = makeE8m0(false), e5 = makeE8m0(true);
  return e5m2 ? e5 : e4;
}
const DqProgram &fpx::num::e4m3ScaleFactorsProgram() {
  static const DqProgram p = makeE4m3Scale();
  return p;
}

std::vector<uint32_t> fpx::num::run(const DqProgram &p, const std::vector<uint32_t> &in) {
  if (in.size() != p.inputs)
    throw std::invalid_argument("run: wrong number of inputs");
  std::vector<uint32_t> r(p.regs, 0);
  for (unsigned i = 0; i < p.inputs; ++i)
    r[i] = in[i];
  auto val = [&](DqOperand o) { return o.imm ? o.v : r[o.v]; };
  for (const DqOp &op : p.ops) {
    uint32_t a = val(op.a), b = val(op.b), c = val(op.c), d = 0;
    switch (op.kind) {
    case DqOp::And: d = a & b; break;
    case DqOp::Or: d = a | b; break;
    case DqOp::Add: d = a + b; break;
    case DqOp::Shl: d = b >= 32 ? 0 : a << b; break;
    case DqOp::Shr: d = b >= 32 ? 0 : a >> b; break;
    case DqOp::Min: d = a < b ? a : b; break;
    case DqOp::Max: d = a > b ? a : b; break;
    case DqOp::MulLo: d = a * b; break;
    case DqOp::Prmt: d = prmt(a, b, c); break;
    case DqOp::Lop3: d = lop3(a, b, c, op.lut); break;
    case DqOp::Mov: d = a; break;
    case DqOp::MulBf: d = mulBf16x2(a, b); break;
    }
    r[op.d] = d;
  }
  return std::vector<uint32_t>(r.begin() + p.inputs, r.begin() + p.inputs + p.outputs);
}

std::string fpx::num::ptxText(const DqProgram &p) {
  auto reg = [&](uint32_t i) {
    if (i < p.inputs)
      return "$" + std::to_string(p.outputs + i);
    if (i < p.inputs + p.outputs)
      return "$" + std::to_string(i - p.inputs);
    return "%dq" + std::to_string(i - p.inputs - p.outputs);
  };
  auto opd = [&](DqOperand o) {
    if (!o.imm)
      return reg(o.v);
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", o.v);
    return std::string(buf);
  };
  std::string s = "{\n";
  unsigned temps = p.regs - p.inputs - p.outputs;
  if (temps)
    s += ".reg .b32 %dq<" + std::to_string(temps) + ">;\n";
  for (const DqOp &op : p.ops) {
    std::string d = reg(op.d), a = opd(op.a), b = opd(op.b), c = opd(op.c);
    switch (op.kind) {
    case DqOp::And: s += "and.b32 " + d + ", " + a + ", " + b; break;
    case DqOp::Or: s += "or.b32 " + d + ", " + a + ", " + b; break;
    case DqOp::Add: s += "add.u32 " + d + ", " + a + ", " + b; break;
    case DqOp::Shl: s += "shl.b32 " + d + ", " + a + ", " + std::to_string(op.b.v); break;
    case DqOp::Shr: s += "shr.u32 " + d + ", " + a + ", " + std::to_string(op.b.v); break;
    case DqOp::Min: s += "min.u32 " + d + ", " + a + ", " + b; break;
    case DqOp::Max: s += "max.u32 " + d + ", " + a + ", " + b; break;
    case DqOp::MulLo: s += "mul.lo.u32 " + d + ", " + a + ", " + b; break;
    case DqOp::Prmt: s += "prmt.b32 " + d + ", " + a + ", " + b + ", " + c; break;
    case DqOp::Lop3:
      s += "lop3.b32 " + d + ", " + a + ", " + b + ", " + c + ", " + std::to_string(op.lut);
      break;
    case DqOp::Mov: s += "mov.b32 " + d + ", " + a; break;
    case DqOp::MulBf: s += "mul.rn.bf16x2 " + d + ", " + a + ", " + b; break;
    }
    s += ";\n";
  }
  return s + "}";
}
