//===- AcceptTest.cpp - Whether a function accepts a call -----------------===//
//
// accepts() answers from the metadata alone (no GPU), and its reasons are the
// causes launch() raises for the same inputs: both run checkCall().
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "fpx/Runtime/Accept.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace fpx::rt;
using json = nlohmann::json;

namespace {

using Shapes = std::vector<std::vector<int64_t>>;

/// add_one with three inputs binding M, K, N, a derived and a literal
/// dimension, and two requirements.
std::string dequantJson() {
  json j = json::parse(test::kTestJson);
  json &fn = j["functions"][0];
  fn["inputs"] = json::parse(R"J([
    {"name": "x", "dtype": "bf16", "shape": ["M", "K"]},
    {"name": "w", "dtype": "u8", "shape": ["N", "K/2"]},
    {"name": "s", "dtype": "f8e8m0fnu", "shape": ["N", "cdiv(K, 32)", 4]}])J");
  fn["outputs"] = json::parse(R"J([
    {"name": "y", "dtype": "f32", "shape": ["M", "N"]}])J");
  fn["requires"] = json::parse(R"J([
    {"expr": "K % 32", "message": "K must be a multiple of 32"},
    {"expr": "(M*K) / 4611686018427387904", "message": "x is too large"},
    {"expr": "N % 8", "message": "N must be a multiple of 8"}])J");
  fn["launches"][0]["args"] = json::array({"x", "y", "K"});
  j["options"] = json::parse(R"J({"op": "dequantize", "block": [1, 32]})J");
  return j.dump();
}

const ArtifactInfo &info() {
  static const ArtifactInfo parsed =
      ArtifactInfo::parse(dequantJson(), "dq.json");
  return parsed;
}

const FunctionInfo &fn() { return *info().findFunction("add_one"); }

const std::vector<DType> kTypes = {DType::BF16, DType::U8, DType::F8E8M0FNU};

/// The cause launch() raises for inputs of these shapes and dtypes (before
/// any GPU call), or "" when it gets past the input checks.
std::string launchCause(const Shapes &shapes, const std::vector<DType> &types) {
  static std::shared_ptr<Module> m =
      Module::fromMemory(dequantJson(), test::kTestPtx, "", "dq.json");
  std::vector<TensorRef> inputs;
  for (size_t i = 0; i < shapes.size(); ++i)
    inputs.emplace_back(CUdeviceptr(0x10000), types[i], shapes[i]);
  try {
    // No outputs: a call whose inputs pass fails on the output count.
    m->function("add_one").launch(nullptr, inputs, {});
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    return e.cause().find("output tensors") != std::string::npos ? ""
                                                                 : e.cause();
  }
  ADD_FAILURE() << "launch without outputs went through";
  return "?";
}

TEST(Accept, AcceptsACallTheContractAllows) {
  Verdict v = accepts(fn(), {{64, 256}, {16, 128}, {16, 8, 4}}, kTypes);
  EXPECT_TRUE(v.Accepted) << v.Reason;
  EXPECT_TRUE(v.Reason.empty());
  // Dtypes are optional; an empty tensor is a call too.
  EXPECT_TRUE(accepts(fn(), {{0, 256}, {0, 128}, {0, 8, 4}}));
  EXPECT_EQ(launchCause({{64, 256}, {16, 128}, {16, 8, 4}}, kTypes), "");
}

struct RejectCase {
  const char *What;
  Shapes In;
  std::vector<DType> Types;
  const char *Reason;
};

TEST(Accept, RefusesWithTheReasonLaunchRaises) {
  const std::vector<RejectCase> cases = {
      {"symbols bound inconsistently",
       {{64, 256}, {16, 128}, {24, 8, 4}},
       kTypes,
       "shape symbol 'N' is 16 from input 'w' dim 0 but 24 from input 's' dim "
       "0"},
      {"a requirement is false",
       {{64, 250}, {16, 125}, {16, 8, 4}},
       kTypes,
       "K must be a multiple of 32"},
      {"the last requirement is false",
       {{64, 256}, {12, 128}, {12, 8, 4}},
       kTypes,
       "N must be a multiple of 8"},
      {"dtype",
       {{64, 256}, {16, 128}, {16, 8, 4}},
       {DType::F32, DType::U8, DType::F8E8M0FNU},
       "input 'x' must have dtype bf16, got f32"},
      {"rank",
       {{64, 256}, {16, 128, 1}, {16, 8, 4}},
       kTypes,
       "input 'w' must have rank 2, got shape [16, 128, 1]"},
      {"derived dimension",
       {{64, 256}, {16, 127}, {16, 8, 4}},
       kTypes,
       "input 'w' dim 1 must be 128 (K/2), got shape [16, 127]"},
      {"literal dimension",
       {{64, 256}, {16, 128}, {16, 8, 3}},
       kTypes,
       "input 's' dim 2 must be 4 (4), got shape [16, 8, 3]"},
      {"input count",
       {{64, 256}, {16, 128}},
       {DType::BF16, DType::U8},
       "expected 3 input tensors, got 2"},
      {"negative dimension",
       {{64, -256}, {16, 128}, {16, 8, 4}},
       kTypes,
       "input 'x' has a negative dimension"},
  };
  for (const RejectCase &c : cases) {
    SCOPED_TRACE(c.What);
    Verdict v = accepts(fn(), c.In, c.Types);
    EXPECT_FALSE(v.Accepted);
    EXPECT_EQ(v.Reason, c.Reason);
    // The launch refuses the same inputs with the same words.
    EXPECT_EQ(launchCause(c.In, c.Types), v.Reason);
  }
}

