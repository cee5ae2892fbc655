//===- TargetInfo.h - the one table of GPU target facts ---------*- C++ -*-===//
//
// Every hardware fact fpxc uses (PTX version, native conversions, MMA kinds)
// comes from this table; no other file checks sm numbers.
//
//===----------------------------------------------------------------------===//
#ifndef FPX_TARGET_TARGETINFO_H
#define FPX_TARGET_TARGETINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace fpx {

/// Native conversion families, as bits.
enum NativeCvt : unsigned {
  /// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 (sm_89 with PTX 8.1, sm_90+ with 7.8).
  CvtF8x2 = 1u << 0,
  /// cvt.rn.satfinite.{e2m1x2,e2m3x2,e3m2x2}.f32 (sm_100a family, PTX 8.6).
  CvtF6F4x2 = 1u << 1,
  /// cvt.{rz,rp}.satfinite.ue8m0x2.f32 (sm_100a family, PTX 8.6).
  CvtUe8m0x2 = 1u << 2,
  /// cvt.rs.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32 (sm_100a/103a, PTX 8.7).
  CvtRs = 1u << 3,
  /// Not a cvt: packed bf16x2 min/fma/set (sm_90+), which the packed
  /// two-values-per-instruction emulation of e2m1 needs, and the
  /// max/min.xorsign.abs.bf16x2 (sm_86+) that block maxima and clamps use.
  Bf16x2Math = 1u << 4,
};

/// Matrix instruction families.
enum MmaKind : unsigned {
  MmaSync = 1u << 0,      ///< mma.sync (sm_80+)
  MmaSyncFp8 = 1u << 1,   ///< mma.sync with e4m3/e5m2 operands (sm_89+)
  Wgmma = 1u << 2,        ///< wgmma.mma_async (sm_90a)
  /// tcgen05.mma with tensor memory, incl. the block-scaled kinds (sm_100a;
  /// fpx.scaled_matmul's ScaledMatmulSm100.cpp kernel).
  Tcgen05 = 1u << 3,
  /// mma.sync kind::mxf8f6f4 / mxf4nvf4 .block_scale (sm_120a, sm_121a;
  /// fpx.scaled_matmul's ScaledMatmulSm120.cpp kernel).
  MmaBlockScaled = 1u << 4,
};

/// The GPU family whose measured launch shapes a target takes (kernels
/// tuned on one architecture keep the compiler's defaults elsewhere).
enum class Tuning { None, Hopper };

struct TargetInfo {
  llvm::StringRef chip;   ///< e.g. "sm_90a"
  unsigned sm;            ///< e.g. 90
  unsigned ptxVersion;    ///< PTX ISA version fpxc emits, x10 (87 = 8.7)
  unsigned nativeCvt;     ///< NativeCvt bits
  unsigned mma;           ///< MmaKind bits
  llvm::StringRef note;
  /// Launch shapes measured on an H100/H200 (sm_90, sm_90a; docs/results).
  Tuning tuning = Tuning::None;

  bool has(NativeCvt c) const { return nativeCvt & c; }
  /// Shared memory an SM has on every chip this target's code runs on: 228
  /// KiB on sm_90a / sm_100a / sm_103a, else kLeastSharedPerSM (sm_86,
  /// sm_89 and sm_120 have that little, and PTX for sm_80 or sm_90 may run
  /// there).
  int64_t sharedPerSM() const;
  /// "+ptx87" for the NVPTX backend.
  std::string ptxFeature() const;
  /// "8.7"
  std::string ptxVersionString() const;
};

/// The least shared memory an SM has on any chip of the table (sm_86,
/// sm_89, sm_120: 100 KiB; 99 KiB of it a block): what code that may run
/// anywhere can count on.
constexpr int64_t kLeastSharedPerSM = 100 * 1024;

/// CUDA's launch limits, the largest on any target of the table (sm_80 to
/// sm_121a): 1024 threads per block and 255 registers per thread everywhere,
/// clusters of up to 16 blocks (non-portable; before sm_90 the backend drops
/// cluster directives), up to 32 resident blocks per SM (16 to 32 by target).
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxBlocksPerCluster = 16;
constexpr int64_t kMaxBlocksPerSM = 32;
constexpr int64_t kMaxRegistersPerThread = 255;

/// A PTX identifier that the NVPTX backend can also print:
/// [a-zA-Z][a-zA-Z0-9_$]* or [_$][a-zA-Z0-9_$]+ (PTX allows a leading '%'
/// too, which the backend refuses: "Symbol name with unsupported
/// characters").
bool isPtxIdentifier(llvm::StringRef name);

/// All targets, in table order.
llvm::ArrayRef<TargetInfo> allTargets();
/// The row for `chip`, or null.
const TargetInfo *lookupTarget(llvm::StringRef chip);
/// Comma-separated chip names, for error messages.
std::string targetNames();

} // namespace fpx

#endif // FPX_TARGET_TARGETINFO_H
