"""fpxc.scaled_mm: the scaled fp8 / MXFP8 / NVFP4 GEMM of low-precision
training and inference, y = (a * sa) @ (b * sb)^T, on the QuantizedTensors
fpxc.quantize returns.

    qx = fpxc.quantize(x, "fp8_e4m3", block=(1, 0))   # x (M, K): an fp32 scale a row
    qw = fpxc.quantize(w, "fp8_e4m3", block=(1, 0))   # w (N, K): a scale an output channel
    y = fpxc.scaled_mm(qx, qw, out_dtype=torch.bfloat16, bias=None)   # (M, N)

b is (N, K), K-major: a Linear weight as torch.nn.functional.linear takes
it (y = F.linear(dequantize(a), dequantize(b), bias)), as torchao's and
Transformer Engine's fp8 linears hold it. torch._scaled_mm's second operand
is its transpose (K, N) with row scales (1, N):
fpxc.scaled_mm(qa, qb) computes torch._scaled_mm(qa.data, qb.data.T,
qa.scales, qb.scales.T).

The op is torch.ops.fpxc.scaled_mm (schema and CUDA kernel in
src/TorchOps.cpp, a fake kernel here; NVFP4's global scales are its last
two arguments): eager, torch.compile(fullgraph=True)
and CUDA graphs. A CUDA call runs a bundled kernel of fpx.scaled_matmul (the
sm_90a TMA + wgmma GEMM) through a plan cached per signature in C++; the
signature's first call comes here, checks the call and describes its launch
(ops._offer's protocol). Where no bundled kernel serves a call (float16 out,
a pair of formats the package's bundle lacks) it computes dequantize + fp32
torch.matmul with a warning once per signature; CPU tensors always compute
that way (the reference).

Scale kinds: how an operand's scales apply is told from its codes, scales,
global scale and scale layout (scale_kind; the layout is the
QuantizedTensor's, the op's scale_layout_a / scale_layout_b). Kinds with
kernels are KERNEL_SCALES (per tensor, per row, blockwise 1x128 and
128x128, MXFP8's e8m0 1x32, NVFP4's e4m3 1x16 with its fp32 tensor scale,
the last two row-major or blocked 128x4) in the pairs KERNEL_PAIRS; the
others (MXFP6/MXFP4, ...: NOT_YET) and other pairs are refused, naming the
op, in _check_kinds: a new kind is a word there, its
bundle entries (build_bundle.py: scaled_mm_configurations) and its reference
in _reference.
"""

import atexit
import functools

import torch

from . import _dtypes, bundle, ops
from ._errors import InvalidArgumentError, WrongArchitectureError
from ._native import _fpx

OP = "fpxc.scaled_mm"

# fp8 codes -> the format word of the bundle's key (fpxc.quantize's names).
FORMATS = {torch.float8_e4m3fn: "fp8_e4m3", torch.float8_e5m2: "fp8_e5m2"}
# Result dtypes with kernels; float16 is computed by the fallback.
OUT_WORDS = {torch.bfloat16: "bf16", torch.float32: "f32"}
OUT_DTYPES = (torch.bfloat16, torch.float32, torch.float16)
# K must be a multiple of this (the kernels' TMA rows are 16-byte aligned;
# torch._scaled_mm has the same rule), on every device, so that a call that
# works on the CPU works on the GPU; NVFP4's (two codes a byte) of NVFP4_K.
K_MULTIPLE = 16
NVFP4_K = 32
# The targets fpx.scaled_matmul's fp8 lowering has a kernel form for
# (compiler/lib/Conversion/FPxToGPU/ScaledMatmulOpToGPU.cpp: wgmma).
KERNEL_TARGETS = ("sm_90a",)

# Scale kinds (scale_kind's words) with kernels:
#   "tensor":  one fp32 scale for the operand, (1, 1) (fpxc.quantize block=(0, 0))
#   "row":     one fp32 scale a row, (rows, 1) (block=(1, 0))
#   "1x128":   one a row and 128 of K, (rows, cdiv(K, 128)) (the fp8 default block=(1, 128))
#   "128x128": one a 128 x 128 tile, (cdiv(rows, 128), cdiv(K, 128)) (block=(128, 128))
#   "mx":      MXFP8: one e8m0 code a row and 32 of K, (rows, K / 32), row-major
#              (fpxc.quantize(x, "mxfp8_e4m3" or "mxfp8_e5m2")); K % 32 == 0
#   "nvfp4":   NVFP4: e2m1 codes two a byte (uint8 (rows, K / 2)), one e4m3 code a
#              row and 16 of K, (rows, K / 16), row-major, and an fp32 tensor scale
#              (fpxc.quantize(x, "nvfp4")); K % 32 == 0
#   "mx_blocked", "nvfp4_blocked": the same scales in the blocked 128x4 layout,
#              (cdiv(rows, 128) * 128, cdiv(cols, 4) * 4) (fpxc.quantize(...,
#              scale_layout="blocked"))
KERNEL_SCALES = ("tensor", "row", "1x128", "128x128", "mx", "nvfp4", "mx_blocked",
                 "nvfp4_blocked")
