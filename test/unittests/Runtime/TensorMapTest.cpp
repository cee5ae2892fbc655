//===- TensorMapTest.cpp - tensor_map parameters, parsed and encoded ------===//
//
// The `tensor_map` kernel parameter (docs/artifact.md, "Tensor maps"): its
// metadata is validated at load and cuTensorMapEncodeTiled's arguments are
// computed from the call's shapes, both without a GPU.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/TensorMap.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace fpx::rt;
using json = nlohmann::json;

namespace {

/// The test artifact plus a kernel `gemm(tmA, n)` and a function `gemm`
/// whose launch builds A's map over an (M, K) f8 input, K innermost.
json withTensorMap() {
  json j = json::parse(test::kTestJson);
  j["kernels"].push_back(json::parse(R"({"name": "gemm", "block": [384, 1, 1],
      "grid": ["sm_count", 1, 1],
      "params": [{"name": "tmA", "type": "tensor_map"}, {"name": "n", "type": "i64"}]})"));
  j["functions"].push_back(json::parse(R"({"name": "gemm",
      "inputs": [{"name": "a", "dtype": "f8e4m3fn", "shape": ["M", "K"]}],
      "outputs": [{"name": "c", "dtype": "bf16", "shape": ["M", "M"]}],
      "launches": [{"kernel": "gemm", "args": [
          {"tensor_map": "a", "dims": ["K", "M"], "box": [128, 64], "swizzle": 128}, "M"]}]})"));
  return j;
}

std::string errorOf(const json &j) {
  try {
    ArtifactInfo::parse(j.dump(), "tm.json");
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArtifact) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "artifact was accepted";
  return {};
}

#define EXPECT_TM_ERROR(MUTATE, TEXT)                                          \
  do {                                                                         \
    json j = withTensorMap();                                                  \
    json &arg = j["functions"][2]["launches"][0]["args"][0];                   \
    (void)arg;                                                                 \
    MUTATE;                                                                    \
    std::string msg = errorOf(j);                                              \
    EXPECT_NE(msg.find(TEXT), std::string::npos) << msg;                       \
  } while (0)

TEST(TensorMap, ParsesTheArgument) {
  ArtifactInfo info = ArtifactInfo::parse(withTensorMap().dump(), "tm.json");
  const KernelInfo *k = info.findKernel("gemm");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->Params[0].Type, ParamType::TensorMap);
  EXPECT_EQ(paramTypeSize(ParamType::TensorMap), 128u);
  const FunctionInfo &fn = info.function("gemm");
  const LaunchInfo &launch = fn.Launches[0];
  ASSERT_EQ(launch.Args.size(), 2u);
  EXPECT_EQ(launch.Args[0].Source, ArgSource::TensorMap);
  EXPECT_EQ(launch.Args[1].Source, ArgSource::Symbol);
  ASSERT_EQ(launch.TensorMaps.size(), 1u);
  const TensorMapArg &tm = launch.TensorMaps[0];
  EXPECT_EQ(tm.Tensor, ArgSource::Input);
  EXPECT_EQ(tm.Index, 0u);
  EXPECT_EQ(tm.Type, DType::F8E4M3FN);
  ASSERT_EQ(tm.Dims.size(), 2u);
  EXPECT_EQ(tm.Dims[0].text(), "K");
  EXPECT_EQ(tm.Box, (std::vector<uint32_t>{128, 64}));
  EXPECT_EQ(tm.Swizzle, 128u);
}

