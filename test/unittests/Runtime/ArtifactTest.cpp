//===- ArtifactTest.cpp - Artifact parsing, validation, shape binding ------===//
//
// All of this runs without a GPU: metadata is validated at load, and launch
// checks arguments before it asks for the driver.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>

using namespace fpx::rt;
using json = nlohmann::json;

namespace {

json base() { return json::parse(test::kTestJson); }

/// Parses \p j and returns the error message (fails the test if it parsed).
std::string errorOf(const json &j) {
  try {
    ArtifactInfo::parse(j.dump(), "bad.json");
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArtifact) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "artifact was accepted";
  return {};
}

#define EXPECT_ARTIFACT_ERROR(MUTATE, TEXT)                                    \
  do {                                                                         \
    json j = base();                                                           \
    MUTATE;                                                                    \
    std::string msg = errorOf(j);                                              \
    EXPECT_NE(msg.find(TEXT), std::string::npos) << msg;                       \
    EXPECT_NE(msg.find("bad.json"), std::string::npos) << msg;                 \
  } while (0)

TEST(Artifact, ParsesTheTestArtifact) {
  ArtifactInfo info = ArtifactInfo::parse(test::kTestJson, "test.json");
  EXPECT_EQ(info.Target, "sm_80");
  EXPECT_EQ(info.TargetChip.Major, 8);
  EXPECT_EQ(info.PtxVersion, "7.0");
  ASSERT_EQ(info.Kernels.size(), 3u);
  EXPECT_EQ(info.Kernels[0].Block[0], 256u);
  EXPECT_EQ(info.Kernels[1].Grid[1], "1"); // integers accepted as exprs
  ASSERT_EQ(info.Functions.size(), 2u);
  const FunctionInfo &sum = info.Functions[1];
  EXPECT_EQ(sum.Temps.size(), 1u);
  EXPECT_TRUE(sum.Temps[0].ZeroInit);
  EXPECT_FALSE(sum.Temps[0].KeptZero);
  json kept = json::parse(test::kTestJson);
  kept["functions"][1]["temps"][0]["init"] = "kept_zero";
  const TensorInfo keptTemp = ArtifactInfo::parse(kept.dump(), "t.json").Functions[1].Temps[0];
  EXPECT_TRUE(keptTemp.ZeroInit);
  EXPECT_TRUE(keptTemp.KeptZero);
  ASSERT_EQ(sum.Launches.size(), 2u);
  EXPECT_EQ(sum.Launches[0].Args[2].Source, ArgSource::Symbol);
  EXPECT_EQ(sum.Launches[1].Args[1].Source, ArgSource::Output);
  EXPECT_EQ(sum.Launches[1].Args[2].Source, ArgSource::Scalar);
  EXPECT_EQ(*sum.Scalars[0].DefaultFloat, 1.0);
}

TEST(Artifact, TopLevelErrors) {
  EXPECT_ARTIFACT_ERROR(j = json::array(), "expected an object");
  EXPECT_ARTIFACT_ERROR(j["format"] = "onnx", "format: expected 'fpx-artifact'");
  EXPECT_ARTIFACT_ERROR(j["version"] = 2, "version 2 is not supported");
  EXPECT_ARTIFACT_ERROR(j["version"] = "1", "version: expected an integer");
  EXPECT_ARTIFACT_ERROR(j.erase("spec_hash"), "missing field 'spec_hash'");
  EXPECT_ARTIFACT_ERROR(j["spec_hash"] = "xyz", "spec_hash");
  EXPECT_ARTIFACT_ERROR(j["target"]["chip"] = "gfx90a",
                        "target.chip: 'gfx90a' is not an architecture");
  EXPECT_ARTIFACT_ERROR(j["target"]["ptx_version"] = "1.2",
                        "unknown PTX ISA version '1.2'");
  EXPECT_ARTIFACT_ERROR(j["ptx"] = "../x.ptx", "plain file name");
  EXPECT_ARTIFACT_ERROR(j["kernal"] = 1, "unknown field 'kernal'");
  EXPECT_ARTIFACT_ERROR(j["kernels"] = json::array(), "at least one kernel");
  EXPECT_ARTIFACT_ERROR(j["compiler"] = "fpxc", "compiler: expected an object");
}

TEST(Artifact, TruncatedJson) {
  std::string text = test::kTestJson;
  try {
    ArtifactInfo::parse(text.substr(0, text.size() / 2), "half.json");
    FAIL() << "accepted truncated JSON";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("half.json"), std::string::npos);
  }
}

