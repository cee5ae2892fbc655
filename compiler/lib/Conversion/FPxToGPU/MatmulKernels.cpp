//===- MatmulKernels.cpp - weight-only decode GEMM kernels ----------------===//
//
// The decode kernel of a weight-only linear y = x * dequantize(w)^T, built as
// the design experiment bench/gemm/experiments/wo_decode.cu (form `c`) found
// fastest on the H200 (83-95% of the copy bandwidth on the weight bytes):
//
// - mma.sync m16n8k16 with the weight as the A operand: a warp owns 16
//   output channels, a token tile of 8 is the B operand.
// - The weight is pre-packed in the mma_tiles layout (numerics MmaTiles.h):
//   lane (g = lane/4, t = lane%4) of a 16 x 32 tile holds the 16 bytes of
//   rows g and g+8 at k = 8t..8t+7, which feed two MMA steps. x is read with
//   the same permutation of K (lane t: k = 8t..8t+7 of a 32-block), so one
//   16-byte shared-memory read a token row gives its B fragments.
// - Codes decode to bf16/f16 in registers: the byte goes to the top of its
//   16-bit lane (prmt), its sign stays and its exponent and mantissa shift
//   into place (and, shift, or), and one exact bf16x2/f16x2 multiply by a
//   power of two rebiases the exponent. The channel's fp32 scale multiplies
//   the fp32 accumulator.
// - A CTA's 8 warps share one K chunk (x staged once, double buffered by
//   cp.async); each warp stages its weights and scales a unit ahead in
//   shared memory (cp.async, with the unit's x), across runs of row groups,
//   and reads them back when the unit runs.
//   Units (128 channels x 256 of K) are split evenly over the grid
//   (stream-K); partial sums meet in an fp32 workspace through atomics and
//   the last contributor (a counter per 16 channels) writes the result and
//   leaves workspace and counter zero.
// - e2m1 weights (MXFP4, NVFP4) take the 4-bit mma_tiles layout: one 16-byte
//   load is a lane's fragments of four MMA steps (64 of K); a code pair goes
//   to the top of its 16-bit lanes by one shift, then the same and/shift/or
//   and one exact multiply by 2^126 (bf16) or 2^14 (f16). The emulation runs
//   on every target (sm_100a/sm_120a's cvt e2m1x2 would save one shift and
//   the multiply; not used).
// - 6- and 5-bit weights (MXFP6 e2m3/e3m2, FP6-LLM's e3m2 and fp5 e2m2)
//   take mma_tiles' plane split: the low nibbles exactly as 4-bit codes (the
//   same 16-byte loads), plus one 64-bit (fp6) or 32-bit (fp5) load a lane a
//   64 of K of the high plane. A register's two codes are reassembled at the
//   top of their 16-bit lanes by a shift and mask of each plane's word and
//   an or (numerics mmaTileDecodeShifts; ptxas makes it lop3), then decoded
//   as above: sign kept, magnitude shifted, one exact multiply by
//   2^(bias_target - bias_code), which also makes subnormal codes exact (no
//   branch).
// - Block scales along K (row-major, as fpx.quantize writes them, read a
//   unit ahead with the weights): MX (E8M0, 32 of K = one 32-block of the
//   layout, two MMA steps) by promotion: the block's steps go to a fresh fp32
//   partial sum and acc += 2^(e-127) * partial (exact in both activation
//   types); NVFP4 (ue4m3, 16 of K, which the layout's K permutation spreads
//   over lanes t < 2 and t >= 2 of every step) by multiplying the decoded
//   e2m1 pairs by the block scale's pair (exact: at most 6 significant bits
//   inside bf16's and f16's ranges), the f32 tensor scale on the result.
//
//===----------------------------------------------------------------------===//
#include "MatmulKernels.h"
#include "QuantizeKernelsInternal.h"
#include "WeightDecode.h"

#include "fpx/Numerics/MmaTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace fpx;
using namespace fpx::wo;
using P = arith::CmpIPredicate;

namespace {

constexpr int64_t kSteps = kMatmulChunk / 32; // k32 steps a unit
constexpr int64_t kXPad = 32; // bf16 a staged x row is padded by (16 words mod 32)

} // namespace

namespace {

/// cp.async of 16 bytes, zero-filled when `valid` (i1) is false.
void cpAsync16ZeroFill(KernelBuilder &k, Value sharedDst, Value src, Value valid) {
  Value dst = LLVM::PtrToIntOp::create(k.b, k.loc, k.i64(), sharedDst);
  Value bytes = k.select(valid, k.c32(16), k.c32(0));
  k.ptxEffect("cp.async.cg.shared.global [$0], [$1], 16, $2;", "l,l,r", {dst, src, bytes});
}

} // namespace

