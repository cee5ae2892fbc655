"""High-level ops: the implementations of torch.ops.fpxc.*.

The ops' schemas and CUDA kernel are C++ (src/TorchOps.cpp in fpxc._fpx): a
CUDA call whose signature ran before launches its cached plan there, with no
Python. Everything else comes here: each op has one implementation (the
CompositeExplicitAutograd kernel) that dispatches by device: CUDA tensors go
to a prebuilt kernel from an AOT bundle when one matches (fpx/bundle.py),
describing that launch to the C++ cache (_offer), else to the CPU reference
of the numerics core (with a one-time warning, since the round trip is
slow); CPU tensors always use the reference. The fake (meta) kernels compute
output shapes and dtypes only, so torch.compile (fullgraph=True) traces
through the ops without graph breaks.
"""

import atexit
import contextlib
import operator
import warnings
from typing import Optional, Tuple

import torch

from . import _dtypes, bundle
from ._errors import InvalidArgumentError
from ._native import _fpx
from .formats import (FP6_PACKINGS, NONFINITES, ROUNDINGS, RULES, SCALE_LAYOUTS,  # noqa: F401
                      SCHEME_NAMES, packings_for, scheme)


def _check_nonfinite(nonfinite, kind, format):
    """What an MX block holding inf or NaN produces: "nan" (the default,
    OCP MX and torchao) or "saturate"; only E8M0 scales have the choice."""
    if nonfinite not in NONFINITES:
        raise InvalidArgumentError(f"unknown nonfinite {nonfinite!r}; known: {NONFINITES}")
    if nonfinite != NONFINITES[0] and kind != "e8m0":
        raise InvalidArgumentError(
            f"nonfinite={nonfinite!r} is a choice of MX (e8m0) scales; the {kind} scales of "
            f"{format!r} treat inf and NaN one fixed way (docs/formats.md, \"Non-finite inputs\")")
    return nonfinite


