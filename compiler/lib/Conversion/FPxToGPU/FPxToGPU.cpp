//===- FPxToGPU.cpp - spec functions -> gpu kernels + launch plan ---------===//
//
// Each spec function becomes a gpu.module of kernels plus an `fpx.function`
// record: its tensors (with symbolic shapes), temporaries, preconditions and
// launches. fpxc writes that record into the artifact's JSON; the runtime
// evaluates the shape expressions against the tensors it is given.
//
//===----------------------------------------------------------------------===//
#include "BlockQuantizeKernels.h"
#include "PerRowQuantizeKernels.h"
#include "DequantizeKernels.h"
#include "LayoutKernels.h"
#include "QuantizeKernels.h"
#include "fpx/Conversion/Passes.h"
#include "fpx/Target/TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

namespace fpx {
#define GEN_PASS_DEF_FPXCONVERTTOGPU
#include "fpx/Conversion/Passes.h.inc"
} // namespace fpx

using namespace mlir;
using namespace fpx;

namespace {

/// The tensor amax kernel's grid for `total` elements: one CTA per 2048
/// elements, at most 512 (a single wave on any GPU of 64 SMs or more, each
/// thread looping with four loads in flight). Measured on an H200 against a
/// cap of 2048 (two waves): the amax pass of a 16384x8192 tensor 3% faster,
/// 131072x7168 unchanged; caps of 264, 396, 528 and 660 no better. Both the
/// amax fused into a per-tensor quantize and the `fpx.amax` op use it.
std::string amaxGrid(const std::string &total) {
  return "min(cdiv(" + total + ", 2048), 512)";
}

/// The artifact's name for an element type.
std::optional<std::string> dtypeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  if (isa<Float8E4M3FNType>(t))
    return "f8e4m3fn";
  if (isa<Float8E5M2Type>(t))
    return "f8e5m2";
  if (isa<Float8E8M0FNUType>(t))
    return "f8e8m0fnu";
  if (t.isInteger(8) || isa<Float6E2M3FNType, Float6E3M2FNType, Float4E2M1FNType>(t))
    return "u8";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  return std::nullopt;
}

std::string par(const std::string &e) {
  bool simple = llvm::all_of(e, [](char c) { return isalnum(c) || c == '_'; });
  return simple ? e : "(" + e + ")";
}

/// A tensor of the launch plan: its buffer name and shape expressions.
struct Buffer {
  std::string name;
  std::string dtype;
  SmallVector<std::string> shape;
  std::string kind; // input, output, temp
  bool zeroInit = false;
};

class FunctionLowering {
public:
  FunctionLowering(func::FuncOp func, OpBuilder &b, gpu::GPUModuleOp gpuModule,
                   const TargetInfo *target)
      : func(func), b(b), gpuModule(gpuModule), target(target) {}

  /// Generates the kernels and returns the function's launch record.
  FailureOr<DictionaryAttr> run();

private:
  func::FuncOp func;
  OpBuilder &b;
  gpu::GPUModuleOp gpuModule;
  const TargetInfo *target; // null: target-neutral (sm_80's instructions)
  DenseMap<Value, unsigned> buffers; // value -> index in `bufs`
  SmallVector<Buffer> bufs;
  DenseMap<Value, std::string> scalars;
  DenseMap<Value, unsigned> returned; // value -> result index
  SmallVector<Attribute> launches, requires, scalarRecs;
  SmallVector<Attribute> links; // user symbols the kernels call (prologues)
  /// fpx.global_scale ops an NVFP4 cast of the same amax stores (by cast).
  DenseMap<Operation *, GlobalScaleOp> fusedGlobalScale;
  /// fpx.amax ops a row cast of the same input reduces as it casts (by cast);
  /// planAmaxFusion.
  DenseMap<Operation *, AmaxOp> fusedAmax;
  unsigned nextTemp = 0, nextKernel = 0;

  MLIRContext *ctx() { return b.getContext(); }
  Attribute str(StringRef s) { return StringAttr::get(ctx(), s); }

  /// The buffer a result value lands in (output if returned, else temp).
  FailureOr<Buffer *> defineBuffer(Operation *op, Value v,
                                   SmallVector<std::string> shape,
                                   bool zeroInit);
  std::string total(const Buffer &buf) {
    std::string t;
    for (const std::string &d : buf.shape)
      t = t.empty() ? par(d) : t + "*" + par(d);
    return t.empty() ? "1" : t;
  }
  void require(const std::string &expr, const std::string &message) {
    requires.push_back(DictionaryAttr::get(
        ctx(), {b.getNamedAttr("expr", str(expr)),
                b.getNamedAttr("message", str(message))}));
  }
  std::string kernelName(StringRef what) {
    return (func.getName() + "_" + what + std::to_string(nextKernel++)).str();
  }
  /// `shared`: dynamic shared memory, an expression evaluated at launch
  /// (none: 0 bytes).
  void addLaunch(KernelDesc k, ArrayRef<std::string> args,
                 ArrayRef<std::string> grid, const std::string &shared = "");

  LogicalResult lowerAmax(AmaxOp op);
  /// The shape of fpx.amax's result over `in`: none, or one value per matrix
  /// (a static count the input's matrix count must match: a requirement).
  SmallVector<std::string> amaxShape(AmaxOp op, const Buffer &in) {
    auto resTy = cast<RankedTensorType>(op.getResult().getType());
    if (resTy.getRank() == 0)
      return {};
    if (!resTy.isDynamicDim(0))
      require(par(in.shape[0]) + " - " + std::to_string(resTy.getDimSize(0)),
              "dimension 0 of " + in.name + " must be " + std::to_string(resTy.getDimSize(0)) +
                  " (the result holds that many amaxes, one per matrix)");
    return {in.shape[0]};
  }
  LogicalResult lowerGlobalScale(GlobalScaleOp op);
  /// Picks the NVFP4 cast each only-returned fpx.global_scale fuses into.
  void planGlobalScaleFusion();
  /// Picks the row cast each only-returned tensor fpx.amax fuses into: one
  /// of the same input (and transform) that reads a given amax, e.g. the
  /// previous step's under delayed scaling. The cast then also reduces
  /// max |x| of what it reads, so the input is read once instead of twice.
  void planAmaxFusion();
  /// A kernel storing NVFP4's global scale of `amax` in `out`: one thread,
  /// or one per value of a per-matrix amax; `grid` 0 launches nothing.
  void addGlobalScaleLaunch(Location loc, const Buffer &amax,
                            const std::string &out, const std::string &grid);
  LogicalResult lowerQuantize(QuantizeOp op);
  LogicalResult lowerColumnQuantize(QuantizeOp op, const Buffer &in,
                                    QuantizePlan plan, int64_t blockM);
  LogicalResult lowerBlockQuantize(QuantizeOp op, const Buffer &in,
                                   QuantizePlan plan, int64_t blockM,
                                   int64_t blockK);
  /// The buffer name of a tensor amax: the op's operand, or a new reduction.
  FailureOr<std::string> tensorAmaxFor(QuantizeOp op, const Buffer &in);
  /// The buffer of op's given amax ("" without one), marking the plan's
  /// tensorAmax where there is one.
  FailureOr<std::string> givenAmax(QuantizeOp op, const Buffer &in, QuantizePlan &plan);
  LogicalResult lowerDequantize(DequantizeOp op);
  LogicalResult lowerSwizzle(SwizzleScalesOp op);
  LogicalResult lowerPack(Operation *op, Value input, Value result,
                          LayoutKind layout, bool unpack);
  LogicalResult lowerHadamard(HadamardOp op);
  /// Defines a cast's data and scale buffers and returns the launch
  /// arguments every cast kernel takes: in, out, scales, [amax], [seed],
  /// then the two extents the kernel wants.
  FailureOr<SmallVector<std::string>>
  defineCastOutputs(QuantizeOp op, const Buffer &in, const QuantizePlan &plan,
                    SmallVector<std::string> outShape,
                    SmallVector<std::string> scaleShape, bool zeroScales,
                    const std::string &amaxName, const std::string &dim0,
                    const std::string &dim1);
  /// The buffer of an operand; a located error if no kernel wrote it.
  FailureOr<Buffer> inputBuffer(Operation *op, Value v);
  /// For `perMatrix`, one value per matrix of the rank-3 tensor `shape`
  /// (named `data`): requires as many values as matrices and matrices of a
  /// multiple of a cast CTA's elements (each CTA reads one value); returns
  /// the elements of a matrix (the kernels' `matrix` parameter).
  std::string perMatrixExtent(const Buffer &perMatrix, StringRef what,
                              ArrayRef<std::string> shape, const std::string &data) {
    std::string matrix = par(shape[1]) + "*" + par(shape[2]);
    std::string cta = std::to_string(kCtaElements);
    require(par(perMatrix.shape[0]) + " - " + par(shape[0]),
            "dimension 0 of " + perMatrix.name + " must be " + shape[0] + " (" +
                "one " + what.str() + " per matrix of " + data + ")");
    require(par(matrix) + " % " + cta, "a per-matrix " + what.str() +
                                           " needs matrices of a multiple of " + cta +
                                           " elements; " + data + "'s have " + matrix);
    return matrix;
  }
};