namespace fpx::wo {

/// Two 8-bit codes of `word` (bytes 0,1 or 2,3) as a pair of 16-bit values
/// (bf16x2 or f16x2 bits, first code low) times 2^-rebias: the code's byte at
/// the top of its lane, the sign kept, exponent and mantissa shifted right
/// so that the code's mantissa ends where the target's does.
Value placePair(KernelBuilder &k, Value word, bool high, int shift) {
  Value t = k.prmt(word, k.c32(0), high ? 0x3424 : 0x1404); // b1<<24 | b0<<8
  if (shift == 0)
    return t;
  Value sign = k.band(t, k.c32(0x80008000u));
  Value mag = k.shru(k.band(t, k.c32(0x7F007F00)), k.c32(shift));
  return k.bor(sign, mag);
}

/// Two 4-bit codes of `word` (nibbles p and p + 4: register a_p of the
/// 4-bit mma_tiles layout) as a pair of 16-bit values times 2^-rebias: the
/// word shifted so that the codes sit at the top of the 16-bit lanes, the
/// sign kept, the 3 magnitude bits shifted right into place.
Value placeNibblePair(KernelBuilder &k, Value word, int p, int shift) {
  Value t = p == 3 ? word : k.shl(word, k.c32(12 - 4 * p));
  Value sign = k.band(t, k.c32(0x80008000u));
  Value mag = k.shru(k.band(t, k.c32(0x70007000)), k.c32(shift));
  return k.bor(sign, mag);
}

/// Two 6- or 5-bit codes (register a_p of low word i of a lane's tile) as a
/// pair of 16-bit values times 2^-rebias: the low nibbles from `lo`, the
/// high bits from `hi` (the lane's high word that holds them), reassembled at
/// the top of the 16-bit lanes (numerics mmaTileDecodeShifts, the layout's
/// one owner), the sign kept, the magnitude shifted right into place.
Value placeSplitPair(KernelBuilder &k, Value lo, Value hi, int bits, int i, int p, int shift) {
  num::MmaTileDecodeShifts d = num::mmaTileDecodeShifts(bits, i, p);
  Value l = d.lowShift > 0   ? k.shl(lo, k.c32(d.lowShift))
            : d.lowShift < 0 ? k.shru(lo, k.c32(-d.lowShift))
                             : lo;
  Value h = d.highShift ? k.shl(hi, k.c32(d.highShift)) : hi;
  Value lm = k.band(l, k.c32(d.lowMask)); // (sequenced: the IR order is fixed)
  Value hm = k.band(h, k.c32(d.highMask));
  Value t = k.bor(lm, hm);
  uint32_t magMask = (((1u << (bits - 1)) - 1) << (16 - bits)) * 0x10001u;
  Value sign = k.band(t, k.c32(0x80008000u));
  Value mag = k.shru(k.band(t, k.c32(magMask)), k.c32(shift));
  return k.bor(sign, mag);
}

/// The decode of `fmt` codes (8, 6, 5 or 4 bits) into `act` (bf16 or f16).
Decoder decoderFor(const num::Format &fmt, Type act) {
  Decoder d;
  d.bits = fmt.bits();
  d.bf16 = act.isBF16();
  int tm = d.bf16 ? 7 : 10, tb = d.bf16 ? 127 : 15;
  // The code sits at the top of the 16-bit lane, its mantissa ending at bit
  // 16 - bits (8: byte, 4: nibble, 6/5: reassembled); it must end where the
  // target's does.
  d.shift = (16 - d.bits) - (tm - fmt.mbits);
  d.rebias = tb - fmt.bias;
  return d;
}

/// A bf16x2 / f16x2 pair (as i32) times 2^e, exact (a power of two in range).
Value mulPow2(KernelBuilder &k, const Decoder &d, Value pair, int e) {
  if (e == 0)
    return pair;
  Type half = d.bf16 ? Type(k.b.getBF16Type()) : Type(k.b.getF16Type());
  Type v2 = k.vec(2, half);
  Value h = k.bitcast(pair, v2);
  Attribute two = FloatAttr::get(half, std::ldexp(1.0, e));
  auto c = arith::ConstantOp::create(
      k.b, k.loc, v2, DenseElementsAttr::get(cast<ShapedType>(v2), ArrayRef<Attribute>{two}));
  return k.bitcast(arith::MulFOp::create(k.b, k.loc, h, c), k.i32());
}

SmallVector<Value> mulRowPairs(KernelBuilder &k, const Decoder &d, ArrayRef<Value> a,
                               ArrayRef<Value> rowPairs) {
  Type half = d.bf16 ? Type(k.b.getBF16Type()) : Type(k.b.getF16Type());
  Type v2 = k.vec(2, half);
  SmallVector<Value> out;
  for (auto [p, ap] : llvm::enumerate(a)) {
    Value wp = k.bitcast(ap, v2), sp = k.bitcast(rowPairs[p % 2], v2);
    Value prod = arith::MulFOp::create(k.b, k.loc, wp, sp);
    out.push_back(k.bitcast(prod, k.i32()));
  }
  return out;
}

/// A decoded pair times 2^rebias: the code's value.
Value scalePair(KernelBuilder &k, const Decoder &d, Value pair) {
  return mulPow2(k, d, pair, d.rebias);
}

int nvResultShift(const Decoder &d) { return d.bf16 ? 8 : 7; }

Value nvScalePair(KernelBuilder &k, const Decoder &scaleDec, const Decoder &dec, Value dup) {
  Value sign = k.band(dup, k.c32(0x80008000u));
  Value pr = k.bor(sign, k.shru(k.band(dup, k.c32(0x7F007F00)), k.c32(scaleDec.shift)));
  return mulPow2(k, scaleDec, scalePair(k, scaleDec, pr), dec.rebias - nvResultShift(dec));
}

} // namespace fpx::wo