# The (a, b) kinds of the kernels: tensor and row (a tensor beside a row
# scale runs the row kernel), and DeepSeek-V3's blockwise a 1x128 with b
# 128x128 or 1x128 (the lowering applies them at every 128-K promotion);
# MXFP8 on both sides (promoted every 32 K); NVFP4 on both sides (the codes
# dequantized to bf16 on their way into shared memory, bf16 wgmma).
KERNEL_PAIRS = (("tensor", "tensor"), ("row", "row"), ("1x128", "128x128"), ("1x128", "1x128"),
                ("mx", "mx"), ("nvfp4", "nvfp4"), ("mx_blocked", "mx_blocked"),
                ("nvfp4_blocked", "nvfp4_blocked"))
# Kinds that pair only with their family (both operands block-scaled alike;
# one side's scales may be row-major and the other's blocked: the lowering
# takes that, the bundle has no kernel for it, so it is the fallback).
SELF_PAIRED = {"mx": "MXFP8", "nvfp4": "NVFP4"}
FAMILY = {"mx_blocked": "mx", "nvfp4_blocked": "nvfp4"}


def family(kind):
    """A kind's family: MX and NVFP4 whatever their scales' layout."""
    return FAMILY.get(kind, kind)


SCALE_LAYOUTS = ("row_major", "blocked")
BLOCKWISE = ("1x128", "128x128")
DESCRIBE = {
    "tensor": "one fp32 scale (block=(0, 0))",
    "row": "fp32 row scales (block=(1, 0))",
    "1x128": "1x128 blockwise fp32 scales (fpxc.quantize's fp8 default block=(1, 128))",
    "128x128": "128x128 blockwise fp32 scales (block=(128, 128))",
    "mx": "MXFP8 e8m0 1x32 scales (fpxc.quantize's \"mxfp8_e4m3\" / \"mxfp8_e5m2\")",
    "nvfp4": "NVFP4 codes with e4m3 1x16 scales (fpxc.quantize's \"nvfp4\")",
    "mx_blocked": "MXFP8 e8m0 1x32 scales in the blocked 128x4 layout",
    "nvfp4_blocked": "NVFP4 codes with e4m3 1x16 scales in the blocked 128x4 layout",
}
# The kinds fpx.scaled_matmul does not lower yet, with how a user made them.
NOT_YET = {
    "blocks": "fp32 block scales",
    "mx_narrow": "MX e8m0 block scales on fp6 / fp4 codes (mxfp6 / mxfp4)",
    "mx_blocks": "e8m0 scales that are not one a row and 32 of K (row-major, or blocked "
                 "128x4 with scale_layout=\"blocked\")",
    "nvfp4_blocks": "NVFP4 scales that are not one a row and 16 of K (row-major, or blocked "
                    "128x4 with scale_layout=\"blocked\")",
    "unsaid_blocked": "scales of the blocked 128x4 shape in a QuantizedTensor whose "
                      "scale_layout is \"row_major\" (fpxc.quantize(..., scale_layout=\"blocked\") "
                      "says \"blocked\"; a QuantizedTensor built by hand from blocked scales "
                      "must say so)",
    "blocked_f32": "fp32 scales said to be blocked (only MX and NVFP4 byte scales have the "
                   "blocked 128x4 layout)",
    "nvfp4_bytes": "NVFP4 codes one a byte (packing=\"bytes\"; scaled_mm reads two a byte, "
                   "quantize's default fp4x2)",
    "packed": "packed fp4 / fp6 codes",
}