FailureOr<Buffer *> FunctionLowering::defineBuffer(Operation *op, Value v,
                                                   SmallVector<std::string> shape,
                                                   bool zeroInit) {
  auto dt = dtypeName(cast<RankedTensorType>(v.getType()).getElementType());
  if (!dt)
    return op->emitOpError("result element type has no artifact dtype");
  Buffer buf;
  auto it = returned.find(v);
  if (it != returned.end()) {
    buf.name = "result" + std::to_string(it->second);
    buf.kind = "output";
  } else {
    buf.name = "tmp" + std::to_string(nextTemp++);
    buf.kind = "temp";
  }
  buf.dtype = *dt;
  buf.shape = std::move(shape);
  buf.zeroInit = zeroInit;
  buffers[v] = bufs.size();
  bufs.push_back(std::move(buf));
  return &bufs.back();
}

void FunctionLowering::addLaunch(KernelDesc k, ArrayRef<std::string> args,
                                 ArrayRef<std::string> grid, const std::string &shared) {
  SmallVector<Attribute> gridAttrs, paramAttrs, argAttrs;
  for (const std::string &g : grid)
    gridAttrs.push_back(str(g));
  // the CTA size the kernel was built for (its nvvm.maxntid)
  int64_t threads = kThreads;
  if (auto ntid = k.func->getAttrOfType<DenseI32ArrayAttr>("nvvm.maxntid"))
    threads = ntid[0];
  int64_t sharedConst = 0;
  Attribute sharedAttr = shared.empty() || !StringRef(shared).getAsInteger(10, sharedConst)
                             ? Attribute(b.getI64IntegerAttr(sharedConst))
                             : Attribute(str(shared));
  for (auto [name, type] :
       llvm::zip(k.params, k.func.getFunctionType().getInputs())) {
    StringRef t = isa<LLVM::LLVMPointerType>(type) ? "ptr"
                  : type.isInteger(64)             ? "i64"
                  : type.isInteger(32)             ? "i32"
                                                   : "f32";
    paramAttrs.push_back(DictionaryAttr::get(
        ctx(), {b.getNamedAttr("name", str(name)), b.getNamedAttr("type", str(t))}));
  }
  k.func->setAttr(
      "fpx.kernel",
      DictionaryAttr::get(
          ctx(), {b.getNamedAttr("block", b.getI64ArrayAttr({threads, 1, 1})),
                  b.getNamedAttr("grid", ArrayAttr::get(ctx(), gridAttrs)),
                  b.getNamedAttr("shared_bytes", sharedAttr),
                  b.getNamedAttr("params", ArrayAttr::get(ctx(), paramAttrs))}));
  for (const std::string &a : args)
    argAttrs.push_back(str(a));
  launches.push_back(DictionaryAttr::get(
      ctx(), {b.getNamedAttr("kernel", str(k.func.getName())),
              b.getNamedAttr("args", ArrayAttr::get(ctx(), argAttrs))}));
}

LogicalResult FunctionLowering::lowerAmax(AmaxOp op) {
  for (auto &[cast, am] : fusedAmax)
    if (am == op)
      return success(); // the cast reduces it (defineCastOutputs)
  auto it = buffers.find(op.getInput());
  if (it == buffers.end())
    return op.emitOpError("input must be a function argument or a kernel result");
  Buffer in = bufs[it->second];
  // One amax, or one per matrix of a rank-3 input (grid y: the matrix).
  SmallVector<std::string> shape = amaxShape(op, in);
  bool perMatrix = !shape.empty();
  auto res = defineBuffer(op, op.getResult(), shape, /*zeroInit=*/true);
  if (failed(res))
    return failure();
  std::string outName = (*res)->name;
  std::string t = perMatrix ? par(in.shape[1]) + "*" + par(in.shape[2]) : total(in);
  require(par(t) + " % 8", "the number of elements of " +
                               std::string(perMatrix ? "a matrix of " : "") + in.name +
                               " must be a multiple of 8");
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  int64_t h = op.getHadamard().value_or(0);
  if (h)
    require(par(in.shape.back()) + " % " + std::to_string(h),
            "the innermost dimension of " + in.name +
                " must be a multiple of the Hadamard size " + std::to_string(h));
  KernelDesc k = buildAmaxKernel(
      b, op.getLoc(), kernelName("amax"), op.getInput().getType().getElementType(), h,
      static_cast<uint64_t>(op.getHadamardSeed().value_or(0)), perMatrix);
  addLaunch(k, {in.name, outName, t},
            {amaxGrid(t), perMatrix ? in.shape[0] : "1", "1"});
  return success();
}

/// Whether fpx.quantize `op` scales row blocks [1, ..., 1, N] (lowered by the
/// row cast, as per-tensor scaling is).
static bool hasRowBlocks(QuantizeOp op) {
  ScalingAttr scaling = op.getScaling();
  ArrayRef<int64_t> block = scaling.getBlock();
  if (scaling.isPerTensor() || block.back() <= 0 || op.getTransposed())
    return false;
  return llvm::all_of(block.drop_back(), [](int64_t b) { return b == 1; });
}

void FunctionLowering::planAmaxFusion() {
  auto onlyReturned = [](Value v) {
    return llvm::all_of(v.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
  };
  auto rank = [](Value v) { return cast<RankedTensorType>(v.getType()).getRank(); };
  for (AmaxOp am : func.getBody().front().getOps<AmaxOp>()) {
    // An amax no kernel reads: the cast may produce it whenever it runs. One
    // per matrix fuses into a cast reading one per matrix (each tile's
    // maximum goes to its matrix's).
    if (!onlyReturned(am.getResult()))
      continue;
    for (Operation *user : am.getInput().getUsers()) {
      auto q = dyn_cast<QuantizeOp>(user);
      if (!q || q.getInput() != am.getInput() || !q.getAmax() ||
          rank(q.getAmax()) != rank(am.getResult()) ||
          q.getPrologue() || fusedAmax.count(q) ||
          !(q.getScaling().isPerTensor() || hasRowBlocks(q)) ||
          q.getHadamard() != am.getHadamard() ||
          q.getHadamardSeed().value_or(0) != am.getHadamardSeed().value_or(0))
        continue;
      fusedAmax[q] = am;
      break;
    }
  }
}

void FunctionLowering::planGlobalScaleFusion() {
  for (GlobalScaleOp gs : func.getBody().front().getOps<GlobalScaleOp>()) {
    // Only returned: no kernel reads it, so the cast may write it whenever
    // it runs.
    if (!llvm::all_of(gs->getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); }))
      continue;
    for (Operation *user : gs.getAmax().getUsers()) {
      auto q = dyn_cast<QuantizeOp>(user);
      if (q && q.getAmax() == gs.getAmax() &&
          isa<Float8E4M3FNType>(q.getScaling().getScaleType()) &&
          !fusedGlobalScale.count(q)) {
        fusedGlobalScale[q] = gs;
        break;
      }
    }
  }
}

