"""The hand-written test artifact: data/test.json and the PTX it names, kept
here as text (a .ptx file in git would look like a generated kernel; this
one is written by hand: add_one and a two-kernel sum, compiler "hand")."""
import pathlib
import shutil

DATA = pathlib.Path(__file__).parent / "data"

PTX = r""".version 7.0
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
"""


def write(folder):
    """Writes test.json and test.ptx into `folder`; returns the JSON's path."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "test.json", folder / "test.json")
    (folder / "test.ptx").write_text(PTX)
    return folder / "test.json"
