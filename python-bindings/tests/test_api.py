"""The high-level API on CPU tensors (runs in CI, no GPU needed)."""

import pytest
import torch

import fpxc
from fpxc import ops


def rand(*shape, dtype=torch.bfloat16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * 3).to(dtype)


def e8m0_to_float(scales):
    return torch.exp2(scales.view(torch.uint8).float() - 127)


@pytest.mark.parametrize("fmt,torch_dtype", [("mxfp8_e4m3", torch.float8_e4m3fn),
                                             ("mxfp8_e5m2", torch.float8_e5m2)])
def test_mxfp8_rceil_matches_torch_casts(fmt, torch_dtype):
    # With the rceil rule no scaled value exceeds the format's max, so each
    # element is exactly torch's own RN cast of x / 2^e (an exact division).
    x = rand(8, 256)
    q = fpxc.quantize(x, format=fmt, block=(1, 32), rule="rceil")
    assert q.data.dtype == torch_dtype and q.data.shape == (8, 256)
    assert q.scales.shape == (8, 8) and q.global_scale is None
    scale = e8m0_to_float(q.scales).repeat_interleave(32, dim=1)
    expected = (x.float() / scale).to(torch_dtype)
    assert torch.equal(q.data.view(torch.uint8), expected.view(torch.uint8))


def test_dequantize_round_trip_is_exact_for_representable_values():
    # Blocks of e4m3 numbers that contain 448 (so the floor rule picks scale
    # 2^k exactly) times 2^k come back exactly.
    g = torch.Generator().manual_seed(1)
    codes = torch.randint(0, 0x7E, (4, 32), generator=g, dtype=torch.uint8)
    codes[:, 0] = 0x7E  # 448
    codes[:, 1] |= 0x80  # some negatives
    vals = codes.view(torch.float8_e4m3fn).float()
    x = (vals * torch.tensor([[0.25], [1.0], [8.0], [2.0 ** -20]])).reshape(1, 128)
    q = fpxc.quantize(x, format="mxfp8_e4m3", block=(1, 32), rule="floor")
    y = fpxc.dequantize(q, format="mxfp8_e4m3")
    assert torch.equal(y, x)


def test_blocked_layout_is_a_permutation_of_row_major():
    x = rand(200, 96)
    row = fpxc.quantize(x, format="mxfp4")
    blk = fpxc.quantize(x, format="mxfp4", scale_layout="blocked")
    assert blk.scales.shape == (256, 4)  # 200 -> 256 rows, 3 -> 4 cols
    assert torch.equal(row.data, blk.data)
    y1 = fpxc.dequantize(row, format="mxfp4")
    y2 = fpxc.dequantize(blk, format="mxfp4", scale_layout="blocked")
    assert torch.equal(y1, y2)


def test_nvfp4_has_a_global_scale():
    x = rand(16, 64, dtype=torch.float32)
    q = fpxc.quantize(x, format="nvfp4")
    assert q.data.shape == (16, 32) and q.data.dtype == torch.uint8  # fp4x2
    assert q.scales.shape == (16, 4) and q.scales.dtype == torch.float8_e4m3fn
    amax = x.abs().max()
    assert torch.allclose(q.global_scale, amax / (448 * 6))
    y = fpxc.dequantize(q, format="nvfp4")
    assert (y - x).abs().max() <= amax / 6 * 1.2  # one step of the coarsest fp4 grid


def test_nvfp4_given_amax():
    """amax= (delayed scaling) sets g = amax / 2688 instead of max |x|."""
    x = rand(16, 64, dtype=torch.bfloat16)
    q = fpxc.quantize(x, format="nvfp4")
    own = x.float().abs().max()
    same = fpxc.quantize(x, format="nvfp4", amax=own)
    assert torch.equal(same.data, q.data) and torch.equal(same.global_scale, q.global_scale)
    assert torch.equal(same.scales.view(torch.uint8), q.scales.view(torch.uint8))
    # Twice the amax: twice g, block scales one binade lower (ue4m3 codes - 8
    # where no rounding intervenes), the same element codes.
    two = fpxc.quantize(x, format="nvfp4", amax=own * 2)
    assert torch.equal(two.global_scale, q.global_scale * 2)
    assert torch.equal(two.data, q.data)
    a, b = q.scales.view(torch.uint8).int(), two.scales.view(torch.uint8).int()
    assert torch.equal(b[a >= 16], a[a >= 16] - 8)
    # With the Hadamard transform the amax is the transformed tensor's.
    h = fpxc.quantize(x, format="nvfp4", hadamard=16, rounding="rs", seed=3)
    ht = fpxc.quantize(x, format="nvfp4", hadamard=16, rounding="rs", seed=3,
                      amax=ops._hadamard_f32(x, 16, 0).abs().max())
    assert torch.equal(h.data, ht.data) and torch.equal(h.global_scale, ht.global_scale)
    # 3-D: one amax per matrix (or one for all).
    x3 = rand(3, 16, 64)
    per = torch.tensor([1.0, 2.0, 4.0])
    q3 = fpxc.quantize(x3, format="nvfp4", amax=per)
    assert torch.equal(q3.global_scale, per / (448 * 6))
    for e in range(3):
        qe = fpxc.quantize(x3[e], format="nvfp4", amax=per[e])
        assert torch.equal(q3.data[e], qe.data)
    assert torch.equal(fpxc.quantize(x3, format="nvfp4", amax=per[1:2]).global_scale,
                       per[1].expand(3) / (448 * 6))
    assert torch.equal(fpxc.quantize(x, format="nvfp4", amax=2.0).global_scale,
                       torch.tensor(2.0) / (448 * 6))
    # An amax's magnitude is taken (a max |x| is never negative).
    neg = fpxc.quantize(x, format="nvfp4", amax=-own)
    assert torch.equal(neg.data, q.data) and torch.equal(neg.global_scale, q.global_scale)