LogicalResult FunctionLowering::lowerGlobalScale(GlobalScaleOp op) {
  for (auto &[cast, gs] : fusedGlobalScale)
    if (gs == op)
      return success(); // the cast stores it (defineCastOutputs)
  FailureOr<Buffer> a = inputBuffer(op, op.getAmax());
  if (failed(a))
    return failure();
  auto res = defineBuffer(op, op.getResult(), a->shape, /*zeroInit=*/false);
  if (failed(res))
    return failure();
  addGlobalScaleLaunch(op.getLoc(), *a, (*res)->name, "1");
  return success();
}

void FunctionLowering::addGlobalScaleLaunch(Location loc, const Buffer &amax,
                                            const std::string &out,
                                            const std::string &grid) {
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  bool many = !amax.shape.empty(); // one per matrix: a thread each
  KernelDesc k = buildGlobalScaleKernel(b, loc, kernelName("global_scale"), many);
  if (!many) {
    addLaunch(k, {amax.name, out}, {grid, "1", "1"});
    return;
  }
  std::string n = amax.shape[0];
  addLaunch(k, {amax.name, out, n},
            {par(grid) + "*cdiv(" + n + ", " + std::to_string(kThreads) + ")", "1", "1"});
}

FailureOr<SmallVector<std::string>> FunctionLowering::defineCastOutputs(
    QuantizeOp op, const Buffer &in, const QuantizePlan &plan,
    SmallVector<std::string> outShape, SmallVector<std::string> scaleShape,
    bool zeroScales, const std::string &amaxName, const std::string &dim0,
    const std::string &dim1) {
  auto q = defineBuffer(op, op.getResult(), std::move(outShape), false);
  if (failed(q))
    return failure();
  std::string qName = (*q)->name;
  auto s = defineBuffer(op, op.getScales(), std::move(scaleShape), zeroScales);
  if (failed(s))
    return failure();
  SmallVector<std::string> args = {in.name, qName, (*s)->name};
  if (plan.tensorAmax)
    args.push_back(amaxName);
  if (plan.globalScaleOut) {
    GlobalScaleOp gs = fusedGlobalScale.lookup(op);
    // a copy: defineBuffer below may move bufs
    Buffer amax = bufs[buffers.find(op.getAmax())->second];
    auto g = defineBuffer(gs, gs.getResult(), amax.shape, false);
    if (failed(g))
      return failure();
    args.push_back((*g)->name);
    // The cast's first CTA (of each matrix, with an amax per matrix) stores
    // g; an empty input launches no CTA, and then (only then: the grid is 0
    // otherwise) a kernel of its own does.
    addGlobalScaleLaunch(op.getLoc(), amax, (*g)->name, "1-min(" + total(in) + ", 1)");
  }
  if (plan.amaxOut) {
    AmaxOp am = fusedAmax.lookup(op);
    // zeroed before the launch: the CTAs' maxima meet there by atomic max
    auto a = defineBuffer(am, am.getResult(), amaxShape(am, in), /*zeroInit=*/true);
    if (failed(a))
      return failure();
    args.push_back((*a)->name);
  }
  if (plan.rounding == RoundingKind::rs) {
    auto si = scalars.find(op.getSeed());
    if (si == scalars.end())
      return op.emitOpError("seed must be a function argument");
    args.push_back(si->second);
  }
  args.push_back(dim0);
  args.push_back(dim1);
  return args;
}

FailureOr<Buffer> FunctionLowering::inputBuffer(Operation *op, Value v) {
  auto it = buffers.find(v);
  if (it == buffers.end())
    return op->emitOpError("input must be a function argument or a kernel result");
  return bufs[it->second];
}

LogicalResult FunctionLowering::lowerSwizzle(SwizzleScalesOp op) {
  FailureOr<Buffer> in = inputBuffer(op, op.getInput());
  if (failed(in))
    return failure();
  if (op.getInput().getType().getElementType().getIntOrFloatBitWidth() != 8)
    return op.emitOpError("blocked_128x4 kernels swizzle 8-bit scales");
  std::string R = in->shape[0], C = in->shape[1];
  // With offsets (group end rows) each group of rows is tiled on its own,
  // in the op's upper-bound result of R + 128 rows a group.
  std::optional<Buffer> ends;
  if (Value offs = op.getOffsets()) {
    FailureOr<Buffer> e = inputBuffer(op, offs);
    if (failed(e))
      return failure();
    ends = *e;
  }
  std::string rows = ends ? R + "+128*" + par(ends->shape[0]) : R;
  SmallVector<std::string> outShape = {"cdiv(" + rows + ", 128)*128", "cdiv(" + C + ", 4)*4"};
  auto o = defineBuffer(op, op.getResult(), outShape, false);
  if (failed(o))
    return failure();
  std::string outName = (*o)->name;
  std::string bands = "cdiv(" + rows + ", 128)";
  // A CTA a band's strip of 64 scale columns, the strips of a band adjacent.
  SmallVector<std::string> grid = {bands + "*cdiv(" + C + ", 64)", "1", "1"};
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  if (!ends) {
    KernelDesc k = buildBandSwizzleKernel(b, op.getLoc(), kernelName("swizzle"), gpuModule,
                                          /*grouped=*/false);
    addLaunch(k, {in->name, outName, R, C}, grid);
    return success();
  }
  // Each CTA finds its band's input rows from the group ends itself. With
  // no rows and some groups there are bands but no scales to read (the
  // kernel reads at the input's start even where it keeps nothing):
  // nonzero exactly when R = 0 and G > 0.
  std::string G = par(ends->shape[0]);
  require(G + " / (" + par(R) + "*(" + G + "+1) + 1)",
          "a grouped blocked swizzle needs at least one row of scales");
  KernelDesc k = buildBandSwizzleKernel(b, op.getLoc(), kernelName("swizzle_groups"),
                                        gpuModule, /*grouped=*/true);
  addLaunch(k, {in->name, outName, ends->name, ends->shape[0], R, C}, grid);
  return success();
}

