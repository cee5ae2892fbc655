// RUN: fpxc targets | FileCheck %s --check-prefix=TARGETS
// RUN: fpxc formats | FileCheck %s --check-prefix=FORMATS
// RUN: fpxc --version | FileCheck %s --check-prefix=VERSION -DVERSION=%fpx_version
// RUN: fpxc vocabulary | FileCheck %s --check-prefix=VOCAB
// RUN: fpxc vocabulary --json | FileCheck %s --check-prefix=JSON
// RUN: fpxc --help | FileCheck %s --check-prefix=HELP

// The target table (DESIGN §4): chips, PTX versions, native conversions, MMA.
// TARGETS: target sm ptx native conversions matrix instructions
// TARGETS-NEXT: sm_80 80 7.0 none (all emulated) mma.sync
// TARGETS-NEXT: sm_86 86 7.1 none (all emulated) mma.sync
// TARGETS-NEXT: sm_89 89 8.1 rn.e4m3x2/e5m2x2 mma.sync,mma.sync.fp8
// TARGETS-NEXT: sm_90 90 8.0 rn.e4m3x2/e5m2x2 mma.sync,mma.sync.fp8
// TARGETS-NEXT: sm_90a 90 8.0 rn.e4m3x2/e5m2x2 mma.sync,mma.sync.fp8,wgmma
// TARGETS-NEXT: sm_100a 100 8.7 rn.e4m3x2/e5m2x2,rn.e2m1x2/e2m3x2/e3m2x2,rz/rp.ue8m0x2,rs.x4 mma.sync,mma.sync.fp8,tcgen05
// TARGETS-NEXT: sm_103a 103 8.8 rn.e4m3x2/e5m2x2,rn.e2m1x2/e2m3x2/e3m2x2,rz/rp.ue8m0x2,rs.x4 mma.sync,mma.sync.fp8
// TARGETS-NEXT: sm_120a 120 8.7 rn.e4m3x2/e5m2x2,rn.e2m1x2/e2m3x2/e3m2x2,rz/rp.ue8m0x2 mma.sync,mma.sync.fp8,mma.block_scale
// TARGETS-NEXT: sm_121a 121 8.8 rn.e4m3x2/e5m2x2,rn.e2m1x2/e2m3x2/e3m2x2,rz/rp.ue8m0x2 mma.sync,mma.sync.fp8,mma.block_scale
// TARGETS-EMPTY:

// Every named format with bits, exponent/mantissa bits, bias, specials and
// its value range.
// FORMATS: format bits ebits mbits bias specials max min normal min subnorm
// FORMATS-NEXT: e4m3fn 8 4 3 7 FiniteNaNAllOnes 448 0.015625 0.00195312
// FORMATS-NEXT: e5m2 8 5 2 15 IEEE 57344 6.10352e-05 1.52588e-05
// FORMATS-NEXT: e2m3fn 6 2 3 1 FiniteNoSpecials 7.5 1 0.125
// FORMATS-NEXT: e3m2fn 6 3 2 3 FiniteNoSpecials 28 0.25 0.0625
// FORMATS-NEXT: e2m1fn 4 2 1 1 FiniteNoSpecials 6 1 0.5
// FORMATS-NEXT: e8m0fnu 8 8 0 127 UnsignedNaNAllOnes 1.70141e+38 5.87747e-39 5.87747e-39
// FORMATS-NEXT: ue4m3 7 4 3 7 FiniteNaNAllOnes 448 0.015625 0.00195312
// FORMATS-NEXT: e2m2 5 2 2 1 FiniteNoSpecials 7 1 0.25
// FORMATS: Any signed e<E>m<M> with 1+E+M <= 8 is accepted too

// The one version, project(fpxc VERSION ...) in CMakeLists.txt.
// VERSION: fpxc [[VERSION]] (MLIR/LLVM 22)

// The numerics vocabulary; other spellings (the Python API's word, the
// dialect's keyword) in parentheses.
// VOCAB: schemes:
// VOCAB: mxfp4 (mxfp4_e2m1):
// VOCAB: scale_rules:
// VOCAB-NEXT: floor: OCP MX
// VOCAB: rceil_rcp: {{.*}} [CPU reference only]
// VOCAB-NEXT: amax: amax / max
// VOCAB: roundings:
// VOCAB: rp: toward +inf [CPU reference only]
// VOCAB: packings:
// VOCAB-NEXT: fp4x2:
// VOCAB-NEXT: bytes (fp6_byte):
// VOCAB-NEXT: planes (fp6_planes):
// VOCAB-NEXT: contiguous24 (contiguous, fp6_packed):
// VOCAB-NEXT: contiguous24_msb (contiguous_msb):
// VOCAB-NEXT: interleaved (fp6_interleaved): {{.*}}torchao #1810
// VOCAB: scale_layouts:
// VOCAB-NEXT: row_major:
// VOCAB-NEXT: blocked_128x4 (blocked):

// JSON: "formats": [
// JSON: "mlir_type": "f8E4M3FN",
// JSON-NEXT: "name": "e4m3fn",
// JSON: "packings": [
// JSON: "api": "planes",
// JSON: "ir": "fp6_planes",
// JSON: "name": "planes",
// JSON: "api": "interleaved",
// JSON: "ir": "fp6_interleaved",
// JSON: "name": "interleaved",
// JSON: "scale_kinds": [
// JSON: "mlir_type": "f8E8M0FNU",
// JSON-NEXT: "name": "e8m0",

// HELP: usage: fpxc compile SPEC.mlir [--target CHIP] [--emit KIND] [-o OUT]
// HELP: fpxc targets | fpxc formats | fpxc vocabulary [--json] | fpxc --version
// HELP: --target
// HELP: --emit
// HELP: --no-emulation
