#!/usr/bin/env python3
"""fpxc quantize-kernel benchmark on one GPU (issue 4 "Benchmarks", issue 5 launch overhead).

    bench/quantize/build_artifacts.sh --cubin        # on the machine with fpxc
    python3 bench/quantize/bench_quantize.py [--artifacts .art/sm_90a] [--out DIR] [--quick]

What it measures, all in one process on one GPU (see bench/README.md):
  * the device-to-device copy bandwidth of a 1 GiB buffer (bytes read + written),
  * every fpxc kernel of --artifacts through fpx.load(...), timed with CUDA events
    (median over many repetitions after warm-up and --settle-s seconds of untimed
    calls, rotating >= 3 input buffers so the 50 MB L2 does not serve the reads),
    timed twice, bytes = input + output data + scales,
  * the same-run peers a user has: a torch.compile'd plain-PyTorch reference of
    the same cast (torchao-style; torchao is not installed on the GPU machine),
    the same reference run eagerly, and torch's own eager casts,
  * correctness: every fpxc output against the eager reference (exact bytes) on
    fresh random inputs with poisoned outputs, and against fpx's CPU numerics
    core (fpx.quantize on a CPU tensor) on a small input,
  * launch overhead from Python (10k launches) and fpx.load on a warm cache.
Prints one table last; writes results.json, results.md and results.png to --out.

torch, numpy and matplotlib are imported inside main() so that the file can
be imported and syntax-checked on a machine without them.
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
import weakref
import zlib
from pathlib import Path

import host_timing  # bench/quantize/host_timing.py (this script's folder is on sys.path)

REPO = Path(__file__).resolve().parents[2]

SHAPES_2D = [(16384, 8192), (131072, 7168)]
# (E, N, K) expert weights, quantized as (E*N, K) along rows (issue 4's 3D shapes;
# the 32x1 column-block lowering is not there yet).
SHAPES_3D = [(1, 8192, 5120), (8, 8192, 5120), (64, 2048, 7168), (128, 1536, 7168)]
QUICK_2D = [(2048, 4096)]
QUICK_3D = [(4, 512, 2048)]
NUMERICS_SHAPE = (256, 2048)      # small input checked against the CPU numerics core
L2_BYTES = 50 * 2**20
FLT_MAX = 3.4028234663852886e38
RS_SEED = 1234
HADAMARD_SEED = 5

torch = None  # set by _import_torch()
DEVICE = "cuda"  # dryrun_cpu.py sets "cpu"


def _import_torch():
    global torch
    import torch as _torch
    torch = _torch


# ----------------------------------------------------------------------------
# Reference casts in plain PyTorch (bit-exact with docs/formats.md where the
# definition is the same). Each is used eagerly and through torch.compile.
# Scale codes (e8m0) are returned as uint8; compare everything as raw bytes.
# ----------------------------------------------------------------------------

# element format: (exponent bits, mantissa bits, emax, largest finite value)
ELEM = {"e4m3": (4, 3, 8, 448.0), "e5m2": (5, 2, 15, 57344.0), "e2m3": (2, 3, 2, 7.5),
        "e3m2": (3, 2, 4, 28.0), "e2m1": (2, 1, 2, 6.0)}
FP8_DTYPE = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}


def _pow2_biased(c):
    """fp32 2^(c - 127) for an int32 tensor c in [0, 254] (c = 0 -> 2^-127)."""
    c = c.to(torch.int32)
    bits = torch.where(c == 0, 0x400000, c << 23)
    return bits.view(torch.float32)


def e8m0_floor(amax, emax):
    """OCP floor rule: e = floor(log2(amax)) - emax, clamped to [-127, 127]."""
    b = amax.view(torch.int32)
    exp = (b >> 23) & 0xFF
    mant = b & 0x7FFFFF
    code = (exp - emax).clamp(0, 254)
    code = torch.where(exp == 255, 254 + (mant != 0).to(torch.int32), code)
    return code


def e8m0_rceil(amax, fmax):
    """NVIDIA rceil: ceil(log2(fl(amax / max))), cvt.rp.satfinite.ue8m0."""
    q = amax / torch.full_like(amax, fmax)
    b = q.view(torch.int32)
    exp = (b >> 23) & 0xFF
    mant = b & 0x7FFFFF
    code = exp + (mant != 0).to(torch.int32)
    code = torch.where(exp == 0, (mant > 0x400000).to(torch.int32), code)
    code = code.clamp(max=254)
    code = torch.where((exp == 255) & (mant != 0), 255, code)
    return code


def encode_small(y, ebits, mbits, fmax):
    """fp32 -> codes of a sign/exponent/mantissa format without inf/NaN
    (e2m3, e2m1): round to nearest even, saturating; NaN -> +max."""
    bias = (1 << (ebits - 1)) - 1
    maxcode = (1 << (ebits + mbits)) - 1
    sign = ((y.view(torch.int32) >> 31) & 1).to(torch.uint8) << (ebits + mbits)
    nan = torch.isnan(y)
    a = torch.where(nan, 0.0, y.abs()).clamp(max=fmax)
    e = ((a.view(torch.int32) >> 23) & 0xFF) - 127
    e = e.clamp(min=1 - bias)
    n = torch.round(a * _pow2_biased(mbits - e + 127))   # exact scaling, RN-even
    code = ((e + bias - 1) << mbits) + n.to(torch.int32)
    code = code.clamp(max=maxcode).to(torch.uint8) | sign
    return torch.where(nan, maxcode, code).to(torch.uint8)


def pack_fp4x2(codes):
    """element 2k in the low nibble of byte k."""
    c = codes.view(codes.shape[0], -1, 2)
    return c[..., 0] | (c[..., 1] << 4)


def pack_fp6_4p2(codes):
    """fpx's "planes" fp6 layout (formerly "4+2"): per row K/4 bytes of 2-bit high parts, then K/2 bytes of
    4-bit low parts."""
    m = codes.shape[0]
    hi = ((codes >> 4) & 3).view(m, -1, 4)
    hib = hi[..., 0] | (hi[..., 1] << 2) | (hi[..., 2] << 4) | (hi[..., 3] << 6)
    lo = (codes & 0xF).view(m, -1, 2)
    lob = lo[..., 0] | (lo[..., 1] << 4)
    return torch.cat([hib, lob], dim=1)


def pack_fp6_interleaved(codes):
    """torchao PR #1810's fp6 4+2 (pack_uint6_pytorch): codes c0..c3 -> 3 bytes
    c0[5:2]c1[5:2], c3[5:2]c2[5:2], c0[1:0]c1[1:0]c3[1:0]c2[1:0]."""
    c = codes.view(codes.shape[0], -1, 4)
    c0, c1, c2, c3 = c[..., 0], c[..., 1], c[..., 2], c[..., 3]
    b0 = ((c0 >> 2) << 4) | (c1 >> 2)
    b1 = ((c3 >> 2) << 4) | (c2 >> 2)
    b2 = ((c0 & 3) << 6) | ((c1 & 3) << 4) | ((c3 & 3) << 2) | (c2 & 3)
    return torch.stack([b0, b1, b2], -1).view(codes.shape[0], -1)


def to_blocked(s):
    """Row-major scales [R, C] -> the blocked 128x4 layout, padded with 0."""
    r, c = s.shape
    rp, cp = -(-r // 128) * 128, -(-c // 4) * 4
    if (rp, cp) != (r, c):
        s = torch.nn.functional.pad(s, (0, cp - c, 0, rp - r))
    return s.view(rp // 128, 4, 32, cp // 4, 4).permute(0, 3, 2, 1, 4).reshape(rp, cp)


def ref_mx(x, elem, rule, blocked=False, fp6=pack_fp6_4p2):
    """MX cast along rows, 1x32 blocks, e8m0 scales (torchao to_mx style)."""
    m, k = x.shape
    ebits, mbits, emax, fmax = ELEM[elem]
    xf = x.float().view(m, k // 32, 32)
    amax = xf.abs().amax(dim=-1)
    code = e8m0_floor(amax, emax) if rule == "floor" else e8m0_rceil(amax, fmax)
    inv = torch.where(code == 255, float("nan"), _pow2_biased(254 - code.clamp(max=254)))
    y = xf * inv.unsqueeze(-1)                         # fl(x * 2^-e), exact
    if elem in FP8_DTYPE:
        data = y.clamp(-fmax, fmax).to(getattr(torch, FP8_DTYPE[elem])).view(m, k)
    else:
        codes = encode_small(y, ebits, mbits, fmax).view(m, k)
        data = pack_fp4x2(codes) if elem == "e2m1" else fp6(codes)
    scales = code.to(torch.uint8)
    if blocked:
        scales = to_blocked(scales)
    return data, scales


def ref_nvfp4(x):
    """NVFP4: g = amax_t / 2688, ue4m3 block scales of 1x16, e2m1 codes fp4x2.
    Returns (codes, scales, amax_t) like the fpxc function."""
    m, k = x.shape
    xf = x.float()
    amax_t = xf.abs().amax()
    at = amax_t.clamp(max=FLT_MAX)
    g = at / torch.full_like(at, 2688.0)
    g = torch.where(at == 0, 1.0, g)
    g = torch.where((g == 0) & (at > 0), 2.0**-149, g)
    xb = xf.view(m, k // 16, 16)
    bm = xb.abs().amax(dim=-1)
    t = (bm / torch.full_like(bm, 6.0)) / g
    sc = t.clamp(max=448.0).to(torch.float8_e4m3fn)
    s = (sc.float() * g).unsqueeze(-1)
    y = torch.where(s == 0, xb * 0.0, xb / s)
    codes = encode_small(y, 2, 1, 6.0).view(m, k)
    return pack_fp4x2(codes), sc, amax_t


def _fp32_scale(amax, fmax):
    a = amax.clamp(max=FLT_MAX)
    # A tensor divisor: torch turns division by a Python scalar into a
    # multiplication by its reciprocal, which is not fl(a / max).
    s = a / torch.full_like(a, fmax)
    s = torch.where(a == 0, 1.0, s)
    return torch.where((s == 0) & (a > 0), 2.0**-149, s)


def ref_fp8_tensor(x):
    """Per-tensor fp8: s = amax / 448, q = e4m3(x / s) (satfinite)."""
    xf = x.float()
    s = _fp32_scale(xf.abs().amax(), 448.0)
    q = (xf / s).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q, s.reshape(1, 1)


def ref_fp8_1x128(x):
    m, k = x.shape
    xb = x.float().view(m, k // 128, 128)
    s = _fp32_scale(xb.abs().amax(dim=-1), 448.0)
    q = (xb / s.unsqueeze(-1)).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q.view(m, k), s


def ref_nvfp4_16x16(x):
    """NVFP4 with 16x16 blocks (weights): as ref_nvfp4, amax per 2-D block."""
    m, k = x.shape
    xf = x.float()
    amax_t = xf.abs().amax()
    at = amax_t.clamp(max=FLT_MAX)
    g = at / torch.full_like(at, 2688.0)
    g = torch.where(at == 0, 1.0, g)
    g = torch.where((g == 0) & (at > 0), 2.0**-149, g)
    xb = xf.view(m // 16, 16, k // 16, 16)
    bm = xb.abs().amax(dim=(1, 3))
    t = (bm / torch.full_like(bm, 6.0)) / g
    sc = t.clamp(max=448.0).to(torch.float8_e4m3fn)
    s = (sc.float() * g)[:, None, :, None]
    y = torch.where(s == 0, xb * 0.0, xb / s)
    codes = encode_small(y, 2, 1, 6.0).view(m, k)
    return pack_fp4x2(codes), sc, amax_t


def ref_fp8_128x128(x):
    m, k = x.shape
    xb = x.float().view(m // 128, 128, k // 128, 128)
    s = _fp32_scale(xb.abs().amax(dim=(1, 3)), 448.0)
    q = (xb / s[:, None, :, None]).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q.view(m, k), s


def ref_fp8_rowwise(x):
    """Rowwise fp8 (one scale per row, torch._scaled_mm's rowwise recipe)."""
    xf = x.float()
    s = _fp32_scale(xf.abs().amax(dim=-1, keepdim=True), 448.0)
    q = (xf / s).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return q, s


def ref_mx_cols(x, elem="e4m3", rule="floor"):
    """MXFP8 in 32x1 blocks of (M, K), written transposed (K, M): the row
    cast of x^T (the transpose materialised, as a user without fpxc does it)."""
    return ref_mx(x.t().contiguous(), elem, rule)


def ref_nvfp4_cols(x):
    """NVFP4 in 16x1 blocks of (M, K), written transposed: codes (K, M/2),
    scales (K, M/16), the tensor amax; the row cast of x^T."""
    return ref_nvfp4(x.t().contiguous())


def ref_mx_experts(w):
    """(E, N, K) expert weights, 32x1 blocks along N, per-expert (E, K, N)."""
    e, n, k = w.shape
    q, s = ref_mx(w.transpose(1, 2).contiguous().view(e * k, n), "e4m3", "floor")
    return q.view(e, k, n), s.view(e, k, n // 32)


def eager_cast_e4m3(x):
    """torch's own eager cast, unscaled (a lower bound on a cast's cost)."""
    return x.to(torch.float8_e4m3fn)


# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------

def _cdiv(a, b):
    return -(-a // b)


class Case:
    def __init__(self, name, ref, out_bytes, numerics, shapes=("2d",), peers=(), note="",
                 numerics_shape=None, transposed=False, amax_from=None, rn_ref=None,
                 records_amax=False):
        self.name = name            # artifact stem and function name
        self.ref = ref              # eager reference of the same function, or None
        self.out_bytes = out_bytes  # (M, K) of the 2D view -> bytes written (data + scales)
        self.numerics = numerics    # fpx.quantize kwargs for the CPU numerics core
        self.shapes = shapes        # "2d": SHAPES_2D; "3d-flat": (E*N, K); "3d": (E, N, K)
        self.peers = list(peers)    # extra (peer name, fn key, same function?)
        self.note = note
        self.numerics_shape = numerics_shape or NUMERICS_SHAPE
        self.transposed = transposed  # outputs are the transpose of the CPU core's
        # The function takes the tensor amax as its second input: "abs" (of x)
        # or the name of a case whose function returns it as its last output.
        self.amax_from = amax_from
        # Delayed scaling: the last output is the amax of this input, which
        # must equal the amax the case was given (amax_from: of the same x).
        self.records_amax = records_amax
        # Stochastic-rounding cases (ref None): the rn reference whose scales
        # (and amax) an rs cast must reproduce; default NVFP4's.
        self.rn_ref = rn_ref


def triton_peer(key):
    """A hand-written Triton kernel of the same function (triton_peers.PEERS[key])."""
    return ("Triton (torchao-style, autotuned)", "triton:" + key, True)


CASES = [
    Case("mxfp8_e4m3_floor", lambda x: ref_mx(x, "e4m3", "floor"),
         lambda m, k: m * k + m * k // 32,
         dict(format="mxfp8_e4m3", block=(1, 32), rule="floor"), shapes=("2d", "3d-flat"),
         peers=[triton_peer("mx_rows_floor")]),
    Case("mxfp8_e4m3_cols", ref_mx_cols,
         lambda m, k: m * k + m * k // 32,
         dict(format="mxfp8_e4m3", block=(32, 1), rule="floor"), transposed=True,
         peers=[triton_peer("mx_cols")]),
    Case("mxfp8_e4m3_experts", ref_mx_experts,
         lambda m, k: m * k + m * k // 32,
         dict(format="mxfp8_e4m3", block=(32, 1), rule="floor"), shapes=("3d",),
         numerics_shape=(2, 128, 512), transposed=True,
         peers=[triton_peer("mx_experts")]),
    Case("mxfp8_e4m3_rceil", lambda x: ref_mx(x, "e4m3", "rceil"),
         lambda m, k: m * k + m * k // 32,
         dict(format="mxfp8_e4m3", block=(1, 32), rule="rceil"),
         peers=[triton_peer("mx_rows_rceil")]),
    Case("mxfp8_e5m2_rceil", lambda x: ref_mx(x, "e5m2", "rceil"),
         lambda m, k: m * k + m * k // 32,
         dict(format="mxfp8_e5m2", block=(1, 32), rule="rceil")),
    Case("mxfp8_e5m2_cols", lambda x: ref_mx_cols(x, "e5m2", "floor"),
         lambda m, k: m * k + m * k // 32,
         dict(format="mxfp8_e5m2", block=(32, 1), rule="floor"), transposed=True),
    Case("mxfp8_e4m3_cols_rceil", lambda x: ref_mx_cols(x, "e4m3", "rceil"),
         lambda m, k: m * k + m * k // 32,
         dict(format="mxfp8_e4m3", block=(32, 1), rule="rceil"), transposed=True),
    Case("mxfp8_e4m3_rceil_blocked", lambda x: ref_mx(x, "e4m3", "rceil", blocked=True),
         lambda m, k: m * k + _cdiv(m, 128) * 128 * _cdiv(k // 32, 4) * 4,
         dict(format="mxfp8_e4m3", block=(1, 32), rule="rceil", scale_layout="blocked")),
    Case("mxfp6_e2m3_4p2", lambda x: ref_mx(x, "e2m3", "floor"),
         lambda m, k: m * k * 3 // 4 + m * k // 32,
         dict(format="mxfp6_e2m3", block=(1, 32), rule="floor", packing="planes")),
    Case("mxfp6_e3m2_4p2", lambda x: ref_mx(x, "e3m2", "floor"),
         lambda m, k: m * k * 3 // 4 + m * k // 32,
         dict(format="mxfp6_e3m2", block=(1, 32), rule="floor", packing="planes")),
    Case("mxfp6_e2m3_interleaved", lambda x: ref_mx(x, "e2m3", "floor", fp6=pack_fp6_interleaved),
         lambda m, k: m * k * 3 // 4 + m * k // 32,
         dict(format="mxfp6_e2m3", block=(1, 32), rule="floor", packing="interleaved")),
    Case("mxfp6_e3m2_interleaved", lambda x: ref_mx(x, "e3m2", "floor", fp6=pack_fp6_interleaved),
         lambda m, k: m * k * 3 // 4 + m * k // 32,
         dict(format="mxfp6_e3m2", block=(1, 32), rule="floor", packing="interleaved")),
    Case("mxfp4_e2m1", lambda x: ref_mx(x, "e2m1", "floor"),
         lambda m, k: m * k // 2 + m * k // 32,
         dict(format="mxfp4", block=(1, 32), rule="floor", packing="fp4x2"),
         peers=[triton_peer("mxfp4_rows")]),
    Case("mxfp4_cols", lambda x: ref_mx_cols(x, "e2m1", "floor"),
         lambda m, k: m * k // 2 + m * k // 32,
         dict(format="mxfp4", block=(32, 1), rule="floor", packing="fp4x2"), transposed=True),
    Case("mxfp4_rs", None,
         lambda m, k: m * k // 2 + m * k // 32,
         dict(format="mxfp4", block=(1, 32), rule="floor", packing="fp4x2",
              rounding="rs", seed=RS_SEED),
         peers=[("torch.compile mxfp4 rn (torch has no rs)", "compile:mxfp4_e2m1", False)],
         rn_ref=lambda x: ref_mx(x, "e2m1", "floor"),
         note="stochastic rounding in one pass (E8M0 scales need no tensor amax)"),
    Case("nvfp4", ref_nvfp4,
         lambda m, k: m * k // 2 + m * k // 16 + 4,
         dict(format="nvfp4"), peers=[triton_peer("nvfp4")]),
    Case("nvfp4_16x1", ref_nvfp4_cols,
         lambda m, k: m * k // 2 + m * k // 16 + 4,
         dict(format="nvfp4", block=(16, 1)), transposed=True,
         note="NVFP4 along columns (16x1), written transposed: the amax pass, then the cast"),
    Case("nvfp4_16x1_cast", ref_nvfp4_cols,
         lambda m, k: m * k // 2 + m * k // 16,
         dict(format="nvfp4", block=(16, 1)), amax_from="abs", transposed=True,
         note="the cast pass of nvfp4_16x1 alone: the tensor amax is an input"),
    Case("nvfp4_rs", None,
         lambda m, k: m * k // 2 + m * k // 16 + 4,
         dict(format="nvfp4", rounding="rs", seed=RS_SEED),
         peers=[triton_peer("nvfp4"),
                ("torch.compile nvfp4 rn (torch has no rs)", "compile:nvfp4", False)],
         note="stochastic rounding: checked against the numerics core, for "
              "repeatability per seed and for rn-identical scales"),
    Case("nvfp4_cast", ref_nvfp4,
         lambda m, k: m * k // 2 + m * k // 16,
         dict(format="nvfp4"), amax_from="abs", peers=[triton_peer("nvfp4")],
         note="the cast pass of nvfp4 alone: the tensor amax is an input"),
    Case("nvfp4_rs_cast", None,
         lambda m, k: m * k // 2 + m * k // 16,
         dict(format="nvfp4", rounding="rs", seed=RS_SEED), amax_from="abs",
         peers=[triton_peer("nvfp4"),
                ("torch.compile nvfp4 rn (torch has no rs)", "compile:nvfp4", False)],
         note="the cast pass of nvfp4_rs alone: the tensor amax is an input"),
    Case("nvfp4_rht_rs", None,
         lambda m, k: m * k // 2 + m * k // 16 + 4,
         dict(format="nvfp4", rounding="rs", seed=RS_SEED, hadamard=16, hadamard_seed=HADAMARD_SEED),
         peers=[triton_peer("nvfp4")],
         note="16-point random Hadamard transform fused into the amax and cast "
              "passes, stochastic rounding"),
    Case("nvfp4_rht_rs_cast", None,
         lambda m, k: m * k // 2 + m * k // 16,
         dict(format="nvfp4", rounding="rs", seed=RS_SEED, hadamard=16, hadamard_seed=HADAMARD_SEED),
         amax_from="nvfp4_rht_rs", peers=[triton_peer("nvfp4")],
         note="the cast pass of nvfp4_rht_rs alone: the amax of the transform is an input"),
    Case("fp8_per_tensor", ref_fp8_tensor,
         lambda m, k: m * k + 4,
         dict(format="fp8_e4m3", block=(None, None)),
         peers=[triton_peer("fp8_per_tensor"),
                ("torch eager x.to(e4m3), unscaled", "eager_cast", False)]),
    Case("fp8_per_tensor_delayed", lambda x: (*ref_fp8_tensor(x), x.float().abs().amax()),
         lambda m, k: m * k + 4 + 4,
         dict(format="fp8_e4m3", block=(None, None)), amax_from="abs", records_amax=True,
         peers=[("torch eager x.to(e4m3), unscaled", "eager_cast", False)],
         note="delayed scaling: cast from a given amax, this input's amax "
              "returned (fused: one read)"),
    Case("nvfp4_delayed", ref_nvfp4,
         lambda m, k: m * k // 2 + m * k // 16 + 4,
         dict(format="nvfp4"), amax_from="abs", records_amax=True,
         note="delayed scaling: cast from a given amax, this input's amax "
              "returned (fused: one read)"),
    Case("nvfp4_rht_rs_delayed", None,
         lambda m, k: m * k // 2 + m * k // 16 + 4,
         dict(format="nvfp4", rounding="rs", seed=RS_SEED, hadamard=16, hadamard_seed=HADAMARD_SEED),
         amax_from="nvfp4_rht_rs", records_amax=True,
         note="delayed scaling of Hadamard 16 + NVFP4 + rs: the amax of the "
              "transform returned (fused: one read)"),
    Case("fp8_1x128", ref_fp8_1x128,
         lambda m, k: m * k + m * (k // 128) * 4,
         dict(format="fp8_e4m3", block=(1, 128)),
         peers=[triton_peer("fp8_1x128"),
                ("torch.compile fp8 rowwise (1 scale/row)", "compile:rowwise", False)]),
    Case("fp8_128x1_cols", lambda x: ref_fp8_1x128(x.t().contiguous()),
         lambda m, k: m * k + (m // 128) * k * 4,
         dict(format="fp8_e4m3", block=(128, 1)), transposed=True,
         note="128x1 blocks, f32 scales, written transposed (the 1x128 cast of x^T)"),
    Case("fp8_per_row", ref_fp8_rowwise,
         lambda m, k: m * k + m * 4,
         dict(format="fp8_e4m3", block=(1, None)),
         peers=[triton_peer("fp8_rowwise")],
         note="one fp32 scale a row, read once (the row stays in registers)"),
    Case("nvfp4_16x16", ref_nvfp4_16x16,
         lambda m, k: m * k // 2 + (m // 16) * (k // 16) + 4,
         dict(format="nvfp4", block=(16, 16))),
    Case("nvfp4_16x16_cast", ref_nvfp4_16x16,
         lambda m, k: m * k // 2 + (m // 16) * (k // 16),
         dict(format="nvfp4", block=(16, 16)), amax_from="abs",
         note="the cast pass of nvfp4_16x16 alone: the tensor amax is an input"),
    Case("fp8_128x128", ref_fp8_128x128,
         lambda m, k: m * k + (m // 128) * (k // 128) * 4,
         dict(format="fp8_e4m3", block=(128, 128)),
         peers=[triton_peer("fp8_128x128")]),
]

REFS = {c.name: c.ref for c in CASES if c.ref is not None}  # fn key -> eager function
REFS.update(rowwise=ref_fp8_rowwise, eager_cast=eager_cast_e4m3)


# ----------------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------------

class Timer:
    """CUDA-event timing of fn(x) rotating over inputs. Each batch of
    repetitions is queued behind a spin kernel (torch.cuda._sleep) long enough
    for the host to enqueue the whole batch, so the events time the GPU work of
    each call and not the host's launch gaps."""

    def __init__(self):
        self.cycles_per_ms = None

    def calibrate(self):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(1000)
        s.record()
        torch.cuda._sleep(20_000_000)
        e.record()
        torch.cuda.synchronize()
        self.cycles_per_ms = 20_000_000 / max(s.elapsed_time(e), 1e-3)

    def run(self, fn, inputs, warmup=3, reps=None, target_s=0.25, max_reps=200, min_reps=5,
            settle_s=0.0):
        n = len(inputs)
        host = 0.0
        for i in range(warmup):
            t0 = time.perf_counter()
            fn(inputs[i % n])
            host = time.perf_counter() - t0
        torch.cuda.synchronize()
        # then keep calling for settle_s seconds: after a case of large shapes
        # the first timing of a small one measured up to 15% slow for its
        # whole 200 calls, its repeat right after not (H100, cause not
        # established; docs/results/experts.md, session 2026-11-24-h100-14)
        t_end = time.perf_counter() + settle_s
        i = warmup
        while time.perf_counter() < t_end:
            for _ in range(8):
                fn(inputs[i % n])
                i += 1
            torch.cuda.synchronize()
        # one timed call to size the repetitions
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn(inputs[0])
        e.record()
        torch.cuda.synchronize()
        est_ms = max(s.elapsed_time(e), 1e-3)
        if reps is None:
            reps = int(min(max_reps, max(min_reps, target_s * 1e3 / est_ms)))
        batch = max(1, min(reps, 25))
        times = []
        i = 0
        while len(times) < reps:
            b = min(batch, reps - len(times))
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(b)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(b)]
            sleep_ms = min(200.0, b * (host * 1e3 * 1.5 + 0.05) + 0.5)
            torch.cuda._sleep(int(sleep_ms * self.cycles_per_ms))
            for j in range(b):
                x = inputs[i % n]
                i += 1
                starts[j].record()
                fn(x)
                ends[j].record()
            torch.cuda.synchronize()
            times += [st.elapsed_time(en) for st, en in zip(starts, ends)]
        times.sort()
        return {"median_ms": statistics.median(times), "min_ms": times[0],
                "p10_ms": times[len(times) // 10], "p90_ms": times[(len(times) * 9) // 10],
                "reps": len(times), "host_call_us": host * 1e6}


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

def _bytes_of(t):
    return t.numel() * t.element_size()


def _raw(t):
    """A tensor's bytes as a flat uint8 tensor."""
    t = t.contiguous()
    return t.reshape(-1).view(torch.uint8) if t.dim() else t.reshape(1).view(torch.uint8)


def _mismatch(a, b):
    """Number of differing bytes (or a string when the sizes differ)."""
    ra, rb = _raw(a), _raw(b)
    if ra.numel() != rb.numel():
        return f"size {tuple(a.shape)}/{a.dtype} vs {tuple(b.shape)}/{b.dtype}"
    return int((ra != rb).sum().item())


def _short(exc):
    msg = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {msg[0][:300] if msg else ''}"


def make_input(shape, seed):
    """Random bf16 with per-row magnitudes 2^-6..2^6 (never zeros)."""
    g = torch.Generator(device=DEVICE)
    g.manual_seed(seed)
    x = torch.randn(*shape, device=DEVICE, dtype=torch.bfloat16, generator=g)
    e = torch.randint(-6, 7, tuple(shape[:-1]) + (1,), device=DEVICE, generator=g)
    return x.mul_(torch.exp2(e.to(torch.bfloat16)))


class WithAmax:
    """An fpx function taking (x, amax, *scalars) called as (x, *scalars):
    the amax of each input tensor is computed once, on first use (during the
    timer's warm-up), by `amax_of`, and reused."""

    def __init__(self, kfn, amax_of):
        self._kfn = kfn
        self._amax_of = amax_of
        self._cache = {}  # id(x) -> (weakref to x, amax)
        self.scalars = kfn.scalars
        self.inputs = kfn.inputs[:1]
        self.outputs = kfn.outputs
        self._out_dtypes = kfn._out_dtypes
        self.name = kfn.name

    def output_shapes(self, shape):
        return self._kfn.output_shapes(shape, [])

    def given_amax(self, x):
        """The amax passed with x."""
        hit = self._cache.get(id(x))
        if hit is not None and hit[0]() is x:
            return hit[1]
        a = self._amax_of(x)
        self._cache[id(x)] = (weakref.ref(x), a)
        return a

    def __call__(self, x, *scal, out=None):
        a = self.given_amax(x)
        return self._kfn(x, a, *scal, out=out) if out is not None else self._kfn(x, a, *scal)


def poisoned_outputs(kfn, shape):
    outs = []
    for s, (_, word) in zip(kfn.output_shapes(shape), kfn.outputs):
        dt = kfn._out_dtypes[len(outs)]
        t = torch.empty(s, dtype=dt, device=DEVICE)
        _raw_view = t.view(torch.uint8) if t.dim() else t.reshape(1).view(torch.uint8)
        _raw_view.fill_(0x7F if word != "f32" else 0xFF)
        outs.append(t)
    return outs


def shape_label(shape, e=None):
    dims = "x".join(str(d) for d in shape)
    if len(shape) == 3:
        return f"E={shape[0]} ({dims})"
    return dims if e is None else f"E={e} ({dims})"


# ----------------------------------------------------------------------------
# The benchmark
# ----------------------------------------------------------------------------

class Bench:
    def __init__(self, args):
        self.args = args
        self.t_start = time.perf_counter()
        self.timer = Timer()
        self.rows = []          # one per (case, shape, peer)
        self.checks = []        # correctness results
        self.errors = []
        self.extra = {}
        self.artifacts = {}
        self.compiled = {}      # fn key -> compiled callable or exception
        self.compiled_shapes = set()  # (fn key, shape) already compiled
        self.copy_gbs = None
        self.copy_same = {}   # bytes of half a transfer -> GB/s of copying them

    def elapsed(self):
        return time.perf_counter() - self.t_start

    def log(self, msg):
        print(f"[{self.elapsed():6.1f}s] {msg}", flush=True)

    def error(self, where, exc, tb=True):
        msg = _short(exc)
        self.errors.append({"where": where, "error": msg})
        self.log(f"ERROR {where}: {msg}")
        if tb and self.args.verbose:
            traceback.print_exc()

    # -- inputs ---------------------------------------------------------------
    def inputs_for(self, shape, seed):
        per = math.prod(shape) * 2
        n = max(3, min(8, _cdiv(4 * L2_BYTES, per)))
        return [make_input(shape, seed + i) for i in range(n)]

    # -- copy bandwidth ---------------------------------------------------------
    def copy_bandwidth(self):
        nbytes = 2**30 if not self.args.quick else 2**28
        src = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device=DEVICE)
        dst = torch.empty_like(src)
        r = self.timer.run(lambda x: dst.copy_(x), [src], warmup=3, reps=30 if not self.args.quick else 10)
        self.copy_gbs = 2 * nbytes / (r["median_ms"] * 1e-3) / 1e9
        self.extra["copy"] = dict(r, bytes=2 * nbytes, gbs=self.copy_gbs)
        self.log(f"device-to-device copy {nbytes >> 20} MiB: {r['median_ms'] * 1e3:.1f} us, "
                 f"{self.copy_gbs:.0f} GB/s (read + write)")
        del src, dst

    def copy_same_size(self, nbytes):
        """GB/s of a device-to-device copy moving the same bytes as a cast
        (read + write = nbytes), sources rotated like the cast's inputs: the
        ceiling a kernel of this size can reach, launch and tail included."""
        half = max(nbytes // 2, 1)
        if half not in self.copy_same:
            n = max(3, min(8, _cdiv(4 * L2_BYTES, half)))
            srcs = [torch.randint(0, 256, (half,), dtype=torch.uint8, device=DEVICE)
                    for _ in range(n)]
            dst = torch.empty_like(srcs[0])
            r = self.timer.run(lambda x: dst.copy_(x), srcs)
            self.copy_same[half] = 2 * half / (r["median_ms"] * 1e-3) / 1e9
            del srcs, dst
        return self.copy_same[half]

    # -- artifacts ---------------------------------------------------------------
    def load_artifacts(self, fpxc):
        d = Path(self.args.artifacts)
        info = {}
        # the cases asked for (--cases), and the full functions whose amax
        # pass their cast-only cases reuse
        names = set(self.args.cases.split(",")) if self.args.cases else {c.name for c in CASES}
        names |= {c.amax_from for c in CASES if c.name in names and c.amax_from not in (None, "abs")}
        for c in CASES:
            if c.name not in names:
                continue
            path = d / f"{c.name}.json"
            if not path.exists():
                self.error(f"load {c.name}", FileNotFoundError(f"no artifact {path} "
                           "(run bench/quantize/build_artifacts.sh)"), tb=False)
                continue
            try:
                t0 = time.perf_counter()
                art = fpxc.load(path)
                t1 = time.perf_counter()
                art.preload()          # cubin load, or the driver's PTX JIT
                torch.cuda.synchronize()
                t2 = time.perf_counter()
                fn = art.functions[c.name]
                if c.amax_from == "abs":
                    fn = WithAmax(fn, lambda x: x.abs().amax().float())
                elif c.amax_from:
                    full = self.artifacts[c.amax_from]
                    fn = WithAmax(fn, lambda x, full=full: full(x, RS_SEED)[-1])
                self.artifacts[c.name] = fn
                info[c.name] = {"load_us": (t1 - t0) * 1e6, "preload_ms": (t2 - t1) * 1e3}
            except Exception as exc:  # noqa: BLE001
                self.error(f"load {c.name}", exc)
        self.extra["artifact_load"] = info
        for f in ("COMMIT", "FPXC_VERSION"):
            p = d / f
            if p.exists():
                self.extra[f.lower()] = p.read_text().strip()

    def triton_fn(self, key, case, kfn):
        """triton_peers.PEERS[key] called as the case's fpxc function is: with
        the case's seeds, and for a cast given its amax (amax_from) with the
        amax fpxc's function is given (kfn.given_amax); or the exception
        getting it raised."""
        try:
            import triton_peers  # bench/quantize/triton_peers.py
            peer = triton_peers.PEERS[key]
            kw = {k: case.numerics[k] for k in ("seed", "hadamard_seed") if k in case.numerics}
            if case.amax_from:
                if kfn is None:
                    raise RuntimeError("no fpxc function to give the peer its amax")
                return lambda x: peer(x, amax_t=kfn.given_amax(x), **kw)
            return (lambda x: peer(x, **kw)) if kw else peer
        except Exception as exc:  # noqa: BLE001
            return exc

    def compiled_fn(self, key, dynamic=False):
        ck = (key, dynamic)
        if ck not in self.compiled:
            self.compiled[ck] = torch.compile(REFS[key], dynamic=dynamic)
        return self.compiled[ck]

    # -- correctness -----------------------------------------------------------
    def check_case(self, case, kfn, shape, seed):
        """fpxc vs the eager reference, exact bytes, fresh input, poisoned outputs."""
        x = make_input(shape, seed)
        outs = poisoned_outputs(kfn, list(shape))
        scal = (RS_SEED,) if kfn.scalars else ()
        kfn(x, *scal, out=outs)
        torch.cuda.synchronize()
        res = {"case": case.name, "shape": shape_label(shape), "against": "eager reference"}
        # the amax a delayed-scaling cast returns: that of the x it was given
        # the amax of
        recorded = ({"recorded_amax_vs_given": _mismatch(outs[-1], kfn.given_amax(x))}
                    if case.records_amax else {})
        if case.ref is not None:
            ref = case.ref(x)
            bad = {f"out{i}": _mismatch(o, r) for i, (o, r) in enumerate(zip(outs, ref))}
            bad.update(recorded)
            res["mismatched_bytes"] = bad
            res["ok"] = all(v == 0 for v in bad.values())
        else:  # stochastic rounding (nvfp4_rs, the Hadamard cases)
            again = poisoned_outputs(kfn, list(shape))
            kfn(x, RS_SEED, out=again)
            other = kfn(x, RS_SEED + 1)
            rn = (case.rn_ref or ref_nvfp4)(x)
            bad = {"repeat_same_seed": sum(_mismatch(a, b) for a, b in zip(outs, again))}
            bad.update(recorded)
            if "hadamard" not in case.numerics:
                bad.update(scales_vs_rn_ref=_mismatch(outs[1], rn[1]))
                if len(outs) > 2:
                    bad.update(amax_vs_rn_ref=_mismatch(outs[2], rn[2]))
            ndiff = _mismatch(outs[0], other[0])
            frac_rn = 1.0 - _mismatch(outs[0], rn[0]) / max(1, _bytes_of(outs[0]))
            res.update(mismatched_bytes=bad, bytes_changed_by_new_seed=ndiff,
                       bytes_equal_to_rn=round(frac_rn, 4))
            res["ok"] = all(v == 0 for v in bad.values()) and ndiff > 0
        del x, outs
        return res

    def check_numerics(self, case, kfn, fpxc, seed):
        """fpxc on the GPU vs fpx's CPU numerics core, small input, exact."""
        shape = case.numerics_shape
        x = make_input(shape, seed)
        scal = (RS_SEED,) if kfn.scalars else ()
        outs = kfn(x, *scal, out=poisoned_outputs(kfn, list(shape)))
        if case.transposed:
            # fpxc writes (K, M) data; fpx.quantize's column blocks return the
            # (M, K) view of the same column-major bytes, and scales (K, M/32)
            # as the kernel does (docs/runtime.md).
            outs = [outs[0].transpose(-1, -2)] + list(outs[1:])
        q = fpxc.quantize(x.cpu(), **case.numerics)
        bad = {"data": _mismatch(outs[0].cpu(), q.data), "scales": _mismatch(outs[1].cpu(), q.scales)}
        if case.name.startswith("nvfp4") and len(outs) > 2:
            g = (outs[2].float().cpu() / 2688.0).reshape(())
            bad["global_scale"] = _mismatch(g, q.global_scale.float().reshape(()))
        return {"case": case.name, "shape": shape_label(shape), "against": "fpx CPU numerics core",
                "mismatched_bytes": bad, "ok": all(v == 0 for v in bad.values())}

    # -- one case at one shape --------------------------------------------------
    def run_case(self, case, shape, e=None, fpxc=None, dynamic=False):
        """shape: the input's shape (2D, or 3D for a case run at "3d")."""
        shape = tuple(shape)
        m, k = math.prod(shape[:-1]), shape[-1]
        label = shape_label(shape, e)
        in_bytes = m * k * 2
        nbytes = in_bytes + case.out_bytes(m, k)
        base = {"case": case.name, "shape": label, "input_shape": list(shape), "bytes": nbytes}
        seed = zlib.crc32(f"{case.name}:{label}".encode()) & 0xFFFF
        try:
            inputs = self.inputs_for(shape, seed)
        except Exception as exc:  # noqa: BLE001
            self.error(f"{case.name} {label} inputs", exc)
            return
        kfn = self.artifacts.get(case.name)
        fpx_row = dict(base, impl="fpxc")
        if kfn is None:
            fpx_row["error"] = "no artifact"
        else:
            try:
                got = sum(math.prod(s) * torch.empty(0, dtype=d).element_size()
                          for s, d in zip(kfn.output_shapes(list(shape)), kfn._out_dtypes))
                if got + in_bytes != nbytes:
                    self.log(f"note: {case.name} outputs hold {got} bytes, counted "
                             f"{nbytes - in_bytes}; using the artifact's")
                    nbytes = got + in_bytes
                    fpx_row["bytes"] = base["bytes"] = nbytes
                scal = (RS_SEED,) if kfn.scalars else ()
                call = lambda x: kfn(x, *scal)  # noqa: E731
                if self.args.reuse_outputs:  # one set of outputs for every call
                    outs = [torch.empty(sh, dtype=d, device=DEVICE) for sh, d in
                            zip(kfn.output_shapes(list(shape)), kfn._out_dtypes)]
                    call = lambda x: kfn(x, *scal, out=outs)  # noqa: E731
                r = self.timer.run(call, inputs, settle_s=self.args.settle_s)
                # timed twice: the spread between the two medians is the noise
                r2 = self.timer.run(call, inputs, warmup=1)
                fpx_row.update(r, gbs=nbytes / (r["median_ms"] * 1e-3) / 1e9,
                               repeat_median_ms=r2["median_ms"],
                               repeat_spread_pct=100 * abs(r2["median_ms"] - r["median_ms"])
                               / r["median_ms"])
                fpx_row["pct_copy"] = 100 * fpx_row["gbs"] / self.copy_gbs
                same = self.copy_same_size(nbytes)
                fpx_row["copy_same_gbs"] = same
                fpx_row["pct_copy_same"] = 100 * fpx_row["gbs"] / same
                self.log(f"fpxc {case.name:26s} {label:22s} {r['median_ms'] * 1e3:9.1f} us "
                         f"(repeat {r2['median_ms'] * 1e3:.1f}) "
                         f"{fpx_row['gbs']:7.0f} GB/s {fpx_row['pct_copy']:5.1f}% of copy")
            except Exception as exc:  # noqa: BLE001
                fpx_row["error"] = _short(exc)
                self.error(f"fpxc {case.name} {label}", exc)
            if "error" not in fpx_row and not self.args.no_check:
                try:
                    chk = self.check_case(case, kfn, shape, seed + 101)
                    chk["shape"] = label
                    self.checks.append(chk)
                    fpx_row["check"] = "PASS" if chk["ok"] else "FAIL"
                    self.log(f"check {case.name} {label} vs eager reference: "
                             f"{fpx_row['check']} {chk['mismatched_bytes']}")
                except Exception as exc:  # noqa: BLE001
                    fpx_row["check"] = "ERROR"
                    self.error(f"check {case.name} {label}", exc)
        self.rows.append(fpx_row)

        # peers
        peers = []
        if case.ref is not None:
            peers.append(("torch.compile ref", "compile:" + case.name, True))
        peers += case.peers
        if case.ref is not None and not self.args.no_eager:
            peers.append(("torch eager ref", "eager:" + case.name, True))
        fpx_out = None
        for pname, key, same in peers:
            row = dict(base, impl=pname, same_function=same)
            kind, fkey = key.split(":", 1) if ":" in key else ("plain", key)
            if kind == "compile" and self.args.no_compile:
                continue
            if kind == "triton" and (DEVICE != "cuda" or self.args.no_triton):
                continue   # Triton runs on the GPU only (dryrun_cpu.py)
            ckey = (fkey, True) if dynamic else (fkey, shape)
            if (kind == "compile" and self.elapsed() > self.args.budget_s
                    and ckey not in self.compiled_shapes):
                row["error"] = "skipped: time budget (--budget-s) spent before its compile"
                self.rows.append(row)
                self.log(f"peer {pname} {case.name} {label}: {row['error']}")
                continue
            try:
                fn = (self.compiled_fn(fkey, dynamic) if kind == "compile" else
                      self.triton_fn(fkey, case, kfn) if kind == "triton" else REFS[fkey])
                if isinstance(fn, Exception):
                    raise fn
                t0 = time.perf_counter()
                # compiled and Triton peers are timed as fpxc is (settled, up to
                # 200 calls); the slow eager references with fewer calls
                fast = kind in ("compile", "triton")
                r = self.timer.run(fn, inputs, warmup=2 if fast else 1,
                                   max_reps=200 if fast else 10,
                                   settle_s=self.args.settle_s if fast else 0.0)
                row["wall_s"] = time.perf_counter() - t0   # includes a compile
                if kind == "triton":
                    import triton_peers
                    row["triton_config"] = triton_peers.best_config(fkey)
                if kind == "compile":
                    self.compiled_shapes.add(ckey)
                    row["dynamic"] = dynamic
                row.update(r, gbs=nbytes / (r["median_ms"] * 1e-3) / 1e9)
                row["pct_copy"] = 100 * row["gbs"] / self.copy_gbs
                if fpx_row.get("median_ms"):
                    row["fpxc_speedup"] = r["median_ms"] / fpx_row["median_ms"]
                # does the peer compute the same bytes as fpxc? (information)
                if same and kfn is not None and "error" not in fpx_row:
                    if fpx_out is None:
                        fpx_out = kfn(inputs[0], *((RS_SEED,) if kfn.scalars else ()))
                    pout = fn(inputs[0])
                    row["bytes_differing_from_fpxc"] = {
                        f"out{i}": _mismatch(a, b) for i, (a, b) in enumerate(zip(fpx_out, pout))}
                    del pout
                self.log(f"peer {pname:38s} {case.name:26s} {label:22s} "
                         f"{r['median_ms'] * 1e3:9.1f} us {row['gbs']:7.0f} GB/s"
                         + (f" ({row['triton_config']})" if row.get("triton_config") else ""))
            except Exception as exc:  # noqa: BLE001
                if kind == "compile":
                    self.compiled[(fkey, dynamic)] = exc   # do not retry a failed compile
                    row["error"] = "compile/run failed: " + _short(exc)
                else:
                    row["error"] = _short(exc)
                self.error(f"peer {pname} {case.name} {label}", exc)
            self.rows.append(row)
        del inputs, fpx_out
        torch.cuda.empty_cache()

    # -- launch overhead (issue 5) -----------------------------------------------
    def launch_overhead(self, fpxc):
        kfn = self.artifacts.get("mxfp8_e4m3_floor")
        n = 10_000 if not self.args.quick else 2_000
        res = {"launches": n}
        x = make_input((128, 256), 7)
        y = torch.empty_like(x)

        def per_call_us(f):
            return host_timing.per_call_us(f, n, torch.cuda.synchronize)

        try:
            res["torch_abs_out_us"] = per_call_us(lambda: torch.abs(x, out=y))
            res["torch_to_e4m3_us"] = per_call_us(lambda: x.to(torch.float8_e4m3fn))
            if kfn is not None:
                outs = kfn(x)
                res["fpx_call_alloc_us"] = per_call_us(lambda: kfn(x))
                res["fpx_call_out_us"] = per_call_us(lambda: kfn(x, out=outs))
                # the native launch alone (argument refs prepared once)
                refs = [(x.data_ptr(), "bf16", list(x.shape), list(x.stride()))]
                orefs = [(o.data_ptr(), w, list(o.shape), list(o.stride()))
                         for o, (_, w) in zip(outs, kfn.outputs)]
                stream = torch.cuda.current_stream().cuda_stream
                res["fpx_native_launch_us"] = per_call_us(
                    lambda: kfn._fn.launch(stream, refs, orefs, []))
                res["fpx_overhead_over_torch_us"] = res["fpx_call_out_us"] - res["torch_abs_out_us"]
            path = Path(self.args.artifacts) / "mxfp8_e4m3_floor.json"
            if path.exists():
                fpxc.load(path)
                ts = []
                for _ in range(500):
                    t0 = time.perf_counter()
                    fpxc.load(path)
                    ts.append(time.perf_counter() - t0)
                res["fpx_load_warm_us"] = statistics.median(ts) * 1e6
        except Exception as exc:  # noqa: BLE001
            self.error("launch overhead", exc)
        self.extra["launch_overhead"] = res
        self.log("launch overhead (us per call, host wall, 10k calls): " +
                 ", ".join(f"{k}={v:.2f}" for k, v in res.items() if isinstance(v, float)))

    # -- main loop -------------------------------------------------------------
    def run(self, fpxc):
        a = self.args
        names = set(a.cases.split(",")) if a.cases else None
        cases = [c for c in CASES if names is None or c.name in names]
        shapes2d = QUICK_2D if a.quick else SHAPES_2D
        shapes3d = QUICK_3D if a.quick else SHAPES_3D
        if a.shapes:
            shapes2d = [tuple(int(v) for v in s.split("x")) for s in a.shapes.split(",")]
        if a.shapes_3d:
            shapes3d = [tuple(int(v) for v in s.split("x")) for s in a.shapes_3d.split(",")]
        self.timer.calibrate()
        self.copy_bandwidth()
        self.load_artifacts(fpxc)
        self.launch_overhead(fpxc)
        if not a.no_check:
            for c in cases:
                kfn = self.artifacts.get(c.name)
                if kfn is None:
                    continue
                try:
                    chk = self.check_numerics(c, kfn, fpxc, 77)
                    self.checks.append(chk)
                    self.log(f"check {c.name} vs CPU numerics core: "
                             f"{'PASS' if chk['ok'] else 'FAIL'} {chk['mismatched_bytes']}")
                except Exception as exc:  # noqa: BLE001
                    self.checks.append({"case": c.name, "against": "fpx CPU numerics core",
                                        "ok": False, "error": _short(exc)})
                    self.error(f"numerics check {c.name}", exc)
        # every case at the first shape first, so a spent budget still leaves
        # one shape of each
        work = [(c, shape, None) for shape in ([] if a.no_2d else shapes2d)
                for c in cases if "2d" in c.shapes]
        for e, n, k in ([] if a.no_3d else shapes3d):
            for c in cases:
                if "3d-flat" in c.shapes:
                    work.append((c, (e * n, k), e))
                if "3d" in c.shapes:
                    work.append((c, (e, n, k), e))
        for c, shape, e in work:
            if self.elapsed() > a.budget_s + a.grace_s:
                self.log(f"skip {c.name} {shape_label(shape, e)}: past the time budget")
                continue
            # one dynamic-shape graph serves the 3D shapes (--static-3d: one per shape)
            self.run_case(c, shape, e=e, fpxc=fpxc, dynamic=e is not None and not a.static_3d)

    # -- reporting -------------------------------------------------------------
    def table_rows(self):
        out = []
        fpx_by = {(r["case"], r["shape"]): r for r in self.rows if r["impl"] == "fpxc"}
        for (case, shape), fr in fpx_by.items():
            peers = [r for r in self.rows if r["impl"] != "fpxc"
                     and r["case"] == case and r["shape"] == shape]
            for p in (peers or [None]):
                out.append((fr, p))
        return out

    def format_table(self):
        hdr = ["case", "shape", "fpxc us", "fpxc GB/s", "% copy", "% same-size copy",
               "check", "peer", "peer us", "peer GB/s", "speedup"]
        lines = []

        def f(v, fmt):
            return "-" if v is None else format(v, fmt)

        for fr, p in self.table_rows():
            fus = fr.get("median_ms")
            row = [fr["case"], fr["shape"], f(fus and fus * 1e3, ".1f") if fus else fr.get("error", "-"),
                   f(fr.get("gbs"), ".0f"), f(fr.get("pct_copy"), ".1f"),
                   f(fr.get("pct_copy_same"), ".1f"), fr.get("check", "-")]
            if p is None:
                row += ["-", "-", "-", "-"]
            elif "error" in p:
                row += [p["impl"], p["error"][:60], "-", "-"]
            else:
                sp = p.get("fpxc_speedup")
                row += [p["impl"], f(p["median_ms"] * 1e3, ".1f"), f(p["gbs"], ".0f"),
                        f(sp, ".2f") + "x" if sp else "-"]
            lines.append(row)
        widths = [max(len(str(r[i])) for r in lines + [hdr]) for i in range(len(hdr))]
        text = [" | ".join(str(h).ljust(w) for h, w in zip(hdr, widths)),
                "-+-".join("-" * w for w in widths)]
        text += [" | ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in lines]
        md = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
        md += ["| " + " | ".join(str(c) for c in r) + " |" for r in lines]
        return "\n".join(text), "\n".join(md)

    def plot(self, path):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        groups = {}
        for r in self.rows:
            if r.get("gbs"):
                groups.setdefault((r["case"], r["shape"]), []).append((r["impl"], r["gbs"]))
        if not groups:
            return
        impls = []
        for v in groups.values():
            for name, _ in v:
                if name not in impls:
                    impls.append(name)
        keys = list(groups)
        nbars = sum(len(v) for v in groups.values())
        fig, ax = plt.subplots(figsize=(12, min(60, 0.22 * nbars + 0.3 * len(keys) + 2)))
        cmap = plt.get_cmap("tab10")
        color = {name: cmap(j % 10) for j, name in enumerate(impls)}
        y, ticks, seen = 0.0, [], set()
        for key in keys:
            top = y
            for name, g in groups[key]:
                ax.barh(y, g, height=0.9, color=color[name],
                        label=None if name in seen else name)
                seen.add(name)
                y += 1
            ticks.append((top + y - 1) / 2)
            y += 0.8
        if self.copy_gbs:
            ax.axvline(self.copy_gbs, color="k", ls="--", lw=1,
                       label=f"copy {self.copy_gbs:.0f} GB/s")
            ax.axvline(0.9 * self.copy_gbs, color="k", ls=":", lw=1, label="90% of copy")
        ax.set_yticks(ticks)
        ax.set_yticklabels([f"{c} {s}" for c, s in keys], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("GB/s (input + output data + scales)")
        ax.set_title(f"fpxc quantize kernels vs peers on {self.extra.get('device', 'GPU')}")
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)

    def write(self, out_dir):
        out_dir.mkdir(parents=True, exist_ok=True)
        text, md = self.format_table()
        result = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "args": vars(self.args),
                  "copy_gbs": self.copy_gbs, "env": self.extra, "rows": self.rows,
                  "checks": self.checks, "errors": self.errors,
                  "runtime_s": self.elapsed()}
        (out_dir / "results.json").write_text(json.dumps(result, indent=1, default=str))
        head = [f"# fpxc quantize benchmark, {result['date']}", "",
                f"device: {self.extra.get('device')}, torch {self.extra.get('torch')}, "
                f"fpxc commit {self.extra.get('commit', '?')}", "",
                f"copy bandwidth ({self.extra.get('copy', {}).get('bytes', 0) // 2**21} MiB "
                f"D2D copy, bytes read + written): {self.copy_gbs or 0:.0f} GB/s", ""]
        lo = self.extra.get("launch_overhead", {})
        if lo:
            head += ["launch overhead (us per call from Python): " +
                     ", ".join(f"{k} {v:.2f}" for k, v in lo.items() if isinstance(v, float)), ""]
        spreads = [r["repeat_spread_pct"] for r in self.rows if "repeat_spread_pct" in r]
        if spreads:
            head += [f"fpxc timed twice per case: largest spread between the two medians "
                     f"{max(spreads):.1f}% (differences below that are noise)", ""]
        n_ok = sum(1 for c in self.checks if c.get("ok"))
        head += [f"correctness: {n_ok}/{len(self.checks)} checks PASS", ""]
        fails = [c for c in self.checks if not c.get("ok")]
        for c in fails:
            head.append(f"- FAIL {c['case']} {c.get('shape', '')} vs {c['against']}: "
                        f"{c.get('mismatched_bytes', c.get('error'))}")
        (out_dir / "results.md").write_text("\n".join(head) + "\n\n" + md + "\n")
        try:
            self.plot(out_dir / "results.png")
        except ModuleNotFoundError as exc:  # the plot is optional; the tables are the result
            self.log(f"plot skipped: {exc} (pip install matplotlib for results.png)")
        except Exception as exc:  # noqa: BLE001
            self.error("plot", exc)
        return text


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--artifacts", default=str(REPO / ".art" / "sm_90a"),
                   help="directory of fpxc artifacts (bench/quantize/build_artifacts.sh)")
    p.add_argument("--out", default=os.environ.get("OUT") or str(REPO / "bench-results"),
                   help="results directory (default $OUT, else bench-results/)")
    p.add_argument("--quick", action="store_true", help="small shapes, a sanity pass")
    p.add_argument("--cases", default="", help="comma-separated case names (default all)")
    p.add_argument("--shapes", default="", help="override the 2D shapes, e.g. 4096x4096,8192x8192")
    p.add_argument("--shapes-3d", default="",
                   help="override the 3D expert shapes, e.g. 1x2048x7168,256x2048x7168")
    p.add_argument("--no-3d", action="store_true", help="skip the 3D expert shapes")
    p.add_argument("--no-2d", action="store_true", help="skip the 2D shapes")
    p.add_argument("--reuse-outputs", action="store_true",
                   help="time fpxc writing into one set of outputs (default: a fresh "
                        "allocation a call, as torch ops do)")
    p.add_argument("--static-3d", action="store_true",
                   help="compile the peers once per 3D shape (default: one dynamic-shape graph)")
    p.add_argument("--settle-s", type=float, default=0.1,
                   help="seconds fpxc's function of a case runs untimed before its first timing")
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile peers")
    p.add_argument("--no-triton", action="store_true", help="skip the Triton peers")
    p.add_argument("--no-eager", action="store_true", help="skip timing the eager references")
    p.add_argument("--no-check", action="store_true", help="skip correctness checks")
    p.add_argument("--budget-s", type=float, default=200.0,
                   help="after this many seconds no new torch.compile is started")
    p.add_argument("--grace-s", type=float, default=25.0,
                   help="seconds past --budget-s after which remaining cases are skipped")
    p.add_argument("--fpx-path", default="",
                   help="directory holding the fpx package to import (default: the "
                        "installed package, else .art/pyfpx, else python-bindings/)")
    p.add_argument("--verbose", action="store_true", help="print tracebacks of errors")
    return p.parse_args(argv)


def import_fpx(path):
    """The fpx package: --fpx-path if given, else the installed one, else the
    one bench/quantize/build_pyfpx.sh put in .art/pyfpx, else python-bindings/
    (built in place)."""
    tries = [path] if path else [None, str(REPO / ".art" / "pyfpx"), str(REPO / "python-bindings")]
    errors = []
    for where in tries:
        for name in [m for m in sys.modules if m == "fpxc" or m.startswith("fpxc.")]:
            del sys.modules[name]
        if where:
            sys.path.insert(0, where)
        try:
            import fpxc
            return fpxc
        except Exception as exc:  # noqa: BLE001  (ImportError, or a broken extension)
            errors.append(f"{where or 'installed'}: {_short(exc)}")
            if where:
                sys.path.remove(where)
    raise ImportError("cannot import fpxc; " + "; ".join(errors))


def main(argv=None):
    args = parse_args(argv)
    _import_torch()
    for knob in ("cache_size_limit", "recompile_limit"):   # one static graph per shape
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 64)
    if DEVICE == "cuda" and not torch.cuda.is_available():
        print("bench_quantize: no CUDA device visible to torch", file=sys.stderr)
        return 2
    fpxc = import_fpx(args.fpx_path)
    b = Bench(args)
    dev = torch.cuda.get_device_properties(0)
    b.extra.update(device=torch.cuda.get_device_name(0), torch=torch.__version__,
                   cuda=torch.version.cuda, sm=f"{dev.major}.{dev.minor}",
                   python=platform.python_version(), fpxc=getattr(fpxc, "__file__", "?"))
    try:
        import triton
        b.extra["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        pass
    try:
        b.extra["driver"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,clocks.max.mem",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:  # noqa: BLE001
        pass
    b.log(f"{b.extra['device']} sm_{dev.major}{dev.minor}, torch {torch.__version__}, "
          f"fpxc from {b.extra['fpxc']}, artifacts {args.artifacts}")
    try:
        b.run(fpxc)
    except KeyboardInterrupt:
        b.log("interrupted; writing what there is")
    except Exception as exc:  # noqa: BLE001
        b.error("benchmark", exc)
        traceback.print_exc()
    out_dir = Path(args.out)
    text = b.write(out_dir)
    n_ok = sum(1 for c in b.checks if c.get("ok"))
    print()
    for c in b.checks:
        print(f"{'PASS' if c.get('ok') else 'FAIL'} {c['case']:26s} {c.get('shape', ''):22s} "
              f"vs {c['against']}: {c.get('mismatched_bytes', c.get('error'))}")
    print(f"\ncopy {b.copy_gbs or 0:.0f} GB/s; checks {n_ok}/{len(b.checks)} PASS; "
          f"{len(b.errors)} errors; {b.elapsed():.0f} s; results in {out_dir}")
    lo = b.extra.get("launch_overhead", {})
    if lo:
        print("launch (us/call): " + ", ".join(f"{k} {v:.2f}" for k, v in lo.items()
                                                 if isinstance(v, float)))
    print(text)
    return 0 if (n_ok == len(b.checks) and not b.errors) else 1


if __name__ == "__main__":
    sys.exit(main())
