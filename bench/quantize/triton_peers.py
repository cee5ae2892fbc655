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
def _e8m0(amax, RCEIL: tl.constexpr):
    """e8m0 code of a block maximum (bench_quantize.e8m0_floor / e8m0_rceil)."""
    if RCEIL:
        q = tl.math.div_rn(amax, tl.full(amax.shape, 448.0, tl.float32))
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
        code = tl.minimum(tl.maximum(exp - 8, 0), 254)
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


def _configs(shapes):
    configs = [triton.Config({"BM": bm, "BK": bk}, num_warps=w) for bm, bk, w in shapes]
    # Triton's CPU interpreter (TRITON_INTERPRET=1, how these kernels are
    # checked without a GPU) cannot time configurations: one, untimed.
    return configs[:1] if os.environ.get("TRITON_INTERPRET") == "1" else configs


# --- MXFP8 along rows --------------------------------------------------------

@triton.autotune(configs=_configs([(32, 128, 4), (64, 128, 4), (32, 256, 4), (64, 256, 8),
                                   (128, 128, 8), (16, 512, 4)]),
                 key=["M", "K"])
@triton.jit
def _mx_rows_kernel(x_ptr, q_ptr, s_ptr, M, K, RCEIL: tl.constexpr,
                    BM: tl.constexpr, BK: tl.constexpr):
    rm, offs, mask, x = _row_tile(x_ptr, M, K, BM, BK)
    xb = tl.reshape(x, (BM, BK // 32, 32))
    code = _e8m0(tl.reduce(tl.abs(xb), 2, _max_nan), RCEIL)
    y = xb * _inv_scale(code)[:, :, None]
    tl.store(q_ptr + offs, _e4m3(tl.reshape(y, (BM, BK))), mask=mask)
    rs = tl.program_id(1) * (BK // 32) + tl.arange(0, BK // 32)
    smask = (rm[:, None] < M) & (rs[None, :] < K // 32)
    tl.store(s_ptr + rm[:, None].to(tl.int64) * (K // 32) + rs[None, :],
             code.to(tl.uint8), mask=smask)


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
    code = _e8m0(tl.reduce(tl.abs(xb), 1, _max_nan), False)      # (BM/32, BK)
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

@triton.autotune(configs=_configs([(16, 128, 4), (32, 128, 4), (16, 256, 4), (32, 256, 8),
                                   (64, 128, 8), (8, 512, 4)]),
                 key=["M", "K"])
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


def fp8_128x128(x):
    m, k = x.shape
    assert m % 128 == 0 and k % 128 == 0 and x.is_contiguous()
    q = torch.empty(m, k, dtype=torch.float8_e4m3fn, device=x.device)
    s = torch.empty(m // 128, k // 128, dtype=torch.float32, device=x.device)
    _fp8_128x128_kernel[(m // 128, k // 128)](x, q, s, m, k)
    return q, s


PEERS = {
    "mx_rows_floor": lambda x: mx_rows(x, "floor"),
    "mx_rows_rceil": lambda x: mx_rows(x, "rceil"),
    "mx_cols": mx_cols,
    "mx_experts": mx_experts,
    "fp8_1x128": fp8_1x128,
    "fp8_128x128": fp8_128x128,
}

_KERNELS = {"mx_rows_floor": _mx_rows_kernel, "mx_rows_rceil": _mx_rows_kernel,
            "mx_cols": _mx_cols_kernel, "mx_experts": _mx_cols_kernel,
            "fp8_1x128": _fp8_1x128_kernel, "fp8_128x128": _fp8_128x128_kernel}


def best_config(key):
    """The configuration the autotuner chose at the last call of PEERS[key]."""
    cfg = getattr(_KERNELS[key], "best_config", None)
    return None if cfg is None else f"{cfg.kwargs} num_warps={cfg.num_warps}"
