"""The Triton peer of bench/gemm/run.py: a fused dequant-matmul y = x @ W^T for
every weight format run.py benchmarks, bf16/f16 x and y, written as a Triton
user would write it (issue 38 asks for the best one can make):

- the weight is stored as a Triton user stores it, row-major (N, K):
  8-bit codes one a byte; 4-bit codes (MXFP4, NVFP4) two a byte, the low
  nibble first (as the torch.compile peer packs them); 6- and 5-bit codes
  (MXFP6, FP6-LLM e3m2, fp5 e2m2) ONE A BYTE: a Triton user has no sub-byte
  gather, so these stream 8/6 or 8/5 times the code bytes of fpxc's packed
  planes (run.py prints the ratio). Block scales row-major, one byte each
  (E8M0 or ue4m3 codes), channel scales fp32, NVFP4's tensor scale fp32;
- one kernel family, parameterized by the format's constexpr fields (FORMATS):
  each (BLOCK_N, BLOCK_K) code tile is decoded in registers to x's dtype --
  fp8 codes by Triton's fp8 conversion; the narrow codes by bit placement, two
  at a time in the halves of a 32-bit word (sign to bit 15, exponent and
  mantissa into the low exponent bits and the high mantissa bits of x's
  dtype, then one multiply by 2^(bias(x) - bias(code)), which makes the
  source subnormals exact) -- with no lookup table; block scales (BLOCK_K a
  multiple of 32 / 16) are broadcast over their K block in the tile (one
  multiply a weight, exact: a power of two, or a ue4m3 value times an e2m1
  one); tl.dot accumulates in fp32; the channel scale and NVFP4's tensor
  scale multiply the accumulator once at the end;
- decode shapes (M <= 64) run a split-K kernel: each program takes every
  SPLIT_K-th K block of one (BLOCK_M, BLOCK_N) tile and adds its partial sums
  into an fp32 buffer with atomics, so that M = 1 still spreads the weight
  over every SM; a cast to x's dtype follows;
- larger M runs a grouped-order tiled GEMM that stores x's dtype directly;
- both are autotuned over a handful of configurations per (format, M, N, K),
  pruned by M so tuning stays short.

With f16 x the decoded weight (code times block scale) must lie in f16's
range, as for any f16 GEMM. `available()` says whether triton imports; run.py
prints that it is missing otherwise. Requires a GPU with fp8 conversions
(sm_89+; Triton 3.x). Under TRITON_INTERPRET=1 (check_triton_peer.py) the
autotuner is bypassed with one fixed configuration; the interpreter has no
bf16 arithmetic (it stores bf16 as uint16), so it is checked with f16 x.
"""

import os
from dataclasses import dataclass

try:
    import triton
    import triton.language as tl
except Exception as e:  # noqa: BLE001 (any import failure: no peer)
    triton = None
    _WHY = f"{type(e).__name__}: {e}"
else:
    _WHY = ""

import torch


def available():
    """(True, "") when triton imports, else (False, why)."""
    return triton is not None, _WHY


@dataclass(frozen=True)
class Format:
    """A weight format as the kernels read it (docs/formats.md).

    ebits, mbits, bias: the element's exponent / mantissa bits and exponent
      bias (a sign bit on top; subnormals at exponent 0, no inf or NaN).
    fp8: "e4m3" / "e5m2": decoded by Triton's fp8 conversion, else "".
    pack: codes a byte in the Triton user's storage (2: 4-bit, low nibble
      first; 1: one a byte, 6- and 5-bit codes included).
    group: the block scales' K block (32 MX, 16 NVFP4); 0: one fp32 scale a
      channel, applied to the accumulator.
    scale: "f32", "e8m0" or "ue4m3" (block scale codes, one a byte).
    tensor_scale: NVFP4's fp32 tensor scale, applied to the accumulator.
    """

    ebits: int
    mbits: int
    bias: int
    fp8: str = ""
    pack: int = 1
    group: int = 0
    scale: str = "f32"
    tensor_scale: bool = False

    @property
    def bits(self):
        return 1 + self.ebits + self.mbits


