//===- PrologueLinkTest.cpp - user CUDA linked into an fpxc cast kernel ---===//
//
// test/gpu/specs/q_mxfp8_prologue.mlir is an MXFP8 (e4m3, 1x32, rceil) cast
// whose row kernel calls `fpx_user_scale` on every input element, a function
// fpxc leaves undefined (PTX `.extern .func`, artifact "link" list). Here the
// runtime compiles the user's CUDA C++ with NVRTC (-rdc=true --fmad=false),
// links it with the artifact's PTX through the driver's JIT linker, and the
// result must equal, bit for bit, the numerics core's quantizer applied to
// (x * 0.5f) - 1.0f computed on the CPU with the same two roundings.
//
// This file is compiled with -ffp-contract=off (test/gpu/CMakeLists.txt) and
// the host prologue also goes through a volatile, so the host never fuses
// the multiply and the subtract into one fma.
//
//===----------------------------------------------------------------------===//
#include "GpuTestSupport.h"

#include "fpx/Numerics/Convert.h"
#include "fpx/Numerics/Quantize.h"

#include <cmath>
#include <sstream>

using namespace fpx;
using namespace fpx::gputest;

namespace {

const char *kSymbol = "fpx_user_scale";
const char *kSnippet =
    "extern \"C\" __device__ float fpx_user_scale(float x) {\n"
    "  return x * 0.5f - 1.0f;\n"
    "}\n";

/// The snippet on the host: two roundings (the multiply is stored through a
/// volatile before the subtract), NaN as the GPU makes it (canonical +qNaN).
float hostPrologue(float x) {
  volatile float half = x * 0.5f;
  float y = half - 1.0f;
  if (std::isnan(y)) {
    uint32_t canonical = 0x7fffffffu;
    std::memcpy(&y, &canonical, 4);
  }
  return y;
}

float hostDouble(float x) { // the second snippet: x * 2.0f
  float y = x * 2.0f;
  if (std::isnan(y)) {
    uint32_t canonical = 0x7fffffffu;
    std::memcpy(&y, &canonical, 4);
  }
  return y;
}

struct Device {
  int Major = 0, Minor = 0;
};

Device device() {
  const rt::CudaApi &api = rt::CudaApi::driver();
  CUdevice dev;
  FPX_CU(api.cuDeviceGet(&dev, 0));
  Device d;
  FPX_CU(api.cuDeviceGetAttribute(
      &d.Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  FPX_CU(api.cuDeviceGetAttribute(
      &d.Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  return d;
}

/// The artifact of q_mxfp8_prologue for `target`, or "" with `why` set when
/// it is missing or cannot run on this device.
std::string artifactFor(const std::string &target, std::string &why) {
  auto path = artifactDir(target) / "q_mxfp8_prologue.json";
  if (!std::filesystem::exists(path)) {
    why = "artifact " + path.string() + " not built (fpx-gpu-artifacts, or set "
          "FPX_GPU_ARTIFACTS)";
    return "";
  }
  rt::Chip chip = *rt::Chip::parse(target);
  Device d = device();
  if (!chip.runsOn(d.Major, d.Minor, /*ptx=*/true)) {
    why = target + " does not run on this sm_" +
          std::to_string(d.Major * 10 + d.Minor) + " device";
    return "";
  }
  return path.string();
}

/// Runs the function on (rows x cols) bf16 data and compares with the
/// numerics core on prologue(x). Returns the number of mismatching bytes.
void runAndCompare(const rt::Module &module, float (*prologue)(float),
                   int64_t rows, int64_t cols, uint32_t dataSeed) {
  SCOPED_TRACE(module.info().Source + " " + std::to_string(rows) + "x" +
               std::to_string(cols));
  const rt::Function &f = module.function("q_mxfp8_prologue");
  std::vector<uint16_t> bits = bf16TestData(rows, cols, 32, dataSeed);
  size_t n = bits.size();
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = num::bf16ToFloat(bits[i]);
    y[i] = prologue(x[i]);
  }
  num::QuantSpec spec;
  spec.elem = num::e4m3fn();
  spec.blockRows = 1;
  spec.blockCols = 32;
  spec.scaleKind = num::ScaleKind::E8M0;
  spec.rule = num::ScaleRule::RCeil;
  spec.rounding = num::Rounding::RN;
  num::Quantized want = num::quantize(y.data(), 1, rows, cols, spec);
  // The same cast without the prologue: tells a kernel that skipped the call
  // apart from one that computed it differently.
  num::Quantized plain = num::quantize(x.data(), 1, rows, cols, spec);

  auto shapes = f.outputShapes({{rows, cols}});
  ASSERT_EQ(shapes.size(), 2u);
  DeviceBuffer in(n * 2);
  in.upload(bits);
  DeviceBuffer q(n), s(static_cast<size_t>(rows * (cols / 32)));
  q.poison();
  s.poison();
  f.launch(nullptr, {rt::TensorRef(in.Ptr, rt::DType::BF16, {rows, cols})},
           {rt::TensorRef(q.Ptr, rt::DType::F8E4M3FN, shapes[0]),
            rt::TensorRef(s.Ptr, rt::DType::F8E8M0FNU, shapes[1])});
  FPX_CU(rt::CudaApi::driver().cuCtxSynchronize());
  std::vector<uint8_t> gotQ = q.download<uint8_t>(n);
  std::vector<uint8_t> gotS = s.download<uint8_t>(s.Bytes);

  size_t badQ = 0, badS = 0, plainQ = 0;
  std::ostringstream detail;
  for (size_t i = 0; i < n; ++i) {
    plainQ += gotQ[i] == plain.codes[i];
    if (gotQ[i] == want.codes[i])
      continue;
    if (++badQ <= 8)
      detail << "  code [" << i / cols << ", " << i % cols << "]: x = " << x[i]
             << " (bf16 0x" << std::hex << bits[i] << std::dec
             << "), prologue(x) = " << y[i] << ", scale code 0x" << std::hex
             << int(want.scaleCodes[i / 32]) << ", want 0x"
             << int(want.codes[i]) << ", got 0x" << int(gotQ[i]) << std::dec
             << "\n";
  }
  for (size_t b = 0; b < gotS.size(); ++b) {
    if (gotS[b] == want.scaleCodes[b])
      continue;
    if (++badS <= 8)
      detail << "  scale [" << b / (cols / 32) << ", " << b % (cols / 32)
             << "]: want 0x" << std::hex << int(want.scaleCodes[b]) << ", got 0x"
             << int(gotS[b]) << std::dec << "\n";
  }
  EXPECT_EQ(badQ + badS, 0u)
      << badQ << " of " << n << " codes and " << badS << " of " << gotS.size()
      << " scales differ from the numerics core on prologue(x)"
      << (plainQ == n ? " -- the kernel's output equals the cast WITHOUT the "
                        "prologue: the user function was not called"
                      : "")
      << "\n"
      << detail.str();
}

class PrologueLink : public ::testing::TestWithParam<const char *> {};

TEST_P(PrologueLink, LinkedSnippetMatchesTheNumericsCoreBitForBit) {
  FPX_REQUIRE_GPU();
  primaryContext();
  std::string why;
  std::string path = artifactFor(GetParam(), why);
  if (path.empty())
    GTEST_SKIP() << why;
  auto module = rt::Module::load(path, {{kSymbol, kSnippet}});
  ASSERT_EQ(module->info().Link.size(), 1u);
  EXPECT_EQ(module->info().Link[0].Symbol, kSymbol);
  try {
    EXPECT_EQ(module->preload(), "linked");
  } catch (const rt::Error &e) {
    FAIL() << "linking the snippet failed: " << e.what();
  }
  runAndCompare(*module, hostPrologue, 256, 1024, 1);
  runAndCompare(*module, hostPrologue, 3, 96, 2);      // tails, partial CTA
  runAndCompare(*module, hostPrologue, 129, 4096, 3);
}

TEST_P(PrologueLink, AnotherSnippetIsAnotherLink) {
  // Same artifact, other user code: the linked image (and its disk-cache
  // entry) must follow the source text.
  FPX_REQUIRE_GPU();
  primaryContext();
  std::string why;
  std::string path = artifactFor(GetParam(), why);
  if (path.empty())
    GTEST_SKIP() << why;
  auto a = rt::Module::load(path, {{kSymbol, kSnippet}});
  auto b = rt::Module::load(
      path, {{kSymbol, "extern \"C\" __device__ float fpx_user_scale(float x) "
                       "{ return x * 2.0f; }\n"}});
  runAndCompare(*a, hostPrologue, 64, 256, 4);
  runAndCompare(*b, hostDouble, 64, 256, 4);
}

TEST_P(PrologueLink, LinkErrorsNameTheSymbolAndTheArtifact) {
  FPX_REQUIRE_GPU();
  primaryContext();
  std::string why;
  std::string path = artifactFor(GetParam(), why);
  if (path.empty())
    GTEST_SKIP() << why;
  struct Bad {
    const char *source;
    rt::ErrorCode code;
    const char *text;
  };
  const Bad cases[] = {
      // C++ linkage: the PTX defines a mangled name, not the symbol.
      {"__device__ float fpx_user_scale(float x) { return x; }",
       rt::ErrorCode::NotFound, "its PTX defines no function 'fpx_user_scale'"},
      // Wrong signature.
      {"extern \"C\" __device__ double fpx_user_scale(double x) { return x; }",
       rt::ErrorCode::NotFound, "does not have the signature float(float)"},
      // Does not compile: NVRTC's log comes with it.
      {"extern \"C\" __device__ float fpx_user_scale(float x) { return y; }",
       rt::ErrorCode::CompileFailed, "identifier \"y\" is undefined"},
  };
  for (const Bad &c : cases) {
    SCOPED_TRACE(c.source);
    auto module = rt::Module::load(path, {{kSymbol, c.source}});
    try {
      module->preload();
      ADD_FAILURE() << "linked";
    } catch (const rt::Error &e) {
      std::string msg = e.what();
      EXPECT_EQ(e.code(), c.code) << msg;
      EXPECT_NE(msg.find(c.text), std::string::npos) << msg;
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find(kSymbol), std::string::npos) << msg;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, PrologueLink,
                         ::testing::Values("sm_90a", "sm_80", "sm_100a"),
                         [](const auto &info) { return std::string(info.param); });

} // namespace
