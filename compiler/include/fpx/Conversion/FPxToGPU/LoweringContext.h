//===- LoweringContext.h - one spec function's lowering state ---*- C++ -*-===//
//
// fpx-convert-to-gpu lowers a spec function op by op. The driver
// (lib/Conversion/FPxToGPU/FPxToGPU.cpp) owns a LoweringContext per function:
// the buffer table (each tensor's name and shape expressions), the
// preconditions, the launch records and the kernel names. Each op family's
// file (AmaxOpToGPU.cpp, QuantizeOpToGPU.cpp, ...) registers its lowerings
// in an OpLoweringSet (Lowerings.h); a lowering builds its kernels into the
// context's gpu.module and records their launches here.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_CONVERSION_FPXTOGPU_LOWERINGCONTEXT_H
#define FPX_CONVERSION_FPXTOGPU_LOWERINGCONTEXT_H

#include "fpx/Conversion/FPxToGPU/KernelBuilder.h"
#include "fpx/Dialect/FPx/IR/FPxDialect.h"
#include "fpx/Target/TargetInfo.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/TypeID.h"

#include <functional>
#include <optional>
#include <string>

namespace fpx {

/// The artifact's name for an element type (none: kernels cannot take it).
std::optional<std::string> artifactDType(mlir::Type t);

/// `e` parenthesized unless it is a single symbol or number.
std::string par(const std::string &e);

/// A tensor of the launch plan: its buffer name and shape expressions.
struct Buffer {
  std::string name;
  std::string dtype;
  llvm::SmallVector<std::string> shape;
  std::string kind; // input, output, temp
  bool zeroInit = false;
  /// Temps: zero at launch and left zero by the function's kernels (split-K
  /// counters), so the runtime may keep one cleared once (docs/artifact.md).
  bool keptZero = false;
};

/// What lowering one spec function has recorded so far.
class LoweringContext {
public:
  LoweringContext(mlir::func::FuncOp func, mlir::OpBuilder &b, mlir::gpu::GPUModuleOp gpuModule,
                  const TargetInfo *target)
      : func(func), b(b), gpuModule(gpuModule), target(target) {}

  mlir::func::FuncOp func;
  mlir::OpBuilder &b;
  /// Where the kernels go (a lowering builds at its end).
  mlir::gpu::GPUModuleOp gpuModule;
  const TargetInfo *target; // null: target-neutral (sm_80's instructions)

  /// The buffer table: value -> index in `bufs`.
  llvm::DenseMap<mlir::Value, unsigned> buffers;
  llvm::SmallVector<Buffer> bufs;
  /// i64 scalar arguments (e.g. a seed) -> their names.
  llvm::DenseMap<mlir::Value, std::string> scalars;
  /// Returned values -> their result index.
  llvm::DenseMap<mlir::Value, unsigned> returned;
  /// The function record's lists.
  llvm::SmallVector<mlir::Attribute> launches, requires, scalarRecs;
  /// User symbols the kernels call (prologues).
  llvm::SmallVector<mlir::Attribute> links;

  /// Ops a cast's kernel produces as it casts (planned before any op is
  /// lowered; their own lowerings then emit nothing). fpx.global_scale ops
  /// an NVFP4 cast of the same amax stores, by cast.
  llvm::DenseMap<mlir::Operation *, GlobalScaleOp> fusedGlobalScale;
  /// fpx.amax ops a row cast of the same input reduces as it casts, by cast.
  llvm::DenseMap<mlir::Operation *, AmaxOp> fusedAmax;

  unsigned nextTemp = 0, nextKernel = 0;

  mlir::MLIRContext *ctx() { return b.getContext(); }
  mlir::Attribute str(llvm::StringRef s) { return mlir::StringAttr::get(ctx(), s); }