@pytest.mark.parametrize("kw,amax", [
    (dict(format="mxfp4"), torch.tensor(1.0)),
    (dict(format="nvfp4", global_scale=False), torch.tensor(1.0)),
    (dict(format="nvfp4"), torch.tensor([1.0, 2.0])),
    (dict(format="nvfp4"), torch.tensor(1)),
    (dict(format="nvfp4"), "1.0"),
])
def test_nvfp4_given_amax_errors(kw, amax):
    with pytest.raises(fpxc.InvalidArgumentError):
        fpxc.quantize(rand(16, 64), **kw, amax=amax)


@pytest.mark.parametrize("seed", [-1, 2 ** 63, 2 ** 64, 1.5, "7", True])
def test_seed_out_of_range_is_named(seed):
    with pytest.raises(fpxc.InvalidArgumentError, match="seed"):
        fpxc.quantize(rand(16, 64), format="mxfp8_e4m3", rounding="rs", seed=seed)
    if isinstance(seed, int) and not isinstance(seed, bool) and seed < 0:
        with pytest.raises(fpxc.InvalidArgumentError, match="seed"):
            torch.ops.fpxc.quantize(rand(16, 64), "mxfp8_e4m3", 1, 32, "", "", "rs", "row_major",
                                   "auto", seed, True, 0, 0, None)


def test_largest_seed_is_taken():
    q = fpxc.quantize(rand(16, 64), format="mxfp8_e4m3", rounding="rs", seed=2 ** 63 - 1)
    assert q.data.shape == (16, 64)
    # Integer-like seeds (numpy, 0-d tensors) are their integer.
    import numpy as np
    a = fpxc.quantize(rand(16, 64), format="mxfp8_e4m3", rounding="rs", seed=np.int64(7))
    b = fpxc.quantize(rand(16, 64), format="mxfp8_e4m3", rounding="rs", seed=7)
    assert torch.equal(a.data.view(torch.uint8), b.data.view(torch.uint8))


def test_bad_scales_and_hadamard_arguments_are_named():
    """Found by random arguments: too few blocked scale bytes used to be read
    past their end (a crash); the rest raised TypeError / ValueError."""
    data = torch.randint(0, 255, (16, 32), dtype=torch.uint8).view(torch.float8_e4m3fn)
    for scales in (torch.ones(3, dtype=torch.uint8), torch.ones(2), torch.empty(0),
                   torch.ones(3, dtype=torch.uint8).view(ops._scale_dtype("e8m0"))):
        with pytest.raises(fpxc.InvalidArgumentError, match="scales"):
            fpxc.dequantize(data, scales, format="mxfp8_e4m3", scale_layout="blocked")
        with pytest.raises(fpxc.InvalidArgumentError, match="scales"):
            fpxc.dequantize(data, scales, format="mxfp8_e4m3")
    with pytest.raises(fpxc.InvalidArgumentError, match="scales"):
        fpxc.dequantize(data, torch.ones(3), format="fp8_e4m3", block=(1, 128))
    x = rand(16, 64)
    for kw in (dict(block="a"), dict(seed=-1), dict(block=16.5)):
        with pytest.raises(fpxc.InvalidArgumentError):
            fpxc.hadamard(x, **kw)
    with pytest.raises(fpxc.InvalidArgumentError):
        fpxc.hadamard(torch.ones(16, 64, dtype=torch.int32))


def test_nvfp4_given_amax_fake_kernel():
    x = rand(32, 64)
    torch.library.opcheck(torch.ops.fpxc.quantize.default,
                          (x, "nvfp4", 1, 16, "", "", "rn", "row_major", "auto", 0, True, 0, 0,
                           torch.tensor(3.0)),
                          test_utils=("test_faketensor", "test_aot_dispatch_dynamic"))


def test_eager_calls_skip_the_dispatcher_with_the_same_results():
    """Plain tensors outside tracing and autograd call the implementations
    directly (ops.eager); the results are the registered ops'."""
    x = rand(32, 64)
    assert ops.eager(x)
    assert not ops.eager(torch.nn.Parameter(x.clone()))
    assert not ops.eager(x.clone().requires_grad_())
    with torch.no_grad():
        assert ops.eager(x.clone().requires_grad_())
    want = torch.ops.fpxc.quantize(x, "nvfp4", 1, 16, "", "", "rn", "row_major", "auto", 0,
                                  True, 0, 0, None)
    got = fpxc.quantize(x, "nvfp4")
    assert torch.equal(got.data, want[0]) and torch.equal(got.global_scale, want[2])
    assert torch.equal(got.scales.view(torch.uint8), want[1].view(torch.uint8))
    y = fpxc.dequantize(got, format="nvfp4")
    assert torch.equal(y, torch.ops.fpxc.dequantize(got.data, got.scales, got.global_scale,
                                                   "nvfp4", 1, 16, "", "row_major", "auto",
                                                   0, torch.float32))
    assert torch.equal(fpxc.hadamard(x), torch.ops.fpxc.hadamard(x, 16, 0, True))


