//===- FuseDequantMatmul.cpp - dequantize + matmul -> scaled_matmul -------===//
#include "fpx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
/// scaled matmul reads (a K x N weight would need its codes transposed). A
/// dequantized weight with another user stays as it is: it is written to
/// memory at full width anyway, and the fold would decode it twice.
struct FoldRhsDequant : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp mm, PatternRewriter &rewriter) const override {
    auto dq = mm.getRhs().getDefiningOp<DequantizeOp>();
    if (!dq || !mm.getTransposeB() || dq.getAmax() || dq.getScaleLayout() || !dq->hasOneUse())
      return failure();
    // A global scale per matrix (rank 1) belongs to a batch of weights.
    if (Value g = dq.getGlobalScale();
        g && cast<RankedTensorType>(g.getType()).getRank() != 0)
      return failure();
    auto sm = ScaledMatmulOp::create(
        rewriter, mm.getLoc(), mm.getResult().getType(), mm.getLhs(), Value(), Value(),
        dq.getInput(), dq.getScales(), dq.getGlobalScale(), /*bias=*/Value(), ScalingAttr(),
        dq.getScalingAttr(),
        FormatAttr(), dq.getElementFormat(), dq.getPackingAttr(), LayoutKindAttr(),
        LayoutKindAttr(), LayoutKindAttr());
    rewriter.replaceOp(mm, sm.getResult());
    rewriter.eraseOp(dq);
    return success();
  }
};

/// The 1-D bias that `v` broadcasts over the rows of a rank-2 tensor:
///   tensor.generate ... { ^bb0(%i: index, %j: index):
///     %e = tensor.extract %bias[%j] : tensor<N x T>; tensor.yield %e }
/// (a null Value for any other form).
Value broadcastBias(Value v) {
  auto gen = v.getDefiningOp<tensor::GenerateOp>();
  if (!gen || gen.getType().getRank() != 2)
    return Value();
  Block &body = gen.getBody().front();
  if (body.getNumArguments() != 2 || !llvm::hasSingleElement(body.without_terminator()))
    return Value();
  auto extract = dyn_cast<tensor::ExtractOp>(body.front());
  auto yield = cast<tensor::YieldOp>(body.getTerminator());
  if (!extract || yield.getValue() != extract.getResult() || extract.getIndices().size() != 1 ||
      extract.getIndices()[0] != body.getArgument(1))
    return Value();
  // The bias is defined outside the generate (not a per-element value).
  Value bias = extract.getTensor();
  if (bias.getParentRegion() == &gen.getBody() || gen.getBody().isAncestor(bias.getParentRegion()))
    return Value();
  return bias;
}

/// arith.addf(fpx.scaled_matmul(...), broadcast(bias)) (either order)
///   -> fpx.scaled_matmul(...) bias(bias)
/// when the matmul has no bias yet and no other user: the kernels add the
/// bias in f32 in their epilogue, before the cast to the result type (the
/// unfused form rounds the product to the result type first, so the fused
/// result is as accurate or more).
struct FoldBiasAdd : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add, PatternRewriter &rewriter) const override {
    for (int side = 0; side < 2; ++side) {
      Value mmValue = add->getOperand(side), other = add->getOperand(1 - side);
      auto sm = mmValue.getDefiningOp<ScaledMatmulOp>();
      if (!sm || sm.getBias() || !sm->hasOneUse() || add.getType() != sm.getType())
        continue;
      Value bias = broadcastBias(other);
      if (!bias)
        continue;
      auto bt = cast<RankedTensorType>(bias.getType());
      int64_t n = sm.getType().getDimSize(1), bn = bt.getDimSize(0);
      if (bt.getRank() != 1 ||
          (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(bn) && n != bn))
        continue;
      auto fused = ScaledMatmulOp::create(
          rewriter, add.getLoc(), sm.getType(), sm.getLhs(), sm.getLhsScales(),
          sm.getLhsGlobalScale(), sm.getRhs(), sm.getRhsScales(), sm.getRhsGlobalScale(), bias,
          sm.getLhsScalingAttr(), sm.getRhsScalingAttr(), sm.getLhsFormatAttr(),
          sm.getRhsFormatAttr(), sm.getRhsPackingAttr(), sm.getLhsPackingAttr(),
          sm.getLhsScaleLayoutAttr(), sm.getRhsScaleLayoutAttr());
      fused->setDiscardableAttrs(sm->getDiscardableAttrDictionary());
      rewriter.replaceOp(add, fused.getResult());
      rewriter.eraseOp(sm);
      return success();
    }
    return failure();
  }
};

/// arith.truncf(fpx.scaled_matmul(...) -> f32) -> fpx.scaled_matmul(...) -> T
/// when the matmul has no other user: the kernels accumulate in f32 and
/// round once to the result type (round to nearest even, as truncf), after
/// the scales and the bias, so the bits are the same.
struct FoldOutputCast : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp cast, PatternRewriter &rewriter) const override {
    auto sm = cast.getIn().getDefiningOp<ScaledMatmulOp>();
    auto to = dyn_cast<RankedTensorType>(cast.getType());
    if (!sm || !sm->hasOneUse() || !to || !sm.getType().getElementType().isF32() ||
        (cast.getRoundingmode() &&
         *cast.getRoundingmode() != arith::RoundingMode::to_nearest_even))
      return failure();
    auto fused = ScaledMatmulOp::create(
        rewriter, cast.getLoc(), to, sm.getLhs(), sm.getLhsScales(), sm.getLhsGlobalScale(),
        sm.getRhs(), sm.getRhsScales(), sm.getRhsGlobalScale(), sm.getBias(),
        sm.getLhsScalingAttr(), sm.getRhsScalingAttr(), sm.getLhsFormatAttr(),
        sm.getRhsFormatAttr(), sm.getRhsPackingAttr(), sm.getLhsPackingAttr(),
        sm.getLhsScaleLayoutAttr(), sm.getRhsScaleLayoutAttr());
    fused->setDiscardableAttrs(sm->getDiscardableAttrDictionary());
    rewriter.replaceOp(cast, fused.getResult());
    rewriter.eraseOp(sm);
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
  patterns.add<FoldRhsDequant, FoldBiasAdd, FoldOutputCast>(patterns.getContext());
}
