//===- LinkTest.cpp - User functions linked into artifacts (no GPU) -------===//
//
// The artifact's top-level "link" list and the CUDA sources given to
// Module::load / fromMemory are checked without a GPU: field validation,
// a missing, unknown or non-defining source is an error naming the symbol
// and the artifact. NVRTC compiles a snippet the way the runtime does
// (-rdc=true --fmad=false) where NVRTC is present. Linking and launching are
// in test/gpu/PrologueLinkTest.cpp (label gpu).
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Nvrtc.h"
#include "fpx/Runtime/Runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace fpx::rt;
using json = nlohmann::json;

namespace {

const char *kSnippet =
    "extern \"C\" __device__ float fpx_user_scale(float x) {\n"
    "  return x * 0.5f - 1.0f;\n"
    "}\n";

json withLink() {
  json j = json::parse(test::kTestJson);
  j["link"] = json::array(
      {{{"symbol", "fpx_user_scale"}, {"signature", "float(float)"}}});
  return j;
}

std::string ptxWithExtern() {
  return std::string(test::kTestPtx) +
         "\n.extern .func (.param .b32 func_retval0) fpx_user_scale\n"
         "(\n\t.param .b32 fpx_user_scale_param_0\n)\n;\n";
}

std::string parseError(const json &j) {
  try {
    ArtifactInfo::parse(j.dump(), "link.json");
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArtifact) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "artifact was accepted";
  return {};
}

#define EXPECT_LINK_ERROR(MUTATE, TEXT)                                        \
  do {                                                                         \
    json j = withLink();                                                       \
    MUTATE;                                                                    \
    std::string msg = parseError(j);                                           \
    EXPECT_NE(msg.find(TEXT), std::string::npos) << msg;                       \
    EXPECT_NE(msg.find("link.json"), std::string::npos) << msg;                \
  } while (0)

TEST(Link, ParsesTheLinkList) {
  ArtifactInfo info = ArtifactInfo::parse(withLink().dump(), "link.json");
  ASSERT_EQ(info.Link.size(), 1u);
  EXPECT_EQ(info.Link[0].Symbol, "fpx_user_scale");
  EXPECT_EQ(info.Link[0].Signature, "float(float)");
  // Absent: a self-contained artifact.
  EXPECT_TRUE(ArtifactInfo::parse(test::kTestJson, "t.json").Link.empty());
  json empty = withLink();
  empty["link"] = json::array();
  EXPECT_TRUE(ArtifactInfo::parse(empty.dump(), "t.json").Link.empty());
}

TEST(Link, FieldErrors) {
  EXPECT_LINK_ERROR(j["link"] = "fpx_user_scale", "link: expected an array");
  EXPECT_LINK_ERROR(j["link"][0] = 3, "link[0]: expected an object");
  EXPECT_LINK_ERROR(j["link"][0]["symbl"] = "x", "link[0]: unknown field 'symbl'");
  EXPECT_LINK_ERROR(j["link"][0].erase("symbol"), "link[0]: missing field 'symbol'");
  EXPECT_LINK_ERROR(j["link"][0].erase("signature"),
                    "link[0]: missing field 'signature'");
  EXPECT_LINK_ERROR(j["link"][0]["symbol"] = "my-act",
                    "link[0].symbol: 'my-act' is not a C identifier");
  EXPECT_LINK_ERROR(j["link"][0]["symbol"] = "",
                    "link[0].symbol: '' is not a C identifier");
  EXPECT_LINK_ERROR(j["link"][0]["symbol"] = "9lives", "is not a C identifier");
  EXPECT_LINK_ERROR(j["link"][0]["signature"] = "double(double)",
                    "link[0].signature: unknown signature 'double(double)' "
                    "(known: float(float))");
  EXPECT_LINK_ERROR(j["link"].push_back(j["link"][0]),
                    "link[1]: duplicate symbol 'fpx_user_scale'");
  EXPECT_LINK_ERROR(j["link"][0]["symbol"] = "add_one",
                    "symbol 'add_one' is also a kernel name");
  EXPECT_LINK_ERROR(j["cubin"] = "t.cubin",
                    "cubin: an artifact that links user functions cannot "
                    "carry a cubin");
}

/// The error (code and message) of fromMemory with these sources.
Error loadError(const json &j, const std::string &ptx, LinkSources link) {
  try {
    Module::fromMemory(j.dump(), ptx, "", "art.json", std::move(link));
  } catch (const Error &e) {
    return e;
  }
  ADD_FAILURE() << "the module loaded";
  return Error(ErrorCode::CudaError, "", "", "");
}

TEST(Link, SourcesAreCheckedAtLoadWithoutAGpu) {
  // All there: loads (linking happens at the first use on a device).
  auto m = Module::fromMemory(withLink().dump(), ptxWithExtern(), "", "art.json",
                              {{"fpx_user_scale", kSnippet}});
  EXPECT_EQ(m->linkSources().size(), 1u);
  EXPECT_EQ(m->info().Link.size(), 1u);

  // Missing: names the symbol, its signature, the artifact and the fix.
  Error e = loadError(withLink(), ptxWithExtern(), {});
  EXPECT_EQ(e.code(), ErrorCode::NotFound);
  std::string msg = e.what();
  EXPECT_NE(msg.find("art.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the kernels call the user function 'fpx_user_scale' "
                     "(float(float)), which is linked at load time"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("fpx.load(path, link="), std::string::npos) << msg;

  // A source for a symbol the artifact does not link (a typo).
  e = loadError(withLink(), ptxWithExtern(),
                {{"fpx_user_scale", kSnippet}, {"fpx_user_scal", kSnippet}});
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find(
                "a CUDA source was given for 'fpx_user_scal' but the artifact "
                "links only 'fpx_user_scale'"),
            std::string::npos)
      << e.what();

  // Sources for an artifact that links nothing.
  e = loadError(json::parse(test::kTestJson), test::kTestPtx,
                {{"fpx_user_scale", kSnippet}});
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("links no user functions"),
            std::string::npos)
      << e.what();