namespace {

/// acc[0..3] += A (4 x i32 pairs) * B (2 x i32 pairs), m16n8k16, fp32.
void mma(KernelBuilder &k, const Decoder &d, MutableArrayRef<Value> acc, ArrayRef<Value> a,
         ArrayRef<Value> bv) {
  MLIRContext *ctx = k.b.getContext();
  Type f32 = k.f32();
  auto st = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  SmallVector<Value> av(a), bw(bv);
  if (!d.bf16) { // f16 fragments are vector<2xf16>
    Type v2 = k.vec(2, k.b.getF16Type());
    for (Value &v : av)
      v = k.bitcast(v, v2);
    for (Value &v : bw)
      v = k.bitcast(v, v2);
  }
  NVVM::MMATypes ty = d.bf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  auto op = NVVM::MmaOp::create(k.b, k.loc, st, av, bw, acc, {16, 8, 16}, std::nullopt,
                                std::nullopt, std::array<NVVM::MMATypes, 2>{ty, ty},
                                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                               NVVM::MMALayout::col});
  for (int64_t i = 0; i < 4; ++i)
    acc[i] = LLVM::ExtractValueOp::create(k.b, k.loc, op.getResult(), i);
}

/// Builds an scf.if with results; `then` and `otherwise` fill the regions
/// and return what they yield.
SmallVector<Value> ifElse(KernelBuilder &k, Value cond, TypeRange types,
                          function_ref<SmallVector<Value>()> then,
                          function_ref<SmallVector<Value>()> otherwise) {
  auto op = scf::IfOp::create(k.b, k.loc, types, cond, /*withElse=*/true);
  OpBuilder::InsertionGuard g(k.b);
  // Without results the regions come with their (empty) yields.
  auto fill = [&](Region &r, function_ref<SmallVector<Value>()> body) {
    Block &blk = r.front();
    if (types.empty()) {
      k.b.setInsertionPoint(blk.getTerminator());
      body();
      return;
    }
    k.b.setInsertionPointToStart(&blk);
    scf::YieldOp::create(k.b, k.loc, body());
  };
  fill(op.getThenRegion(), then);
  fill(op.getElseRegion(), otherwise);
  return SmallVector<Value>(op.getResults());
}

} // namespace

