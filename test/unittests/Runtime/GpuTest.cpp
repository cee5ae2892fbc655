//===- GpuTest.cpp - Launches on a real GPU (ctest label `gpu`) ------------===//
//
// Every case skips visibly (GTEST_SKIP with the driver's reason) on a machine
// without a GPU, so this binary builds and runs everywhere.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Nvrtc.h"
#include "fpx/Runtime/Runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <thread>

using namespace fpx::rt;
using json = nlohmann::json;

namespace {

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    std::string why;                                                           \
    if (!gpuAvailable(why))                                                    \
      GTEST_SKIP() << "no GPU: " << why;                                       \
  } while (0)

bool gpuAvailable(std::string &why) {
  try {
    CudaApi::driver();
    return true;
  } catch (const Error &e) {
    why = e.what();
    return false;
  }
}

#define CU(call) checkCu((call), #call, "test")

/// Device 0's primary context, current on this thread.
CUcontext primaryContext() {
  const CudaApi &api = CudaApi::driver();
  CUdevice dev;
  CU(api.cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(api.cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(api.cuCtxSetCurrent(ctx));
  return ctx;
}

/// Device buffer freed at scope exit.
struct DeviceBuffer {
  explicit DeviceBuffer(size_t bytes) {
    CU(CudaApi::driver().cuMemAlloc(&Ptr, bytes ? bytes : 1));
  }
  ~DeviceBuffer() { CudaApi::driver().cuMemFree(Ptr); }
  CUdeviceptr Ptr = 0;
};

std::shared_ptr<Module> testModule(const json &j = json::parse(test::kTestJson),
                                   const std::string &ptx = test::kTestPtx) {
  return Module::fromMemory(j.dump(), ptx, "", "test.json");
}

TEST(Gpu, AddOneOnTwoStreams) {
  REQUIRE_GPU();
  const CudaApi &api = CudaApi::driver();
  primaryContext();
  auto m = testModule();
  const Function &f = m->function("add_one");
  const int64_t n = 100003; // not a multiple of the block
  std::vector<float> host(n);
  for (int64_t i = 0; i < n; ++i)
    host[i] = float(i);
  DeviceBuffer x(n * 4), y1(n * 4), y2(n * 4);
  CU(api.cuMemcpyHtoD(x.Ptr, host.data(), n * 4));
  CUstream s1, s2;
  CU(api.cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  CU(api.cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  // y1 = x + 1 on s1; y2 = y1 + 1 would race, so s2 computes x + 1 too and
  // then a second launch on s2 reads its own output.
  f.launch(s1, {TensorRef(x.Ptr, DType::F32, {n})},
           {TensorRef(y1.Ptr, DType::F32, {n})});
  f.launch(s2, {TensorRef(x.Ptr, DType::F32, {n})},
           {TensorRef(y2.Ptr, DType::F32, {n})});
  f.launch(s2, {TensorRef(y2.Ptr, DType::F32, {n})},
           {TensorRef(y2.Ptr, DType::F32, {n})});
  CU(api.cuStreamSynchronize(s1));
  CU(api.cuStreamSynchronize(s2));
  std::vector<float> out1(n), out2(n);
  CU(api.cuMemcpyDtoH(out1.data(), y1.Ptr, n * 4));
  CU(api.cuMemcpyDtoH(out2.data(), y2.Ptr, n * 4));
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(out1[i], float(i) + 1) << i;
    ASSERT_EQ(out2[i], float(i) + 2) << i;
  }
  EXPECT_EQ(m->loadedContexts(), 1u); // one module for both streams
  CU(api.cuStreamDestroy(s1));
  CU(api.cuStreamDestroy(s2));
}

TEST(Gpu, ThreadsLaunchConcurrently) {
  REQUIRE_GPU();
  const CudaApi &api = CudaApi::driver();
  CUcontext ctx = primaryContext();
  auto m = testModule(); // loaded lazily by whichever thread comes first
  const int64_t n = 4096;
  std::vector<float> zeros(n, 0.f);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      api.cuCtxSetCurrent(ctx);
      DeviceBuffer x(n * 4), y(n * 4);
      api.cuMemcpyHtoD(x.Ptr, zeros.data(), n * 4);
      CUstream s;
      api.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
      for (int i = 0; i < 50; ++i)
        m->function("add_one").launch(s, {TensorRef(x.Ptr, DType::F32, {n})},
                                      {TensorRef(y.Ptr, DType::F32, {n})});
      api.cuStreamSynchronize(s);
      std::vector<float> out(n);
      api.cuMemcpyDtoH(out.data(), y.Ptr, n * 4);
      ok[t] = out[0] == 1.f && out[n - 1] == 1.f;
      api.cuStreamDestroy(s);
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_TRUE(ok[t]) << "thread " << t;
  EXPECT_EQ(m->loadedContexts(), 1u);
}

TEST(Gpu, TempsAreZeroedAndScalarsPassed) {
  REQUIRE_GPU();
  const CudaApi &api = CudaApi::driver();
  primaryContext();
  auto m = testModule();
  const Function &sum = m->function("sum");
  const int64_t n = 1000;
  std::vector<float> ones(n, 1.f);
  DeviceBuffer x(n * 4), s(4);
  CU(api.cuMemcpyHtoD(x.Ptr, ones.data(), n * 4));
  for (int round = 0; round < 3; ++round) { // a pooled temp must be re-zeroed
    sum.launch(nullptr, {TensorRef(x.Ptr, DType::F32, {n})},
               {TensorRef(s.Ptr, DType::F32, {1})}, {Scalar(0.5)});
    CU(api.cuCtxSynchronize());
    float out = 0;
    CU(api.cuMemcpyDtoH(&out, s.Ptr, 4));
    EXPECT_EQ(out, 500.f) << "round " << round;
  }
  // The default scale is 1.
  sum.launch(nullptr, {TensorRef(x.Ptr, DType::F32, {n})},
             {TensorRef(s.Ptr, DType::F32, {1})});
  CU(api.cuCtxSynchronize());
  float out = 0;
  CU(api.cuMemcpyDtoH(&out, s.Ptr, 4));
  EXPECT_EQ(out, 1000.f);
}

TEST(Gpu, TempsFromTheCallersAllocator) {
  // LaunchOptions::AllocateTemp: the temp is the caller's memory (zeroed by
  // the runtime before the kernel, as a pooled one), asked for once a launch
  // with the temp's size.
  REQUIRE_GPU();
  const CudaApi &api = CudaApi::driver();
  primaryContext();
  auto m = testModule();
  const Function &sum = m->function("sum");
  const int64_t n = 1000;
  std::vector<float> ones(n, 1.f);
  DeviceBuffer x(n * 4), s(4), temp(256);
  CU(api.cuMemcpyHtoD(x.Ptr, ones.data(), n * 4));
  CU(api.cuMemsetD8Async(temp.Ptr, 0xFF, 256, nullptr)); // garbage the launch must clear
  std::vector<size_t> asked;
  LaunchOptions options;
  options.AllocateTemp = [&](size_t bytes) {
    asked.push_back(bytes);
    return temp.Ptr;
  };
  for (int round = 0; round < 2; ++round) {
    sum.launch(nullptr, {TensorRef(x.Ptr, DType::F32, {n})},
               {TensorRef(s.Ptr, DType::F32, {1})}, {Scalar(0.5)}, options);
    CU(api.cuCtxSynchronize());
    float out = 0;
    CU(api.cuMemcpyDtoH(&out, s.Ptr, 4));
    EXPECT_EQ(out, 500.f) << "round " << round;
  }
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_GT(asked[0], 0u);
  EXPECT_LE(asked[0], 256u);
  EXPECT_EQ(asked[0], asked[1]);
}

/// The test artifact plus `peek`: s = t[0], then t[0] += 1, where t is a
/// "kept_zero" temp. (A real kernel leaves such a temp zero; this one breaks
/// the promise on purpose, to show which buffer each launch gets.)
std::shared_ptr<Module> peekModule() {
  json j = json::parse(test::kTestJson);
  j["functions"].push_back(json::parse(R"({"name": "peek",
     "inputs": [{"name": "x", "dtype": "f32", "shape": ["N"]}],
     "scalars": [{"name": "one", "type": "f32", "default": 1.0}],
     "outputs": [{"name": "s", "dtype": "f32", "shape": [1]}],
     "temps": [{"name": "t", "dtype": "f32", "shape": ["N"], "init": "kept_zero"}],
     "launches": [{"kernel": "sum_k1", "args": ["t", "s", "one"]},
                  {"kernel": "add_one", "args": ["t", "t", "N"]}]})"));
  return testModule(j);
}

TEST(Gpu, KeptZeroTempsAreKeptPerStreamAndPerCapture) {
  // A kept-zero temp is zero the first time a stream (or a graph capture)
  // uses it and is not cleared again: launches on one stream see the last
  // one's t, another stream and a captured graph each have their own.
  REQUIRE_GPU();
  const CudaApi &api = CudaApi::driver();
  primaryContext();
  auto m = peekModule();
  const Function &peek = m->function("peek");
  DeviceBuffer x(4), s(4);
  auto run = [&](CUstream stream) {
    peek.launch(stream, {TensorRef(x.Ptr, DType::F32, {1})}, {TensorRef(s.Ptr, DType::F32, {1})});
  };
  auto seen = [&](CUstream stream) {
    CU(api.cuStreamSynchronize(stream));
    float out = -1;
    CU(api.cuMemcpyDtoH(&out, s.Ptr, 4));
    return out;
  };
  CUstream a, b, c;
  CU(api.cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
  CU(api.cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
  CU(api.cuStreamCreate(&c, CU_STREAM_NON_BLOCKING));
  run(a);
  EXPECT_EQ(seen(a), 0.f) << "a kept-zero temp starts zero";
  run(a);
  EXPECT_EQ(seen(a), 1.f) << "kept, not cleared a launch";
  run(b);
  EXPECT_EQ(seen(b), 0.f) << "another stream has its own";
  // Captured (global mode, as torch captures): the graph gets a buffer of its
  // own, made and cleared outside the graph.
  CU(api.cuStreamBeginCapture(c, CU_STREAM_CAPTURE_MODE_GLOBAL));
  run(c);
  CUgraph graph;
  CU(api.cuStreamEndCapture(c, &graph));
  CUgraphExec exec;
  CU(api.cuGraphInstantiate(&exec, graph, 0));
  for (float expect : {0.f, 1.f, 2.f}) {
    CU(api.cuGraphLaunch(exec, c));
    EXPECT_EQ(seen(c), expect) << "graph replay";
  }
  run(a);
  EXPECT_EQ(seen(a), 2.f) << "the graph's buffer is not stream a's";
  run(c);
  EXPECT_EQ(seen(c), 0.f) << "eager work on the capture stream is not the graph's";
  CU(api.cuGraphExecDestroy(exec));
  CU(api.cuGraphDestroy(graph));
  for (CUstream st : {a, b, c})
    CU(api.cuStreamDestroy(st));
}

TEST(Gpu, EmptyTensorLaunchesNothing) {
  REQUIRE_GPU();
  primaryContext();
  auto m = testModule();
  DeviceBuffer x(16);
  m->function("add_one").launch(nullptr, {TensorRef(x.Ptr, DType::F32, {0})},
                                {TensorRef(x.Ptr, DType::F32, {0})});
  CU(CudaApi::driver().cuCtxSynchronize());
}

TEST(Gpu, LaunchTimeSharedMemory) {
  // add_one with shared memory sized by N at launch: above 48 KiB (the
  // runtime opted the kernel in) it runs; beyond the device's per-block
  // maximum the launch is refused by name, before the driver sees it.
  REQUIRE_GPU();
  const CudaApi &api = CudaApi::driver();
  primaryContext();
  json j = json::parse(test::kTestJson);
  j["kernels"][0]["shared_bytes"] = "N * 4";
  auto m = testModule(j);
  const Function &f = m->function("add_one");
  const int64_t n = 20000; // 80000 bytes
  std::vector<float> host(n, 1.5f), out(n);
  DeviceBuffer x(n * 4), y(n * 4);
  CU(api.cuMemcpyHtoD(x.Ptr, host.data(), n * 4));
  f.launch(nullptr, {TensorRef(x.Ptr, DType::F32, {n})}, {TensorRef(y.Ptr, DType::F32, {n})});
  CU(api.cuCtxSynchronize());
  CU(api.cuMemcpyDtoH(out.data(), y.Ptr, n * 4));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 2.5f) << i;
  const int64_t big = 1 << 20; // 4 MiB of shared memory: no device has it
  DeviceBuffer bx(big * 4), by(big * 4);
  try {
    f.launch(nullptr, {TensorRef(bx.Ptr, DType::F32, {big})},
             {TensorRef(by.Ptr, DType::F32, {big})});
    FAIL() << "a launch beyond the shared memory limit went through";
  } catch (const Error &e) {
    std::string msg = e.what();
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << msg;
    EXPECT_NE(msg.find("need 4194304 bytes of shared memory a block (N * 4)"),
              std::string::npos) << msg;
  }
}

TEST(Gpu, SmCountIsTheDevicesMultiprocessorCount) {
  // add_one (one element a thread, no grid-stride loop) launched on
  // sm_count CTAs: exactly the first sm_count * 256 elements are written.
  REQUIRE_GPU();
  const CudaApi &api = CudaApi::driver();
  primaryContext();
  CUdevice dev;
  CU(api.cuCtxGetDevice(&dev));
  int sms = 0;
  CU(api.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  ASSERT_GT(sms, 0);
  json j = json::parse(test::kTestJson);
  j["kernels"][0]["grid"][0] = "min(cdiv(N, 256), sm_count)";
  auto m = testModule(j);
  const Function &f = m->function("add_one");
  const int64_t n = int64_t(sms) * 256 + 4096;
  std::vector<float> host(n, 1.5f), out(n);
  DeviceBuffer x(n * 4), y(n * 4);
  CU(api.cuMemcpyHtoD(x.Ptr, host.data(), n * 4));
  CU(api.cuMemsetD8Async(y.Ptr, 0, n * 4, nullptr));
  f.launch(nullptr, {TensorRef(x.Ptr, DType::F32, {n})}, {TensorRef(y.Ptr, DType::F32, {n})});
  CU(api.cuCtxSynchronize());
  CU(api.cuMemcpyDtoH(out.data(), y.Ptr, n * 4));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], i < int64_t(sms) * 256 ? 2.5f : 0.0f) << i << " of " << sms << " SMs";
}

TEST(Gpu, MisalignedPointerIsRejected) {
  REQUIRE_GPU();
  primaryContext();
  auto m = testModule();
  DeviceBuffer x(1024), y(1024);
  try {
    m->function("add_one").launch(nullptr,
                                  {TensorRef(x.Ptr + 4, DType::F32, {16})},
                                  {TensorRef(y.Ptr, DType::F32, {16})});
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("16-byte aligned"), std::string::npos);
  }
}

TEST(Gpu, BadPtxSurfacesTheJitLog) {
  REQUIRE_GPU();
  primaryContext();
  std::string ptx = test::kTestPtx;
  size_t at = ptx.find("add.f32 %f2, %f1, 0f3F800000;");
  ASSERT_NE(at, std::string::npos);
  ptx.replace(at, 30, "add.f32 %f2, %f1, %undefined;");
  auto m = testModule(json::parse(test::kTestJson), ptx);
  try {
    m->preload();
    FAIL() << "bad PTX loaded";
  } catch (const Error &e) {
    std::string msg = e.what();
    EXPECT_EQ(e.code(), ErrorCode::CompileFailed) << msg;
    EXPECT_NE(msg.find("cuModuleLoadDataEx"), std::string::npos) << msg;
    EXPECT_NE(msg.find("JIT error log"), std::string::npos) << msg;
    EXPECT_NE(msg.find("undefined"), std::string::npos) << msg;
  }
}

TEST(Gpu, WrongArchitectureIsNamed) {
  REQUIRE_GPU();
  primaryContext();
  std::string chip = deviceChip();
  // An arch-specific target of another generation than this device.
  std::string other = chip == "sm_100" ? "sm_90a" : "sm_100a";
  json j = json::parse(test::kTestJson);
  j["target"]["chip"] = other;
  auto m = testModule(j);
  try {
    m->preload();
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::WrongArchitecture) << e.what();
    EXPECT_NE(std::string(e.what()).find(other), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(chip), std::string::npos);
  }
}

TEST(Gpu, NewerPtxThanTheDriverIsNamed) {
  REQUIRE_GPU();
  primaryContext();
  int driver = CudaApi::driverVersion();
  if (driver >= 13000)
    GTEST_SKIP() << "the driver (" << driver << ") JITs every PTX version "
                 << "this runtime knows";
  json j = json::parse(test::kTestJson);
  j["target"]["ptx_version"] = "9.0";
  try {
    testModule(j)->preload();
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::DriverTooOld) << e.what();
  }
}

