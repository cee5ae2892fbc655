"""fpxc.grouped_mm: the grouped (MoE) fp8 GEMM, torch._scaled_grouped_mm's
2-D x 3-D form, on the QuantizedTensors fpxc.quantize returns.

    qx = fpxc.quantize(x, "fp8_e4m3", block=(1, 0))   # x (M, K), tokens sorted by expert
    qw = fpxc.quantize(w, "fp8_e4m3", block=(1, 0))   # w (G, N, K): scales (G, N, 1)
    y = fpxc.grouped_mm(qx, qw, offs)                  # (M, N); offs int32 (G,)

offs holds each group's end row (torch._scaled_grouped_mm's `offs`): group
g is rows [offs[g - 1], offs[g]) (offs[-1] = 0) and computes
y[rows] = dequantize(x)[rows] @ dequantize(w[g]).T. The kernel reads the
ends on the device, so a CUDA call never reads them on the host (no
synchronization; a CUDA graph may replay with new ends). As the kernel does
(fpx.grouped_matmul in dialect/include/fpx/Dialect/FPx/IR/FPxOps.td), every
device takes each end clamped to [0, M], an end below its start is an empty
group, and rows past the last end are zeros; ends are not checked.

The op is torch.ops.fpxc.grouped_mm (schema and CUDA kernel in
src/TorchOps.cpp, the fake kernel registered by fpxc/ops.py), built as
fpxc.scaled_mm is (fpxc/scaled.py, whose words and checks this reuses): a
CUDA call runs the bundled kernel (build_bundle.py: grouped_mm_configurations)
through a plan cached per signature in C++ after its first call; where no
bundled kernel serves it (float16 out, a pair of formats the bundle lacks,
more groups than the kernel's table) it computes the reference below on the
device with the package's warning once per signature; CPU tensors always
compute the reference. Only fp8 codes with fp32 row scales are taken for
now (the lowering's one form): other scale kinds are refused, naming the op.
"""

import atexit
import functools

import torch

from . import _dtypes, bundle, ops, scaled
from ._errors import InvalidArgumentError

OP = "fpxc.grouped_mm"
SCALE_KIND = "row"  # (the one kind of the kernels: scaled.py's word)
TAKES = ("fp8 codes (float8_e4m3fn or float8_e5m2) with fp32 row scales: a's (M, 1), "
         "b's (G, N, 1) (fpxc.quantize(x, \"fp8_e4m3\", block=(1, 0)))")


def _refuse_scales(side, data, scales):
    """The error for scales that are not the row scales grouped_mm takes,
    naming what they are (scaled.py's words, of b's first matrix for b)."""
    d, s = (data, scales) if data.dim() == 2 else (None, None)
    if data.dim() == 3 and scales.dim() == 3 and data.shape[0] and \
            scales.shape[0] == data.shape[0]:
        d, s = data[0], scales[0]
    if scales.dtype not in (torch.float32, torch.float8_e4m3fn, _dtypes.E8M0):
        what = f"{scales.dtype} scales"
    else:
        kind = "blocks" if d is None else scaled.scale_kind(d, s)
        what = scaled.DESCRIBE.get(kind) or scaled.NOT_YET[kind]
    raise InvalidArgumentError(
        f"{OP}: {side} has {what} (scales of shape {tuple(scales.shape)}), which grouped_mm "
        f"does not take yet; it takes {TAKES}")