namespace fpx::wo {

/// An scf.if without results around `body`.
void when(KernelBuilder &k, Value cond, function_ref<void()> body) {
  auto op = scf::IfOp::create(k.b, k.loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(k.b);
  k.b.setInsertionPointToStart(&op.getThenRegion().front());
  body();
}

Value ue4m3Pair(KernelBuilder &k, const Decoder &scaleDec, const Decoder &dec, Value code) {
  Value dup = k.shl(code, k.c32(8));
  return nvScalePair(k, scaleDec, dec, k.bor(dup, k.shl(code, k.c32(24))));
}

/// E8M0 code `e` (i32, 0..255) as the f32 2^(e-127): 2^-127 (a subnormal)
/// for 0 and NaN for 255.
Value e8m0ToF32(KernelBuilder &k, Value e) {
  Value bits = k.shl(e, k.c32(23));
  bits = k.select(k.cmp(P::eq, e, k.c32(0)), k.c32(0x00400000), bits);
  bits = k.select(k.cmp(P::eq, e, k.c32(255)), k.c32(0x7FC00000), bits);
  return k.bitcast(bits, k.f32());
}

} // namespace fpx::wo

namespace {

/// Low-plane words of a unit of 6-/5-bit codes (16-byte loads of 64 of K,
/// as 4-bit codes): the high plane's words follow them.
constexpr int64_t kUnitLowWords = 2 * kSteps;

} // namespace

namespace fpx::wo {

/// The A registers a0..a3 of MMA step `s` (0, 1) of 32-block `j` of a unit,
/// decoded from the unit's weight words `wv` (8-bit: 4 words a block, 4-bit:
/// 2; 6-/5-bit: 2 low words a block, then from wv[highAt] the unit's high
/// words, hb = bits - 4 a 64-of-K tile); `nvPairs` (NVFP4) are the block's
/// scale pairs of rows g and g + 8.
SmallVector<Value> decodeStep(KernelBuilder &k, const Decoder &d, ArrayRef<Value> wv, int64_t j,
                              int64_t s, ArrayRef<Value> nvPairs, int64_t highAt) {
  SmallVector<Value> a;
  for (int p = 0; p < 4; ++p) { // register a_p, decoded then rebiased
    Value raw;
    if (d.bits == 8) {
      raw = placePair(k, wv[4 * j + 2 * s + p / 2], p % 2, d.shift);
    } else if (d.bits == 4) {
      raw = placeNibblePair(k, wv[2 * j + s], p, d.shift);
    } else {
      // Low word i = 2h + s of tile j / 2 (h = j % 2), and the tile's high
      // word holding its high bits.
      int i = static_cast<int>(2 * (j % 2) + s), hb = d.bits - 4;
      num::MmaTileDecodeShifts sh = num::mmaTileDecodeShifts(d.bits, i, p);
      Value hi = wv[highAt + (j / 2) * hb + sh.highWord];
      raw = placeSplitPair(k, wv[2 * j + s], hi, d.bits, i, p, d.shift);
    }
    a.push_back(nvPairs.empty() ? scalePair(k, d, raw) : raw);
  }
  if (!nvPairs.empty()) // (the rebias is in the scale pairs)
    a = mulRowPairs(k, d, a, nvPairs);
  return a;
}

} // namespace fpx::wo

/// Bytes of one lane's high plane in a 64-of-K tile (6-/5-bit codes; else 0).
static int64_t laneHighBytes(int bits) {
  return bits == 6 || bits == 5 ? num::mmaTileHighBytes(bits) : 0;
}

/// Bytes of one lane's codes of a unit: its 16-byte loads and the high
/// plane's words (6-/5-bit codes).
static int64_t unitLaneBytes(const WeightOnlyPlan &plan) {
  const int bits = plan.elem.bits();
  const int64_t loads = kMatmulChunk / num::mmaTileCols(bits);
  return loads * (16 + laneHighBytes(bits));
}

/// Scale bytes of a row of a unit (MX 8, NVFP4 16, channel scales none).
static int64_t unitRowScaleBytes(const WeightOnlyPlan &plan) {
  return plan.scales == WeightScales::Mx32 ? 8 : plan.scales == WeightScales::Nv16 ? 16 : 0;
}

/// A warp's bytes of a unit in shared memory: every lane's codes, then its
/// 16 rows' scales (staged once a warp: the four lanes of a quad share rows).
static int64_t unitWarpBytes(const WeightOnlyPlan &plan) {
  return 32 * unitLaneBytes(plan) + 16 * unitRowScaleBytes(plan);
}

int64_t fpx::matmulSharedBytes(const WeightOnlyPlan &plan) {
  // Two buffers of x's chunk (8 tokens a tile) and of the CTA's unit.
  return 2 * 8 * plan.tokenTiles * (kMatmulChunk + kXPad) * 2 +
         2 * kMatmulWarps * unitWarpBytes(plan);
}

KernelDesc fpx::buildWeightOnlyDecodeKernel(OpBuilder &b, Location loc, StringRef name,
                                            const WeightOnlyPlan &plan, gpu::GPUModuleOp module) {
  OpBuilder::InsertionGuard guard(b);
  const int64_t nt = plan.tokenTiles, tokens = 8 * nt;
  const int64_t rowLen = kMatmulChunk + kXPad; // bf16 a staged x row
  const int64_t stageElems = tokens * rowLen; // (matmulSharedBytes: two of them)
  std::string smemName = (name + "_x").str();
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    // (dynamic: 64 tokens' two buffers pass the 48 KiB of static shared memory)
    auto arr = LLVM::LLVMArrayType::get(b.getI16Type(), 0);
    LLVM::GlobalOp::create(b, loc, arr, /*isConstant=*/false, LLVM::Linkage::External, smemName,
                           Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx, 1), i64 = b.getI64Type();
  const bool nv = plan.scales == WeightScales::Nv16, mx = plan.scales == WeightScales::Mx32;
  KernelDesc desc;
  desc.params = {"x", "w", "scale"};
  SmallVector<Type> argTypes = {ptr, ptr, ptr};
  if (nv) {
    desc.params.push_back("gscale");
    argTypes.push_back(ptr);
  }
  for (const char *p : {"y", "ws", "cnt"}) {
    desc.params.push_back(p);
    argTypes.push_back(ptr);
  }
  for (const char *p : {"M", "N", "K"}) {
    desc.params.push_back(p);
    argTypes.push_back(i64);
  }
  if (plan.bias) {
    desc.params.push_back("bias");
    argTypes.push_back(ptr);
  }
  desc.func = qk::makeKernel(b, loc, name, argTypes);
  desc.func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(matmulCtasPerSm(nt)));
  Block &entry = desc.func.getBody().front();
  b.setInsertionPointToStart(&entry);
  KernelBuilder k(b, loc);
  unsigned a0 = nv ? 1 : 0; // arguments after scale shift by one with gscale
  Value x = entry.getArgument(0), w = entry.getArgument(1), scale = entry.getArgument(2),
        gscale = nv ? entry.getArgument(3) : Value(), y = entry.getArgument(3 + a0),
        ws = entry.getArgument(4 + a0), cnt = entry.getArgument(5 + a0),
        M = entry.getArgument(6 + a0), N = entry.getArgument(7 + a0),
        K = entry.getArgument(8 + a0);
  Value bias = plan.bias ? entry.getArgument(9 + a0) : Value();
  Decoder dec = decoderFor(plan.elem, plan.act);
  Decoder scaleDec = decoderFor(num::e4m3fn(), plan.act); // NVFP4's ue4m3 block scales
  // 16-byte weight loads a unit (a load: 32 of K for 8-bit codes, 64 for
  // narrower ones: their low nibbles); 6-/5-bit codes add one high-plane
  // load of hb words a 64 of K.
  const int64_t tileCols = num::mmaTileCols(dec.bits), tileBytes = num::mmaTileSize(dec.bits);
  const int64_t loadsPerUnit = kMatmulChunk / tileCols;
  const int64_t highWords = laneHighBytes(dec.bits) / 4;
  const int64_t wordsPerUnit = 4 * loadsPerUnit + highWords * loadsPerUnit;
  Type sptr = LLVM::LLVMPointerType::get(ctx, 3);
  Value xs = LLVM::AddressOfOp::create(b, loc, sptr, smemName);

