//===- run_artifact.cpp - Load an fpx artifact and launch it from C++ ------===//
//
// Usage: run_artifact ARTIFACT.json FUNCTION DIM...
//
// Allocates every input of FUNCTION with the given dims (inputs filled with
// a byte pattern), computes and allocates the outputs from the artifact's
// shape rules, launches the function on two streams and prints the first
// bytes of each output. Shows the whole C++ API: Module, Function,
// TensorRef, outputShapes, launch, and fpx::rt::Error.
//
// Build (beside libfpxrt):
//   c++ -std=c++17 run_artifact.cpp -Iruntime/include -I/usr/local/cuda/include \
//       build-rt/runtime/libfpxrt.a -ldl -lpthread -o run_artifact
//
//===----------------------------------------------------------------------===//

#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Runtime.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace fpx::rt;

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ARTIFACT.json FUNCTION DIM...\n", argv[0]);
    return 2;
  }
  try {
    std::shared_ptr<Module> module = Module::load(argv[1]);
    const Function &fn = module->function(argv[2]);
    const FunctionInfo &info = fn.info();

    // Input shapes: the command-line dims, consumed input by input.
    std::vector<std::vector<int64_t>> inputShapes;
    int arg = 3;
    for (const TensorInfo &in : info.Inputs) {
      std::vector<int64_t> shape;
      for (size_t d = 0; d < in.Shape.size(); ++d) {
        if (arg >= argc) {
          std::fprintf(stderr, "need a size for %s dim %zu\n", in.Name.c_str(), d);
          return 2;
        }
        shape.push_back(std::atoll(argv[arg++]));
      }
      inputShapes.push_back(shape);
    }
    // Checked without a GPU: ranks, symbol agreement, derived dims.
    std::vector<std::vector<int64_t>> outputShapes = fn.outputShapes(inputShapes);

    // From here on a GPU is needed; without one this throws NoDevice.
    const CudaApi &cu = CudaApi::driver();
    CUdevice dev;
    checkCu(cu.cuDeviceGet(&dev, 0), "cuDeviceGet", "");
    CUcontext ctx;
    checkCu(cu.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain", "");
    checkCu(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent", "");
    std::printf("loaded %s (%s image) on %s\n", argv[1],
                module->preload().c_str(), deviceChip().c_str());

    auto allocate = [&](const TensorInfo &t, const std::vector<int64_t> &shape) {
      size_t bytes = dtypeSize(t.Type);
      for (int64_t d : shape)
        bytes *= size_t(d);
      CUdeviceptr ptr = 0;
      checkCu(cu.cuMemAlloc(&ptr, bytes ? bytes : 1), "cuMemAlloc", t.Name);
      return std::make_pair(TensorRef(ptr, t.Type, shape), bytes);
    };
    std::vector<TensorRef> inputs, outputs;
    std::vector<size_t> outputBytes;
    for (size_t i = 0; i < info.Inputs.size(); ++i) {
      auto [ref, bytes] = allocate(info.Inputs[i], inputShapes[i]);
      std::vector<unsigned char> pattern(bytes);
      for (size_t b = 0; b < bytes; ++b)
        pattern[b] = (unsigned char)(b * 37 + 11) & 0x3F; // small positive values
      checkCu(cu.cuMemcpyHtoD(ref.Data, pattern.data(), bytes), "cuMemcpyHtoD",
              info.Inputs[i].Name);
      inputs.push_back(ref);
    }
    for (size_t i = 0; i < info.Outputs.size(); ++i) {
      auto [ref, bytes] = allocate(info.Outputs[i], outputShapes[i]);
      outputs.push_back(ref);
      outputBytes.push_back(bytes);
    }

    // The same function on two streams: the module is loaded once per
    // context and shared by both.
    CUstream streams[2];
    for (CUstream &s : streams)
      checkCu(cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate", "");
    for (CUstream s : streams)
      fn.launch(s, inputs, outputs); // scalars take their defaults
    for (CUstream s : streams)
      checkCu(cu.cuStreamSynchronize(s), "cuStreamSynchronize", fn.name());

    for (size_t i = 0; i < outputs.size(); ++i) {
      std::vector<unsigned char> host(outputBytes[i]);
      checkCu(cu.cuMemcpyDtoH(host.data(), outputs[i].Data, host.size()),
              "cuMemcpyDtoH", info.Outputs[i].Name);
      std::printf("%s %s [", info.Outputs[i].Name.c_str(),
                  dtypeName(info.Outputs[i].Type));
      for (size_t d = 0; d < outputShapes[i].size(); ++d)
        std::printf("%s%lld", d ? ", " : "", (long long)outputShapes[i][d]);
      std::printf("]:");
      for (size_t b = 0; b < host.size() && b < 16; ++b)
        std::printf(" %02x", host[b]);
      std::printf("\n");
    }
    for (CUstream s : streams)
      cu.cuStreamDestroy(s);
    for (TensorRef &t : inputs)
      cu.cuMemFree(t.Data);
    for (TensorRef &t : outputs)
      cu.cuMemFree(t.Data);
    return 0;
  } catch (const Error &e) {
    // e.code() says what kind of failure; the message names call, subject
    // and cause.
    std::fprintf(stderr, "%s\n(%s)\n", e.what(), errorCodeName(e.code()));
    return e.code() == ErrorCode::NoDevice ? 77 : 1;
  }
}