def test_batched_3d():
    x = rand(3, 32, 64)
    q = fpxc.quantize(x, format="mxfp8_e4m3")
    assert q.data.shape == (3, 32, 64) and q.scales.shape == (3, 32, 2)
    for b in range(3):
        qb = fpxc.quantize(x[b], format="mxfp8_e4m3")
        assert torch.equal(q.data[b].view(torch.uint8), qb.data.view(torch.uint8))


def test_fp6_planes_packing_round_trip():
    x = rand(4, 64)
    q_bytes = fpxc.quantize(x, format="mxfp6_e3m2", packing="bytes")
    q_42 = fpxc.quantize(x, format="mxfp6_e3m2", packing="planes")
    assert q_42.data.shape == (4, 48)
    assert torch.equal(fpxc.unpack_fp6(q_42.data, 64, "planes"), q_bytes.data)
    assert torch.equal(fpxc.pack_fp6(q_bytes.data, "planes"), q_42.data)
    assert torch.equal(fpxc.pack_fp6(q_bytes.data), q_42.data)  # the default layout
    y1 = fpxc.dequantize(q_bytes, format="mxfp6_e3m2", packing="bytes")
    y2 = fpxc.dequantize(q_42, format="mxfp6_e3m2", packing="planes")
    assert torch.equal(y1, y2)


def test_fp8_blockwise_fp32_scales():
    x = rand(4, 256, dtype=torch.float32)
    q = fpxc.quantize(x, format="fp8_e4m3", block=(1, 128))
    assert q.scales.dtype == torch.float32 and q.scales.shape == (4, 2)
    y = fpxc.dequantize(q, format="fp8_e4m3", block=(1, 128))
    assert torch.allclose(y, x, rtol=0.07, atol=1e-6)
    p2 = fpxc.quantize(x, format="fp8_e4m3", rule="pow2")
    assert torch.equal(torch.log2(p2.scales), torch.log2(p2.scales).round())


def test_per_row_and_per_tensor_blocks():
    x = rand(8, 40, dtype=torch.float32)
    assert fpxc.quantize(x, format="fp8_e4m3", block=(1, None)).scales.shape == (8, 1)
    assert fpxc.quantize(x, format="fp8_e4m3", block=(None, None)).scales.shape == (1, 1)


def test_stochastic_rounding_is_seeded():
    x = rand(4, 64, dtype=torch.float32)
    a = fpxc.quantize(x, format="mxfp4", rounding="rs", seed=1)
    b = fpxc.quantize(x, format="mxfp4", rounding="rs", seed=1)
    c = fpxc.quantize(x, format="mxfp4", rounding="rs", seed=2)
    assert torch.equal(a.data, b.data)
    assert not torch.equal(a.data, c.data)


def test_hadamard_is_orthonormal():
    x = rand(4, 64, dtype=torch.float32)
    y = fpxc.hadamard(x, block=16, seed=3)
    assert y.shape == x.shape
    assert torch.allclose(y.norm(dim=1), x.norm(dim=1), rtol=1e-5)
    assert not torch.allclose(y, x)


@pytest.mark.parametrize("kwargs,message", [
    (dict(format="mxfp9"), "unknown format"),
    # The core's element aliases must not stand in for the MX scheme.
    (dict(format="mxfp8"), "named with their element format"),
    (dict(format="MXFP6"), "named with their element format"),
    (dict(format="nvfp8"), "named with their element format"),
    (dict(format="mxfp8_e4m3", rounding="up"), "unknown rounding"),
    (dict(format="mxfp8_e4m3", rule="round"), "unknown scale rule"),
    (dict(format="fp8_e4m3", scale_layout="blocked"), "blocked scale layout"),
    (dict(format="mxfp4", packing="planes"), "does not apply"),
    (dict(format="mxfp6_e2m3", packing="4+2"), "ambiguous"),
    (dict(format="mxfp8_e4m3", scale_layout="tiled"), "unknown scale_layout"),
    (dict(format=None), "format must be a str"),
    (dict(format=123), "format must be a str"),
])
def test_bad_options_raise_invalid_argument(kwargs, message):
    with pytest.raises(fpxc.InvalidArgumentError, match=message):
        fpxc.quantize(rand(4, 64), **kwargs)


@pytest.mark.parametrize("fmt", ["e8m0", "ue8m0", "ue4m3", "bf16"])
def test_unsigned_and_wide_formats_are_no_element_formats(fmt):
    """Found by fuzzing: the unsigned scale formats were taken as element
    formats (quantize gave |x|); like bf16, they are refused."""
    x = torch.tensor([[1.0, -2.0, 3.0, -0.5] * 8])
    message = f"format '{fmt}' .* is not an element format"
    with pytest.raises(fpxc.InvalidArgumentError, match=message):
        fpxc.quantize(x, fmt)
    with pytest.raises(fpxc.InvalidArgumentError, match=message):
        fpxc.dequantize(torch.zeros(1, 32, dtype=torch.uint8), torch.ones(1, 1), format=fmt)