def _check(a, sa, b, sb, offs, out_dtype):
    """Checks a call (the op's arguments) on every device, without reading
    offs' values (a CUDA call never synchronizes on them)."""
    for t, name in ((a, "a"), (sa, "scale_a"), (b, "b"), (sb, "scale_b"), (offs, "offs")):
        ops._check_tensor(t, f"{OP}: {name}")
    if a.dim() != 2:
        raise InvalidArgumentError(f"{OP}: a must be 2-D (M, K), got shape {tuple(a.shape)}")
    if b.dim() != 3:
        raise InvalidArgumentError(f"{OP}: b must be 3-D (G, N, K), one (N, K) matrix a group, "
                                   f"got shape {tuple(b.shape)}")
    for t, name in ((a, "a"), (b, "b")):
        if t.dtype not in scaled.FORMATS:
            raise InvalidArgumentError(f"{OP}: {name} must hold fp8 codes (float8_e4m3fn or "
                                       f"float8_e5m2), got {t.dtype}; it takes {TAKES}")
    (m, k), (g, n, kb) = a.shape, b.shape
    scaled._check_k(OP, m, k, kb, n, f"{g} x {n} x {kb}", "(G, N, K)",
                    "each group's weight as a Linear holds it: torch._scaled_grouped_mm's "
                    "second operand is its transpose (G, K, N)")
    if tuple(sa.shape) != (m, 1) or sa.dtype != torch.float32:
        _refuse_scales("a", a, sa)
    if tuple(sb.shape) != (g, n, 1) or sb.dtype != torch.float32:
        _refuse_scales("b", b, sb)
    if offs.dtype != torch.int32 or offs.dim() != 1 or offs.shape[0] != g:
        raise InvalidArgumentError(
            f"{OP}: offs must be int32 of shape ({g},) (G: each group's end row in a), got "
            f"{offs.dtype} of shape {tuple(offs.shape)}")
    scaled._check_codes(OP, a, b, k, "M, G * N and K", (m, g * n, k),
                        "torch._scaled_grouped_mm", out_dtype)
    devices = {a.device, sa.device, b.device, sb.device, offs.device}
    if len(devices) != 1:
        raise InvalidArgumentError(f"{OP}: the operands, scales and offs must be on one "
                                   f"device, got {sorted(map(str, devices))}")


def _reference(a, sa, b, sb, offs, out_dtype, masked=None):
    """dequantize + fp32 torch.matmul per group (each code times its scale:
    the numerics core's dequantize), rounded once; the kernel's reading of
    the ends (clamped to [0, M]; an end below its start: an empty group;
    rows past the last end: zeros). CPU ends are read on the host and each
    group's rows sliced; CUDA ones (`masked`) stay on the device (no
    synchronization, capturable): every group's product over all rows, kept
    where its rows are."""
    m, (g, n, _) = a.shape[0], b.shape
    da = scaled._dequantized(a, sa)
    y = torch.zeros((m, n), dtype=torch.float32, device=a.device)
    if offs.is_cuda if masked is None else masked:
        ends = offs.long().clamp(0, m)
        starts = torch.cat([ends.new_zeros(1), ends[:-1]])
        rows = torch.arange(m, device=a.device)[:, None]
        for i in range(g):
            y = torch.where((rows >= starts[i]) & (rows < ends[i]),
                            da @ scaled._dequantized(b[i], sb[i]).T, y)
        if g:
            y = torch.where(rows >= ends[-1], 0.0, y)
        return y.to(out_dtype)
    ends = [min(max(e, 0), m) for e in offs.tolist()]
    for i, (start, end) in enumerate(zip([0] + ends, ends)):
        if end > start:
            y[start:end] = da[start:end] @ scaled._dequantized(b[i], sb[i]).T
    if g:
        y[ends[-1]:] = 0
    return y.to(out_dtype)


# The package's fallback warning, once per signature.
_warn_fallback = functools.partial(ops.warn_gemm_fallback, "grouped_mm")

_plans = {}
atexit.register(_plans.clear)
bundle._forget_hooks.append(_plans.clear)


def _plan(a, sa, b, sb, offs, out_dtype):
    """The plan of the bundled kernel serving this call (ops._LayoutPlan:
    the op's tensor arguments are the kernel's inputs, in order), or (None,
    why)."""
    word = scaled.OUT_WORDS.get(out_dtype)
    if word is None:
        return None, f"no kernel writes {out_dtype}"
    fa, fb = scaled.FORMATS[a.dtype], scaled.FORMATS[b.dtype]
    options = scaled.bundle_options(fa, fb, SCALE_KIND, SCALE_KIND, word, op="grouped_mm")
    kernel = bundle.find(options, a.device)
    if kernel is None:
        return None, f"no bundled {fa} x {fb} row-scaled grouped kernel writing {word}"
    shapes = [tuple(t.shape) for t in (a, sa, b, sb, offs)]
    ok, why = kernel.fn.accepts(*shapes)
    if not ok:
        return None, why
    return ops._LayoutPlan(kernel, shapes), ""


