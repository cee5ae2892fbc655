"""Triton peers of fpxc's casts: what a user writes instead of using fpxc.

The same functions as bench_quantize.py's eager references (byte for byte:
the benchmark counts the bytes where a peer and fpxc differ), written the way
torchao's hand-written Triton cast kernels are (torchao is not installed on the
GPU machine): one program per 2-D tile, the tile in registers, block maxima by
tl.reduce, scales from the amax's bits, e4m3 through Triton's own fp32 -> fp8
conversion, and for column blocks the tile transposed by tl.trans (Triton goes
through shared memory) and stored row-major into the (K, M) output. Every
kernel is autotuned over a few tile shapes for the shape it is called with.

    mx_rows(x, rule)      MXFP8 e4m3 1x32 (floor | rceil) -> (q (M, K), e8m0 codes (M, K/32))
    mx_cols(x)            32x1 blocks of (M, K) -> (q (K, M), codes (K, M/32))
    mx_experts(w)         (E, N, K), 32x1 along N -> (q (E, K, N), codes (E, K, N/32))
    fp8_1x128(x)          e4m3, fp32 scale amax/448 per 1x128 -> (q, s (M, K/128))
    fp8_128x128(x)        the same per 128x128 block -> (q, s (M/128, K/128))
    fp8_rowwise(x)        the same with one scale a row -> (q, s (M, 1)): BM whole rows a
                          program (the row padded to a power of two), as torchao's
                          rowwise cast through torch.compile generates it
    fp8_per_tensor(x)     one scale amax/448 (the amax kernel below, then the cast) -> (q, s (1, 1))
    mxfp4_rows(x)         MXFP4 e2m1 1x32 (floor), codes two a byte
                          -> (codes (M, K/2), e8m0 codes (M, K/32))
    nvfp4(x[, amax_t])    NVFP4: g = amax/2688, ue4m3 1x16 scales, e2m1 codes packed two a
                          byte (RN, computed in integer and fp32 arithmetic: Triton has no fp4
                          conversion on sm_90) -> (codes (M, K/2), scales (M, K/16), amax);
                          the amax by a Triton reduction (atomic max) unless given; with
                          seed=, stochastic rounding with fpx's random bits (Philox-4x32-10
                          through Triton's randint4x, the same counter and key); with
                          hadamard_seed=, of the 16-point random Hadamard transform of x
                          (its signs read off fpx's numerics core)

Scale codes are returned as uint8 (the references' dtype). NaN propagates
through the block maxima as torch's amax does.
"""

import os

import torch
import triton
import triton.language as tl