def test_bad_dequantize_arguments_raise_invalid_argument():
    """What dequantize cannot honour is refused by name, never ignored or
    answered in another dtype: an output dtype other than the three it
    rounds to, missing scales, scales or g beside a QuantizedTensor (which
    brings its own), and a global scale for a format without one."""
    q = fpxc.quantize(rand(8, 64), format="mxfp8_e4m3")
    qn = fpxc.quantize(rand(8, 64), format="nvfp4")
    for dtype in (torch.int8, torch.float64):
        with pytest.raises(fpxc.InvalidArgumentError, match="dtype must be"):
            fpxc.dequantize(q, format="mxfp8_e4m3", dtype=dtype)
    with pytest.raises(fpxc.InvalidArgumentError, match="scales must be a tensor"):
        fpxc.dequantize(q.data, format="mxfp8_e4m3")
    with pytest.raises(fpxc.InvalidArgumentError, match="own scales"):
        fpxc.dequantize(qn, format="nvfp4", global_scale=5.0)
    with pytest.raises(fpxc.InvalidArgumentError, match="own scales"):
        fpxc.dequantize(q, q.scales, format="mxfp8_e4m3")
    with pytest.raises(fpxc.InvalidArgumentError, match="global_scale is NVFP4's"):
        fpxc.dequantize(q.data, q.scales, format="mxfp8_e4m3", global_scale=2.0)
    # the fields passed separately: another g is taken
    y = fpxc.dequantize(qn.data, qn.scales, format="nvfp4", global_scale=qn.global_scale * 2)
    assert torch.equal(y, fpxc.dequantize(qn, format="nvfp4") * 2)


def test_bad_inputs():
    with pytest.raises(fpxc.InvalidArgumentError, match="2-D or 3-D"):
        fpxc.quantize(rand(64), format="mxfp8_e4m3")
    with pytest.raises(fpxc.InvalidArgumentError, match="even number of columns"):
        fpxc.quantize(rand(2, 33), format="mxfp4")
    with pytest.raises(fpxc.InvalidArgumentError, match="float32, bfloat16 or float16"):
        fpxc.quantize(torch.zeros(2, 32, dtype=torch.int32), format="mxfp8_e4m3")
    # Errors are also ValueErrors, for code that catches the builtin.
    with pytest.raises(ValueError):
        fpxc.quantize(rand(4, 64), format="mxfp8_e4m3", rounding="up")


# opcheck's schema test does arithmetic on the outputs, which torch does not
# implement for float8_e8m0fnu: check the fake kernels and dynamic-shape
# tracing, which is what torch.compile needs.
CHECKS = ("test_faketensor", "test_aot_dispatch_dynamic")


def test_opcheck_fake_kernels_agree():
    x = rand(64, 64)
    torch.library.opcheck(torch.ops.fpxc.quantize.default,
                          (x, "mxfp8_e4m3", 1, 32, "", "rceil", "rn", "blocked", "auto", 0, True),
                          test_utils=CHECKS)
    torch.library.opcheck(torch.ops.fpxc.quantize.default,
                          (x, "nvfp4", 1, 16, "", "", "rn", "row_major", "auto", 0, True))
    q = fpxc.quantize(x, format="mxfp4")
    torch.library.opcheck(torch.ops.fpxc.dequantize.default,
                          (q.data, q.scales, None, "mxfp4", 1, 32, "", "row_major", "auto", 0,
                           torch.bfloat16), test_utils=CHECKS)
    torch.library.opcheck(torch.ops.fpxc.hadamard.default, (x.float(), 16, 0, True))


def test_torch_compile_fullgraph():
    def f(x):
        q = fpxc.quantize(x, format="mxfp8_e4m3", rule="rceil")
        return fpxc.dequantize(q, format="mxfp8_e4m3", dtype=torch.bfloat16) * 2

    x = rand(32, 64)
    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    assert torch.equal(compiled(x), f(x))


def test_dequantize_global_scale_arguments():
    """NVFP4's global scale may be a number (as quantize's amax may); other
    types and counts other than one or one per matrix are named errors."""
    x = torch.randn(2, 32, 64)
    q = fpxc.quantize(x, format="nvfp4")
    g = q.global_scale[1]
    want = fpxc.dequantize(q.data, q.scales, global_scale=g, format="nvfp4")
    got = fpxc.dequantize(q.data, q.scales, global_scale=float(g), format="nvfp4")
    assert torch.equal(got, want)
    with pytest.raises(fpxc.InvalidArgumentError, match="global_scale must be"):
        fpxc.dequantize(q.data, q.scales, global_scale="0.5", format="nvfp4")
    with pytest.raises(fpxc.InvalidArgumentError, match="one per matrix"):
        fpxc.dequantize(q.data, q.scales, global_scale=torch.ones(3), format="nvfp4")