LogicalResult FunctionLowering::lowerPack(Operation *op, Value input, Value result,
                                          LayoutKind layout, bool unpack) {
  FailureOr<Buffer> in = inputBuffer(op, input);
  if (failed(in))
    return failure();
  auto codesTy = cast<RankedTensorType>(unpack ? result.getType() : input.getType());
  FormatAttr fmtAttr = FormatAttr::fromType(codesTy.getElementType());
  if (!fmtAttr)
    fmtAttr = op->getAttrOfType<FormatAttr>("format");
  if (!fmtAttr)
    return op->emitOpError("needs a format to lower");
  // The unpacked innermost dimension: the input's for pack, derived for unpack.
  SmallVector<std::string> outShape(in->shape.begin(), in->shape.end());
  std::string inner = in->shape.back();
  std::string cols;
  switch (layout) {
  case LayoutKind::fp4x2:
    cols = unpack ? par(inner) + "*2" : inner;
    outShape.back() = unpack ? cols : par(inner) + "/2";
    break;
  case LayoutKind::fp6_4p2:
  case LayoutKind::fp6_packed:
    cols = unpack ? par(inner) + "/3*4" : inner;
    outShape.back() = unpack ? cols : par(inner) + "/4*3";
    break;
  case LayoutKind::fp6_byte:
    cols = inner;
    break;
  default:
    return op->emitOpError("no kernel for layout ") << stringifyLayoutKind(layout);
  }
  if (!unpack && layout == LayoutKind::fp6_byte)
    return op->emitOpError("packing to fp6_byte keeps one code per byte: nothing to do");
  std::string total;
  for (size_t i = 0; i + 1 < in->shape.size(); ++i)
    total += par(in->shape[i]) + "*";
  total += par(cols);
  require(par(cols) + " % " + std::string(layout == LayoutKind::fp6_4p2 ? "16" : "8"),
          "the unpacked innermost dimension of " + in->name + " must be a multiple of " +
              std::string(layout == LayoutKind::fp6_4p2 ? "16" : "8"));
  if (layout == LayoutKind::fp6_4p2 || layout == LayoutKind::fp6_packed)
    require(par(inner) + (unpack ? " % 3" : " % 4"),
            "the innermost dimension of " + in->name + " does not split into fp6 groups");
  auto o = defineBuffer(op, result, outShape, false);
  if (failed(o))
    return failure();
  std::string outName = (*o)->name;
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  KernelDesc k = unpack ? buildUnpackKernel(b, op->getLoc(), kernelName("unpack"), layout)
                        : buildPackKernel(b, op->getLoc(), kernelName("pack"), layout,
                                          fmtAttr.getFormat());
  addLaunch(k, {in->name, outName, total, cols},
            {"cdiv(" + total + ", " + std::to_string(kVec * kThreads) + ")", "1", "1"});
  return success();
}

LogicalResult FunctionLowering::lowerHadamard(HadamardOp op) {
  FailureOr<Buffer> in = inputBuffer(op, op.getInput());
  if (failed(in))
    return failure();
  int64_t n = op.getSize();
  std::string inner = in->shape.back();
  require(par(inner) + " % " + std::to_string(std::max<int64_t>(n, 8)),
          "the innermost dimension of " + in->name + " must be a multiple of " +
              std::to_string(std::max<int64_t>(n, 8)));
  auto o = defineBuffer(op, op.getResult(),
                        SmallVector<std::string>(in->shape.begin(), in->shape.end()), false);
  if (failed(o))
    return failure();
  std::string outName = (*o)->name, t = total(*in);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  KernelDesc k = buildHadamardKernel(b, op.getLoc(), kernelName("hadamard"),
                                     op.getInput().getType().getElementType(), n,
                                     static_cast<uint64_t>(op.getSeed()));
  addLaunch(k, {in->name, outName, t},
            {"cdiv(" + t + ", " + std::to_string(kVec * kThreads) + ")", "1", "1"});
  return success();
}

FailureOr<std::string> FunctionLowering::tensorAmaxFor(QuantizeOp op,
                                                      const Buffer &in) {
  if (Value a = op.getAmax()) {
    auto ai = buffers.find(a);
    if (ai == buffers.end())
      return op.emitOpError("amax must be a function argument or a kernel result");
    return bufs[ai->second].name;
  }
  std::string tmp = "tmp" + std::to_string(nextTemp++);
  bufs.push_back(Buffer{tmp, "f32", {}, "temp", true});
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  std::string t = total(in);
  KernelDesc k = buildAmaxKernel(
      b, op.getLoc(), kernelName("amax"), op.getInput().getType().getElementType(),
      op.getHadamard().value_or(0),
      static_cast<uint64_t>(op.getHadamardSeed().value_or(0)));
  addLaunch(k, {in.name, tmp, t}, {amaxGrid(t), "1", "1"});
  return tmp;
}

FailureOr<std::string> FunctionLowering::givenAmax(QuantizeOp op, const Buffer &in,
                                                   QuantizePlan &plan) {
  if (!op.getAmax())
    return std::string();
  FailureOr<std::string> a = tensorAmaxFor(op, in);
  if (succeeded(a))
    plan.tensorAmax = true;
  return a;
}

LogicalResult FunctionLowering::lowerColumnQuantize(QuantizeOp op,
                                                    const Buffer &in,
                                                    QuantizePlan plan,
                                                    int64_t blockM) {
  if (blockM % kVec || kColTileRows % blockM)
    return op.emitOpError("column blocks must be a multiple of 8 that divides ")
           << kColTileRows << ", got " << blockM;
  if (plan.packing && *plan.packing != LayoutKind::fp4x2)
    return op.emitOpError("transposed casts pack fp4x2 only");
  if (plan.elem.bits() == 6)
    return op.emitOpError("no transposed lowering yet for fp6");
  if (plan.hadamard)
    return op.emitOpError("no transposed lowering yet for a fused Hadamard transform");
  if (plan.blockedScales && plan.scaleKind == num::ScaleKind::FP32)
    return op.emitOpError("blocked_128x4 scales are byte scales (E8M0 or NVFP4's e4m3)");
  if (plan.elem.bits() <= 4 && plan.packing != LayoutKind::fp4x2)
    return op.emitOpError("fp4 results are lowered packed: add packing = "
                          "#fpx.layout<fp4x2>");
  size_t rank = in.shape.size();
  std::string E = rank == 3 ? in.shape[0] : "1";
  std::string M = in.shape[rank - 2], K = in.shape[rank - 1];
  require(par(M) + " % " + std::to_string(blockM),
          "dimension " + std::to_string(rank - 2) + " of " + in.name +
              " must be a multiple of " + std::to_string(blockM) +
              " (the scaling block)");
  require(par(K) + " % 8", "the innermost dimension of " + in.name +
                               " must be a multiple of 8");
  FailureOr<std::string> amaxName = givenAmax(op, in, plan);
  if (failed(amaxName))
    return failure();
  SmallVector<std::string> outShape, scaleShape;
  if (rank == 3) {
    outShape.push_back(E);
    scaleShape.push_back(E);
  }
  outShape.push_back(K);
  outShape.push_back(plan.packing ? par(M) + "/2" : M);
  std::string blocks = par(M) + "/" + std::to_string(blockM);
  if (plan.blockedScales) { // each matrix's (K, M / blockM) scales, padded
    scaleShape.push_back("cdiv(" + K + ", 128)*128");
    scaleShape.push_back("cdiv(" + blocks + ", 4)*4");
  } else {
    scaleShape.push_back(K);
    scaleShape.push_back(blocks);
  }
  FailureOr<SmallVector<std::string>> castArgs = defineCastOutputs(
      op, in, plan, outShape, scaleShape, plan.blockedScales, *amaxName, M, K);
  if (failed(castArgs))
    return failure();
  SmallVector<std::string> args = std::move(*castArgs);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  std::string rowTiles = "cdiv(" + M + ", " + std::to_string(kColTileRows) + ")";
  auto colTiles = [&](bool narrow) {
    return "cdiv(" + K + ", " + std::to_string(colTileCols(plan.inElem, narrow)) + ")";
  };
  KernelDesc k = buildColQuantizeKernel(b, op.getLoc(), kernelName("quantize_t"),
                                        blockM, plan, gpuModule);
  if (!colTunedForHopper(plan)) {
    addLaunch(k, args, {rowTiles, colTiles(false), E});
    return success();
  }
  // Casts of few tiles (under kColNarrowTilesPerSM 128 x 128 tiles an SM) take
  // the narrow tile's kernel: at (1, 2048, 7168) its access pattern alone
  // moved bytes 6-10% faster on an H100, at 4096 rows and more as fast or
  // slower; the cast there 76.5-77.1 -> 79.1-79.8% of copy (with 128
  // threads a CTA, a column pair each, 78.3-78.6%; at six CTAs an SM,
  // spilling, 75.8-76.2%; docs/results/2026-11-25-h100-25). Each launch's
  // grid is 0 where the other takes the cast.
  std::string few = "(1-min(" + rowTiles + "*" + colTiles(false) + "*" + par(E) + "/(" +
                    std::to_string(kColNarrowTilesPerSM) + "*sm_count), 1))";
  addLaunch(k, args, {rowTiles + "*(1-" + few + ")", colTiles(false), E});
  KernelDesc kn = buildColQuantizeKernel(b, op.getLoc(), kernelName("quantize_tn"),
                                         blockM, plan, gpuModule, /*narrow=*/true);
  addLaunch(kn, args, {rowTiles + "*" + few, colTiles(true), E});
  return success();
}