  // A source that cannot define the symbol.
  e = loadError(withLink(), ptxWithExtern(),
                {{"fpx_user_scale", "__device__ float other(float x) { return x; }"}});
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find(
                "the CUDA source given for 'fpx_user_scale' does not mention "
                "'fpx_user_scale'"),
            std::string::npos)
      << e.what();

  // The metadata lists a symbol the PTX never calls.
  e = loadError(withLink(), test::kTestPtx, {{"fpx_user_scale", kSnippet}});
  EXPECT_EQ(e.code(), ErrorCode::InvalidArtifact);
  EXPECT_NE(std::string(e.what()).find("never mentions it"), std::string::npos)
      << e.what();
}

TEST(Link, LoadFromFilesPassesTheSources) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("fpx-link-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  json j = withLink();
  {
    std::ofstream(dir / "art.json") << j.dump();
    std::ofstream(dir / j["ptx"].get<std::string>()) << ptxWithExtern();
  }
  std::string path = (dir / "art.json").string();
  EXPECT_NO_THROW(Module::load(path, {{"fpx_user_scale", kSnippet}}));
  try {
    Module::load(path);
    ADD_FAILURE() << "loaded without the user function";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("'fpx_user_scale'"), std::string::npos) << msg;
  }
  fs::remove_all(dir);
}

TEST(Link, SnippetCompilesRelocatableWithoutFma) {
  try {
    CudaApi::nvrtc();
  } catch (const Error &e) {
    GTEST_SKIP() << "NVRTC not available: " << e.what();
  }
  // What the runtime does before linking: -rdc=true keeps the function
  // visible, --fmad=false keeps x * 0.5f - 1.0f two roundings.
  std::string ptx =
      compileCuda(kSnippet, "sm_90a", {"-rdc=true", "--fmad=false"}, "snippet.cu");
  EXPECT_NE(ptx.find(".visible .func"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("fpx_user_scale("), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("mul.rn.f32"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find("fma."), std::string::npos) << ptx;
}

} // namespace