def _grouped_mm_impl(a: torch.Tensor, scale_a: torch.Tensor, b: torch.Tensor,
                     scale_b: torch.Tensor, offs: torch.Tensor,
                     out_dtype: torch.dtype) -> torch.Tensor:
    _check(a, scale_a, b, scale_b, offs, out_dtype)
    (m, k), (g, n, _) = a.shape, b.shape
    if a.is_cuda and m * n * k * g:
        scaled._check_target(a.device, OP)
        key = (a.dtype, a.device, a.shape, b.dtype, b.shape, out_dtype)
        plan = _plans.get(key)
        why = ""
        if plan is None:
            plan, why = _plan(a, scale_a, b, scale_b, offs, out_dtype)
            if plan is not None and len(_plans) < 4096:
                _plans[key] = plan
        if plan is not None:
            plan.offer("grouped_mm", out_dtype)
            with ops._launch_device(a):
                return plan([a, scale_a, b, scale_b, offs], a.device)
        _warn_fallback(f"{scaled.FORMATS[a.dtype]} x {scaled.FORMATS[b.dtype]} row scales -> "
                       f"{out_dtype} ({m}, {k}) x ({g}, {n}, {k})", why)
    return _reference(a, scale_a, b, scale_b, offs, out_dtype)


ops._lib.impl("grouped_mm", _grouped_mm_impl, "CompositeExplicitAutograd")


# (registered as the fake kernel by fpxc/ops.py, the module the C++ schema names)
def _grouped_mm_fake(a, scale_a, b, scale_b, offs, out_dtype):
    _check(a, scale_a, b, scale_b, offs, out_dtype)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


_op = torch.ops.fpxc.grouped_mm.default


def grouped_mm(a, b, offs, out_dtype=torch.bfloat16):
    """y[rows of g] = (a.data * a.scales)[rows of g] @ (b.data[g] * b.scales[g]).T
    for each group g, (M, N) in `out_dtype`, fp32 accumulation: the forward
    GEMM of an fp8 MoE layer (torch._scaled_grouped_mm's 2-D x 3-D form).

    a: a QuantizedTensor of x (M, K), the tokens sorted by group;
      b: one of the experts' weights (G, N, K), each (N, K) as a Linear
      weight is stored, K-major (torch._scaled_grouped_mm takes its
      transpose (G, K, N)). fp8 codes (float8_e4m3fn or float8_e5m2, any
      pair) with fp32 row scales: fpxc.quantize(t, "fp8_e4m3", block=(1, 0))
      gives a's (M, 1) and b's (G, N, 1) (one an output channel of each
      expert). Other scales (per tensor, blockwise, MXFP8, NVFP4) are refused
      (InvalidArgumentError). K a multiple of 16; both codes contiguous.
    offs: int32 (G,) on a's device, each group's end row (cumulative):
      group g is rows [offs[g - 1], offs[g]) with offs[-1] = 0. Ends are
      clamped to [0, M], an end below its start makes an empty group and
      rows past the last end are zeros; they are never read on the host
      for a CUDA call.
    out_dtype: torch.bfloat16 (default) or torch.float32 (kernels), or
      torch.float16 (the fallback, with its warning).

    On CUDA (sm_90a): fpxc's bundled grouped TMA + wgmma GEMM (the core
    bundle: e4m3 x e4m3; a full bundle adds the e5m2 pairs and more result
    dtypes) on the current stream, its tiles derived from offs on the
    device, through a plan cached per signature in C++ (eager,
    torch.compile(fullgraph=True), CUDA graphs). Other GPUs raise
    WrongArchitectureError. A call no bundled kernel serves computes
    dequantize + fp32 torch.matmul per group on the device (every group over
    all rows, masked: no host read of offs), warning once per signature; CPU
    tensors always compute the reference. No gradients.
    """
    da, sa, ga, la = scaled._operand(a, "a", OP)
    db, sb, gb, lb = scaled._operand(b, "b", OP)
    for side, g, layout, d, s in (("a", ga, la, da, sa), ("b", gb, lb, db, sb)):
        if g is not None or layout != "row_major":
            what = ("a global scale (NVFP4's)" if g is not None else
                    f"scales in the {layout} layout")
            raise InvalidArgumentError(
                f"{OP}: {side} has {what} (scales {s.dtype} of shape {tuple(s.shape)}), which "
                f"grouped_mm does not take yet; it takes {TAKES}")
    args = (da, sa, db, sb, offs, out_dtype)
    if da.is_cuda or not ops.eager(da) or isinstance(offs, torch.Tensor) and not ops.eager(offs):
        return _op(*args)
    return _grouped_mm_impl(*args)