  /// The buffer a result value lands in (output if returned, else temp);
  /// the pointer lasts until the next buffer is defined.
  mlir::FailureOr<Buffer *> defineBuffer(mlir::Operation *op, mlir::Value v,
                                         llvm::SmallVector<std::string> shape, bool zeroInit);
  /// A zero-initialized f32 scalar temporary of its own (e.g. a tensor
  /// amax a cast reduces first); returns its name.
  std::string defineScalarTemp();
  /// A temporary of its own (e.g. a GEMM's split-K workspace); returns its
  /// name.
  std::string defineTemp(llvm::StringRef dtype, llvm::SmallVector<std::string> shape,
                         bool zeroInit);
  /// A zero i32 temporary that the function's kernels leave zero when they
  /// finish (split-K counters: the last contributor resets its counter);
  /// returns its name.
  std::string defineCounterTemp(llvm::SmallVector<std::string> shape);
  /// The buffer of a value, or null if no kernel wrote it.
  const Buffer *findBuffer(mlir::Value v) const;
  /// The buffer of an operand; a located error if no kernel wrote it.
  mlir::FailureOr<Buffer> inputBuffer(mlir::Operation *op, mlir::Value v);
  /// A GEMM's optional bias operand `v` (null: none, an empty Buffer): its
  /// buffer, with the launch check that it holds `n` elements.
  mlir::FailureOr<Buffer> biasBuffer(mlir::Operation *op, mlir::Value v, const std::string &n);
  /// The element count of `buf` (an expression).
  std::string total(const Buffer &buf) const;

  /// A precondition: `expr` must evaluate to 0 at launch, else `message`.
  void require(const std::string &expr, const std::string &message);
  /// For `perMatrix`, one value per matrix of the rank-3 tensor `shape`
  /// (named `data`): requires as many values as matrices and matrices of a
  /// multiple of a cast CTA's elements (each CTA reads one value); returns
  /// the elements of a matrix (the kernels' `matrix` parameter).
  std::string perMatrixExtent(const Buffer &perMatrix, llvm::StringRef what,
                              llvm::ArrayRef<std::string> shape, const std::string &data);

  /// A new kernel's name: FUNC_<what><n>, n counting the function's kernels.
  std::string kernelName(llvm::StringRef what);
  /// Records a launch of `k` with `args` (buffer names, scalars or
  /// expressions, in its parameters' order) over `grid`; `shared`: dynamic
  /// shared memory, an expression evaluated at launch (none: 0 bytes).
  void addLaunch(KernelDesc k, llvm::ArrayRef<std::string> args, llvm::ArrayRef<std::string> grid,
                 const std::string &shared = "");
  /// The same with arguments as records: strings as above, or a
  /// tensorMapArg for a `tensor_map` parameter (a by-value
  /// nvvm.grid_constant kernel argument).
  void addLaunch(KernelDesc k, llvm::ArrayRef<mlir::Attribute> args,
                 llvm::ArrayRef<std::string> grid, const std::string &shared = "");
  /// A `tensor_map` launch argument (docs/artifact.md): a TMA descriptor
  /// the runtime builds over buffer `buffer` viewed as `dims` (elements,
  /// innermost first), copying `box` elements a dim, swizzled `swizzle` bytes.
  mlir::Attribute tensorMapArg(llvm::StringRef buffer, llvm::ArrayRef<std::string> dims,
                               llvm::ArrayRef<int64_t> box, int64_t swizzle);
  /// Records a user symbol the kernels call `float NAME(float)`, once.
  void addLink(llvm::StringRef symbol);
};

/// The lowerings the driver dispatches on, one per op, and the planners that
/// run over a function before any op is lowered (e.g. which casts take an
/// fpx.amax). Each op family's file fills it with its populate...Lowerings
/// (Lowerings.h).
class OpLoweringSet {
public:
  using Lowering = std::function<mlir::LogicalResult(LoweringContext &, mlir::Operation *)>;
  using Planner = std::function<void(LoweringContext &)>;

  /// Lowers each OpTy with `lower`.
  template <typename OpTy> void add(mlir::LogicalResult (*lower)(LoweringContext &, OpTy)) {
    names.push_back(OpTy::getOperationName().str());
    lowerings[mlir::TypeID::get<OpTy>()] = [lower](LoweringContext &c, mlir::Operation *op) {
      return lower(c, mlir::cast<OpTy>(op));
    };
  }
  void addPlanner(Planner planner) { planners.push_back(std::move(planner)); }

  /// The lowering of `op`'s kind, or null.
  const Lowering *lookup(mlir::Operation *op) const;
  /// Runs every planner, in the order they were added.
  void plan(LoweringContext &c) const;
  /// The lowered ops' names, in the order they were added, for diagnostics.
  std::string loweredNames() const;

private:
  llvm::DenseMap<mlir::TypeID, Lowering> lowerings;
  llvm::SmallVector<std::string> names;
  llvm::SmallVector<Planner> planners;
};

} // namespace fpx

#endif // FPX_CONVERSION_FPXTOGPU_LOWERINGCONTEXT_H
