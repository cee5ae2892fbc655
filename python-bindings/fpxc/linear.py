"""Weight-only linear layers: y = x @ dequantize(w)^T (+ bias), the weight
quantized once, offline, and stored packed in the order the GEMM kernel reads.

    packed = fpxc.quantize_weight(w, format="fp8_e4m3")   # w: (N, K)
    y = fpxc.linear(x, packed, bias)                        # x: (..., K) bf16/f16

A weight format is one entry of WEIGHT_FORMATS: how its codes and scales are
made (an fpxc.quantize call), the GEMM layout they are packed into (a
vocabulary packing with gemm_weight, e.g. mma_tiles), the multiples the
packed weight is padded to, and how the codes decode. A new format (MXFP8,
MXFP4, NVFP4, fp6) is a new entry plus its bundled kernels; fpxc.linear,
fpxc.nn and the bundle builder read the table.

CUDA calls run the bundled fused dequant GEMM (torch.ops.fpxc.linear: its
schema and CUDA kernel in C++, src/TorchOps.cpp, with a fake kernel here:
eager, torch.compile and CUDA graphs) through a plan resolved once per
signature and launched from C++ (a bias: added in place after the kernel). Where no kernel applies
(CPU tensors; no bundled kernel for the format, dtypes or GPU; a shape the
kernel refuses) the op dequantizes the weight and multiplies with torch in
fp32; on CUDA that fallback warns once per signature.
"""

import atexit
import functools
from dataclasses import dataclass
from typing import Callable, Optional

import torch

from . import bundle, ops
from ._native import _fpx
from ._errors import InvalidArgumentError
from .formats import SCHEME_NAMES, VOCABULARY, scheme

# ---------------------------------------------------------------------------
# GEMM weight layouts (vocabulary packings with gemm_weight)
# ---------------------------------------------------------------------------

GEMM_LAYOUTS = tuple(e["api"] for e in VOCABULARY["packings"] if e["gemm_weight"])

MMA_TILE = (16, 32)  # numerics MmaTiles.h: kMmaTileRows, kMmaTileCols
MMA_TILE_COLS = {8: 32, 6: 64, 5: 64, 4: 64}  # numerics mmaTileCols(bits)


def _check_mma_shape(n, k, bits):
    if bits not in MMA_TILE_COLS:
        raise InvalidArgumentError(f"mma_tiles holds 8-, 6-, 5- or 4-bit codes, not "
                                   f"{bits}-bit")
    if n % MMA_TILE[0] or k % MMA_TILE_COLS[bits]:
        raise InvalidArgumentError(f"mma_tiles of {bits}-bit codes needs rows a multiple of "
                                   f"{MMA_TILE[0]} and columns a multiple of "
                                   f"{MMA_TILE_COLS[bits]}, got {n} x {k}")