TEST(Artifact, JsonNumberOverflowIsAnArtifactError) {
  // nlohmann throws out_of_range (not parse_error) for 1e400.
  std::string text = test::kTestJson;
  text.insert(text.find('{') + 1, "\"shared_bytes\": 1e400, ");
  try {
    ArtifactInfo::parse(text, "big.json");
    FAIL() << "accepted 1e400";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArtifact);
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
}

TEST(Artifact, MessagesAreValidUtf8) {
  // A field value with a lone continuation byte and a cut two-byte
  // character: the message quotes it, escaped, so Python can decode it.
  json j = base();
  j["target"]["chip"] = std::string("sm_\xc3");
  std::string text = j.dump(-1, ' ', false, json::error_handler_t::ignore);
  text.replace(text.find("sm_"), 3, "sm_\x80\xc3");
  try {
    ArtifactInfo::parse(text, "bytes\xff.json");
    FAIL();
  } catch (const Error &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("bytes\\xff.json"), std::string::npos) << msg;
    for (unsigned char c : msg)
      EXPECT_LT(c, 0x80) << msg; // everything here was ASCII or escaped
  }
  // Well-formed UTF-8 stays as it is.
  try {
    ArtifactInfo::parse("{", "caf\xc3\xa9.json");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("caf\xc3\xa9.json"), std::string::npos);
  }
}

TEST(Artifact, LoadRefusesWhatIsNotARegularFile) {
  // /dev/zero never ends and a FIFO blocks its reader: both refused at once.
  try {
    Module::load("/dev/zero");
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos)
        << e.what();
  }
  char templ[] = "/tmp/fpx-fifo-XXXXXX";
  ASSERT_NE(mkdtemp(templ), nullptr);
  std::string fifo = std::string(templ) + "/a.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  try {
    Module::load(fifo);
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos);
  }
  std::remove(fifo.c_str());
  rmdir(templ);
}

TEST(Artifact, KernelErrors) {
  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["block"] = json::array({256, 1}),
                        "kernels[0].block: expected 3 entries");
  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["block"] = json::array({2048, 1, 1}),
                        "not in [1, 1024]");
  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["block"] = json::array({64, 64, 1}),
                        "exceed the limit of 1024");
  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["grid"][0] = "cdiv(N,",
                        "kernels[0].grid[0]");
  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["params"][2]["type"] = "int",
                        "kernels[0].params[2].type: unknown type 'int'");
  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["shared_bytes"] = -1,
                        "kernels[0].shared_bytes");
  EXPECT_ARTIFACT_ERROR(j["kernels"][1]["name"] = "add_one",
                        "duplicate kernel 'add_one'");
  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["params"][1]["name"] = "x",
                        "duplicate parameter name 'x'");
}