@triton.jit
def _max_nan(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _e8m0(amax, RCEIL: tl.constexpr, EMAX: tl.constexpr, FMAX: tl.constexpr):
    """e8m0 code of a block maximum for an element format of largest exponent
    EMAX and largest value FMAX (bench_quantize.e8m0_floor / e8m0_rceil)."""
    if RCEIL:
        q = tl.math.div_rn(amax, tl.full(amax.shape, FMAX, tl.float32))
        b = q.to(tl.int32, bitcast=True)
        exp = (b >> 23) & 0xFF
        mant = b & 0x7FFFFF
        code = exp + (mant != 0).to(tl.int32)
        code = tl.where(exp == 0, (mant > 0x400000).to(tl.int32), code)
        code = tl.minimum(code, 254)
        code = tl.where((exp == 255) & (mant != 0), 255, code)
    else:
        b = amax.to(tl.int32, bitcast=True)
        exp = (b >> 23) & 0xFF
        mant = b & 0x7FFFFF
        code = tl.minimum(tl.maximum(exp - EMAX, 0), 254)
        code = tl.where(exp == 255, 254 + (mant != 0).to(tl.int32), code)
    return code


@triton.jit
def _inv_scale(code):
    """fp32 2^(127 - code): exact; NaN for code 255."""
    c = 254 - tl.minimum(code, 254)
    inv = tl.where(c == 0, 0x400000, c << 23).to(tl.float32, bitcast=True)
    return tl.where(code == 255, float("nan"), inv)


@triton.jit
def _e4m3(y):
    """Saturate to +-448 (NaN stays NaN), then Triton's RN conversion."""
    y = tl.maximum(y, -448.0, propagate_nan=tl.PropagateNan.ALL)
    y = tl.minimum(y, 448.0, propagate_nan=tl.PropagateNan.ALL)
    return y.to(tl.float8e4nv)


@triton.jit
def _fp32_scale(amax):
    """bench_quantize._fp32_scale: fl(min(amax, FLT_MAX) / 448), 1 for 0."""
    a = tl.minimum(amax, 3.4028234663852886e38, propagate_nan=tl.PropagateNan.ALL)
    s = tl.math.div_rn(a, tl.full(a.shape, 448.0, tl.float32))
    s = tl.where(a == 0, 1.0, s)
    return tl.where((s == 0) & (a > 0), 1.401298464324817e-45, s)


@triton.jit
def _row_tile(x_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    """This program's (BM, BK) tile of row-major x (M, K) as fp32: its rows,
    offsets, in-bounds mask and values (0 outside)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rk = tl.program_id(1) * BK + tl.arange(0, BK)
    mask = (rm[:, None] < M) & (rk[None, :] < K)
    offs = rm[:, None].to(tl.int64) * K + rk[None, :]
    return rm, offs, mask, tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)


# (BM, BK, warps) the row kernels are autotuned over; the casts with more
# arithmetic an element (fp32 division, e2m1 encoding) over smaller tiles
ROW_TILES = [(32, 128, 4), (64, 128, 4), (32, 256, 4), (64, 256, 8), (128, 128, 8), (16, 512, 4)]
SMALL_ROW_TILES = [(16, 128, 4), (32, 128, 4), (16, 256, 4), (32, 256, 8), (64, 128, 8),
                   (8, 512, 4)]


def _configs(shapes):
    configs = [triton.Config({"BM": bm, "BK": bk}, num_warps=w) for bm, bk, w in shapes]
    # Triton's CPU interpreter (TRITON_INTERPRET=1, how these kernels are
    # checked without a GPU) cannot time configurations: one, untimed.
    return configs[:1] if os.environ.get("TRITON_INTERPRET") == "1" else configs


# --- MXFP8 along rows --------------------------------------------------------

@triton.autotune(configs=_configs(ROW_TILES), key=["M", "K"])
@triton.jit
def _mx_rows_kernel(x_ptr, q_ptr, s_ptr, M, K, RCEIL: tl.constexpr,
                    BM: tl.constexpr, BK: tl.constexpr):
    rm, offs, mask, x = _row_tile(x_ptr, M, K, BM, BK)
    xb = tl.reshape(x, (BM, BK // 32, 32))
    code = _e8m0(tl.reduce(tl.abs(xb), 2, _max_nan), RCEIL, 8, 448.0)
    y = xb * _inv_scale(code)[:, :, None]
    tl.store(q_ptr + offs, _e4m3(tl.reshape(y, (BM, BK))), mask=mask)
    rs = tl.program_id(1) * (BK // 32) + tl.arange(0, BK // 32)
    smask = (rm[:, None] < M) & (rs[None, :] < K // 32)
    tl.store(s_ptr + rm[:, None].to(tl.int64) * (K // 32) + rs[None, :],
             code.to(tl.uint8), mask=smask)


def mx_rows_launch(x, q, s, rule, bm, bk, warps):
    """One launch of the MXFP8 row kernel at a fixed configuration, into
    given outputs (no autotuning: for Nsight Compute and A/B timing)."""
    m, k = x.shape
    _mx_rows_kernel.fn[(triton.cdiv(m, bm), triton.cdiv(k, bk))](
        x, q, s, m, k, RCEIL=rule == "rceil", BM=bm, BK=bk, num_warps=warps)


def mx_rows(x, rule="floor"):
    m, k = x.shape
    assert k % 32 == 0 and x.is_contiguous()
    q = torch.empty(m, k, dtype=torch.float8_e4m3fn, device=x.device)
    s = torch.empty(m, k // 32, dtype=torch.uint8, device=x.device)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]), triton.cdiv(k, meta["BK"]))  # noqa: E731
    _mx_rows_kernel[grid](x, q, s, m, k, RCEIL=rule == "rceil")
    return q, s


# --- MXFP8 along columns, written transposed (and per expert) ----------------

@triton.autotune(configs=_configs([(64, 64, 4), (128, 64, 4), (64, 128, 4), (128, 128, 8),
                                   (32, 128, 4), (128, 32, 4)]),
                 key=["M", "K"])
@triton.jit
def _mx_cols_kernel(x_ptr, q_ptr, s_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    """x (B, M, K) -> q (B, K, M), codes (B, K, M/32); M % 32 == 0."""
    base = tl.program_id(2).to(tl.int64) * M * K
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rk = tl.program_id(1) * BK + tl.arange(0, BK)
    x = tl.load(x_ptr + base + rm[:, None].to(tl.int64) * K + rk[None, :],
                mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0).to(tl.float32)
    xb = tl.reshape(x, (BM // 32, 32, BK))
    code = _e8m0(tl.reduce(tl.abs(xb), 1, _max_nan), False, 8, 448.0)  # (BM/32, BK)
    q = _e4m3(tl.reshape(xb * _inv_scale(code)[:, None, :], (BM, BK)))
    tl.store(q_ptr + base + rk[:, None].to(tl.int64) * M + rm[None, :], tl.trans(q),
             mask=(rk[:, None] < K) & (rm[None, :] < M))
    rs = tl.program_id(0) * (BM // 32) + tl.arange(0, BM // 32)
    sbase = tl.program_id(2).to(tl.int64) * K * (M // 32)
    tl.store(s_ptr + sbase + rk[:, None].to(tl.int64) * (M // 32) + rs[None, :],
             tl.trans(code).to(tl.uint8), mask=(rk[:, None] < K) & (rs[None, :] < M // 32))


def mx_experts(w):
    e, n, k = w.shape
    assert n % 32 == 0 and w.is_contiguous()
    q = torch.empty(e, k, n, dtype=torch.float8_e4m3fn, device=w.device)
    s = torch.empty(e, k, n // 32, dtype=torch.uint8, device=w.device)
    grid = lambda meta: (triton.cdiv(n, meta["BM"]), triton.cdiv(k, meta["BK"]), e)  # noqa: E731
    _mx_cols_kernel[grid](w, q, s, n, k)
    return q, s


def mx_cols(x):
    q, s = mx_experts(x.unsqueeze(0))
    return q[0], s[0]


# --- fp8 with fp32 block scales (DeepSeek-V3's 1x128 activations, 128x128 weights)

@triton.autotune(configs=_configs(SMALL_ROW_TILES), key=["M", "K"])
@triton.jit
def _fp8_1x128_kernel(x_ptr, q_ptr, s_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    rm, offs, mask, x = _row_tile(x_ptr, M, K, BM, BK)
    xb = tl.reshape(x, (BM, BK // 128, 128))
    s = _fp32_scale(tl.reduce(tl.abs(xb), 2, _max_nan))
    y = tl.math.div_rn(xb, tl.broadcast_to(s[:, :, None], xb.shape))
    tl.store(q_ptr + offs, _e4m3(tl.reshape(y, (BM, BK))), mask=mask)
    rs = tl.program_id(1) * (BK // 128) + tl.arange(0, BK // 128)
    tl.store(s_ptr + rm[:, None].to(tl.int64) * (K // 128) + rs[None, :], s,
             mask=(rm[:, None] < M) & (rs[None, :] < K // 128))


def fp8_1x128(x):
    m, k = x.shape
    assert k % 128 == 0 and x.is_contiguous()
    q = torch.empty(m, k, dtype=torch.float8_e4m3fn, device=x.device)
    s = torch.empty(m, k // 128, dtype=torch.float32, device=x.device)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]), triton.cdiv(k, meta["BK"]))  # noqa: E731
    _fp8_1x128_kernel[grid](x, q, s, m, k)
    return q, s


@triton.autotune(configs=[triton.Config({}, num_warps=w) for w in (4, 8)][
    :1 if os.environ.get("TRITON_INTERPRET") == "1" else 2], key=["M", "K"])
@triton.jit
def _fp8_128x128_kernel(x_ptr, q_ptr, s_ptr, M, K):
    rm = tl.program_id(0) * 128 + tl.arange(0, 128)
    rk = tl.program_id(1) * 128 + tl.arange(0, 128)
    offs = rm[:, None].to(tl.int64) * K + rk[None, :]
    x = tl.load(x_ptr + offs).to(tl.float32)
    s = _fp32_scale(tl.reduce(tl.reshape(tl.abs(x), (128 * 128,)), 0, _max_nan))
    y = tl.math.div_rn(x, tl.full(x.shape, 0.0, tl.float32) + s)
    tl.store(q_ptr + offs, _e4m3(y))
    tl.store(s_ptr + tl.program_id(0).to(tl.int64) * (K // 128) + tl.program_id(1), s)


@triton.autotune(configs=[triton.Config({"BM": bm}, num_warps=w)
                          for bm, w in ((1, 4), (1, 8), (1, 16), (2, 8), (2, 16), (4, 16))][
    :1 if os.environ.get("TRITON_INTERPRET") == "1" else None], key=["M", "K"])
@triton.jit
def _fp8_rowwise_kernel(x_ptr, q_ptr, s_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rk = tl.arange(0, BK)
    mask = (rm[:, None] < M) & (rk[None, :] < K)
    offs = rm[:, None].to(tl.int64) * K + rk[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = _fp32_scale(tl.reduce(tl.abs(x), 1, _max_nan))
    y = tl.math.div_rn(x, tl.broadcast_to(s[:, None], x.shape))
    tl.store(q_ptr + offs, _e4m3(y), mask=mask)
    tl.store(s_ptr + rm, s, mask=rm < M)


def fp8_rowwise(x):
    m, k = x.shape
    assert x.is_contiguous()
    q = torch.empty(m, k, dtype=torch.float8_e4m3fn, device=x.device)
    s = torch.empty(m, 1, dtype=torch.float32, device=x.device)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]),)  # noqa: E731
    _fp8_rowwise_kernel[grid](x, q, s, m, k, BK=triton.next_power_of_2(k))
    return q, s


def fp8_128x128(x):
    m, k = x.shape
    assert m % 128 == 0 and k % 128 == 0 and x.is_contiguous()
    q = torch.empty(m, k, dtype=torch.float8_e4m3fn, device=x.device)
    s = torch.empty(m // 128, k // 128, dtype=torch.float32, device=x.device)
    _fp8_128x128_kernel[(m // 128, k // 128)](x, q, s, m, k)
    return q, s


# --- NVFP4 (1x16 ue4m3 scales relative to a per-tensor g) --------------------

@triton.jit
def _e2m1(y):
    """e2m1 codes (int32) of fp32 y, round to nearest even, saturating, NaN ->
    +6 (bench_quantize.encode_small(y, 2, 1, 6.0)): a = min(|y|, 6) in binade
    e = max(exponent, 0), n = RN(a * 2^(1 - e)) by the 1.5 * 2^23 trick (a * 2^(1-e)
    is exact, so a fused multiply-add rounds the same), code = 2 e + n."""
    nan = y != y
    a = tl.where(nan, 0.0, tl.minimum(tl.abs(y), 6.0))
    e = tl.maximum(((a.to(tl.int32, bitcast=True) >> 23) & 0xFF) - 127, 0)
    p = ((128 - e) << 23).to(tl.float32, bitcast=True)
    n = ((a * p + 12582912.0) - 12582912.0).to(tl.int32)
    code = tl.minimum(2 * e + n, 7) | (((y.to(tl.int32, bitcast=True) >> 31) & 1) << 3)
    return tl.where(nan, 7, code)


@triton.jit
def _store_fp4x2(q_ptr, rm, codes, M, K, BM: tl.constexpr, BK: tl.constexpr):
    """This program's (BM, BK) tile of e2m1 codes, two a byte (element 2k in
    the low nibble of byte k), into q (M, K/2)."""
    lo, hi = tl.split(tl.reshape(codes, (BM, BK // 2, 2)))
    rq = tl.program_id(1) * (BK // 2) + tl.arange(0, BK // 2)
    tl.store(q_ptr + rm[:, None].to(tl.int64) * (K // 2) + rq[None, :],
             (lo | (hi << 4)).to(tl.uint8), mask=(rm[:, None] < M) & (rq[None, :] < K // 2))


@triton.autotune(configs=_configs(ROW_TILES), key=["M", "K"])
@triton.jit
def _mxfp4_rows_kernel(x_ptr, q_ptr, s_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    rm, offs, mask, x = _row_tile(x_ptr, M, K, BM, BK)
    xb = tl.reshape(x, (BM, BK // 32, 32))
    code = _e8m0(tl.reduce(tl.abs(xb), 2, _max_nan), False, 2, 6.0)
    y = tl.reshape(xb * _inv_scale(code)[:, :, None], (BM, BK))
    _store_fp4x2(q_ptr, rm, _e2m1(y), M, K, BM, BK)
    rs = tl.program_id(1) * (BK // 32) + tl.arange(0, BK // 32)
    tl.store(s_ptr + rm[:, None].to(tl.int64) * (K // 32) + rs[None, :], code.to(tl.uint8),
             mask=(rm[:, None] < M) & (rs[None, :] < K // 32))


def mxfp4_rows(x):
    """MXFP4 e2m1 1x32, floor rule -> (codes fp4x2 (M, K/2), e8m0 codes (M, K/32))."""
    m, k = x.shape
    assert k % 32 == 0 and x.is_contiguous()
    q = torch.empty(m, k // 2, dtype=torch.uint8, device=x.device)
    s = torch.empty(m, k // 32, dtype=torch.uint8, device=x.device)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]), triton.cdiv(k, meta["BK"]))  # noqa: E731
    _mxfp4_rows_kernel[grid](x, q, s, m, k)
    return q, s


@triton.jit
def _e2m1_kernel(y_ptr, c_ptr, N, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    y = tl.load(y_ptr + i, mask=i < N, other=0.0)
    tl.store(c_ptr + i, _e2m1(y).to(tl.uint8), mask=i < N)


def e2m1_codes(y):
    """_e2m1 of a flat fp32 tensor, as uint8 (for check_triton_peers.py)."""
    codes = torch.empty(y.numel(), dtype=torch.uint8, device=y.device)
    _e2m1_kernel[(triton.cdiv(y.numel(), 4096),)](y, codes, y.numel(), BLOCK=4096)
    return codes


@triton.jit
def _e2m1_rs(y, r):
    """e2m1 codes of fp32 y under stochastic rounding with the random byte r
    (as PTX cvt.rs.satfinite: r added to the top 8 discarded bits, a carry
    rounds away from zero; NaN -> +6): a = min(|y|, 6) scaled by 2^-126
    toward zero lands on fp32's encoding with the code above bit 22, which
    for a >= 1 is bits(a) - 126 << 23 and below 1 floor(a 2^23)."""
    nan = y != y
    a = tl.where(nan, 6.0, tl.minimum(tl.abs(y), 6.0))
    b = tl.where(a >= 1.0, a.to(tl.int32, bitcast=True) - (126 << 23),
                 (a * 8388608.0).to(tl.int32))
    code = (b + (r << 14)) >> 22
    return code | tl.where(nan, 0, ((y.to(tl.int32, bitcast=True) >> 31) & 1) << 3)


@triton.jit
def _rs_bytes(rm, K, seed, BM: tl.constexpr, BK: tl.constexpr):
    """The random byte of each element of this program's (BM, BK) tile, as
    fpx draws them (numerics stochasticElementBits): flat element i takes
    word (i / 4) % 4 of Philox-4x32-10 block i / 16 (Triton's randint4x:
    counter (block, 0, 0), key the seed), byte [0, 2, 1, 3][i % 4] of it."""
    blk = (rm[:, None].to(tl.int64) * K + tl.program_id(1) * BK
           + tl.arange(0, BK // 16)[None, :] * 16) // 16
    r0, r1, r2, r3 = tl.randint4x(seed, blk)
    j = tl.arange(0, 16)[None, None, :]
    w = j // 4
    word = tl.where(w == 0, r0[:, :, None], tl.where(w == 1, r1[:, :, None],
                    tl.where(w == 2, r2[:, :, None], r3[:, :, None])))
    shift = tl.where(j % 4 == 0, 0, tl.where(j % 4 == 1, 16, tl.where(j % 4 == 2, 8, 24)))
    return tl.reshape((word.to(tl.int32, bitcast=True) >> shift) & 0xFF, (BM, BK))


def hadamard16_signs(seed):
    """Bit j set: sign j of the 16-point random Hadamard transform of `seed`
    is -1, read off the numerics core (fpx.hadamard on the CPU): row j of the
    transform of the identity starts with s_j / 4."""
    import fpxc
    first = fpxc.hadamard(torch.eye(16), 16, seed)[:, 0]
    return sum(1 << j for j in range(16) if first[j] < 0)


@triton.jit
def _butterfly(x, R: tl.constexpr, H: tl.constexpr):
    """x[j], x[j + H] <- x[j] + x[j + H], x[j] - x[j + H] in every block of 2H
    of the rows of x (R, 16)."""
    y = tl.permute(tl.reshape(x, (R, 16 // (2 * H), 2, H)), (0, 1, 3, 2))
    a, b = tl.split(y)
    return tl.reshape(tl.permute(tl.join(a + b, a - b), (0, 1, 3, 2)), (R, 16))


@triton.jit
def _hadamard16(x, SIGNS: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    """The 16-point random Hadamard transform of each 16 consecutive elements
    of the (BM, BK) tile x, in the numerics core's order (numerics
    randomHadamard): signs, butterflies h = 1, 2, 4, 8, then * 1/4."""
    R: tl.constexpr = BM * BK // 16
    j = tl.arange(0, 16)[None, :]
    y = tl.reshape(x, (R, 16)) * tl.where(((SIGNS >> j) & 1) == 1, -1.0, 1.0)
    y = _butterfly(_butterfly(_butterfly(_butterfly(y, R, 1), R, 2), R, 4), R, 8)
    return tl.reshape(y * 0.25, (BM, BK))


@triton.jit
def _hadamard16_kernel(x_ptr, y_ptr, M, K, SIGNS: tl.constexpr, BM: tl.constexpr,
                       BK: tl.constexpr):
    rm, offs, mask, x = _row_tile(x_ptr, M, K, BM, BK)
    tl.store(y_ptr + offs, _hadamard16(x, SIGNS, BM, BK), mask=mask)


def hadamard16(x, hadamard_seed):
    """The transform itself, fp32 (for check_triton_peers.py)."""
    m, k = x.shape
    y = torch.empty(m, k, dtype=torch.float32, device=x.device)
    _hadamard16_kernel[(triton.cdiv(m, 16), triton.cdiv(k, 512))](
        x, y, m, k, SIGNS=hadamard16_signs(hadamard_seed), BM=16, BK=512)
    return y


@triton.jit
def _amax_rht_kernel(x_ptr, amax_ptr, M, K, SIGNS: tl.constexpr, BM: tl.constexpr,
                     BK: tl.constexpr):
    """amax_ptr (int32 bits, zeroed) = max |H x| over the tile, atomically."""
    rm, offs, mask, x = _row_tile(x_ptr, M, K, BM, BK)
    y = tl.reshape(_hadamard16(x, SIGNS, BM, BK), (BM * BK,))
    tl.atomic_max(amax_ptr, tl.reduce(tl.abs(y), 0, _max_nan).to(tl.int32, bitcast=True))


@triton.jit
def _amax_kernel(x_ptr, amax_ptr, N, BLOCK: tl.constexpr):
    """amax_ptr (int32 bits, zeroed) = max |x| over N elements: a grid-stride
    loop, one atomic max of the fp32 bits a program (|x| >= 0 orders as its
    bits; NaN above inf, as torch's amax propagates it)."""
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in tl.range(tl.program_id(0) * BLOCK, N, tl.num_programs(0) * BLOCK):
        idx = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + idx, mask=idx < N, other=0.0).to(tl.float32)
        acc = tl.maximum(acc, tl.abs(x), propagate_nan=tl.PropagateNan.ALL)
    m = tl.reduce(acc, 0, _max_nan)
    tl.atomic_max(amax_ptr, m.to(tl.int32, bitcast=True))


