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

/// fpx.quantize(fpx.hadamard(x)) -> quantize(x) {hadamard, hadamard_seed}
struct FuseHadamard : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp q, PatternRewriter &rewriter) const override {
    auto h = q.getInput().getDefiningOp<HadamardOp>();
    if (!h || q.getHadamard() || !h.getResult().hasOneUse())
      return failure();
    rewriter.modifyOpInPlace(q, [&] {
      q.getInputMutable().assign(h.getInput());
      q.setHadamardAttr(h.getSizeAttr());
      q.setHadamardSeedAttr(h.getSeedAttr());
    });
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