LogicalResult FunctionLowering::lowerBlockQuantize(QuantizeOp op,
                                                   const Buffer &in,
                                                   QuantizePlan plan,
                                                   int64_t blockM,
                                                   int64_t blockK) {
  std::string why;
  FailureOr<Block2DTiling> tiling =
      block2DTiling(blockM, blockK, plan.inElem, why);
  if (failed(tiling))
    return op.emitOpError(why);
  if (plan.elem.bits() <= 4 && plan.packing != LayoutKind::fp4x2)
    return op.emitOpError("fp4 results are lowered packed: add packing = "
                          "#fpx.layout<fp4x2>");
  if (plan.packing && *plan.packing != LayoutKind::fp4x2 &&
      *plan.packing != LayoutKind::fp6_byte)
    return op.emitOpError("2-D block casts pack fp4x2 only (or one code per byte)");
  if (plan.blockedScales)
    return op.emitOpError("no 2-D block lowering yet for blocked_128x4 scales");
  if (plan.hadamard)
    return op.emitOpError("no 2-D block lowering yet for a fused Hadamard transform");
  size_t rank = in.shape.size();
  std::string M = in.shape[rank - 2], K = in.shape[rank - 1];
  std::string E = rank == 3 ? in.shape[0] : "1";
  std::string sm = std::to_string(blockM), sk = std::to_string(blockK);
  require(par(M) + " % " + sm, "dimension " + std::to_string(rank - 2) + " of " +
                                   in.name + " must be a multiple of " + sm +
                                   " (the scaling block)");
  require(par(K) + " % " + sk, "the innermost dimension of " + in.name +
                                   " must be a multiple of " + sk +
                                   " (the scaling block)");
  FailureOr<std::string> amaxName = givenAmax(op, in, plan);
  if (failed(amaxName))
    return failure();
  SmallVector<std::string> outShape(in.shape.begin(), in.shape.end());
  if (plan.packing == LayoutKind::fp4x2)
    outShape.back() = par(K) + "/2";
  SmallVector<std::string> scaleShape(in.shape.begin(), in.shape.end());
  scaleShape[rank - 2] = par(M) + "/" + sm;
  scaleShape[rank - 1] = par(K) + "/" + sk;
  FailureOr<SmallVector<std::string>> castArgs =
      defineCastOutputs(op, in, plan, outShape, scaleShape, false, *amaxName, M, K);
  if (failed(castArgs))
    return failure();
  SmallVector<std::string> args = std::move(*castArgs);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  KernelDesc k = buildBlock2DQuantizeKernel(b, op.getLoc(), kernelName("quantize_b"),
                                            *tiling, plan, gpuModule);
  addLaunch(k, args,
            {par(M) + "/" + sm,
             "cdiv(" + K + ", " + std::to_string(tiling->tileCols) + ")", E});
  return success();
}