def test_non_tensors_other_devices_and_huge_numbers_are_named():
    """Found by fuzzing: non-tensors raised AttributeError or torch's schema
    errors, meta tensors torch's NotImplementedError, ints too large for a
    float OverflowError."""
    x = rand(4, 64, dtype=torch.float32)
    q = fpxc.quantize(x, format="nvfp4")
    meta = torch.device("meta")
    for call, message in [
            (lambda: fpxc.quantize(None), "x must be a torch.Tensor, got NoneType"),
            (lambda: fpxc.quantize([[1.0] * 32]), "x must be a torch.Tensor, got list"),
            (lambda: fpxc.quantize([[1.0] * 32], "nvfp4", amax=1.0), "x must be a torch.Tensor"),
            (lambda: fpxc.hadamard(3.0), "x must be a torch.Tensor, got float"),
            (lambda: fpxc.dequantize(None, q.scales, format="nvfp4"),
             "data must be a torch.Tensor, got NoneType"),
            (lambda: fpxc.dequantize(q.data, [1.0], format="nvfp4"), "scales must be a tensor"),
            (lambda: fpxc.pack_fp6([[1, 2, 3, 4]]), "codes must be a torch.Tensor, got list"),
            (lambda: fpxc.quantize(x.to(meta)), "x is on meta"),
            (lambda: fpxc.hadamard(x.to(meta)), "x is on meta"),
            (lambda: fpxc.dequantize(q.data.to(meta), q.scales, format="nvfp4"), "data is on meta"),
            (lambda: fpxc.dequantize(q.data, q.scales.to(meta), format="nvfp4"),
             "scales is on meta"),
            (lambda: fpxc.dequantize(q.data, q.scales, format="nvfp4",
                                    global_scale=q.global_scale.to(meta)),
             "global_scale is on meta"),
            (lambda: fpxc.quantize(x, "nvfp4", amax=10 ** 400), "amax is an integer too large"),
            (lambda: fpxc.dequantize(q.data, q.scales, format="nvfp4", global_scale=10 ** 400),
             "global_scale is an integer too large")]:
        with pytest.raises(fpxc.InvalidArgumentError, match=message):
            call()


@pytest.mark.parametrize("kw,message", [
    (dict(hadamard=16, hadamard_seed=-1), r"hadamard_seed must be an integer in \[0, 2\^63\)"),
    (dict(hadamard=16, hadamard_seed=2 ** 63), "hadamard_seed must be"),
    (dict(hadamard=16, hadamard_seed=1.7), "hadamard_seed must be"),
    (dict(hadamard=16, hadamard_seed="3"), "hadamard_seed must be"),
    (dict(hadamard=16, hadamard_seed=True), "hadamard_seed must be"),
    (dict(hadamard="16"), r"hadamard must be 0 \(none\) or a power of two"),
    (dict(hadamard=16.0), "hadamard must be"),
    (dict(hadamard=2 ** 40), "hadamard must be"),
    (dict(block=(1.5, 32)), r"each block entry must be an integer in \[0, 2\^63\), got 1.5"),
    (dict(block=(1, "32")), "each block entry must be"),
    (dict(block=(True, 32)), "each block entry must be"),
    (dict(block=(1, 2 ** 63)), "each block entry must be"),
    (dict(block=(1, -32)), "each block entry must be"),
    (dict(block=32.0), "block must be an integer"),
])
def test_quantize_integer_arguments_are_integers_in_range(kw, message):
    """Found by fuzzing: floats and strs were truncated or parsed, and
    integers out of int64's range raised nanobind's signature TypeError."""
    with pytest.raises(fpxc.InvalidArgumentError, match=message):
        fpxc.quantize(rand(4, 64), format="nvfp4", **kw)


def test_other_integer_arguments_are_integers_in_range():
    x = rand(4, 64)
    q = fpxc.quantize(x, format="mxfp8_e4m3")
    for cols in (64.7, "64", -64, 2 ** 63, True):
        with pytest.raises(fpxc.InvalidArgumentError, match=r"cols must be an integer in \[0, "):
            fpxc.dequantize(q, format="mxfp8_e4m3", cols=cols)
    for block in (2 ** 40, 16.0, "16", 0, 1, 3, True):
        with pytest.raises(fpxc.InvalidArgumentError, match=r"block must be a power of two in "):
            fpxc.hadamard(x, block=block)
    with pytest.raises(fpxc.InvalidArgumentError, match="block must be a power of two"):
        torch.ops.fpxc.hadamard(x, 2 ** 40, 0, True)
    with pytest.raises(fpxc.InvalidArgumentError, match="hadamard_seed must be"):
        torch.ops.fpxc.quantize(x, "nvfp4", 1, 16, "", "", "rn", "row_major", "auto", 0, True,
                               16, -1, None)
    packed = fpxc.pack_fp6(torch.zeros(2, 4, dtype=torch.uint8))
    for cols in (4.0, "4", -4, 2 ** 63):
        with pytest.raises(fpxc.InvalidArgumentError, match="cols must be an integer"):
            fpxc.unpack_fp6(packed, cols=cols)
    for layout in (None, 3, "4 + 2"):
        with pytest.raises(fpxc.InvalidArgumentError, match="unknown fp6 layout"):
            fpxc.pack_fp6(torch.zeros(2, 4, dtype=torch.uint8), layout=layout)
        with pytest.raises(fpxc.InvalidArgumentError, match="unknown fp6 layout"):
            fpxc.unpack_fp6(packed, cols=4, layout=layout)


def test_pack_fp6_refuses_codes_of_more_than_6_bits():
    """Found by fuzzing: codes >= 64 were packed as their low 6 bits."""
    for layout in ops.FP6_PACKINGS:
        with pytest.raises(fpxc.InvalidArgumentError, match=r"fp6 codes are 6 bits \(< 64\), got 255"):
            fpxc.pack_fp6(torch.tensor([[200, 64, 255, 1]], dtype=torch.uint8), layout=layout)
        with pytest.raises(fpxc.InvalidArgumentError, match="must be uint8 codes"):
            fpxc.pack_fp6(torch.tensor([[-1, 0, 1, 2]], dtype=torch.int8), layout=layout)
        c = torch.tensor([[63, 0, 1, 2]], dtype=torch.uint8)
        assert torch.equal(fpxc.unpack_fp6(fpxc.pack_fp6(c, layout), 4, layout), c)


