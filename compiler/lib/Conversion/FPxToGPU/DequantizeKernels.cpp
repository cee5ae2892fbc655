//===- DequantizeKernels.cpp - kernel generator for fpx.dequantize --------===//
//
// Dequantization is memory bound: a thread loads the codes of 8 consecutive
// elements in one or a few loads (8 bytes of fp8, 4 of fp4x2, 6 of fp6),
// decodes them with integer ops, multiplies each by its block's fp32 factor
// (one scale load per 8 elements) and writes 16 bytes of bf16/f16 (or 32 of
// f32). Each thread keeps kUnroll vectors in flight. The arithmetic is that
// of the numerics core (numerics/lib/Quantize.cpp, `dequantize`): the exact
// decoded value times the exact (or, for NVFP4, fp32-rounded) scale, one fp32
// rounding, then one RNE rounding to bf16/f16.
//
//===----------------------------------------------------------------------===//
#include "DequantizeKernels.h"
#include "QuantizeKernelsInternal.h"
#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Numerics/Packing.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace fpx;
using P = arith::CmpIPredicate;

namespace {

/// 2^(c - 127) for an e8m0fnu code c (i32 in [0, 255]); NaN for 0xFF.
Value e8m0Factor(KernelBuilder &k, Value c) {
  Value bits = k.select(k.cmp(P::eq, c, k.c32(0)), k.c32(0x400000),
                        k.shl(c, k.c32(23)));
  bits = k.select(k.cmp(P::eq, c, k.c32(255)), k.c32(0x7fc00000), bits);
  return k.bitcast(bits, k.f32());
}

Type scaleStorage(KernelBuilder &k, DequantScale s) {
  switch (s) {
  case DequantScale::E8M0:
  case DequantScale::UE4M3:
    return k.i8();
  case DequantScale::F32:
    return k.f32();
  case DequantScale::BF16:
  case DequantScale::F16:
    return k.i16();
  }
  llvm_unreachable("scale kind");
}

/// The fp32 factor of a loaded scale.
Value scaleFactor(KernelBuilder &k, const DequantizePlan &plan, Value raw,
                  Value g) {
  switch (plan.scale) {
  case DequantScale::E8M0:
    return e8m0Factor(k, k.zext(raw, k.i32()));
  case DequantScale::UE4M3: {
    Value d = qk::decodeCode(k, num::ue4m3(), k.zext(raw, k.i32()));
    return g ? k.fmul(d, g) : d;
  }
  case DequantScale::F32:
    return raw;
  case DequantScale::BF16:
    return k.bitcast(k.shl(k.zext(raw, k.i32()), k.c32(16)), k.f32());
  case DequantScale::F16:
    return arith::ExtFOp::create(k.b, k.loc, k.f32(),
                                 k.bitcast(raw, k.b.getF16Type()));
  }
  llvm_unreachable("scale kind");
}

/// The raw words holding the 8 codes of vector v (flat elements 8v..8v+7).
SmallVector<Value> loadCodes(KernelBuilder &k, const DequantizePlan &plan,
                             Value in, Value v, Value cols, const qk::RowPos *pos) {
  std::optional<LayoutKind> pk = plan.packing;
  if (plan.elem.bits() <= 4 && pk == LayoutKind::fp4x2)
    return {k.load(k.i32(), k.gep(in, k.i32(), v), 4)};
  auto u16 = [&](Value byteOff) {
    return k.zext(k.load(k.i16(), k.gep(in, k.i8(), byteOff), 2), k.i32());
  };
  if (pk == LayoutKind::fp6_packed || pk == LayoutKind::fp6_interleaved) {
    // 6 bytes at 6v: two little-endian 24-bit words of 4 codes (for
    // fp6_interleaved: bytes b0 | b1 << 8 | b2 << 16 of each group).
    Value base = k.mul(v, k.c64(6));
    Value h0 = u16(base), h1 = u16(k.add(base, k.c64(2))),
          h2 = u16(k.add(base, k.c64(4)));
    Value lo = k.bor(h0, k.shl(k.band(h1, k.c32(0xff)), k.c32(16)));
    Value hi = k.bor(k.shru(h1, k.c32(8)), k.shl(h2, k.c32(8)));
    return {lo, hi};
  }
  if (pk == LayoutKind::fp6_planes) {
    // Per row of C codes: 2 high bits of code j in byte j/4, the 4 low bits
    // in byte C/4 + j/2 (even j in the low nibble). C % 8 == 0 keeps every
    // 16-bit load aligned. `pos`: v's row and vector in the row.
    Value row = k.zext(pos->row, k.i64()), j = k.mul(k.zext(pos->col, k.i64()), k.c64(8));
    Value rowBase = k.mul(row, k.divu(k.mul(cols, k.c64(3)), k.c64(4)));
    Value hi = u16(k.add(rowBase, k.divu(j, k.c64(4))));
    Value loBase = k.add(rowBase, k.add(k.divu(cols, k.c64(4)), k.divu(j, k.c64(2))));
    Value lo = k.bor(u16(loBase), k.shl(u16(k.add(loBase, k.c64(2))), k.c32(16)));
    return {hi, lo};
  }
  // One code per byte: 8 bytes.
  Type v2 = k.vec(2, k.i32());
  Value w = k.load(v2, k.gep(in, v2, v), 8);
  return {k.extract(w, 0), k.extract(w, 1)};
}

/// Code i (0..7) of a vector from its raw words; bits above the format's
/// width are left for decodeCode to ignore.
Value codeAt(KernelBuilder &k, const DequantizePlan &plan,
             ArrayRef<Value> words, int i) {
  std::optional<LayoutKind> pk = plan.packing;
  if (plan.elem.bits() <= 4 && pk == LayoutKind::fp4x2)
    return i ? k.shru(words[0], k.c32(4 * i)) : words[0];
  if (pk == LayoutKind::fp6_packed) {
    Value w = words[i / 4];
    return i % 4 ? k.shru(w, k.c32(6 * (i % 4))) : w;
  }
  if (pk == LayoutKind::fp6_interleaved) {
    // docs/formats.md: b0 = c0[5:2] c1[5:2], b1 = c3[5:2] c2[5:2],
    // b2 = c0[1:0] c1[1:0] c3[1:0] c2[1:0] (high bits first).
    const int *hiAt = num::kInterleavedHi, *loAt = num::kInterleavedLo;
    Value w = words[i / 4];
    int t = i % 4;
    Value hi = k.band(hiAt[t] < 2 ? k.shl(w, k.c32(2 - hiAt[t]))
                                  : k.shru(w, k.c32(hiAt[t] - 2)),
                      k.c32(0x3c));
    Value lo = k.band(k.shru(w, k.c32(loAt[t])), k.c32(3));
    return k.bor(hi, lo);
  }
  if (pk == LayoutKind::fp6_planes) {
    Value hi = k.band(k.shru(words[0], k.c32(2 * i)), k.c32(3));
    Value lo = k.band(k.shru(words[1], k.c32(4 * i)), k.c32(0xf));
    return k.bor(k.shl(hi, k.c32(4)), lo);
  }
  Value w = words[i / 4];
  return i % 4 ? k.shru(w, k.c32(8 * (i % 4))) : w;
}

} // namespace

