//===- LayoutKernels.cpp - standalone pack/unpack/swizzle/hadamard ---------===//
//
// Byte-level layout kernels: each is a permutation of bits (or the Hadamard
// transform), with the bit layouts of numerics/include/fpx/Numerics/Packing.h.
//
//===----------------------------------------------------------------------===//
#include "LayoutKernels.h"
#include "KernelBuilder.h"
#include "QuantizeKernelsInternal.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace fpx;
using P = arith::CmpIPredicate;

namespace {
struct Kernel {
  KernelDesc desc;
  Block *entry;
};
Kernel begin(OpBuilder &b, Location loc, StringRef name,
             ArrayRef<std::pair<const char *, Type>> params) {
  SmallVector<Type> types;
  KernelDesc desc;
  for (auto &[n, t] : params) {
    types.push_back(t);
    desc.params.push_back(n);
  }
  desc.func = qk::makeKernel(b, loc, name, types);
  Block *entry = &desc.func.getBody().front();
  b.setInsertionPointToStart(entry);
  return {desc, entry};
}
} // namespace

KernelDesc fpx::buildSwizzleKernel(OpBuilder &b, Location loc, StringRef name) {
  OpBuilder::InsertionGuard guard(b);
  Type ptr = LLVM::LLVMPointerType::get(b.getContext(), 1), i64 = b.getI64Type();
  Kernel kn = begin(b, loc, name, {{"in", ptr}, {"out", ptr}, {"rows", i64},
                                   {"cols", i64}, {"total", i64}});
  KernelBuilder k(b, loc);
  Value in = kn.entry->getArgument(0), out = kn.entry->getArgument(1),
        rows = kn.entry->getArgument(2), cols = kn.entry->getArgument(3),
        total = kn.entry->getArgument(4);
  Value o = k.add(k.mul(k.blockIdx(), k.c64(kThreads)), k.threadIdx());
  Value ok = k.cmp(P::ult, o, total);
  // Inverse of numerics blockedOffset: tile-major 128x4 tiles, each tile 32
  // rows of 16 bytes where (r, c) sits at (r % 32) * 16 + (r % 128 / 32) * 4 + c % 4.
  Value tilesPerRow = k.divu(k.add(cols, k.c64(3)), k.c64(4));
  Value tile = k.divu(o, k.c64(512)), inTile = k.remu(o, k.c64(512));
  Value r = k.add(k.add(k.mul(k.divu(tile, tilesPerRow), k.c64(128)),
                        k.mul(k.divu(k.remu(inTile, k.c64(16)), k.c64(4)), k.c64(32))),
                  k.divu(inTile, k.c64(16)));
  Value c = k.add(k.mul(k.remu(tile, tilesPerRow), k.c64(4)), k.remu(inTile, k.c64(4)));
  Value inside = k.land(k.cmp(P::ult, r, rows), k.cmp(P::ult, c, cols));
  Value src = k.select(inside, k.add(k.mul(r, cols), c), k.c64(0));
  Value byte = k.load(k.i8(), k.gep(in, k.i8(), src), 1);
  byte = k.select(inside, byte, k.cInt(k.i8(), 0));
  k.storeIf(ok, byte, k.gep(out, k.i8(), o), 1);
  gpu::ReturnOp::create(b, loc);
  return kn.desc;
}

