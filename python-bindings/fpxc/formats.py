"""The high-level format names and how each one quantizes.

A high-level format (a scheme) is an element format, a kind of scale and a
default block. Every word here -- schemes, element formats, scale kinds,
scale rules, roundings, packings, scale layouts -- comes from the numerics
core's vocabulary (numerics/include/fpx/Numerics/Vocabulary.h) through the
extension; this module only arranges it for the API.
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


VOCABULARY = _fpx.vocabulary()


def _api_words(table, keep=lambda entry: True):
    return tuple(e["api"] for e in VOCABULARY[table] if keep(e))


# Every name and alias of a scheme -> its Scheme.
_SCHEMES = {
    word: Scheme(e["elem"], e["scale_kind"], tuple(e["block"]), e["bits"])
    for e in VOCABULARY["schemes"] for word in (e["name"],) + e["aliases"]
}
# (element format, scale kind) -> the canonical scheme name (bundles are
# keyed by it).
SCHEME_NAMES = {(e["elem"], e["scale_kind"]): e["name"] for e in VOCABULARY["schemes"]}

# The E8M0 rules of the API (rceil_rcp included: the CPU reference has it).
RULES = _api_words("scale_rules", lambda e: e["pow2"])
# The roundings fpxc's kernels implement.
ROUNDINGS = _api_words("roundings", lambda e: e["compiled"])
SCALE_KINDS = _api_words("scale_kinds")
SCALE_LAYOUTS = _api_words("scale_layouts")
# What an MX block holding inf or NaN produces; the first is the default.
NONFINITES = _api_words("nonfinites")


def packings_for(bits):
    """The packing words that apply to codes of `bits` bits: the packings
    made for that width and "bytes" (one code a byte); a width no packing is
    made for (8-bit, e2m2) also takes "none". The first is the default."""
    words = _api_words("packings",
                       lambda e: e["element_bits"] in (0, bits) and not e["gemm_weight"])
    if not any(e["element_bits"] == bits and not e["gemm_weight"]
               for e in VOCABULARY["packings"]):
        words = ("none",) + words
    return words


FP6_PACKINGS = packings_for(6)


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
        if scale not in SCALE_KINDS:
            raise InvalidArgumentError(f"unknown scale kind {scale!r}")
        s = Scheme(s.elem, scale, s.block, s.bits)
    return s


def known_formats():
    return sorted(_SCHEMES)
