//===- FuseDequantMatmul.cpp - dequantize + matmul -> scaled_matmul -------===//
#include "fpx/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace fpx {
#define GEN_PASS_DEF_FPXFUSEDEQUANTMATMUL
#include "fpx/Transforms/Passes.h.inc"
} // namespace fpx

using namespace mlir;
using namespace fpx;

namespace {

/// fpx.matmul(a, fpx.dequantize(w, s)) {transpose_b}
///   -> fpx.scaled_matmul(a, w scales(s)) {rhs_*}
/// Only the K-major (transpose_b) weight is folded: that is the layout the
/// scaled matmul reads.
struct FoldRhsDequant : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm, PatternRewriter &rewriter) const override {
    auto dq = mm.getRhs().getDefiningOp<DequantizeOp>();
    if (!dq || !mm.getTransposeB() || dq.getAmax() || dq.getScaleLayout())
      return failure();
    // A global scale per matrix (rank 1) belongs to a batch of weights.
    if (Value g = dq.getGlobalScale();
        g && cast<RankedTensorType>(g.getType()).getRank() != 0)
      return failure();
    auto sm = ScaledMatmulOp::create(
        rewriter, mm.getLoc(), mm.getResult().getType(), mm.getLhs(), Value(),
        dq.getInput(), dq.getScales(), dq.getGlobalScale(), ScalingAttr(),
        dq.getScalingAttr(),
        FormatAttr(), dq.getElementFormat(), dq.getPackingAttr());
    rewriter.replaceOp(mm, sm.getResult());
    if (dq->use_empty())
      rewriter.eraseOp(dq);
    return success();
  }
};

struct FPxFuseDequantMatmul
    : public fpx::impl::FPxFuseDequantMatmulBase<FPxFuseDequantMatmul> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseDequantMatmulPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void fpx::populateFuseDequantMatmulPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldRhsDequant>(patterns.getContext());
}