TEST(Artifact, FunctionErrors) {
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["inputs"][0]["dtype"] = "bf8",
                        "functions[0].inputs[0].dtype: unknown dtype 'bf8'");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["outputs"][0]["shape"][0] = "M",
                        "symbol 'M' is not bound by any input dimension");
  EXPECT_ARTIFACT_ERROR(
      j["functions"][0]["launches"][0]["kernel"] = "add_two",
      "functions[0].launches[0].kernel: no kernel named 'add_two'");
  EXPECT_ARTIFACT_ERROR(
      j["functions"][0]["launches"][0]["args"] = json::array({"x", "y"}),
      "2 arguments for kernel 'add_one' which has 3 parameters");
  EXPECT_ARTIFACT_ERROR(
      j["functions"][0]["launches"][0]["args"][2] = "x",
      "'x' is a tensor but parameter 'n' of kernel 'add_one' has type i64");
  EXPECT_ARTIFACT_ERROR(
      j["functions"][0]["launches"][0]["args"][0] = "N",
      "'N' is a shape symbol (an integer) but parameter 'x'");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["launches"][0]["args"][1] = "z",
                        "symbol 'z' is not bound by any input dimension");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["launches"][0]["args"][2] = "N*(",
                        "is not an input, output, temp, scalar, bound shape "
                        "symbol or shape expression");
  EXPECT_ARTIFACT_ERROR(
      (j["functions"][0]["requires"] = json::array({{{"expr", "M % 2"},
                                                     {"message", "odd"}}})),
      "functions[0].requires[0].expr: symbol 'M' is not bound");
  EXPECT_ARTIFACT_ERROR(
      (j["functions"][0]["requires"] = json::array({{{"expr", "N % 2"}}})),
      "functions[0].requires[0]: missing field 'message'");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["outputs"][0]["init"] = "ones",
                        "unknown init 'ones'");
  EXPECT_ARTIFACT_ERROR(
      j["functions"][1]["launches"][1]["args"][2] = "N",
      "'N' is a shape symbol (an integer) but parameter 'scale'");
  EXPECT_ARTIFACT_ERROR(j["functions"][1]["scalars"][0]["type"] = "i64",
                        "scalars[0].default: expected an integer, got 1.0");
  EXPECT_ARTIFACT_ERROR((j["functions"][1]["scalars"][0] =
                             {{"name", "scale"}, {"type", "i64"}}),
                        "is a scalar of type i64 but parameter 'scale'");
  EXPECT_ARTIFACT_ERROR(j["functions"][1]["scalars"][0]["type"] = "ptr",
                        "unknown type 'ptr'");
  EXPECT_ARTIFACT_ERROR(j["functions"][1]["temps"][0]["init"] = "ones",
                        "functions[1].temps[0].init: unknown init 'ones' (known: zero, "
                        "kept_zero, none)");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["outputs"][0]["init"] = "kept_zero",
                        "functions[0].outputs[0].init: 'kept_zero' is for temps");
  EXPECT_ARTIFACT_ERROR(j["functions"][1]["outputs"][0]["name"] = "x",
                        "duplicate name 'x'");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["launches"] = json::array(),
                        "at least one launch");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["inputs"][0]["shapes"] = 1,
                        "unknown field 'shapes'");
  EXPECT_ARTIFACT_ERROR(j["functions"][1]["scalars"][0]["name"] = "N",
                        "both a shape symbol and a tensor or scalar");
  // A kernel grid over a symbol the calling function does not bind.
  EXPECT_ARTIFACT_ERROR(j["kernels"][2]["grid"][0] = "cdiv(M, 4)",
                        "uses a symbol that no input of function 'sum' binds");
}

TEST(Artifact, LaunchTimeSharedMemory) {
  // shared_bytes as an expression: parsed over the calling function's
  // symbols and evaluated at launch.
  json j = base();
  j["kernels"][0]["shared_bytes"] = "min(N, 4096) * 4";
  ArtifactInfo info = ArtifactInfo::parse(j.dump(), "ok.json");
  EXPECT_EQ(info.Kernels[0].SharedExpr, "min(N, 4096) * 4");
  const LaunchInfo &launch = info.Functions[0].Launches[0];
  ASSERT_TRUE(launch.Shared.has_value());
  std::vector<int64_t> values(info.Functions[0].Symbols.size(), 0);
  values[*info.Functions[0].Symbols.lookup("N")] = 1000;
  EXPECT_EQ(launch.Shared->eval(values.data()), 4000);
  values[*info.Functions[0].Symbols.lookup("N")] = 100000;
  EXPECT_EQ(launch.Shared->eval(values.data()), 16384);
  // a constant size gives no expression
  EXPECT_FALSE(info.Functions[1].Launches[0].Shared.has_value());

  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["shared_bytes"] = "N*(",
                        "kernels[0].shared_bytes");
  EXPECT_ARTIFACT_ERROR(j["kernels"][0]["shared_bytes"] = "M * 4",
                        "kernel 'add_one' shared_bytes ('M * 4') uses a symbol "
                        "that no input of function 'add_one' binds");
}

