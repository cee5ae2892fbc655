//===- TestArtifacts.h - Small hand-written artifacts for runtime tests ---===//
//
// An f32 add-one kernel and a two-launch sum with a zero-initialised temp,
// written in PTX by hand (sm_80, PTX 7.0) so the runtime tests need no
// compiler. ptxas accepts both (checked when the file was written).
//
//===----------------------------------------------------------------------===//

#ifndef FPX_TEST_UNITTESTS_RUNTIME_TESTARTIFACTS_H
#define FPX_TEST_UNITTESTS_RUNTIME_TESTARTIFACTS_H

#include <string>

namespace fpx::rt::test {

inline const char *kTestPtx = R"PTX(
.version 7.0
.target sm_80
.address_size 64

// y[i] = x[i] + 1 for i < n
.visible .entry add_one(.param .u64 x, .param .u64 y, .param .u64 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u64 %rd3, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd6, %rd4, %rd5;
  setp.ge.u64 %p1, %rd6, %rd3;
  @%p1 bra DONE;
  shl.b64 %rd7, %rd6, 2;
  cvta.to.global.u64 %rd8, %rd1;
  add.s64 %rd8, %rd8, %rd7;
  ld.global.f32 %f1, [%rd8];
  add.f32 %f2, %f1, 0f3F800000;
  cvta.to.global.u64 %rd9, %rd2;
  add.s64 %rd9, %rd9, %rd7;
  st.global.f32 [%rd9], %f2;
DONE:
  ret;
}

// atomically acc[0] += x[i] for i < n (n passed as i32)
.visible .entry sum_k0(.param .u64 x, .param .u64 acc, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [acc];
  ld.param.u32 %r5, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  setp.ge.u32 %p1, %r4, %r5;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r4, 4;
  cvta.to.global.u64 %rd4, %rd1;
  add.s64 %rd4, %rd4, %rd3;
  ld.global.f32 %f1, [%rd4];
  cvta.to.global.u64 %rd5, %rd2;
  atom.global.add.f32 %f2, [%rd5], %f1;
DONE:
  ret;
}

// out[0] = acc[0] * scale
.visible .entry sum_k1(.param .u64 acc, .param .u64 out, .param .f32 scale)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [acc];
  ld.param.u64 %rd2, [out];
  ld.param.f32 %f3, [scale];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  ld.global.f32 %f1, [%rd1];
  mul.f32 %f2, %f1, %f3;
  st.global.f32 [%rd2], %f2;
  ret;
}
)PTX";

inline const char *kTestJson = R"JSON({
  "format": "fpx-artifact", "version": 1,
  "compiler": {"name": "hand", "version": "0.0.0"},
  "spec_hash": "00112233445566778899aabbccddeeff",
  "target": {"chip": "sm_80", "ptx_version": "7.0"},
  "ptx": "test.ptx",
  "kernels": [
    {"name": "add_one", "block": [256, 1, 1], "grid": ["cdiv(N, 256)", "1", "1"],
     "shared_bytes": 0,
     "params": [{"name": "x", "type": "ptr"}, {"name": "y", "type": "ptr"},
                {"name": "n", "type": "i64"}]},
    {"name": "sum_k0", "block": [128, 1, 1], "grid": ["cdiv(N, 128)", 1, 1],
     "params": [{"name": "x", "type": "ptr"}, {"name": "acc", "type": "ptr"},
                {"name": "n", "type": "u32"}]},
    {"name": "sum_k1", "block": [1, 1, 1], "grid": [1, 1, 1],
     "params": [{"name": "acc", "type": "ptr"}, {"name": "out", "type": "ptr"},
                {"name": "scale", "type": "f32"}]}
  ],
  "functions": [
    {"name": "add_one",
     "inputs": [{"name": "x", "dtype": "f32", "shape": ["N"]}],
     "outputs": [{"name": "y", "dtype": "f32", "shape": ["N"]}],
     "launches": [{"kernel": "add_one", "args": ["x", "y", "N"]}]},
    {"name": "sum",
     "inputs": [{"name": "x", "dtype": "f32", "shape": ["N"]}],
     "scalars": [{"name": "scale", "type": "f32", "default": 1.0}],
     "outputs": [{"name": "s", "dtype": "f32", "shape": [1]}],
     "temps": [{"name": "acc", "dtype": "f32", "shape": ["1"], "init": "zero"}],
     "launches": [{"kernel": "sum_k0", "args": ["x", "acc", "N"]},
                  {"kernel": "sum_k1", "args": ["acc", "s", "scale"]}]}
  ]
})JSON";

} // namespace fpx::rt::test

#endif // FPX_TEST_UNITTESTS_RUNTIME_TESTARTIFACTS_H