FORMATS = {
    "fp8_e4m3": Format(4, 3, 7, fp8="e4m3"),
    "fp8_e5m2": Format(5, 2, 15, fp8="e5m2"),
    "mxfp8_e4m3": Format(4, 3, 7, fp8="e4m3", group=32, scale="e8m0"),
    "mxfp8_e5m2": Format(5, 2, 15, fp8="e5m2", group=32, scale="e8m0"),
    "mxfp4": Format(2, 1, 1, pack=2, group=32, scale="e8m0"),
    "nvfp4": Format(2, 1, 1, pack=2, group=16, scale="ue4m3", tensor_scale=True),
    "mxfp6_e2m3": Format(2, 3, 1, group=32, scale="e8m0"),
    "mxfp6_e3m2": Format(3, 2, 3, group=32, scale="e8m0"),
    "fp6_e3m2": Format(3, 2, 3),
    "fp5_e2m2": Format(2, 2, 1),
}

_FP8 = {"": 0, "e4m3": 1, "e5m2": 2}
_SCALE = {"f32": 0, "e8m0": 1, "ue4m3": 2}
# x's dtype -> (mantissa bits, exponent bias): where the narrow codes' bits go
_DST = {torch.bfloat16: (7, 127), torch.float16: (10, 15)}


def weight_of(packed):
    """The weight of an fpxc PackedWeight as a Triton user stores it: (codes
    (N, K / pack) uint8 row-major, 4-bit codes two a byte with the low nibble
    first; scales: fp32 (N,) a channel, or (N, K / group) uint8 E8M0 / ue4m3
    codes; NVFP4's fp32 tensor scale or None), cut to the logical shape."""
    f = FORMATS[packed.format]
    n, k = packed.shape
    if k % max(f.group, f.pack):
        raise ValueError(f"{packed.format}: K = {k} is not a multiple of "
                         f"{max(f.group, f.pack)}")
    c = packed.unpacked_codes()[:n, :k]
    if f.pack == 2:
        c = c[:, 0::2] | (c[:, 1::2] << 4)
    s = packed.scales[:n]
    s = s[:, : k // f.group].view(torch.uint8) if f.group else s.reshape(n).float()
    return c.contiguous(), s.contiguous(), packed.global_scale


def weight_bytes(fmt, n, k):
    """Bytes this peer streams for an (n, k) weight: the codes as stored here
    (6- and 5-bit codes one a byte), the scales and NVFP4's tensor scale."""
    f = FORMATS[fmt]
    return n * k // f.pack + (n * k // f.group if f.group else 4 * n) + 4 * f.tensor_scale


if triton is not None:

    @triton.jit
    def _place(c, EBITS: tl.constexpr, MBITS: tl.constexpr, DST_M: tl.constexpr):
        """A narrow code (uint32) -> the low 16 bits of x's dtype: sign to bit 15,
        exponent and mantissa below it with the mantissa at the top of DT's,
        i.e. the value times 2^(bias(code) - bias(DT)) (a subnormal of DT where
        the code is one; the caller's multiply by FIX undoes the bias)."""
        return ((c << (15 - EBITS - MBITS)) & 0x8000) | \
            ((c & ((1 << (EBITS + MBITS)) - 1)) << (DST_M - MBITS))

    @triton.jit
    def _block_scales(sb, DT: tl.constexpr, SCALE: tl.constexpr):
        """uint8 block scale codes -> values in DT."""
        if SCALE == 1:
            # E8M0: 2^(s - 127) is fp32 with exponent field s (s = 0: 2^-127)
            s32 = sb.to(tl.uint32)
            f = tl.where(s32 == 0, 0x400000, s32 << 23).to(tl.uint32).to(tl.float32,
                                                                       bitcast=True)
        else:
            f = sb.to(tl.float8e4nv, bitcast=True).to(tl.float32)
        return f.to(DT)

    @triton.jit
    def _weight_tile(w_ptr, s_ptr, offs_n, n_ok, kb, K, stride_wn, stride_sn,
                     DT: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     EBITS: tl.constexpr, MBITS: tl.constexpr, FP8: tl.constexpr,
                     DST_M: tl.constexpr, FIX: tl.constexpr, PACK: tl.constexpr,
                     GROUP: tl.constexpr, SCALE: tl.constexpr, EVICT: tl.constexpr):
        """K block kb of the weight, decoded and block-scaled: (BLOCK_K, BLOCK_N) in DT."""
        if FP8 != 0:
            # fp8: Triton's conversion, one code a byte
            k = kb * BLOCK_K + tl.arange(0, BLOCK_K)
            c = tl.load(w_ptr + offs_n[:, None] * stride_wn + k[None, :],
                        mask=n_ok[:, None] & (k < K)[None, :], other=0,
                        eviction_policy=EVICT)
            if FP8 == 1:
                w = c.to(tl.float8e4nv, bitcast=True).to(DT)
            else:
                w = c.to(tl.float8e5, bitcast=True).to(DT)
        else:
            # two codes (2j, 2j + 1) at a time: 4-bit codes from a byte (low
            # nibble first), 6- and 5-bit ones from two bytes; their bits go to
            # the two halves of one 32-bit word, the pair of DT values the
            # multiplies and the mma read (fewer instructions than one code at a
            # time: 600 against 658 a 64-weight split-K step of MXFP4, sm_90 SASS)
            if PACK == 2:
                j = kb * (BLOCK_K // 2) + tl.arange(0, BLOCK_K // 2)
                b = tl.load(w_ptr + offs_n[:, None] * stride_wn + j[None, :],
                            mask=n_ok[:, None] & (j < K // 2)[None, :], other=0,
                            eviction_policy=EVICT).to(tl.uint32)
                lo = b & 15
                hi = b >> 4
            else:
                k = kb * BLOCK_K + tl.arange(0, BLOCK_K)
                c = tl.load(w_ptr + offs_n[:, None] * stride_wn + k[None, :],
                            mask=n_ok[:, None] & (k < K)[None, :], other=0,
                            eviction_policy=EVICT).to(tl.uint32)
                lo, hi = tl.split(tl.reshape(c, (BLOCK_N, BLOCK_K // 2, 2)))
            word = _place(lo, EBITS, MBITS, DST_M) | (_place(hi, EBITS, MBITS, DST_M) << 16)
            w = tl.reshape(tl.join(word.to(tl.uint16), (word >> 16).to(tl.uint16)),
                           (BLOCK_N, BLOCK_K))
            w = w.to(DT, bitcast=True) * FIX
        if GROUP > 0:
            NB: tl.constexpr = BLOCK_K // GROUP
            j = kb * NB + tl.arange(0, NB)
            sb = tl.load(s_ptr + offs_n[:, None] * stride_sn + j[None, :],
                         mask=n_ok[:, None] & (j < K // GROUP)[None, :], other=0)
            sc = _block_scales(sb, DT, SCALE)
            w = tl.reshape(tl.reshape(w, (BLOCK_N, NB, GROUP)) * sc[:, :, None],
                           (BLOCK_N, BLOCK_K))
        return tl.trans(w)

    @triton.jit
    def _epilogue_scales(acc, s_ptr, g_ptr, offs_n, n_ok, GROUP: tl.constexpr,
                         TENSOR_SCALE: tl.constexpr):
        if GROUP == 0:
            s = tl.load(s_ptr + offs_n, mask=n_ok, other=0.0)
            acc = acc * s[None, :]
        if TENSOR_SCALE:
            acc = acc * tl.load(g_ptr)
        return acc

    def _splitk_configs():
        out = []
        for bn in (64, 128):
            for bk in (128, 256):
                for sk in (1, 4, 8, 16):
                    out.append(triton.Config({"BLOCK_M": 16, "BLOCK_N": bn, "BLOCK_K": bk,
                                              "SPLIT_K": sk}, num_warps=4, num_stages=4))
        # 8 warps: more weights decoded in flight (the narrow formats' decode
        # is most of their instructions)
        for sk in (4, 8, 16):
            out.append(triton.Config({"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_K": 256,
                                      "SPLIT_K": sk}, num_warps=8, num_stages=3))
        for bk in (128, 256):
            for sk in (2, 4, 8):
                out.append(triton.Config({"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": bk,
                                          "SPLIT_K": sk}, num_warps=4, num_stages=4))
                out.append(triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": bk,
                                          "SPLIT_K": sk}, num_warps=4, num_stages=3))
        return out

    def _prune_splitk(configs, named_args, **kwargs):
        m = named_args["M"]
        want = 16 if m <= 16 else (32 if m <= 32 else 64)
        kept = [c for c in configs if c.kwargs["BLOCK_M"] == want]
        return kept or configs

    # the format's fields are constexprs; FMT (its name) and DST_M (x's dtype)
    # key the tuning with the shape
    _KEY = ["M", "N", "K", "FMT", "DST_M"]

    @triton.jit
    def _dot_k_blocks(x_ptr, w_ptr, s_ptr, offs_m, m_ok, offs_n, n_ok, kb0, kb_step, K,
                      stride_xm, stride_wn, stride_sn, EBITS: tl.constexpr,
                      MBITS: tl.constexpr, FP8: tl.constexpr, DST_M: tl.constexpr,
                      FIX: tl.constexpr, PACK: tl.constexpr, GROUP: tl.constexpr,
                      SCALE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, EVICT: tl.constexpr):
        """The x tile times the decoded weight tile over K blocks kb0, kb0 +
        kb_step, ...: the fp32 (BLOCK_M, BLOCK_N) partial sum."""
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kb in range(kb0, tl.cdiv(K, BLOCK_K), kb_step):
            k = kb * BLOCK_K + offs_k
            x = tl.load(x_ptr + offs_m[:, None] * stride_xm + k[None, :],
                        mask=m_ok[:, None] & (k < K)[None, :], other=0.0)
            w = _weight_tile(w_ptr, s_ptr, offs_n, n_ok, kb, K, stride_wn, stride_sn,
                             x_ptr.dtype.element_ty, BLOCK_N, BLOCK_K, EBITS, MBITS, FP8,
                             DST_M, FIX, PACK, GROUP, SCALE, EVICT)
            acc = tl.dot(x, w, acc)
        return acc

    @triton.autotune(configs=_splitk_configs(), key=_KEY,
                     prune_configs_by={"early_config_prune": _prune_splitk},
                     reset_to_zero=["acc_ptr"])
    @triton.jit
    def _wo_splitk(x_ptr, w_ptr, s_ptr, g_ptr, acc_ptr, M, N, K, stride_xm, stride_wn,
                   stride_sn, FMT: tl.constexpr, EBITS: tl.constexpr, MBITS: tl.constexpr,
                   FP8: tl.constexpr, DST_M: tl.constexpr, FIX: tl.constexpr,
                   PACK: tl.constexpr, GROUP: tl.constexpr, SCALE: tl.constexpr,
                   TENSOR_SCALE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
        pid_n = tl.program_id(0)
        pid_m = tl.program_id(1)
        pid_k = tl.program_id(2)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        m_ok = offs_m < M
        n_ok = offs_n < N
        acc = _dot_k_blocks(x_ptr, w_ptr, s_ptr, offs_m, m_ok, offs_n, n_ok, pid_k, SPLIT_K, K,
                            stride_xm, stride_wn, stride_sn, EBITS, MBITS, FP8, DST_M, FIX,
                            PACK, GROUP, SCALE, BLOCK_M, BLOCK_N, BLOCK_K, "evict_first")
        acc = _epilogue_scales(acc, s_ptr, g_ptr, offs_n, n_ok, GROUP, TENSOR_SCALE)
        out = acc_ptr + offs_m[:, None] * N + offs_n[None, :]
        mask = m_ok[:, None] & n_ok[None, :]
        if SPLIT_K == 1:
            tl.store(out, acc, mask=mask)
        else:
            tl.atomic_add(out, acc, mask=mask, sem="relaxed")

    def _gemm_configs():
        out = []
        for bm, bn, bk, w, st in ((128, 128, 64, 8, 3), (128, 256, 64, 8, 3),
                                  (64, 256, 64, 8, 3), (128, 128, 128, 8, 3),
                                  (128, 64, 64, 4, 4), (64, 128, 64, 4, 4)):
            out.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk,
                                      "GROUP_M": 8}, num_warps=w, num_stages=st))
        return out

    @triton.autotune(configs=_gemm_configs(), key=_KEY)
    @triton.jit
    def _wo_gemm(x_ptr, w_ptr, s_ptr, g_ptr, y_ptr, M, N, K, stride_xm, stride_wn,
                 stride_sn, stride_ym, FMT: tl.constexpr, EBITS: tl.constexpr,
                 MBITS: tl.constexpr, FP8: tl.constexpr, DST_M: tl.constexpr,
                 FIX: tl.constexpr, PACK: tl.constexpr, GROUP: tl.constexpr,
                 SCALE: tl.constexpr, TENSOR_SCALE: tl.constexpr, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
        pid = tl.program_id(0)
        grid_m = tl.cdiv(M, BLOCK_M)
        grid_n = tl.cdiv(N, BLOCK_N)
        # grouped order: GROUP_M row tiles share the weight tiles in L2
        width = GROUP_M * grid_n
        group = pid // width
        first_m = group * GROUP_M
        size_m = min(grid_m - first_m, GROUP_M)
        pid_m = first_m + (pid % width) % size_m
        pid_n = (pid % width) // size_m
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        m_ok = offs_m < M
        n_ok = offs_n < N
        acc = _dot_k_blocks(x_ptr, w_ptr, s_ptr, offs_m, m_ok, offs_n, n_ok, 0, 1, K,
                            stride_xm, stride_wn, stride_sn, EBITS, MBITS, FP8, DST_M, FIX,
                            PACK, GROUP, SCALE, BLOCK_M, BLOCK_N, BLOCK_K, "")
        acc = _epilogue_scales(acc, s_ptr, g_ptr, offs_n, n_ok, GROUP, TENSOR_SCALE)
        tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :],
                 acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


SPLITK_MAX_M = 64
# the configuration run under TRITON_INTERPRET=1 (no autotuner benchmarking)
INTERPRET_CONFIGS = ({"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128, "SPLIT_K": 2},
                     {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8})


def format_constexprs(fmt, dtype):
    """The kernels' format constexprs for format `fmt` and x's dtype."""
    f = FORMATS[fmt]
    if dtype not in _DST:
        raise ValueError(f"x must be bfloat16 or float16, got {dtype}")
    dst_m, dst_bias = _DST[dtype]
    return dict(FMT=fmt, EBITS=f.ebits, MBITS=f.mbits, FP8=_FP8[f.fp8], DST_M=dst_m,
                FIX=float(2.0 ** (dst_bias - f.bias)), PACK=f.pack, GROUP=f.group,
                SCALE=_SCALE[f.scale], TENSOR_SCALE=f.tensor_scale)


def _format_of(w, fmt):
    if fmt is not None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; known: {sorted(FORMATS)}")
        return fmt
    names = {torch.float8_e4m3fn: "fp8_e4m3", torch.float8_e5m2: "fp8_e5m2"}
    if w.dtype not in names:
        raise ValueError(f"format= is needed for {w.dtype} codes")
    return names[w.dtype]


def wo_matmul(x, w, s, g=None, format=None, config=None):
    """y = x @ W^T in x's dtype, W the weight of (w, s, g) in `format` (a
    FORMATS name; None: fp8_e4m3 / fp8_e5m2 from w's float8 dtype): x (M, K)
    bf16/f16; w, s, g as weight_of returns them (w: (N, K / pack) codes, uint8
    or float8; s: (N,) / (N, 1) fp32 or (N, K / group) uint8 block scale codes;
    g: NVFP4's fp32 tensor scale), all contiguous on one device. config: one
    configuration (a triton.Config's kwargs, num_warps and num_stages
    optional) to run without the autotuner (the default under
    TRITON_INTERPRET=1: INTERPRET_CONFIGS)."""
    if triton is None:
        raise RuntimeError(f"triton is not available ({_WHY})")
    fmt = _format_of(w, format)
    f = FORMATS[fmt]
    m, k = x.shape
    n = w.shape[0]
    if w.shape[1] * f.pack != k or (f.group and k % f.group):
        raise ValueError(f"{fmt}: codes {tuple(w.shape)} do not fit K = {k} "
                         f"({f.pack} a byte, K a multiple of {max(f.group, 1)})")
    if f.tensor_scale and g is None:
        raise ValueError(f"{fmt} needs its tensor scale g")
    w = w.view(torch.uint8)
    if f.group:
        s = s.view(torch.uint8)
        if s.shape != (n, k // f.group):
            raise ValueError(f"{fmt}: block scales {tuple(s.shape)}, want {(n, k // f.group)}")
    else:
        s = s.reshape(n)
    g = s if g is None else g.reshape(1)  # g_ptr is read only with TENSOR_SCALE
    consts = format_constexprs(fmt, x.dtype)
    interp = os.environ.get("TRITON_INTERPRET") == "1"
    if m <= SPLITK_MAX_M:
        acc = torch.zeros((m, n), dtype=torch.float32, device=x.device)

        def grid(meta):
            return (triton.cdiv(n, meta["BLOCK_N"]), triton.cdiv(m, meta["BLOCK_M"]),
                    meta["SPLIT_K"])

        args = (x, w, s, g, acc, m, n, k, x.stride(0), w.stride(0), s.stride(0))
        if config is None and not interp:
            _wo_splitk[grid](*args, **consts)
        else:
            meta = dict(config or INTERPRET_CONFIGS[0])
            _wo_splitk.fn[grid(meta)](*args, **consts, **meta)
        return acc.to(x.dtype)
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    args = (x, w, s, g, y, m, n, k, x.stride(0), w.stride(0), s.stride(0), y.stride(0))
    if config is None and not interp:
        _wo_gemm[grid](*args, **consts)
    else:
        meta = dict(config or INTERPRET_CONFIGS[1])
        _wo_gemm.fn[grid(meta)](*args, **consts, **meta)
    return y