KernelDesc fpx::buildGroupedSwizzleKernel(OpBuilder &b, Location loc, StringRef name) {
  OpBuilder::InsertionGuard guard(b);
  Type ptr = LLVM::LLVMPointerType::get(b.getContext(), 1), i64 = b.getI64Type();
  Kernel kn = begin(b, loc, name, {{"in", ptr}, {"offsets", ptr}, {"out", ptr},
                                   {"rows", i64}, {"cols", i64}, {"groups", i64},
                                   {"total", i64}});
  KernelBuilder k(b, loc);
  Block *e = kn.entry;
  Value in = e->getArgument(0), offsets = e->getArgument(1), out = e->getArgument(2),
        rows = e->getArgument(3), cols = e->getArgument(4), groups = e->getArgument(5),
        total = e->getArgument(6);
  Value o = k.add(k.mul(k.blockIdx(), k.c64(kThreads)), k.threadIdx());
  Value ok = k.cmp(P::ult, o, total);
  // Output byte o: tile-row t of 128x4 tiles, row rt of it, column c (as
  // buildSwizzleKernel). A CTA's 256 bytes are half of one tile, so its
  // threads look up the same group, walking the group ends together
  // (broadcast loads): group g takes cdiv(n_g, 128) tile rows from the
  // sum of the tile rows of the groups before it (num::groupBlockedRowStarts).
  Value tilesPerRow = k.divu(k.add(cols, k.c64(3)), k.c64(4));
  Value tile = k.divu(o, k.c64(512)), inTile = k.remu(o, k.c64(512));
  Value t = k.divu(tile, tilesPerRow);
  Value rt = k.add(k.mul(k.divu(k.remu(inTile, k.c64(16)), k.c64(4)), k.c64(32)),
                   k.divu(inTile, k.c64(16)));
  Value c = k.add(k.mul(k.remu(tile, tilesPerRow), k.c64(4)), k.remu(inTile, k.c64(4)));
  Value zero = k.c64(0);
  // Carried: tile rows before group g, the end row of group g - 1, and for
  // the group holding t (once found) its first input row at t and its end.
  auto loop = scf::ForOp::create(b, loc, zero, groups, k.c64(1),
                                 ValueRange{zero, zero, zero, zero});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value g0 = loop.getInductionVar();
    auto it = loop.getRegionIterArgs();
    Value before = it[0], prevEnd = it[1], base = it[2], end = it[3];
    Value gEnd = arith::ExtSIOp::create(b, loc, i64,
                                        k.load(k.i32(), k.gep(offsets, k.i32(), g0), 4));
    // Ends that go backwards make an empty group (the caller checks them).
    Value n = k.select(k.cmp(P::sgt, gEnd, prevEnd), k.sub(gEnd, prevEnd), zero);
    Value nTiles = k.divu(k.add(n, k.c64(127)), k.c64(128));
    Value here = k.land(k.cmp(P::uge, t, before), k.cmp(P::ult, t, k.add(before, nTiles)));
    base = k.select(here, k.add(prevEnd, k.mul(k.sub(t, before), k.c64(128))), base);
    end = k.select(here, gEnd, end);
    scf::YieldOp::create(b, loc, ValueRange{k.add(before, nTiles),
                                            k.select(k.cmp(P::sgt, gEnd, prevEnd), gEnd,
                                                     prevEnd),
                                            base, end});
  }
  // Past every group (and where a group's tiles end past its rows) the
  // byte is padding: end stays 0 there.
  Value r = k.add(loop.getResult(2), rt);
  Value inside = k.land(k.land(k.cmp(P::ult, r, loop.getResult(3)), k.cmp(P::ult, r, rows)),
                        k.cmp(P::ult, c, cols));
  Value src = k.select(inside, k.add(k.mul(r, cols), c), zero);
  Value byte = k.load(k.i8(), k.gep(in, k.i8(), src), 1);
  byte = k.select(inside, byte, k.cInt(k.i8(), 0));
  k.storeIf(ok, byte, k.gep(out, k.i8(), o), 1);
  gpu::ReturnOp::create(b, loc);
  return kn.desc;
}