LogicalResult FunctionLowering::lowerQuantize(QuantizeOp op) {
  auto inTy = op.getInput().getType();
  auto it = buffers.find(op.getInput());
  if (it == buffers.end())
    return op.emitOpError("input must be a function argument or a kernel result");
  Buffer in = bufs[it->second];
  ScalingAttr scaling = op.getScaling();
  ArrayRef<int64_t> block = scaling.getBlock();
  int64_t rank = inTy.getRank();

  QuantizePlan plan;
  plan.inElem = inTy.getElementType();
  plan.elem = op.getElementFormat().getFormat();
  plan.rule = scaling.getRule();
  plan.rounding = op.getRounding();
  plan.satfinite = !op.getOverflowToSpecial();
  plan.packing = op.getPacking();
  plan.blockedScales = op.getScaleLayout() == LayoutKind::blocked_128x4;
  plan.bf16AbsMinMax = target && target->has(Bf16x2Math);
  plan.hopperShapes = target && target->tuning == Tuning::Hopper;
  plan.globalScaleOut = fusedGlobalScale.count(op) != 0;
  plan.amaxOut = fusedAmax.count(op) != 0;
  Type st = scaling.getScaleType();
  if (isa<Float8E8M0FNUType>(st))
    plan.scaleKind = num::ScaleKind::E8M0;
  else if (isa<Float8E4M3FNType>(st))
    plan.scaleKind = num::ScaleKind::NVFP4;
  else if (st.isF32())
    plan.scaleKind = num::ScaleKind::FP32;
  else
    return op.emitOpError("no kernel lowering yet for ") << st << " scales";
  if (std::optional<int64_t> h = op.getHadamard()) {
    plan.hadamard = *h;
    plan.hadamardSeed = static_cast<uint64_t>(op.getHadamardSeed().value_or(0));
  }

  // Row blocks: every scaled dim but the last has block 1. Column blocks
  // (blockM x 1 over the last two dims) are lowered transposed.
  bool perTensor = scaling.isPerTensor();
  size_t lead = rank - block.size();
  bool rowBlocks = hasRowBlocks(op);
  bool colBlocks = block.size() >= 2 && block.back() == 1 &&
                   block[block.size() - 2] > 1 && rank >= 2 && rank <= 3;
  for (size_t i = 0; i + 2 < block.size(); ++i)
    colBlocks &= block[i] == 1;
  // One scale a row ([1, *], e.g. fp8 rowwise): PerRowQuantizeKernels.cpp.
  bool perRow = !perTensor && block.back() < 0 && !op.getTransposed() &&
                llvm::all_of(block.drop_back(), [](int64_t b) { return b == 1; });
  if (std::optional<StringRef> pro = op.getPrologue()) {
    if (!rowBlocks)
      return op.emitOpError("prologue is lowered for row blocks [1, N] only");
    plan.prologue = pro->str();
    Attribute rec = DictionaryAttr::get(
        ctx(), {b.getNamedAttr("symbol", str(*pro)),
                b.getNamedAttr("signature", str("float(float)"))});
    if (!llvm::is_contained(links, rec))
      links.push_back(rec);
  }
  if (Value a = op.getAmax();
      a && cast<RankedTensorType>(a.getType()).getRank() == 1 && !rowBlocks)
    return op.emitOpError("a per-matrix amax is lowered for row blocks [1, N] only");
  if (colBlocks && !op.getTransposed())
    return op.emitOpError("column blocks are lowered with `transposed` (the "
                          "column-major output a GEMM's right operand wants)");
  if (op.getTransposed() && !colBlocks)
    return op.emitOpError("`transposed` is lowered for column blocks [N, 1] only");
  // 2-D blocks [Br, Bc] over the last two dims (BlockQuantizeKernels.cpp).
  bool blocks2D = block.size() >= 2 && block.back() > 1 &&
                  block[block.size() - 2] > 1 && rank >= 2 && rank <= 3;
  for (size_t i = 0; i + 2 < block.size(); ++i)
    blocks2D &= block[i] == 1;
  if (blocks2D)
    return lowerBlockQuantize(op, in, plan, block[block.size() - 2], block.back());
  if (!perTensor && !rowBlocks && !colBlocks && !perRow)
  {
    std::string shape;
    for (int64_t b : block)
      shape += (shape.empty() ? "" : ", ") + (b < 0 ? std::string("*") : std::to_string(b));
    return op.emitOpError("no kernel lowering yet for block shape [")
           << shape << "] (lowered: row blocks [1, N], per row [1, *], column "
                       "blocks [N, 1] with `transposed`, 2-D blocks and per-tensor [*, *])";
  }
  if (perRow && plan.hadamard)
    return op.emitOpError("no per-row lowering yet for a fused Hadamard transform");
  if (perRow && plan.blockedScales)
    return op.emitOpError("blocked_128x4 scales take blocks of 16 or 32 along rows, "
                          "not one scale a row");
  if (colBlocks)
    return lowerColumnQuantize(op, in, plan, block[block.size() - 2]);
  if (plan.blockedScales && in.shape.size() != 2)
    return op.emitOpError("no row-block lowering yet for rank-3 data with blocked_128x4 "
                          "scales (a layout per matrix)");
  if (rowBlocks) {
    int64_t bk = block.back();
    if (bk % kVec || bk / kVec > 32)
      return op.emitOpError("row blocks must be a multiple of 8 and at most "
                            "256 long, got ")
             << bk;
    plan.blockK = bk;
  } else {
    plan.blockK = 0;
  }
  if (plan.elem.bits() <= 4 && plan.packing != LayoutKind::fp4x2)
    return op.emitOpError("fp4 results are lowered packed: add packing = "
                          "#fpx.layout<fp4x2>");
  (void)lead;

  // Shapes.
  SmallVector<std::string> outShape(in.shape.begin(), in.shape.end());
  std::string inner = in.shape.back();
  if (plan.packing == LayoutKind::fp4x2)
    outShape.back() = par(inner) + "/2";
  else if (plan.packing == LayoutKind::fp6_4p2 ||
           plan.packing == LayoutKind::fp6_packed)
    outShape.back() = par(inner) + "/4*3";
  SmallVector<std::string> scaleShape;
  for (size_t i = 0; i < (size_t)rank; ++i) {
    if (i < lead) {
      scaleShape.push_back(in.shape[i]);
      continue;
    }
    int64_t bl = block[i - lead];
    scaleShape.push_back(bl < 0 ? "1" : bl == 1 ? in.shape[i]
                                               : par(in.shape[i]) + "/" + std::to_string(bl));
  }
  if (plan.blockedScales) {
    scaleShape[0] = "cdiv(" + scaleShape[0] + ", 128)*128";
    scaleShape[1] = "cdiv(" + scaleShape[1] + ", 4)*4";
  }
  std::string t = total(in);
  if (plan.blockK) {
    require(par(inner) + " % " + std::to_string(plan.blockK),
            "the innermost dimension of " + in.name + " must be a multiple of " +
                std::to_string(plan.blockK) + " (the scaling block)");
  } else {
    require(par(inner) + " % 8",
            "the innermost dimension of " + in.name + " must be a multiple of 8");
  }
  // Rows of blocked scales and 4+2 packing are found in 32-bit arithmetic.
  if (plan.blockedScales || plan.packing == LayoutKind::fp6_4p2)
    require(par(t) + " / 34359738368",
            "this cast handles fewer than 2^35 elements; " + in.name + " has more");
  if (plan.hadamard)
    require(par(inner) + " % " + std::to_string(plan.hadamard),
            "the innermost dimension of " + in.name +
                " must be a multiple of the Hadamard size " + std::to_string(plan.hadamard));
  if (plan.packing == LayoutKind::fp6_4p2)
    // the low-nibble part of each row starts at 3/4 * row + cols / 4 and is
    // written 4 bytes at a time: 16-column multiples keep it aligned
    require(par(inner) + " % 16", "fp6 4+2 packing needs the innermost dimension of " +
                                      in.name + " to be a multiple of 16");
  if (plan.packing == LayoutKind::fp6_4p2 || plan.packing == LayoutKind::fp6_packed)
    require(par(inner) + " % 4", "fp6 4-in-3 packing needs the innermost "
                                 "dimension of " + in.name + " to be a multiple of 4");

  // Per-tensor scales need the tensor amax: the amax operand, or a reduction.
  std::string amaxName, matrixExtent;
  if (Value a = op.getAmax()) {
    auto ai = buffers.find(a);
    if (ai == buffers.end())
      return op.emitOpError("amax must be a function argument or a kernel result");
    Buffer amax = bufs[ai->second];
    amaxName = amax.name;
    plan.tensorAmax = true;
    if (!amax.shape.empty()) { // one per matrix (the verifier: rank-3 input)
      plan.matrixAmax = true;
      matrixExtent = perMatrixExtent(amax, "amax", in.shape, in.name);
    }
  } else if (perTensor) {
    std::string tmp = "tmp" + std::to_string(nextTemp++);
    Buffer buf{tmp, "f32", {}, "temp", true};
    bufs.push_back(buf);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(gpuModule.getBody());
    KernelDesc k = buildAmaxKernel(b, op.getLoc(), kernelName("amax"), plan.inElem,
                                   plan.hadamard, plan.hadamardSeed);
    addLaunch(k, {in.name, tmp, t}, {amaxGrid(t), "1", "1"});
    amaxName = tmp;
    plan.tensorAmax = true;
  }

  // The per-row kernel takes rows and columns, the others elements and columns.
  std::string rowsExpr = "1";
  for (size_t i = 0; i + 1 < (size_t)rank; ++i)
    rowsExpr = i ? rowsExpr + "*" + par(in.shape[i]) : par(in.shape[i]);
  FailureOr<SmallVector<std::string>> castArgs =
      defineCastOutputs(op, in, plan, outShape, scaleShape, plan.blockedScales,
                        amaxName, perRow ? rowsExpr : t, inner);
  if (failed(castArgs))
    return failure();
  SmallVector<std::string> args = std::move(*castArgs);
  if (perRow) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(gpuModule.getBody());
    // Rows of more than 256 vectors (2048 elements) are staged in shared
    // memory, up to an SM's shared memory less 4 KiB (224 KiB on sm_90a /
    // sm_100a, 96 KiB for targets whose code may run on chips with 100
    // KiB): two a CTA up to 4096 elements, one beyond; rows of more than
    // half the budget keep their last 2048 vectors in registers and read
    // up to 4096 past the budget twice. As many CTAs an SM as fit; shorter
    // rows are held in registers by teams, longer ones read twice. Each
    // launch's grid is 0 where another kernel takes the rows. (Rows of 128
    // KiB staged whole, one CTA an SM: 80.1% of the H200's copy against
    // 61.2% read twice; with their last 32 KiB in registers, two CTAs an
    // SM, 94.1%; docs/results/2026-11-24-h200-17, 2026-11-25-h200-18.)
    // Long rows whose staged part fills the budget run one CTA an SM, each
    // casting every G-th row (the grid's sm_count, bound by the runtime at
    // launch).
    // A static row length picks its kernel here.
    Staging staging{inVecBytes(plan.inElem),
                    (target ? target->sharedPerSM() : kLeastSharedPerSM) - 4096};
    constexpr StagedRows kStaged[] = {StagedRows::One, StagedRows::Pair, StagedRows::Long};
    // whether the staged kernel `kind` takes the rows (an expression: 1
    // where it does)
    auto takes = [&](StagedRows kind) { return par(staging.takes(inner, kind)); };
    // a static row length launches one kernel: the staged one it takes, or
    // (none) the team's
    int64_t cols = 0;
    bool only = !StringRef(inner).getAsInteger(10, cols);
    std::optional<StagedRows> onlyKind = only ? staging.kernelFor(cols / kVec) : std::nullopt;
    if (!only || !onlyKind) {
      KernelDesc k = buildPerRowQuantizeKernel(b, op.getLoc(), kernelName("quantize_r"),
                                               plan, gpuModule);
      std::string grid = perRowGrid(rowsExpr, inner);
      if (!only)
        for (StagedRows kind : kStaged)
          grid += (kind == kStaged[0] ? "*(1-" : "-") + takes(kind);
      addLaunch(k, args, {only ? grid : grid + ")", "1", "1"});
    }
    for (StagedRows kind : kStaged) {
      if (only && onlyKind != kind)
        continue;
      static const char *const kNames[] = {"quantize_rsp", "quantize_rsh", "quantize_rsl"};
      KernelDesc k = buildStagedPerRowQuantizeKernel(
          b, op.getLoc(), kernelName(kNames[int(kind)]), plan, staging, kind, gpuModule);
      std::string grid = staging.grid(rowsExpr, inner, kind);
      std::string bytes = staging.bytes(inner, kind);
      if (only)
        bytes = std::to_string(staging.stagedVecs(kind, cols / kVec) * staging.inVecBytes);
      addLaunch(k, args, {only ? grid : par(grid) + "*" + takes(kind), "1", "1"}, bytes);
    }
    return success();
  }
  if (plan.matrixAmax)
    args.push_back(matrixExtent);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  plan.tiles = rowCastTiles(plan);
  KernelDesc k = buildRowQuantizeKernel(b, op.getLoc(), kernelName("quantize"), plan);
  addLaunch(k, args,
            {"cdiv(" + t + ", " + std::to_string(kCtaElements * plan.tiles) + ")",
             "1", "1"});
  return success();
}