@triton.autotune(configs=_configs(SMALL_ROW_TILES), key=["M", "K"])
@triton.jit
def _nvfp4_kernel(x_ptr, q_ptr, s_ptr, amax_ptr, seed, M, K, RS: tl.constexpr,
                  HAD: tl.constexpr, SIGNS: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    rm, offs, mask, x = _row_tile(x_ptr, M, K, BM, BK)
    if HAD:
        x = _hadamard16(x, SIGNS, BM, BK)
    # g = fl(min(amax, FLT_MAX) / 2688), 1 for amax 0, 2^-149 where it underflows
    at = tl.minimum(tl.load(amax_ptr), 3.4028234663852886e38, propagate_nan=tl.PropagateNan.ALL)
    g = tl.math.div_rn(at, 2688.0)
    g = tl.where(at == 0, 1.0, g)
    g = tl.where((g == 0) & (at > 0), 1.401298464324817e-45, g)
    xb = tl.reshape(x, (BM, BK // 16, 16))
    bm = tl.reduce(tl.abs(xb), 2, _max_nan)
    t = tl.math.div_rn(tl.math.div_rn(bm, tl.full(bm.shape, 6.0, tl.float32)),
                       tl.full(bm.shape, 0.0, tl.float32) + g)
    sc = tl.minimum(t, 448.0, propagate_nan=tl.PropagateNan.ALL).to(tl.float8e4nv)
    s = tl.broadcast_to((sc.to(tl.float32) * g)[:, :, None], xb.shape)
    y = tl.reshape(tl.where(s == 0, xb * 0.0, tl.math.div_rn(xb, s)), (BM, BK))
    if RS:
        codes = _e2m1_rs(y, _rs_bytes(rm, K, seed, BM, BK))
    else:
        codes = _e2m1(y)
    _store_fp4x2(q_ptr, rm, codes, M, K, BM, BK)
    rs = tl.program_id(1) * (BK // 16) + tl.arange(0, BK // 16)
    tl.store(s_ptr + rm[:, None].to(tl.int64) * (K // 16) + rs[None, :], sc,
             mask=(rm[:, None] < M) & (rs[None, :] < K // 16))


def amax(x):
    """max |x| as a 0-dim fp32 tensor (one read of x)."""
    bits = torch.zeros((), dtype=torch.int32, device=x.device)
    block = 4096
    grid = (max(1, min(triton.cdiv(x.numel(), block), 8 * 132)),)
    _amax_kernel[grid](x, bits, x.numel(), BLOCK=block, num_warps=8)
    return bits.view(torch.float32)


def amax_rht(x, hadamard_seed):
    """max |H x| (the 16-point random Hadamard transform) as a 0-dim fp32 tensor."""
    m, k = x.shape
    bits = torch.zeros((), dtype=torch.int32, device=x.device)
    _amax_rht_kernel[(triton.cdiv(m, 16), triton.cdiv(k, 512))](
        x, bits, m, k, SIGNS=hadamard16_signs(hadamard_seed), BM=16, BK=512, num_warps=4)
    return bits.view(torch.float32)


def nvfp4(x, amax_t=None, seed=None, hadamard_seed=None):
    """NVFP4 of x (amax computed unless given); with a seed, stochastic
    rounding with fpx's random bits for that seed; with a hadamard_seed, of
    the 16-point random Hadamard transform of x (amax_t then of the transform)."""
    m, k = x.shape
    assert k % 16 == 0 and x.is_contiguous()
    had = hadamard_seed is not None
    if amax_t is None:
        amax_t = amax_rht(x, hadamard_seed) if had else amax(x)
    q = torch.empty(m, k // 2, dtype=torch.uint8, device=x.device)
    s = torch.empty(m, k // 16, dtype=torch.float8_e4m3fn, device=x.device)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]), triton.cdiv(k, meta["BK"]))  # noqa: E731
    _nvfp4_kernel[grid](x, q, s, amax_t, 0 if seed is None else seed, m, k, RS=seed is not None,
                        HAD=had, SIGNS=hadamard16_signs(hadamard_seed) if had else 0)
    return q, s, amax_t


@triton.autotune(configs=_configs(ROW_TILES), key=["M", "K"])
@triton.jit
def _fp8_tensor_kernel(x_ptr, q_ptr, s_ptr, amax_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    rm, offs, mask, x = _row_tile(x_ptr, M, K, BM, BK)
    s = _fp32_scale(tl.load(amax_ptr))
    y = tl.math.div_rn(x, tl.full(x.shape, 0.0, tl.float32) + s)
    tl.store(q_ptr + offs, _e4m3(y), mask=mask)
    if (tl.program_id(0) == 0) & (tl.program_id(1) == 0):
        tl.store(s_ptr, s)


def fp8_per_tensor(x):
    """fp8 e4m3 with one scale amax/448: the amax kernel, then the cast ->
    (q (M, K), s (1, 1))."""
    m, k = x.shape
    q = torch.empty(m, k, dtype=torch.float8_e4m3fn, device=x.device)
    s = torch.empty(1, 1, dtype=torch.float32, device=x.device)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]), triton.cdiv(k, meta["BK"]))  # noqa: E731
    _fp8_tensor_kernel[grid](x, q, s, amax(x), m, k)
    return q, s


PEERS = {
    "mx_rows_floor": lambda x: mx_rows(x, "floor"),
    "mx_rows_rceil": lambda x: mx_rows(x, "rceil"),
    "mx_cols": mx_cols,
    "mx_experts": mx_experts,
    "fp8_1x128": fp8_1x128,
    "fp8_128x128": fp8_128x128,
    "fp8_rowwise": fp8_rowwise,
    "fp8_per_tensor": fp8_per_tensor,
    "mxfp4_rows": mxfp4_rows,
    "nvfp4": nvfp4,    # amax_t=, seed=, hadamard_seed= as the case's fpxc function
}

_KERNELS = {"mx_rows_floor": _mx_rows_kernel, "mx_rows_rceil": _mx_rows_kernel,
            "mx_cols": _mx_cols_kernel, "mx_experts": _mx_cols_kernel,
            "fp8_1x128": _fp8_1x128_kernel, "fp8_128x128": _fp8_128x128_kernel,
            "fp8_rowwise": _fp8_rowwise_kernel,
            "fp8_per_tensor": _fp8_tensor_kernel, "mxfp4_rows": _mxfp4_rows_kernel,
            "nvfp4": _nvfp4_kernel}


def best_config(key):
    """The configuration the autotuner chose at the last call of PEERS[key]."""
    cfg = getattr(_KERNELS[key], "best_config", None)
    return None if cfg is None else f"{cfg.kwargs} num_warps={cfg.num_warps}"
