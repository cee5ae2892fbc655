//===- TensorMap.h - TMA descriptors built at launch ------------*- C++ -*-===//
//
// A kernel parameter of type `tensor_map` (docs/artifact.md, "Tensor maps")
// is a CUtensorMap passed by value. The runtime builds it at each launch from
// the buffer's address and the call's shapes: tensorMapEncoding() computes
// cuTensorMapEncodeTiled's arguments (no CUDA call: unit-tested on the CPU),
// encodeTensorMap() makes the call.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_RUNTIME_TENSORMAP_H
#define FPX_RUNTIME_TENSORMAP_H

#include "fpx/Runtime/Artifact.h"

#include <cuda.h>

#include <array>
#include <cstdint>
#include <string>

namespace fpx::rt {

/// cuTensorMapEncodeTiled's arguments for one tensor_map argument.
struct TensorMapEncoding {
  CUtensorMapDataType DataType;
  uint32_t Rank;
  std::array<uint64_t, 5> Dims{};    ///< elements, innermost first
  std::array<uint64_t, 4> Strides{}; ///< bytes, of dims 1..Rank-1
  std::array<uint32_t, 5> Box{};
  std::array<uint32_t, 5> ElementStrides{};
  CUtensorMapSwizzle Swizzle;
};

/// The encoding of \p arg with shape symbols \p values over a buffer of
/// \p bufferBytes bytes. Throws Error(InvalidArgument) naming \p kernel when
/// these shapes make a map the hardware refuses: a dimension outside
/// [1, 2^32], a byte stride not a multiple of 16 or of 2^40 or more, or a
/// view larger than the buffer.
TensorMapEncoding tensorMapEncoding(const TensorMapArg &arg, const int64_t *values,
                                    uint64_t bufferBytes, const std::string &kernel);

/// Encodes \p enc over \p address into \p out (cuTensorMapEncodeTiled,
/// zero fill out of bounds). Throws Error naming the call and \p kernel.
void encodeTensorMap(const TensorMapEncoding &enc, CUdeviceptr address, CUtensorMap *out,
                     const std::string &kernel);

} // namespace fpx::rt

#endif // FPX_RUNTIME_TENSORMAP_H