LogicalResult FunctionLowering::lowerDequantize(DequantizeOp op) {
  auto inIt = buffers.find(op.getInput());
  auto scIt = buffers.find(op.getScales());
  if (inIt == buffers.end() || scIt == buffers.end())
    return op.emitOpError("codes and scales must be function arguments or "
                          "kernel results");
  Buffer in = bufs[inIt->second], sc = bufs[scIt->second];
  RankedTensorType outTy = op.getResult().getType();
  int64_t rank = outTy.getRank();
  DequantizePlan plan;
  plan.outElem = outTy.getElementType();
  plan.elem = op.getElementFormat().getFormat();
  plan.packing = op.getPacking();
  if (plan.packing == LayoutKind::fp6_byte)
    plan.packing.reset();
  if (plan.packing && *plan.packing != LayoutKind::fp4x2 &&
      *plan.packing != LayoutKind::fp6_4p2 &&
      *plan.packing != LayoutKind::fp6_packed)
    return op.emitOpError("no dequantize lowering for this packing");
  if (plan.elem.bits() > 8 ||
      plan.elem.policy == num::SpecialPolicy::UnsignedNaNAllOnes)
    return op.emitOpError("no dequantize lowering for ")
           << plan.elem.name << " element codes";
  plan.blockedScales = op.getScaleLayout() == LayoutKind::blocked_128x4;
  ScalingAttr scaling = op.getScaling();
  Type st = scaling.getScaleType();
  if (isa<Float8E8M0FNUType>(st))
    plan.scale = DequantScale::E8M0;
  else if (isa<Float8E4M3FNType>(st))
    plan.scale = DequantScale::UE4M3;
  else if (st.isF32())
    plan.scale = DequantScale::F32;
  else if (st.isBF16())
    plan.scale = DequantScale::BF16;
  else if (st.isF16())
    plan.scale = DequantScale::F16;
  else
    return op.emitOpError("no dequantize lowering for ") << st << " scales";
  std::string globalName;
  Value globalOperand = op.getAmax() ? op.getAmax() : op.getGlobalScale();
  if (globalOperand) {
    StringRef what = op.getAmax() ? "amax" : "global_scale";
    if (plan.scale != DequantScale::UE4M3)
      return op.emitOpError("the NVFP4 global scale (its '")
             << what << "' operand) is lowered with e4m3 block scales only";
    auto gi = buffers.find(globalOperand);
    if (gi == buffers.end())
      return op.emitOpError() << what << " must be a function argument or a kernel result";
    globalName = bufs[gi->second].name;
    plan.global = op.getAmax() ? DequantizePlan::Global::amax : DequantizePlan::Global::value;
    plan.matrixGlobal = !bufs[gi->second].shape.empty(); // one per matrix
  }

  // The result's shape: the codes' shape, the innermost dim unpacked.
  SmallVector<std::string> outShape;
  for (int64_t d = 0; d < rank; ++d) {
    std::string e = in.shape[d];
    if (d + 1 == rank && plan.packing == LayoutKind::fp4x2) {
      e = par(e) + "*2";
    } else if (d + 1 == rank && plan.packing) {
      require(par(e) + " % 3", "the innermost dimension of " + in.name +
                                   " (fp6 packed 4 in 3 bytes) must be a "
                                   "multiple of 3");
      e = par(e) + "/3*4";
    }
    if (!outTy.isDynamicDim(d)) {
      std::string lit = std::to_string(outTy.getDimSize(d));
      if (e != lit && !llvm::all_of(e, [](char c) { return isdigit(c) || c == '*' || c == '/'; }))
        require(par(e) + " - " + lit, "dimension " + std::to_string(d) + " of " +
                                          in.name + " does not give the "
                                          "result's size " + lit);
      e = lit;
    }
    outShape.push_back(e);
  }
  std::string inner = outShape.back();

  // Which consecutive elements share a scale: row blocks [1, N], whole
  // trailing dims ([1, *], a matrix of a batch), or the whole tensor.
  ArrayRef<int64_t> block = scaling.getBlock();
  size_t lead = rank - block.size();
  SmallVector<int64_t> full(lead, 1);
  full.append(block.begin(), block.end());
  std::string groupExpr;
  if (full.back() > 0) {
    bool rows = llvm::all_of(ArrayRef<int64_t>(full).drop_back(),
                             [](int64_t b) { return b == 1; });
    if (!rows || full.back() % kVec)
      return op.emitOpError("no dequantize lowering for this block shape "
                            "(lowered: row blocks [1, N] with N a multiple "
                            "of 8, [1, *] and per-tensor [*, *])");
    plan.group = full.back();
    require(par(inner) + " % " + std::to_string(plan.group),
            "the innermost dimension of the result must be a multiple of " +
                std::to_string(plan.group) + " (the scaling block)");
  } else {
    size_t p = 0;
    while (p < full.size() && full[p] == 1)
      ++p;
    for (size_t i = p; i < full.size(); ++i)
      if (full[i] >= 0)
        return op.emitOpError("no dequantize lowering for this block shape "
                              "(lowered: row blocks [1, N] with N a multiple "
                              "of 8, [1, *] and per-tensor [*, *])");
    if (p == 0) {
      plan.group = -1;
    } else {
      int64_t n = 1; // a constant when the dims are static
      for (size_t i = p; i < full.size(); ++i) {
        n = outTy.isDynamicDim(i) || n < 0 ? -1 : n * outTy.getDimSize(i);
        groupExpr = groupExpr.empty() ? par(outShape[i])
                                      : groupExpr + "*" + par(outShape[i]);
      }
      plan.group = n > 0 && n % kVec == 0 ? n : 0;
    }
  }
  if (plan.blockedScales && plan.group <= 0)
    return op.emitOpError("blocked_128x4 scales are lowered for row blocks "
                          "[1, N] only");
  if (plan.blockedScales && rank != 2)
    return op.emitOpError("no dequantize lowering yet for rank-3 data with blocked_128x4 "
                          "scales (a layout per matrix)");
  require(par(inner) + " % 8",
          "the innermost dimension of the result must be a multiple of 8");

  // The scales must have the shape the blocks give (reads stay in bounds).
  auto scTy = cast<RankedTensorType>(op.getScales().getType());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t b = d < (int64_t)lead ? 1 : full[d];
    std::string e = b < 0 ? "1" : b == 1 ? outShape[d]
                                        : par(outShape[d]) + "/" + std::to_string(b);
    if (plan.blockedScales)
      e = "cdiv(" + e + ", " + (d == 0 ? "128)*128" : "4)*4");
    bool staticOk = !scTy.isDynamicDim(d) &&
                    (b < 0 || !outTy.isDynamicDim(d));
    if (!staticOk && sc.shape[d] != e)
      require(par(sc.shape[d]) + " - " + par(e),
              "dimension " + std::to_string(d) + " of the scales " + sc.name +
                  " must be " + e);
  }

  auto res = defineBuffer(op, op.getResult(), outShape, false);
  if (failed(res))
    return failure();
  std::string t = total(**res);
  // Rows of blocked scales and 4+2 packing are found in 32-bit arithmetic.
  if (plan.blockedScales || plan.packing == LayoutKind::fp6_4p2)
    require(par(t) + " / 34359738368",
            "this dequantize makes fewer than 2^35 elements; " + (*res)->name + " would have more");
  SmallVector<std::string> args = {in.name, sc.name};
  if (globalOperand)
    args.push_back(globalName);
  args.append({(*res)->name, t, inner});
  if (plan.group == 0)
    args.push_back(groupExpr);
  if (plan.matrixGlobal)
    args.push_back(perMatrixExtent(bufs[buffers.find(globalOperand)->second],
                                   op.getAmax() ? "amax" : "global_scale", outShape,
                                   (*res)->name));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(gpuModule.getBody());
  KernelDesc k = buildDequantizeKernel(b, op.getLoc(), kernelName("dequantize"), plan);
  addLaunch(k, args,
            {"cdiv(" + t + ", " + std::to_string(kCtaElements) + ")",
             "1", "1"});
  return success();
}