def test_dequantize_checks_dtypes_and_scale_shapes():
    """Found by fuzzing: dequantize read codes and scales of any dtype as
    the format's bytes (e5m2 codes as e4m3, ue4m3 scales as e8m0, int8 and
    complex scales) and scales of any shape holding the right count (a
    transposed (2, 4) for (4, 2)): silently wrong values."""
    x = rand(4, 64, dtype=torch.float32)
    m = fpxc.quantize(x, format="mxfp8_e4m3")
    e5 = fpxc.quantize(x, format="mxfp8_e5m2")
    n = fpxc.quantize(x, format="nvfp4", global_scale=False)
    f = fpxc.quantize(x, format="fp8_e4m3")
    c = fpxc.quantize(x.t(), format="mxfp8_e4m3", block=(32, 1))  # scales (4, 2)
    e8m0 = ops._scale_dtype("e8m0")
    for data, scales, fmt, kw, message in [
            (e5.data, e5.scales, "mxfp8_e4m3", {},
             "data of format 'mxfp8_e4m3' must be torch.float8_e4m3fn codes, got "
             "torch.float8_e5m2"),
            (m.data, m.scales, "mxfp8_e5m2", {}, "must be torch.float8_e5m2 codes"),
            (m.data.view(torch.uint8), m.scales, "mxfp8_e4m3", {}, "codes, got torch.uint8"),
            (n.data.view(torch.int8), n.scales, "nvfp4", {},
             r"'nvfp4' \(fp4x2 packing\) must be torch.uint8 codes, got torch.int8"),
            (n.data.view(torch.bool), n.scales, "nvfp4", {}, "codes, got torch.bool"),
            (n.data, n.scales, "mxfp4", dict(block=16),
             rf"'mxfp4' \(e8m0 scales\) must be {e8m0}, got torch.float8_e4m3fn"),
            (m.data, torch.ones(4, 2, dtype=torch.int8), "mxfp8_e4m3", {}, "got torch.int8"),
            (n.data, n.scales.view(torch.uint8), "nvfp4", {},
             "must be torch.float8_e4m3fn, got torch.uint8"),
            (f.data, f.scales.to(torch.complex64) * (1 + 5j), "fp8_e4m3", {},
             "must be torch.float32 or torch.bfloat16 or torch.float16, got torch.complex64"),
            (f.data, f.scales.to(torch.int32), "fp8_e4m3", {}, "got torch.int32"),
            (f.data, f.scales.double(), "fp8_e4m3", {}, "got torch.float64"),
            (m.data, m.scales.t(), "mxfp8_e4m3", {},
             r"scales must have shape \(4, 2\) \(blocks \(1, 32\) of 4x64 values, "
             r"row_major\), got \(2, 4\)"),
            (m.data, m.scales.reshape(8), "mxfp8_e4m3", {}, r"got \(8,\)"),
            (m.data, m.scales.reshape(1, 4, 2), "mxfp8_e4m3", {}, r"got \(1, 4, 2\)"),
            (m.data, m.scales, "mxfp8_e4m3", dict(scale_layout="blocked"),
             r"shape \(128, 4\)"),
            (c.data, c.scales.t(), "mxfp8_e4m3", dict(block=(32, 1)),
             r"shape \(4, 2\) \(blocks \(1, 32\) of 4x64 values"),
            (m.data.reshape(1, 4, 64), m.scales, "mxfp8_e4m3", {}, r"shape \(1, 4, 2\)")]:
        with pytest.raises(fpxc.InvalidArgumentError, match=message):
            fpxc.dequantize(data, scales, format=fmt, **kw)
    with pytest.raises(fpxc.InvalidArgumentError, match="global_scale must be a float tensor"):
        fpxc.dequantize(n.data, n.scales, format="nvfp4", global_scale=torch.tensor(1))
    with pytest.raises(fpxc.InvalidArgumentError, match="dequantize takes data as a 2-D or 3-D"):
        fpxc.dequantize(m.data.reshape(-1), m.scales, format="mxfp8_e4m3", block=(32, 1))


@pytest.mark.parametrize("shape,kw", [
    ((3, 32, 64), dict(format="mxfp8_e4m3")),
    ((3, 128, 64), dict(format="mxfp8_e4m3", scale_layout="blocked")),
    ((200, 96), dict(format="mxfp4", scale_layout="blocked")),
    ((2, 64, 48), dict(format="mxfp8_e5m2", block=(32, 1))),
    ((64, 48), dict(format="nvfp4", block=(16, 1), global_scale=False)),
    ((2, 64, 64), dict(format="nvfp4", block=(16, 16))),
    ((2, 8, 64), dict(format="nvfp4")),
    ((4, 64), dict(format="mxfp6_e3m2", packing="planes")),
    ((4, 64), dict(format="mxfp6_e2m3", packing="interleaved")),
    ((3, 8, 40), dict(format="fp8_e4m3", block=(1, None))),
    ((3, 8, 40), dict(format="fp8_e5m2", block=(None, None))),
    ((8, 64), dict(format="e3m2", block=(1, 16))),
])
def test_dequantize_takes_what_quantize_returns(shape, kw):
    """The dtype and shape checks accept every layout quantize returns
    (batches, blocked tiles, column blocks, 2-D blocks, per-row and
    per-tensor scales, fp6 packing with cols=), and fp32 scales as bf16."""
    x = rand(*shape, dtype=torch.float32)
    q = fpxc.quantize(x, **kw)
    dq = {k: v for k, v in kw.items() if k in ("format", "block", "scale_layout", "packing")}
    y = fpxc.dequantize(q, **dq)
    assert y.shape == x.shape
    if "packing" in kw:
        assert torch.equal(fpxc.dequantize(q, **dq, cols=shape[-1]), y)
    if q.scales.dtype == torch.float32:
        assert torch.equal(fpxc.dequantize(q.data, q.scales.bfloat16(), **dq),
                           fpxc.dequantize(q.data, q.scales.bfloat16().float(), **dq))


