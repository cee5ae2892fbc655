"""fpxc.scaled_mm, the fp8 GEMM of QuantizedTensors (issue 39), MXFP8 and NVFP4
included.

CPU tests always run: the API, its errors, the CPU path against an fp64
matmul of the numerics core's dequantized operands (fpxc.dequantize), the
fake kernel under torch.compile, the bundle builder's entries. Those marked
gpu need an sm_90a GPU and the bundled kernels (the core bundle: e4m3 x e4m3;
a full bundle through FPX_KERNEL_DIR adds the e5m2 pairs): against the fp32
matmul of the dequantized operands (relative error <= 1e-3 before the output
cast), eager, torch.compile(fullgraph=True), CUDA graphs, odd M, N, K.
"""

import subprocess

import pytest
import torch

import fpxc
from fpxc import QuantizedTensor, bundle, ops, scaled

FMTS = ["fp8_e4m3", "fp8_e5m2"]
BLOCKS = {"tensor": (0, 0), "row": (1, 0), "1x128": (1, 128), "128x128": (128, 128),
          "mx": (1, 32), "nvfp4": (1, 16), "mx_blocked": (1, 32), "nvfp4_blocked": (1, 16)}


def word(fmt, kind):
    """fpxc.quantize's format name of an operand: MX kinds name the MX format
    (NVFP4's format and kind are both "nvfp4")."""
    return "mx" + fmt if scaled.family(kind) == "mx" else fmt


def quant(x, fmt, kind):
    layout = "blocked" if kind.endswith("_blocked") else "row_major"
    return fpxc.quantize(x, word(fmt, kind), block=BLOCKS[kind], scale_layout=layout)


def dequant(q, fmt, kind):
    """The numerics core's dequantize of an operand, in fp32 on the CPU
    (NVFP4's global scale included)."""
    g = None if q.global_scale is None else q.global_scale.cpu()
    return fpxc.dequantize(q.data.cpu(), q.scales.cpu(), format=word(fmt, kind),
                           block=BLOCKS[kind], global_scale=g, scale_layout=q.scale_layout)


def oracle(qa, qb, fa, fb, ka, kb, bias=None):
    """The fp64 matmul of the dequantized operands (fp32 values: exact in fp64)."""
    y = dequant(qa, fa, ka).double() @ dequant(qb, fb, kb).double().T
    return y if bias is None else y + bias.cpu().double()


def rel(got, want):
    got, want = got.detach().cpu().double(), want.detach().cpu().double()
    return ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def operands(m, n, k, fa="fp8_e4m3", fb="fp8_e4m3", ka="row", kb="row", device="cpu", seed=0):
    g = torch.Generator().manual_seed(seed)
    # rows of different magnitudes, so that per-row scales differ
    x = torch.randn(m, k, generator=g) * torch.rand(m, 1, generator=g).mul(8).exp2()
    w = torch.randn(n, k, generator=g) * torch.rand(n, 1, generator=g).mul(8).exp2()
    # (quantized by the CPU reference: the GPU tests test the GEMM alone)
    qa, qb = quant(x, fa, ka), quant(w, fb, kb)
    return qa.to(device), qb.to(device)


# --- the API on the CPU --------------------------------------------------------------