FailureOr<DictionaryAttr> FunctionLowering::run() {

  // Arguments: tensors become inputs with one symbol per dynamic dim.
  SmallVector<Attribute> inputs;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    std::string name = "arg" + std::to_string(i);
    if (auto t = dyn_cast<RankedTensorType>(arg.getType())) {
      auto dt = dtypeName(t.getElementType());
      if (!dt)
        return func.emitError("argument ") << i << " has element type "
                                           << t.getElementType()
                                           << ", which kernels cannot take";
      Buffer buf{name, *dt, {}, "input", false};
      for (int64_t d = 0; d < t.getRank(); ++d)
        buf.shape.push_back(t.isDynamicDim(d)
                                ? name + "_" + std::to_string(d)
                                : std::to_string(t.getDimSize(d)));
      buffers[arg] = bufs.size();
      bufs.push_back(buf);
    } else if (arg.getType().isInteger(64)) {
      scalars[arg] = name;
      scalarRecs.push_back(DictionaryAttr::get(
          ctx(), {b.getNamedAttr("name", str(name)), b.getNamedAttr("type", str("i64")),
                  b.getNamedAttr("default", b.getI64IntegerAttr(0))}));
    } else {
      return func.emitError("argument ")
             << i << " has type " << arg.getType()
             << "; kernel specs take ranked tensors and i64 scalars";
    }
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(v) || returned.count(v))
      return ret.emitOpError("result ")
             << i << " must be a new tensor computed by the function";
    returned[v] = i;
  }

  planGlobalScaleFusion();
  planAmaxFusion();
  for (Operation &op : func.getBody().front().without_terminator()) {
    LogicalResult r =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case<AmaxOp>([&](auto o) { return lowerAmax(o); })
            .Case<GlobalScaleOp>([&](auto o) { return lowerGlobalScale(o); })
            .Case<QuantizeOp>([&](auto o) { return lowerQuantize(o); })
            .Case<DequantizeOp>([&](auto o) { return lowerDequantize(o); })
            .Case<SwizzleScalesOp>([&](auto o) { return lowerSwizzle(o); })
            .Case<PackOp>([&](PackOp o) {
              return lowerPack(o, o.getInput(), o.getResult(), o.getLayout(), false);
            })
            .Case<UnpackOp>([&](UnpackOp o) {
              return lowerPack(o, o.getInput(), o.getResult(), o.getLayout(), true);
            })
            .Case<HadamardOp>([&](auto o) { return lowerHadamard(o); })
            .Default([&](Operation *o) {
              return o->emitOpError("has no kernel lowering yet (lowered: "
                                    "fpx.quantize, fpx.dequantize, fpx.amax, "
                                    "fpx.global_scale, "
                                    "fpx.pack, fpx.unpack, fpx.swizzle_scales, "
                                    "fpx.hadamard)");
            });
    if (failed(r))
      return failure();
  }

  // The function record.
  auto tensorRec = [&](const Buffer &buf) {
    SmallVector<Attribute> shape;
    for (const std::string &d : buf.shape)
      shape.push_back(str(d));
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("name", str(buf.name)), b.getNamedAttr("dtype", str(buf.dtype)),
        b.getNamedAttr("shape", ArrayAttr::get(ctx(), shape))};
    if (buf.zeroInit)
      fields.push_back(b.getNamedAttr("init", str("zero")));
    return DictionaryAttr::get(ctx(), fields);
  };
  SmallVector<Attribute> outputs(ret.getNumOperands()), temps;
  for (const Buffer &buf : bufs) {
    if (buf.kind == "input")
      inputs.push_back(tensorRec(buf));
    else if (buf.kind == "temp")
      temps.push_back(tensorRec(buf));
  }
  for (auto [v, idx] : returned)
    outputs[idx] = tensorRec(bufs[buffers[v]]);
  SmallVector<NamedAttribute> record = {
      b.getNamedAttr("name", str(func.getName())),
      b.getNamedAttr("inputs", ArrayAttr::get(ctx(), inputs)),
      b.getNamedAttr("scalars", ArrayAttr::get(ctx(), scalarRecs)),
      b.getNamedAttr("outputs", ArrayAttr::get(ctx(), outputs)),
      b.getNamedAttr("temps", ArrayAttr::get(ctx(), temps)),
      b.getNamedAttr("requires", ArrayAttr::get(ctx(), requires)),
      b.getNamedAttr("launches", ArrayAttr::get(ctx(), launches))};
  if (!links.empty()) // fpxc hoists it to the artifact's top-level "link"
    record.push_back(b.getNamedAttr("link", ArrayAttr::get(ctx(), links)));
  return DictionaryAttr::get(ctx(), record);
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
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "fpx_kernels");
    SmallVector<Attribute> records;
    for (func::FuncOp f : funcs) {
      FunctionLowering lowering(f, b, gpuModule, target);
      FailureOr<DictionaryAttr> rec = lowering.run();
      if (failed(rec))
        return signalPassFailure();
      records.push_back(*rec);
      f.erase();
    }
    gpuModule->setAttr("fpx.functions", b.getArrayAttr(records));
  }
};

} // namespace