KernelDesc fpx::buildPackKernel(OpBuilder &b, Location loc, StringRef name,
                                LayoutKind layout, const num::Format &fmt) {
  OpBuilder::InsertionGuard guard(b);
  Type ptr = LLVM::LLVMPointerType::get(b.getContext(), 1), i64 = b.getI64Type();
  Kernel kn = begin(b, loc, name, {{"in", ptr}, {"out", ptr}, {"total", i64},
                                   {"cols", i64}});
  KernelBuilder k(b, loc);
  Value in = kn.entry->getArgument(0), out = kn.entry->getArgument(1),
        total = kn.entry->getArgument(2), cols = kn.entry->getArgument(3);
  Value v = k.add(k.mul(k.blockIdx(), k.c64(kThreads)), k.threadIdx());
  Value ok = k.cmp(P::ult, v, k.divu(total, k.c64(kVec)));
  Value codes = k.load(k.i64(), k.gep(in, k.i64(), k.select(ok, v, k.c64(0))), 8);
  QuantizePlan plan;
  plan.elem = fmt;
  plan.packing = layout;
  if (layout == LayoutKind::fp4x2) { // 8 bytes -> 8 nibbles, element 0 low
    Value w = k.c64(0);
    for (int i = 0; i < 8; ++i)
      w = k.bor(w, k.shl(k.band(k.shru(codes, k.c64(8 * i)), k.c64(0xf)), k.c64(4 * i)));
    codes = k.trunc(w, k.i32());
  }
  qk::storeCodes(k, plan, out, v, codes, ok, cols);
  gpu::ReturnOp::create(b, loc);
  return kn.desc;
}

KernelDesc fpx::buildUnpackKernel(OpBuilder &b, Location loc, StringRef name,
                                  LayoutKind layout) {
  OpBuilder::InsertionGuard guard(b);
  Type ptr = LLVM::LLVMPointerType::get(b.getContext(), 1), i64 = b.getI64Type();
  Kernel kn = begin(b, loc, name, {{"in", ptr}, {"out", ptr}, {"total", i64},
                                   {"cols", i64}});
  KernelBuilder k(b, loc);
  Value in = kn.entry->getArgument(0), out = kn.entry->getArgument(1),
        total = kn.entry->getArgument(2), cols = kn.entry->getArgument(3);
  Value v = k.add(k.mul(k.blockIdx(), k.c64(kThreads)), k.threadIdx());
  Value ok = k.cmp(P::ult, v, k.divu(total, k.c64(kVec)));
  Value vs = k.select(ok, v, k.c64(0));
  auto ld = [&](Type t, Value byteOff, unsigned align) {
    return k.zext(k.load(t, k.gep(in, k.i8(), byteOff), align), k.i64());
  };
  SmallVector<Value> c(8);
  if (layout == LayoutKind::fp4x2) {
    Value w = ld(k.i32(), k.mul(vs, k.c64(4)), 4);
    for (int i = 0; i < 8; ++i)
      c[i] = k.band(k.shru(w, k.c64(4 * i)), k.c64(0xf));
  } else if (layout == LayoutKind::fp6_packed) {
    // two little-endian 24-bit words at 6v, read as three 2-byte halves
    Value base = k.mul(vs, k.c64(6));
    Value w = k.bor(ld(k.i16(), base, 2),
                    k.bor(k.shl(ld(k.i16(), k.add(base, k.c64(2)), 2), k.c64(16)),
                          k.shl(ld(k.i16(), k.add(base, k.c64(4)), 2), k.c64(32))));
    for (int i = 0; i < 8; ++i)
      c[i] = k.band(k.shru(w, k.c64(6 * i)), k.c64(0x3f));
  } else if (layout == LayoutKind::fp6_4p2) {
    Value flat = k.mul(vs, k.c64(8));
    Value row = k.divu(flat, cols), j = k.remu(flat, cols);
    Value rowBase = k.mul(row, k.divu(k.mul(cols, k.c64(3)), k.c64(4)));
    Value hi = ld(k.i16(), k.add(rowBase, k.divu(j, k.c64(4))), 2);
    Value lo = ld(k.i32(), k.add(rowBase, k.add(k.divu(cols, k.c64(4)), k.divu(j, k.c64(2)))), 4);
    for (int i = 0; i < 8; ++i)
      c[i] = k.bor(k.shl(k.band(k.shru(hi, k.c64(2 * i)), k.c64(3)), k.c64(4)),
                   k.band(k.shru(lo, k.c64(4 * i)), k.c64(0xf)));
  } else { // fp6_byte: codes are already one per byte
    Value w = ld(k.i64(), k.mul(vs, k.c64(8)), 8);
    for (int i = 0; i < 8; ++i)
      c[i] = k.band(k.shru(w, k.c64(8 * i)), k.c64(0x3f));
  }
  Value w = k.c64(0);
  for (int i = 0; i < 8; ++i)
    w = k.bor(w, k.shl(c[i], k.c64(8 * i)));
  k.storeIf(ok, w, k.gep(out, k.i64(), v), 8);
  gpu::ReturnOp::create(b, loc);
  return kn.desc;
}

