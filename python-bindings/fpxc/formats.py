"""The high-level format names and how each one quantizes.

A high-level format is an element format, a kind of scale and a default
block. The element formats and every bit-level rule live in the C++ numerics
core (docs/formats.md); this table only names combinations.
"""

from dataclasses import dataclass

from ._errors import InvalidArgumentError
from ._native import _fpx


@dataclass(frozen=True)
class Scheme:
    elem: str          # numerics element format name
    scale: str         # e8m0 | nvfp4 | fp32 | fp32_pow2
    block: tuple       # default (rows, cols); 0 = whole dimension
    bits: int          # element bits


_SCHEMES = {
    "mxfp8_e4m3": Scheme("e4m3fn", "e8m0", (1, 32), 8),
    "mxfp8_e5m2": Scheme("e5m2", "e8m0", (1, 32), 8),
    "mxfp6_e2m3": Scheme("e2m3fn", "e8m0", (1, 32), 6),
    "mxfp6_e3m2": Scheme("e3m2fn", "e8m0", (1, 32), 6),
    "mxfp4": Scheme("e2m1fn", "e8m0", (1, 32), 4),
    "mxfp4_e2m1": Scheme("e2m1fn", "e8m0", (1, 32), 4),
    "nvfp4": Scheme("e2m1fn", "nvfp4", (1, 16), 4),
    "fp8_e4m3": Scheme("e4m3fn", "fp32", (1, 128), 8),
    "fp8_e5m2": Scheme("e5m2", "fp32", (1, 128), 8),
}

RULES = ("floor", "ceil", "even", "rceil", "rceil_rcp")
ROUNDINGS = ("rn", "rz", "rs")
SCALE_LAYOUTS = ("row_major", "blocked")
FP6_PACKINGS = ("bytes", "4+2", "contiguous", "contiguous_msb")


def scheme(format, scale=None):
    """The Scheme for a high-level name ("mxfp8_e4m3") or an element format
    name known to the numerics core ("e3m2", "e4m3fn"), with an optional
    scale-kind override."""
    if not isinstance(format, str):
        raise InvalidArgumentError(
            f"format must be a str such as 'mxfp8_e4m3' or 'e3m2', got {format!r}")
    s = _SCHEMES.get(format.lower())
    if s is None and format.lower().startswith(("mx", "nv")):
        # The numerics core reads "mxfp8" and "nvfp4" as element formats
        # (e4m3, e2m1); as a high-level name that would be a per-128 fp32
        # scaled cast, not the MX/NV scheme the name promises.
        raise InvalidArgumentError(
            f"unknown format {format!r}: MX and NV formats are named with their element "
            f"format; known: {sorted(_SCHEMES)}")
    if s is None:
        try:
            name, bits, ebits, mbits, _ = _fpx.format_info(format)
        except Exception:
            raise InvalidArgumentError(
                f"unknown format {format!r}; known: {sorted(_SCHEMES)} or an element "
                "format such as 'e4m3fn', 'e3m2', 'e2m1'") from None
        # Element codes are signed and at most a byte: the unsigned scale
        # formats (e8m0, ue4m3) would lose every sign.
        signed = bits == 1 + ebits + mbits
        if not signed or bits > 8:
            raise InvalidArgumentError(
                f"format {format!r} ({name}: {'' if signed else 'unsigned, '}{bits} bits) is "
                "not an element format; element formats are signed and at most 8 bits")
        s = Scheme(name, "fp32", (1, 128), bits)
    if scale is not None:
        if scale not in ("e8m0", "nvfp4", "fp32", "fp32_pow2"):
            raise InvalidArgumentError(f"unknown scale kind {scale!r}")
        s = Scheme(s.elem, scale, s.block, s.bits)
    return s


def known_formats():
    return sorted(_SCHEMES)
