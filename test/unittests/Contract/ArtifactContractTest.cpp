//===- ArtifactContractTest.cpp - fpxc artifacts load in libfpxrt ---------===//
//
// Compiles every docs/examples spec with the real fpxc for every target and
// parses the artifact with the runtime's validator: the JSON the compiler
// writes is the JSON the runtime reads. Also checks shape binding, derived
// output shapes and the spec's preconditions on concrete shapes.
//
//===----------------------------------------------------------------------===//
#include "fpx/Runtime/Artifact.h"
#include "fpx/Runtime/Runtime.h"
#include "fpx/Runtime/TensorMap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace fpx::rt;

namespace {

std::string readText(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path compile(const fs::path &spec, const std::string &target) {
  fs::path dir = fs::temp_directory_path() / "fpx-contract";
  fs::create_directories(dir);
  fs::path stem = dir / (spec.stem().string() + "_" + target);
  std::string cmd = std::string(FPXC_PATH) + " compile '" + spec.string() +
                    "' --target " + target + " -o '" + stem.string() + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return stem;
}

/// The runtime's module of a compiled artifact stem.
std::shared_ptr<Module> loadArtifact(const fs::path &stem) {
  return Module::fromMemory(readText(stem.string() + ".json"),
                            readText(stem.string() + ".ptx"), "", stem.string());
}

/// Writes a spec the test needs beside the compiled artifacts.
fs::path writeSpec(const std::string &name, const std::string &text) {
  fs::path spec = fs::temp_directory_path() / "fpx-contract" / (name + ".mlir");
  fs::create_directories(spec.parent_path());
  std::ofstream(spec) << text;
  return spec;
}

std::vector<fs::path> examples() {
  std::vector<fs::path> out;
  for (const auto &e : fs::directory_iterator(FPX_EXAMPLES_DIR))
    if (e.path().extension() == ".mlir")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Contract, EveryExampleParsesForEveryTarget) {
  auto specs = examples();
  ASSERT_FALSE(specs.empty());
  for (const fs::path &spec : specs) {
    for (const char *target : {"sm_80", "sm_89", "sm_90a", "sm_100a", "sm_120a"}) {
      fs::path stem = compile(spec, target);
      std::string json = readText(stem.string() + ".json");
      ASSERT_FALSE(json.empty()) << stem;
      ArtifactInfo info;
      ASSERT_NO_THROW(info = ArtifactInfo::parse(json, stem.string() + ".json"))
          << stem;
      EXPECT_EQ(info.Target, target);
      EXPECT_FALSE(info.Functions.empty());
      EXPECT_FALSE(readText(stem.string() + ".ptx").empty());
    }
  }
}

TEST(Contract, Fp8ScaledMatmulTensorMaps) {
  // The sm_90a example: A and B reach the kernels as tensor maps over
  // [K, rows], boxes of 128 K x the tile's rows, 128B swizzle; K % 16 is a
  // precondition (a TMA row stride is a multiple of 16 bytes). Four
  // launches: tiles 128x128 (M <= 128, split-K: a workspace and counters)
  // and 128x192, each with the TMA-store epilogue (a third map, C's [N, M]
  // in boxes of 64 bf16 x 64 rows) and the st.global one (no map of C).
  fs::path stem =
      compile(fs::path(FPX_EXAMPLES_DIR) / "sm_90a" / "fp8_scaled_mm.mlir", "sm_90a");
  auto module = loadArtifact(stem);
  const Function &f = module->function("fp8_scaled_mm");
  ASSERT_EQ(f.info().Launches.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const LaunchInfo &launch = f.info().Launches[i];
    const KernelInfo &k = module->info().Kernels[launch.Kernel];
    bool tmaStore = i % 2 == 0;
    EXPECT_EQ(k.Params[0].Type, ParamType::TensorMap);
    EXPECT_EQ(k.Params[1].Type, ParamType::TensorMap);
    EXPECT_EQ(k.Params[2].Type, tmaStore ? ParamType::TensorMap : ParamType::Ptr);
    EXPECT_EQ(k.Block[0], 384u);
    ASSERT_EQ(launch.TensorMaps.size(), tmaStore ? 3u : 2u);
    EXPECT_EQ(launch.TensorMaps[0].Box[0], 128u);
    EXPECT_EQ(launch.TensorMaps[0].Box[1], 128u);
    EXPECT_EQ(launch.TensorMaps[1].Box[1], i < 2 ? 128u : 192u);
    EXPECT_EQ(launch.TensorMaps[1].Swizzle, 128u);
    if (tmaStore) {
      EXPECT_EQ(launch.TensorMaps[2].Tensor, ArgSource::Output);
      EXPECT_EQ(launch.TensorMaps[2].Box[0], 64u);
      EXPECT_EQ(launch.TensorMaps[2].Box[1], 64u);
      EXPECT_EQ(launch.TensorMaps[2].Swizzle, 128u);
    }
  }
  ASSERT_EQ(f.info().Temps.size(), 2u); // split-K's workspace and counters
  std::vector<int64_t> a = {1000, 1056}, b = {1000, 1056}, one = {1, 1};
  std::vector<int64_t> aBad = {1000, 1000}, bBad = {1000, 1000};
  TensorRef in[] = {TensorRef(0, DType::F8E4M3FN, a), TensorRef(0, DType::F32, one),
                    TensorRef(0, DType::F8E4M3FN, b), TensorRef(0, DType::F32, one)};
  auto values = f.bindSymbols(in, 4);
  const FunctionInfo &fn = f.info();
  // The tensor maps' encodings at these shapes: rows of 1056 bytes.
  TensorMapEncoding enc =
      tensorMapEncoding(fn.Launches[2].TensorMaps[1], values.data(), 1000 * 1056, "k");
  EXPECT_EQ(enc.Dims[0], 1056u);
  EXPECT_EQ(enc.Dims[1], 1000u);
  EXPECT_EQ(enc.Strides[0], 1056u);
  EXPECT_EQ(enc.Box[1], 192u);
  // C (1000 x 1000 bf16): rows of 2000 bytes. M = N = 1000 launches the
  // 128x192 TMA-store kernel alone, and no split-K workspace.
  TensorMapEncoding encC =
      tensorMapEncoding(fn.Launches[2].TensorMaps[2], values.data(), 1000 * 1000 * 2, "k");
  EXPECT_EQ(encC.DataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(encC.Dims[0], 1000u);
  EXPECT_EQ(encC.Dims[1], 1000u);
  EXPECT_EQ(encC.Strides[0], 2000u);
  ASSERT_TRUE(fn.SmCount.has_value());
  values[*fn.SmCount] = 132;
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(fn.Launches[i].Grid[0].eval(values.data()) != 0, i == 2) << "launch " << i;
  for (const TensorInfo &t : fn.Temps) {
    int64_t n = 1;
    for (const Expr &e : t.Shape)
      n *= e.eval(values.data());
    EXPECT_EQ(n, 0) << t.Name;
  }
  // The skinny shape 128 x 7168 x 16384: the 128x128 TMA-store kernel over
  // every SM (56 tiles, up to 4 CTAs a tile), a workspace of 4 slots of
  // 128 x 128 floats a tile and 2 counters a tile.
  std::vector<int64_t> sa = {128, 16384}, sbShape = {7168, 16384};
  TensorRef skinny[] = {TensorRef(0, DType::F8E4M3FN, sa), TensorRef(0, DType::F32, one),
                        TensorRef(0, DType::F8E4M3FN, sbShape), TensorRef(0, DType::F32, one)};
  auto sv = f.bindSymbols(skinny, 4);
  sv[*fn.SmCount] = 132;
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(fn.Launches[i].Grid[0].eval(sv.data()), i == 0 ? 132 : 0) << "launch " << i;
  std::vector<int64_t> tempElems;
  for (const TensorInfo &t : fn.Temps) {
    int64_t n = 1;
    for (const Expr &e : t.Shape)
      n *= e.eval(sv.data());
    tempElems.push_back(n);
  }
  EXPECT_EQ(tempElems, (std::vector<int64_t>{4 * 56 * 128 * 128, 2 * 56}));
  bool kRequired = false;
  for (const Requirement &r : fn.Requires)
    if (r.Message.find("multiple of 16") != std::string::npos) {
      kRequired = true;
      EXPECT_EQ(r.Value.eval(values.data()), 0);
      TensorRef bad[] = {TensorRef(0, DType::F8E4M3FN, aBad), TensorRef(0, DType::F32, one),
                         TensorRef(0, DType::F8E4M3FN, bBad), TensorRef(0, DType::F32, one)};
      auto badValues = f.bindSymbols(bad, 4);
      EXPECT_NE(r.Value.eval(badValues.data()), 0);
    }
  EXPECT_TRUE(kRequired);
}

TEST(Contract, MxFp8ShapesAndPreconditions) {
  fs::path stem = compile(fs::path(FPX_EXAMPLES_DIR) / "mxfp8_rows.mlir", "sm_90a");
  auto module = loadArtifact(stem);
  const Function &f = module->function("mxfp8_rows");
  // 300 rows x 256 cols: 8 scales per row, blocked to 384 x 8.
  auto shapes = f.outputShapes({{300, 256}});
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0], (std::vector<int64_t>{300, 256}));
  EXPECT_EQ(shapes[1], (std::vector<int64_t>{384, 8}));
  // K % 32, and fewer than 2^35 elements (the blocked-scale rows are found
  // in 32-bit arithmetic)
  ASSERT_EQ(f.info().Requires.size(), 2u);
  {
    std::vector<int64_t> huge = {int64_t(1) << 28, 256};
    TensorRef hugeIn(0, DType::BF16, huge);
    auto v = f.bindSymbols(&hugeIn, 1);
    EXPECT_NE(f.info().Requires[1].Value.eval(v.data()), 0);
    EXPECT_NE(f.info().Requires[1].Message.find("2^35"), std::string::npos);
  }
  std::vector<int64_t> good = {300, 256}, bad = {300, 100};
  TensorRef in(0, DType::BF16, good), badIn(0, DType::BF16, bad);
  auto values = f.bindSymbols(&in, 1);
  EXPECT_EQ(f.info().Requires[0].Value.eval(values.data()), 0);
  values = f.bindSymbols(&badIn, 1);
  EXPECT_NE(f.info().Requires[0].Value.eval(values.data()), 0);
  EXPECT_NE(f.info().Requires[0].Message.find("multiple of 32"), std::string::npos);
}

/// The per-row cast's launches (a team kernel and staged kernels, each
/// launch's grid 0 where another takes the rows): for every row length of
/// bf16 and f32 rows up to 2^19 elements, exactly one launches, the team
/// kernel for rows of up to 2048 elements and past the long-row kernel's
/// reach (the budget's vectors, 2048 in registers and 4096 read twice), a
/// staged one between, with the dynamic shared memory of the budget at
/// most (an SM's shared memory less 4 KiB: 224 KiB on sm_90a, 96 KiB on
/// sm_80); the long-row kernel on one CTA an SM exactly where it stages the
/// whole budget, else a CTA a row.
TEST(Contract, PerRowLaunchesTakeEveryRowLengthOnce) {
  fs::path f32Spec = writeSpec(
      "rowwise_f32",
      "func.func @rowwise_f32(%x: tensor<?x?xf32>) -> (tensor<?x?xf8E4M3FN>, "
         "tensor<?x1xf32>) {\n"
         "  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [1, *], rule = "
         "amax, scale = f32>}\n"
         "    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<?x1xf32>\n"
         "  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x1xf32>\n}\n");
  struct Case {
    fs::path spec;
    const char *function, *target;
    DType dtype;
    int64_t elemBytes, budget;
  };
  const Case cases[] = {
      {fs::path(FPX_EXAMPLES_DIR) / "fp8_rowwise.mlir", "fp8_rowwise", "sm_90a", DType::BF16, 2, 224 * 1024},
      {fs::path(FPX_EXAMPLES_DIR) / "fp8_rowwise.mlir", "fp8_rowwise", "sm_80", DType::BF16, 2, 96 * 1024},
      {f32Spec, "rowwise_f32", "sm_90a", DType::F32, 4, 224 * 1024},
      {f32Spec, "rowwise_f32", "sm_80", DType::F32, 4, 96 * 1024},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.function) + " " + c.target);
    fs::path stem = compile(c.spec, c.target);
    auto module = loadArtifact(stem);
    const Function &f = module->function(c.function);
    const int64_t rows = 1000, sms = 132;
    for (int64_t cols = 8; cols <= (int64_t(1) << 19); cols += 8) {
      std::vector<int64_t> shape = {rows, cols};
      TensorRef in(0, c.dtype, shape);
      auto values = f.bindSymbols(&in, 1);
      if (f.info().SmCount) // the long-row kernel's grid where it is one CTA an SM
        values[*f.info().SmCount] = sms;
      std::vector<std::string> launched;
      for (const LaunchInfo &l : f.info().Launches) {
        int64_t grid = l.Grid[0].eval(values.data());
        if (grid == 0)
          continue;
        const KernelInfo &kernel = module->info().Kernels[l.Kernel];
        launched.push_back(kernel.Name);
        int64_t shared = l.Shared ? l.Shared->eval(values.data()) : kernel.SharedBytes;
        EXPECT_GE(shared, 0) << kernel.Name << " at " << cols;
        EXPECT_LE(shared, c.budget) << kernel.Name << " at " << cols;
        // the long-row kernel: one CTA an SM exactly where its staged part
        // fills the budget (each CTA then casts every G-th row), else a CTA
        // a row
        if (kernel.Name.find("_quantize_rsl") != std::string::npos)
          EXPECT_EQ(grid, shared == c.budget ? sms : rows) << kernel.Name << " at " << cols;
      }
      ASSERT_EQ(launched.size(), 1u) << "row length " << cols;
      bool staged = cols > 2048 && cols <= (c.budget / (8 * c.elemBytes) + 2048 + 4096) * 8;
      EXPECT_EQ(launched[0].find("_quantize_rs") != std::string::npos, staged)
          << launched[0] << " at row length " << cols;
    }
  }
}

