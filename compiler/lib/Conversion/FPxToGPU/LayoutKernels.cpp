//===- LayoutKernels.cpp - standalone pack/unpack/swizzle/hadamard ---------===//
//
// Byte-level layout kernels: each is a permutation of bits (or the Hadamard
// transform), with the bit layouts of numerics/include/fpx/Numerics/Packing.h.
//
//===----------------------------------------------------------------------===//
#include "LayoutKernels.h"
#include "QuantizeKernelsInternal.h"
#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Numerics/Packing.h"

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

/// The input rows of band t of a grouped blocked swizzle's result, found by
/// the whole CTA (num::groupBlockedRowStarts): group g takes cdiv(n_g, 128)
/// bands after those of the groups before it. The CTA reads the group ends
/// 256 at a time and scans them (warps by shuffles, then across warps by 8
/// words in shared memory `scratch`, 18 words): the largest end so far (a
/// group whose end goes backwards is empty; the caller checks them) and the
/// bands so far. The thread whose group holds t writes the band's first
/// input row and group end to scratch[16..17]; (0, 0) past every group.
static std::pair<Value, Value> groupBand(KernelBuilder &k, Value scratch, Value ends,
                                         Value groups, Value t, Value tid) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Type i64 = b.getI64Type();
  Value zero = k.c64(0), zero32 = k.c32(0);
  Value lane = k.trunc(k.remu(tid, k.c64(32)), k.i32()), warp = k.divu(tid, k.c64(32));
  auto word = [&](int64_t i) { return k.gep(scratch, k.i32(), k.c64(i)); };
  Value first = k.cmp(P::eq, tid, zero);
  k.storeIf(first, zero32, word(16), 4);
  k.storeIf(first, zero32, word(17), 4);
  auto scan = [&](Value v, auto combine) {
    for (int off = 1; off < 32; off *= 2)
      v = k.select(k.cmp(P::uge, lane, k.c32(off)), combine(v, k.shuffleUp(v, off)), v);
    return v;
  };
  auto smax = [&](Value x, Value y) { return k.smax(x, y); };
  auto add = [&](Value x, Value y) { return k.add(x, y); };
  // The warps' totals (scratch[at + w]) combined: those of the warps before
  // this thread's (from `init`) and all of them.
  auto acrossWarps = [&](int64_t at, Value init, auto combine) {
    Value before = init, all = init;
    for (int64_t w = 0; w < kThreads / 32; ++w) {
      Value v = k.load(k.i32(), word(at + w), 4);
      before = k.select(k.cmp(P::ult, k.c64(w), warp), combine(before, v), before);
      all = combine(all, v);
    }
    return std::make_pair(before, all);
  };
  Value last = k.cmp(P::eq, lane, k.c32(31));
  auto loop = scf::ForOp::create(b, loc, zero, groups, k.c64(kThreads),
                                 ValueRange{zero32, zero32});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value bandsBefore = loop.getRegionIterArgs()[0], maxBefore = loop.getRegionIterArgs()[1];
    Value gi = k.add(loop.getInductionVar(), tid);
    Value valid = k.cmp(P::ult, gi, groups);
    Value gEnd = k.select(
        valid, k.load(k.i32(), k.gep(ends, k.i32(), k.select(valid, gi, zero)), 4), zero32);
    // The largest end up to each group: within the warp, then the warps
    // before it and the iterations before.
    Value most = scan(gEnd, smax);
    k.storeIf(last, most, k.gep(scratch, k.i32(), warp), 4);
    k.barrier();
    auto [maxWarps, maxAll] = acrossWarps(0, maxBefore, smax);
    most = k.smax(most, maxWarps);
    Value prev = k.select(k.cmp(P::eq, lane, zero32), maxWarps, k.shuffleUp(most, 1));
    Value n = k.select(k.cmp(P::sgt, gEnd, prev), k.sub(gEnd, prev), zero32);
    Value nBands = k.divu(k.add(n, k.c32(127)), k.c32(128));
    // The bands up to each group, the same way.
    Value upTo = scan(nBands, add);
    k.storeIf(last, upTo, k.gep(scratch, k.i32(), k.add(warp, k.c64(8))), 4);
    k.barrier();
    auto [bandsWarps, bandsAll] = acrossWarps(8, bandsBefore, add);
    Value before = k.zext(k.add(bandsWarps, k.sub(upTo, nBands)), i64);
    Value here = k.land(k.cmp(P::uge, t, before),
                        k.cmp(P::ult, t, k.add(before, k.zext(nBands, i64))));
    k.storeIf(here, k.add(prev, k.trunc(k.mul(k.sub(t, before), k.c64(128)), k.i32())),
              word(16), 4);
    k.storeIf(here, gEnd, word(17), 4);
    k.barrier(); // the totals are written again next iteration
    scf::YieldOp::create(b, loc, ValueRange{bandsAll, maxAll});
  }
  k.barrier(); // thread 0's (0, 0) where there are no groups
  return {k.zext(k.load(k.i32(), word(16), 4), i64),
          arith::ExtSIOp::create(b, loc, i64, k.load(k.i32(), word(17), 4))};
}