TEST(Accept, AnOverflowIsAReasonNotAnError) {
  Verdict v;
  EXPECT_NO_THROW(v = accepts(fn(), {{int64_t(1) << 40, int64_t(1) << 40},
                                     {16, int64_t(1) << 39},
                                     {16, int64_t(1) << 35, 4}}));
  EXPECT_FALSE(v.Accepted);
  EXPECT_NE(v.Reason.find("overflow"), std::string::npos) << v.Reason;
  EXPECT_NE(v.Reason.find("(M*K) / 4611686018427387904"), std::string::npos)
      << v.Reason;
}

TEST(Accept, LeadingInputsOnly) {
  // The first input alone: its own dimensions and the requirements over the
  // symbols it binds are checked; one needing a later input refuses.
  json j = json::parse(dequantJson());
  j["functions"][0]["requires"].erase(2); // N % 8: over w's symbol
  ArtifactInfo first = ArtifactInfo::parse(j.dump(), "first.json");
  const FunctionInfo &f = *first.findFunction("add_one");
  EXPECT_TRUE(accepts(f, {{64, 256}}, {}, /*leading=*/true));
  EXPECT_EQ(accepts(f, {{64, 250}}, {}, true).Reason,
            "K must be a multiple of 32");
  EXPECT_EQ(accepts(f, {{64, 256}}, {}, /*leading=*/false).Reason,
            "expected 3 input tensors, got 1");
  EXPECT_EQ(
      accepts(fn(), {{64, 256}}, {}, true).Reason,
      "requirement 'N % 8' (N must be a multiple of 8) needs the shape of "
      "input 'w'");
  // A derived dimension over a symbol a later input binds.
  j["functions"][0]["inputs"][0]["shape"][1] = "N*2";
  j["functions"][0]["inputs"][1]["shape"] = json::array({"N", "K"});
  j["functions"][0]["inputs"][2]["shape"] =
      json::array({"N", "cdiv(K, 32)", 4});
  ArtifactInfo later = ArtifactInfo::parse(j.dump(), "later.json");
  EXPECT_EQ(
      accepts(*later.findFunction("add_one"), {{64, 32}}, {}, true).Reason,
      "input 'x' dim 1 (N*2) needs the shape of input 'w'");
  EXPECT_TRUE(
      accepts(*later.findFunction("add_one"), {{64, 32}, {16, 64}}, {}, true));
  EXPECT_EQ(
      accepts(fn(), {{64, 256}, {16, 128}, {16, 8, 4}, {1}}, {}, true).Reason,
      "expected 3 input tensors, got 4");
}

TEST(Accept, ByFunctionName) {
  EXPECT_TRUE(accepts(info(), "add_one", {{64, 256}, {16, 128}, {16, 8, 4}}));
  EXPECT_TRUE(accepts(info(), "sum", {{5}}));
  EXPECT_EQ(accepts(info(), "sum", {{5}}, {DType::BF16}).Reason,
            "input 'x' must have dtype f32, got bf16");
  EXPECT_EQ(accepts(info(), "sum", {{5}}, {DType::F32, DType::F32}).Reason,
            "1 shapes but 2 dtypes");
  try {
    accepts(info(), "nope", {});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_NE(
        std::string(e.what()).find("no function 'nope' (it has: add_one, sum)"),
        std::string::npos)
        << e.what();
  }
}

TEST(Accept, ReadsTheMetadataAlone) {
  // No PTX beside it: reading the metadata does not look for one.
  char dir[] = "/tmp/fpx-accept-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/dq.json";
  std::ofstream(path) << dequantJson();
  ArtifactInfo read = ArtifactInfo::read(path);
  EXPECT_EQ(read.Source, path);
  EXPECT_EQ(json::parse(read.Options),
            json::parse(R"J({"op": "dequantize", "block": [1, 32]})J"));
  EXPECT_TRUE(accepts(read, "add_one", {{64, 256}, {16, 128}, {16, 8, 4}}));
  EXPECT_TRUE(ArtifactInfo::parse(test::kTestJson, "t.json").Options.empty());
  std::remove(path.c_str());
  rmdir(dir);
  try {
    ArtifactInfo::read(path);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
  }
}

} // namespace
