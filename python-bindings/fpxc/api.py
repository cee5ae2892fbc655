"""The user-facing quantization API (torchao-style names)."""

import numbers
from typing import NamedTuple, Optional

import torch

from . import ops
from ._errors import InvalidArgumentError
from ._native import _fpx


class QuantizedTensor(NamedTuple):
    """What quantize() returns. data: element codes (float8 dtypes for fp8,
    packed uint8 for fp4/fp6); scales: e8m0 / ue4m3 codes (float8 dtypes) or
    float32; global_scale: the NVFP4 per-tensor fp32 scale (None otherwise);
    scale_layout: how `scales` are laid out, "row_major" or "blocked" (the
    128x4 tiles of quantize(..., scale_layout="blocked")), which scaled_mm
    reads. A QuantizedTensor built by hand from blocked scales must say so:
    QuantizedTensor(codes, scales, g, "blocked")."""

    data: torch.Tensor
    scales: torch.Tensor
    global_scale: Optional[torch.Tensor]
    scale_layout: str = "row_major"

    def to(self, *args, **kwargs):
        """The same QuantizedTensor with its tensors moved as Tensor.to moves
        them (a device; a dtype would change the codes and is refused)."""
        moved = {f: getattr(self, f).to(*args, **kwargs) for f in ("data", "scales", "global_scale")
                 if getattr(self, f) is not None}
        if any(moved[f].dtype != getattr(self, f).dtype for f in moved):
            raise InvalidArgumentError("QuantizedTensor.to moves its tensors; it does not "
                                       "change their dtypes (the codes' and scales' formats)")
        return self._replace(**moved)


def _block(block, default):
    if block is None:
        return default
    if not isinstance(block, (tuple, list)):
        return (1, ops._check_int(block, "block"))
    if len(block) != 2:
        raise InvalidArgumentError(f"block must be (rows, cols), got {block!r}")
    return tuple(0 if b is None else ops._check_int(b, "each block entry") for b in block)