KernelDesc fpx::buildHadamardKernel(OpBuilder &b, Location loc, StringRef name,
                                    Type elem, int64_t size, uint64_t seed) {
  OpBuilder::InsertionGuard guard(b);
  Type ptr = LLVM::LLVMPointerType::get(b.getContext(), 1), i64 = b.getI64Type();
  Kernel kn = begin(b, loc, name, {{"in", ptr}, {"out", ptr}, {"total", i64}});
  KernelBuilder k(b, loc);
  Value in = kn.entry->getArgument(0), out = kn.entry->getArgument(1),
        total = kn.entry->getArgument(2);
  // One vector per thread, no early exit: the butterflies shuffle across the
  // lanes of a transform block, so every lane stays to the end.
  Value v = k.add(k.mul(k.blockIdx(), k.c64(kThreads)), k.threadIdx());
  Value ok = k.cmp(P::ult, v, k.divu(total, k.c64(kVec)));
  SmallVector<Value> xs = qk::loadVec8(k, elem, in, k.select(ok, v, k.c64(0)));
  qk::applyHadamard(k, xs, v, size, seed);
  if (elem.isF32()) {
    Type v4 = k.vec(4, k.f32());
    for (int h = 0; h < 2; ++h)
      k.storeIf(ok, k.vector(ArrayRef<Value>(xs).slice(4 * h, 4)),
                k.gep(out, v4, k.add(k.mul(v, k.c64(2)), k.c64(h))), 16);
  } else {
    SmallVector<Value> words;
    for (int i = 0; i < 8; i += 2) {
      SmallVector<Value> halves;
      for (int h = 0; h < 2; ++h) {
        Value x = xs[i + h];
        Value bits;
        if (elem.isBF16()) {
          // RNE to bf16; NaN -> 0x7fff as the numerics core's floatToBf16
          Value u = k.bitcast(x, k.i32());
          Value lsb = k.band(k.shru(u, k.c32(16)), k.c32(1));
          Value r = k.shru(k.add(k.add(u, k.c32(0x7fff)), lsb), k.c32(16));
          Value nan = k.cmp(P::ugt, k.band(u, k.c32(0x7fffffff)), k.c32(0x7f800000));
          bits = k.select(nan, k.c32(0x7fff), r);
        } else {
          Value h16 = arith::TruncFOp::create(b, loc, b.getF16Type(), x);
          bits = k.zext(k.bitcast(h16, k.i16()), k.i32());
          Value nan = k.fcmp(arith::CmpFPredicate::UNO, x, x);
          bits = k.select(nan, k.c32(0x7fff), bits);
        }
        halves.push_back(bits);
      }
      words.push_back(k.bor(halves[0], k.shl(halves[1], k.c32(16))));
    }
    Type v4 = k.vec(4, k.i32());
    k.storeIf(ok, k.vector(words), k.gep(out, v4, v), 16);
  }
  gpu::ReturnOp::create(b, loc);
  return kn.desc;
}