TEST(TensorMap, MetadataErrors) {
  EXPECT_TM_ERROR(arg["tensor_map"] = "nope",
                  "'nope' is not an input, output or temp of function 'gemm'");
  EXPECT_TM_ERROR(arg["swizzle"] = 96, "the swizzle is 0, 32, 64 or 128 bytes, got 96");
  EXPECT_TM_ERROR(arg["box"] = json::array({128, 300}), "a box extent is 1 to 256 elements");
  EXPECT_TM_ERROR(arg["box"] = json::array({128}), "1 box extents for 2 dims");
  EXPECT_TM_ERROR(arg["box"] = json::array({8, 64}), "must be a multiple of 16 bytes");
  EXPECT_TM_ERROR((arg["box"] = json::array({128, 64}), arg["swizzle"] = 64),
                  "exceeds the 64-byte swizzle span");
  EXPECT_TM_ERROR(arg["dims"] = json::array(), "a tensor map has 1 to 5 dimensions");
  EXPECT_TM_ERROR(arg["dims"] = json::array({"K", "Q"}),
                  "symbol 'Q' is not bound by any input dimension");
  EXPECT_TM_ERROR(arg["layout"] = 1, "unknown field 'layout'");
  EXPECT_TM_ERROR(arg.erase("swizzle"), "missing field 'swizzle'");
  // A tensor_map parameter takes only the object form, and only it takes it.
  EXPECT_TM_ERROR(arg = "a", "a tensor_map parameter takes an object");
  EXPECT_TM_ERROR(j["functions"][2]["launches"][0]["args"][1] = arg,
                  "parameter 'n' of kernel 'gemm' has type i64");
  // Scalars cannot be tensor maps.
  EXPECT_TM_ERROR(j["functions"][1]["scalars"][0]["type"] = "tensor_map",
                  "unknown type 'tensor_map'");
}

TEST(TensorMap, EncodingFromShapes) {
  ArtifactInfo info = ArtifactInfo::parse(withTensorMap().dump(), "tm.json");
  const FunctionInfo &fn = info.function("gemm");
  const TensorMapArg &tm = fn.Launches[0].TensorMaps[0];
  std::vector<int64_t> values(fn.Symbols.size(), 0);
  values[*fn.Symbols.lookup("M")] = 1000;
  values[*fn.Symbols.lookup("K")] = 1056;
  TensorMapEncoding enc = tensorMapEncoding(tm, values.data(), 1000 * 1056, "gemm");
  EXPECT_EQ(enc.DataType, CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(enc.Rank, 2u);
  EXPECT_EQ(enc.Dims[0], 1056u);
  EXPECT_EQ(enc.Dims[1], 1000u);
  EXPECT_EQ(enc.Strides[0], 1056u); // bytes a row
  EXPECT_EQ(enc.Box[0], 128u);
  EXPECT_EQ(enc.Box[1], 64u);
  EXPECT_EQ(enc.ElementStrides[0], 1u);
  EXPECT_EQ(enc.ElementStrides[1], 1u);
  EXPECT_EQ(enc.Swizzle, CU_TENSOR_MAP_SWIZZLE_128B);

  auto launchError = [&](int64_t M, int64_t K, uint64_t bufferBytes) {
    values[*fn.Symbols.lookup("M")] = M;
    values[*fn.Symbols.lookup("K")] = K;
    try {
      tensorMapEncoding(tm, values.data(), bufferBytes, "gemm");
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("gemm"), std::string::npos) << e.what();
      return std::string(e.what());
    }
    ADD_FAILURE() << "encoded M=" << M << " K=" << K;
    return std::string();
  };
  // A row of 1000 bytes is not a multiple of 16: TMA cannot stride it.
  EXPECT_NE(launchError(64, 1000, 64000).find("multiple of 16"), std::string::npos);
  EXPECT_NE(launchError(0, 1024, 0).find("outside [1, 2^32]"), std::string::npos);
  EXPECT_NE(launchError(64, 1024, 1024).find("spans 65536 bytes of a 1024-byte buffer"),
            std::string::npos);

  // bf16 moves as 2-byte elements: strides in bytes.
  TensorMapArg bf = tm;
  bf.Type = DType::BF16;
  bf.Box = {64, 64};
  values[*fn.Symbols.lookup("M")] = 8;
  values[*fn.Symbols.lookup("K")] = 24;
  enc = tensorMapEncoding(bf, values.data(), 8 * 24 * 2, "gemm");
  EXPECT_EQ(enc.DataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(enc.Strides[0], 48u);
}

} // namespace
