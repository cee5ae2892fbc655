//===- Pipeline.cpp - the one fpxc pipeline -------------------------------===//
#include "fpx/Pipeline/Pipeline.h"

#include "fpx/Conversion/Passes.h"
#include "fpx/Pipeline/Passes.h"
#include "fpx/Target/TargetInfo.h"
#include "fpx/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace fpx;

void fpx::registerFPxDialects(DialectRegistry &registry) {
  registry.insert<FPxDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, scf::SCFDialect, cf::ControlFlowDialect,
                  vector::VectorDialect, math::MathDialect>();
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
}

namespace {
/// The kernel arguments a gpu.func lists in `fpx.tensor_map_args` (by-value
/// CUtensorMaps, see ScaledMatmulKernels.h) become `llvm.byval` 128-byte,
/// 64-byte aligned `nvvm.grid_constant` arguments of the llvm.func kernel:
/// the NVVM verifier refuses grid_constant on a gpu.func and the GPU-to-NVVM
/// lowering drops byval, and without them the backend would copy the 128
/// bytes to local memory, where TMA cannot read a descriptor.
struct MarkGridConstantsPass
    : public PassWrapper<MarkGridConstantsPass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MarkGridConstantsPass)
  StringRef getArgument() const override { return "fpx-mark-grid-constants"; }
  void runOnOperation() override {
    getOperation().walk([](LLVM::LLVMFuncOp f) {
      auto list = f->getAttrOfType<DenseI32ArrayAttr>("fpx.tensor_map_args");
      if (!list)
        return;
      MLIRContext *ctx = f.getContext();
      Builder b(ctx);
      for (int32_t i : list.asArrayRef()) {
        f.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                     TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
        f.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
        f.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
      }
      f->removeAttr("fpx.tensor_map_args");
    });
  }
};
std::unique_ptr<Pass> createMarkGridConstantsPass() {
  return std::make_unique<MarkGridConstantsPass>();
}
} // namespace

LogicalResult fpx::buildFPxPipeline(OpPassManager &pm,
                                    const PipelineOptions &options,
                                    std::string &error) {
  const TargetInfo *target = lookupTarget(options.chip);
  if (!target) {
    error = "unknown target '" + options.chip + "' (known: " + targetNames() + ")";
    return failure();
  }
  if (options.fromSpec) {
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createFPxFuseQuantize());
    pm.addNestedPass<func::FuncOp>(createFPxFuseDequantMatmul());
    FPxConvertToGPUOptions toGpu;
    toGpu.chip = options.chip;
    pm.addPass(createFPxConvertToGPU(toGpu));
  }
  if (options.legalize) {
    FPxLegalizeFormatsOptions legal;
    legal.chip = options.chip;
    legal.allowEmulation = options.allowEmulation;
    pm.addPass(createFPxLegalizeFormats(legal));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (options.until == Stage::Kernels)
    return success();

  // What the NVPTX backend would abort on, or print as PTX that ptxas
  // rejects, is an error at the op (kernel-level input arrives as written).
  pm.addPass(createFPxVerifyKernels());

  // fpxc owns the PTX version: the table's, not LLVM's default for the chip.
  GpuNVVMAttachTargetOptions attach;
  attach.chip = target->chip.str();
  attach.features = target->ptxFeature();
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  pm.addNestedPass<gpu::GPUModuleOp>(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(nvvm));
  // NVVM ops without an LLVM intrinsic (mbarrier.try_wait.parity,
  // wgmma.mma_async) become inline PTX; the others are left as they are.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVVMToLLVMPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createMarkGridConstantsPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (options.until == Stage::LLVM)
    return success();
  GpuModuleToBinaryPassOptions bin;
  bin.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(bin));
  return success();
}


namespace {
/// Reports a pipeline option error as a pass failure, so that fpx-opt exits
/// non-zero instead of printing the input unchanged.
struct ReportErrorPass
    : public PassWrapper<ReportErrorPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReportErrorPass)
  explicit ReportErrorPass(std::string message) : message(std::move(message)) {}
  StringRef getArgument() const override { return "fpx-report-error"; }
  void runOnOperation() override {
    getOperation().emitError("fpx-pipeline: ") << message;
    signalPassFailure();
  }
  std::string message;
};

struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("target chip"),
                           llvm::cl::init("sm_90a")};
  Option<bool> allowEmulation{*this, "allow-emulation",
                              llvm::cl::desc("emulate missing conversions"),
                              llvm::cl::init(true)};
  Option<std::string> until{*this, "until",
                            llvm::cl::desc("kernels | llvm | ptx"),
                            llvm::cl::init("ptx")};
};
} // namespace

void fpx::registerFPxPasses() {
  registerFPxTransformsPasses();
  registerFPxConversionPasses();
  registerFPxPipelinePasses();
  registerGpuNVVMAttachTarget();
  registerGpuModuleToBinaryPass();
  registerConvertGpuOpsToNVVMOps();
  registerSCFToControlFlowPass();
  registerReconcileUnrealizedCastsPass();
  registerCanonicalizerPass();
  registerCSEPass();
  PassPipelineRegistration<PipelineCLOptions>(
      "fpx-pipeline", "The fpxc pipeline: spec -> kernels -> NVVM -> PTX",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        PipelineOptions o;
        o.chip = cl.chip;
        o.allowEmulation = cl.allowEmulation;
        if (cl.until != "kernels" && cl.until != "llvm" && cl.until != "ptx") {
          pm.addPass(std::make_unique<ReportErrorPass>(
              "unknown until='" + cl.until + "' (kernels, llvm or ptx)"));
          return;
        }
        o.until = cl.until == "kernels" ? Stage::Kernels
                  : cl.until == "llvm"  ? Stage::LLVM
                                        : Stage::PTX;
        std::string error;
        if (failed(buildFPxPipeline(pm, o, error)))
          pm.addPass(std::make_unique<ReportErrorPass>(error));
      });
}