  Value tid = k.threadIdx(), lane = k.band(tid, k.c64(31));
  Value g = k.shru(lane, k.c64(2)), t = k.band(lane, k.c64(3)), wid = k.shru(tid, k.c64(5));
  Value upt = k.divu(K, k.c64(kMatmulChunk)); // units a row group
  Value units = k.mul(k.divu(N, k.c64(kMatmulGroupRows)), upt);
  // Units a CTA: an even split, but at least cdiv(upt, slots - 1) so that at
  // most `slots` CTAs share a row group (workspace slots; MatmulKernels.h).
  Value slots = k.umax(k.umin(k.divu(k.c64(kMatmulWorkspace), k.umax(k.mul(M, N), k.c64(1))),
                              k.c64(kMatmulSlots)),
                       k.c64(2));
  Value slots1 = k.sub(slots, k.c64(1));
  Value per = k.umax(k.divu(k.add(units, k.sub(k.gridDim(), k.c64(1))), k.gridDim()),
                     k.divu(k.add(upt, k.sub(slots1, k.c64(1))), slots1));
  Value u0 = k.mul(k.blockIdx(), per);
  Value uEnd = k.umin(k.add(u0, per), units);
  Value mChunk = k.blockIdx(gpu::Dimension::y);
  Value m0 = k.mul(mChunk, k.c64(tokens));
  Value tiles16 = k.divu(N, k.c64(16)); // counters a token chunk

  // Stages x's chunk `kc` (256 of K) of this CTA's tokens into buffer `buf`
  // (one commit group); rows past M are zero-filled.
  auto stageX = [&](Value buf, Value kc) {
    constexpr int64_t vecsPerRow = kMatmulChunk / 8;
    for (int64_t it = 0; it < tokens * vecsPerRow / (kMatmulWarps * 32); ++it) {
      Value i = k.add(tid, k.c64(it * kMatmulWarps * 32));
      Value m = k.divu(i, k.c64(vecsPerRow)), v = k.remu(i, k.c64(vecsPerRow));
      Value row = k.add(m0, m);
      Value valid = k.cmp(P::ult, row, M);
      Value srcElem = k.add(k.mul(k.select(valid, row, k.c64(0)), K),
                            k.add(k.mul(kc, k.c64(kMatmulChunk)), k.mul(v, k.c64(8))));
      Value dstElem = k.add(k.mul(k.add(k.mul(buf, k.c64(tokens)), m), k.c64(rowLen)),
                            k.mul(v, k.c64(8)));
      cpAsync16ZeroFill(k, k.gep(xs, k.i16(), dstElem), k.gep(x, k.i16(), srcElem), valid);
    }
    k.ptxEffect("cp.async.commit_group;", "", {});
  };
  auto commitEmpty = [&] { k.ptxEffect("cp.async.commit_group;", "", {}); };