TEST(Artifact, SmCountInLaunchExpressions) {
  // sm_count: bound by no input, the launching device's multiprocessor
  // count, in grids and shared memory sizes only.
  json j = base();
  j["kernels"][0]["grid"][0] = "min(cdiv(N, 256), 2 * sm_count)";
  ArtifactInfo info = ArtifactInfo::parse(j.dump(), "ok.json");
  const FunctionInfo &fn = info.Functions[0];
  ASSERT_TRUE(fn.SmCount.has_value());
  EXPECT_EQ(fn.Symbols.name(*fn.SmCount), "sm_count");
  std::vector<int64_t> values(fn.Symbols.size(), 0);
  values[*fn.Symbols.lookup("N")] = 1 << 20;
  values[*fn.SmCount] = 132;
  EXPECT_EQ(fn.Launches[0].Grid[0].eval(values.data()), 264);
  values[*fn.Symbols.lookup("N")] = 1000;
  EXPECT_EQ(fn.Launches[0].Grid[0].eval(values.data()), 4);
  EXPECT_FALSE(info.Functions[1].SmCount.has_value()); // sum does not use it

  EXPECT_ARTIFACT_ERROR(j["functions"][0]["inputs"][0]["shape"][0] = "sm_count",
                        "'sm_count' is the device's multiprocessor count, not an input dimension");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["outputs"][0]["shape"][0] = "sm_count",
                        "symbol 'sm_count' is not bound by any input dimension");
  EXPECT_ARTIFACT_ERROR(j["functions"][0]["launches"][0]["args"][2] = "sm_count",
                        "sm_count");
}

TEST(Artifact, Chips) {
  auto chip = [](const char *s) { return *Chip::parse(s); };
  EXPECT_EQ(chip("sm_90a").Major, 9);
  EXPECT_EQ(chip("sm_90a").Suffix, 'a');
  EXPECT_EQ(chip("sm_100a").Major, 10);
  EXPECT_EQ(chip("sm_120f").Minor, 0);
  EXPECT_EQ(chip("compute_89").str(), "sm_89");
  EXPECT_FALSE(Chip::parse("sm_9"));
  EXPECT_FALSE(Chip::parse("sm_90b"));
  // PTX JITs forward; 'a' only on the exact arch; SASS within a major.
  EXPECT_TRUE(chip("sm_80").runsOn(9, 0, /*ptx=*/true));
  EXPECT_FALSE(chip("sm_80").runsOn(9, 0, /*ptx=*/false));
  EXPECT_TRUE(chip("sm_80").runsOn(8, 9, /*ptx=*/false));
  EXPECT_TRUE(chip("sm_90a").runsOn(9, 0, true));
  EXPECT_FALSE(chip("sm_90a").runsOn(10, 0, true));
  EXPECT_FALSE(chip("sm_100a").runsOn(10, 3, true));
  EXPECT_TRUE(chip("sm_100f").runsOn(10, 3, false));
  EXPECT_EQ(minDriverForPtx("8.7"), std::optional<int>(12080));
  EXPECT_EQ(minDriverForPtx("9.0"), std::optional<int>(13000));
}

TEST(Module, ListsEntriesMissingFromPtx) {
  json j = base();
  j["kernels"][0]["name"] = "add_two";
  j["functions"][0]["launches"][0]["kernel"] = "add_two";
  try {
    Module::fromMemory(j.dump(), test::kTestPtx, "", "m.json");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("has no '.entry add_two'"),
              std::string::npos)
        << e.what();
  }
}