/// The bf16 MXFP8 column cast of (E, N, K) expert weights launches exactly
/// one of its kernels for every shape: on sm_90a the narrow tile's (128 x 64)
/// where the cast has fewer than 10 128 x 128 tiles an SM, else the wide
/// one; on sm_80 always the one kernel. The launched grid covers every tile.
TEST(Contract, ColumnCastLaunchesOneKernelByTileCount) {
  fs::path spec = writeSpec(
      "experts_cols",
      "func.func @experts_cols(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, "
         "tensor<?x?x?xf8E8M0FNU>) {\n"
         "  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [32, 1], rule = "
         "rceil, scale = f8E8M0FNU>, transposed}\n"
         "    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>\n"
         "  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>\n}\n");
  for (const char *target : {"sm_90a", "sm_80"}) {
    SCOPED_TRACE(target);
    bool hopper = std::string(target) == "sm_90a";
    fs::path stem = compile(spec, target);
    auto module = loadArtifact(stem);
    const Function &f = module->function("experts_cols");
    ASSERT_EQ(f.info().SmCount.has_value(), hopper);
    for (int64_t sms : {114, 132, 148})
      for (int64_t e : {1, 2, 3, 4, 8, 64, 256})
        for (auto [n, k] : {std::pair<int64_t, int64_t>{32, 8}, {2048, 7168}, {1536, 7168},
                            {8192, 5120}, {4096, 7168}, {160, 1000}}) {
          std::vector<int64_t> shape = {e, n, k};
          TensorRef in(0, DType::BF16, shape);
          auto values = f.bindSymbols(&in, 1);
          if (f.info().SmCount)
            values[*f.info().SmCount] = sms;
          int64_t tiles = (n + 127) / 128 * ((k + 127) / 128) * e;
          bool narrow = hopper && tiles < 10 * sms;
          int64_t launched = 0;
          for (const LaunchInfo &l : f.info().Launches) {
            int64_t gx = l.Grid[0].eval(values.data()), gy = l.Grid[1].eval(values.data()),
                    gz = l.Grid[2].eval(values.data());
            if (gx == 0)
              continue;
            ++launched;
            const KernelInfo &kernel = module->info().Kernels[l.Kernel];
            bool isNarrow = kernel.Name.find("_quantize_tn") != std::string::npos;
            EXPECT_EQ(isNarrow, narrow) << kernel.Name << " at " << e << "x" << n << "x" << k
                                        << ", " << sms << " SMs";
            EXPECT_EQ(gx, (n + 127) / 128);
            EXPECT_EQ(gy, (k + (isNarrow ? 63 : 127)) / (isNarrow ? 64 : 128));
            EXPECT_EQ(gz, e);
          }
          EXPECT_EQ(launched, 1) << e << "x" << n << "x" << k << ", " << sms << " SMs";
        }
  }
}

} // namespace