def pack_mma_tiles(codes, bits=8):
    """N x K codes, one a byte (uint8 or a float8 dtype, any device; 4-bit
    codes in the low nibble) -> the mma_tiles layout (docs/formats.md;
    numerics MmaTiles.h, whose packMmaTiles is the reference this equals).

    bits=8: 16 x 32 tiles of 512 bytes, row tiles in order, K tiles in order
    inside one; lane 4g + t of a tile holds rows g, g + 8 at k = 8t .. 8t + 7,
    its byte 4w + b being row g + 8 (b / 2) at k = 8t + 2w + b % 2. The
    result has the codes' shape and dtype, every code keeps its bits.

    bits=4 (e2m1): 16 x 64 tiles of 512 bytes, N x K/2 uint8: nibble
    (byte * 2 + high) g*128 + t*32 + h*16 + s*8 + odd*4 + pair*2 + upper of a
    tile holds row 8 upper + g at k = 32h + 8t + 4s + 2 pair + odd.

    bits=6 / 5 (e2m3, e3m2 / e2m2): 16 x 64 tiles of 128 * bits bytes, N x
    K * bits / 8 uint8: each tile's low 4 bits of every code exactly as a
    4-bit tile (512 bytes), then the high plane (hb = bits - 4 bits a code),
    lane 4g + t's 4 hb bytes at 512 + 4 hb (4g + t): fp6 field (2 bits)
    16h + 8 odd + 4s + 2 pair + upper of the lane's 64 bits, fp5 bit 16 odd +
    8h + 4s + 2 pair + upper of its 32."""
    if not isinstance(codes, torch.Tensor) or codes.dim() != 2 or codes.element_size() != 1:
        raise InvalidArgumentError("pack_mma_tiles takes a 2-D tensor of one-byte codes, got "
                                   f"{getattr(codes, 'dtype', type(codes).__name__)} of shape "
                                   f"{tuple(getattr(codes, 'shape', ()))}")
    n, k = codes.shape
    _check_mma_shape(n, k, bits)
    if bits in (6, 5):
        return _pack_split(codes.contiguous().view(torch.uint8), bits)
    if bits == 4:
        v = codes.contiguous().view(torch.uint8) & 0xF
        # dims: rt, upper, g, kt, h, t, s, pair, odd
        v = v.reshape(n // 16, 2, 8, k // 64, 2, 4, 2, 2, 2)
        # -> rt, kt, g, t, h, s, odd, pair, upper (upper: the nibble in a byte)
        v = v.permute(0, 3, 2, 5, 4, 6, 8, 7, 1).reshape(n, k // 2, 2)
        return (v[..., 0] | (v[..., 1] << 4)).contiguous()
    v = codes.contiguous().view(torch.uint8).reshape(n // 16, 2, 8, k // 32, 4, 4, 2)
    # dims: rt, upper, g, kt, t, w, e  ->  rt, kt, g, t, w, upper, e
    return v.permute(0, 3, 2, 4, 5, 1, 6).contiguous().view(n, k).view(codes.dtype)


def unpack_mma_tiles(packed, bits=8):
    """Inverse of pack_mma_tiles: mma_tiles -> the N x K row-major codes
    (bits=4: packed is N x K/2 uint8, the codes N x K uint8, one a byte)."""
    if not isinstance(packed, torch.Tensor) or packed.dim() != 2 or \
            packed.element_size() != 1:
        raise InvalidArgumentError("unpack_mma_tiles takes a 2-D tensor of bytes, got "
                                   f"{getattr(packed, 'dtype', type(packed).__name__)} of "
                                   f"shape {tuple(getattr(packed, 'shape', ()))}")
    n, k = packed.shape
    if bits in (6, 5):
        if (k * 8) % bits:
            raise InvalidArgumentError(f"mma_tiles rows of {bits}-bit codes are K * {bits} / "
                                       f"8 bytes; {k} bytes hold no whole number of codes")
        k = k * 8 // bits
    if bits == 4:
        k *= 2
    _check_mma_shape(n, k, bits)
    if bits in (6, 5):
        return _unpack_split(packed.contiguous().view(torch.uint8), n, k, bits)
    if bits == 4:
        b = packed.contiguous().view(torch.uint8)
        v = torch.stack((b & 0xF, b >> 4), dim=-1)
        # dims: rt, kt, g, t, h, s, odd, pair, upper -> rt, upper, g, kt, h, t, s, pair, odd
        v = v.reshape(n // 16, k // 64, 8, 4, 2, 2, 2, 2, 2)
        return v.permute(0, 8, 2, 1, 4, 3, 5, 7, 6).contiguous().view(n, k)
    v = packed.contiguous().view(torch.uint8).reshape(n // 16, k // 32, 8, 4, 4, 2, 2)
    # dims: rt, kt, g, t, w, upper, e  ->  rt, upper, g, kt, t, w, e
    return v.permute(0, 5, 2, 1, 3, 4, 6).contiguous().view(n, k).view(packed.dtype)


def _pack_split(v, bits):
    """6-/5-bit codes (N x K uint8, codes in the low bits) -> mma_tiles' low
    nibble tiles and high planes, a tile's planes one after the other."""
    n, k = v.shape
    hb = bits - 4
    low = pack_mma_tiles(v & 0xF, bits=4).reshape(n // 16, k // 64, 512)
    hi = ((v >> 4) & ((1 << hb) - 1)).reshape(n // 16, 2, 8, k // 64, 2, 4, 2, 2, 2)
    # dims: rt, upper, g, kt, h, t, s, pair, odd
    if hb == 2:  # -> rt, kt, g, t, h, odd, s | pair, upper (4 fields a byte)
        f = hi.permute(0, 3, 2, 5, 4, 8, 6, 7, 1).reshape(n // 16, k // 64, 256, 4)
        b = f[..., 0] | (f[..., 1] << 2) | (f[..., 2] << 4) | (f[..., 3] << 6)
    else:  # -> rt, kt, g, t, odd, h | s, pair, upper (8 bits a byte)
        f = hi.permute(0, 3, 2, 5, 8, 4, 6, 7, 1).reshape(n // 16, k // 64, 128, 8)
        b = sum(f[..., i] << i for i in range(8))
    return torch.cat((low, b.to(torch.uint8)), dim=-1).reshape(n, k * bits // 8).contiguous()


def _unpack_split(p, n, k, bits):
    hb = bits - 4
    t = p.reshape(n // 16, k // 64, 128 * bits)
    low = unpack_mma_tiles(t[..., :512].reshape(n, k // 2), bits=4)
    b = t[..., 512:]
    if hb == 2:
        f = torch.stack([(b >> (2 * i)) & 3 for i in range(4)], dim=-1)
        # rt, kt, g, t, h, odd, s, pair, upper -> rt, upper, g, kt, h, t, s, pair, odd
        f = f.reshape(n // 16, k // 64, 8, 4, 2, 2, 2, 2, 2).permute(0, 8, 2, 1, 4, 3, 6, 7, 5)
    else:
        f = torch.stack([(b >> i) & 1 for i in range(8)], dim=-1)
        # rt, kt, g, t, odd, h, s, pair, upper -> rt, upper, g, kt, h, t, s, pair, odd
        f = f.reshape(n // 16, k // 64, 8, 4, 2, 2, 2, 2, 2).permute(0, 8, 2, 1, 5, 3, 6, 7, 4)
    return (low | (f.reshape(n, k) << 4)).contiguous()


_LAYOUT_FUNCS = {"mma_tiles": (pack_mma_tiles, unpack_mma_tiles)}
assert set(_LAYOUT_FUNCS) <= set(GEMM_LAYOUTS), (GEMM_LAYOUTS, "vocabulary lacks a layout")

# ---------------------------------------------------------------------------
# Weight formats
# ---------------------------------------------------------------------------


def _decode_fp8(dtype):
    def decode(codes, scales, g=None):
        # float8 -> fp32 is exact and one fp32 product per code is the
        # numerics core's dequantize (decode(code) * scale), bit for bit.
        return codes.view(dtype).float() * scales.float()
    return decode


# e2m1 codes 0..15 -> values (docs/formats.md: sign, 2 exponent bits, 1 mantissa bit).
_E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
         -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)


def _minifloat_values(ebits, mbits, bias):
    """The values of every code of a signed format without inf or NaN (fp6
    e2m3 / e3m2, fp5 e2m2; docs/formats.md): sign, ebits exponent bits,
    mbits mantissa bits, subnormals at exponent 0."""
    out = []
    for c in range(1 << (1 + ebits + mbits)):
        e, m = (c >> mbits) & ((1 << ebits) - 1), c & ((1 << mbits) - 1)
        mag = (m / (1 << mbits)) * 2.0 ** (1 - bias) if e == 0 else \
            (1 + m / (1 << mbits)) * 2.0 ** (e - bias)
        out.append(-mag if c >> (ebits + mbits) else mag)
    return tuple(out)


_NARROW = {"e2m3": _minifloat_values(2, 3, 1), "e3m2": _minifloat_values(3, 2, 3),
           "e2m2": _minifloat_values(2, 2, 1), "e2m1": _E2M1}


def _decode_narrow(codes, elem):
    table = torch.tensor(_NARROW[elem], dtype=torch.float32, device=codes.device)
    return table[codes.long()]


def _decode_channel(elem):
    """Narrow codes (one a byte) times their fp32 channel scales: one exact
    fp32 product, the numerics core's dequantize."""
    def decode(codes, scales, g=None):
        return _decode_narrow(codes, elem) * scales.float()
    return decode


def _decode_block(elem, block_cols):
    """Block-scaled codes (row-major, one a byte) times their row-major
    scales (e8m0 or ue4m3 codes as float8 dtypes), each repeated over its
    block of K; NVFP4's block factor is fl(decode(s) * g), one fp32 product,
    as the numerics core's dequantize computes it. `elem`: a float8 dtype or
    a narrow format's name ("e2m1", "e2m3", "e3m2")."""
    def decode(codes, scales, g=None):
        v = _decode_narrow(codes, elem) if isinstance(elem, str) else codes.view(elem).float()
        f = scales.float()
        if g is not None:
            f = f * g.float()
        return v * f.repeat_interleave(block_cols, dim=1)
    return decode


@dataclass(frozen=True)
class WeightFormat:
    """How one weight format is quantized, packed and decoded.

    name: the canonical scheme name (fpxc.formats; bundles are keyed by it).
    block: the scales' block over the (N, K) weight, as fpxc.quantize takes
      it: (1, 0) one scale per output channel, (1, 32) MX blocks, (1, 16)
      NVFP4's.
    layout: the packed codes' GEMM layout (a vocabulary packing with
      gemm_weight), with its pack/unpack functions in _LAYOUT_FUNCS.
    pad: (rows, cols) the packed weight is padded to with zero codes: the
      kernels' multiples (N % 128, K % 256 for the decode kernels), so that
      every shape runs on the kernel (x padded along K, y sliced to N).
    decode: (row-major codes as stored, one a byte; scales; the global scale
      or None) -> fp32 values (N, K), the numerics core's dequantize.
    bits: bits a code (8; 6, 5: split into 4-bit and 2- / 1-bit planes; 4:
      two codes a byte in the packed layout).
    scale_dtype: the scales' torch dtype (fp32; e8m0 and ue4m3 codes as
      float8_e8m0fnu / float8_e4m3fn, as fpxc.quantize returns them).
    scale_word: the scales' name in the bundle's dispatch key ("f32", "e8m0",
      "ue4m3").
    global_scale: NVFP4's fp32 tensor scale g (a rank-0 buffer, the kernel's
      global_scale operand).
    """

    name: str
    block: tuple
    layout: str
    pad: tuple
    decode: Callable
    bits: int = 8
    scale_dtype: torch.dtype = torch.float32
    scale_word: str = "f32"
    global_scale: bool = False

    def packed_cols(self, cols):
        return cols * self.bits // 8


WEIGHT_FORMATS = {
    "fp8_e4m3": WeightFormat("fp8_e4m3", (1, 0), "mma_tiles", (128, 256),
                             _decode_fp8(torch.float8_e4m3fn)),
    "fp8_e5m2": WeightFormat("fp8_e5m2", (1, 0), "mma_tiles", (128, 256),
                             _decode_fp8(torch.float8_e5m2)),
    "mxfp8_e4m3": WeightFormat("mxfp8_e4m3", (1, 32), "mma_tiles", (128, 256),
                               _decode_block(torch.float8_e4m3fn, 32),
                               scale_dtype=torch.float8_e8m0fnu, scale_word="e8m0"),
    "mxfp8_e5m2": WeightFormat("mxfp8_e5m2", (1, 32), "mma_tiles", (128, 256),
                               _decode_block(torch.float8_e5m2, 32),
                               scale_dtype=torch.float8_e8m0fnu, scale_word="e8m0"),
    "mxfp4": WeightFormat("mxfp4", (1, 32), "mma_tiles", (128, 256), _decode_block("e2m1", 32),
                          bits=4, scale_dtype=torch.float8_e8m0fnu, scale_word="e8m0"),
    "nvfp4": WeightFormat("nvfp4", (1, 16), "mma_tiles", (128, 256), _decode_block("e2m1", 16),
                          bits=4, scale_dtype=torch.float8_e4m3fn, scale_word="ue4m3",
                          global_scale=True),
    "mxfp6_e2m3": WeightFormat("mxfp6_e2m3", (1, 32), "mma_tiles", (128, 256),
                               _decode_block("e2m3", 32), bits=6,
                               scale_dtype=torch.float8_e8m0fnu, scale_word="e8m0"),
    "mxfp6_e3m2": WeightFormat("mxfp6_e3m2", (1, 32), "mma_tiles", (128, 256),
                               _decode_block("e3m2", 32), bits=6,
                               scale_dtype=torch.float8_e8m0fnu, scale_word="e8m0"),
    # FP6-LLM: e3m2 codes and fp5 e2m2 codes with one fp32 scale a channel.
    "fp6_e3m2": WeightFormat("fp6_e3m2", (1, 0), "mma_tiles", (128, 256),
                             _decode_channel("e3m2"), bits=6),
    "fp5_e2m2": WeightFormat("fp5_e2m2", (1, 0), "mma_tiles", (128, 256),
                             _decode_channel("e2m2"), bits=5),
}


def weight_format(format):
    """The WeightFormat of a format name or alias (the vocabulary's: "fp8_e4m3",
    "e4m3fn", "float8_e4m3fn", ...)."""
    if isinstance(format, WeightFormat):
        return format
    s = scheme(format)  # raises InvalidArgumentError for unknown names
    name = SCHEME_NAMES.get((s.elem, s.scale))
    fmt = WEIGHT_FORMATS.get(name) or WEIGHT_FORMATS.get(str(format).lower())
    if fmt is None:
        raise InvalidArgumentError(
            f"fpxc.quantize_weight: format {format!r} has no weight-only linear yet; "
            f"known: {sorted(WEIGHT_FORMATS)}")
    return fmt


def _round_up(v, m):
    return -(-v // m) * m


# ---------------------------------------------------------------------------
# The packed weight
# ---------------------------------------------------------------------------


class PackedWeight(torch.nn.Module):
    """A quantized, packed linear weight: what quantize_weight returns and
    fpxc.linear reads. A module so that it moves with .to()/.cuda() and
    saves in a state_dict: buffers `codes` (uint8, (Np, Kp * bits / 8), the
    layout's order, Np, Kp the logical N, K padded), `scales` (row-major:
    fp32 (Np, 1) for per-channel formats, e8m0 (Np, Kp / 32) for MX, ue4m3
    (Np, Kp / 16) for NVFP4) and, for NVFP4, `global_scale` (fp32, rank 0:
    the tensor scale g), and the format, layout and logical (N, K) as extra
    state (plain str/int: torch.load(weights_only=True) reads it)."""

    def __init__(self, codes, scales, format, shape, global_scale=None):
        super().__init__()
        fmt = weight_format(format)
        self.format = fmt.name
        self.shape = (int(shape[0]), int(shape[1]))
        if fmt.global_scale != (global_scale is not None):
            raise InvalidArgumentError(f"a packed {fmt.name} weight "
                                       + ("needs" if fmt.global_scale else "has no")
                                       + " global scale")
        self.register_buffer("codes", codes)
        self.register_buffer("scales", scales)
        self.register_buffer("global_scale", global_scale)

    @classmethod
    def empty(cls, out_features, in_features, format="fp8_e4m3", device=None):
        """A zero weight of this shape and format (the target of load_state_dict)."""
        fmt = weight_format(format)
        np_, kp = (_round_up(max(out_features, 1), fmt.pad[0]),
                   _round_up(max(in_features, 1), fmt.pad[1]))
        codes = torch.zeros(np_, fmt.packed_cols(kp), dtype=torch.uint8, device=device)
        rows, cols = ops._scale_grid(np_, kp, *fmt.block, "row_major")
        scales = torch.zeros(rows, cols, dtype=fmt.scale_dtype, device=device)
        g = torch.zeros((), dtype=torch.float32, device=device) if fmt.global_scale else None
        return cls(codes, scales, fmt, (out_features, in_features), g)

    def _apply(self, fn, recurse=True):
        # Moves only: model.to(torch.bfloat16) / .half() convert floating
        # buffers, which would round the fp32 scales (or reinterpret the
        # e8m0 / ue4m3 scale codes and the global scale); they keep their dtype.
        before = {name: b for name, b in self._buffers.items() if b is not None}
        super()._apply(fn, recurse)
        for name, b in before.items():
            now = self._buffers[name]
            if now.dtype != b.dtype:
                self._buffers[name] = b.to(now.device)
        return self

    @property
    def weight_format(self):
        return WEIGHT_FORMATS[self.format]

    @property
    def layout(self):
        return self.weight_format.layout

    @property
    def out_features(self):
        return self.shape[0]

    @property
    def in_features(self):
        return self.shape[1]

    @property
    def nbytes(self):
        """Bytes a GEMM streams: the packed codes and the scales (and NVFP4's
        global scale)."""
        g = self.global_scale
        return self.codes.nbytes + self.scales.nbytes + (0 if g is None else g.nbytes)

    def extra_repr(self):
        return (f"format={self.format}, layout={self.layout}, shape={self.shape}, "
                f"packed={tuple(self.codes.shape)}")

    def get_extra_state(self):
        return {"format": self.format, "layout": self.layout, "shape": list(self.shape),
                "version": 1}

    def set_extra_state(self, state):
        if not isinstance(state, dict) or state.get("version") != 1:
            raise InvalidArgumentError(f"not a packed fpxc weight's state: {state!r}")
        fmt = weight_format(state["format"])
        if state.get("layout") != fmt.layout:
            raise InvalidArgumentError(f"a packed {fmt.name} weight in layout "
                                       f"{state.get('layout')!r}; this fpxc packs it as "
                                       f"{fmt.layout!r}")
        self.format = fmt.name
        self.shape = tuple(int(v) for v in state["shape"])

    def unpacked_codes(self):
        """The codes row-major, (Np, Kp) uint8, one a byte (the layout undone)."""
        return _unpack(self.weight_format, self.codes)

    def dequantize(self, dtype=torch.float32):
        """The weight as the GEMM sees it: (N, K) values in `dtype` (fp32:
        exactly the numerics core's dequantize of the codes and scales)."""
        w = self.weight_format.decode(self.unpacked_codes(), self.scales, self.global_scale)
        return w[: self.shape[0], : self.shape[1]].to(dtype)


def _unpack(fmt, codes):
    return _LAYOUT_FUNCS[fmt.layout][1](codes, fmt.bits)


def quantize_weight(w, format="fp8_e4m3"):
    """Quantizes a linear weight w (N, K; float32, bfloat16 or float16, CPU or
    CUDA) for fpxc.linear: the format's scales (fp8: one fp32 scale per
    output channel, amax / max-code as fpxc.quantize(block=(1, 0)) computes
    them, also FP6-LLM's fp6_e3m2 and fp5_e2m2; MXFP8 / MXFP6 / MXFP4: e8m0
    scales of 32 along K, fpxc.quantize(block=(1, 32)); NVFP4: ue4m3 scales of 16 and the fp32 tensor scale g,
    fpxc.quantize(format="nvfp4")) and codes by fpxc.quantize, zero-padded
    to the kernels' multiples and packed into the format's GEMM layout
    (mma_tiles; 4-bit codes two a byte, 6- and 5-bit codes split into a
    4-bit and a 2- / 1-bit plane). The scales stay row-major. Returns a
    PackedWeight on w's device. Non-finite weights are refused (the GEMM
    decodes no NaN or inf codes)."""
    fmt = weight_format(format)
    if not isinstance(w, torch.Tensor):
        raise InvalidArgumentError(f"fpxc.quantize_weight: w must be a torch.Tensor, "
                                   f"got {type(w).__name__}")
    ops._check_tensor(w, "fpxc.quantize_weight: w")
    if w.dim() != 2:
        raise InvalidArgumentError(f"fpxc.quantize_weight: w must be 2-D (out_features, "
                                   f"in_features), got shape {tuple(w.shape)}")
    if w.dtype not in (torch.float32, torch.bfloat16, torch.float16):
        raise InvalidArgumentError(f"fpxc.quantize_weight: w must be float32, bfloat16 or "
                                   f"float16, got {w.dtype}")
    n, k = w.shape
    if n == 0 or k == 0:
        raise InvalidArgumentError(f"fpxc.quantize_weight: w is empty ({n} x {k})")
    w = w.detach()
    if not bool(torch.isfinite(w).all()):
        raise InvalidArgumentError("fpxc.quantize_weight: w holds inf or NaN; the weight-only "
                                   "GEMM decodes finite codes only")
    np_, kp = _round_up(n, fmt.pad[0]), _round_up(k, fmt.pad[1])
    if fmt.block[1] == 0:
        # The scales of the logical weight; padded columns would not change
        # a row's amax (zeros), padded rows get zero scales (their codes are 0).
        q = ops_quantize(w, fmt)
        codes = q.data.view(torch.uint8)
        scales = q.scales.float()
        if (np_, kp) != (n, k):
            codes = torch.nn.functional.pad(codes, (0, kp - k, 0, np_ - n))
            scales = torch.nn.functional.pad(scales, (0, 0, 0, np_ - n))
    else:
        # Block scales: the zero-padded weight is quantized (its zero blocks
        # have zero codes; NVFP4's tensor amax, hence g, is the logical one's).
        if (np_, kp) != (n, k):
            w = torch.nn.functional.pad(w, (0, kp - k, 0, np_ - n))
        q = ops_quantize(w, fmt)
        codes = q.data.view(torch.uint8)
        if fmt.bits == 4:
            # fp4x2: element 2j in the LOW nibble of byte j (docs/formats.md).
            codes = torch.stack((codes & 0xF, codes >> 4), dim=-1).reshape(np_, kp)
        scales = q.scales
    packed = _LAYOUT_FUNCS[fmt.layout][0](codes, fmt.bits)
    g = q.global_scale.float().reshape(()).contiguous() if fmt.global_scale else None
    return PackedWeight(packed.contiguous(), scales.contiguous(), fmt, (n, k), g)


def ops_quantize(w, fmt):
    """fpxc.quantize of the weight with the format's scale blocks (the one
    owner of the scale rule and the codes; NVFP4 with its global scale)."""
    from .api import quantize
    if fmt.bits in (6, 5):  # one code a byte, packed into mma_tiles' planes after
        return quantize(w, format=fmt.name, block=fmt.block, packing="bytes")
    return quantize(w, format=fmt.name, block=fmt.block)


# ---------------------------------------------------------------------------
# fpxc.linear
# ---------------------------------------------------------------------------

_ACT_WORDS = {torch.bfloat16: "bf16", torch.float16: "f16"}


# The package's fallback warning, once per signature (no frame of its own:
# the warning points at the caller's line as before).
_warn_fallback = functools.partial(ops.warn_gemm_fallback, "linear")


def bundle_options(fmt, act_word):
    """The dispatch key of a linear kernel (build_bundle.py's linear_config
    writes the same dicts)."""
    return {"op": "linear", "format": fmt.name, "block": list(fmt.block),
            "weight_layout": fmt.layout, "scale_dtype": fmt.scale_word, "input_dtype": act_word,
            "output_dtype": act_word, "rank": 2}


class _LinearPlan:
    """One bundled weight-only GEMM for one call signature, resolved once: a
    plain description that a C++ dispatch can take over.

    kernel: the bundled function (its launch), on `device`.
    operands: (word, shape) of x (M, Kp), the packed codes (Np, Kp * bits /
      8), the scales ((Np, 1) or (Np, Kp / block)) and NVFP4's global scale
      (rank 0), in the artifact's input order.
    temps: the artifact's scratch, not torch's allocator: the split-K
      workspace `ws` f32 [8, min(M*Np, 2^20)], which the runtime allocates
      per launch from its stream-ordered pool (under CUDA graph capture:
      graph memory nodes), and the counters `cnt`, which the kernels leave
      zero and the runtime keeps per stream and per capture
      (docs/artifact.md, "kept_zero").
    outputs: (word, shape, dtype) of y (M, Np).
    pad_k: zero columns x gets (Kp - K); n: the logical N y is cut to.
    """

    __slots__ = ("fn", "launch", "device", "operands", "temps", "outputs", "pad_k", "n")

    def __init__(self, kernel, shapes, k, n, dtype):
        fn = kernel.fn
        self.fn = fn._fn
        self.launch = fn._fn.launch
        words = [w for _, w in fn.inputs]
        self.operands = [(w, list(s)) for w, s in zip(words, shapes)]
        self.temps = "runtime"
        (shape,) = fn.output_shapes(*shapes)
        kp = shapes[0][1]
        self.outputs = [(fn.outputs[0][1], list(shape), dtype)]
        self.pad_k = kp - k
        self.n = n
        self.device = None

    def offer(self, lead, bias):
        """Describes the launch to the C++ kernel of torch.ops.fpxc.linear
        missing this signature now (src/TorchOps.cpp): x (argument 0, read as
        (M, K) whatever its leading dimensions), the codes, the scales and
        NVFP4's g (1, 2, 7), y as x's leading dimensions and N, the bias
        (3) added to y in place. Only calls with no padding of K or cut of N
        around the launch."""
        if self.pad_k or not _fpx._plan_pending("fpxc::linear"):
            return
        word, shape, dtype = self.outputs[0]
        if self.n != shape[1]:
            return
        args = (0, 1, 2, 7)[:len(self.operands)]
        ins = [(a, w, s, False) for a, (w, s) in zip(args, self.operands)]
        _fpx._offer_plan("fpxc::linear", self.fn, ins,
                         [(list(lead) + [self.n], ops._TORCH_NAMES[dtype], word, shape)], [],
                         [0], [], [] if bias is None else [(3, 0)])

    def __call__(self, x2, codes, scales, g=None):
        if self.pad_k:
            x2 = torch.nn.functional.pad(x2, (0, self.pad_k))
        ts = [x2, codes, scales] if g is None else [x2, codes, scales, g]
        held = ops._kernel_operands(ts)  # alive until the launch
        word, shape, dtype = self.outputs[0]
        y = torch.empty(shape, dtype=dtype, device=x2.device)
        self.launch(ops._raw_stream(x2.device),
                    [(t.data_ptr(), w, s, []) for t, (w, s) in zip(held, self.operands)],
                    [(y.data_ptr(), word, shape, [])], [])
        if self.n != shape[1]:
            y = y[:, : self.n].contiguous()
        return y


_plans = {}    # (x dtype, device, M, format, N, K) -> _LinearPlan
_checked = {}  # a checked eager call's whole signature -> its _LinearPlan


def _forget():
    _plans.clear()
    _checked.clear()


bundle._forget_hooks.append(_forget)
atexit.register(_forget)


def _linear_plan(x2, codes, scales, g, fmt, n, k):
    """The plan of the bundled kernel serving this call, or (None, why)."""
    word = _ACT_WORDS.get(x2.dtype)
    if word is None:
        return None, f"{x2.dtype} activations"
    kernel = bundle.find(bundle_options(fmt, word), x2.device)
    if kernel is None:
        major, minor = torch.cuda.get_device_capability(x2.device)
        return None, f"no bundled {fmt.name} x {word} kernel for sm_{major}{minor}"
    m = x2.shape[0]
    kp = _round_up(k, fmt.pad[1])
    shapes = [(m, kp), tuple(codes.shape), tuple(scales.shape)]
    if g is not None:
        shapes.append(tuple(g.shape))
    ok, why = kernel.fn.accepts(*shapes)
    if not ok:
        return None, why
    return _LinearPlan(kernel, shapes, k, n, x2.dtype), ""


def _check_linear(x, codes, scales, bias, fmt, n, k, g=None):
    what = "fpxc.linear"
    if fmt.global_scale and g is None:
        raise InvalidArgumentError(f"{what}: a {fmt.name} weight needs its global scale")
    if not fmt.global_scale and g is not None:
        raise InvalidArgumentError(f"{what}: a {fmt.name} weight has no global scale")
    for t, name in ((x, "x"), (codes, "codes"), (scales, "scales")) + \
            (((g, "global_scale"),) if g is not None else ()):
        if not isinstance(t, torch.Tensor):
            raise InvalidArgumentError(f"{what}: {name} must be a torch.Tensor, "
                                       f"got {type(t).__name__}")
        ops._check_tensor(t, f"{what}: {name}")
    if x.dtype not in (torch.bfloat16, torch.float16, torch.float32):
        raise InvalidArgumentError(f"{what}: x must be bfloat16 or float16 (float32 takes the "
                                   f"slower dequantize path), got {x.dtype}")
    if x.dim() not in (2, 3):
        raise InvalidArgumentError(f"{what}: x must be 2-D (tokens, in_features) or 3-D "
                                   f"(batch, tokens, in_features), got shape {tuple(x.shape)}")
    if x.shape[-1] != k:
        raise InvalidArgumentError(f"{what}: x has {x.shape[-1]} features in its last "
                                   f"dimension, the weight takes {k}")
    np_, kp = _round_up(n, fmt.pad[0]), _round_up(k, fmt.pad[1])
    cshape = (np_, fmt.packed_cols(kp))
    if codes.dtype != torch.uint8 or tuple(codes.shape) != cshape:
        raise InvalidArgumentError(f"{what}: the packed codes must be uint8 of shape "
                                   f"{cshape} ({n} x {k} padded"
                                   + (", two codes a byte" if fmt.bits == 4 else
                                      f", {fmt.bits}-bit codes: K * {fmt.bits} / 8 bytes a row"
                                      if fmt.bits < 8 else "")
                                   + f"), got {codes.dtype} of shape {tuple(codes.shape)}")
    sshape = ops._scale_grid(np_, kp, *fmt.block, "row_major")
    if scales.dtype != fmt.scale_dtype or tuple(scales.shape) != tuple(sshape):
        raise InvalidArgumentError(f"{what}: the scales must be {fmt.scale_dtype} of shape "
                                   f"{tuple(sshape)}, got {scales.dtype} of shape "
                                   f"{tuple(scales.shape)}")
    if g is not None and (g.dtype != torch.float32 or g.dim() != 0):
        raise InvalidArgumentError(f"{what}: the global scale must be a float32 scalar "
                                   f"tensor, got {g.dtype} of shape {tuple(g.shape)}")
    devices = {x.device, codes.device, scales.device}
    if g is not None:
        devices.add(g.device)
    if bias is not None:
        devices.add(ops.check_bias(bias, n, what))
    if len(devices) != 1:
        raise InvalidArgumentError(f"{what}: x, the weight and the bias must be on one "
                                   f"device, got {sorted(map(str, devices))}")


def _reference(x2, codes, scales, bias, fmt, n, k, g=None):
    """dequantize + torch.matmul in fp32, rounded to x's dtype once."""
    w = fmt.decode(_unpack(fmt, codes), scales, g)[:n, :k]
    y = x2.float() @ w.T
    if bias is not None:
        y = y + bias.float()
    return y.to(x2.dtype)


def _linear_impl(x: torch.Tensor, codes: torch.Tensor, scales: torch.Tensor,
                 bias: Optional[torch.Tensor], format: str, out_features: int,
                 in_features: int, global_scale: Optional[torch.Tensor] = None) -> torch.Tensor:
    fmt = weight_format(format)
    n, k, g = out_features, in_features, global_scale
    _check_linear(x, codes, scales, bias, fmt, n, k, g)
    lead = x.shape[:-1]
    x2 = x.reshape(-1, k)
    if x.is_cuda and x2.shape[0] > 0:
        y, why = _linear_kernel(x2, codes, scales, bias, fmt, n, k, g, lead)
        if y is not None:
            return y.view(*lead, n)
        _warn_fallback(f"{fmt.name} {x.dtype} x ({x2.shape[0]}, {k}) weight ({n}, {k})", why)
    return _reference(x2, codes, scales, bias, fmt, n, k, g).view(*lead, n)


def _linear_kernel(x2, codes, scales, bias, fmt, n, k, g=None, lead=None):
    """(y, "") from the bundled kernel's plan for this signature, or (None,
    why no kernel serves it). lead: x's leading dimensions (the C++ plan's
    result shape)."""
    key = (x2.dtype, x2.device, x2.shape[0], fmt.name, n, k)
    plan = _plans.get(key)
    if plan is None:
        plan, why = _linear_plan(x2, codes, scales, g, fmt, n, k)
        if plan is None:
            return None, why
        if len(_plans) < 4096:
            _plans[key] = plan
    plan.offer(x2.shape[:1] if lead is None else lead, bias)
    with ops._launch_device(x2):
        y = plan(x2, codes, scales, g)
    if bias is not None:
        # (the kernel has no bias epilogue yet: one more elementwise pass)
        y = y.add_(bias)  # (in y's dtype, computed as torch promotes: the C++ plan's add)
    return y, ""


# torch.ops.fpxc.linear's schema and CUDA kernel are fpxc._fpx's
# (src/TorchOps.cpp: a plan per call signature, launched from C++); this is
# its implementation for every other call (CPU tensors, CUDA misses), which
# offers the launch of a kernel-served signature to the C++ cache.
ops._lib.impl("linear", _linear_impl, "CompositeExplicitAutograd")
linear_op = torch.ops.fpxc.linear.default


@torch.library.register_fake("fpxc::linear")
def _linear_fake(x, codes, scales, bias, format, out_features, in_features,
                 global_scale=None):
    fmt = weight_format(format)
    _check_linear(x, codes, scales, bias, fmt, out_features, in_features, global_scale)
    return x.new_empty(tuple(x.shape[:-1]) + (out_features,))


# Calls that record gradients: the C++ Autograd kernel of fpxc::linear hands
# them to this op, whose forward is fpxc::linear below autograd.
@torch.library.custom_op("fpxc::linear_autograd", mutates_args=())
def _linear_autograd(x: torch.Tensor, codes: torch.Tensor, scales: torch.Tensor,
                     bias: Optional[torch.Tensor], format: str, out_features: int,
                     in_features: int, global_scale: Optional[torch.Tensor] = None
                     ) -> torch.Tensor:
    return linear_op(x, codes, scales, bias, format, out_features, in_features, global_scale)


_linear_autograd.register_fake(_linear_fake)


def _linear_setup(ctx, inputs, output):
    x, codes, scales, bias, format, n, k, g = inputs
    ctx.save_for_backward(codes, scales, g)
    ctx.meta = (format, n, k, x.dtype, bias is not None)


def _linear_backward(ctx, grad):
    codes, scales, g = ctx.saved_tensors
    format, n, k, dtype, has_bias = ctx.meta
    fmt = weight_format(format)
    w = fmt.decode(_unpack(fmt, codes), scales, g)[:n, :k]
    gx = (grad.float() @ w).to(dtype)
    gb = grad.reshape(-1, n).sum(0) if has_bias else None
    return gx, None, None, gb, None, None, None, None


# Gradients reach x and the bias (the packed weight is frozen).
_linear_autograd.register_autograd(_linear_backward, setup_context=_linear_setup)


def linear(x, weight, bias=None):
    """y = x @ dequantize(weight)^T + bias for x (M, K) or (B, S, K) in
    bfloat16 or float16 (float32 runs the dequantize path) and a PackedWeight
    (quantize_weight). y has x's dtype and (..., N). On CUDA: the bundled
    fused dequant GEMM on the current stream (capturable in CUDA graphs; the
    bias is a separate add until the kernel has a bias epilogue); the CPU and
    calls without a kernel dequantize and multiply in fp32 (on CUDA with the
    fallback warning)."""
    if not isinstance(weight, PackedWeight):
        raise InvalidArgumentError("fpxc.linear: weight must be a PackedWeight "
                                   f"(fpxc.quantize_weight), got {type(weight).__name__}")
    if not isinstance(x, torch.Tensor):
        raise InvalidArgumentError(f"fpxc.linear: x must be a torch.Tensor, "
                                   f"got {type(x).__name__}")
    codes, scales, g = weight.codes, weight.scales, weight.global_scale
    n, k = weight.shape
    if x.is_cuda and not torch.compiler.is_compiling():
        # the op through the dispatcher from C++ (a cached signature: its C++ plan)
        y = ops.bound_op("linear", (None, None, None, None, weight.format, n, k, None),
                         (0, 1, 2, 3, 7))(x, codes, scales, bias, g)
        if y is not None:
            return y
    args = (x, codes, scales, bias, weight.format, n, k, g)
    if not (ops.eager(x) and (bias is None
                              or not (torch.is_grad_enabled() and bias.requires_grad))):
        return torch.ops.fpxc.linear(*args)
    if not x.is_cuda:
        return _linear_impl(*args)
    y = _linear_planned(x, weight, bias)
    if y is None:
        y = _linear_impl(*args)
        _remember(x, weight, bias, y)
    return y


def _signature(x, weight, bias):
    codes, scales, g = weight.codes, weight.scales, weight.global_scale
    return (x.dtype, x.device, x.shape, weight.format, weight.shape, codes.dtype, codes.device,
            codes.shape, scales.dtype, scales.device, scales.shape,
            None if g is None else (g.dtype, g.device, g.shape),
            None if bias is None else (bias.dtype, bias.device, bias.shape))


def _linear_planned(x, weight, bias):
    """fpxc.linear of a signature that ran on a kernel before (eager, on the
    current device): its plan, no re-checks (every check depends only on
    what the signature holds); None otherwise."""
    plan = _checked.get(_signature(x, weight, bias))
    if plan is None or x.device.index != torch.cuda.current_device():
        return None
    n, k = weight.shape
    y = plan(x.reshape(-1, k), weight.codes, weight.scales, weight.global_scale)
    if bias is not None:
        y = y.add_(bias)  # (in y's dtype, computed as torch promotes: the C++ plan's add)
    return y.view(*x.shape[:-1], n)


def _remember(x, weight, bias, y):
    """After a checked call: its signature's plan, if a kernel served it."""
    n, k = weight.shape
    plan = _plans.get((x.dtype, x.device, y.numel() // max(n, 1), weight.format, n, k))
    if plan is not None and len(_checked) < 4096:
        _checked[_signature(x, weight, bias)] = plan