TEST(Module, LoadFromDirectory) {
  char dirTemplate[] = "/tmp/fpx-artifact-XXXXXX";
  ASSERT_NE(mkdtemp(dirTemplate), nullptr);
  std::string dir = dirTemplate;
  std::ofstream(dir + "/test.json") << test::kTestJson;
  // Missing PTX file: an error naming the file.
  try {
    Module::load(dir);
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("test.ptx"), std::string::npos);
  }
  std::ofstream(dir + "/test.ptx") << test::kTestPtx;
  std::shared_ptr<Module> m = Module::load(dir);
  EXPECT_EQ(m->functions().size(), 2u);
  EXPECT_EQ(Module::load(dir + "/test.json")->info().Source, dir + "/test.json");
  try {
    m->function("nope");
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_NE(std::string(e.what()).find("it has: add_one, sum"),
              std::string::npos);
  }
  std::remove((dir + "/test.json").c_str());
  std::remove((dir + "/test.ptx").c_str());
  rmdir(dir.c_str());
}

/// A two-input artifact exercising symbol binding.
std::shared_ptr<Module> bindingModule() {
  json j = base();
  j["functions"][0]["inputs"] = json::parse(R"J([
    {"name": "x", "dtype": "bf16", "shape": ["M", "K"]},
    {"name": "w", "dtype": "u8", "shape": ["N", "K/2"]},
    {"name": "s", "dtype": "f8e8m0fnu", "shape": ["N", "cdiv(K, 32)", 4]}])J");
  j["functions"][0]["outputs"] = json::parse(R"J([
    {"name": "y", "dtype": "f32", "shape": ["M", "N"]},
    {"name": "q", "dtype": "u8", "shape": ["M", "cdiv(K, 2)"]}])J");
  j["functions"][0]["launches"][0]["args"] = json::array({"x", "y", "K"});
  return Module::fromMemory(j.dump(), test::kTestPtx, "", "bind.json");
}