KernelDesc fpx::buildDequantizeKernel(OpBuilder &b, Location loc,
                                      StringRef name,
                                      const DequantizePlan &plan) {
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx, 1);
  Type i64 = b.getI64Type();
  KernelDesc desc;
  SmallVector<Type> args = {ptr, ptr};
  desc.params = {"in", "scales"};
  using Global = DequantizePlan::Global;
  if (plan.global != Global::none) {
    args.push_back(ptr);
    desc.params.push_back(plan.global == Global::amax ? "amax" : "global_scale");
  }
  args.append({ptr, i64, i64});
  desc.params.append({"out", "total", "cols"});
  bool groupParam = plan.group == 0;
  if (groupParam) {
    args.push_back(i64);
    desc.params.push_back("group");
  }
  if (plan.matrixGlobal) {
    args.push_back(i64);
    desc.params.push_back("matrix");
  }
  auto f = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(args, {}));
  f->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  f->setAttr("nvvm.maxntid", b.getDenseI32ArrayAttr({int32_t(kThreads), 1, 1}));
  desc.func = f;
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  unsigned a = 0;
  Value in = entry.getArgument(a++), scales = entry.getArgument(a++);
  Value globalPtr = plan.global != Global::none ? entry.getArgument(a++) : Value();
  Value out = entry.getArgument(a++), total = entry.getArgument(a++),
        cols = entry.getArgument(a++);
  Value group = groupParam ? entry.getArgument(a++) : Value();
  Value matrix = plan.matrixGlobal ? entry.getArgument(a++) : Value();

  Value tid = k.threadIdx(), bid = k.blockIdx();
  Value nvec = k.divu(total, k.c64(kVec));
  if (matrix) // the CTA's elements lie in one matrix
    globalPtr = k.gep(globalPtr, k.f32(), qk::ctaMatrix(k, bid, matrix));
  Value g = globalPtr ? k.load(k.f32(), globalPtr, 4) : Value();
  if (plan.global == Global::amax)
    g = qk::nvfp4GlobalScale(k, g);
  Type st = scaleStorage(k, plan.scale);
  unsigned sBytes = st.getIntOrFloatBitWidth() / 8;
  Value tensorFactor;
  if (plan.group < 0)
    tensorFactor = scaleFactor(k, plan, k.load(st, scales, sBytes), g);

  // Every code and scale load of the kUnroll vectors first, so that they
  // are all in flight together. The 4+2 layout and blocked scales want each
  // vector's row: found in 32-bit arithmetic once, then stepped.
  Value v0 = k.add(k.mul(bid, k.c64(kUnroll * kThreads)), tid);
  bool rows = plan.blockedScales || plan.packing == LayoutKind::fp6_planes;
  SmallVector<qk::RowPos> pos;
  if (rows)
    pos = qk::rowPositions(k, v0, kThreads, kUnroll, k.divu(cols, k.c64(kVec)));
  SmallVector<Value> vs, oks, rawScales;
  SmallVector<SmallVector<Value>> words;
  for (int64_t u = 0; u < kUnroll; ++u) {
    Value v = k.add(v0, k.c64(u * kThreads));
    Value ok = k.cmp(P::ult, v, nvec);
    v = k.select(ok, v, k.c64(0));
    vs.push_back(v);
    oks.push_back(ok);
    qk::RowPos at;
    if (rows) // vector 0 for one past the end, as v
      at = {k.select(ok, pos[u].row, k.c32(0)), k.select(ok, pos[u].col, k.c32(0))};
    words.push_back(loadCodes(k, plan, in, v, cols, rows ? &at : nullptr));
    if (plan.group < 0)
      continue;
    Value sIdx;
    if (plan.blockedScales) {
      Value bk = k.c64(plan.group);
      sIdx = qk::blockedOffset(k, k.zext(at.row, k.i64()),
                               k.divu(k.mul(k.zext(at.col, k.i64()), k.c64(kVec)), bk),
                               k.divu(cols, bk));
    } else if (plan.group > 0) {
      sIdx = k.divu(v, k.c64(plan.group / kVec));
    } else {
      sIdx = k.divu(k.mul(v, k.c64(kVec)), group);
    }
    rawScales.push_back(k.load(st, k.gep(scales, st, sIdx), sBytes));
  }

  for (int64_t u = 0; u < kUnroll; ++u) {
    Value factor = plan.group < 0 ? tensorFactor
                                  : scaleFactor(k, plan, rawScales[u], g);
    SmallVector<Value> ys;
    for (int i = 0; i < kVec; ++i)
      ys.push_back(k.fmul(qk::decodeCode(k, plan.elem, codeAt(k, plan, words[u], i)),
                          factor));
    Value v = vs[u], ok = oks[u];
    if (plan.outElem.isF32()) {
      Type v4 = k.vec(4, k.f32());
      for (int h = 0; h < 2; ++h)
        k.storeIf(ok, k.vector(ArrayRef<Value>(ys).slice(4 * h, 4)),
                  k.gep(out, v4, k.add(k.mul(v, k.c64(2)), k.c64(h))), 16);
      continue;
    }
    // Pairs rounded to nearest even by one cvt.rn.{bf16x2,f16x2}.f32.
    SmallVector<Value> packed;
    Type half2 = k.vec(2, plan.outElem);
    for (int p = 0; p < 4; ++p) {
      Value pair = k.vector({ys[2 * p], ys[2 * p + 1]});
      Value h = arith::TruncFOp::create(b, loc, half2, pair);
      packed.push_back(LLVM::BitcastOp::create(b, loc, k.i32(), h));
    }
    Type v4 = k.vec(4, k.i32());
    k.storeIf(ok, k.vector(packed), k.gep(out, v4, v), 16);
  }
  gpu::ReturnOp::create(b, loc);
  return desc;
}