def _number(value, what, device=None):
    """A Python or NumPy real number as a float32 tensor (on `device`), or
    None where value is no number."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return None
    try:
        value = float(value)
    except OverflowError:
        raise InvalidArgumentError(f"{what} is an integer too large for a float") from None
    return torch.tensor(value, dtype=torch.float32, device=device)


DEFAULT_HADAMARD_SEED = 0

# The CUDA calls go through torch's dispatcher to fpxc._fpx's C++ kernel (a
# plan cached per signature, src/TorchOps.cpp); CPU calls outside tracing and
# autograd run the implementation directly (the reference costs far more
# than the dispatch it skips).
_quantize_op = torch.ops.fpxc.quantize.default
_dequantize_op = torch.ops.fpxc.dequantize.default
_hadamard_op = torch.ops.fpxc.hadamard.default
_swizzle_op = torch.ops.fpxc.swizzle_scales.default

# What the argument checks made of a call's option arguments, by their values
# and types (True is not 1 here), so that an eager call resolves its
# aliases and defaults once per argument tuple.
_resolved = {}


def _resolve_cached(kind, values, resolve, block, types):
    """resolve() (the checks of the option arguments `values`), remembered
    per (values, `types`, the block's entries' types): `types` are those of
    the integer arguments, which equal values of other types (True, 1.0)
    must not reach; unhashable values and tracing resolve anew."""
    if torch.compiler.is_compiling():
        return resolve()
    try:
        key = (kind, values, types,
               tuple(map(type, block)) if type(block) is tuple else type(block))
        hit = _resolved.get(key)
    except TypeError:  # (an unhashable argument, e.g. a list block)
        return resolve()
    if hit is None:
        hit = resolve()  # (raises on a bad call: nothing remembered)
        if len(_resolved) < 4096:
            _resolved[key] = hit
    return hit


def _seed(seed, what="seed"):
    if type(seed) is int and 0 <= seed < 2 ** 63:
        return seed
    return ops._check_seed(seed, what)


def quantize(x, format="mxfp8_e4m3", block=None, rule=None, rounding="rn",
             scale_layout="row_major", packing="auto", seed=0, scale=None,
             global_scale=True, hadamard=0, hadamard_seed=DEFAULT_HADAMARD_SEED, amax=None,
             return_amax=False, nonfinite="nan"):
    """Quantizes a 2-D or 3-D (batch, rows, cols) tensor block by block.

    format: "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4",
      "nvfp4", "fp8_e4m3", "fp8_e5m2", or an element format name ("e3m2").
    block: (rows, cols) over the last two dims, None entries = whole dim;
      defaults per format ((1, 32) MX, (1, 16) NVFP4, (1, 128) fp8).
    rule: E8M0 scale rule "floor" (OCP), "ceil", "even", "rceil" (NVIDIA),
      "rceil_rcp"; "pow2" for power-of-two fp32 scales.
    rounding: "rn", "rz" or "rs" (stochastic, Philox stream from `seed`).
    nonfinite: what an MX block holding +-inf or NaN produces. "nan" (the
      default; OCP MX and torchao's to_mx): scale 0xFF (NaN) and NaN elements
      (fp6 and fp4 have no NaN: their codes are +max and the scale alone
      marks the block; it dequantizes to NaN). "saturate": an infinite amax
      gives the scale 2^127 (0xFE) and the infinities saturate to +-max (the
      block's finite values flush to zero); a NaN block is still NaN. Only
      MX (e8m0) formats take "saturate"; NVFP4 and fp32 scales have one
      fixed behaviour (docs/formats.md, "Non-finite inputs"). On CUDA the
      saturating casts are kernels of the full bundle; without them the call
      takes the CPU reference, with the fallback warning.
    scale_layout: "row_major" or "blocked" (the 128x4 tiles cuBLAS reads).

    Column blocks (block=(32, 1), (16, 1): one scale per 32 rows of a
    column, the right-hand operand of a matmul) quantize x.mT with row
    blocks and return it transposed, like torchao's dim1 cast: `data` has
    x's shape (..., M, K) and is column-major (data.mT is contiguous
    (..., K, M); packed fp4 halves M), and `scales` is row-major
    (..., K, cdiv(M, 32)): scales[..., k, j] scales x[..., 32j:32j+32, k].
    On CUDA this is one fpxc kernel (no separate transpose).
    packing: fp4 "fp4x2" (default) or "bytes"; fp6 "bytes" (default),
      "planes" (per row, a plane of 2-bit high parts then one of 4-bit low
      parts; formerly "4+2"), "interleaved" (torchao PR #1810's 4+2: every 4
      codes in 3 bytes, as its pack_uint6_pytorch), "contiguous",
      "contiguous_msb". The 4-in-3 packings need a last dimension that is a
      multiple of 4 and make it 3/4 as long. docs/formats.md has the bits.
    block=(16, 16), (32, 32), (128, 128): 2-D blocks, one scale per
      Br x Bc tile of each matrix (NVFP4 weights, MXFP8, DeepSeek-V3 fp8).
    hadamard: 0, or N (a power of two in [2, 128]) for a random Hadamard
      transform over blocks of N elements of each row before the cast (and
      before NVFP4's amax), with random signs from `hadamard_seed`. The
      transformed values stay in fp32 (unlike fpxc.quantize(fpxc.hadamard(x)),
      which rounds them to x's dtype first). NVFP4 with hadamard=16 and
      rounding="rs" is the NVFP4 training recipe for gradients. On CUDA the
      transform is fused into the kernels for the bundled seeds (0, the
      default; see docs/runtime.md); other seeds use the CPU reference.
    amax: NVFP4 only: the tensor amax the global scale is derived from
      (g = amax / (448 * 6)), e.g. kept from an earlier step (delayed
      scaling), instead of max |x| (of the transformed x with hadamard).
      A float tensor with one value (or one per matrix of a 3-D x) on x's
      device, or a number (Python or NumPy). On CUDA the cast then reads x once (no amax
      pass): 1.67x faster at 131072x7168 on an H200 (docs/performance.md).
      Values of x above what the amax implies saturate, as in the reference;
      the amax's magnitude is taken.
    return_amax: also return max |x| (of the transformed x with hadamard;
      one per matrix of a 3-D NVFP4 x), NaN if any value is NaN, as
      (QuantizedTensor, amax): the amax the next step's delayed-scaling call
      takes; 0 for an empty x. On CUDA the bundled NVFP4 casts from bf16 in
      1x16 blocks with amax= given compute it in the same kernel (x read
      once): a matrix (rn or rs; with hadamard=16 the rs recipe), or a batch
      (E, M, K) cast in one launch (an amax per matrix). Other calls reduce
      it separately (in one more read; that of a transform on the host).
    A 3-D x in NVFP4 (a batch of matrices, e.g. experts) gets one global
    scale per matrix, as if each were quantized alone (stochastic rounding
    draws its bits by the element's index in the whole batch); on CUDA,
    1x16 blocks with row-major scales and no transform run in one launch
    (matrices of a multiple of 8192 elements), the others under
    round-to-nearest one launch per matrix; stochastic rounding outside the
    one-launch case takes the CPU reference (docs/runtime.md).
    """
    ops._check_tensor(x, "x")

    def resolve():
        s = ops.scheme(format, scale)
        br, bc = _block(block, s.block)
        h = 0 if hadamard is None else ops._check_hadamard(hadamard)
        hs = ops._check_seed(hadamard_seed, "hadamard_seed")
        if not isinstance(return_amax, bool):
            raise InvalidArgumentError(f"return_amax must be True or False, got {return_amax!r}")
        if not isinstance(nonfinite, str):
            raise InvalidArgumentError(
                f"nonfinite must be one of {ops.NONFINITES}, got {nonfinite!r}")
        return (s.scale == "nvfp4", ops._is_column(br, bc),
                (format, br, bc, scale or "", rule or "", rounding, scale_layout,
                 packing or "auto"), (bool(global_scale), h, hs))

    nvfp4, column, options, more = _resolve_cached(
        "quantize", (format, block, rule, rounding, scale_layout, packing, scale, global_scale,
                     hadamard, hadamard_seed, return_amax, nonfinite), resolve, block,
        (type(hadamard), type(hadamard_seed), type(return_amax)))
    if amax is not None and not isinstance(amax, torch.Tensor):
        given, amax = amax, _number(amax, "amax", x.device)
        if amax is None:
            raise InvalidArgumentError(f"amax must be a float tensor or a number, got {given!r}")
    seed = _seed(seed)
    out = None
    if x.is_cuda and not return_amax and not torch.compiler.is_compiling():
        # (g is NVFP4's alone: the others' g = 1 is not made)
        out = ops.bound_op("quantize", (None, *options, None, *more, None, nonfinite),
                        (0, 9, 13), drop_fills=not nvfp4)(x, seed, amax)
    if out is not None:
        data, scales, gs = out
    else:
        args = (x, *options, seed, *more, amax, nonfinite)
        if return_amax and x.is_cuda and ops.eager(x):  # the cast reducing the amax too
            fused = ops.quantize_recording_amax(*args)
            if fused is not None:
                data, scales, gs, next_amax = fused
                return QuantizedTensor(data, scales, gs, scale_layout), next_amax
        if x.is_cuda or not ops.eager(x):
            data, scales, gs = _quantize_op(*args)
        else:
            data, scales, gs = ops._quantize_impl(*args)
    if column:
        data = data.transpose(-2, -1)  # column-major, like torchao's dim1 cast
    q = QuantizedTensor(data, scales, gs if nvfp4 else None, scale_layout)
    if not return_amax:
        return q
    per_matrix = x.dim() == 3 and nvfp4
    return q, ops.tensor_amax(x, more[1], more[2], per_matrix)


def dequantize(data, scales=None, format="mxfp8_e4m3", block=None, scale_layout=None,
               packing="auto", global_scale=None, cols=None, dtype=torch.float32,
               scale=None):
    """Inverse of quantize(): decode(code) * scale per block, rounded to
    `dtype` (float32, bfloat16 or float16). `data` may be the QuantizedTensor
    quantize() returned (its data, scales and global scale are used), or
    codes and `scales` in quantize()'s dtypes, shapes and layouts with the
    same format, block, scale_layout and packing (fp32 scales may also be
    bfloat16 or float16); others are refused. `cols` is the unpacked column
    count where the packing leaves it ambiguous. scale_layout: the scales'
    layout, "row_major" or "blocked"; None: a QuantizedTensor's own, else
    "row_major".

    global_scale: NVFP4's per-tensor scale g, a tensor or a number
      (decoded values are code * block scale * g): one value, or one per
      matrix of 3-D codes, as quantize() returns it. On CUDA the kernel
      reads g on the device (no host sync); any g works, not only one
      derived from an amax.
    """
    if isinstance(data, QuantizedTensor):
        if scales is not None or global_scale is not None:
            raise InvalidArgumentError(
                "dequantize takes a QuantizedTensor's own scales and global scale: "
                "pass its fields separately to use others")
        if scale_layout is not None and scale_layout != data.scale_layout:
            raise InvalidArgumentError(
                f"dequantize: scale_layout={scale_layout!r}, but the QuantizedTensor's scales "
                f"are {data.scale_layout!r}")
        data, scales, global_scale, scale_layout = data
    if scale_layout is None:
        scale_layout = "row_major"
    ops._check_tensor(data, "data")
    if not isinstance(scales, torch.Tensor):
        raise InvalidArgumentError(f"scales must be a tensor of scale codes, got {scales!r}")
    ops._check_tensor(scales, "scales")
    if dtype not in (torch.float32, torch.bfloat16, torch.float16):
        raise InvalidArgumentError(
            f"dtype must be torch.float32, torch.bfloat16 or torch.float16, got {dtype}")
    if global_scale is not None and not isinstance(global_scale, torch.Tensor):
        given, global_scale = global_scale, _number(global_scale, "global_scale")
        if global_scale is None:
            raise InvalidArgumentError(
                f"global_scale must be a float tensor or a number, got {given!r}")
    if global_scale is not None:
        ops._check_tensor(global_scale, "global_scale")

    def resolve():
        s = ops.scheme(format, scale)
        br, bc = _block(block, s.block)
        c = 0 if cols is None else ops._check_int(cols, "cols")
        return s.scale == "nvfp4", ops._is_column(br, bc), br, bc, c

    nvfp4, column, br, bc, cols_ = _resolve_cached(
        "dequantize", (format, block, scale, cols), resolve, block, type(cols))
    if global_scale is not None and not nvfp4:
        raise InvalidArgumentError(f"global_scale is NVFP4's; format {format!r} has none")
    if column:
        ops._dims(data.shape, "dequantize takes data as")
        # The data is column-major (quantize returned the transpose's row
        # blocks as data.mT): dequantize the transpose and transpose back.
        data, br, bc = data.transpose(-2, -1), 1, br
    args = (format, br, bc, scale or "", scale_layout, packing or "auto", cols_, dtype)
    y = None
    if data.is_cuda and not torch.compiler.is_compiling():
        y = ops.bound_op("dequantize", (None, None, None, *args), (0, 1, 2))(
            data, scales, global_scale)
    if y is None:
        if data.is_cuda or not ops.eager(data):
            y = _dequantize_op(data, scales, global_scale, *args)
        else:
            y = ops._dequantize_impl(data, scales, global_scale, *args)
    return y.transpose(-2, -1).contiguous() if column else y


def hadamard(x, block=16, seed=0, random_signs=True):
    """Random Hadamard transform over blocks of `block` elements of the last
    dimension (signs from a Philox stream of `seed`)."""
    ops._check_tensor(x, "x")
    block = ops._check_hadamard(block, "block", none=False)
    seed = ops._check_seed(seed)
    h = ops._hadamard_impl if ops.eager(x) and not x.is_cuda else _hadamard_op
    return h(x, block, seed, bool(random_signs))


def swizzle_scales(scales, group_ends=None, check=True):
    """Byte block scales (uint8, float8_e8m0fnu or float8_e4m3fn; rows x
    cols, row-major) in the blocked 128x4 layout block-scaled tensor cores
    read: padded with zeros to multiples of 128 rows and 4 columns, tiled.

    group_ends (1-D int32, the groups' end rows, non-decreasing, the last
    equal to rows; MoE): each group of rows padded and tiled on its own,
    the groups one after another, as grouped GEMMs read them. The result has
    the upper-bound row count cdiv(rows + 128 * groups, 128) * 128 (no host
    sync for the layout's true size); rows past the last group are zero.
    check: read group_ends on the host to reject bad ends
    (InvalidArgumentError); False skips that copy (a bundled kernel then
    makes an empty group of an end below one before it; the CPU path reads
    the ends anyway and still rejects bad ones)."""
    ops._check_tensor(scales, "scales")
    if scales.dtype not in (torch.uint8, torch.float8_e8m0fnu, torch.float8_e4m3fn):
        raise InvalidArgumentError(f"scales must hold byte scales (uint8, float8_e8m0fnu or "
                                   f"float8_e4m3fn), got {scales.dtype}")
    if scales.dim() != 2:
        raise InvalidArgumentError(f"scales must be 2-D (rows, cols), got {scales.dim()}-D")
    rows, cols = scales.shape
    if group_ends is not None:
        ops._check_tensor(group_ends, "group_ends")
        if group_ends.dtype != torch.int32 or group_ends.dim() != 1 or group_ends.numel() == 0:
            raise InvalidArgumentError("group_ends must be a non-empty 1-D int32 tensor, got "
                                       f"{group_ends.dtype} of shape {tuple(group_ends.shape)}")
        if group_ends.device != scales.device:
            raise InvalidArgumentError(f"group_ends is on {group_ends.device}, scales on "
                                       f"{scales.device}")
        if check:
            ops.check_group_ends(group_ends.cpu().tolist(), rows)
    if scales.is_cuda or not ops.eager(scales):
        return _swizzle_op(scales, group_ends)
    return ops.swizzle_scales_impl(scales, group_ends)


def _cpu_u8(t, what, layout):
    """t (uint8, at least 1-D) on the host, contiguous, for an fp6 packing
    `layout` (one of FP6_PACKINGS)."""
    ops._check_tensor(t, what)
    if t.dtype != torch.uint8:
        raise InvalidArgumentError(f"{what} must be uint8 codes, got {t.dtype}")
    if t.dim() < 1:
        raise InvalidArgumentError(f"{what} must be at least 1-D")
    if layout not in ops.FP6_PACKINGS:
        raise InvalidArgumentError(f"unknown fp6 layout {layout!r}; known: {ops.FP6_PACKINGS}"
                                   + ops.AMBIGUOUS_4P2_HINT.get(layout, ""))
    return t.detach().cpu().resolve_neg().contiguous()


def pack_fp6(codes, layout="planes"):
    """Packs fp6 codes (uint8 in [0, 64), one per byte) along the last dim
    in `layout`: "planes" (the default; formerly "4+2"), "interleaved"
    (torchao #1810's 4+2), "contiguous", "contiguous_msb" or "bytes". The
    4-in-3 layouts need a last dim that is a multiple of 4 and return 3/4 of
    it."""
    c = _cpu_u8(codes, "codes", layout)
    if c.numel() and int(c.max()) >= 64:
        # (the packer keeps the low 6 bits: another code)
        raise InvalidArgumentError(f"fp6 codes are 6 bits (< 64), got {int(c.max())}")
    cols = c.shape[-1]
    rows = c.numel() // max(cols, 1)
    pc = _fpx.fp6_packed_cols(cols, layout)
    out = torch.empty(list(c.shape[:-1]) + [pc], dtype=torch.uint8)
    _fpx.pack_fp6(c.data_ptr(), rows, cols, layout, out.data_ptr())
    return out.to(codes.device)


def unpack_fp6(packed, cols, layout="planes"):
    """Inverse of pack_fp6; `cols` is the unpacked column count."""
    p = _cpu_u8(packed, "packed", layout)
    cols = ops._check_int(cols, "cols")
    # The packed width must be the one `cols` packs to: the unpacker reads that many bytes.
    pc = _fpx.fp6_packed_cols(cols, layout)
    if p.shape[-1] != pc:
        raise InvalidArgumentError(f"{cols} columns pack to {pc} bytes a row under {layout!r}, "
                                   f"but packed has {p.shape[-1]}")
    rows = p.numel() // max(p.shape[-1], 1)
    out = torch.empty(list(p.shape[:-1]) + [cols], dtype=torch.uint8)
    _fpx.unpack_fp6(p.data_ptr(), rows, cols, layout, out.data_ptr())
    return out.to(packed.device)