def mx_k(k):
    """A K for MXFP8 and NVFP4 operands near k (a multiple of 32)."""
    return k if k % 32 == 0 else k + 16 if k % 32 == 16 else -(-k // 32) * 32


FORMAT_PAIRS = [(a, b) for a in FMTS for b in FMTS]
KIND_PAIRS = [("tensor", "tensor"), ("row", "row"), ("tensor", "row"), ("row", "tensor"),
              ("1x128", "128x128"), ("1x128", "1x128"), ("mx", "mx")]


@pytest.mark.parametrize("fa,fb,ka,kb", [(a, b, ka, kb) for a, b in FORMAT_PAIRS
                                         for ka, kb in KIND_PAIRS] +
                         [("nvfp4", "nvfp4", "nvfp4", "nvfp4"),
                          ("fp8_e4m3", "fp8_e5m2", "mx_blocked", "mx_blocked"),
                          ("fp8_e4m3", "fp8_e4m3", "mx", "mx_blocked"),
                          ("nvfp4", "nvfp4", "nvfp4_blocked", "nvfp4_blocked"),
                          ("nvfp4", "nvfp4", "nvfp4_blocked", "nvfp4")])
@pytest.mark.parametrize("m,n,k", [(1, 1, 16), (7, 13, 48), (5, 200, 64), (33, 65, 272),
                                   (130, 300, 400)])
def test_cpu_is_the_matmul_of_the_dequantized_operands(fa, fb, ka, kb, m, n, k):
    if scaled.family(ka) in ("mx", "nvfp4"):
        k = mx_k(k)
    qa, qb = operands(m, n, k, fa, fb, ka, kb, seed=m + n + k)
    want = oracle(qa, qb, fa, fb, ka, kb)
    y = fpxc.scaled_mm(qa, qb, out_dtype=torch.float32)
    assert y.dtype == torch.float32 and y.shape == (m, n)
    assert rel(y, want) <= 1e-6
    # the fp32 matmul of the dequantized operands, bit for bit
    da, db = dequant(qa, fa, ka), dequant(qb, fb, kb)
    assert torch.equal(y, da @ db.T)
    yb = fpxc.scaled_mm(qa, qb)  # bfloat16 by default: that result rounded once
    assert yb.dtype == torch.bfloat16 and torch.equal(yb, (da @ db.T).bfloat16())
    yh = fpxc.scaled_mm(qa, qb, out_dtype=torch.float16)
    assert torch.equal(yh, (da @ db.T).half())


@pytest.mark.parametrize("out", [torch.float32, torch.bfloat16])
def test_cpu_bias_is_added_in_fp32(out):
    qa, qb = operands(5, 24, 64)
    for bias in (torch.randn(24), torch.randn(24).bfloat16()):
        y = fpxc.scaled_mm(qa, qb, out_dtype=out, bias=bias)
        ref = oracle(qa, qb, "fp8_e4m3", "fp8_e4m3", "row", "row", bias)
        assert y.dtype == out
        assert rel(y, ref) <= (1e-6 if out == torch.float32 else 4e-3)


def test_b_is_n_by_k_like_a_linear_weight():
    """scaled_mm(qx, qw) is F.linear of the dequantized x and w, and
    torch._scaled_mm's operand convention is the transpose of b."""
    x, w = torch.randn(8, 64), torch.randn(32, 64)
    qx, qw = quant(x, "fp8_e4m3", "row"), quant(w, "fp8_e4m3", "row")
    bias = torch.randn(32)
    y = fpxc.scaled_mm(qx, qw, out_dtype=torch.float32, bias=bias)
    dx, dw = dequant(qx, "fp8_e4m3", "row"), dequant(qw, "fp8_e4m3", "row")
    assert torch.allclose(y, torch.nn.functional.linear(dx, dw, bias), rtol=1e-6, atol=1e-5)
    assert rel(y, x @ w.T + bias) < 0.1  # (fp8's error; the sign of a mix-up is ~1)


def test_empty_operands():
    for m, n, k in ((0, 8, 16), (4, 0, 16), (4, 8, 0)):
        qa, qb = operands(max(m, 1), max(n, 1), max(k, 16))
        qa = QuantizedTensor(qa.data[:m, :k].contiguous(), qa.scales[:m], None)
        qb = QuantizedTensor(qb.data[:n, :k].contiguous(), qb.scales[:n], None)
        bias = torch.ones(n)
        y = fpxc.scaled_mm(qa, qb, out_dtype=torch.float32, bias=bias)
        assert y.shape == (m, n) and torch.equal(y, torch.ones(m, n))


def test_scalar_scales_as_torch_gives_them():
    """A per-tensor scale may be 0-d (torch._scaled_mm's form) or (1,)."""
    qa, qb = operands(3, 16, 32, ka="tensor", kb="tensor")
    want = fpxc.scaled_mm(qa, qb, out_dtype=torch.float32)
    for shape in ((), (1,)):
        a = QuantizedTensor(qa.data, qa.scales.reshape(shape), None)
        assert torch.equal(fpxc.scaled_mm(a, qb, out_dtype=torch.float32), want)


@pytest.mark.parametrize("block,kind", [((0, 0), "tensor"), ((1, 0), "row"),
                                        ((1, 128), "1x128"), ((128, 128), "128x128"),
                                        ((1, 64), "blocks")])
def test_scale_kinds_are_told_from_the_quantized_tensor(block, kind):
    q = fpxc.quantize(torch.randn(300, 512), "fp8_e4m3", block=block)
    assert scaled.scale_kind(q.data, q.scales, q.global_scale) == kind
    for fmt, want in (("mxfp8_e4m3", "mx"), ("mxfp8_e5m2", "mx"), ("mxfp4", "mx_narrow"),
                      ("mxfp6_e2m3", "mx_narrow"), ("nvfp4", "nvfp4")):
        q = fpxc.quantize(torch.randn(32, 64), fmt)
        assert scaled.scale_kind(q.data, q.scales, q.global_scale) == want
    # MX scales in the blocked layout: the QuantizedTensor says so; a
    # blocked shape said to be row-major is refused, not guessed
    q = fpxc.quantize(torch.randn(100, 96), "mxfp8_e4m3", scale_layout="blocked")
    assert tuple(q.scales.shape) == (128, 4) and q.scale_layout == "blocked"
    assert scaled.scale_kind(q.data, q.scales, None, q.scale_layout) == "mx_blocked"
    assert scaled.scale_kind(q.data, q.scales) == "unsaid_blocked"
    # where the two layouts' shapes coincide, the layout decides
    q = fpxc.quantize(torch.randn(128, 128), "mxfp8_e4m3", scale_layout="blocked")
    assert scaled.scale_kind(q.data, q.scales, None, "blocked") == "mx_blocked"
    assert scaled.scale_kind(q.data, q.scales, None, "row_major") == "mx"
    q = fpxc.quantize(torch.randn(32, 64), "fp8_e4m3", block=(1, 0))
    assert scaled.scale_kind(q.data, q.scales, None, "blocked") == "blocked_f32"
    q = fpxc.quantize(torch.randn(100, 96), "mxfp8_e4m3", block=(32, 32))
    assert scaled.scale_kind(q.data, q.scales) == "mx_blocks"
    q = fpxc.quantize(torch.randn(32, 64), "e3m2", block=(1, 0))
    assert scaled.scale_kind(q.data, q.scales, None) == "packed"
    # NVFP4: two codes a byte, scales one a row and 16 of K, row-major; the
    # blocked layout, one code a byte and 16x16 blocks are told apart
    x = torch.randn(100, 96)
    q = fpxc.quantize(x, "nvfp4")
    assert scaled.scale_kind(q.data, q.scales, q.global_scale) == "nvfp4"
    assert scaled.scale_kind(q.data, q.scales, None) == "nvfp4"  # (without g: g = 1)
    q = fpxc.quantize(x, "nvfp4", scale_layout="blocked")
    assert scaled.scale_kind(q.data, q.scales, q.global_scale, q.scale_layout) == "nvfp4_blocked"
    assert scaled.scale_kind(q.data, q.scales, q.global_scale) == "unsaid_blocked"
    q = fpxc.quantize(x, "nvfp4", packing="bytes")
    assert scaled.scale_kind(q.data, q.scales, q.global_scale) == "nvfp4_bytes"
    q = fpxc.quantize(x, "nvfp4", block=(16, 16))
    assert scaled.scale_kind(q.data, q.scales, q.global_scale) == "nvfp4_blocks"


def test_kinds_that_give_the_same_numbers_are_the_kernels():
    """One row: per tensor = per row; K <= 128: 1x128 = per row."""
    q = fpxc.quantize(torch.randn(1, 64), "fp8_e4m3", block=(1, 0))
    assert scaled.scale_kind(q.data, q.scales) == "tensor"
    q = fpxc.quantize(torch.randn(40, 128), "fp8_e4m3")  # the (1, 128) default
    assert scaled.scale_kind(q.data, q.scales) == "row"
    qb = fpxc.quantize(torch.randn(24, 128), "fp8_e4m3", block=(1, 0))
    y = fpxc.scaled_mm(q, qb, out_dtype=torch.float32)
    assert torch.equal(y, dequant(q, "fp8_e4m3", "row") @ dequant(qb, "fp8_e4m3", "row").T)


def err(match):
    return pytest.raises(fpxc.InvalidArgumentError, match=match)


def test_errors_name_the_op_and_the_cause():
    x, w = torch.randn(8, 256), torch.randn(16, 256)
    qa, qb = quant(x, "fp8_e4m3", "row"), quant(w, "fp8_e4m3", "row")
    with err("fpxc.scaled_mm: a must be a QuantizedTensor"):
        fpxc.scaled_mm(qa.data, qb)
    with err(r"fpxc.scaled_mm: b has 1x128 blockwise .*block=\(1, 128\)"):
        fpxc.scaled_mm(qa, fpxc.quantize(w, "fp8_e4m3"))
    with err("fpxc.scaled_mm: a has 128x128 blockwise"):
        fpxc.scaled_mm(fpxc.quantize(torch.randn(300, 256), "fp8_e4m3", block=(128, 128)), qb)
    with err(r"fpxc.scaled_mm: a has MXFP8 e8m0 1x32 scales .* beside fp32 row scales.*both "
             "sides or neither"):
        fpxc.scaled_mm(fpxc.quantize(x, "mxfp8_e4m3"), qb)
    with err(r"fpxc.scaled_mm: b has MX e8m0 block scales on fp6 / fp4 codes"):
        fpxc.scaled_mm(fpxc.quantize(x, "mxfp8_e4m3"), fpxc.quantize(w, "mxfp4"))
    mb = fpxc.quantize(torch.randn(16, 96), "mxfp8_e4m3", scale_layout="blocked")
    with err(r"fpxc.scaled_mm: b has scales of the blocked 128x4 shape in a QuantizedTensor "
             r"whose scale_layout is \"row_major\""):
        fpxc.scaled_mm(fpxc.quantize(torch.randn(8, 96), "mxfp8_e4m3"),
                       QuantizedTensor(mb.data, mb.scales, None))
    with err(r"fpxc.scaled_mm: a has fp32 scales said to be blocked"):
        fpxc.scaled_mm(qa._replace(scale_layout="blocked"), qb)
    with err(r"fpxc.scaled_mm: scale_layout_b must be one of \('row_major', 'blocked'\), "
             r"got 'blocked_128x4'"):
        fpxc.scaled_mm(mb, mb._replace(scale_layout="blocked_128x4"))
    with err(r"K \(48\) must be a multiple of 32 for MXFP8"):
        # (codes and scales as an MX cast of K = 48 would give: 2 blocks, the last partial)
        a48 = QuantizedTensor(torch.zeros(8, 48, dtype=torch.float8_e4m3fn),
                              torch.zeros(8, 2, dtype=torch.uint8).view(fpxc._dtypes.E8M0), None)
        fpxc.scaled_mm(a48, a48)
    nv = fpxc.quantize(w, "nvfp4")
    with err(r"fpxc.scaled_mm: b has NVFP4 codes .* beside fp32 row scales.*NVFP4 operands on "
             "both sides or neither"):
        fpxc.scaled_mm(qa, nv)
    with err("b has NVFP4 codes"):  # (the codes and scales alone: g = 1)
        fpxc.scaled_mm(qa, QuantizedTensor(nv.data, nv.scales, None))
    with err(r"a has MXFP8 e8m0 1x32 scales in the blocked 128x4 layout .* beside NVFP4"):
        fpxc.scaled_mm(fpxc.quantize(x, "mxfp8_e4m3", scale_layout="blocked"), nv)
    with err(r"a has NVFP4 codes one a byte \(packing=\"bytes\""):
        fpxc.scaled_mm(fpxc.quantize(x, "nvfp4", packing="bytes"), nv)
    with err(r"K \(48\) must be a multiple of 32 for NVFP4"):
        n48 = fpxc.quantize(torch.randn(8, 48), "nvfp4")
        fpxc.scaled_mm(n48, n48)
    with err(r"global_scale_a is NVFP4's tensor scale; the operand has fp32 row scales"):
        torch.ops.fpxc.scaled_mm(qa.data, qa.scales, qb.data, qb.scales, torch.float32, None,
                                 torch.ones(()), None)
    with err(r"global_scale_b must be one float32 value .*float64"):
        torch.ops.fpxc.scaled_mm(nv.data, nv.scales, nv.data, nv.scales, torch.float32, None,
                                 None, torch.ones((), dtype=torch.float64))
    with err(r"a is 16 x 256 and b is 16 x 128"):
        h = fpxc.quantize(torch.randn(16, 128), "nvfp4")
        fpxc.scaled_mm(nv, h)
    with err(r"a is 8 x 256 and b is 256 x 16.*transpose"):
        fpxc.scaled_mm(qa, QuantizedTensor(qb.data.T.contiguous(), torch.ones(1, 1), None))
    with err(r"K \(40\) must be a multiple of 16"):
        fpxc.scaled_mm(quant(torch.randn(8, 40), "fp8_e4m3", "row"),
                       quant(torch.randn(16, 40), "fp8_e4m3", "row"))
    with err("must be 2-D"):
        fpxc.scaled_mm(fpxc.quantize(torch.randn(2, 8, 256), "fp8_e4m3", block=(1, 0)), qb)
    col = fpxc.quantize(torch.randn(256, 16), "fp8_e4m3", block=(0, 0)).data.T  # (16, 256)
    with err(r"b must be K-major .*strides \(1, 16\)"):
        fpxc.scaled_mm(qa, QuantizedTensor(col, qb.scales[:1], None))
    with err("a must hold fp8 codes"):
        fpxc.scaled_mm(QuantizedTensor(x.bfloat16(), qa.scales, None), qb)
    with err("scales must be float32"):
        fpxc.scaled_mm(QuantizedTensor(qa.data, qa.scales.bfloat16(), None), qb)
    with err("out_dtype must be"):
        fpxc.scaled_mm(qa, qb, out_dtype=torch.int32)
    with err(r"bias must have shape \(16,\)"):
        fpxc.scaled_mm(qa, qb, bias=torch.zeros(8))
    with err("bias must be a floating-point tensor"):
        fpxc.scaled_mm(qa, qb, bias=torch.zeros(16, dtype=torch.int32))
    # the op checks its arguments itself (the fake kernel too)
    with err(r"K \(40\)"):
        torch.ops.fpxc.scaled_mm(torch.zeros(2, 40, dtype=torch.float8_e4m3fn),
                                 torch.ones(1, 1), torch.zeros(3, 40, dtype=torch.float8_e4m3fn),
                                 torch.ones(1, 1), torch.float32)


def test_a_gpu_without_the_kernels_target_is_refused(monkeypatch):
    monkeypatch.setattr(bundle, "_device_targets", lambda d: ["sm_80", "sm_80"])
    monkeypatch.setattr(scaled, "_targets_ok", {})
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda d=None: (8, 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda d=None: "A100")
    with pytest.raises(fpxc.WrongArchitectureError, match=r"fpxc.scaled_mm: .*sm_90a.*sm_80"):
        scaled._check_target(torch.device("cuda", 0))


def test_the_op_schema_and_fake_kernel():
    qa, qb = operands(9, 24, 64)
    bias = torch.randn(24)
    for args in ((qa.data, qa.scales, qb.data, qb.scales, torch.float32),
                 (qa.data, qa.scales, qb.data, qb.scales, torch.bfloat16, bias)):
        # (test_schema's mode multiplies the float8 codes, which torch cannot)
        torch.library.opcheck(torch.ops.fpxc.scaled_mm.default, args,
                              test_utils=("test_faketensor", "test_autograd_registration",
                                          "test_aot_dispatch_dynamic"))
    with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        fa, fsa, fb, fsb = (mode.from_tensor(t) for t in (qa.data, qa.scales, qb.data, qb.scales))
        y = torch.ops.fpxc.scaled_mm(fa, fsa, fb, fsb, torch.bfloat16)
        assert y.shape == (9, 24) and y.dtype == torch.bfloat16
        with err(r"a is 9 x 64 and b is 9 x 48"):
            torch.ops.fpxc.scaled_mm(fa, fsa, fa[:, :48], fsa, torch.bfloat16)


def test_under_torch_compile_fullgraph():
    x, w, bias = torch.randn(12, 96), torch.randn(40, 96), torch.randn(40)

    def f(x, w, bias):
        qx = fpxc.quantize(x, "fp8_e4m3", block=(1, 0))
        qw = fpxc.quantize(w, "fp8_e4m3", block=(0, 0))
        return fpxc.scaled_mm(qx, qw, out_dtype=torch.float32, bias=bias)

    g = torch.compile(f, fullgraph=True)
    assert torch.equal(g(x, w, bias), f(x, w, bias))
    qx, qw = quant(x, "fp8_e4m3", "row"), quant(w, "fp8_e4m3", "row")
    h = torch.compile(lambda a, b: fpxc.scaled_mm(a, b), fullgraph=True)
    assert torch.equal(h(qx, qw), fpxc.scaled_mm(qx, qw))


# --- the bundle builder --------------------------------------------------------------

from builder import load as _builder, compile_config, with_fpxc  # noqa: E402,E501
from bundled import NoFallback, captured, kernel_entries, load_cpp  # noqa: E402


def test_the_bundle_builder_writes_the_packages_keys():
    bb = _builder()
    assert tuple(bb.SCALED_MM_SCALES) == scaled.KERNEL_SCALES
    assert bb.SCALED_MM_PAIRS == scaled.KERNEL_PAIRS
    assert set(bb.SCALED_MM_FORMATS) == set(scaled.FORMATS.values())
    assert bb.SCALED_MM_TARGETS == scaled.KERNEL_TARGETS
    core_pairs = scaled.KERNEL_PAIRS[:3] + (("mx", "mx"), ("nvfp4", "nvfp4"),
                                            ("mx_blocked", "mx_blocked"),
                                            ("nvfp4_blocked", "nvfp4_blocked"))
    assert bb.SCALED_MM_CORE_PAIRS == core_pairs
    for which, fmts, pairs in (("core", ["fp8_e4m3"], core_pairs),
                               ("full", FMTS, scaled.KERNEL_PAIRS)):
        got = [c["options"] for c in bb.scaled_mm_configurations(which)]
        # (NVFP4's format word is its own: one pair of formats; the core set's
        # blocked kinds write bf16 only)
        nv = ("nvfp4", "nvfp4_blocked")
        want = [scaled.bundle_options(a, b, ka, kb, o) for ka, kb in pairs
                for a in (["nvfp4"] if ka in nv else fmts)
                for b in (["nvfp4"] if kb in nv else fmts)
                for o in (("bf16",) if which == "core" and ka.endswith("_blocked")
                          else ("bf16", "f32"))]
        assert sorted(map(str, got)) == sorted(map(str, want))
    # compiled for the targets with the kernel form only
    c = bb.scaled_mm_configurations("core")[0]
    assert bb.for_target(c, "sm_90a") and not bb.for_target(c, "sm_100a")
    assert bb.for_target(bb.swizzle_config(False), "sm_100a")
    # a kernel with a bias epilogue is one entry more, found first
    o = bb.scaled_mm_config("fp8_e4m3", "fp8_e4m3", "row", "row", "bf16", bias="bf16")["options"]
    assert o == dict(scaled.bundle_options("fp8_e4m3", "fp8_e4m3", "row", "row", "bf16"),
                     bias="bf16")


def test_the_scaled_mm_specs_compile(tmp_path):
    bb, fpxc_bin = with_fpxc()
    configs = [c for c in bb.named_configs("core") if c["options"]["op"] == "scaled_mm"]
    assert len(configs) == 12, ("the core set: e4m3 x e4m3, per tensor, per row, 1x128 x "
                                "128x128 and MXFP8, and NVFP4, bf16 and f32; MXFP8 and "
                                "NVFP4 with blocked scales, bf16")
    for c in configs:
        r, info = compile_config(c, fpxc_bin, tmp_path)
        assert info is not None, r.stderr
        kind = c["options"]["a_scale"]

        def blocked(rows, cols):
            return [-(-rows // 128) * 128, -(-cols // 4) * 4]

        def shapes(m, n, k):
            if kind == "mx":
                return [[m, k], [m, k // 32], [n, k], [n, k // 32]]
            if kind == "mx_blocked":
                return [[m, k], blocked(m, k // 32), [n, k], blocked(n, k // 32)]
            if kind == "nvfp4":  # (codes two a byte; the global scales after the scales)
                return [[m, k // 2], [m, k // 16], [], [n, k // 2], [n, k // 16], []]
            if kind == "nvfp4_blocked":
                return [[m, k // 2], blocked(m, k // 16), [], [n, k // 2], blocked(n, k // 16),
                        []]
            if kind == "1x128":
                return [[m, k], [m, -(-k // 128)], [n, k], [-(-n // 128), -(-k // 128)]]
            row = kind == "row"
            return [[m, k], [m if row else 1, 1], [n, k], [n if row else 1, 1]]
        assert info.accepts(c["name"], shapes(129, 300, 4096))[0]
        assert not info.accepts(c["name"], shapes(129, 300, 4008))[0]  # K % 16
        if kind == "mx":  # K % 32, and scales of K / 32 columns
            assert not info.accepts(c["name"], shapes(129, 300, 4080))[0]
            assert not info.accepts(c["name"], [[9, 64], [9, 3], [5, 64], [5, 2]])[0]
        if kind == "nvfp4":  # K % 32 (K / 2 bytes a row), and scales of K / 16 columns
            assert not info.accepts(c["name"], shapes(129, 300, 4080))[0]
            assert not info.accepts(c["name"], [[9, 32], [9, 3], [], [5, 32], [5, 4], []])[0]
        if kind.endswith("_blocked"):  # padded shapes: 128 rows, 4 columns a tile
            good = shapes(129, 300, 4096)
            assert good[1] == [256, 128 if kind == "mx_blocked" else 256]
            bad = [list(s) for s in good]
            bad[1][0] = 129  # (the row-major row count)
            assert not info.accepts(c["name"], bad)[0]
    # a bias entry's spec takes the bias operand (the lowering's, once it has one)
    o = bb.scaled_mm_config("fp8_e4m3", "fp8_e4m3", "row", "row", "bf16", bias="bf16")["options"]
    assert "%bias: tensor<?xbf16>" in bb.scaled_mm_spec_text(o, "x")
    assert "bias(%bias : tensor<?xbf16>)" in bb.scaled_mm_spec_text(o, "x")
    # (the entries are sm_90a's: the blockwise ones have no kernel form elsewhere yet)
    spec = next(tmp_path / f"{c['name']}.mlir" for c in configs
                if c["options"]["a_scale"] == "1x128")
    r = subprocess.run([fpxc_bin, "compile", str(spec), "--target", "sm_100a", "-o",
                        str(tmp_path / "x")], capture_output=True, text=True)
    assert r.returncode != 0 and "needs wgmma" in r.stderr


# --- GPU -----------------------------------------------------------------------------

ENTRIES = kernel_entries("scaled_mm")


def _NoFallback():
    return NoFallback("scaled_mm")


GPU_SHAPES = [(1, 64, 16), (7, 300, 208), (128, 192, 128), (129, 193, 512), (300, 1000, 1040),
              (256, 4096, 4096)]


@pytest.mark.gpu
def test_gpu_the_package_bundles_the_kernels():
    got = {(e.options["a_format"], e.options["b_format"], e.options["a_scale"],
            e.options["output_dtype"]) for e in ENTRIES}
    for kind in ("tensor", "row", "1x128", "mx"):
        for out in ("bf16", "f32"):
            assert ("fp8_e4m3", "fp8_e4m3", kind, out) in got, (kind, out)
    for out in ("bf16", "f32"):
        assert ("nvfp4", "nvfp4", "nvfp4", out) in got, out


@pytest.mark.gpu
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.function)
def test_gpu_kernel_is_the_matmul_of_the_dequantized_operands(entry):
    """Every bundled kernel, odd M, N and K: the f32 result within 1e-3 of
    the fp64 matmul of the dequantized operands; the bf16 one that rounded."""
    o = entry.options
    fa, fb, ka, kb = o["a_format"], o["b_format"], o["a_scale"], o["b_scale"]
    out = {"bf16": torch.bfloat16, "f32": torch.float32}[o["output_dtype"]]
    with _NoFallback():
        for m, n, k in GPU_SHAPES:
            if scaled.family(ka) in ("mx", "nvfp4"):  # (K: 32, 224, 1056: whole MX blocks)
                k = mx_k(k)
            qa, qb = operands(m, n, k, fa, fb, ka, kb, device="cuda", seed=m * n + k)
            want = oracle(qa, qb, fa, fb, ka, kb)
            y = fpxc.scaled_mm(qa, qb, out_dtype=out)
            assert y.dtype == out and y.shape == (m, n) and y.is_cuda
            e = rel(y, want)
            # f32: the accumulation order's error alone; bf16: that plus the rounding
            assert e <= (1e-3 if out == torch.float32 else 1e-3 + 2 ** -8), (m, n, k, e)


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["tensor", "row"])
def test_gpu_is_torch_scaled_mm_of_the_transpose(kind):
    """The documented convention: scaled_mm(qa, qb) is torch._scaled_mm(qa.data,
    qb.data.T, qa.scales, qb.scales.T) (a 0-d scale per tensor for torch)."""
    qa, qb = operands(64, 256, 512, ka=kind, kb=kind, device="cuda", seed=11)
    sa, sb = ((qa.scales.reshape(()), qb.scales.reshape(())) if kind == "tensor"
              else (qa.scales, qb.scales.T))
    want = torch._scaled_mm(qa.data, qb.data.T, sa, sb, out_dtype=torch.bfloat16)
    with _NoFallback():
        got = fpxc.scaled_mm(qa, qb)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert rel(got, want) <= 2 ** -7


@pytest.mark.gpu
@pytest.mark.parametrize("ka,kb", [("tensor", "row"), ("row", "tensor")])
def test_gpu_mixed_kinds_and_bias(ka, kb):
    """A per-tensor scale beside a per-row one (the row kernel with the
    scale broadcast), a bias (added after the kernel), both result dtypes."""
    with _NoFallback():
        for m, n, k in ((1, 64, 16), (77, 300, 208), (300, 1000, 1040)):
            qa, qb = operands(m, n, k, ka=ka, kb=kb, device="cuda", seed=k)
            bias = torch.randn(n, device="cuda")
            want = oracle(qa, qb, "fp8_e4m3", "fp8_e4m3", ka, kb, bias)
            y = fpxc.scaled_mm(qa, qb, out_dtype=torch.float32, bias=bias)
            assert rel(y, want) <= 1e-3, (m, n, k)
            y = fpxc.scaled_mm(qa, qb, bias=bias.bfloat16())
            assert rel(y, oracle(qa, qb, "fp8_e4m3", "fp8_e4m3", ka, kb,
                                 bias.bfloat16())) <= 1e-3 + 2 ** -7


@pytest.mark.gpu
def test_gpu_mxfp8_bias_nan_and_compile():
    """MXFP8 x MXFP8 (the k32-promoted kernel): a bias (added in fp32 after
    the kernel), a NaN scale (0xFF) giving its row NaN and only it, the
    compiled graph's bits the eager call's."""
    with _NoFallback():
        for m, n, k in ((3, 64, 32), (77, 300, 224), (300, 1000, 1056)):
            qa, qb = operands(m, n, k, ka="mx", kb="mx", device="cuda", seed=k)
            bias = torch.randn(n, device="cuda")
            want = oracle(qa, qb, "fp8_e4m3", "fp8_e4m3", "mx", "mx", bias)
            y = fpxc.scaled_mm(qa, qb, out_dtype=torch.float32, bias=bias)
            assert rel(y, want) <= 1e-3, (m, n, k)
            f = torch.compile(lambda a, b_: fpxc.scaled_mm(a, b_, out_dtype=torch.float32,
                                                             bias=bias), fullgraph=True)
            assert torch.equal(f(qa, qb), y)
            scales = qa.scales.clone()
            scales.view(torch.uint8)[m // 2, (k // 32) // 2] = 0xFF
            y = fpxc.scaled_mm(QuantizedTensor(qa.data, scales, None), qb)
            assert y[m // 2].isnan().all()
            keep = torch.arange(m, device="cuda") != m // 2
            assert not y[keep].isnan().any()


@pytest.mark.gpu
def test_gpu_nvfp4_global_scales_bias_nan_and_graphs():
    """NVFP4 x NVFP4 (the bf16-form kernel): the global scales applied (a
    missing one is 1), a bias, a NaN e4m3 scale giving its row NaN and only
    it, the compiled graph's, a CUDA graph's and the C++ plan's bits the
    first call's."""
    from fpxc import _fpx
    with _NoFallback():
        for m, n, k in ((3, 64, 32), (77, 300, 224), (300, 1000, 1056)):
            qa, qb = operands(m, n, k, "nvfp4", "nvfp4", "nvfp4", "nvfp4", device="cuda", seed=k)
            bias = torch.randn(n, device="cuda")
            want = oracle(qa, qb, "nvfp4", "nvfp4", "nvfp4", "nvfp4", bias)
            y = fpxc.scaled_mm(qa, qb, out_dtype=torch.float32, bias=bias)
            assert rel(y, want) <= 1e-3, (m, n, k)
            # without a's global scale: g = 1
            na = QuantizedTensor(qa.data, qa.scales, None)
            y1 = fpxc.scaled_mm(na, qb, out_dtype=torch.float32)
            assert rel(y1, oracle(na, qb, "nvfp4", "nvfp4", "nvfp4", "nvfp4")) <= 1e-3
            f = torch.compile(lambda a, b_: fpxc.scaled_mm(a, b_, out_dtype=torch.float32,
                                                             bias=bias), fullgraph=True)
            assert torch.equal(f(qa, qb), y)
            scales = qa.scales.clone()
            scales.view(torch.uint8)[m // 2, (k // 16) // 2] = 0x7F  # (e4m3's NaN)
            y = fpxc.scaled_mm(QuantizedTensor(qa.data, scales, qa.global_scale), qb)
            assert y[m // 2].isnan().all()
            keep = torch.arange(m, device="cuda") != m // 2
            assert not y[keep].isnan().any()
        # a cached plan (no Python on later calls) and a CUDA graph replayed
        # on new codes and global scales
        _fpx._clear_plans()
        qa, qb = operands(100, 300, 512, "nvfp4", "nvfp4", "nvfp4", "nvfp4", device="cuda")
        first = fpxc.scaled_mm(qa, qb)
        assert _fpx._plan_count() == 1, "the first call left a plan"
        assert torch.equal(fpxc.scaled_mm(qa, qb), first)
        graph, static_y = captured(lambda: fpxc.scaled_mm(qa, qb))
        na, nb = operands(100, 300, 512, "nvfp4", "nvfp4", "nvfp4", "nvfp4", device="cuda",
                          seed=7)
        for q, new in ((qa, na), (qb, nb)):
            q.data.copy_(new.data)
            q.scales.copy_(new.scales)
            q.global_scale.copy_(new.global_scale)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_y, fpxc.scaled_mm(qa, qb))
        want = oracle(qa, qb, "nvfp4", "nvfp4", "nvfp4", "nvfp4")
        assert rel(static_y, want) <= 1e-3 + 2 ** -8


@pytest.mark.gpu
@pytest.mark.parametrize("fmt,kind", [("fp8_e4m3", "mx"), ("nvfp4", "nvfp4")])
def test_gpu_blocked_scales_are_read_as_blocked(fmt, kind):
    """Blocked 128x4 scales (fpxc.quantize(..., scale_layout="blocked")):
    the kernel of their layout, where the row-major and blocked shapes
    coincide too (M, N multiples of 128, K / block a multiple of 4): the same
    tensor said to be row-major is another matmul, each its oracle's; a pair
    of layouts without a bundled kernel is the fallback, with its warning;
    a CUDA graph replays the kernel on new codes and scales."""
    blocked = kind + "_blocked"
    for m, n, k in ((128, 256, 512), (77, 300, 224)):
        qa, qb = operands(m, n, k, fmt, fmt, blocked, blocked, device="cuda", seed=k)
        want = oracle(qa, qb, fmt, fmt, blocked, blocked)
        with _NoFallback():
            y = fpxc.scaled_mm(qa, qb)
        assert rel(y, want) <= 1e-3 + 2 ** -8, (m, n, k)
        if m % 128 == 0:  # (one shape: the same bytes read row-major)
            ra, rb = qa._replace(scale_layout="row_major"), qb._replace(scale_layout="row_major")
            with _NoFallback():
                y_rm = fpxc.scaled_mm(ra, rb)
            assert rel(y_rm, oracle(ra, rb, fmt, fmt, kind, kind)) <= 1e-3 + 2 ** -8
            assert not torch.equal(y_rm, y)
    # one side blocked, the other row-major: no bundled kernel
    qa, qb = operands(64, 128, 256, fmt, fmt, kind, blocked, device="cuda", seed=2)
    ops._warned.difference_update({w for w in ops._warned if w[0] == "scaled_mm"})
    with pytest.warns(RuntimeWarning, match="no prebuilt kernel for scaled_mm"):
        y = fpxc.scaled_mm(qa, qb)
    assert rel(y, oracle(qa, qb, fmt, fmt, kind, blocked)) <= 1e-3 + 2 ** -8
    # a CUDA graph replayed on new codes and scales
    qa, qb = operands(100, 300, 512, fmt, fmt, blocked, blocked, device="cuda", seed=5)
    with _NoFallback():
        graph, static_y = captured(lambda: fpxc.scaled_mm(qa, qb))
    na, nb = operands(100, 300, 512, fmt, fmt, blocked, blocked, device="cuda", seed=6)
    for q, new in ((qa, na), (qb, nb)):
        for f in ("data", "scales", "global_scale"):
            if getattr(q, f) is not None:
                getattr(q, f).copy_(getattr(new, f))
    graph.replay()
    torch.cuda.synchronize()
    assert rel(static_y, oracle(qa, qb, fmt, fmt, blocked, blocked)) <= 1e-3 + 2 ** -8


@pytest.mark.gpu
def test_gpu_calls_without_a_kernel_warn_and_run():
    """float16 results (no kernel writes them) and, with the core bundle,
    the e5m2 pairs: dequantize + fp32 matmul, with the warning."""
    qa, qb = operands(5, 64, 32, device="cuda")
    ops._warned.difference_update({w for w in ops._warned if w[0] == "scaled_mm"})
    with pytest.warns(RuntimeWarning, match="no prebuilt kernel for scaled_mm .*no kernel "
                                            "writes torch.float16"):
        y = fpxc.scaled_mm(qa, qb, out_dtype=torch.float16)
    assert rel(y, oracle(qa, qb, "fp8_e4m3", "fp8_e4m3", "row", "row")) <= 1e-3


@pytest.mark.gpu
def test_gpu_errors_are_the_cpus():
    qa, qb = operands(8, 16, 256, device="cuda")
    with err(r"b has 1x128 blockwise"):
        w = torch.randn(16, 256, device="cuda", dtype=torch.bfloat16)
        fpxc.scaled_mm(qa, fpxc.quantize(w, "fp8_e4m3"))
    with err(r"K \(40\) must be a multiple of 16"):
        fpxc.scaled_mm(*operands(8, 16, 40, device="cuda"))
    with err("on one device"):
        fpxc.scaled_mm(qa, qb, bias=torch.zeros(16))


@pytest.mark.gpu
def test_gpu_cached_plans_compile_and_cuda_graphs(monkeypatch):
    """The first call of a signature leaves a plan in the C++ op; later
    calls (eager, the compiled graph's op, a captured graph) launch it
    without Python and give the first call's bits."""
    from fpxc import _fpx
    _fpx._clear_plans()
    qa, qb = operands(100, 300, 512, device="cuda", seed=3)
    bias = torch.randn(300, device="cuda")
    with _NoFallback():
        for b in (None, bias):
            before = _fpx._plan_count()
            first = fpxc.scaled_mm(qa, qb, bias=b)
            assert _fpx._plan_count() == before + 1, "the first call left a plan"
            calls = []
            real = scaled._check
            monkeypatch.setattr(scaled, "_check", lambda *a: (calls.append(1), real(*a))[1])
            assert torch.equal(fpxc.scaled_mm(qa, qb, bias=b), first)
            f = torch.compile(lambda a, b_: fpxc.scaled_mm(a, b_, bias=b), fullgraph=True)
            got = f(qa, qb)  # (tracing runs the fake kernel: _check)
            assert torch.equal(got, first)
            calls.clear()
            assert torch.equal(f(qa, qb), first)
            assert not calls, "a cached call reached Python"
            monkeypatch.setattr(scaled, "_check", real)
            # CUDA graphs: captured, replayed on new codes
            graph, static_y = captured(lambda: fpxc.scaled_mm(qa, qb, bias=b))
            for seed in (4, 5):
                na, nb = operands(100, 300, 512, device="cuda", seed=seed)
                qa.data.copy_(na.data)
                qa.scales.copy_(na.scales)
                qb.data.copy_(nb.data)
                qb.scales.copy_(nb.scales)
                graph.replay()
                torch.cuda.synchronize()
                assert torch.equal(static_y, fpxc.scaled_mm(qa, qb, bias=b))
                want = oracle(qa, qb, "fp8_e4m3", "fp8_e4m3", "row", "row", b)
                assert rel(static_y, want) <= 1e-3 + 2 ** -8


@pytest.mark.gpu
def test_gpu_cpp_api_calls_the_same_op(tmp_path):
    """python-bindings/include/fpxc/TorchOps.h's scaledMM: the dispatcher's
    op, the Python API's bits."""
    mod = load_cpp("fpxc_cpp_scaled_mm_test", '''
#include "fpxc/TorchOps.h"
at::Tensor run(const at::Tensor &a, const at::Tensor &sa, const at::Tensor &b,
               const at::Tensor &sb, const at::Tensor &bias) {
  return fpx::torch_ops::scaledMM(a, sa, b, sb, at::kFloat, bias);
}
at::Tensor run_bf16(const at::Tensor &a, const at::Tensor &sa, const at::Tensor &b,
                    const at::Tensor &sb) {
  return fpx::torch_ops::scaledMM(a, sa, b, sb);
}
at::Tensor run_nvfp4(const at::Tensor &a, const at::Tensor &sa, const at::Tensor &ga,
                     const at::Tensor &b, const at::Tensor &sb, const at::Tensor &gb) {
  return fpx::torch_ops::scaledMM(a, sa, b, sb, at::kBFloat16, std::nullopt, ga, gb);
}
at::Tensor run_nvfp4_blocked(const at::Tensor &a, const at::Tensor &sa, const at::Tensor &ga,
                             const at::Tensor &b, const at::Tensor &sb, const at::Tensor &gb) {
  return fpx::torch_ops::scaledMM(a, sa, b, sb, at::kBFloat16, std::nullopt, ga, gb, "blocked",
                                  "blocked");
}''', ["run", "run_bf16", "run_nvfp4", "run_nvfp4_blocked"], tmp_path)
    qa, qb = operands(64, 256, 512, device="cuda", seed=9)
    bias = torch.randn(256, device="cuda")
    with _NoFallback():
        for _ in range(2):  # the second call: the cached plan
            assert torch.equal(mod.run(qa.data, qa.scales, qb.data, qb.scales, bias),
                               fpxc.scaled_mm(qa, qb, out_dtype=torch.float32, bias=bias))
            assert torch.equal(mod.run_bf16(qa.data, qa.scales, qb.data, qb.scales),
                               fpxc.scaled_mm(qa, qb))
        na, nb = operands(64, 256, 512, "nvfp4", "nvfp4", "nvfp4", "nvfp4", device="cuda")
        for _ in range(2):
            assert torch.equal(mod.run_nvfp4(*na[:3], *nb[:3]), fpxc.scaled_mm(na, nb))
        na, nb = operands(64, 256, 512, "nvfp4", "nvfp4", "nvfp4_blocked", "nvfp4_blocked",
                          device="cuda")
        for _ in range(2):
            assert torch.equal(mod.run_nvfp4_blocked(*na[:3], *nb[:3]), fpxc.scaled_mm(na, nb))