  // A lane's pieces of unit u's codes, in word order (global pointer,
  // bytes): 16 at (tile * K/tileCols + step + j) * tileBytes + lane * 16
  // for load j of row tile `tile` and step = (u % upt) * loadsPerUnit
  // (then, 6-/5-bit, 4 * hb at 512 + lane * 4 * hb of each of those
  // tiles). The unit's scales (row-major, rowScale bytes a row) are staged
  // once a warp: lane r < 16 copies row r's.
  // They go to shared memory by cp.async with the unit's x, a unit ahead,
  // and are read back when the unit runs: a load's registers are never
  // carried across the loop (ptxas rotated such registers with moves that
  // waited for the newest load early in the next unit).
  Value kTiles = k.divu(K, k.c64(tileCols));
  Value kBlocks = mx ? k.divu(K, k.c64(32)) : nv ? k.divu(K, k.c64(16)) : Value();
  struct Piece {
    Value src; // global pointer
    int64_t bytes;
  };
  // Unit u's row tile of this warp (row group u / upt) and its K chunk
  // within the row group (u % upt).
  auto tileAndChunk = [&](Value u) {
    Value rg = k.divu(u, upt);
    Value tile = k.add(k.mul(rg, k.c64(kMatmulWarps)), wid);
    return std::make_pair(tile, k.sub(u, k.mul(rg, upt)));
  };
  auto unitPieces = [&](Value u) {
    auto [tile, chunk] = tileAndChunk(u);
    Value step = k.mul(chunk, k.c64(loadsPerUnit));
    SmallVector<Piece> pieces;
    Value tile0 = k.mul(k.add(k.mul(tile, kTiles), step), k.c64(tileBytes));
    Value base = k.add(tile0, k.mul(lane, k.c64(16)));
    for (int64_t j = 0; j < loadsPerUnit; ++j)
      pieces.push_back({k.gep(w, k.i8(), k.add(base, k.c64(j * tileBytes))), 16});
    if (highWords) {
      Value hbase = k.add(tile0, k.add(k.c64(512), k.mul(lane, k.c64(4 * highWords))));
      for (int64_t j = 0; j < loadsPerUnit; ++j)
        pieces.push_back({k.gep(w, k.i8(), k.add(hbase, k.c64(j * tileBytes))), 4 * highWords});
    }
    return pieces;
  };
  // Piece p of every lane of a warp lies together: byte (warp's base +
  // 32 * (bytes of the pieces before p) + lane * bytes); the scales follow,
  // rowScale bytes a row.
  const int64_t laneBytes = unitLaneBytes(plan), rowScale = unitRowScaleBytes(plan);
  Value wsm = k.gep(xs, k.i8(), k.c64(2 * stageElems * 2)); // after x's two buffers
  auto warpBase = [&](Value buf) {
    return k.mul(k.add(k.mul(buf, k.c64(kMatmulWarps)), wid), k.c64(unitWarpBytes(plan)));
  };
  auto pieceAt = [&](Value buf, int64_t before, int64_t bytes) {
    return k.gep(wsm, k.i8(), k.add(warpBase(buf), k.add(k.c64(32 * before),
                                                          k.mul(lane, k.c64(bytes)))));
  };
  auto scaleRowAt = [&](Value buf, Value row) {
    return k.gep(wsm, k.i8(), k.add(warpBase(buf), k.add(k.c64(32 * laneBytes),
                                                          k.mul(row, k.c64(rowScale)))));
  };
  auto copyAsync = [&](Value dstPtr, Value src, int64_t bytes) {
    Value dst = LLVM::PtrToIntOp::create(k.b, k.loc, k.i64(), dstPtr);
    std::string op = bytes == 16 ? "cp.async.cg.shared.global [$0], [$1], 16;"
                                 : "cp.async.ca.shared.global [$0], [$1], " +
                                       std::to_string(bytes) + ";";
    k.ptxEffect(op, "l,l", {dst, src});
  };
  auto stageUnit = [&](Value buf, Value u) {
    int64_t before = 0;
    for (const Piece &pc : unitPieces(u)) {
      copyAsync(pieceAt(buf, before, pc.bytes), pc.src, pc.bytes);
      before += pc.bytes;
    }
    if (!rowScale)
      return;
    when(k, k.cmp(P::ult, lane, k.c64(16)), [&] {
      auto [tile, chunk] = tileAndChunk(u);
      Value row = k.add(k.mul(tile, k.c64(16)), lane);
      Value at = k.add(k.mul(row, kBlocks), k.mul(chunk, k.c64(rowScale)));
      copyAsync(scaleRowAt(buf, lane), k.gep(scale, k.i8(), at), rowScale);
    });
  };
  auto readUnit = [&](Value buf) {
    SmallVector<Value> words;
    int64_t before = 0;
    auto read = [&](int64_t bytes) {
      Value at = pieceAt(buf, before, bytes);
      before += bytes;
      if (bytes == 4) {
        words.push_back(k.load(k.i32(), at, 4));
        return;
      }
      Value v = k.load(k.vec(bytes / 4, k.i32()), at, bytes);
      for (int64_t i = 0; i < bytes / 4; ++i)
        words.push_back(k.extract(v, i));
    };
    for (int64_t j = 0; j < loadsPerUnit; ++j)
      read(16);
    for (int64_t j = 0; highWords && j < loadsPerUnit; ++j)
      read(4 * highWords);
    for (int64_t h = 0; h < (rowScale ? 2 : 0); ++h) {
      Value v = k.load(k.vec(rowScale / 4, k.i32()),
                       scaleRowAt(buf, k.add(g, k.c64(8 * h))), rowScale);
      for (int64_t i = 0; i < rowScale / 4; ++i)
        words.push_back(k.extract(v, i));
    }
    return words; // wordsPerUnit + scaleWords
  };
  // NVFP4: the lane's block of a 32-block is its half (t / 2): byte
  // 2j + t/2 of the row's 16 scale bytes of the unit.
  // The prmt selector that puts that byte at the top of both 16-bit lanes
  // (bytes 1 and 3; 4 picks a zero byte), for even and odd j.
  SmallVector<Value, 2> nvSel;
  for (int64_t odd = 0; nv && odd < 2; ++odd) {
    Value bi = k.trunc(k.add(k.shru(t, k.c64(1)), k.c64(2 * odd)), k.i32());
    nvSel.push_back(k.bor(k.c32(0x0404), k.bor(k.shl(bi, k.c32(4)), k.shl(bi, k.c32(12)))));
  }