@pytest.mark.parametrize("block", [(1, 2 ** 40), (2 ** 40, 1), (2 ** 40, 2 ** 40), (4, 100)])
def test_blocks_larger_than_the_tensor(block):
    """Found by fuzzing: quantize takes a block larger than the tensor (one
    scale for the whole dimension) but dequantize repeated each scale block
    times (a 2^40 x 4 allocation): the same values as the whole-dimension
    block."""
    x = rand(4, 64, dtype=torch.float32)
    whole = tuple(0 if b > d else b for b, d in zip(block, x.shape))
    want = fpxc.dequantize(fpxc.quantize(x, format="fp8_e4m3", block=whole), format="fp8_e4m3",
                          block=whole)
    q = fpxc.quantize(x, format="fp8_e4m3", block=block)
    assert torch.equal(fpxc.dequantize(q, format="fp8_e4m3", block=block), want)


def test_lazily_negated_tensors_are_read_as_their_values():
    """Found by fuzzing: a tensor with the negative bit set (x._neg_view(),
    z.conj().imag) was read as its memory, without the sign."""
    v = torch.tensor([[1.0 + 2.0j]]).conj().imag
    assert v.is_neg() and v.is_contiguous()
    y = fpxc.dequantize(fpxc.quantize(v, format="mxfp8_e4m3"), format="mxfp8_e4m3", cols=1)
    assert y.tolist() == [[-2.0]]
    x = rand(4, 64, dtype=torch.float32)
    for kw in (dict(format="mxfp8_e4m3"), dict(format="nvfp4"),
               dict(format="mxfp4", block=(32, 1)), dict(format="nvfp4", hadamard=16)):
        got, want = fpxc.quantize(x._neg_view(), **kw), fpxc.quantize(-x, **kw)
        assert torch.equal(got.data.view(torch.uint8), want.data.view(torch.uint8)), kw
        assert torch.equal(got.scales.view(torch.uint8), want.scales.view(torch.uint8)), kw
        if want.global_scale is not None:
            assert torch.equal(got.global_scale, want.global_scale), kw
    assert torch.equal(fpxc.hadamard(x._neg_view()), fpxc.hadamard(-x))
    f = fpxc.quantize(x, format="fp8_e4m3")
    assert torch.equal(fpxc.dequantize(f.data, f.scales._neg_view(), format="fp8_e4m3"),
                       fpxc.dequantize(f.data, -f.scales, format="fp8_e4m3"))
    n = fpxc.quantize(x, format="nvfp4")
    assert torch.equal(fpxc.dequantize(n.data, n.scales, global_scale=n.global_scale._neg_view(),
                                      format="nvfp4"),
                       fpxc.dequantize(n.data, n.scales, global_scale=-n.global_scale,
                                      format="nvfp4"))
    # (torch cannot negate float8: refused, not read as the codes)
    with pytest.raises(fpxc.InvalidArgumentError, match="data is a lazily negated"):
        fpxc.dequantize(f.data._neg_view(), f.scales, format="fp8_e4m3")
    c = torch.tensor([[1, 2, 3, 4]], dtype=torch.int8)._neg_view()  # (not uint8: refused)
    with pytest.raises(fpxc.InvalidArgumentError, match="uint8"):
        fpxc.pack_fp6(c)


# What an MX block holding inf or NaN gives (docs/formats.md, "Non-finite
# inputs"): (element codes of the block [1, inf, -2, -inf] by default, with
# nonfinite="saturate") per format; the scale is 0xFF / 0xFE.
_NONFINITE_BYTES = {
    "mxfp8_e4m3": ([0x7F] * 4, [0x00, 0x7E, 0x80, 0xFE]),
    "mxfp8_e5m2": ([0x7F] * 4, [0x00, 0x7B, 0x80, 0xFB]),
    "mxfp6_e2m3": ([0x1F] * 4, [0x00, 0x1F, 0x20, 0x3F]),
    "mxfp6_e3m2": ([0x1F] * 4, [0x00, 0x1F, 0x20, 0x3F]),
    "mxfp4": ([0x7] * 4, [0x0, 0x7, 0x8, 0xF]),
}