std::string argError(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(Function, OutputShapes) {
  auto m = bindingModule();
  const Function &f = m->function("add_one");
  auto shapes = f.outputShapes({{3, 100}, {7, 50}, {7, 4, 4}});
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0], (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(shapes[1], (std::vector<int64_t>{3, 50}));

  // A symbol bound twice must agree; the message names both places.
  std::string msg = argError([&] { f.outputShapes({{3, 100}, {7, 50}, {8, 4, 4}}); });
  EXPECT_NE(msg.find("shape symbol 'N' is 7 from input 'w' dim 0 but 8 from "
                     "input 's' dim 0"),
            std::string::npos)
      << msg;
  msg = argError([&] { f.outputShapes({{3, 100}, {7, 51}, {7, 4, 4}}); });
  EXPECT_NE(msg.find("input 'w' dim 1 must be 50 (K/2)"), std::string::npos)
      << msg;
  msg = argError([&] { f.outputShapes({{3, 100}, {7, 50}, {7, 4, 3}}); });
  EXPECT_NE(msg.find("input 's' dim 2 must be 4"), std::string::npos) << msg;
  msg = argError([&] { f.outputShapes({{3, 100, 1}, {7, 50}, {7, 4, 4}}); });
  EXPECT_NE(msg.find("input 'x' must have rank 2"), std::string::npos) << msg;
  msg = argError([&] { f.outputShapes({{3, 100}}); });
  EXPECT_NE(msg.find("expected 3 input tensors, got 1"), std::string::npos);
}

TEST(Function, ExpressionArgumentsRequiresAndOutputInit) {
  json j = json::parse(test::kTestJson);
  j["functions"][0]["launches"][0]["args"][2] = "N*2 - cdiv(N, 4)";
  j["functions"][0]["outputs"][0]["init"] = "zero";
  j["functions"][0]["requires"] = json::array(
      {{{"expr", "N % 8"}, {"message", "N must be a multiple of 8"}}});
  ArtifactInfo info = ArtifactInfo::parse(j.dump(), "t.json");
  const FunctionInfo &fn = info.Functions[0];
  ASSERT_EQ(fn.Launches[0].Args[2].Source, ArgSource::Expr);
  int64_t n = 20;
  EXPECT_EQ(fn.Launches[0].ArgExprs[0].eval(&n), 35);
  EXPECT_TRUE(fn.Outputs[0].ZeroInit);
  ASSERT_EQ(fn.Requires.size(), 1u);
  EXPECT_NE(fn.Requires[0].Value.eval(&n), 0);
  // The precondition is checked before any GPU call, with its message.
  auto m = Module::fromMemory(j.dump(), test::kTestPtx, "", "t.json");
  const CUdeviceptr ok = 0x10000;
  std::string msg = argError([&] {
    m->function("add_one").launch(nullptr, {TensorRef(ok, DType::F32, {20})},
                                  {TensorRef(ok, DType::F32, {20})});
  });
  EXPECT_NE(msg.find("N must be a multiple of 8"), std::string::npos) << msg;
}

TEST(Function, LaunchChecksArgumentsBeforeTheGpu) {
  auto m = Module::fromMemory(test::kTestJson, test::kTestPtx, "", "t.json");
  const Function &f = m->function("add_one");
  const CUdeviceptr ok = 0x10000;
  std::string msg = argError([&] {
    f.launch(nullptr, {TensorRef(ok, DType::BF16, {16})},
             {TensorRef(ok, DType::F32, {16})});
  });
  EXPECT_NE(msg.find("input 'x' must have dtype f32, got bf16"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("[add_one]"), std::string::npos) << msg;
  msg = argError([&] {
    f.launch(nullptr, {TensorRef(ok, DType::F32, {16})},
             {TensorRef(ok, DType::F32, {15})});
  });
  EXPECT_NE(msg.find("output 'y' must have shape [16], got [15]"),
            std::string::npos)
      << msg;
  msg = argError([&] {
    f.launch(nullptr, {TensorRef(ok + 4, DType::F32, {16})},
             {TensorRef(ok, DType::F32, {16})});
  });
  EXPECT_NE(msg.find("input 'x' at 0x10004 is not 16-byte aligned"),
            std::string::npos)
      << msg;
  msg = argError([&] {
    f.launch(nullptr, {TensorRef(ok, DType::F32, {4, 4}, {1, 4})},
             {TensorRef(ok, DType::F32, {16})});
  });
  EXPECT_NE(msg.find("must have rank 1"), std::string::npos) << msg;
  msg = argError([&] {
    f.launch(nullptr, {TensorRef(ok, DType::F32, {16}, {2})},
             {TensorRef(ok, DType::F32, {16})});
  });
  EXPECT_NE(msg.find("input 'x' is not contiguous"), std::string::npos) << msg;
  msg = argError([&] {
    f.launch(nullptr, {TensorRef(ok, DType::F32, {16})}, {});
  });
  EXPECT_NE(msg.find("expected 1 output tensors, got 0"), std::string::npos);

  const Function &sum = m->function("sum");
  msg = argError([&] {
    sum.launch(nullptr, {TensorRef(ok, DType::F32, {16})},
               {TensorRef(ok, DType::F32, {1})}, {Scalar(1), Scalar(2)});
  });
  EXPECT_NE(msg.find("expected at most 1 scalars, got 2"), std::string::npos);
  EXPECT_EQ(sum.scalarIndex("scale"), 0u);
  EXPECT_THROW(sum.scalarIndex("seed"), Error);
}

TEST(Function, IntegerScalarRejectsFloat) {
  json j = base();
  j["kernels"][2]["params"][2]["type"] = "i64";
  j["functions"][1]["scalars"][0] = {{"name", "seed"}, {"type", "i64"}};
  j["functions"][1]["launches"][1]["args"][2] = "seed";
  auto m = Module::fromMemory(j.dump(), test::kTestPtx, "", "s.json");
  const Function &sum = m->function("sum");
  const CUdeviceptr ok = 0x10000;
  std::string msg = argError([&] {
    sum.launch(nullptr, {TensorRef(ok, DType::F32, {16})},
               {TensorRef(ok, DType::F32, {1})}, {Scalar(0.5)});
  });
  EXPECT_NE(msg.find("scalar 'seed' is an integer (i64)"), std::string::npos);
  msg = argError([&] {
    sum.launch(nullptr, {TensorRef(ok, DType::F32, {16})},
               {TensorRef(ok, DType::F32, {1})});
  });
  EXPECT_NE(msg.find("scalar 'seed' has no default"), std::string::npos);
}

} // namespace