  // The accumulator of (token tile n, register i): channel, token.
  auto channel = [&](Value tile, int64_t i) {
    return k.add(k.add(k.mul(tile, k.c64(16)), g), k.c64((i >> 1) * 8));
  };
  auto token = [&](int64_t tt, int64_t i) {
    return k.add(m0, k.add(k.c64(tt * 8 + (i & 1)), k.mul(t, k.c64(2))));
  };
  auto epilogue = [&](Value tile, ArrayRef<Value> acc) {
    for (int64_t tt = 0; tt < nt; ++tt)
      for (int64_t i = 0; i < 4; ++i) {
        Value n = channel(tile, i), m = token(tt, i);
        when(k, k.cmp(P::ult, m, M), [&] {
          Value r = acc[tt * 4 + i];
          if (plan.scales == WeightScales::Channel)
            r = k.fmul(r, k.load(k.f32(), k.gep(scale, k.f32(), n), 4));
          else if (nv)
            r = k.fmul(k.fmul(r, k.cf32(std::ldexp(1.0f, nvResultShift(dec)))),
                       k.load(k.f32(), gscale, 4));
          if (plan.bias) { // in f32, after the scales, before the cast
            Value bv = k.load(plan.bias, k.gep(bias, plan.bias, n),
                              plan.bias.getIntOrFloatBitWidth() / 8);
            if (!plan.bias.isF32())
              bv = arith::ExtFOp::create(b, loc, k.f32(), bv);
            r = k.fadd(r, bv);
          }
          Value v = arith::TruncFOp::create(b, loc, plan.out, r);
          k.store(v, k.gep(y, plan.out, k.add(k.mul(m, N), n)), 2);
        });
      }
  };

  Value xs0 = k.cmp(P::ult, u0, uEnd);
  ifElse(
      k, xs0, {},
      [&] {
        stageUnit(k.c64(0), u0);
        stageX(k.c64(0), k.remu(u0, upt)); // (commits the unit's group)
        return SmallVector<Value>{};
      },
      [&] {
        commitEmpty();
        return SmallVector<Value>{};
      });

