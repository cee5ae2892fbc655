//===- JitTest.cpp - compileSpec through a stand-in fpxc -------------------===//
//
// A shell script plays fpxc (same command line, writes an artifact) so the
// subprocess, caching and error paths are tested without the compiler.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Jit.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace fpx::rt;
namespace fs = std::filesystem;

namespace {

class JitTest : public ::testing::Test {
protected:
  void SetUp() override {
    char templ[] = "/tmp/fpx-jit-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    Dir = templ;
    std::ofstream(Dir + "/test.json") << test::kTestJson;
    std::ofstream(Dir + "/test.ptx") << test::kTestPtx;
    Script = Dir + "/fpxc";
    std::ofstream script(Script);
    script << "#!/bin/sh\n"
              "if [ \"$1\" = --version ]; then echo 'fpxc 0.0.0-fake'; exit 0; fi\n"
              "[ \"$1\" = compile ] && shift\n"
              "spec=$1; target=; out=\n"
              "shift\n"
              "while [ $# -gt 0 ]; do\n"
              "  case $1 in --target) shift; target=$1;;\n"
              "    -o) shift; out=$(dirname \"$1\");; esac; shift\n"
              "done\n"
              "echo \"$target\" >> " << Dir << "/calls\n"
              "if grep -q FAIL \"$spec\"; then\n"
              "  echo \"$spec:1:1: error: 'fpx.quantize' op bad block\" >&2; exit 1\n"
              "fi\n"
              "cp " << Dir << "/test.json " << Dir << "/test.ptx \"$out\"/\n";
    script.close();
    chmod(Script.c_str(), 0755);
    setenv("FPX_FPXC", Script.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("FPX_FPXC");
    fs::remove_all(Dir);
  }
  int calls() const {
    std::ifstream in(Dir + "/calls");
    int n = 0;
    for (std::string line; std::getline(in, line);)
      ++n;
    return n;
  }
  std::string Dir, Script;
};

TEST_F(JitTest, RunProcessCapturesOutput) {
  ProcessResult r = runProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.ExitCode, 3);
  EXPECT_NE(r.Output.find("out"), std::string::npos);
  EXPECT_NE(r.Output.find("err"), std::string::npos);
  EXPECT_THROW(runProcess({"/nonexistent/tool"}), Error);
}

TEST_F(JitTest, CompilesCachesAndLoads) {
  DiskCache cache(Dir + "/cache");
  auto m = compileSpec("func.func @f() { return }", "sm_90a", {}, &cache);
  EXPECT_EQ(m->function("add_one").name(), "add_one");
  EXPECT_EQ(calls(), 1);
  // Same inputs: in-process hit, no fpxc run.
  auto again = compileSpec("func.func @f() { return }", "sm_90a", {}, &cache);
  EXPECT_EQ(again.get(), m.get());
  EXPECT_EQ(calls(), 1);
  // A fresh process would hit the disk entry: drop the in-process module.
  m.reset();
  again.reset();
  auto fromDisk = compileSpec("func.func @f() { return }", "sm_90a", {}, &cache);
  EXPECT_EQ(calls(), 1);
  // Target and options are part of the key.
  compileSpec("func.func @f() { return }", "sm_100a", {}, &cache);
  compileSpec("func.func @f() { return }", "sm_90a", {"--opt=1"}, &cache);
  EXPECT_EQ(calls(), 3);
}

TEST_F(JitTest, CorruptEntryIsRebuilt) {
  DiskCache cache(Dir + "/cache");
  std::string spec = "func.func @g() { return }";
  compileSpec(spec, "sm_90a", {}, &cache).reset();
  std::string key = compileCacheKey(spec, "sm_90a", {}, "fpxc 0.0.0-fake");
  std::string path = cache.entryPath(key);
  ASSERT_TRUE(fs::exists(path));
  fs::resize_file(path, fs::file_size(path) / 2);
  auto m = compileSpec(spec, "sm_90a", {}, &cache);
  EXPECT_EQ(calls(), 2);
  EXPECT_TRUE(cache.lookup(key));
}

TEST_F(JitTest, CompilerErrorsSurface) {
  DiskCache cache(Dir + "/cache");
  try {
    compileSpec("FAIL", "sm_90a", {}, &cache);
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::CompileFailed);
    EXPECT_NE(std::string(e.what()).find("'fpx.quantize' op bad block"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(JitTest, MissingFpxc) {
  setenv("FPX_FPXC", (Dir + "/nope").c_str(), 1);
  try {
    findFpxc();
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
  }
}

TEST_F(JitTest, BundleRoundTrip) {
  FileBundle files = readArtifactFiles(Dir + "/test.json");
  ASSERT_EQ(files.size(), 2u);
  std::string json = writeFiles(files, Dir + "/copy");
  EXPECT_EQ(json, Dir + "/copy/test.json");
  auto m = moduleFromBundle(files, "bundle");
  EXPECT_EQ(m->functions().size(), 2u);
}

} // namespace
