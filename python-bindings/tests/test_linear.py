"""fpxc.quantize_weight, fpxc.linear, fpxc.nn (issue 38's Python half).

CPU tests always run; those marked gpu need a CUDA GPU and the bundled
weight-only GEMM kernels (op "linear"). Oracles: the mma_tiles offset
formula of docs/formats.md written out element by element, fpxc.quantize /
fpxc.dequantize (the numerics core) for the codes and scales, and an fp32
matmul of the dequantized weight for the outputs.
"""

import importlib
import importlib.util
import io
import pathlib
import sys
import warnings

import pytest
import torch

import fpxc

# (the module, not the function fpxc.linear that its name is shadowed by)
L = importlib.import_module("fpxc.linear")

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORMATS = ["fp8_e4m3", "fp8_e5m2"]
# The block-scaled formats: fpxc.quantize's default block for each (MX 32,
# NVFP4 16 with the global scale).
BLOCK_FORMATS = ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp4", "nvfp4", "mxfp6_e2m3", "mxfp6_e3m2"]
# FP6-LLM's e3m2 and fp5 e2m2: one fp32 scale per output channel.
NARROW_CHANNEL_FORMATS = ["fp6_e3m2", "fp5_e2m2"]
ALL_FORMATS = FORMATS + BLOCK_FORMATS + NARROW_CHANNEL_FORMATS
# The formats whose linear kernels are in the full bundle only
# (build_bundle.py's LINEAR_FULL_ONLY; a test keeps the two equal).
FULL_ONLY_FORMATS = ["mxfp6_e2m3", "mxfp6_e3m2", "fp6_e3m2", "fp5_e2m2"]
F8 = {"fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}


def rel(a, b):
    a, b = a.float(), b.float()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def mma_offset(r, k, rows, cols):
    """docs/formats.md, mma_tiles: the byte offset of code (r, k)."""
    return (((r // 16) * (cols // 32) + k // 32) * 512 + (4 * (r % 8) + (k % 32) // 8) * 16
            + ((k % 8) // 2) * 4 + 2 * ((r % 16) // 8) + k % 2)


def mma_nibble(r, k, rows, cols):
    """docs/formats.md, mma_tiles of 4-bit codes: the nibble offset of code
    (r, k) (byte = nibble // 2, the high nibble when odd): 16 x 64 tiles,
    word 2h + s of lane 4g + t, nibble p (+ 4 for the odd element) of A
    register p = 2 * ((k % 4) // 2) + row half."""
    tile = (r // 16) * (cols // 64) + k // 64
    kk = k % 64
    h, t, e = kk // 32, (kk % 32) // 8, kk % 8
    lane, word = 4 * (r % 8) + t, 2 * h + e // 4
    reg = 2 * ((e % 4) // 2) + (r % 16) // 8
    return 2 * (tile * 512 + lane * 16 + word * 4) + reg + 4 * (e % 2)


def mma_split_bits(r, k, rows, cols, bits):
    """docs/formats.md, mma_tiles of 6- and 5-bit codes: the bit offsets of
    code (r, k)'s low nibble and of its bits - 4 high bits: tiles of 128 *
    bits bytes, the low nibbles as in a 4-bit tile, lane l's high plane of 4
    hb bytes at 512 + 4 hb l, nibble q of low word i's high bits in high word
    i // (4 // hb) at bit 16 (q // 4) + hb (4 (i % (4 // hb)) + q % 4)."""
    hb, per = bits - 4, 4 // (bits - 4)
    tile = (r // 16) * (cols // 64) + k // 64
    kk = k % 64
    h, t, e = kk // 32, (kk % 32) // 8, kk % 8
    lane, word = 4 * (r % 8) + t, 2 * h + e // 4
    q = 2 * ((e % 4) // 2) + (r % 16) // 8 + 4 * (e % 2)
    base = tile * 128 * bits
    low = 8 * (base + lane * 16 + word * 4) + 4 * q
    high = 8 * (base + 512 + lane * 4 * hb + 4 * (word // per)) + 16 * (q // 4) + \
        hb * (4 * (word % per) + q % 4)
    return low, high


# --- the layout ----------------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols", [(16, 32), (32, 64), (48, 96)])
def test_pack_mma_tiles_is_the_documented_permutation(rows, cols):
    g = torch.Generator().manual_seed(rows * cols)
    codes = torch.randint(0, 256, (rows, cols), dtype=torch.uint8, generator=g)
    packed = L.pack_mma_tiles(codes).reshape(-1)
    want = torch.empty(rows * cols, dtype=torch.uint8)
    for r in range(rows):
        for k in range(cols):
            want[mma_offset(r, k, rows, cols)] = codes[r, k]
    assert torch.equal(packed, want)
    assert torch.equal(L.unpack_mma_tiles(packed.view(rows, cols)), codes)


def test_pack_mma_tiles_keeps_float8_dtype_and_bits():
    x = torch.randn(32, 64).to(torch.float8_e4m3fn)
    p = L.pack_mma_tiles(x)
    assert p.dtype == torch.float8_e4m3fn
    assert torch.equal(L.unpack_mma_tiles(p).view(torch.uint8), x.view(torch.uint8))


@pytest.mark.parametrize("shape", [(8, 32), (16, 48), (16,)])
def test_pack_mma_tiles_refuses_shapes_off_the_tile(shape):
    with pytest.raises(fpxc.InvalidArgumentError, match="mma_tiles|2-D"):
        L.pack_mma_tiles(torch.zeros(shape, dtype=torch.uint8))


@pytest.mark.parametrize("rows,cols", [(16, 64), (32, 128), (48, 192)])
def test_pack_mma_tiles_4bit_is_the_documented_permutation(rows, cols):
    g = torch.Generator().manual_seed(rows + cols)
    codes = torch.randint(0, 16, (rows, cols), dtype=torch.uint8, generator=g)
    packed = L.pack_mma_tiles(codes, bits=4)
    assert packed.dtype == torch.uint8 and tuple(packed.shape) == (rows, cols // 2)
    want = torch.zeros(rows * cols // 2, dtype=torch.uint8)
    for r in range(rows):
        for k in range(cols):
            o = mma_nibble(r, k, rows, cols)
            want[o // 2] |= int(codes[r, k]) << (4 * (o % 2))
    assert torch.equal(packed.reshape(-1), want)
    assert torch.equal(L.unpack_mma_tiles(packed, bits=4), codes)
    # the high nibble of a code byte is not a code's: ignored
    assert torch.equal(L.pack_mma_tiles(codes | 0xF0, bits=4), packed)


@pytest.mark.parametrize("bits", [6, 5])
@pytest.mark.parametrize("rows,cols", [(16, 64), (32, 192)])
def test_pack_mma_tiles_6_and_5_bit_is_the_documented_layout(bits, rows, cols):
    g = torch.Generator().manual_seed(rows * bits + cols)
    codes = torch.randint(0, 1 << bits, (rows, cols), dtype=torch.uint8, generator=g)
    packed = L.pack_mma_tiles(codes, bits=bits)
    assert packed.dtype == torch.uint8 and tuple(packed.shape) == (rows, cols * bits // 8)
    want = [0] * (rows * cols * bits // 8)
    for r in range(rows):
        for k in range(cols):
            lo, hi = mma_split_bits(r, k, rows, cols, bits)
            c = int(codes[r, k])
            want[lo // 8] |= (c & 0xF) << (lo % 8)
            want[hi // 8] |= (c >> 4) << (hi % 8)
    assert packed.reshape(-1).tolist() == want
    assert torch.equal(L.unpack_mma_tiles(packed, bits=bits), codes)
    # bits above the code's are not the code's: ignored
    assert torch.equal(L.pack_mma_tiles(codes | (0xFF << bits & 0xFF), bits=bits), packed)


@pytest.mark.parametrize("bits,rows,cols", [(8, 32, 64), (8, 144, 320), (4, 32, 128),
                                            (4, 144, 576), (6, 32, 128), (6, 144, 576),
                                            (5, 32, 128), (5, 144, 576)])
def test_pack_mma_tiles_is_the_numerics_cores(bits, rows, cols):
    """The torch permutation equals the numerics core's packMmaTiles /
    unpackMmaTiles (fpxc._fpx; the one owner of the layout) on random codes."""
    g = torch.Generator().manual_seed(bits * rows + cols)
    codes = torch.randint(0, 1 << bits, (rows, cols), dtype=torch.uint8, generator=g)
    core = torch.empty(rows * cols * bits // 8, dtype=torch.uint8)
    fpxc._fpx.pack_mma_tiles(codes.data_ptr(), rows, cols, bits, core.data_ptr())
    packed = L.pack_mma_tiles(codes, bits=bits)
    assert torch.equal(packed.reshape(-1), core)
    assert tuple(packed.shape) == (rows, cols * bits // 8)
    back = torch.empty(rows * cols, dtype=torch.uint8)
    fpxc._fpx.unpack_mma_tiles(core.data_ptr(), rows, cols, bits, back.data_ptr())
    assert torch.equal(back.view(rows, cols), codes)
    assert torch.equal(L.unpack_mma_tiles(packed, bits=bits), codes)


@pytest.mark.parametrize("bits,shape", [(4, (16, 32)), (4, (8, 64)), (3, (16, 64)),
                                        (6, (16, 32)), (5, (8, 64)), (7, (16, 64))])
def test_pack_mma_tiles_4bit_refuses_shapes_off_the_tile(bits, shape):
    with pytest.raises(fpxc.InvalidArgumentError, match="mma_tiles"):
        L.pack_mma_tiles(torch.zeros(shape, dtype=torch.uint8), bits=bits)
    with pytest.raises(fpxc.InvalidArgumentError, match="mma_tiles"):
        L.unpack_mma_tiles(torch.zeros(shape[0], shape[1] // 2, dtype=torch.uint8), bits=bits)


def test_the_bench_packs_with_the_package():
    """bench/gemm/run.py packs through fpxc (one owner of the layout)."""
    text = (ROOT / "bench/gemm/run.py").read_text()
    assert "def pack_mma_tiles" not in text and "quantize_weight" in text


# --- quantize_weight -----------------------------------------------------------------------

@pytest.mark.parametrize("fmt", FORMATS + NARROW_CHANNEL_FORMATS)
@pytest.mark.parametrize("n,k", [(128, 256), (300, 200), (16, 32)])
def test_quantize_weight_is_the_numerics_per_channel_cast(fmt, n, k):
    """fp8, fp6 e3m2, fp5 e2m2 per channel: fpxc.quantize's codes (one a
    byte) and scales, the codes in mma_tiles; dequantize() the core's."""
    bits = L.WEIGHT_FORMATS[fmt].bits
    kw = {"packing": "bytes"} if bits < 8 else {}
    w = torch.randn(n, k, generator=torch.Generator().manual_seed(n + k)) * 0.02
    p = fpxc.quantize_weight(w, format=fmt)
    q = fpxc.quantize(w, format=fmt, block=(1, 0), **kw)
    np_, kp = -(-n // 128) * 128, -(-k // 256) * 256
    assert p.codes.dtype == torch.uint8 and tuple(p.codes.shape) == (np_, kp * bits // 8)
    assert p.scales.dtype == torch.float32 and tuple(p.scales.shape) == (np_, 1)
    assert p.shape == (n, k) and p.format == fmt and p.layout == "mma_tiles"
    codes = p.unpacked_codes()
    assert torch.equal(codes[:n, :k], q.data.view(torch.uint8))
    assert not codes[n:].any() and not codes[:, k:].any(), "padding must be zero codes"
    assert torch.equal(p.scales[:n], q.scales.float()) and not p.scales[n:].any()
    # decode(code) * scale in fp32, bit for bit the numerics core's dequantize
    ref = fpxc.dequantize(q, format=fmt, block=(1, 0), **kw)
    assert torch.equal(p.dequantize(), ref)
    assert torch.equal(p.dequantize(), _core_dequantize(p)[:n, :k])
    assert p.nbytes == p.codes.nbytes + p.scales.nbytes


@pytest.mark.parametrize("alias,name", [("fp8_e4m3", "fp8_e4m3"), ("e4m3fn", "fp8_e4m3"),
                                        ("FP8_E5M2", "fp8_e5m2"), ("e5m2", "fp8_e5m2")])
def test_format_names_are_the_vocabularys(alias, name):
    assert L.weight_format(alias).name == name
    assert fpxc.quantize_weight(torch.ones(16, 32), format=alias).format == name


def _padded(n, k):
    return -(-n // 128) * 128, -(-k // 256) * 256


def _core_dequantize(p):
    """The numerics core's dequantize (fpxc.dequantize on the CPU) of the
    packed weight's codes and scales, row-major again; the fp4 codes re-packed
    as fp4x2 by the core's packer (element 2j in the low nibble)."""
    fmt = p.weight_format
    codes = p.unpacked_codes().cpu()
    if fmt.bits == 4:
        data = torch.empty(codes.numel() // 2, dtype=torch.uint8)
        fpxc._fpx.pack_fp4x2(codes.contiguous().data_ptr(), codes.numel(), data.data_ptr())
        data = data.view(codes.shape[0], codes.shape[1] // 2)
    elif fmt.bits < 8:  # fp6 / fp5: one code a byte
        return fpxc.dequantize(codes, p.scales.cpu(), format=p.format, block=fmt.block,
                               packing="bytes")
    else:
        data = codes.view(F8.get(p.format.replace("mx", ""), torch.uint8))
    g = None if p.global_scale is None else p.global_scale.cpu()
    return fpxc.dequantize(data, p.scales.cpu(), format=p.format, block=fmt.block,
                           global_scale=g)


@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
@pytest.mark.parametrize("n,k", [(128, 256), (300, 200), (16, 32), (130, 520)])
def test_quantize_weight_is_the_numerics_block_cast(fmt, n, k):
    """MXFP8 / MXFP4 / NVFP4: fpxc.quantize's codes and scales of the
    zero-padded weight, the codes (fp4x2 unpacked, low nibble first) in the
    mma_tiles layout, the scales row-major; dequantize() bit for bit the
    numerics core's."""
    wf = L.WEIGHT_FORMATS[fmt]
    w = torch.randn(n, k, generator=torch.Generator().manual_seed(n * k)) * 0.02
    p = fpxc.quantize_weight(w, format=fmt)
    np_, kp = _padded(n, k)
    assert p.shape == (n, k) and p.format == fmt and p.layout == "mma_tiles"
    assert p.codes.dtype == torch.uint8 and tuple(p.codes.shape) == (np_, kp * wf.bits // 8)
    assert p.scales.dtype == wf.scale_dtype
    assert tuple(p.scales.shape) == (np_, kp // wf.block[1])
    wp = torch.nn.functional.pad(w, (0, kp - k, 0, np_ - n))
    # one code a byte (packing="bytes"): an oracle of the fp4x2 nibble order
    kw = {"packing": "bytes"} if wf.bits < 8 else {}
    q = fpxc.quantize(wp, format=fmt, block=wf.block, **kw)
    codes = p.unpacked_codes()
    assert codes.dtype == torch.uint8 and tuple(codes.shape) == (np_, kp)
    assert torch.equal(codes, q.data.view(torch.uint8))
    assert not codes[n:].any() and not codes[:, k:].any(), "padding must be zero codes"
    assert torch.equal(p.scales.view(torch.uint8), q.scales.view(torch.uint8))
    if fmt == "nvfp4":
        assert p.global_scale.dtype == torch.float32 and p.global_scale.dim() == 0
        assert torch.equal(p.global_scale, q.global_scale.reshape(()))
        # g is the logical weight's (zero padding leaves the amax)
        g0 = fpxc.quantize(w[:, : k - k % 16] if k % 16 else w, format=fmt).global_scale
        assert torch.equal(p.global_scale, g0.reshape(()))
        assert p.nbytes == p.codes.nbytes + p.scales.nbytes + 4
    else:
        assert p.global_scale is None
        assert p.nbytes == p.codes.nbytes + p.scales.nbytes
    ref = fpxc.dequantize(q, format=fmt, block=wf.block, **kw)
    assert torch.equal(p.dequantize(), ref[:n, :k])
    assert torch.equal(p.dequantize(), _core_dequantize(p)[:n, :k])
    assert rel(p.dequantize(), w) <= (0.06 if wf.bits == 8 else 0.15)


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_dequantize_is_the_cores_on_random_codes_and_scales(fmt):
    """Every code and a spread of scale codes (not only those a cast makes):
    PackedWeight.dequantize is the numerics core's dequantize, bit for bit."""
    wf = L.WEIGHT_FORMATS[fmt]
    g = torch.Generator().manual_seed(len(fmt))
    np_, kp = 128, 256
    codes = torch.randint(0, 1 << wf.bits, (np_, kp), dtype=torch.uint8, generator=g)
    if wf.bits == 8:  # finite codes only (the GEMM decodes no NaN / inf)
        f = codes.view(F8.get(fmt.replace("mx", "")))
        codes[~torch.isfinite(f.float())] = 0
    rows, cols = np_, (1 if wf.block[1] == 0 else kp // wf.block[1])
    if wf.scale_dtype == torch.float32:
        scales = torch.rand(rows, cols, generator=g) * 2.0 ** torch.randint(-20, 20, (rows, 1),
                                                                           generator=g)
    elif wf.scale_dtype == torch.float8_e8m0fnu:
        scales = torch.randint(100, 160, (rows, cols), dtype=torch.uint8,
                               generator=g).view(torch.float8_e8m0fnu)
    else:  # ue4m3: positive finite codes
        scales = torch.randint(0, 0x7F, (rows, cols), dtype=torch.uint8,
                               generator=g).view(torch.float8_e4m3fn)
    gs = torch.tensor(0.0123, dtype=torch.float32) if wf.global_scale else None
    p = L.PackedWeight(L.pack_mma_tiles(codes, bits=wf.bits), scales, fmt, (np_, kp), gs)
    assert torch.equal(p.unpacked_codes(), codes)
    want = _core_dequantize(p)
    got = p.dequantize()
    assert torch.equal(got.isnan(), want.isnan())
    assert torch.equal(got.nan_to_num(), want.nan_to_num())


def test_quantize_weight_errors():
    with pytest.raises(fpxc.InvalidArgumentError, match="no weight-only linear yet"):
        fpxc.quantize_weight(torch.ones(16, 32), format="fp6_e2m3")
    with pytest.raises(fpxc.InvalidArgumentError, match="unknown format"):
        fpxc.quantize_weight(torch.ones(16, 32), format="fp9")
    with pytest.raises(fpxc.InvalidArgumentError, match="2-D"):
        fpxc.quantize_weight(torch.ones(2, 16, 32))
    with pytest.raises(fpxc.InvalidArgumentError, match="float32, bfloat16 or float16"):
        fpxc.quantize_weight(torch.ones(16, 32, dtype=torch.int32))
    w = torch.ones(16, 32)
    w[3, 4] = float("nan")
    with pytest.raises(fpxc.InvalidArgumentError, match="inf or NaN"):
        fpxc.quantize_weight(w)
    with pytest.raises(fpxc.InvalidArgumentError, match="torch.Tensor"):
        fpxc.quantize_weight([[1.0]])


def test_a_zero_row_gets_zero_codes():
    w = torch.randn(128, 256)
    w[5] = 0
    p = fpxc.quantize_weight(w)
    assert not p.dequantize()[5].any() and torch.isfinite(p.dequantize()).all()


# --- linear (CPU: dequantize + fp32 matmul) --------------------------------------------------

@pytest.mark.parametrize("fmt", ALL_FORMATS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("shape", [(3, 200), (2, 5, 200), (1, 200)])
def test_linear_is_the_matmul_of_the_dequantized_weight(fmt, dtype, shape):
    g = torch.Generator().manual_seed(7)
    w = torch.randn(300, 200, generator=g)
    b = torch.randn(300, generator=g)
    x = torch.randn(shape, generator=g).to(dtype)
    p = fpxc.quantize_weight(w, format=fmt)
    wd = p.dequantize()
    for bias in (None, b):
        y = fpxc.linear(x, p, bias)
        assert y.dtype == dtype and tuple(y.shape) == tuple(shape[:-1]) + (300,)
        ref = x.float() @ wd.T + (0 if bias is None else bias)
        assert rel(y, ref) <= 1e-2
        # through the op (the dispatcher) too; g is None but for NVFP4
        assert torch.equal(torch.ops.fpxc.linear(x, p.codes, p.scales, bias, fmt, 300, 200,
                                                 p.global_scale), y)


def test_nvfp4_linear_needs_its_global_scale():
    p = fpxc.quantize_weight(torch.randn(128, 256), format="nvfp4")
    x = torch.ones(2, 256, dtype=torch.bfloat16)
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: .*needs its global"):
        torch.ops.fpxc.linear(x, p.codes, p.scales, None, "nvfp4", 128, 256)
    q = fpxc.quantize_weight(torch.randn(128, 256), format="mxfp4")
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: .*has no global"):
        torch.ops.fpxc.linear(x, q.codes, q.scales, None, "mxfp4", 128, 256, p.global_scale)
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: the global scale"):
        torch.ops.fpxc.linear(x, p.codes, p.scales, None, "nvfp4", 128, 256,
                              p.global_scale.reshape(1))
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: the packed codes"):
        torch.ops.fpxc.linear(x, q.codes.repeat(1, 2), q.scales, None, "mxfp4", 128, 256)
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: the scales"):
        torch.ops.fpxc.linear(x, q.codes, q.scales.view(torch.uint8), None, "mxfp4", 128, 256)
    with pytest.raises(fpxc.InvalidArgumentError, match="global scale"):
        L.PackedWeight(p.codes, p.scales, "nvfp4", (128, 256))


@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
def test_block_format_linear_under_compile_and_autograd(fmt):
    p = fpxc.quantize_weight(torch.randn(128, 256), format=fmt)
    b = torch.randn(128)
    f = torch.compile(lambda x: fpxc.linear(x, p, b), fullgraph=True, backend="aot_eager")
    x = torch.randn(4, 3, 256, dtype=torch.bfloat16)
    assert torch.equal(f(x), fpxc.linear(x, p, b))
    xg = torch.randn(3, 256, requires_grad=True)
    fpxc.linear(xg, p).square().sum().backward()
    x2 = xg.detach().clone().requires_grad_()
    (x2 @ p.dequantize().T).square().sum().backward()
    assert rel(xg.grad, x2.grad) <= 1e-5


def test_linear_errors_name_the_op():
    p = fpxc.quantize_weight(torch.randn(128, 256))
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: x must be bfloat16"):
        fpxc.linear(torch.ones(2, 256, dtype=torch.int32), p)
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: x has 128 features"):
        fpxc.linear(torch.ones(2, 128, dtype=torch.bfloat16), p)
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: x must be 2-D"):
        fpxc.linear(torch.ones(256, dtype=torch.bfloat16), p)
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: bias must have shape"):
        fpxc.linear(torch.ones(2, 256, dtype=torch.bfloat16), p, torch.ones(7))
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: weight must be a Packed"):
        fpxc.linear(torch.ones(2, 256, dtype=torch.bfloat16), torch.ones(128, 256))
    with pytest.raises(fpxc.InvalidArgumentError, match=r"fpxc\.linear: the packed codes"):
        torch.ops.fpxc.linear(torch.ones(2, 256), p.codes[:64], p.scales, None, "fp8_e4m3",
                              128, 256)


def test_linear_under_torch_compile_fullgraph():
    p = fpxc.quantize_weight(torch.randn(128, 256))
    b = torch.randn(128)
    f = torch.compile(lambda x: fpxc.linear(x, p, b), fullgraph=True, backend="aot_eager")
    x = torch.randn(4, 3, 256, dtype=torch.bfloat16)
    assert torch.equal(f(x), fpxc.linear(x, p, b))


def test_linear_gradients_reach_x_and_the_bias():
    p = fpxc.quantize_weight(torch.randn(128, 256))
    x = torch.randn(3, 256, requires_grad=True)
    b = torch.randn(128, requires_grad=True)
    fpxc.linear(x, p, b).square().sum().backward()
    x2 = x.detach().clone().requires_grad_()
    b2 = b.detach().clone().requires_grad_()
    (x2 @ p.dequantize().T + b2).square().sum().backward()
    assert rel(x.grad, x2.grad) <= 1e-5 and rel(b.grad, b2.grad) <= 1e-5


# --- state_dict, fpxc.nn ---------------------------------------------------------------------

def _roundtrip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=True)


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_state_dict_round_trip_with_weights_only(fmt):
    lin = torch.nn.Linear(200, 300)
    q = fpxc.nn.Linear.from_float(lin, format=fmt)
    sd = _roundtrip(q.state_dict())
    want = {"weight.codes", "weight.scales", "weight._extra_state", "bias"}
    if fmt == "nvfp4":
        want.add("weight.global_scale")
    assert set(sd) == want
    assert sd["weight.scales"].dtype == L.WEIGHT_FORMATS[fmt].scale_dtype
    fresh = fpxc.nn.Linear(200, 300, format=fmt, dtype=torch.float32)
    fresh.load_state_dict(sd)
    assert fresh.weight.format == fmt and fresh.weight.shape == (300, 200)
    assert torch.equal(fresh.weight.dequantize(), q.weight.dequantize())
    x = torch.randn(4, 200, dtype=torch.bfloat16)
    assert torch.equal(fresh(x), q(x))
    p = fpxc.quantize_weight(lin.weight, fmt)
    e = L.PackedWeight.empty(300, 200, fmt)
    e.load_state_dict(_roundtrip(p.state_dict()))
    assert torch.equal(e.dequantize(), p.dequantize())


@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
def test_casting_a_model_keeps_block_scales_and_the_global_scale(fmt):
    model = torch.nn.Sequential(torch.nn.Linear(256, 128))
    fpxc.nn.swap_linear_(model, format=fmt)
    want = model[0].weight.dequantize()
    model.to(torch.bfloat16)
    model.half()
    assert model[0].weight.scales.dtype == L.WEIGHT_FORMATS[fmt].scale_dtype
    if fmt == "nvfp4":
        assert model[0].weight.global_scale.dtype == torch.float32
    assert torch.equal(model[0].weight.dequantize(), want)


@pytest.mark.parametrize("fmt", BLOCK_FORMATS)
def test_swap_linear_with_block_formats(fmt):
    torch.manual_seed(0)
    model = torch.nn.Sequential(Block(), torch.nn.Linear(256, 128))
    x = torch.randn(2, 5, 256)
    want = model(x)
    fpxc.nn.swap_linear_(model, format=fmt)
    assert not [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert {m.format for m in model.modules() if isinstance(m, fpxc.nn.Linear)} == {fmt}
    assert rel(model(x), want) <= (0.08 if "mxfp8" in fmt else 0.2)
    h = model[0].up
    assert torch.equal(h(x), fpxc.linear(x, h.weight, h.bias))


def test_casting_a_model_keeps_the_packed_weight_exact():
    """model.to(bfloat16) / .half() convert floating buffers: the packed
    weight's fp32 scales must not be rounded."""
    model = torch.nn.Sequential(torch.nn.Linear(256, 128))
    fpxc.nn.swap_linear_(model)
    want = model[0].weight.dequantize()
    model.to(torch.bfloat16)
    model.half()
    assert model[0].weight.scales.dtype == torch.float32
    assert model[0].bias.dtype == torch.float16
    assert torch.equal(model[0].weight.dequantize(), want)
    x = torch.randn(2, 256, dtype=torch.float16)
    assert fpxc.linear(x, model[0].weight, model[0].bias).dtype == torch.float16


def test_extra_state_of_another_layout_is_refused():
    p = L.PackedWeight.empty(16, 32)
    with pytest.raises(fpxc.InvalidArgumentError, match="layout"):
        p.set_extra_state({"format": "fp8_e4m3", "layout": "row_major", "shape": [16, 32],
                           "version": 1})


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(256, 512)
        self.down = torch.nn.Linear(512, 256, bias=False)
        self.norm = torch.nn.LayerNorm(256)

    def forward(self, x):
        return self.norm(x + self.down(torch.relu(self.up(x))))


def test_swap_linear_in_place():
    torch.manual_seed(0)
    model = torch.nn.Sequential(Block(), Block(), torch.nn.Linear(256, 128))
    x = torch.randn(2, 5, 256)
    want = model(x)
    out = fpxc.nn.swap_linear_(model, format="fp8_e4m3")
    assert out is model
    lins = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    assert not lins, "every nn.Linear is swapped"
    swapped = [m for m in model.modules() if isinstance(m, fpxc.nn.Linear)]
    assert len(swapped) == 5
    got = model(x)
    assert rel(got, want) <= 5e-2  # fp8 e4m3 weight error
    # each module is fpxc.linear of its packed weight
    h = model[0].up
    assert torch.equal(h(x), fpxc.linear(x, h.weight, h.bias))


def test_swap_linear_filter_and_shared_weights():
    a = torch.nn.Linear(64, 32)
    b = torch.nn.Linear(64, 32)
    b.weight = a.weight  # tied
    c = torch.nn.Linear(32, 32)
    model = torch.nn.ModuleDict({"a": a, "b": b, "c": c})
    seen = []

    def keep(module, fqn):
        seen.append(fqn)
        return fqn != "c"

    fpxc.nn.swap_linear_(model, format="fp8_e5m2", filter=keep)
    assert sorted(seen) == ["a", "b", "c"], "asked about the Linears only"
    assert isinstance(model["a"], fpxc.nn.Linear) and isinstance(model["b"], fpxc.nn.Linear)
    assert isinstance(model["c"], torch.nn.Linear)
    assert model["a"].weight is model["b"].weight, "one weight, quantized once"
    assert model["a"].format == "fp8_e5m2"


def test_swap_linear_of_a_linear_returns_its_replacement():
    lin = torch.nn.Linear(32, 16)
    q = fpxc.nn.swap_linear_(lin)
    assert isinstance(q, fpxc.nn.Linear) and q.weight.shape == (16, 32)


def test_swap_linear_errors():
    with pytest.raises(fpxc.InvalidArgumentError, match="no weight-only linear"):
        fpxc.nn.swap_linear_(torch.nn.Linear(32, 16), format="fp6_e2m3")
    with pytest.raises(fpxc.InvalidArgumentError, match="filter"):
        fpxc.nn.swap_linear_(torch.nn.Linear(32, 16), filter=3)
    with pytest.raises(fpxc.InvalidArgumentError, match="torch.nn.Linear"):
        fpxc.nn.Linear.from_float(torch.nn.Conv1d(1, 1, 1))


# --- the bundle ------------------------------------------------------------------------------

from builder import load as _builder, compile_config, with_fpxc  # noqa: E402,E501


def test_the_bundle_builder_has_every_weight_format():
    bb = _builder()
    assert {k: (tuple(b), lay, sc) for k, (b, lay, sc) in bb.LINEAR_FORMATS.items()} == \
        {k: (f.block, f.layout, f.scale_word) for k, f in L.WEIGHT_FORMATS.items()}
    for which in ("core", "full"):
        got = [c["options"] for c in bb.linear_configurations(which)]
        want = [L.bundle_options(L.WEIGHT_FORMATS[f], a) for f in L.WEIGHT_FORMATS
                for a in ("bf16", "f16")
                if which == "full" or (f not in bb.LINEAR_FULL_ONLY
                                       and (a == "bf16" or f in bb.LINEAR_CORE_F16))]
        assert sorted(map(str, got)) == sorted(map(str, want))
    # the core set: every format with bf16 but the fp6 / fp5 ones (the full
    # set's), the per-channel fp8 ones with f16 too
    assert set(bb.LINEAR_CORE_F16) == set(FORMATS)
    assert set(bb.LINEAR_FULL_ONLY) == set(FULL_ONLY_FORMATS)


def test_the_linear_specs_compile(tmp_path):
    bb, fpxc_bin = with_fpxc()
    configs = [c for c in bb.named_configs("core") if c["options"]["op"] == "linear"]
    assert len(configs) == len(L.WEIGHT_FORMATS) - len(FULL_ONLY_FORMATS) + \
        len(bb.LINEAR_CORE_F16), \
        "the core set ships the bf16 linear kernel of every format but fp6 / fp5 (and fp8's f16)"
    # the full set's fp6 / fp5 kernels compile too (both activation types)
    configs += [c for c in bb.named_configs("full") if c["options"]["op"] == "linear"
                and c["options"]["format"] in FULL_ONLY_FORMATS]
    assert len(configs) == len(L.WEIGHT_FORMATS) + len(FULL_ONLY_FORMATS) + \
        len(bb.LINEAR_CORE_F16)
    for c in configs:
        r, info = compile_config(c, fpxc_bin, tmp_path)
        assert info is not None, r.stderr
        wf = L.WEIGHT_FORMATS[c["options"]["format"]]

        def shapes(k):
            s = [[1, k], [4096, k * wf.bits // 8],
                 [4096, 1 if wf.block[1] == 0 else k // wf.block[1]]]
            return s + [[]] if wf.global_scale else s
        ok, why = info.accepts(c["name"], shapes(4096))
        assert ok, why
        assert not info.accepts(c["name"], shapes(4000))[0]
        if wf.global_scale:
            assert "global_scale" in (tmp_path / f"{c['name']}.mlir").read_text()


# --- GPU -------------------------------------------------------------------------------------

def _has_linear_kernel(fmt, word="bf16"):
    from fpxc import bundle
    return any(e.options.get("op") == "linear" and e.options["format"] == fmt
               and e.options["input_dtype"] == word for e in bundle.entries())


def _need_kernel(fmt):
    """Skips (visibly) a kernel-path test of a full-set-only format when no
    full bundle (FPX_KERNEL_DIR) is there."""
    if fmt in FULL_ONLY_FORMATS and not _has_linear_kernel(fmt):
        pytest.skip(f"no {fmt} linear kernel: the full bundle (build_bundle.py, "
                    "FPX_KERNEL_DIR) has them")


def _no_fallback():
    """A fallback warning becomes an error (and one already given, which
    the package would not repeat, is forgotten)."""
    from fpxc import ops
    ops._warned.difference_update({w for w in ops._warned if w[0] == "linear"})
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.filterwarnings("error", message="fpx: no prebuilt kernel")
    return ctx


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ALL_FORMATS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("n,k", [(256, 512), (4096, 4096), (300, 200)])
def test_gpu_linear_matches_the_fp32_matmul(fmt, dtype, n, k):
    from fpxc import bundle
    assert fmt in FULL_ONLY_FORMATS or \
        any(e.options.get("op") == "linear" and e.options["format"] == fmt
            for e in bundle.entries()), "the package's bundle has no linear kernels"
    word = {torch.bfloat16: "bf16", torch.float16: "f16"}[dtype]
    has_kernel = _has_linear_kernel(fmt, word)
    # the core bundle: every format's bf16 kernel but fp6 / fp5's, fp8's f16
    # ones (a full bundle through FPX_KERNEL_DIR has them all)
    assert has_kernel or (word == "f16" and fmt in BLOCK_FORMATS) or \
        fmt in FULL_ONLY_FORMATS, (fmt, word)
    g = torch.Generator(device="cuda").manual_seed(n + k)
    w = torch.randn(n, k, device="cuda", generator=g)
    b = torch.randn(n, device="cuda", generator=g)
    p = fpxc.quantize_weight(w, format=fmt)
    wd = p.dequantize()
    # the packed weight's values are the CPU reference's, bit for bit
    assert torch.equal(wd.cpu(), fpxc.quantize_weight(w.cpu(), format=fmt).dequantize())
    if has_kernel:
        ctx = _no_fallback()
    else:  # the fallback, with its warning naming the missing kernel
        from fpxc import ops
        ops._warned.difference_update({w for w in ops._warned if w[0] == "linear"})
        ctx = warnings.catch_warnings(record=True)
        caught = ctx.__enter__()
        warnings.simplefilter("always")
    try:
        for m in (1, 3, 16, 17, 64, 100):
            x = torch.randn(m, k, device="cuda", generator=g).to(dtype)
            for bias in (None, b):
                y = fpxc.linear(x, p, bias)
                ref = x.float() @ wd.T + (0 if bias is None else bias)
                assert y.dtype == dtype and y.shape == (m, n)
                assert rel(y, ref) <= 1e-2, (m, bias is not None)
        x3 = torch.randn(2, 3, k, device="cuda", generator=g).to(dtype)
        assert rel(fpxc.linear(x3, p, b), x3.float() @ wd.T + b) <= 1e-2
    finally:
        ctx.__exit__(None, None, None)
    if not has_kernel:
        msgs = [str(w.message) for w in caught]
        assert any(f"no bundled {fmt} x {word} kernel" in m for m in msgs), msgs


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_gpu_linear_compile_and_cuda_graphs(fmt):
    torch._dynamo.reset()  # (one compile per format of the same lambda: no recompile limit)
    _need_kernel(fmt)
    p = fpxc.quantize_weight(torch.randn(4096, 4096, device="cuda"), format=fmt)
    b = torch.randn(4096, device="cuda")
    x = torch.randn(16, 4096, device="cuda", dtype=torch.bfloat16)
    ctx = _no_fallback()
    try:
        eager = fpxc.linear(x, p, b)
        f = torch.compile(lambda t: fpxc.linear(t, p, b), fullgraph=True)
        assert torch.equal(f(x), eager), "the kernel is deterministic (split-K in order)"
        static_x = x.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fpxc.linear(static_x, p, b)  # warm-up: the module loads, the plan is made
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_y = fpxc.linear(static_x, p, b)
        for _ in range(3):
            new = torch.randn_like(static_x)
            static_x.copy_(new)
            graph.replay()
            torch.cuda.synchronize()
            assert torch.equal(static_y, fpxc.linear(new, p, b))
    finally:
        ctx.__exit__(None, None, None)


@pytest.mark.gpu
def test_gpu_linear_takes_the_cpp_plan(monkeypatch):
    """fpxc.linear without a bias: a signature's first CUDA call leaves a plan
    in the C++ kernel of torch.ops.fpxc.linear; later calls (eager, 2-D and
    3-D x, and inside torch.compile) give the same bits without running the
    Python implementation; a call that records gradients still gets them."""
    from fpxc import _fpx
    lin = sys.modules["fpxc.linear"]  # (the module: fpxc.linear is the function)
    p = fpxc.quantize_weight(torch.randn(256, 512, device="cuda"), format="fp8_e4m3")
    ctx = _no_fallback()
    try:
        for shape in ((5, 512), (2, 3, 512)):
            x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
            before = _fpx._plan_count()
            first = fpxc.linear(x, p)
            assert _fpx._plan_count() == before + 1, "the first call left a plan"
            calls = []
            real = lin._linear_kernel
            monkeypatch.setattr(lin, "_linear_kernel", lambda *a, **k: (
                calls.append(1), real(*a, **k))[1])
            f = torch.compile(lambda t: fpxc.linear(t, p), fullgraph=True)
            f(x)  # (traced: fake tensors only)
            calls.clear()
            assert torch.equal(fpxc.linear(x, p), first)
            assert torch.equal(f(x), first)
            assert not calls, "a cached call ran the Python implementation"
            monkeypatch.setattr(lin, "_linear_kernel", real)
        xg = torch.randn(4, 512, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        y = fpxc.linear(xg, p)
        y.float().sum().backward()
        want = torch.ones(4, 256, device="cuda") @ p.dequantize()
        assert rel(xg.grad.float(), want) <= 1e-2
    finally:
        ctx.__exit__(None, None, None)


@pytest.mark.gpu
def test_gpu_linear_without_a_kernel_warns_and_runs():
    p = fpxc.quantize_weight(torch.randn(128, 256, device="cuda"))
    x = torch.randn(2, 256, device="cuda")  # float32 activations: no kernel
    with pytest.warns(RuntimeWarning, match="no prebuilt kernel for linear"):
        y = fpxc.linear(x, p)
    assert rel(y, x @ p.dequantize().T) <= 1e-5


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_gpu_swap_linear_and_state_dict(fmt):
    _need_kernel(fmt)
    torch.manual_seed(0)
    model = torch.nn.Sequential(Block(), Block()).cuda().to(torch.bfloat16)
    x = torch.randn(1, 4, 256, device="cuda", dtype=torch.bfloat16)
    want = model(x).float()
    fpxc.nn.swap_linear_(model, format=fmt)
    ctx = _no_fallback()
    try:
        got = model(x)
    finally:
        ctx.__exit__(None, None, None)
    assert rel(got, want) <= (5e-2 if "fp8" in fmt else 0.2)
    sd = _roundtrip({k: v.cpu() if torch.is_tensor(v) else v
                    for k, v in model.state_dict().items()})
    fresh = fpxc.nn.Linear(256, 512, format=fmt, dtype=torch.bfloat16)
    fresh.load_state_dict({k[len("0.up."):]: v for k, v in sd.items() if k.startswith("0.up.")})
    fresh = fresh.cuda()
    assert torch.equal(fresh(x), model[0].up(x))


def decode_benchmark():
    """bench/gemm/decode.py as a module."""
    path = ROOT / "bench/gemm/decode.py"
    if not path.is_file():
        pytest.skip(f"no {path} (the package's tests run outside the repository)")
    spec = importlib.util.spec_from_file_location("bench_gemm_decode", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("flags", [[], ["--no-fused"]])
def test_the_decode_benchmark_dry_run(capsys, flags):
    """bench/gemm/decode.py --dry-run: the whole flow on the CPU (tiny dims),
    with the merged projections (the default) and the separate ones."""
    assert decode_benchmark().main(["--dry-run"] + flags) == 0
    out = capsys.readouterr().out
    assert "ratio 1.9" in out and "eager" in out, out
    assert "compile off" in out, out
    if flags:
        assert "fused off" in out and "q_proj 256->256, k_proj 256->128" in out, out
    else:
        assert "fused on" in out and "qkv_proj 256->512" in out, out
        assert "gate_up_proj 256->1024" in out, out
    err = float(out.split("fp8_e4m3 weights): rel ")[1].split()[0])
    assert err < 0.1, out


DECODE_DIMS = dict(hidden=256, intermediate=512, heads=4, kv_heads=2, head_dim=64)


def test_the_decode_benchmark_fused_layer_is_the_separate_layer():
    """decode.py's merged q/k/v and gate/up projections, given the separate
    projections' weights stacked, compute the separate layer's output and
    KV-cache write (bit for bit: the same products in fp32)."""
    mod = decode_benchmark()
    torch.manual_seed(0)
    sep = mod.Layer(context=16, fused=False, **DECODE_DIMS)
    fused = mod.Layer(context=16, fused=True, **DECODE_DIMS)
    with torch.no_grad():
        fused.qkv_proj.weight.copy_(torch.cat([sep.q_proj.weight, sep.k_proj.weight,
                                               sep.v_proj.weight]))
        fused.gate_up_proj.weight.copy_(torch.cat([sep.gate_proj.weight, sep.up_proj.weight]))
        fused.o_proj.weight.copy_(sep.o_proj.weight)
        fused.down_proj.weight.copy_(sep.down_proj.weight)
        fused.k_cache.copy_(sep.k_cache)
        fused.v_cache.copy_(sep.v_cache)
        before = sep.k_cache.clone()
        x, pos = torch.randn(1, 1, 256), torch.tensor([19])  # slot 3
        want, got = sep(x, pos), fused(x, pos)
    assert torch.equal(got, want)
    assert torch.equal(fused.k_cache, sep.k_cache) and torch.equal(fused.v_cache, sep.v_cache)
    # (and the write happened: slot 3 of the cache only)
    changed = (sep.k_cache != before).any(-1).flatten(0, 1).any(0)
    assert changed.nonzero().flatten().tolist() == [3]


def test_the_decode_benchmark_step_compiles_whole_after_the_swap():
    """decode.py's --compile: a fused layer with its linears swapped to fpxc
    traces as one graph (fullgraph=True; fpxc.linear a custom op, the
    KV-cache write a buffer mutation) and computes what the module does."""
    mod = decode_benchmark()
    torch.manual_seed(0)
    layers = [mod.Layer(context=16, fused=True, **DECODE_DIMS).to(torch.bfloat16)
              for _ in range(2)]
    layers[1].load_state_dict(layers[0].state_dict())
    for layer in layers:
        fpxc.nn.swap_linear_(layer, format="fp8_e4m3")
    assert isinstance(layers[0].qkv_proj, fpxc.nn.Linear)
    torch._dynamo.reset()
    step = torch.compile(layers[1], fullgraph=True, backend="aot_eager")
    x, pos = torch.randn(1, 1, 256, dtype=torch.bfloat16), torch.tensor([5])
    with torch.inference_mode():
        want, got = layers[0](x, pos), step(x, pos)
    assert torch.equal(got, want)
    assert torch.equal(layers[1].k_cache, layers[0].k_cache)
    assert torch.equal(layers[1].v_cache, layers[0].v_cache)


class FakeLinearKernel:
    """A stand-in for a bundled linear kernel on the CPU: the artifact's
    contract (x (M, K), codes (N, K * bits / 8) in mma_tiles, scales (N, 1)
    or (N, K / block) row-major, NVFP4's rank-0 g; N % 128, K % 256)
    checked, y = x @ dequantize(w)^T computed from the pointers."""

    def __init__(self, fmt, act_word):
        self.fmt = fmt
        self.calls = []
        self.fn = self._fn = self  # (BundledKernel.fn, KernelFunction._fn: one object)
        w_word = {"fp8_e4m3": "f8e4m3fn", "fp8_e5m2": "f8e5m2", "mxfp8_e4m3": "f8e4m3fn",
                  "mxfp8_e5m2": "f8e5m2"}.get(fmt.name, "i8")
        s_word = {"f32": "f32", "e8m0": "f8e8m0fnu", "ue4m3": "f8e4m3fn"}[fmt.scale_word]
        self.inputs = [("arg0", act_word), ("arg1", w_word), ("arg2", s_word)]
        if fmt.global_scale:
            self.inputs.append(("arg3", "f32"))
        self.outputs = [("result0", act_word)]

    def accepts(self, x, w, s, *g):
        f = self.fmt
        cols = 1 if f.block[1] == 0 else x[1] // f.block[1]
        ok = (x[1] * f.bits // 8 == w[1] and s == (w[0], cols) and w[0] % 128 == 0
              and x[1] % 256 == 0 and len(g) == len(self.inputs) - 3
              and all(t == () for t in g))
        return ok, "" if ok else f"refused {x} {w} {s} {g}"

    def output_shapes(self, x, w, s, *g):
        return [(x[0], w[0])]

    def launch(self, stream, ins, outs, scalars):
        import ctypes
        self.calls.append([tuple(r[2]) for r in ins])
        dt = {"bf16": torch.bfloat16, "f16": torch.float16}[self.inputs[0][1]]

        def read(ref, dtype):
            t = torch.empty(ref[2], dtype=dtype)
            ctypes.memmove(t.data_ptr(), ref[0], t.numel() * t.element_size())
            return t
        x, codes = read(ins[0], dt), read(ins[1], torch.uint8)
        s = read(ins[2], self.fmt.scale_dtype)
        g = read(ins[3], torch.float32) if len(ins) > 3 else None
        w = self.fmt.decode(L.unpack_mma_tiles(codes, self.fmt.bits), s, g)
        y = (x.float() @ w.T).to(dt)
        ctypes.memmove(outs[0][0], y.data_ptr(), y.numel() * y.element_size())


@pytest.mark.parametrize("fmt", ALL_FORMATS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("n,k,m", [(256, 512, 1), (300, 200, 3), (128, 4096, 17)])
def test_kernel_path_glue_pads_plans_and_adds_the_bias(fmt, dtype, n, k, m, monkeypatch):
    """_linear_kernel's padding of x along K, the cut of y to N, the plan
    cache and the bias add, with a stand-in kernel on the CPU: the result is
    the reference path's."""
    wf = L.WEIGHT_FORMATS[fmt]
    word = {torch.bfloat16: "bf16", torch.float16: "f16"}[dtype]
    fake = FakeLinearKernel(wf, word)
    found = []

    def find(options, device):
        found.append(options)
        return fake
    monkeypatch.setattr(L.bundle, "find", find)
    monkeypatch.setattr(L.ops, "_raw_stream", lambda device: 0)
    monkeypatch.setattr(L, "_plans", {})
    g = torch.Generator().manual_seed(m)
    p = fpxc.quantize_weight(torch.randn(n, k, generator=g), format=fmt)
    b = torch.randn(n, generator=g)
    x = torch.randn(m, k, generator=g).to(dtype)
    gs = p.global_scale
    for bias in (None, b, None):
        y, why = L._linear_kernel(x, p.codes, p.scales, bias, wf, n, k, gs)
        assert why == "" and y is not None
        want = L._reference(x, p.codes, p.scales, bias, wf, n, k, gs)
        assert y.shape == (m, n) and y.dtype == dtype and y.is_contiguous()
        if bias is None:
            assert torch.equal(y, want)
        else:  # the kernel's y rounded, then the bias added in x's dtype
            assert rel(y, want) <= 1e-2
    assert found == [L.bundle_options(wf, word)], "one lookup: the plan is cached"
    kp, np_ = -(-k // 256) * 256, -(-n // 128) * 128
    call = [(m, kp), (np_, kp * wf.bits // 8),
            (np_, 1 if wf.block[1] == 0 else kp // wf.block[1])] + ([()] if gs is not None else [])
    assert fake.calls == [call] * 3
    # fpxc.linear's eager fast path: a checked signature's plan, no re-checks
    # (CPU tensors have no device index: compared with the current device's)
    monkeypatch.setattr(L, "_checked", {})
    monkeypatch.setattr(torch.cuda, "current_device", lambda: None)
    x3 = x.reshape(1, m, k)
    assert L._linear_planned(x3, p, b) is None
    y = L._linear_impl(x3, p.codes, p.scales, b, fmt, n, k, gs)
    L._remember(x3, p, b, y)
    assert len(L._checked) == 1
    again = L._linear_planned(x3, p, b)
    want = L._linear_kernel(x, p.codes, p.scales, b, wf, n, k, gs)[0].view(1, m, n)
    assert again is not None and again.shape == (1, m, n) and torch.equal(again, want)
    assert L._linear_planned(x3, p, None) is None, "another signature: checked first"