  // while (u < uEnd): one run of units of one row group.
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{i64, i64}, ValueRange{u0, k.c64(0)},
      [&](OpBuilder &ob, Location l, ValueRange args) {
        KernelBuilder kb(ob, l);
        scf::ConditionOp::create(ob, l, kb.cmp(P::ult, args[0], uEnd), args);
      },
      [&](OpBuilder &, Location, ValueRange) {});
  Block *body = &loop.getAfter().front();
  b.setInsertionPointToStart(body);
  Value u = body->getArgument(0), buf0 = body->getArgument(1);
  Value rg = k.divu(u, upt);
  Value runEnd = k.umin(uEnd, k.mul(k.add(rg, k.c64(1)), upt));
  Value runUnits = k.sub(runEnd, u);
  Value tile = k.add(k.mul(rg, k.c64(kMatmulWarps)), wid); // this warp's 16 channels
  SmallVector<Value> init(4 * nt, k.cf32(0.0f));
  init.push_back(buf0);
  auto inner = scf::ForOp::create(b, loc, k.c64(0), runUnits, k.c64(1), init);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(inner.getBody());
    Value c = inner.getInductionVar();
    auto args = inner.getRegionIterArgs();
    SmallVector<Value> acc(args.begin(), args.begin() + 4 * nt);
    Value buf = args.back();
    // The next unit's weights and x, this run's or the next run's.
    Value un = k.add(k.add(u, c), k.c64(1));
    Value other = k.bxor(buf, k.c64(1));
    ifElse(
        k, k.cmp(P::ult, un, uEnd), {},
        [&] {
          stageUnit(other, un);
          stageX(other, k.remu(un, upt)); // (commits the unit's group)
          return SmallVector<Value>{};
        },
        [&] {
          commitEmpty();
          return SmallVector<Value>{};
        });
    k.ptxEffect("cp.async.wait_group 1;", "", {});
    k.barrier();
    SmallVector<Value> wv = readUnit(buf);
    ArrayRef<Value> sw = ArrayRef<Value>(wv).drop_front(wordsPerUnit);
    Value xb = k.gep(xs, k.i16(), k.mul(buf, k.c64(stageElems)));
    for (int64_t j = 0; j < kSteps; ++j) {
      SmallVector<SmallVector<Value>> xv;
      for (int64_t tt = 0; tt < nt; ++tt) {
        Value at = k.add(k.mul(k.add(k.c64(tt * 8), g), k.c64(rowLen)),
                         k.add(k.c64(j * 32), k.mul(t, k.c64(8))));
        Value v4 = k.load(k.vec(4, k.i32()), k.gep(xb, k.i16(), at), 16);
        xv.push_back({k.extract(v4, 0), k.extract(v4, 1), k.extract(v4, 2), k.extract(v4, 3)});
      }
      // NVFP4: the scale pairs of rows g, g + 8 for this lane's half of
      // block j (byte 2j + t/2 of the row's unit bytes, in both 16-bit lanes).
      SmallVector<Value> nvPairs;
      for (int64_t h = 0; nv && h < 2; ++h) {
        Value dup = k.prmt(sw[4 * h + j / 2], k.c32(0), nvSel[j % 2]); // b<<24 | b<<8
        nvPairs.push_back(nvScalePair(k, scaleDec, dec, dup));
      }
      // MX: the block's steps into a fresh partial sum, then promoted.
      SmallVector<Value> part(mx ? 4 * nt : 0, k.cf32(0.0f));
      MutableArrayRef<Value> into = mx ? MutableArrayRef<Value>(part) : acc;
      for (int64_t s = 0; s < 2; ++s) {
        SmallVector<Value> a = decodeStep(k, dec, wv, j, s, nvPairs, kUnitLowWords);
        for (int64_t tt = 0; tt < nt; ++tt)
          mma(k, dec, into.slice(4 * tt, 4), a, {xv[tt][2 * s], xv[tt][2 * s + 1]});
      }
      for (int64_t h = 0; mx && h < 2; ++h) {
        Value word = sw[2 * h + j / 4];
        Value e = k.band(k.shru(word, k.c32(8 * (j % 4))), k.c32(0xFF));
        Value sf = e8m0ToF32(k, e);
        for (int64_t tt = 0; tt < nt; ++tt)
          for (int64_t i = 2 * h; i < 2 * h + 2; ++i)
            acc[tt * 4 + i] = LLVM::FMAOp::create(b, loc, part[tt * 4 + i], sf, acc[tt * 4 + i]);
      }
    }
    k.barrier(); // buffer `buf` is staged again one unit on
    SmallVector<Value> yields(acc);
    yields.push_back(other);
    scf::YieldOp::create(b, loc, yields);
  }
  SmallVector<Value> acc(inner.getResults().begin(), inner.getResults().begin() + 4 * nt);
  Value bufOut = inner.getResults().back();

  // The run's end: the result if it covered all of K, else the workspace.
  // Each CTA sharing the row group writes its partial sums to its own slot
  // (its place among those CTAs); the last to count its units adds the
  // slots up in slot order, so the result does not depend on who is last.
  Value whole = k.cmp(P::eq, runUnits, upt);
  ifElse(
      k, whole, {},
      [&] {
        epilogue(tile, acc);
        return SmallVector<Value>{};
      },
      [&] {
        Value firstCta = k.divu(k.mul(rg, upt), per);
        Value lastCta = k.divu(k.sub(k.mul(k.add(rg, k.c64(1)), upt), k.c64(1)), per);
        Value slot = k.sub(k.blockIdx(), firstCta);
        auto wsAt = [&](Value sl, Value m, Value n) {
          return k.gep(ws, k.f32(), k.add(k.mul(k.add(k.mul(sl, M), m), N), n));
        };
        for (int64_t tt = 0; tt < nt; ++tt)
          for (int64_t i = 0; i < 4; ++i) {
            Value n = channel(tile, i), m = token(tt, i);
            k.storeIf(k.cmp(P::ult, m, M), acc[tt * 4 + i], wsAt(slot, m, n), 4);
          }
        k.ptxEffect("membar.gl;", "", {});
        k.ptxEffect("bar.warp.sync -1;", "", {});
        Value counterIdx = k.add(k.mul(mChunk, tiles16), tile);
        Value runUnits32 = k.trunc(runUnits, k.i32());
        SmallVector<Value> done = ifElse(
            k, k.cmp(P::eq, lane, k.c64(0)), {k.i32()},
            [&] {
              Value old = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add,
                                                    k.gep(cnt, k.i32(), counterIdx), runUnits32,
                                                    LLVM::AtomicOrdering::monotonic);
              return SmallVector<Value>{k.add(old, runUnits32)};
            },
            [&] { return SmallVector<Value>{k.c32(0)}; });
        Value total = k.shuffleIdx(done[0], 0);
        when(k, k.cmp(P::eq, total, k.trunc(upt, k.i32())), [&] {
          k.ptxEffect("membar.gl;", "", {});
          SmallVector<Value> sum(4 * nt, k.cf32(0.0f));
          auto slots = scf::ForOp::create(b, loc, k.c64(0), k.add(k.sub(lastCta, firstCta),
                                                                   k.c64(1)),
                                          k.c64(1), sum);
          {
            OpBuilder::InsertionGuard g3(b);
            b.setInsertionPointToStart(slots.getBody());
            Value sl = slots.getInductionVar();
            Value mine = k.cmp(P::eq, sl, slot);
            SmallVector<Value> next;
            for (int64_t tt = 0; tt < nt; ++tt)
              for (int64_t i = 0; i < 4; ++i) {
                Value n = channel(tile, i), m = token(tt, i);
                // Another CTA's slot is read from L2 (ld.cg: L1 is not coherent).
                Value read = k.land(k.cmp(P::ult, m, M), k.cmp(P::ne, sl, slot));
                Value part = ifElse(
                    k, read, {k.f32()},
                    [&] {
                      return SmallVector<Value>{k.ptx(k.f32(), "ld.global.cg.f32 $0, [$1];",
                                                      "=f,l", {wsAt(sl, m, n)},
                                                      /*sideEffects=*/true)};
                    },
                    [&] { return SmallVector<Value>{k.cf32(0.0f)}; })[0];
                part = k.select(mine, acc[tt * 4 + i], part);
                next.push_back(k.fadd(slots.getRegionIterArgs()[tt * 4 + i], part));
              }
            scf::YieldOp::create(b, loc, next);
          }
          k.storeIf(k.cmp(P::eq, lane, k.c64(0)), k.c32(0), k.gep(cnt, k.i32(), counterIdx), 4);
          epilogue(tile, SmallVector<Value>(slots.getResults()));
        });
        return SmallVector<Value>{};
      });
  scf::YieldOp::create(b, loc, ValueRange{runEnd, bufOut});
  b.setInsertionPointAfter(loop);
  k.ptxEffect("cp.async.wait_group 0;", "", {});
  gpu::ReturnOp::create(b, loc);
  return desc;
}