@pytest.mark.parametrize("fmt", sorted(_NONFINITE_BYTES))
@pytest.mark.parametrize("rule", ["floor", "ceil", "even", "rceil"])
def test_mx_block_with_inf_is_nan_by_default_and_saturates_when_asked(fmt, rule):
    """OCP MX / torchao by default: scale 0xFF, NaN elements (+max for fp6
    and fp4, which have no NaN), NaN after dequantize; nonfinite="saturate":
    scale 0xFE, +-max, and +-max * 2^127 overflows fp32 back to +-inf. The
    finite neighbour block is the same either way."""
    inf = float("inf")
    x = torch.tensor([[1.0, inf, -2.0, -inf, 1.0, 2.0, 3.0, -4.0]], dtype=torch.bfloat16)
    packing = "bytes"  # one code a byte: the codes compare directly
    default, saturated = _NONFINITE_BYTES[fmt]
    outs = {}
    for nonfinite, want, scale in (("nan", default, 0xFF), ("saturate", saturated, 0xFE)):
        q = fpxc.quantize(x, format=fmt, block=(1, 4), rule=rule, packing=packing,
                          nonfinite=nonfinite)
        assert q.scales.view(torch.uint8)[0, 0].item() == scale
        assert q.data.view(torch.uint8)[0, :4].tolist() == want
        y = fpxc.dequantize(q, format=fmt, block=(1, 4), packing=packing)
        if nonfinite == "nan":
            assert torch.isnan(y[0, :4]).all()
        else:
            assert y[0, 1].item() == inf and y[0, 3].item() == -inf
            assert y[0, 0].item() == 0.0 and y[0, 2].item() == 0.0
        assert not torch.isnan(y[0, 4:]).any()
        outs[nonfinite] = q
    assert torch.equal(outs["nan"].data.view(torch.uint8)[0, 4:],
                       outs["saturate"].data.view(torch.uint8)[0, 4:])


def test_mx_block_with_nan_is_nan_either_way():
    x = torch.tensor([[1.0, float("nan"), -float("inf"), 2.0]])
    for nonfinite in ("nan", "saturate"):
        q = fpxc.quantize(x, format="mxfp8_e4m3", block=(1, 4), nonfinite=nonfinite)
        assert q.scales.view(torch.uint8).tolist() == [[0xFF]]
        assert q.data.view(torch.uint8).tolist() == [[0x7F] * 4]


def test_nvfp4_and_fp32_blocks_with_inf_are_fixed_and_take_no_choice():
    """NVFP4: the tensor amax clamps to FLT_MAX, the inf's block scale
    saturates to 448 (0x7E), the inf to +6, every other value to zero; fp32
    scales: s = FLT_MAX / 448, the inf saturates to 448. Neither takes
    nonfinite="saturate" (an error that says so)."""
    inf = float("inf")
    x = torch.tensor([[1.0, inf, -2.0, 0.5] + [1.0] * 12 + [1.0, 2.0, 3.0, -4.0] + [0.0] * 12])
    q = fpxc.quantize(x, format="nvfp4")
    assert q.scales.view(torch.uint8).tolist() == [[0x7E, 0x00]]
    codes = torch.stack([q.data.view(torch.uint8) & 0xF, q.data.view(torch.uint8) >> 4], -1)
    codes = codes.reshape(1, 32)
    assert codes[0, 1].item() == 0x7 and int((codes[0] & 0x7).count_nonzero()) == 1
    f = fpxc.quantize(x, format="fp8_e4m3", block=(1, 16))
    assert f.data.view(torch.uint8)[0, 1].item() == 0x7E
    assert f.scales[0, 0].item() == pytest.approx(3.4028234663852886e38 / 448, rel=1e-6)
    for fmt in ("nvfp4", "fp8_e4m3"):
        with pytest.raises(fpxc.InvalidArgumentError, match="nonfinite='saturate' is a choice of MX"):
            fpxc.quantize(x, format=fmt, nonfinite="saturate")
    with pytest.raises(fpxc.InvalidArgumentError, match="unknown nonfinite 'clamp'"):
        fpxc.quantize(x, format="mxfp8_e4m3", nonfinite="clamp")


def test_nonfinite_vocabulary_comes_from_the_numerics_core():
    assert ops.NONFINITES == ("nan", "saturate")


def test_a_quantized_tensor_records_its_scale_layout():
    """quantize() records the scales' layout; dequantize() reads it (a
    QuantizedTensor built from three fields is row-major); .to() moves the
    tensors and keeps it."""
    x = torch.randn(100, 96)
    for fmt in ("mxfp8_e4m3", "nvfp4"):
        rm, bl = fpxc.quantize(x, fmt), fpxc.quantize(x, fmt, scale_layout="blocked")
        assert rm.scale_layout == "row_major" and bl.scale_layout == "blocked"
        assert torch.equal(fpxc.dequantize(bl, format=fmt), fpxc.dequantize(rm, format=fmt))
        assert torch.equal(fpxc.dequantize(bl.data, bl.scales, format=fmt, scale_layout="blocked",
                                           global_scale=bl.global_scale),
                           fpxc.dequantize(rm, format=fmt))
        assert fpxc.QuantizedTensor(rm.data, rm.scales, rm.global_scale).scale_layout == "row_major"
        moved = bl.to("cpu")
        assert moved.scale_layout == "blocked" and torch.equal(moved.scales.view(torch.uint8),
                                                               bl.scales.view(torch.uint8))
        with pytest.raises(fpxc.InvalidArgumentError, match="scale_layout='row_major', but the "
                                                           "QuantizedTensor's scales are 'blocked'"):
            fpxc.dequantize(bl, format=fmt, scale_layout="row_major")
        with pytest.raises(fpxc.InvalidArgumentError, match="does not change their dtypes"):
            rm.to(torch.float32)
