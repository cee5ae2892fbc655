//===- TargetInfo.cpp - the target table ----------------------------------===//
//
// PTX versions: the lowest version that has every instruction fpxc may emit
// for that chip (LLVM would pick 8.6 for sm_100a, but cvt.rs needs 8.7).
// Conversion facts were checked against ptxas 13.0 (DESIGN §8).
//
//===----------------------------------------------------------------------===//
#include "fpx/Target/TargetInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace fpx;

static const TargetInfo kTargets[] = {
    {"sm_80", 80, 70, 0, MmaSync, "A100: every FPx conversion emulated"},
    {"sm_86", 86, 71, 0, MmaSync, "A10/RTX 30: emulated conversions"},
    {"sm_89", 89, 81, CvtF8x2, MmaSync | MmaSyncFp8,
     "L4/L40/RTX 40: native fp8 cvt.rn, fp6/fp4/ue8m0/rs emulated"},
    {"sm_90", 90, 80, CvtF8x2 | Bf16x2Math, MmaSync | MmaSyncFp8,
     "H100/H200 without arch-specific features", Tuning::Hopper},
    {"sm_90a", 90, 80, CvtF8x2 | Bf16x2Math, MmaSync | MmaSyncFp8 | Wgmma,
     "H100/H200: native fp8 cvt.rn, wgmma; fp6/fp4/ue8m0/rs emulated", Tuning::Hopper},
    {"sm_100a", 100, 87, CvtF8x2 | CvtF6F4x2 | CvtUe8m0x2 | CvtRs | Bf16x2Math,
     MmaSync | MmaSyncFp8 | Tcgen05, "B200: every conversion native incl. cvt.rs"},
    // B300 has tcgen05, but MLIR 22's NVVM tcgen05 ops verify for sm_100a and
    // sm_101a only ("not supported on sm_103a"), so fpxc emits none here.
    {"sm_103a", 103, 88, CvtF8x2 | CvtF6F4x2 | CvtUe8m0x2 | CvtRs | Bf16x2Math,
     MmaSync | MmaSyncFp8, "B300: every conversion native incl. cvt.rs; no tcgen05 (MLIR 22)"},
    {"sm_120a", 120, 87, CvtF8x2 | CvtF6F4x2 | CvtUe8m0x2 | Bf16x2Math,
     MmaSync | MmaSyncFp8 | MmaBlockScaled,
     "RTX 50 / RTX PRO: native cvt.rn, emulated rs"},
    {"sm_121a", 121, 88, CvtF8x2 | CvtF6F4x2 | CvtUe8m0x2 | Bf16x2Math,
     MmaSync | MmaSyncFp8 | MmaBlockScaled, "DGX Spark: native cvt.rn, emulated rs"},
};

bool fpx::isPtxIdentifier(llvm::StringRef name) {
  auto isBody = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; };
  if (name.empty() || !llvm::all_of(name, isBody))
    return false;
  return llvm::isAlpha(name.front()) ||
         ((name.front() == '_' || name.front() == '$') && name.size() > 1);
}

int64_t TargetInfo::sharedPerSM() const {
  bool datacenter = chip.ends_with("a") && (sm == 90 || sm == 100 || sm == 103);
  return datacenter ? 228 * 1024 : kLeastSharedPerSM;
}

std::string TargetInfo::ptxFeature() const {
  return "+ptx" + std::to_string(ptxVersion);
}

std::string TargetInfo::ptxVersionString() const {
  return std::to_string(ptxVersion / 10) + "." + std::to_string(ptxVersion % 10);
}

llvm::ArrayRef<TargetInfo> fpx::allTargets() { return kTargets; }

const TargetInfo *fpx::lookupTarget(llvm::StringRef chip) {
  for (const TargetInfo &t : kTargets)
    if (t.chip == chip)
      return &t;
  return nullptr;
}

std::string fpx::targetNames() {
  std::string s;
  for (const TargetInfo &t : kTargets) {
    if (!s.empty())
      s += ", ";
    s += t.chip.str();
  }
  return s;
}