KernelDesc fpx::buildBandSwizzleKernel(OpBuilder &b, Location loc, StringRef name,
                                       gpu::GPUModuleOp module, bool grouped) {
  OpBuilder::InsertionGuard guard(b);
  constexpr int64_t kBandCols = 64; // scale columns a CTA: 16 tiles, 8 KiB
  // A staged row is 16 words and one pad word: the tile writers of a warp
  // read 32 rows' words of one column, which then fall in 32 banks.
  constexpr int64_t kRowWords = kBandCols / 4 + 1;
  std::string smemName = (name + "_band").str();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    // The staged band, then (grouped) 18 words for finding the band's rows.
    auto arr = LLVM::LLVMArrayType::get(b.getI32Type(), 128 * kRowWords + (grouped ? 18 : 0));
    LLVM::GlobalOp::create(b, loc, arr, /*isConstant=*/false, LLVM::Linkage::Internal,
                           smemName, Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }
  Type ptr = LLVM::LLVMPointerType::get(b.getContext(), 1), i64 = b.getI64Type();
  SmallVector<std::pair<const char *, Type>> params = {{"in", ptr}, {"out", ptr}};
  if (grouped)
    params.append({{"ends", ptr}, {"groups", i64}});
  params.append({{"rows", i64}, {"cols", i64}});
  Kernel kn = begin(b, loc, name, params);
  // Five CTAs an SM: ptxas gives the grouped kernel 51 registers for
  // sm_90a (59 for sm_80), which allocate as 56 and leave room for four;
  // bounded, it takes 48 and spills 8 bytes (8-12 for sm_80). Measured on
  // the H100 only (docs/results/2026-11-27-h100-30, run 12).
  if (grouped)
    kn.desc.func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(5));
  KernelBuilder k(b, loc);
  Block *e = kn.entry;
  Value in = e->getArgument(0), out = e->getArgument(1);
  Value rows = e->getArgument(grouped ? 4 : 2), cols = e->getArgument(grouped ? 5 : 3);
  Type sptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value band = LLVM::AddressOfOp::create(b, loc, sptr, smemName);
  // CTAs in band-major order: a band's strips of 64 columns run side by
  // side, so together they read whole input rows (and the grid is 1-D).
  // (32-bit: the grid is below 2^31 CTAs.)
  Value strips = k.trunc(k.divu(k.add(cols, k.c64(kBandCols - 1)), k.c64(kBandCols)), k.i32());
  Value cta = k.trunc(k.blockIdx(gpu::Dimension::x), k.i32());
  Value tid = k.threadIdx(), t = k.zext(k.divu(cta, strips), i64),
        j = k.zext(k.remu(cta, strips), i64);
  Value zero = k.c64(0);
  // The CTA's 128 result rows come from input rows [base, base + 128) below
  // `end`: band t of the matrix, or of a group (groupBand).
  Value base = k.mul(t, k.c64(128)), end = rows;
  if (grouped)
    std::tie(base, end) =
        groupBand(k, k.gep(band, k.i32(), k.c64(128 * kRowWords)), e->getArgument(2),
                  e->getArgument(3), t, tid);
  Value c0 = k.mul(j, k.c64(kBandCols));
  // Stage 128 rows x 64 columns, 4 bytes a thread a pass, zero outside.
  // One branch around all passes: every load of a thread is in flight
  // before its first shared store (a branch a pass kept one).
  constexpr int64_t kPasses = 128 * kBandCols / 4 / kThreads;
  constexpr int64_t kRowsAPass = kThreads / (kBandCols / 4);
  // A thread stages word w of rows i0, i0 + 16, ...: one column, so one
  // column test, and each pass's offsets a stride from the first's.
  Value i0 = k.divu(tid, k.c64(kBandCols / 4)), w = k.remu(tid, k.c64(kBandCols / 4));
  Value col = k.add(c0, k.mul(w, k.c64(4)));
  Value rowEnd = arith::MinUIOp::create(b, loc, end, rows);
  Value first = k.add(k.mul(k.add(base, i0), cols), col);
  struct Slot {
    Value rowOk, flat;
  };
  SmallVector<Slot> slots;
  for (int64_t pass = 0; pass < kPasses; ++pass) {
    Value row = k.add(base, k.add(i0, k.c64(pass * kRowsAPass)));
    slots.push_back({k.cmp(P::ult, row, rowEnd),
                     k.add(first, k.mul(cols, k.c64(pass * kRowsAPass)))});
  }
  // A slot's word from loads `width` bytes wide (rows aligned to it), each
  // part zero past the row's end or outside the band's rows.
  auto load = [&](const Slot &s, int64_t width) {
    Type part = b.getIntegerType(8 * width);
    Value v = k.c32(0);
    for (int64_t at = 0; at < 4; at += width) {
      Value ok = k.land(s.rowOk, k.cmp(P::ult, k.add(col, k.c64(at)), cols));
      Value x = k.load(part, k.gep(in, k.i8(), k.select(ok, k.add(s.flat, k.c64(at)), zero)),
                       width);
      x = k.select(ok, x, k.cInt(part, 0));
      v = k.bor(v, width == 4 ? x : k.shl(k.zext(x, k.i32()), k.c32(8 * at)));
    }
    return v;
  };
  Value staged = k.add(k.mul(i0, k.c64(kRowWords)), w);
  auto store = [&](int64_t pass, Value v) {
    k.store(v, k.gep(band, k.i32(), k.add(staged, k.c64(pass * kRowsAPass * kRowWords))), 4);
  };
  auto aligned = [&](int64_t width) {
    return k.cmp(P::eq, k.remu(cols, k.c64(width)), zero);
  };
  // Rows of whole words (cols % 4 == 0): all 8 loads, then the stores.
  // Elsewhere halves (cols % 2 == 0) or bytes, two passes a branch (that
  // many loads in flight: more would take registers from the word path).
  auto words = scf::IfOp::create(b, loc, TypeRange{}, aligned(4), /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(words.thenBlock());
    SmallVector<Value> vs;
    for (const Slot &s : slots)
      vs.push_back(load(s, 4));
    for (int64_t pass = 0; pass < kPasses; ++pass)
      store(pass, vs[pass]);
    b.setInsertionPointToStart(words.elseBlock());
    Value halves = aligned(2);
    for (int64_t pass = 0; pass < kPasses; pass += 2) {
      auto pick = scf::IfOp::create(b, loc, TypeRange{k.i32(), k.i32()}, halves,
                                    /*withElse=*/true);
      for (int64_t width : {2, 1}) {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(width == 2 ? pick.thenBlock() : pick.elseBlock());
        scf::YieldOp::create(b, loc,
                             ValueRange{load(slots[pass], width), load(slots[pass + 1], width)});
      }
      store(pass, pick.getResult(0));
      store(pass + 1, pick.getResult(1));
    }
  }
  k.barrier();
  // Write the band's 16 tiles: a thread a 16-byte tile row q (rows q, q + 32,
  // q + 64, q + 96 of the band, four columns each), two a thread.
  Value tilesPerRow = k.divu(k.add(cols, k.c64(3)), k.c64(4));
  for (int64_t pass = 0; pass < 32 * (kBandCols / 4) / kThreads; ++pass) {
    Value unit = k.add(tid, k.c64(pass * kThreads));
    Value q = k.remu(unit, k.c64(32)), tl = k.divu(unit, k.c64(32));
    Value jt = k.add(k.mul(j, k.c64(kBandCols / 4)), tl);
    SmallVector<Value> parts;
    for (int64_t r4 = 0; r4 < 4; ++r4) {
      Value i = k.add(q, k.c64(32 * r4));
      parts.push_back(k.load(k.i32(), k.gep(band, k.i32(),
                                            k.add(k.mul(i, k.c64(kRowWords)), tl)), 4));
    }
    Value o = k.add(k.mul(k.add(k.mul(t, tilesPerRow), jt), k.c64(512)), k.mul(q, k.c64(16)));
    k.storeIf(k.cmp(P::ult, jt, tilesPerRow), k.vector(parts), k.gep(out, k.i8(), o), 16);
  }
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
  } else if (layout == LayoutKind::fp6_interleaved) {
    // two groups of 3 bytes at 6v (docs/formats.md), as one 48-bit word
    Value base = k.mul(vs, k.c64(6));
    Value w = k.bor(ld(k.i16(), base, 2),
                    k.bor(k.shl(ld(k.i16(), k.add(base, k.c64(2)), 2), k.c64(16)),
                          k.shl(ld(k.i16(), k.add(base, k.c64(4)), 2), k.c64(32))));
    for (int i = 0; i < 8; ++i) {
      int at = 24 * (i / 4), t = i % 4;
      Value hi = k.band(k.shru(w, k.c64(at + num::kInterleavedHi[t])), k.c64(0xf));
      Value lo = k.band(k.shru(w, k.c64(at + num::kInterleavedLo[t])), k.c64(3));
      c[i] = k.bor(k.shl(hi, k.c64(2)), lo);
    }
  } else if (layout == LayoutKind::fp6_planes) {
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
