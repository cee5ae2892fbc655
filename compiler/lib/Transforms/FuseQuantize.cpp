//===- FuseQuantize.cpp - fold pack / swizzle / hadamard into quantize ----===//
#include "fpx/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fpx {
#define GEN_PASS_DEF_FPXFUSEQUANTIZE
#include "fpx/Transforms/Passes.h.inc"
} // namespace fpx

using namespace mlir;
using namespace fpx;

namespace {

/// fpx.pack(fpx.quantize(x)) -> fpx.quantize(x) {packing}
struct FusePack : OpRewritePattern<PackOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PackOp pack, PatternRewriter &rewriter) const override {
    auto q = pack.getInput().getDefiningOp<QuantizeOp>();
    if (!q || q.getPacking() || !q.getResult().hasOneUse())
      return failure();
    FormatAttr fmt = q.getElementFormat();
    rewriter.modifyOpInPlace(q, [&] {
      q.setFormatAttr(fmt);
      q.setPackingAttr(pack.getLayoutAttr());
      q.getResult().setType(pack.getResult().getType());
    });
    rewriter.replaceOp(pack, q.getResult());
    return success();
  }
};

/// fpx.swizzle_scales(scales of fpx.quantize) -> quantize {scale_layout}
struct FuseSwizzle : OpRewritePattern<SwizzleScalesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SwizzleScalesOp sw, PatternRewriter &rewriter) const override {
    auto q = sw.getInput().getDefiningOp<QuantizeOp>();
    if (!q || sw.getOffsets() || q.getScaleLayout() || !q.getScales().hasOneUse() ||
        sw.getInput() != q.getScales())
      return failure();
    rewriter.modifyOpInPlace(q, [&] {
      q.setScaleLayoutAttr(sw.getLayoutAttr());
      q.getScales().setType(sw.getResult().getType());
    });
    rewriter.replaceOp(sw, q.getScales());
    return success();
  }
};

/// fpx.hadamard(x) used only by quantizes and amaxes -> each user takes x
/// with {hadamard, hadamard_seed}: the transform is recomputed in registers
/// by every kernel that reads x instead of being written to memory once and
/// read back (NVFP4 with RHT reads x twice either way: amax, then cast).
struct FuseHadamard : OpRewritePattern<HadamardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HadamardOp h, PatternRewriter &rewriter) const override {
    if (h.getResult().use_empty())
      return failure();
    for (OpOperand &use : h.getResult().getUses()) {
      Operation *user = use.getOwner();
      if (auto q = dyn_cast<QuantizeOp>(user)) {
        if (q.getHadamard() || use.getOperandNumber() != 0)
          return failure();
      } else if (auto a = dyn_cast<AmaxOp>(user)) {
        if (a.getHadamard())
          return failure();
      } else {
        return failure();
      }
    }
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : h.getResult().getUses())
      uses.push_back(&use);
    for (OpOperand *use : uses) {
      Operation *user = use->getOwner();
      rewriter.modifyOpInPlace(user, [&] {
        use->set(h.getInput());
        user->setAttr("hadamard", h.getSizeAttr());
        user->setAttr("hadamard_seed", h.getSeedAttr());
      });
    }
    rewriter.eraseOp(h);
    return success();
  }
};

struct FPxFuseQuantize : public fpx::impl::FPxFuseQuantizeBase<FPxFuseQuantize> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseQuantizePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void fpx::populateFuseQuantizePatterns(RewritePatternSet &patterns) {
  patterns.add<FusePack, FuseSwizzle, FuseHadamard>(patterns.getContext());
}