TEST(Gpu, NvrtcFp8KernelThroughTheRuntime) {
  REQUIRE_GPU();
  const CudaApi &api = CudaApi::driver();
  primaryContext();
  std::string chip = deviceChip();
  std::string ptx = compileCuda(R"CU(
#include <cuda_fp8.h>
extern "C" __global__ void to_e4m3(const float *x, unsigned char *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    q[i] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
}
)CU",
                                chip);
  // Wrap NVRTC's PTX in an artifact: the runtime launches it like fpxc's.
  std::string ptxVersion = ptx.substr(ptx.find(".version ") + 9, 3);
  json j = {
      {"format", "fpx-artifact"},
      {"version", 1},
      {"compiler", {{"name", "nvrtc"}, {"version", nvrtcVersionString()}}},
      {"spec_hash", "0"},
      {"target", {{"chip", chip}, {"ptx_version", ptxVersion}}},
      {"ptx", "oracle.ptx"},
      {"kernels",
       {{{"name", "to_e4m3"},
         {"block", {128, 1, 1}},
         {"grid", {"cdiv(N, 128)", 1, 1}},
         {"params",
          {{{"name", "x"}, {"type", "ptr"}},
           {{"name", "q"}, {"type", "ptr"}},
           {{"name", "n"}, {"type", "i32"}}}}}}},
      {"functions",
       {{{"name", "to_e4m3"},
         {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"N"}}}}},
         {"outputs", {{{"name", "q"}, {"dtype", "f8e4m3fn"}, {"shape", {"N"}}}}},
         {"launches", {{{"kernel", "to_e4m3"}, {"args", {"x", "q", "N"}}}}}}}}};
  auto m = Module::fromMemory(j.dump(), ptx, "", "oracle.json");
  std::vector<float> in = {0.f, 1.f, -2.f, 448.f, 1000.f, 0.0625f, 3.5f, -0.f};
  std::vector<uint8_t> expected = {0x00, 0x38, 0xC0, 0x7E, 0x7E, 0x18, 0x46, 0x80};
  int64_t n = int64_t(in.size());
  DeviceBuffer x(n * 4), q(n);
  CU(api.cuMemcpyHtoD(x.Ptr, in.data(), n * 4));
  m->function("to_e4m3").launch(nullptr, {TensorRef(x.Ptr, DType::F32, {n})},
                                {TensorRef(q.Ptr, DType::F8E4M3FN, {n})});
  std::vector<uint8_t> out(n);
  CU(api.cuMemcpyDtoH(out.data(), q.Ptr, n));
  EXPECT_EQ(out, expected);
}

} // namespace
