//===- FPxToGPU.cpp - spec functions -> gpu kernels + launch plan ---------===//
//
// Each spec function becomes a gpu.module of kernels plus an `fpx.function`
// record: its tensors (with symbolic shapes), temporaries, preconditions and
// launches. fpxc writes that record into the artifact's JSON; the runtime
// evaluates the shape expressions against the tensors it is given.
//
// This is the driver: it names the function's tensors, runs the op
// families' planners, hands each op to its family's lowering (one file per
// family, registered in populateOpLowerings) and writes the record.
//
//===----------------------------------------------------------------------===//
#include "fpx/Conversion/FPxToGPU/Lowerings.h"
#include "fpx/Conversion/Passes.h"

namespace fpx {
#define GEN_PASS_DEF_FPXCONVERTTOGPU
#include "fpx/Conversion/Passes.h.inc"
} // namespace fpx

using namespace mlir;
using namespace fpx;

namespace {

/// Every op family's lowerings. Their order is the order in which the
/// diagnostic for an op without a lowering lists the lowered ops.
void populateOpLowerings(OpLoweringSet &set) {
  populateQuantizeOpLowerings(set);
  populateDequantizeOpLowerings(set);
  populateAmaxOpLowerings(set);
  populateLayoutOpLowerings(set);
  populateHadamardOpLowerings(set);
  populateMatmulOpLowerings(set);
}

/// Generates the kernels of `c.func` and returns its launch record.
FailureOr<DictionaryAttr> lowerFunction(LoweringContext &c, const OpLoweringSet &lowerings) {
  func::FuncOp func = c.func;
  OpBuilder &b = c.b;

  // Arguments: tensors become inputs with one symbol per dynamic dim.
  SmallVector<Attribute> inputs;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    std::string name = "arg" + std::to_string(i);
    if (auto t = dyn_cast<RankedTensorType>(arg.getType())) {
      auto dt = artifactDType(t.getElementType());
      if (!dt)
        return func.emitError("argument ")
               << i << " has element type " << t.getElementType() << ", which kernels cannot take";
      Buffer buf{name, *dt, {}, "input", false};
      for (int64_t d = 0; d < t.getRank(); ++d)
        buf.shape.push_back(t.isDynamicDim(d) ? name + "_" + std::to_string(d)
                                              : std::to_string(t.getDimSize(d)));
      c.buffers[arg] = c.bufs.size();
      c.bufs.push_back(buf);
    } else if (arg.getType().isInteger(64)) {
      c.scalars[arg] = name;
      c.scalarRecs.push_back(DictionaryAttr::get(
          c.ctx(), {b.getNamedAttr("name", c.str(name)), b.getNamedAttr("type", c.str("i64")),
                    b.getNamedAttr("default", b.getI64IntegerAttr(0))}));
    } else {
      return func.emitError("argument ") << i << " has type " << arg.getType()
                                         << "; kernel specs take ranked tensors and i64 scalars";
    }
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(v) || c.returned.count(v))
      return ret.emitOpError("result ") << i << " must be a new tensor computed by the function";
    c.returned[v] = i;
  }

  lowerings.plan(c);
  for (Operation &op : func.getBody().front().without_terminator()) {
    const OpLoweringSet::Lowering *lower = lowerings.lookup(&op);
    if (!lower)
      return op.emitOpError("has no kernel lowering yet (lowered: ")
             << lowerings.loweredNames() << ")";
    if (failed((*lower)(c, &op)))
      return failure();
  }

  // The function record.
  auto tensorRec = [&](const Buffer &buf) {
    SmallVector<Attribute> shape;
    for (const std::string &d : buf.shape)
      shape.push_back(c.str(d));
    SmallVector<NamedAttribute> fields = {b.getNamedAttr("name", c.str(buf.name)),
                                          b.getNamedAttr("dtype", c.str(buf.dtype)),
                                          b.getNamedAttr("shape", ArrayAttr::get(c.ctx(), shape))};
    if (buf.zeroInit)
      fields.push_back(b.getNamedAttr("init", c.str(buf.keptZero ? "kept_zero" : "zero")));
    return DictionaryAttr::get(c.ctx(), fields);
  };
  SmallVector<Attribute> outputs(ret.getNumOperands()), temps;
  for (const Buffer &buf : c.bufs) {
    if (buf.kind == "input")
      inputs.push_back(tensorRec(buf));
    else if (buf.kind == "temp")
      temps.push_back(tensorRec(buf));
  }
  for (auto [v, idx] : c.returned)
    outputs[idx] = tensorRec(c.bufs[c.buffers[v]]);
  SmallVector<NamedAttribute> record = {
      b.getNamedAttr("name", c.str(func.getName())),
      b.getNamedAttr("inputs", ArrayAttr::get(c.ctx(), inputs)),
      b.getNamedAttr("scalars", ArrayAttr::get(c.ctx(), c.scalarRecs)),
      b.getNamedAttr("outputs", ArrayAttr::get(c.ctx(), outputs)),
      b.getNamedAttr("temps", ArrayAttr::get(c.ctx(), temps)),
      b.getNamedAttr("requires", ArrayAttr::get(c.ctx(), c.requires)),
      b.getNamedAttr("launches", ArrayAttr::get(c.ctx(), c.launches))};
  if (!c.links.empty()) // fpxc hoists it to the artifact's top-level "link"
    record.push_back(b.getNamedAttr("link", ArrayAttr::get(c.ctx(), c.links)));
  return DictionaryAttr::get(c.ctx(), record);
}

struct FPxConvertToGPU : public fpx::impl::FPxConvertToGPUBase<FPxConvertToGPU> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const TargetInfo *target = nullptr;
    if (!chip.empty() && !(target = lookupTarget(chip))) {
      module.emitError("unknown target '") << chip << "' (known: " << targetNames() << ")";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isDeclaration())
        continue;
      // Kernels are named NAME_quantize0 etc.: NAME_ must be a PTX
      // identifier (a '.', a space or a non-ASCII letter would abort LLVM's
      // PTX printer or make PTX that ptxas rejects).
      StringRef name = f.getName();
      if (!isPtxIdentifier((name + "_").str())) {
        f.emitError("function name '")
            << name << "' cannot name PTX kernels: use ASCII letters, digits, "
            << "'_' and '$', not starting with a digit";
        return signalPassFailure();
      }
      // Sizes are int64 expressions at run time (elements, bytes, grids):
      // a static shape must leave them room.
      auto types = llvm::concat<const Type>(f.getFunctionType().getInputs(),
                                            f.getFunctionType().getResults());
      for (Type t : types) {
        auto rt = dyn_cast<RankedTensorType>(t);
        if (!rt)
          continue;
        int64_t n = 1;
        bool overflow = false;
        for (int64_t d : rt.getShape())
          if (!ShapedType::isDynamic(d))
            overflow |= llvm::MulOverflow(n, d, n) || n > (int64_t(1) << 56);
        if (overflow) {
          f.emitError("tensor type ") << t << " has more than 2^56 elements";
          return signalPassFailure();
        }
      }
      funcs.push_back(f);
    }
    if (funcs.empty())
      return;
    OpLoweringSet lowerings;
    populateOpLowerings(lowerings);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "fpx_kernels");
    SmallVector<Attribute> records;
    for (func::FuncOp f : funcs) {
      LoweringContext context(f, b, gpuModule, target);
      FailureOr<DictionaryAttr> rec = lowerFunction(context, lowerings);
      if (failed(rec))
        return signalPassFailure();
      records.push_back(*rec);
      f.erase();
    }
    gpuModule->setAttr("fpx.functions", b.getArrayAttr(records));
  }
};

} // namespace
