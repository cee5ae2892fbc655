//===- TensorMap.cpp - TMA descriptors built at launch --------------------===//
#include "fpx/Runtime/TensorMap.h"

#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"

namespace fpx::rt {

namespace {
CUtensorMapDataType dataType(DType t) {
  switch (t) {
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  default: // the 1-byte types move as bytes
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
}

CUtensorMapSwizzle swizzleOf(uint32_t bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}
} // namespace

TensorMapEncoding tensorMapEncoding(const TensorMapArg &arg, const int64_t *values,
                                    uint64_t bufferBytes, const std::string &kernel) {
  auto bad = [&](const std::string &why) {
    throw Error(ErrorCode::InvalidArgument, "launch", kernel, "tensor map: " + why);
  };
  TensorMapEncoding enc{};
  enc.DataType = dataType(arg.Type);
  enc.Rank = static_cast<uint32_t>(arg.Dims.size());
  enc.Swizzle = swizzleOf(arg.Swizzle);
  uint64_t bytes = dtypeSize(arg.Type);
  for (uint32_t d = 0; d < enc.Rank; ++d) {
    int64_t v = arg.Dims[d].eval(values);
    if (v < 1 || v > (int64_t(1) << 32))
      bad("dimension " + std::to_string(d) + " (" + arg.Dims[d].text() + ") = " +
          std::to_string(v) + " is outside [1, 2^32]");
    enc.Dims[d] = static_cast<uint64_t>(v);
    enc.Box[d] = arg.Box[d];
    enc.ElementStrides[d] = 1;
    if (d > 0) {
      if (bytes % 16 || bytes >= (uint64_t(1) << 40))
        bad("the byte stride of dimension " + std::to_string(d) + " is " +
            std::to_string(bytes) + "; TMA needs a multiple of 16 below 2^40 (" +
            arg.Dims[d - 1].text() + " elements a row)");
      enc.Strides[d - 1] = bytes;
    }
    if (bytes > (uint64_t(1) << 62) / enc.Dims[d])
      bad("the view overflows");
    bytes *= enc.Dims[d];
  }
  if (bytes > bufferBytes)
    bad("the view spans " + std::to_string(bytes) + " bytes of a " +
        std::to_string(bufferBytes) + "-byte buffer");
  return enc;
}

void encodeTensorMap(const TensorMapEncoding &enc, CUdeviceptr address, CUtensorMap *out,
                     const std::string &kernel) {
  const CudaApi &api = CudaApi::driver();
  if (!api.cuTensorMapEncodeTiled)
    throw Error(ErrorCode::DriverTooOld, "cuTensorMapEncodeTiled", kernel,
                "this driver has no tensor maps (CUDA 12.0 or newer needed)");
  checkCu(api.cuTensorMapEncodeTiled(
              out, enc.DataType, enc.Rank, reinterpret_cast<void *>(address), enc.Dims.data(),
              enc.Strides.data(), enc.Box.data(), enc.ElementStrides.data(),
              CU_TENSOR_MAP_INTERLEAVE_NONE, enc.Swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
          "cuTensorMapEncodeTiled", kernel);
}

} // namespace fpx::rt