def _cdiv(a, b):
    return -(-a // b)


def _blocked_shape(rows, cols):
    """The blocked 128x4 layout's shape of a (rows, cols) scale matrix."""
    return (_cdiv(rows, 128) * 128, _cdiv(cols, 4) * 4)


def scale_kind(data, scales, global_scale=None, layout="row_major"):
    """How an operand's scales apply (a word of KERNEL_SCALES or NOT_YET),
    from what fpxc.quantize returned: its codes (rows, K), scales, NVFP4's
    global scale and the scales' layout ("row_major" or "blocked", the
    QuantizedTensor's scale_layout). Where two kinds give the same numbers
    (one row: tensor = row; K <= 128: 1x128 = row) the one with a kernel is
    named. The layout is never guessed from a shape (row-major and blocked
    shapes coincide where rows % 128 == 0 and the scale columns % 4 == 0):
    blocked-shaped scales said to be row-major are refused."""
    blocked = layout == "blocked"
    if scales.dtype == torch.float8_e4m3fn or global_scale is not None and \
            data.dtype == torch.uint8:
        if data.dtype != torch.uint8 or data.dim() != 2 or scales.dim() != 2:
            return "nvfp4_blocks"
        rows, half_k = data.shape
        shape, cols = tuple(scales.shape), _cdiv(2 * half_k, 16)
        if shape == (_blocked_shape(rows, cols) if blocked else (rows, cols)):
            return "nvfp4_blocked" if blocked else "nvfp4"
        if not blocked and shape == _blocked_shape(rows, cols):
            return "unsaid_blocked"
        if shape == (rows, _cdiv(half_k, 16)):
            return "nvfp4_bytes"
        return "nvfp4_blocks"
    if scales.dtype == _dtypes.E8M0 and scales.dtype != torch.uint8:
        if data.dtype not in FORMATS:
            return "mx_narrow"
        if data.dim() != 2 or scales.dim() != 2:
            return "mx_blocks"
        rows, k = data.shape
        shape, cols = tuple(scales.shape), _cdiv(k, 32)
        if shape == (_blocked_shape(rows, cols) if blocked else (rows, cols)):
            return "mx_blocked" if blocked else "mx"
        if not blocked and shape == _blocked_shape(rows, cols):
            return "unsaid_blocked"
        return "mx_blocks"
    if data.dtype == torch.uint8:
        return "packed"
    if blocked:
        return "blocked_f32"
    if scales.dtype != torch.float32:
        raise InvalidArgumentError(f"{OP}: scales must be float32 (fpxc.quantize's fp8 "
                                   f"scales), got {scales.dtype}")
    if scales.numel() == 1 and scales.dim() <= 2:
        return "tensor"  # (1, 1) as quantize gives it; a 0-d or (1,) one as torch's
    if data.dim() != 2 or scales.dim() != 2:
        return "blocks"
    rows, k = data.shape
    shape = tuple(scales.shape)
    if shape == (rows, 1):
        return "row"
    if shape == (rows, _cdiv(k, 128)):
        return "1x128"
    if shape == (_cdiv(rows, 128), _cdiv(k, 128)):
        return "128x128"
    return "blocks"


def _check_kinds(ka, kb, sa, sb):
    """The one place that says which pairs of scale kinds scaled_mm takes."""
    for side, kind, s in (("a", ka, sa), ("b", kb, sb)):
        if kind not in KERNEL_SCALES:
            raise InvalidArgumentError(
                f"{OP}: {side} has {NOT_YET[kind]} (scales {s.dtype} of shape "
                f"{tuple(s.shape)}), which scaled_mm does not take yet; it takes fp8 codes "
                "with one fp32 scale per tensor (fpxc.quantize block=(0, 0)) or per row "
                "(block=(1, 0)) on each side, or blockwise a (block=(1, 128)) with b "
                "(block=(128, 128) or (1, 128)), or MXFP8 or NVFP4 on both sides")
    for paired, name in SELF_PAIRED.items():
        if (family(ka) == paired) != (family(kb) == paired):
            side, kind, s, other = (("a", ka, sa, kb) if family(ka) == paired
                                    else ("b", kb, sb, ka))
            raise InvalidArgumentError(
                f"{OP}: {side} has {DESCRIBE[kind]} (scales of shape {tuple(s.shape)}) beside "
                f"{DESCRIBE[other]}; scaled_mm takes {name} operands on both sides or neither")
    if family(ka) in SELF_PAIRED:
        return
    if ka not in BLOCKWISE and kb not in BLOCKWISE:
        return  # (tensor and row mix)
    if ka == "1x128" and kb in BLOCKWISE:
        return
    side, kind, s, other = (("b", kb, sb, ka) if ka == "1x128" or kb in BLOCKWISE and
                            ka not in BLOCKWISE else ("a", ka, sa, kb))
    raise InvalidArgumentError(
        f"{OP}: {side} has {DESCRIBE[kind]} (scales of shape {tuple(s.shape)}) beside "
        f"{DESCRIBE[other]}; scaled_mm takes blockwise scales as a 1x128 a "
        "(block=(1, 128)) with a 128x128 or 1x128 b (DeepSeek-V3's recipe)")


def _check_global(g, name, kind):
    """NVFP4's tensor scale: None (1) or a float32 tensor of one value."""
    if g is None:
        return
    if not isinstance(g, torch.Tensor):
        raise InvalidArgumentError(f"{OP}: {name} must be a torch.Tensor or None, "
                                   f"got {type(g).__name__}")
    ops._check_tensor(g, f"{OP}: {name}")
    if not kind.startswith("nvfp4"):  # (other NVFP4 kinds: their own refusal)
        raise InvalidArgumentError(f"{OP}: {name} is NVFP4's tensor scale; the operand has "
                                   f"{DESCRIBE.get(kind) or NOT_YET[kind]}")
    if g.dtype != torch.float32 or g.numel() != 1:
        raise InvalidArgumentError(f"{OP}: {name} must be one float32 value (fpxc.quantize's "
                                   f"NVFP4 global scale), got {g.dtype} of shape "
                                   f"{tuple(g.shape)}")


def _check_k(op, m, k, kb, n, b_dims, b_form, b_is):
    """a's K (a m x k) against b's (kb; b `b_dims`, which should be
    `b_form`, N = n): where N = K, b may be the transpose torch's op takes
    (`b_is` says what b is)."""
    if kb != k:
        hint = f" (b is {b_form}, K-major, {b_is})" if n == k else ""
        raise InvalidArgumentError(f"{op}: a is {m} x {k} and b is {b_dims}: b must be "
                                   f"{b_form} with a's K = {k}{hint}")


def _check_codes(op, a, b, k, names, sizes, peer, out_dtype):
    """The rules the fp8 GEMM kernels (of `op`) share: K a multiple of
    K_MULTIPLE, the `sizes` (named `names`) below 2^31, K-major codes (a, b),
    a result dtype of OUT_DTYPES; `peer`: the torch op with the K rule."""
    if k % K_MULTIPLE:
        raise InvalidArgumentError(f"{op}: K ({k}) must be a multiple of {K_MULTIPLE} (the fp8 "
                                   f"GEMM reads 16-byte rows; {peer} has the same "
                                   "rule): pad both operands along K with zero codes")
    if max(sizes) >= 2 ** 31:
        raise InvalidArgumentError(f"{op}: {names} must be below 2^31, got "
                                   f"{', '.join(map(str, sizes))}")
    for t, name in ((a, "a"), (b, "b")):
        if not t.is_contiguous():
            raise InvalidArgumentError(
                f"{op}: {name} must be K-major (row-major and contiguous), got strides "
                f"{tuple(t.stride())} for shape {tuple(t.shape)}; a column-block cast "
                "(block=(128, 1), (32, 1)) gives the transpose: quantize along K instead, "
                "or pass .contiguous() codes")
        if t.is_neg():
            raise InvalidArgumentError(f"{op}: {name} is a lazily negated {t.dtype} view, "
                                       "which torch cannot negate")
    if out_dtype not in OUT_DTYPES:
        raise InvalidArgumentError(f"{op}: out_dtype must be torch.bfloat16, torch.float32 "
                                   f"or torch.float16, got {out_dtype}")


def _check(a, sa, b, sb, out_dtype, bias, ga=None, gb=None, la="row_major", lb="row_major"):
    """Checks a call (the op's arguments) on every device; returns the
    scale kinds of a and b."""
    for layout, name in ((la, "scale_layout_a"), (lb, "scale_layout_b")):
        if layout not in SCALE_LAYOUTS:
            raise InvalidArgumentError(f"{OP}: {name} must be one of {SCALE_LAYOUTS}, "
                                       f"got {layout!r}")
    for t, name in ((a, "a"), (sa, "scale_a"), (b, "b"), (sb, "scale_b")):
        if not isinstance(t, torch.Tensor):
            raise InvalidArgumentError(f"{OP}: {name} must be a torch.Tensor, "
                                       f"got {type(t).__name__}")
        ops._check_tensor(t, f"{OP}: {name}")
    for t, name in ((a, "a"), (b, "b")):
        if t.dim() != 2:
            raise InvalidArgumentError(f"{OP}: {name} must be 2-D ({'M' if name == 'a' else 'N'}"
                                       f", K), got shape {tuple(t.shape)} (batched and "
                                       "grouped GEMMs are not taken yet)")
    ka, kb = scale_kind(a, sa, ga, la), scale_kind(b, sb, gb, lb)
    if kb == "128x128" and ka in ("tensor", "row") and \
            tuple(sa.shape) == (a.shape[0], _cdiv(a.shape[1], 128)):
        ka = "1x128"  # (K <= 128: a's 1x128 scales are its row scales; b's blocks need it)
    _check_global(ga, "global_scale_a", ka)
    _check_global(gb, "global_scale_b", kb)
    _check_kinds(ka, kb, sa, sb)
    nvfp4 = family(ka) == "nvfp4"
    if not nvfp4:
        for t, name in ((a, "a"), (b, "b")):
            if t.dtype not in FORMATS:
                raise InvalidArgumentError(f"{OP}: {name} must hold fp8 codes (float8_e4m3fn "
                                           f"or float8_e5m2), got {t.dtype}")
    # K in elements (NVFP4: two codes a byte)
    per_byte = 2 if nvfp4 else 1
    (m, k), (n, kb_) = a.shape, b.shape
    k, kb_ = k * per_byte, kb_ * per_byte
    _check_k(OP, m, k, kb_, n, f"{n} x {kb_}", "(N, K)",
             "as a Linear weight: y = a @ b.T; torch._scaled_mm's second operand is the "
             "transpose of this one")
    if family(ka) == "mx" and k % 32:
        raise InvalidArgumentError(f"{OP}: K ({k}) must be a multiple of 32 for MXFP8 operands "
                                   "(one e8m0 scale a 32-element block of K)")
    if nvfp4 and k % NVFP4_K:
        raise InvalidArgumentError(f"{OP}: K ({k}) must be a multiple of {NVFP4_K} for NVFP4 "
                                   "operands (the GEMM reads 16-byte rows of two codes a byte): "
                                   "pad both operands along K with zeros before quantizing")
    _check_codes(OP, a, b, k, "M, N and K", (m, n, k), "torch._scaled_mm", out_dtype)
    devices = {a.device, sa.device, b.device, sb.device}
    devices.update(g.device for g in (ga, gb) if g is not None)
    if bias is not None:
        devices.add(ops.check_bias(bias, n, OP))
    if len(devices) != 1:
        raise InvalidArgumentError(f"{OP}: the operands, scales and bias must be on one "
                                   f"device, got {sorted(map(str, devices))}")
    return ka, kb


def _e8m0(s):
    """E8M0 codes as fp32: 2^(e - 127), 0xFF NaN (exact)."""
    e = s.view(torch.uint8).to(torch.int32)
    v = torch.ldexp(torch.ones(e.shape, dtype=torch.float32, device=e.device), e - 127)
    return torch.where(e == 255, torch.full_like(v, float("nan")), v)


def _dequantized(t, s, g=None, layout="row_major"):
    """Codes times their scales in fp32, the scales broadcast over their
    blocks (a block scale covers 128 of K, and 128 rows for 128x128; an
    e8m0 one 32 of K); NVFP4's codes, and blocked scales, by the numerics
    core's dequantize (code * e4m3 scale * g)."""
    if t.dtype == torch.uint8:
        return torch.ops.fpxc.dequantize.default(t, s, g, "nvfp4", 1, 16, "", layout,
                                                 "fp4x2", 2 * t.shape[1], torch.float32)
    if s.dtype == _dtypes.E8M0 and s.dtype != torch.float32 and layout == "blocked":
        return torch.ops.fpxc.dequantize.default(t, s, None, "mx" + FORMATS[t.dtype], 1, 32, "",
                                                 layout, "auto", t.shape[1], torch.float32)
    if s.dtype == _dtypes.E8M0 and s.dtype != torch.float32:
        return t.float() * _e8m0(s).repeat_interleave(32, dim=1)[:, :t.shape[1]]
    s = s.float()
    if s.dim() == 2 and s.shape[1] > 1 or s.dim() == 2 and s.shape[0] not in (1, t.shape[0]):
        rows, k = t.shape
        s = s.repeat_interleave(128, dim=1)[:, :k]
        if s.shape[0] != rows:
            s = s.repeat_interleave(128, dim=0)[:rows]
    return t.float() * s


def _reference(a, sa, b, sb, out_dtype, bias, ga=None, gb=None, la="row_major", lb="row_major"):
    """dequantize + torch.matmul in fp32 (each code times its scale: the
    numerics core's dequantize), the bias added in fp32, rounded once."""
    y = _dequantized(a, sa, ga, la) @ _dequantized(b, sb, gb, lb).T
    if bias is not None:
        y = y + bias.float()
    return y.to(out_dtype)


def bundle_options(a_format, b_format, a_scale, b_scale, out_word, bias=None, op="scaled_mm"):
    """The dispatch key of a scaled_mm kernel (build_bundle.py's
    scaled_mm_config writes the same dicts); `bias`: the bias dtype word of
    a kernel that adds it in its epilogue; `op`: "grouped_mm" for
    fpxc.grouped_mm's (fpxc/grouped.py), keyed alike."""
    options = {"op": op, "a_format": a_format, "b_format": b_format,
               "a_scale": a_scale, "b_scale": b_scale, "output_dtype": out_word}
    if bias is not None:
        options["bias"] = bias
    return options


# The package's fallback warning, once per signature (no frame of its own:
# the warning points at the caller's line as before).
_warn_fallback = functools.partial(ops.warn_gemm_fallback, "scaled_mm")


_targets_ok = {}


def _check_target(device, op=OP):
    """A GPU whose target has no kernel form of the fp8 GEMM is an error
    (WrongArchitectureError naming the op, `op`)."""
    ok = _targets_ok.get(device)
    if ok is None:
        ok = _targets_ok[device] = any(t in KERNEL_TARGETS for t in bundle._device_targets(device))
    if not ok:
        major, minor = torch.cuda.get_device_capability(device)
        raise WrongArchitectureError(
            f"{op}: fpxc's fp8 GEMM has kernels for {', '.join(KERNEL_TARGETS)} (Hopper) only; "
            f"{torch.cuda.get_device_name(device)} is sm_{major}{minor}. Compute on the CPU, "
            "or dequantize (fpxc.dequantize) and use torch.matmul")


class _ScaledPlan:
    """One bundled scaled GEMM for one call signature, resolved once.

    args: the op's argument index of each artifact input, in the artifact's
      order (a 0, scale_a 1, b 2, scale_b 3, bias 5 where the kernel adds
      it, NVFP4's global_scale_a 6 and global_scale_b 7). operands: (word,
      shape) of each. expand: the rows a per-tensor scale is broadcast to
      for a row kernel (a tensor x row call), per side (0: as it is). out:
      (shape, dtype, word). bias_in_kernel: whether the kernel takes the bias
      (else it is added to the result in place).
    """

    __slots__ = ("fn", "launch", "args", "operands", "expand", "out", "bias_in_kernel")

    def __init__(self, kernel, args, shapes, expand, out_dtype, bias_in_kernel):
        fn = kernel.fn
        self.fn = fn._fn
        self.launch = fn._fn.launch
        self.args = args
        self.operands = [(w, list(s)) for (_, w), s in zip(fn.inputs, shapes)]
        self.expand = expand
        (shape,) = fn.output_shapes(*shapes)
        self.out = (list(shape), out_dtype, fn.outputs[0][1])
        self.bias_in_kernel = bias_in_kernel

    def __call__(self, call):
        """call: the op's arguments (a, scale_a, b, scale_b, out_dtype, bias,
        global_scale_a, global_scale_b), NVFP4's missing global scales
        given as ones."""
        a, bias = call[0], call[5]
        ea, eb = self.expand
        if ea or eb:
            call = list(call)
            if ea:
                call[1] = call[1].expand(ea, 1)
            if eb:
                call[3] = call[3].expand(eb, 1)
        held = ops._kernel_operands([call[i] for i in self.args])  # (alive until the launch)
        shape, dtype, word = self.out
        y = torch.empty(shape, dtype=dtype, device=a.device)
        self.launch(ops._raw_stream(a.device),
                    [(t.data_ptr(), w, s, []) for t, (w, s) in zip(held, self.operands)],
                    [(y.data_ptr(), word, shape, [])], [])
        if bias is not None and not self.bias_in_kernel:
            # (no bias epilogue in the kernel yet: one in-place add)
            y.add_(bias)
        return y

    def offer(self, call):
        """Describes the launch to the C++ kernel of torch.ops.fpxc.scaled_mm
        missing this signature now: the arguments in self.args as operands,
        and the bias (5) as an operand or an add into the result. A call
        that broadcasts a scale or stands in a global scale of one is no
        single launch of its arguments: not offered."""
        if any(self.expand) or any(call[i] is None for i in self.args) or \
                not _fpx._plan_pending("fpxc::scaled_mm"):
            return
        ins = [(i, w, s, False) for i, (w, s) in zip(self.args, self.operands)]
        shape, dtype, word = self.out
        adds = [(5, 0)] if call[5] is not None and not self.bias_in_kernel else []
        _fpx._offer_plan("fpxc::scaled_mm", self.fn, ins,
                         [(shape, ops._TORCH_NAMES[dtype], word, shape)], [], [0], [], adds)


_plans = {}
atexit.register(_plans.clear)
bundle._forget_hooks.append(_plans.clear)


def _find(options, bias, device):
    """The bundled kernel for `options` and whether it adds the bias: a
    kernel with the bias epilogue where the bundle has one, else the plain
    one (the bias then added after it)."""
    if bias is not None:
        word = ops._OUT_WORDS.get(bias.dtype)
        if word is not None:
            kernel = bundle.find(dict(options, bias=word), device)
            if kernel is not None:
                return kernel, True
    return bundle.find(options, device), False


def _format_word(t, kind):
    """The format word of an operand in the bundle's key."""
    return "nvfp4" if family(kind) == "nvfp4" else FORMATS[t.dtype]


def _plan(a, sa, b, sb, out_dtype, bias, ka, kb):
    """The plan of the bundled kernel serving this call, or (None, why)."""
    word = OUT_WORDS.get(out_dtype)
    if word is None:
        return None, f"no kernel writes {out_dtype}"
    (m, _), (n, _) = a.shape, b.shape
    # A per-tensor scale beside a per-row one: the row kernel, the tensor's
    # scale broadcast to its rows (where it is not already (rows, 1): one row).
    expand = (m if ka == "tensor" and kb == "row" and tuple(sa.shape) != (m, 1) else 0,
              n if kb == "tensor" and ka == "row" and tuple(sb.shape) != (n, 1) else 0)
    if ka != kb and {ka, kb} <= {"tensor", "row"}:  # (the row kernel)
        ka = kb = "row"
    fa, fb = _format_word(a, ka), _format_word(b, kb)
    options = bundle_options(fa, fb, ka, kb, word)
    kernel, bias_in_kernel = _find(options, bias, a.device)
    if kernel is None:
        return None, f"no bundled {fa} x {fb} {ka}-scaled kernel writing {word}"
    scale_shape = {"tensor": lambda t, r: (1, 1), "row": lambda t, r: (r, 1)}
    sa_shape = scale_shape.get(ka, lambda t, r: tuple(t.shape))(sa, m)
    sb_shape = scale_shape.get(kb, lambda t, r: tuple(t.shape))(sb, n)
    if family(ka) == "nvfp4":  # (a, sa, ga, b, sb, gb: the operands' order in fpx.scaled_matmul)
        args = [0, 1, 6, 2, 3, 7]
        shapes = [tuple(a.shape), sa_shape, (), tuple(b.shape), sb_shape, ()]
    else:
        args = [0, 1, 2, 3]
        shapes = [tuple(a.shape), sa_shape, tuple(b.shape), sb_shape]
    if bias_in_kernel:
        args.append(5)
        shapes.append((n,))
    ok, why = kernel.fn.accepts(*shapes)
    if not ok:
        return None, why
    return _ScaledPlan(kernel, args, shapes, expand, out_dtype, bias_in_kernel), ""


def _scaled_mm_impl(a: torch.Tensor, scale_a: torch.Tensor, b: torch.Tensor,
                    scale_b: torch.Tensor, out_dtype: torch.dtype,
                    bias=None, global_scale_a=None, global_scale_b=None,
                    scale_layout_a="row_major", scale_layout_b="row_major") -> torch.Tensor:
    la, lb = scale_layout_a, scale_layout_b
    ka, kb = _check(a, scale_a, b, scale_b, out_dtype, bias, global_scale_a, global_scale_b,
                    la, lb)
    m, n, k = a.shape[0], b.shape[0], a.shape[1]
    if a.is_cuda and m * n * k:
        _check_target(a.device)
        # (the layouts: a blocked and a row-major scale matrix may have one shape)
        key = (a.dtype, a.device, a.shape, scale_a.shape, b.dtype, b.shape, scale_b.shape,
               out_dtype, None if bias is None else (bias.dtype, bias.shape),
               global_scale_a is None, global_scale_b is None, la, lb)
        plan = _plans.get(key)
        why = ""
        if plan is None:
            plan, why = _plan(a, scale_a, b, scale_b, out_dtype, bias, ka, kb)
            if plan is not None and len(_plans) < 4096:
                _plans[key] = plan
        if plan is not None:
            call = [a, scale_a, b, scale_b, out_dtype, bias, global_scale_a, global_scale_b]
            plan.offer(call)
            if family(ka) == "nvfp4":  # (a missing NVFP4 tensor scale is 1; the kernel reads two)
                for i in (6, 7):
                    if call[i] is None:
                        call[i] = torch.ones((), dtype=torch.float32, device=a.device)
            with ops._launch_device(a):
                return plan(call)
        _warn_fallback(f"{_format_word(a, ka)} x {_format_word(b, kb)} {ka} x {kb} scales -> "
                       f"{out_dtype} ({m}, {k}) x ({n}, {k})", why)
    return _reference(a, scale_a, b, scale_b, out_dtype, bias, global_scale_a, global_scale_b,
                      la, lb)


ops._lib.impl("scaled_mm", _scaled_mm_impl, "CompositeExplicitAutograd")


# (registered as the fake kernel by fpxc/ops.py, the module the C++ schema names)
def _scaled_mm_fake(a, scale_a, b, scale_b, out_dtype, bias=None, global_scale_a=None,
                    global_scale_b=None, scale_layout_a="row_major", scale_layout_b="row_major"):
    _check(a, scale_a, b, scale_b, out_dtype, bias, global_scale_a, global_scale_b,
           scale_layout_a, scale_layout_b)
    return a.new_empty((a.shape[0], b.shape[0]), dtype=out_dtype)


_op = torch.ops.fpxc.scaled_mm.default


_QuantizedTensor = None  # fpxc.api's (which imports this module's importer)


def _operand(q, name, op=OP):
    """A QuantizedTensor's (codes, scales, global scale, scale layout), for
    the op `op` (named in the error where q is something else)."""
    global _QuantizedTensor
    if _QuantizedTensor is None:
        from .api import QuantizedTensor as _QuantizedTensor
    if not isinstance(q, _QuantizedTensor):
        raise InvalidArgumentError(
            f"{op}: {name} must be a QuantizedTensor (what fpxc.quantize returns, or "
            f"fpxc.QuantizedTensor(codes, scales, None)), got {type(q).__name__}")
    return q.data, q.scales, q.global_scale, q.scale_layout


def scaled_mm(a, b, out_dtype=torch.bfloat16, bias=None):
    """y = (a.data * a.scales) @ (b.data * b.scales).T (+ bias), (M, N) in
    `out_dtype`: the fp8 GEMM of FP8 training (torch._scaled_mm's), and the
    MXFP8 and NVFP4 GEMMs, fp32 accumulation.

    a: a QuantizedTensor of x (M, K), b: one of the weight (N, K), both
      K-major (b as a Linear weight is stored, as torch.nn.functional.linear
      takes it; torch._scaled_mm takes its transpose: fpxc.scaled_mm(qa, qb)
      is torch._scaled_mm(qa.data, qb.data.T, qa.scales, qb.scales.T)).
      fp8 codes (float8_e4m3fn or float8_e5m2, any pair) with float32
      scales, per tensor (fpxc.quantize(..., "fp8_e4m3", block=(0, 0)):
      scales (1, 1)) or per row ((1, 0): (M, 1) for a, (N, 1) for b, one a
      row of the weight: an output channel), one kind on each side or one of
      each; blockwise a (the fp8 default block (1, 128)) with b (1, 128) or
      (128, 128); or MXFP8 on both sides (fpxc.quantize(x, "mxfp8_e4m3" or
      "mxfp8_e5m2"): e8m0 scales (rows, K / 32), row-major, as quantize
      writes them by default; K a multiple of 32); or NVFP4 on both sides
      (fpxc.quantize(x, "nvfp4"): e2m1 codes two a byte, uint8 (rows, K / 2),
      e4m3 scales (rows, K / 16) row-major, and the fp32 global scale, which
      may be None (1); K a multiple of 32). MX and NVFP4 scales may be in
      the blocked 128x4 layout (fpxc.quantize(..., scale_layout="blocked"):
      the QuantizedTensor's scale_layout says so), on either side. MXFP6 /
      MXFP4 are refused (InvalidArgumentError). K must be a
      multiple of 16 (zero-pad both along K).
    out_dtype: torch.bfloat16 (default) or torch.float32 (kernels), or
      torch.float16 (the fallback below, with its warning).
    bias: None or (N,) floating point, added to the result. The kernels
      have no bias epilogue yet: on CUDA it is one in-place torch add into
      the result after the GEMM (after its rounding to out_dtype), captured
      with it in CUDA graphs; the fallback adds it in fp32.

    On CUDA (sm_90a): fpxc's bundled TMA + wgmma GEMM (the core bundle: e4m3
    x e4m3; a full bundle adds the e5m2 pairs; MXFP8 promotes each 32 of K's
    fp8 partial sum with its two scales, exact, at about a third of the speed
    of the fp32-scaled kernels; NVFP4 dequantizes its codes exactly to bf16
    on their way into shared memory and multiplies in bf16, the global
    scales in the epilogue) on the current stream, through
    a plan cached per signature in C++ (eager, torch.compile(fullgraph=True),
    CUDA graphs). Other GPUs raise WrongArchitectureError. A call no bundled
    kernel serves computes dequantize + fp32 torch.matmul, warning once per
    signature; CPU tensors always compute that way. No gradients.
    """
    da, sa, ga, la = _operand(a, "a")
    db, sb, gb, lb = _operand(b, "b")
    args = (da, sa, db, sb, out_dtype, bias, ga, gb, la, lb)
    if da.is_cuda or not ops.eager(da) or (bias is not None and not ops.eager(bias)):
        return _op(*args)
    return _scaled_mm_impl(*args)
