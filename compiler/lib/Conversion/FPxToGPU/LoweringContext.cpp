//===- LoweringContext.cpp - buffers, preconditions, launch records -------===//
//
// The bookkeeping every op family's lowering shares: buffers and their
// shape expressions, `requires` preconditions, kernel names and launch
// records (LoweringContext.h), and the registry of op lowerings.
//
//===----------------------------------------------------------------------===//
#include "fpx/Conversion/FPxToGPU/LoweringContext.h"
#include "QuantizeKernels.h"

using namespace mlir;
using namespace fpx;

std::optional<std::string> fpx::artifactDType(Type t) {
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

std::string fpx::par(const std::string &e) {
  bool simple = llvm::all_of(e, [](char c) { return isalnum(c) || c == '_'; });
  return simple ? e : "(" + e + ")";
}

FailureOr<Buffer *> LoweringContext::defineBuffer(Operation *op, Value v,
                                                  SmallVector<std::string> shape, bool zeroInit) {
  auto dt = artifactDType(cast<RankedTensorType>(v.getType()).getElementType());
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

std::string LoweringContext::defineScalarTemp() { return defineTemp("f32", {}, true); }

std::string LoweringContext::defineTemp(StringRef dtype, SmallVector<std::string> shape,
                                        bool zeroInit) {
  std::string tmp = "tmp" + std::to_string(nextTemp++);
  bufs.push_back(Buffer{tmp, dtype.str(), std::move(shape), "temp", zeroInit});
  return tmp;
}

std::string LoweringContext::defineCounterTemp(SmallVector<std::string> shape) {
  std::string tmp = defineTemp("i32", std::move(shape), true);
  bufs.back().keptZero = true;
  return tmp;
}

const Buffer *LoweringContext::findBuffer(Value v) const {
  auto it = buffers.find(v);
  return it == buffers.end() ? nullptr : &bufs[it->second];
}

FailureOr<Buffer> LoweringContext::inputBuffer(Operation *op, Value v) {
  if (const Buffer *buf = findBuffer(v))
    return *buf;
  return op->emitOpError("input must be a function argument or a kernel result");
}

FailureOr<Buffer> LoweringContext::biasBuffer(Operation *op, Value v, const std::string &n) {
  if (!v)
    return Buffer();
  FailureOr<Buffer> bias = inputBuffer(op, v);
  if (succeeded(bias))
    require(par(bias->shape[0]) + " - " + par(n),
            "the bias " + bias->name + " must have N (" + n + ") elements");
  return bias;
}

std::string LoweringContext::total(const Buffer &buf) const {
  std::string t;
  for (const std::string &d : buf.shape)
    t = t.empty() ? par(d) : t + "*" + par(d);
  return t.empty() ? "1" : t;
}

void LoweringContext::require(const std::string &expr, const std::string &message) {
  requires.push_back(DictionaryAttr::get(
      ctx(), {b.getNamedAttr("expr", str(expr)), b.getNamedAttr("message", str(message))}));
}

std::string LoweringContext::perMatrixExtent(const Buffer &perMatrix, StringRef what,
                                             ArrayRef<std::string> shape, const std::string &data) {
  std::string matrix = par(shape[1]) + "*" + par(shape[2]);
  std::string cta = std::to_string(kCtaElements);
  require(par(perMatrix.shape[0]) + " - " + par(shape[0]),
          "dimension 0 of " + perMatrix.name + " must be " + shape[0] + " (" + "one " + what.str() +
              " per matrix of " + data + ")");
  require(par(matrix) + " % " + cta, "a per-matrix " + what.str() +
                                         " needs matrices of a multiple of " + cta + " elements; " +
                                         data + "'s have " + matrix);
  return matrix;
}

std::string LoweringContext::kernelName(StringRef what) {
  return (func.getName() + "_" + what + std::to_string(nextKernel++)).str();
}

void LoweringContext::addLaunch(KernelDesc k, ArrayRef<std::string> args,
                                ArrayRef<std::string> grid, const std::string &shared) {
  SmallVector<Attribute> argAttrs;
  for (const std::string &a : args)
    argAttrs.push_back(str(a));
  addLaunch(k, ArrayRef<Attribute>(argAttrs), grid, shared);
}

Attribute LoweringContext::tensorMapArg(StringRef buffer, ArrayRef<std::string> dims,
                                        ArrayRef<int64_t> box, int64_t swizzle) {
  SmallVector<Attribute> dimAttrs;
  for (const std::string &d : dims)
    dimAttrs.push_back(str(d));
  return DictionaryAttr::get(ctx(), {b.getNamedAttr("tensor_map", str(buffer)),
                                     b.getNamedAttr("dims", ArrayAttr::get(ctx(), dimAttrs)),
                                     b.getNamedAttr("box", b.getI64ArrayAttr(box)),
                                     b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzle))});
}

void LoweringContext::addLaunch(KernelDesc k, ArrayRef<Attribute> args,
                                ArrayRef<std::string> grid, const std::string &shared) {
  SmallVector<Attribute> gridAttrs, paramAttrs;
  SmallVector<Attribute> argAttrs(args);
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
  for (auto [i, name, type] :
       llvm::enumerate(k.params, k.func.getFunctionType().getInputs())) {
    auto maps = k.func->getAttrOfType<DenseI32ArrayAttr>("fpx.tensor_map_args");
    StringRef t = maps && llvm::is_contained(maps.asArrayRef(), int32_t(i)) ? "tensor_map"
                  : isa<LLVM::LLVMPointerType>(type)          ? "ptr"
                  : type.isInteger(64)             ? "i64"
                  : type.isInteger(32)             ? "i32"
                                                   : "f32";
    paramAttrs.push_back(DictionaryAttr::get(
        ctx(), {b.getNamedAttr("name", str(name)), b.getNamedAttr("type", str(t))}));
  }
  k.func->setAttr(
      "fpx.kernel",
      DictionaryAttr::get(ctx(), {b.getNamedAttr("block", b.getI64ArrayAttr({threads, 1, 1})),
                                  b.getNamedAttr("grid", ArrayAttr::get(ctx(), gridAttrs)),
                                  b.getNamedAttr("shared_bytes", sharedAttr),
                                  b.getNamedAttr("params", ArrayAttr::get(ctx(), paramAttrs))}));
  launches.push_back(
      DictionaryAttr::get(ctx(), {b.getNamedAttr("kernel", str(k.func.getName())),
                                  b.getNamedAttr("args", ArrayAttr::get(ctx(), argAttrs))}));
}

void LoweringContext::addLink(StringRef symbol) {
  Attribute rec = DictionaryAttr::get(ctx(), {b.getNamedAttr("symbol", str(symbol)),
                                              b.getNamedAttr("signature", str("float(float)"))});
  if (!llvm::is_contained(links, rec))
    links.push_back(rec);
}

const OpLoweringSet::Lowering *OpLoweringSet::lookup(Operation *op) const {
  auto it = lowerings.find(op->getName().getTypeID());
  return it == lowerings.end() ? nullptr : &it->second;
}

void OpLoweringSet::plan(LoweringContext &c) const {
  for (const Planner &planner : planners)
    planner(c);
}

std::string OpLoweringSet::loweredNames() const {
  std::string s;
  for (const std::string &n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}