def _cdiv(a, b):
    return -(-a // b)


def _resolve(format, block_rows, block_cols, scale, rule, rounding, scale_layout, packing):
    """Checks the options and returns (scheme, kind, rule, packing)."""
    s = scheme(format, scale or None)
    kind = s.scale
    if kind == "e8m0":
        rule = rule or "floor"
        if rule not in RULES:
            raise InvalidArgumentError(f"unknown scale rule {rule!r}; known: {RULES}")
    elif kind in ("fp32", "fp32_pow2"):
        if rule in ("pow2", "ceil"):
            kind = "fp32_pow2"
        elif rule not in (None, "", "none", "floor"):
            raise InvalidArgumentError(f"rule {rule!r} does not apply to fp32 scales (use 'pow2')")
        rule = "floor"
    else:
        rule = "floor"
    if rounding not in ROUNDINGS:
        raise InvalidArgumentError(f"unknown rounding {rounding!r}; known: {ROUNDINGS}")
    if scale_layout not in SCALE_LAYOUTS:
        raise InvalidArgumentError(f"unknown scale_layout {scale_layout!r}; known: {SCALE_LAYOUTS}")
    if scale_layout == "blocked" and kind not in ("e8m0", "nvfp4"):
        raise InvalidArgumentError("the blocked scale layout holds byte scales (MX, NVFP4)")
    if block_rows < 0 or block_cols < 0:
        raise InvalidArgumentError("block sizes must be >= 0 (0 = the whole dimension)")
    if packing in (None, "", "auto"):
        packing = packings_for(s.bits)[0]
    valid = packings_for(s.bits)
    if packing not in valid:
        raise InvalidArgumentError(f"packing {packing!r} does not apply to {s.elem}; use one of {valid}"
                                   + AMBIGUOUS_4P2_HINT.get(packing, ""))
    return s, kind, rule, packing


# "4+2" named fpx's plane layout until both fp6 4+2 layouts had names of
# their own; it is refused rather than guessed.
AMBIGUOUS_4P2_HINT = {w: (" ('4+2' is ambiguous: 'planes' is fpx's per-row bit planes, formerly "
                          "'4+2'; 'interleaved' is torchao #1810's 4+2, its pack_uint6_pytorch)")
                      for w in ("4+2", "fp6_4p2", "split4p2")}


def _show(value):
    """repr(value) for an error message (an int too long for repr named by
    its size)."""
    try:
        return repr(value)
    except ValueError:
        return f"an integer of {value.bit_length()} bits"


def _as_int(value):
    """value as an int where it is an integer (Python, NumPy, an integer
    0-d tensor), else None (a bool, float, str, ...)."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _check_int(value, what):
    """value as an int in [0, 2^63): what the ops' int64 arguments and the
    numerics core's sizes hold."""
    v = _as_int(value)
    if v is None or not 0 <= v < 2 ** 63:
        raise InvalidArgumentError(f"{what} must be an integer in [0, 2^63), got {_show(value)}")
    return v


def _check_seed(seed, what="seed"):
    """Philox seeds are integers in [0, 2^63): the ops' int64 argument and
    the numerics core's uint64 both hold them."""
    return _check_int(seed, what)


_HADAMARD_SIZES = (0, 2, 4, 8, 16, 32, 64, 128)


def _check_hadamard(n, what="hadamard", none=True):
    """A Hadamard transform's size as an int: a power of two in [2, 128],
    or 0 (no transform) where `none`."""
    v = _as_int(n)
    if v not in (_HADAMARD_SIZES if none else _HADAMARD_SIZES[1:]):
        raise InvalidArgumentError(f"{what} must be {'0 (none) or ' if none else ''}a power of "
                                   f"two in [2, 128], got {_show(n)}")
    return v


def _check_tensor(t, what):
    """t is a torch.Tensor on the CPU or a CUDA device (the devices fpx
    computes on)."""
    if not isinstance(t, torch.Tensor):
        raise InvalidArgumentError(f"{what} must be a torch.Tensor, got {type(t).__name__}")
    if t.is_cuda or t.is_cpu:  # (cheaper than building t.device)
        return t
    if t.device.type not in ("cpu", "cuda"):
        raise InvalidArgumentError(
            f"{what} is on {t.device}; fpx computes on CPU and CUDA tensors")
    return t


def check_bias(bias, n, what):
    """A GEMM's bias: a floating-point (n,) tensor (the op `what` named in
    the error); returns its device."""
    if not isinstance(bias, torch.Tensor) or not bias.is_floating_point():
        raise InvalidArgumentError(f"{what}: bias must be a floating-point tensor or None, "
                                   f"got {getattr(bias, 'dtype', type(bias).__name__)}")
    if tuple(bias.shape) != (n,):
        raise InvalidArgumentError(f"{what}: bias must have shape ({n},) (N), got "
                                   f"{tuple(bias.shape)}")
    return bias.device


def _check_amax(amax, kind, global_scale, x):
    """A given tensor amax (delayed scaling) is NVFP4's: one value, or one
    per matrix of a 3-D input, a float tensor on x's device."""
    if amax is None:
        return
    if kind != "nvfp4" or not global_scale:
        raise InvalidArgumentError("amax= sets NVFP4's global scale: it needs format='nvfp4' "
                                   "with global_scale=True")
    if not isinstance(amax, torch.Tensor) or not amax.is_floating_point():
        raise InvalidArgumentError(f"amax must be a float tensor, got {amax!r}")
    if amax.device != x.device:
        raise InvalidArgumentError(f"amax is on {amax.device}, x on {x.device}")
    batch = x.shape[0] if x.dim() == 3 else 1
    if amax.numel() not in (1, batch):
        raise InvalidArgumentError(
            f"amax holds {amax.numel()} values; quantize takes one (or one per matrix, "
            f"{batch})")


def _dims(shape, what="quantize takes"):
    if len(shape) == 2:
        return 1, shape[0], shape[1]
    if len(shape) == 3:
        return shape[0], shape[1], shape[2]
    raise InvalidArgumentError(
        f"{what} a 2-D or 3-D (batch, rows, cols) tensor, got shape {tuple(shape)}")


def _packed_cols(cols, bits, packing):
    if bits == 4 and packing == "fp4x2":
        if cols % 2:
            raise InvalidArgumentError(f"fp4x2 packing needs an even number of columns, got {cols}")
        return cols // 2
    if bits == 6 and packing not in ("bytes", "none"):
        if cols % 4:
            raise InvalidArgumentError(f"fp6 {packing} packing needs columns divisible by 4, got {cols}")
        return cols * 3 // 4
    return cols


def _data_dtype(s, packing):
    if s.bits == 8 and s.elem == "e4m3fn":
        return torch.float8_e4m3fn
    if s.bits == 8 and s.elem == "e5m2":
        return torch.float8_e5m2
    return torch.uint8


def _scale_dtype(kind):
    return {"e8m0": _dtypes.E8M0, "nvfp4": torch.float8_e4m3fn}.get(kind, torch.float32)


def _scale_grid(rows, cols, block_rows, block_cols, scale_layout):
    """(rows, cols) of the scales of a rows x cols matrix in blocks (0 =
    the whole dimension), padded to 128x4 tiles in the blocked layout."""
    sr = _cdiv(rows, block_rows or max(rows, 1))
    sc = _cdiv(cols, block_cols or max(cols, 1))
    if scale_layout == "blocked":
        sr, sc = _cdiv(sr, 128) * 128, _cdiv(sc, 4) * 4
    return sr, sc


def _is_column(block_rows, block_cols):
    """Column blocks ((32, 1), (16, 1), (0, 1)): quantized as the row blocks
    of the transpose, with transposed (column-major) results."""
    return block_cols == 1 and block_rows != 1


def _quantize_meta(shape, s, kind, packing, block_rows, block_cols, scale_layout):
    """(data shape, data dtype, scale shape, scale dtype, global-scale shape)
    of what torch.ops.fpxc.quantize returns. For column blocks the data and
    scales are those of x.mT with row blocks (1, block_rows): data
    (..., cols, packed(rows)) and scales (..., cols, cdiv(rows, block_rows)),
    both contiguous; fpx.quantize returns data.mT."""
    if _is_column(block_rows, block_cols):
        _dims(shape)
        shape = list(shape[:-2]) + [shape[-1], shape[-2]]
        block_rows, block_cols = 1, block_rows
    batch, rows, cols = _dims(shape)
    lead = [batch] if len(shape) == 3 else []
    sr, sc = _scale_grid(rows, cols, block_rows, block_cols, scale_layout)
    data_shape = lead + [rows, _packed_cols(cols, s.bits, packing)]
    return (data_shape, _data_dtype(s, packing), lead + [sr, sc], _scale_dtype(kind), lead)


_warned = set()


def _warn_fallback(what):
    if what not in _warned:
        _warned.add(what)
        warnings.warn(f"fpx: no prebuilt kernel for {what}; using the CPU reference "
                      "(copies to host and back). Set FPX_KERNEL_DIR to a kernel bundle.",
                      RuntimeWarning, stacklevel=3)


def warn_gemm_fallback(op, what, why):
    """A GEMM op's fallback warning (fpxc.linear, fpxc.scaled_mm), once per
    signature: the call runs, slower, as dequantize + torch.matmul."""
    key = (op, what)
    if key not in _warned:
        _warned.add(key)
        warnings.warn(f"fpx: no prebuilt kernel for {op} {what} ({why}); using dequantize + "
                      "torch.matmul in fp32 (slower). Set FPX_KERNEL_DIR to a kernel bundle.",
                      RuntimeWarning, stacklevel=4)


def _hadamard_f32(x, n, seed):
    """The fused transform's reference: x in fp32 (exact from bf16/f16),
    the random Hadamard transform over blocks of n elements of each row
    (random signs from `seed`), kept in fp32 (never rounded to x's dtype)."""
    if x.dtype not in (torch.float32, torch.bfloat16, torch.float16):
        raise InvalidArgumentError(f"quantize reads float32, bfloat16 or float16, got {x.dtype}")
    xf = x.detach().cpu().float().contiguous().clone()
    cols = xf.shape[-1]
    if cols % n:
        raise InvalidArgumentError(
            f"hadamard={n} needs the last dimension to be a multiple of {n}, got {cols}")
    _fpx.hadamard(xf.data_ptr(), xf.numel() // max(cols, 1), cols, n, int(seed), True)
    return xf


def _quantize_cpu(x, s, kind, rule, rounding, packing, block_rows, block_cols,
                  scale_layout, seed, global_scale, hadamard=0, hadamard_seed=0, amax=None,
                  nonfinite="nan"):
    _dims(x.shape)
    given = [] if amax is None else amax.detach().float().abs().cpu().reshape(-1).tolist()
    dev = x.device
    if hadamard:
        x = _hadamard_f32(x, hadamard, hadamard_seed)
    if _is_column(block_rows, block_cols):
        # The row blocks of the transpose (the flat element index that
        # stochastic rounding hashes is the transposed one, like the kernel's).
        x = x.transpose(-2, -1)
        block_rows, block_cols = 1, block_rows
    batch, rows, cols = _dims(x.shape)
    lead = [batch] if x.dim() == 3 else []
    xc = x.detach().cpu().resolve_neg()  # (a lazy negation: native code reads the memory)
    if xc.dtype == torch.bfloat16:
        word = "bf16"
    elif xc.dtype in (torch.float32, torch.float16):
        xc, word = xc.float(), "f32"  # fp16 -> fp32 is exact
    else:
        raise InvalidArgumentError(f"quantize reads float32, bfloat16 or float16, got {x.dtype}")
    xc = xc.contiguous()
    q = _fpx.quantize(xc.data_ptr(), word, batch, rows, cols, s.elem, block_rows,
                      block_cols, kind, rule, rounding, seed, global_scale, given, nonfinite)
    codes = torch.empty(batch * rows * cols, dtype=torch.uint8)
    q.copy_codes(codes.data_ptr())
    pc = _packed_cols(cols, s.bits, packing)
    if s.bits == 4 and packing == "fp4x2":
        data = torch.empty(batch * rows * pc, dtype=torch.uint8)
        _fpx.pack_fp4x2(codes.data_ptr(), codes.numel(), data.data_ptr())
    elif s.bits == 6 and packing != "bytes":
        data = torch.empty(batch * rows * pc, dtype=torch.uint8)
        _fpx.pack_fp6(codes.data_ptr(), batch * rows, cols, packing, data.data_ptr())
    else:
        data = codes
    data = data.view(lead + [rows, pc]).view(_data_dtype(s, packing))

    sr, sc = q.scale_rows, q.scale_cols
    if kind in ("e8m0", "nvfp4"):
        sc_codes = torch.empty(batch * sr * sc, dtype=torch.uint8)
        q.copy_scale_codes(sc_codes.data_ptr())
        if scale_layout == "blocked":
            brows, bcols = _fpx.blocked_shape(sr, sc)
            blocked = torch.empty(batch, brows * bcols, dtype=torch.uint8)
            per = sc_codes.view(batch, sr * sc)
            for b in range(batch):
                _fpx.swizzle_blocked(per[b].data_ptr(), sr, sc, blocked[b].data_ptr())
            scales = blocked.view(lead + [brows, bcols])
        else:
            scales = sc_codes.view(lead + [sr, sc])
        scales = scales.view(_scale_dtype(kind))
    else:
        scales = torch.empty(batch * sr * sc, dtype=torch.float32)
        q.copy_scales(scales.data_ptr())
        scales = scales.view(lead + [sr, sc])
    gs = torch.tensor(q.global_scales or [1.0] * batch, dtype=torch.float32)
    gs = gs.view(lead)
    return data.to(dev), scales.to(dev), gs.to(dev)


# (element format, scale kind) -> the high-level name bundles are keyed by.
_BUNDLE_FORMAT = SCHEME_NAMES
_INPUT_WORDS = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}


def _bundle_options(x, s, kind, rule, rounding, packing, block_rows, block_cols,
                    scale_layout, global_scale, hadamard=0, hadamard_seed=0, amax_given=False,
                    amax_per_matrix=False, amax_out=False, nonfinite="nan"):
    """The dispatch key of a CUDA call (python-bindings/tools/build_bundle.py
    writes the same dicts) and the tensor the kernel takes, or None when
    no bundled kernel can serve the call. `amax_per_matrix`: the NVFP4 kernel
    of a whole batch (E, M, K) taking one amax per matrix; `amax_out`: the
    cast that also returns max |x| (fused, quantize(..., return_amax=True))."""
    fmt = _BUNDLE_FORMAT.get((s.elem, kind))
    word = _INPUT_WORDS.get(x.dtype)
    if fmt is None or word is None:
        return None
    xin, rank = x, x.dim()
    two_d = block_rows > 1 and block_cols > 1
    if rank == 3 and two_d:
        # 2-D blocks [Br, Bc] of expert weights: a 3-D kernel, except for
        # NVFP4's global scale (one per matrix in the reference, one amax
        # per launch in the kernel).
        if kind == "nvfp4" and global_scale:
            return None
    elif rank == 3 and amax_per_matrix:
        if kind != "nvfp4" or not global_scale or block_rows != 1 or scale_layout != "row_major":
            return None
    elif rank == 3 and not _is_column(block_rows, block_cols):
        # Row blocks of a batch of matrices (one scale a row included) are
        # the row blocks of one tall matrix, unless a scale spans a whole
        # matrix (per tensor, NVFP4's global scale) or blocked tiles would
        # straddle two matrices.
        b, m, k = x.shape
        if (block_rows != 1 or (kind == "nvfp4" and global_scale)
                or (scale_layout == "blocked" and m % 128)):
            return None
        xin, rank = x.reshape(b * m, k), 2
    options = {"op": "quantize", "format": fmt, "block": [block_rows, block_cols], "rule": rule,
               "rounding": rounding, "scale_layout": scale_layout, "packing": packing,
               "input_dtype": word, "rank": rank}
    if kind == "nvfp4":
        options["global_scale"] = bool(global_scale)
    if hadamard:
        # The transform's seed is a compile-time attribute of the kernel.
        options["hadamard"] = int(hadamard)
        options["hadamard_seed"] = int(hadamard_seed)
    if amax_given or amax_per_matrix:
        # The cast alone (no amax pass): the amax is the kernel's second input.
        options["amax_given"] = True
    if amax_per_matrix:
        options["amax_per_matrix"] = True
    if amax_out:
        options["amax_out"] = True
    if nonfinite != NONFINITES[0]:
        # (the saturating MX casts are kernels of their own, in the full set)
        options["nonfinite"] = nonfinite
    return options, xin


def _bundled(got, device, outputs=None):
    """The bundled kernel serving _bundle_options' result `got` on `device`
    and the tensor it takes, or None (no options, no kernel, a shape it does
    not accept, or not `outputs` outputs)."""
    if got is None:
        return None
    options, xin = got
    kernel = bundle.find(options, device)
    if (kernel is None or not kernel.accepts(xin.shape)
            or (outputs is not None and len(kernel.fn.outputs) != outputs)):
        return None
    return kernel, xin


def _kernel_operands(tensors):
    """The tensors as a kernel takes them: contiguous, 16-byte aligned and
    with no lazy negation (x._neg_view(), z.conj().imag: the kernel reads
    the memory), copied where not. The caller keeps the list until the
    launch: a freed copy's memory could serve the next copy before the
    kernel reads it."""
    held = []
    for t in tensors:
        t = t.resolve_neg()
        if not t.is_contiguous() or t.data_ptr() % 16:
            t = t.contiguous()
            if t.data_ptr() % 16:
                t = t.clone()  # kernels read 16-byte vectors
        held.append(t)
    return held


# The ops with a call's resolved options bound (_fpx.OpCaller, per op and
# options): eager CUDA calls go through the dispatcher from C++ and skip the
# parsing of every argument against the schema (docs/results/hostpath.md).
_callers = {}


def bound_op(name, bound, slots, drop_fills=False):
    """torch.ops.fpxc.<name> with the arguments `bound` (None at the per-call
    argument indices `slots`): an OpCaller of the per-call arguments, which
    returns None where the call needs torch's Python handling (call the op).
    drop_fills: results the caller ignores may come back as None."""
    key = (name, bound)
    caller = _callers.get(key)
    if caller is None:
        caller = _fpx.OpCaller(f"fpxc::{name}", list(bound), list(slots), drop_fills)
        if len(_callers) < 4096:
            _callers[key] = caller
    return caller



class _CastPlan:
    """One bundled cast for one call signature (options, dtype, device,
    shape), resolved once: the kernel's launch and the results' final
    shapes and dtypes, allocated directly (no views, no output_shapes, no
    argument re-checks). Per call: x's layout, the amax tensor, the stream."""

    __slots__ = ("fn", "launch", "has_seed", "in_ref", "amax_shape", "outs", "device",
                 "g_shape", "nvfp4", "amaxes")

    def __init__(self, kernel, xin, amax_given, finals, g_shape, nvfp4, amax_shape=()):
        fn = kernel.fn
        self.fn = fn._fn
        self.launch = fn._fn.launch
        self.has_seed = kernel.has_seed
        self.device = xin.device
        words = [w for _, w in fn.inputs]
        self.in_ref = (words[0], list(xin.shape), [])
        self.amax_shape = list(amax_shape)  # one amax, or one per matrix
        self.amaxes = 1  # how many amax values a call may give
        shapes = fn.output_shapes(tuple(xin.shape), *([tuple(amax_shape)] if amax_given else []))
        # (final shape, final dtype, the kernel's dtype word and shape): the
        # bytes are the kernel's output, read as the reference lays them out.
        self.outs = [(list(shape), dtype, word, list(kshape))
                     for (shape, dtype), (_, word), kshape in zip(finals, fn.outputs, shapes)]
        # The global scale where the kernel has no g output: 1, as in the
        # reference (fpx.quantize hands out no g for other kinds than NVFP4).
        self.g_shape = list(g_shape) if len(fn.outputs) < 3 else None
        self.nvfp4 = nvfp4

    def __call__(self, x, amax, seed):
        # x and the amax as the kernel takes them (a one-element view of a
        # larger tensor, e.g. prev[e] of a batch's amaxes, is not 16-byte
        # aligned), kept until the launch
        held = _kernel_operands([x] if amax is None else [x, amax])
        x = held[0]
        dev = self.device
        outs = [torch.empty(shape, dtype=dtype, device=dev) for shape, dtype, _, _ in self.outs]
        ins = [(x.data_ptr(),) + self.in_ref]
        if amax is not None:
            ins.append((held[1].data_ptr(), "f32", self.amax_shape, []))
        self.launch(_raw_stream(dev),
                    ins, [(o.data_ptr(), word, kshape, [])
                          for o, (_, _, word, kshape) in zip(outs, self.outs)],
                    [seed] if self.has_seed else [])
        return outs

    def ones(self):
        return torch.ones(self.g_shape, dtype=torch.float32, device=self.device)

    def offer(self, amax_given):
        """Describes the launch to the C++ kernel of torch.ops.fpxc.quantize
        missing this signature now (src/TorchOps.cpp): x (argument 0) and the
        amax (13, in fp32), the results (g = 1 where the kernel writes none),
        the seed (9) as the kernel's scalar."""
        if not _fpx._plan_pending("fpxc::quantize"):
            return
        word, shape, _ = self.in_ref
        ins = [(0, word, shape, False)]
        if amax_given:
            ins.append((13, "f32", self.amax_shape, True))
        outs = [(shape, _TORCH_NAMES[dtype], w, kshape) for shape, dtype, w, kshape in self.outs]
        fills = [] if self.g_shape is None else [(self.g_shape, "Float", 1.0)]
        _fpx._offer_plan("fpxc::quantize", self.fn, ins, outs, fills, [0, 1, 2],
                         [(9, 0)] if self.has_seed else [])

    def launch_matrices(self, x, amax, seed, outs):
        """The kernel once per matrix of the batch x (contiguous) on that
        matrix's slices of `outs` (contiguous, matrix-major; g and `amax` as
        (E, 4) with the value in column 0, so that every operand is 16-byte
        aligned): _launch_per_matrix."""
        ins = [(x, self.in_ref)] + ([] if amax is None else [(amax, ("f32", [], []))])
        refs = [(t, (word, kshape, [])) for t, (_, _, word, kshape) in zip(outs, self.outs)]
        _launch_per_matrix(self.launch, x, ins, refs, [seed] if self.has_seed else [])


def _launch_per_matrix(launch, x, ins, outs, scalars):
    """A kernel once per matrix of a batch (x's first dimension): `ins` and
    `outs` are (tensor, (word, shape, strides)) pairs whose tensors hold the
    matrices one after another; launch e gets each tensor's e-th slice by
    pointer arithmetic (no tensor views per matrix)."""
    n = x.shape[0]
    with _launch_device(x):
        stream = _raw_stream(x.device)
        ins = [(t.data_ptr(), t.nbytes // n, ref) for t, ref in ins]
        outs = [(t.data_ptr(), t.nbytes // n, ref) for t, ref in outs]
        for e in range(n):
            launch(stream, [(p + e * step,) + ref for p, step, ref in ins],
                   [(p + e * step,) + ref for p, step, ref in outs], scalars)

# torch dtypes by c10's names (what _fpx._offer_plan reads).
_TORCH_NAMES = {getattr(torch, name): c10 for name, c10 in (
    ("float32", "Float"), ("bfloat16", "BFloat16"), ("float16", "Half"), ("uint8", "Byte"),
    ("int8", "Char"), ("int32", "Int"), ("int64", "Long"), ("float8_e4m3fn", "Float8_e4m3fn"),
    ("float8_e5m2", "Float8_e5m2"), ("float8_e8m0fnu", "Float8_e8m0fnu"))
    if hasattr(torch, name)}


def _raw_stream(device):
    return torch.cuda.current_stream(device).cuda_stream


if hasattr(torch._C, "_cuda_getCurrentRawStream"):
    def _raw_stream(device):  # noqa: F811 (torch's own fast accessor, ~10x cheaper)
        return torch._C._cuda_getCurrentRawStream(device.index)


_plans = {}
# The plans hold native kernel objects, and torch's op registry (which
# outlives the interpreter) holds this module: dropping them at exit lets
# nanobind free them before it checks for leaks.
atexit.register(_plans.clear)
bundle._forget_hooks.append(_plans.clear)
# The C++ plans point at the kernels the Python plans and the bundle index
# hold: forgotten with them.
atexit.register(_fpx._clear_plans)
bundle._forget_hooks.append(_fpx._clear_plans)


def _plan_key(x, args):
    return (x.dtype, x.device, x.shape) + args


def quantize_planned(x, args, seed, amax):
    """The results of a cast whose signature ran on a bundled kernel before
    (eager CUDA calls on the current device), else None. `args` are
    _quantize_impl's option arguments (format .. hadamard_seed, amax given)."""
    plan = _plans.get(_plan_key(x, args))
    if plan is None or x.device.index != torch.cuda.current_device():
        return None
    if amax is not None:
        if (type(amax) is not torch.Tensor or not amax.is_floating_point()
                or amax.device != x.device or amax.numel() not in (1, plan.amaxes)
                or amax.requires_grad):
            return None  # the checked path
        if amax.dtype != torch.float32:
            amax = amax.float()
    outs = plan(x, amax, seed)
    if len(outs) == 3:
        return outs[0], outs[1], outs[2]
    return outs[0], outs[1], plan.ones() if plan.nvfp4 else None


class _BatchPlan:
    """NVFP4 of a batch (E, M, K) by the kernel reading an amax per matrix
    (a _CastPlan), with the per-call work around the launch: the E amaxes
    (given, one for all or one per matrix, or max |x| of each matrix by one
    torch reduction). The kernel stores the E global scales (g[e] by the CTA
    that starts matrix e, fpx.global_scale fused into the cast). Called like
    a _CastPlan; returns data, scales and g."""

    __slots__ = ("cast", "amaxes")

    def __init__(self, cast, n):
        self.cast, self.amaxes = cast, n

    def __call__(self, x, amax, seed):
        if amax is None and x.shape[1] * x.shape[2] == 0:  # empty matrices: 0
            a = torch.zeros(self.amaxes, dtype=torch.float32, device=x.device)
        elif amax is None:
            # max |x| per matrix (NaN if any element is NaN), no |x| temporary
            a = torch.linalg.vector_norm(x, ord=float("inf"), dim=(1, 2), dtype=torch.float32)
        else:
            a = amax.detach().float().reshape(-1).expand(self.amaxes)
        # the kernel operands (16-byte aligned) stay alive until the launch
        x, a = _kernel_operands([x, a])
        with _launch_device(x):
            return self.cast(x, a, seed)


def _quantize_cuda_batch(x, s, kind, rule, rounding, packing, block_rows, block_cols,
                         scale_layout, seed, amax, plan_key=None):
    """NVFP4 two-level scales of a batch of matrices (E, M, K), one global
    scale per matrix as the reference, in one launch of the kernel that reads
    an amax per matrix (_BatchPlan). Stochastic rounding numbers its random
    bits over the whole batch, as the reference. None when no bundled kernel
    serves the call (e.g. matrices of other than a multiple of 8192
    elements). With `plan_key`, later calls of that signature go through
    quantize_planned."""
    n = x.shape[0]
    got = _bundle_options(x, s, kind, rule, rounding, packing, block_rows, block_cols,
                          scale_layout, True, amax_given=True, amax_per_matrix=True)
    if got is None or n == 0 or (amax is not None and amax.numel() not in (1, n)):
        return None
    kernel = bundle.find(got[0], x.device)
    # (a bundle of before g per matrix was a kernel output has no third one)
    if (kernel is None or len(kernel.fn.outputs) != 3
            or not kernel.accepts(tuple(x.shape), (n,))):
        return None
    meta = _quantize_meta(list(x.shape), s, kind, packing, block_rows, block_cols, scale_layout)
    finals = [(meta[0], _data_dtype(s, packing)), (meta[2], meta[3]), (meta[4], torch.float32)]
    plan = _BatchPlan(_CastPlan(kernel, x, True, finals, meta[4], True, amax_shape=(n,)), n)
    if plan_key is not None and len(_plans) < 4096:
        _plans[plan_key] = plan
    return tuple(plan(x, amax, seed))


def _quantize_cuda_matrices(x, s, kind, rule, rounding, packing, block_rows, block_cols,
                            scale_layout, seed, hadamard, hadamard_seed, amax):
    """NVFP4 two-level scales of a batch of matrices (E, M, K): one global
    scale per matrix, as the reference, by the bundled 2-D kernel once per
    matrix, each writing its slices of the batch's results (matrix-major, as
    the reference lays them out: data, scales padded per matrix when
    blocked, g[e]); None when no kernel serves the matrices. Round to nearest
    only: stochastic rounding draws its random bits by the element's index
    in the whole batch, which a per-matrix launch does not see."""
    if rounding != "rn" or x.shape[0] == 0:
        return None
    x, = _kernel_operands([x])
    found = _bundled(_bundle_options(x[0], s, kind, rule, rounding, packing, block_rows,
                                     block_cols, scale_layout, True, hadamard, hadamard_seed,
                                     amax is not None), x.device, outputs=3)
    if found is None:
        return None
    kernel, xin = found
    meta = _quantize_meta(list(x.shape), s, kind, packing, block_rows, block_cols, scale_layout)
    one = _quantize_meta(list(x.shape[1:]), s, kind, packing, block_rows, block_cols,
                         scale_layout)
    finals = [(one[0], _data_dtype(s, packing)), (one[2], one[3]), (one[4], torch.float32)]
    data = torch.empty(meta[0], dtype=_data_dtype(s, packing), device=x.device)
    scales = torch.empty(meta[2], dtype=meta[3], device=x.device)
    # Kernels take 16-byte aligned tensors: every matrix's slices must be.
    if data[0].nbytes % 16 or scales[0].nbytes % 16:
        return None
    plan = _CastPlan(kernel, xin, amax is not None, finals, one[4], True)
    n = x.shape[0]
    # g and a given amax one per 16 bytes (a 0-D tensor is a kernel operand
    # like any other); g leaves as the reference's contiguous (E,).
    gs = torch.empty((n, 4), dtype=torch.float32, device=x.device)
    a = None
    if amax is not None:
        # One amax, or one per matrix (what the reference takes); magnitudes.
        flat = amax.detach().float().reshape(-1)
        if flat.numel() not in (1, n):
            return None
        a = torch.empty((n, 4), dtype=torch.float32, device=x.device)
        a[:, 0] = flat
    plan.launch_matrices(x, a, seed, [data, scales, gs])
    return data, scales, gs[:, 0].contiguous()


def _launch_device(x):
    """A null stream launches in the current context: x's device, made
    current for the launch where it is not."""
    if x.is_cuda and x.device.index != torch.cuda.current_device():
        return torch.cuda.device(x.device)
    return contextlib.nullcontext()


def _quantize_cuda(x, s, kind, rule, rounding, packing, block_rows, block_cols, scale_layout,
                   seed, global_scale, hadamard=0, hadamard_seed=0, amax=None, plan_key=None,
                   nonfinite="nan"):
    """Runs a bundled fpxc kernel; None when there is none for this call.
    With `plan_key`, later calls of that signature go through
    quantize_planned."""
    if x.dim() == 3 and kind == "nvfp4" and global_scale:
        if not hadamard:
            out = _quantize_cuda_batch(x, s, kind, rule, rounding, packing, block_rows,
                                       block_cols, scale_layout, seed, amax, plan_key)
            if out is not None:
                return out
        return _quantize_cuda_matrices(x, s, kind, rule, rounding, packing, block_rows,
                                       block_cols, scale_layout, seed, hadamard, hadamard_seed,
                                       amax)
    found = _bundled(_bundle_options(x, s, kind, rule, rounding, packing, block_rows,
                                     block_cols, scale_layout, global_scale, hadamard,
                                     hadamard_seed, amax is not None, nonfinite=nonfinite),
                     x.device)
    if found is None:
        return None
    kernel, xin = found
    meta = _quantize_meta(list(x.shape), s, kind, packing, block_rows, block_cols,
                          scale_layout)
    finals = [(meta[0], _data_dtype(s, packing)), (meta[2], meta[3]), (meta[4], torch.float32)]
    plan = _CastPlan(kernel, xin, amax is not None, finals[:len(kernel.fn.outputs)], meta[4],
                     kind == "nvfp4")
    if plan_key is not None and len(_plans) < 4096:
        _plans[plan_key] = plan
    plan.offer(amax is not None)
    a = None
    if amax is not None:
        a = amax.detach().reshape(()).float()  # the kernel takes its magnitude
    with _launch_device(x):
        outs = plan(xin, a, seed)
    return outs[0], outs[1], outs[2] if len(outs) == 3 else plan.ones()


def eager(x: torch.Tensor) -> bool:
    """True where a call may skip torch's dispatch of the fpx ops and run
    their Python implementation directly: a plain tensor outside
    torch.compile / export tracing and outside autograd (the ops define no
    gradients). fpx.quantize & co. do so for CPU tensors (the reference); CUDA
    calls always go through the ops, whose C++ kernel launches cached
    plans."""
    return (type(x) is torch.Tensor and not torch.compiler.is_compiling()
            and not (torch.is_grad_enabled() and x.requires_grad))


def tensor_amax(x, hadamard=0, hadamard_seed=0, per_matrix=False):
    """max |x| in fp32 (of x's random Hadamard transform with `hadamard`),
    NaN if any value is NaN: one value, or one per matrix of a 3-D x with
    `per_matrix` (what quantize's amax= takes); 0 for an empty x. The
    transform, in fp32 as the casts take it, is the CPU reference's (a CUDA x
    goes to the host and back, with the fallback warning)."""
    if hadamard and x.is_cuda:
        _warn_fallback("the amax of a Hadamard transform in fp32")
    xf = _hadamard_f32(x, hadamard, hadamard_seed).to(x.device) if hadamard else x.detach()
    if xf.numel() == 0 or xf.shape[-1] * xf.shape[-2] == 0:  # nothing to reduce: 0
        return torch.zeros(xf.shape[:1] if per_matrix else (), dtype=torch.float32,
                           device=x.device)
    # one read of x, no |x| or fp32 copy: max(max x, -min x) (exact in fp32; abs for -0)
    if per_matrix:
        lo, hi = torch.aminmax(xf.reshape(xf.shape[0], -1), dim=-1)
    else:
        lo, hi = torch.aminmax(xf.reshape(-1))
    a = torch.maximum(hi.float(), -lo.float()).abs()
    return torch.where(torch.isnan(a), torch.full_like(a, float("nan")), a)


def quantize_recording_amax(x, format, block_rows, block_cols, scale, rule, rounding,
                            scale_layout, packing, seed, global_scale, hadamard, hadamard_seed,
                            amax, nonfinite="nan"):
    """An eager CUDA cast from a given amax that also returns max |x| (of the
    transform) by one bundled kernel, which reduces it as it reads x:
    (data, scales, g, amax), or None where no such kernel serves the call
    (NVFP4: a matrix, or a batch (E, M, K) with an amax per matrix, in one
    launch, its matrices multiples of 8192 elements)."""
    s, kind, rule_, packing_ = _resolve(format, block_rows, block_cols, scale, rule or None,
                                        rounding, scale_layout, packing)
    _check_hadamard(hadamard)
    _check_amax(amax, kind, global_scale, x)
    _check_nonfinite(nonfinite, kind, format)  # (NVFP4 only here: the default)
    seed = _check_seed(seed)
    batch = x.dim() == 3
    if (amax is None or x.dim() not in (2, 3) or (batch and (hadamard or x.shape[0] == 0))
            or _is_column(block_rows, block_cols)):  # (no transpose of the codes here)
        return None
    key = _plan_key(x, (format, block_rows, block_cols, scale, rule, rounding, scale_layout,
                        packing, global_scale, hadamard, hadamard_seed, "amax_out"))
    plan = _plans.get(key)
    if plan is None and batch:
        n = x.shape[0]
        got = _bundle_options(x, s, kind, rule_, rounding, packing_, block_rows, block_cols,
                              scale_layout, global_scale, amax_given=True, amax_per_matrix=True,
                              amax_out=True)
        kernel = None if got is None else bundle.find(got[0], x.device)
        if (kernel is None or len(kernel.fn.outputs) != 4
                or not kernel.accepts(tuple(x.shape), (n,))):
            return None
        meta = _quantize_meta(list(x.shape), s, kind, packing_, block_rows, block_cols,
                              scale_layout)
        finals = [(meta[0], _data_dtype(s, packing_)), (meta[2], meta[3]),
                  (meta[4], torch.float32), ([n], torch.float32)]
        plan = _BatchPlan(_CastPlan(kernel, x, True, finals, meta[4], True, amax_shape=(n,)), n)
        if len(_plans) < 4096:
            _plans[key] = plan
    if batch:
        if amax.numel() not in (1, x.shape[0]):
            return None
        return tuple(plan(x.contiguous(), amax, seed))
    if plan is None:
        found = _bundled(_bundle_options(x, s, kind, rule_, rounding, packing_, block_rows,
                                         block_cols, scale_layout, global_scale, hadamard,
                                         hadamard_seed, True, amax_out=True),
                         x.device, outputs=4)
        if found is None:
            return None
        kernel, xin = found
        meta = _quantize_meta(list(x.shape), s, kind, packing_, block_rows, block_cols,
                              scale_layout)
        finals = [(meta[0], _data_dtype(s, packing_)), (meta[2], meta[3]),
                  (meta[4], torch.float32), ([], torch.float32)]
        plan = _CastPlan(kernel, xin, True, finals, meta[4], True)
        if len(_plans) < 4096:
            _plans[key] = plan
    a = amax.detach().reshape(()).float()  # the kernel takes its magnitude
    with _launch_device(x):
        return tuple(plan(x, a, seed))


def _quantize_impl(x: torch.Tensor, format: str, block_rows: int, block_cols: int,
                scale: str, rule: str, rounding: str, scale_layout: str, packing: str,
                seed: int, global_scale: bool, hadamard: int = 0,
                hadamard_seed: int = 0, amax: Optional[torch.Tensor] = None,
                nonfinite: str = "nan") -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    s, kind, rule_, packing_ = _resolve(format, block_rows, block_cols, scale, rule or None,
                                        rounding, scale_layout, packing)
    _check_hadamard(hadamard)
    _check_amax(amax, kind, global_scale, x)
    _check_nonfinite(nonfinite, kind, format)
    _check_seed(seed)
    _check_seed(hadamard_seed, "hadamard_seed")
    if x.dtype not in (torch.float32, torch.bfloat16, torch.float16):
        # Checked before dispatch, so a bad dtype is an error on every device,
        # not a missed kernel followed by the CPU path's error.
        raise InvalidArgumentError(f"quantize reads float32, bfloat16 or float16, got {x.dtype}")
    if x.device.type == "cuda":
        _dims(x.shape)
        args = (format, block_rows, block_cols, scale, rule, rounding, scale_layout, packing,
                global_scale, hadamard, hadamard_seed, amax is not None, nonfinite)
        key = _plan_key(x, args)
        plan = _plans.get(key)
        if plan is not None:  # (a batch's plan, which the C++ cache does not hold)
            out = quantize_planned(x, args, seed, amax)
            if out is not None:
                if isinstance(plan, _CastPlan):
                    plan.offer(amax is not None)
                return out if out[2] is not None else (out[0], out[1], plan.ones())
        out = _quantize_cuda(x, s, kind, rule_, rounding, packing_, block_rows, block_cols,
                             scale_layout, seed, global_scale, hadamard, hadamard_seed, amax,
                             plan_key=key, nonfinite=nonfinite)
        if out is not None:
            return out
        rht = f" hadamard={hadamard} hadamard_seed={hadamard_seed}" if hadamard else ""
        rht += " amax=given" if amax is not None else ""
        # (the full bundle has saturating MX casts; the core one has none)
        rht += f" nonfinite={nonfinite}" if nonfinite != NONFINITES[0] else ""
        _warn_fallback(f"quantize {format} block=({block_rows}, {block_cols}) rule={rule_} "
                       f"rounding={rounding} scale_layout={scale_layout} packing={packing_}"
                       f"{rht} {x.dtype} rank {x.dim()} (or this shape)")
    return _quantize_cpu(x, s, kind, rule_, rounding, packing_, block_rows, block_cols,
                         scale_layout, seed, global_scale, hadamard, hadamard_seed, amax,
                         nonfinite)


# The schemas are fpxc._fpx's (src/TorchOps.cpp, with the CUDA kernel); these
# implementations serve every other call (CPU tensors, CUDA misses).
_lib = torch.library.Library("fpxc", "FRAGMENT")
_lib.impl("quantize", _quantize_impl, "CompositeExplicitAutograd")


@torch.library.register_fake("fpxc::quantize")
def _quantize_fake(x, format, block_rows, block_cols, scale, rule, rounding, scale_layout,
                   packing, seed, global_scale, hadamard=0, hadamard_seed=0, amax=None,
                   nonfinite="nan"):
    s, kind, _, packing_ = _resolve(format, block_rows, block_cols, scale, rule or None,
                                    rounding, scale_layout, packing)
    _check_hadamard(hadamard)
    _check_amax(amax, kind, global_scale, x)
    _check_nonfinite(nonfinite, kind, format)
    data_shape, data_dtype, scale_shape, scale_dtype, g_shape = _quantize_meta(
        list(x.shape), s, kind, packing_, block_rows, block_cols, scale_layout)
    return (x.new_empty(data_shape, dtype=data_dtype), x.new_empty(scale_shape, dtype=scale_dtype),
            x.new_empty(g_shape, dtype=torch.float32))


def _decode(fmt, codes_u8):
    out = torch.empty(codes_u8.numel(), dtype=torch.float32)
    c = codes_u8.contiguous().view(-1)
    _fpx.decode(fmt, c.data_ptr(), c.numel(), out.data_ptr())
    return out.view(codes_u8.shape)


def _dequantize_cpu(data, scales, global_scale, s, kind, packing, block_rows, block_cols,
                    scale_layout, cols, dtype):
    """The reference of a dequantize _check_dequantize accepted."""
    dev = data.device
    # (resolve_neg: native code reads the memory of a lazily negated view)
    d = data.detach().cpu().resolve_neg().contiguous().view(torch.uint8)
    batch = d.shape[0] if d.dim() == 3 else 1
    rows, pc = d.shape[-2], d.shape[-1]
    lead = [batch] if d.dim() == 3 else []
    if cols <= 0:
        cols = _infer_cols(s, packing, pc)
    n = batch * rows * cols
    if s.bits == 4 and packing == "fp4x2":
        codes = torch.empty(n, dtype=torch.uint8)
        _fpx.unpack_fp4x2(d.data_ptr(), n, codes.data_ptr())
    elif s.bits == 6 and packing != "bytes":
        codes = torch.empty(n, dtype=torch.uint8)
        _fpx.unpack_fp6(d.data_ptr(), batch * rows, cols, packing, codes.data_ptr())
    else:
        codes = d.reshape(n)
    values = _decode(s.elem, codes).view(batch, rows, cols)

    # A block larger than its dimension (quantize takes it) is the whole
    # dimension: repeat each scale at most that many times.
    br = max(min(block_rows or rows, rows), 1)
    bc = max(min(block_cols or cols, cols), 1)
    sr, sc = _cdiv(rows, br), _cdiv(cols, bc)
    sv = scales.detach().cpu().resolve_neg().contiguous().reshape(-1)
    if kind in ("e8m0", "nvfp4"):
        if sv.element_size() != 1:
            raise InvalidArgumentError(f"{kind} scales are one byte each, got {scales.dtype}")
        sv = sv.view(torch.uint8)
        # Checked before unswizzling reads the blocked tiles.
        per = sr * sc
        if scale_layout == "blocked":
            brows, bcols = _fpx.blocked_shape(sr, sc)
            per = brows * bcols
        if sv.numel() != batch * per:
            raise InvalidArgumentError(
                f"expected {batch} x {per} scale bytes ({sr}x{sc} blocks, {scale_layout}), "
                f"got {sv.numel()}")
        sv = sv.reshape(batch, per)
        if scale_layout == "blocked":
            rm = torch.empty(batch, sr * sc, dtype=torch.uint8)
            for b in range(batch):
                _fpx.unswizzle_blocked(sv[b].contiguous().data_ptr(), sr, sc, rm[b].data_ptr())
            sv = rm
        sf = _decode("e8m0fnu" if kind == "e8m0" else "ue4m3", sv).view(batch, sr, sc)
        if kind == "nvfp4" and global_scale is not None:
            g = global_scale.detach().cpu().float().reshape(-1)
            if g.numel() not in (1, batch):
                raise InvalidArgumentError(
                    f"expected one NVFP4 global scale or one per matrix ({batch}), "
                    f"got {g.numel()}")
            sf = sf * (g.view(batch, 1, 1) if g.numel() == batch else g.view(1, 1, 1))
    else:
        if sv.numel() != batch * sr * sc:
            raise InvalidArgumentError(
                f"expected {batch} x {sr}x{sc} scales, got {sv.numel()}")
        sf = sv.float().reshape(batch, sr, sc)
    full = sf.repeat_interleave(br, dim=1)[:, :rows].repeat_interleave(bc, dim=2)[:, :, :cols]
    out = (values * full).to(dtype)
    return out.view(lead + [rows, cols]).to(dev)


_OUT_WORDS = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}
_SCALE_WORDS = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}


def _infer_cols(s, packing, pc):
    if s.bits == 4 and packing == "fp4x2":
        return pc * 2
    if s.bits == 6 and packing != "bytes":
        return pc * 4 // 3
    return pc


def _dequantize_options(data, scales, global_scale, s, kind, packing, block_rows, block_cols,
                        scale_layout, cols, dtype, per_matrix=False):
    """The dispatch key of a CUDA dequantize (build_bundle.py's dq_config
    writes the same dicts) and the kernel's inputs (codes, scales[, g])
    reshaped as it takes them plus the result's shape, or None when no
    bundled kernel can serve the call (the CPU path then raises the errors
    of a bad call). `per_matrix`: NVFP4 of a batch with one g per matrix, in
    the kernel that reads g per matrix (3-D inputs as they are)."""
    fmt = _BUNDLE_FORMAT.get((s.elem, "fp32" if kind == "fp32_pow2" else kind))
    out_word = _OUT_WORDS.get(dtype)
    if fmt is None or out_word is None or data.dim() not in (2, 3) or data.element_size() != 1:
        return None
    if not isinstance(scales, torch.Tensor) or scales.device != data.device:
        return None
    if kind in ("e8m0", "nvfp4"):
        if scales.element_size() != 1:
            return None
        scale_word = "e8m0" if kind == "e8m0" else "ue4m3"
    else:
        scale_word = _SCALE_WORDS.get(scales.dtype)
        if scale_word is None:
            return None
    if s.bits == 8 and packing == "bytes":
        packing = "none"
    rank = data.dim()
    batch = data.shape[0] if rank == 3 else 1
    rows, pc = data.shape[-2], data.shape[-1]
    want = _infer_cols(s, packing, pc)
    if (cols > 0 and cols != want) or rows == 0 or want == 0:
        return None
    cols = want
    lead = [batch] if rank == 3 else []
    n_scales = scales.numel()
    d = data.contiguous()
    sc = scales.contiguous()
    if block_rows == 0 and block_cols == 0:
        # One scale per matrix: (1, 1) for 2-D, (E, 1, 1) for 3-D.
        if n_scales != batch:
            return None
        sc = sc.reshape(lead + [1, 1])
    elif block_rows == 1 and block_cols == 0:
        if n_scales != batch * rows:
            return None
        d, sc, rank = d.reshape(batch * rows, pc), sc.reshape(batch * rows, 1), 2
    elif block_rows == 1 and block_cols > 0:
        sr, sn = rows, _cdiv(cols, block_cols)
        if scale_layout == "blocked":
            if batch > 1 and rows % 128:
                return None  # blocked tiles of each matrix padded apart
            sr, sn = batch * _cdiv(rows, 128) * 128, _cdiv(sn, 4) * 4
        else:
            sr = batch * rows
        if n_scales != sr * sn:
            return None
        if per_matrix:
            if rank != 3 or scale_layout != "row_major":
                return None
            sc = sc.reshape(batch, rows, sn)
        else:
            d, sc, rank = d.reshape(batch * rows, pc), sc.reshape(sr, sn), 2
    else:
        return None
    options = {"op": "dequantize", "format": fmt, "block": [block_rows, block_cols],
               "scale_layout": scale_layout, "packing": packing, "scale_dtype": scale_word,
               "output_dtype": out_word, "rank": rank}
    inputs = [d, sc]
    if kind == "nvfp4":
        options["global_scale"] = global_scale is not None
        if per_matrix:
            if global_scale is None or global_scale.numel() != batch:
                return None
            options["global_per_matrix"] = True
            # g itself, one per matrix, read on the device (no host sync).
            inputs.append(global_scale.detach().reshape(batch).to(data.device, torch.float32))
        elif global_scale is not None:
            if global_scale.numel() != 1:
                return None  # one global scale per matrix of a batch
            # g itself, read on the device (no host sync).
            inputs.append(global_scale.detach().reshape(()).to(data.device, torch.float32))
    elif per_matrix:
        return None
    return options, inputs, lead + [rows, cols]


class _DequantPlan:
    """One bundled dequantize for one call signature (options; the codes',
    scales' and g's dtypes, devices and shapes), resolved once: the kernel's
    launch with its input and output shapes, the result allocated in its
    final shape. Per call: the tensors' layouts and the stream."""

    __slots__ = ("fn", "launch", "device", "ins", "out")

    def __init__(self, kernel, inputs, out_shape, dtype):
        fn = kernel.fn
        self.fn = fn._fn
        self.launch = fn._fn.launch
        self.device = inputs[0].device
        # The kernel reads each input as its dtype word and shape (the
        # dispatch's reshapes and 1-byte views change no bytes).
        self.ins = [(word, list(t.shape), []) for t, (_, word) in zip(inputs, fn.inputs)]
        kshape = fn.output_shapes(*[tuple(t.shape) for t in inputs])[0]
        self.out = (list(out_shape), dtype, fn.outputs[0][1], list(kshape))

    def __call__(self, tensors):
        held = _kernel_operands(tensors)
        shape, dtype, word, kshape = self.out
        y = torch.empty(shape, dtype=dtype, device=self.device)
        self.launch(_raw_stream(self.device),
                    [(t.data_ptr(),) + ref for t, ref in zip(held, self.ins)],
                    [(y.data_ptr(), word, kshape, [])], [])
        return y

    def offer(self):
        """Describes the launch to the C++ kernel of torch.ops.fpxc.dequantize
        missing this signature now: data, scales and g (arguments 0, 1, 2;
        g in fp32), one result."""
        if not _fpx._plan_pending("fpxc::dequantize"):
            return
        shape, dtype, word, kshape = self.out
        _fpx._offer_plan("fpxc::dequantize", self.fn,
                         [(i, w, s, i == 2) for i, (w, s, _) in enumerate(self.ins)],
                         [(shape, _TORCH_NAMES[dtype], word, kshape)], [], [0], [])

    def launch_matrices(self, tensors, y):
        """The kernel once per matrix of a batch: `tensors` (codes, scales
        and g of shape (E, 4), g in column 0) and `y` hold the matrices one
        after another (_launch_per_matrix)."""
        held = _kernel_operands(tensors)
        _, _, word, kshape = self.out
        _launch_per_matrix(self.launch, y, list(zip(held, self.ins)),
                           [(y, (word, kshape, []))], [])

def _dq_plan_key(data, scales, g, args):
    gk = None if g is None else (type(g), getattr(g, "dtype", None), getattr(g, "shape", None),
                                 getattr(g, "device", None))
    return ("dequantize", data.dtype, data.device, data.shape, type(scales),
            getattr(scales, "dtype", None), getattr(scales, "device", None),
            getattr(scales, "shape", None), gk) + args


def dequantize_planned(data, scales, global_scale, args):
    """The result of a dequantize whose signature ran on a bundled kernel
    before (eager CUDA calls on the current device), else None. `args` are
    _dequantize_impl's option arguments (format .. dtype)."""
    plan = _plans.get(_dq_plan_key(data, scales, global_scale, args))
    if plan is None or data.device.index != torch.cuda.current_device():
        return None
    if global_scale is None:
        return plan((data, scales))
    g = global_scale.detach()
    if g.dtype != torch.float32 or g.device != plan.device:
        g = g.to(plan.device, torch.float32)
    return plan((data, scales, g))


def _dequantize_plan(data, scales, global_scale, s, kind, packing, block_rows, block_cols,
                     scale_layout, cols, dtype, per_matrix=False):
    """The plan of the bundled kernel serving a dequantize, with the inputs
    as the kernel takes them and the result's shape; None when none serves
    it."""
    got = _dequantize_options(data, scales, global_scale, s, kind, packing, block_rows,
                              block_cols, scale_layout, cols, dtype, per_matrix)
    if got is None:
        return None
    options, inputs, out_shape = got
    kernel = bundle.find(options, data.device)
    if kernel is None or not kernel.accepts(*[t.shape for t in inputs]):
        return None
    if any(t.element_size() != dt.itemsize for t, dt in zip(inputs, kernel.input_dtypes)):
        return None  # the kernel reads the bytes as they are: same-size elements only
    return _DequantPlan(kernel, inputs, out_shape, dtype), inputs, out_shape


def _dequantize_cuda_matrices(data, scales, global_scale, s, kind, packing, block_rows,
                              block_cols, scale_layout, cols, dtype):
    """NVFP4 values of a batch of matrices with one global scale per matrix
    (what quantize returns for a batch): the bundled 2-D kernel per matrix,
    each writing its slice of the result; None when no kernel serves them."""
    e = data.shape[0]
    if (not isinstance(scales, torch.Tensor) or scales.dim() != 3 or scales.shape[0] != e
            or e == 0 or global_scale.numel() != e):
        return None  # the reference says what is wrong
    # g one per 16 bytes (kernels take 16-byte aligned operands).
    g = torch.empty((e, 4), dtype=torch.float32, device=data.device)
    g[:, 0] = global_scale.detach().reshape(-1)
    got = _dequantize_plan(data[0], scales[0], g[0, 0], s, kind, packing, block_rows,
                           block_cols, scale_layout, cols, dtype)
    if got is None:
        return None
    plan, inputs, out_shape = got
    y = torch.empty([e] + out_shape, dtype=dtype, device=data.device)
    # Kernels take 16-byte aligned operands: every matrix's codes, scales
    # and result must be (the host reference serves the others).
    if y[0].nbytes % 16 or data[0].nbytes % 16 or scales[0].nbytes % 16:
        return None
    plan.launch_matrices((data, scales, g), y)
    return y


def _dequantize_cuda(data, scales, global_scale, s, kind, packing, block_rows, block_cols,
                     scale_layout, cols, dtype, plan_key=None):
    """Runs a bundled fpxc dequantize kernel; None when there is none. With
    `plan_key`, later calls of that signature go through dequantize_planned."""
    per_matrix = (kind == "nvfp4" and data.dim() == 3 and isinstance(global_scale, torch.Tensor)
                  and global_scale.numel() > 1)
    got = _dequantize_plan(data, scales, global_scale, s, kind, packing, block_rows,
                           block_cols, scale_layout, cols, dtype, per_matrix)
    if got is None and per_matrix:
        # (blocked scales, matrices of other than a multiple of 8192 elements)
        return _dequantize_cuda_matrices(data, scales, global_scale, s, kind, packing,
                                         block_rows, block_cols, scale_layout, cols, dtype)
    if got is None:
        return None
    plan, inputs, _ = got
    if plan_key is not None and len(_plans) < 4096:
        _plans[plan_key] = plan
    plan.offer()
    with _launch_device(data):
        return plan(inputs)


def _check_dequantize(data, scales, global_scale, format, s, kind, packing, block_rows,
                      block_cols, scale_layout, cols):
    """Checks codes, scales and g against the format before any dispatch (a
    kernel reads the bytes as they are): the codes' and scales' dtypes those
    quantize returns (fp32 scales also as bf16 or f16), the scales' shape
    the one the blocks and layout give, g a float tensor."""
    batch, rows, pc = _dims(data.shape, "dequantize takes data as")
    want = _data_dtype(s, packing)
    if data.dtype != want:
        packed = f" ({packing} packing)" if s.bits < 8 else ""
        raise InvalidArgumentError(
            f"data of format {format!r}{packed} must be {want} codes, got {data.dtype}")
    want = (_scale_dtype(kind),) if kind in ("e8m0", "nvfp4") else tuple(_SCALE_WORDS)
    if scales.dtype not in want:
        raise InvalidArgumentError(
            f"scales of format {format!r} ({kind} scales) must be "
            f"{' or '.join(map(str, want))}, got {scales.dtype}")
    for t, what in ((data, "data"), (scales, "scales")):
        if t.is_neg() and t.is_floating_point() and t.element_size() == 1:
            # (other lazy negations are resolved before native code reads them)
            raise InvalidArgumentError(
                f"{what} is a lazily negated {t.dtype} view, which torch cannot negate")
    if cols < 0:
        raise InvalidArgumentError(f"cols must be >= 0 (0 = from the data's width), got {cols}")
    cols = cols or _infer_cols(s, packing, pc)
    if _packed_cols(cols, s.bits, packing) != pc:
        raise InvalidArgumentError(f"data has {pc} packed columns, which does not match cols={cols}")
    want = tuple(data.shape[:-2]) + _scale_grid(rows, cols, block_rows, block_cols, scale_layout)
    if tuple(scales.shape) != want:
        raise InvalidArgumentError(
            f"scales must have shape {want} (blocks ({block_rows}, {block_cols}) of "
            f"{rows}x{cols} values, {scale_layout}), got {tuple(scales.shape)}")
    if global_scale is not None and not global_scale.is_floating_point():
        raise InvalidArgumentError(f"global_scale must be a float tensor, got {global_scale.dtype}")


def _dequantize_impl(data: torch.Tensor, scales: torch.Tensor, global_scale: Optional[torch.Tensor],
                  format: str, block_rows: int, block_cols: int, scale: str, scale_layout: str,
                  packing: str, cols: int, dtype: torch.dtype) -> torch.Tensor:
    s, kind, _, packing_ = _resolve(format, block_rows, block_cols, scale, None, "rn",
                                    scale_layout, packing)
    _check_dequantize(data, scales, global_scale, format, s, kind, packing_, block_rows,
                      block_cols, scale_layout, cols)
    if data.device.type == "cuda":
        key = _dq_plan_key(data, scales, global_scale, (format, block_rows, block_cols, scale,
                                                        scale_layout, packing, cols, dtype))
        out = _dequantize_cuda(data, scales, global_scale, s, kind, packing_, block_rows,
                               block_cols, scale_layout, cols, dtype, plan_key=key)
        if out is not None:
            return out
        _warn_fallback(f"dequantize {format} block=({block_rows}, {block_cols}) "
                       f"scale_layout={scale_layout} packing={packing_} scales {scales.dtype} "
                       f"-> {dtype} rank {data.dim()}"
                       f"{' with global_scale' if global_scale is not None else ''} "
                       "(or this shape)")
    return _dequantize_cpu(data, scales, global_scale, s, kind, packing_, block_rows, block_cols,
                           scale_layout, cols, dtype)


_lib.impl("dequantize", _dequantize_impl, "CompositeExplicitAutograd")


@torch.library.register_fake("fpxc::dequantize")
def _dequantize_fake(data, scales, global_scale, format, block_rows, block_cols, scale,
                     scale_layout, packing, cols, dtype):
    s, _, _, packing_ = _resolve(format, block_rows, block_cols, scale, None, "rn",
                                 scale_layout, packing)
    if cols <= 0:
        cols = _infer_cols(s, packing_, data.shape[-1])
    return data.new_empty(list(data.shape[:-1]) + [cols], dtype=dtype)


def _hadamard_cuda(x, block, seed, random_signs):
    """Runs a bundled fpxc hadamard kernel on the (rows, last dim) view;
    None when there is none (bundles hold random signs and a few seeds)."""
    word = _INPUT_WORDS.get(x.dtype)
    if word is None or x.dim() < 1 or x.numel() == 0:
        return None
    options = {"op": "hadamard", "block": int(block), "seed": int(seed),
               "random_signs": bool(random_signs), "input_dtype": word}
    kernel = bundle.find(options, x.device)
    cols = x.shape[-1]
    x2 = x.reshape(x.numel() // cols, cols)
    if kernel is None or not kernel.accepts(x2.shape):
        return None
    x2, = _kernel_operands([x2])
    if _fpx._plan_pending("fpxc::hadamard"):
        _offer_hadamard(kernel, x2, x)
    return kernel(x2).view(x.shape)


def _offer_hadamard(kernel, x2, x):
    """Describes the launch to the C++ kernel of torch.ops.fpxc.hadamard
    missing this signature now: x (argument 0) as (rows, last dim), the
    result in x's shape, the kernel's scalars as this call passes them."""
    fn = kernel.fn
    values = fn._scalar_values((0,) if kernel.has_seed else (), {})
    if not all(type(v) is int for v in values):
        return
    (kshape,) = fn.output_shapes(tuple(x2.shape))
    _fpx._offer_plan("fpxc::hadamard", fn._fn, [(0, fn.inputs[0][1], list(x2.shape), False)],
                     [(list(x.shape), _TORCH_NAMES[x.dtype], fn.outputs[0][1], list(kshape))],
                     [], [0], [(-1, v) for v in values])


def _hadamard_impl(x: torch.Tensor, block: int, seed: int, random_signs: bool) -> torch.Tensor:
    if x.dim() < 1:
        raise InvalidArgumentError("hadamard needs at least one dimension")
    if not x.is_floating_point():
        raise InvalidArgumentError(f"hadamard transforms floating-point tensors, got {x.dtype}")
    _check_hadamard(block, "block", none=False)
    _check_seed(seed)
    if x.device.type == "cuda":
        out = _hadamard_cuda(x, block, seed, random_signs)
        if out is not None:
            return out
        _warn_fallback(f"hadamard block={block} seed={seed} random_signs={random_signs} "
                       f"{x.dtype} (or this shape)")
    xf = x.detach().cpu().float().contiguous().clone()
    cols = xf.shape[-1] if xf.dim() else 1
    rows = xf.numel() // max(cols, 1)
    _fpx.hadamard(xf.data_ptr(), rows, cols, block, seed, random_signs)
    return xf.to(dtype=x.dtype, device=x.device)


_lib.impl("hadamard", _hadamard_impl, "CompositeExplicitAutograd")


def check_group_ends(ends, rows):
    """Group end rows (a list) must be non-decreasing from 0 and end at rows."""
    if any(b < a for a, b in zip([0] + ends, ends)) or ends[-1] != rows:
        raise InvalidArgumentError(
            f"group_ends must be non-decreasing from 0 and end at rows ({rows}), "
            f"got {ends if len(ends) <= 16 else ends[:16] + ['...']}")


class _LayoutPlan:
    """One bundled kernel with one output whose inputs are an op's tensor
    arguments in order (a layout kernel; fpxc.grouped_mm's GEMM) for one
    call signature, resolved once as _CastPlan resolves a cast: per call the
    operands' pointers, the new output and the stream."""

    __slots__ = ("fn", "launch", "ins", "out")

    def __init__(self, kernel, shapes):
        fn = kernel.fn
        self.fn = fn._fn
        self.launch = fn._fn.launch
        self.ins = [(word, list(shape), []) for (_, word), shape in zip(fn.inputs, shapes)]
        (shape,) = fn.output_shapes(*shapes)
        self.out = (list(shape), fn._out_dtypes[0], fn.outputs[0][1])

    def __call__(self, tensors, device):
        held = _kernel_operands(tensors)  # kept until the launch
        shape, dtype, word = self.out
        out = torch.empty(shape, dtype=dtype, device=device)
        self.launch(_raw_stream(device),
                    [(t.data_ptr(),) + ref for t, ref in zip(held, self.ins)],
                    [(out.data_ptr(), word, shape, [])], [])
        return out

    def offer(self, op, dtype):
        """Describes the launch to the C++ kernel of torch.ops.fpxc.<op>
        missing this signature now: the tensor arguments in order, one
        result of `dtype` (the kernel writes its bytes)."""
        if not _fpx._plan_pending(f"fpxc::{op}"):
            return
        shape, _, word = self.out
        _fpx._offer_plan(f"fpxc::{op}", self.fn,
                         [(i, w, s, False) for i, (w, s, _) in enumerate(self.ins)],
                         [(shape, _TORCH_NAMES[dtype], word, shape)], [], [0], [])


_swizzle_plans = {}
atexit.register(_swizzle_plans.clear)
bundle._forget_hooks.append(_swizzle_plans.clear)


def swizzle_scales_impl(scales, group_ends=None):
    """fpx.swizzle_scales after its checks (api.py): a bundled kernel on
    CUDA, else the numerics core."""
    rows, cols = scales.shape
    groups = 0 if group_ends is None else group_ends.numel()
    pr = -(-(rows + 128 * groups) // 128) * 128
    pc = -(-cols // 4) * 4
    if scales.device.type == "cuda" and scales.numel():
        dev = scales.device
        key = (dev, rows, cols, groups)
        plan = _swizzle_plans.get(key)
        if plan is None:
            kernel = bundle.find({"op": "swizzle", "groups": bool(groups)}, dev)
            shapes = [(rows, cols)] + ([(groups,)] if groups else [])
            if kernel is not None and kernel.accepts(*shapes):
                plan = _LayoutPlan(kernel, shapes)
                if len(_swizzle_plans) < 4096:
                    _swizzle_plans[key] = plan
        if plan is not None:
            plan.offer("swizzle_scales", scales.dtype)
            operands = [scales.view(torch.float8_e8m0fnu)] + ([group_ends] if groups else [])
            if dev.index != torch.cuda.current_device():
                with torch.cuda.device(dev):
                    return plan(operands, dev).view(scales.dtype)
            return plan(operands, dev).view(scales.dtype)
        _warn_fallback(f"swizzle_scales groups={bool(groups)}")
    s = scales.detach().cpu().contiguous().view(torch.uint8)
    out = torch.zeros(pr * pc, dtype=torch.uint8)
    if groups:
        ends = group_ends.cpu().tolist()
        check_group_ends(ends, rows)  # (the numerics core reads them here)
        _fpx.swizzle_blocked_grouped(s.data_ptr(), rows, cols, ends, out.data_ptr())
    else:
        _fpx.swizzle_blocked(s.data_ptr(), rows, cols, out.data_ptr())
    return out.view(pr, pc).view(scales.dtype).to(scales.device)


_lib.impl("swizzle_scales", swizzle_scales_impl, "CompositeExplicitAutograd")


@torch.library.register_fake("fpxc::swizzle_scales")
def _swizzle_scales_fake(scales, group_ends=None):
    rows, cols = scales.shape
    groups = 0 if group_ends is None else group_ends.numel()
    return scales.new_empty(((rows + 128 * groups + 127) // 128 * 128, (cols + 3) // 4 * 4))


@torch.library.register_fake("fpxc::hadamard")
def _hadamard_fake(x, block, seed, random_signs):
    return torch.empty_like(x)


# fpxc.scaled_mm's implementation (fpxc/scaled.py, which registers it for
# CompositeExplicitAutograd) and its fake kernel, registered from this module:
# the one src/TorchOps.cpp names for the fpxc ops' Python parts.
from . import scaled as _scaled  # noqa: E402

torch.library.register_fake("fpxc::scaled_mm")(_scaled._scaled_mm_fake)

# fpxc.grouped_mm's likewise (fpxc/grouped.py).
from . import grouped as _grouped  # noqa: E402

torch.library.register_fake("fpxc::grouped_mm")(_grouped._grouped_mm_fake)
