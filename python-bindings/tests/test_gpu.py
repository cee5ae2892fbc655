"""fpx on CUDA tensors (pytest -m gpu; skipped without a GPU).

Every bundled configuration for this device runs its fpxc kernel and must
equal the CPU reference (the numerics core) bit for bit: data, scales and
the NVFP4 global scale, on inputs with infinities, NaN, signed zeros,
subnormals, huge values and all-zero blocks. Then: torch's own float8
casts where torch defines them, several streams, torch.compile.
"""

import math

import pytest
import torch

import fpxc
from fpxc import api, bundle, ops

pytestmark = pytest.mark.gpu

TORCH_IN = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
SHAPES_2D = [(256, 512), (96, 640), (7, 256), (300, 1024)]
SHAPES_3D = [(3, 64, 256), (2, 96, 128), (2, 256, 384)]


def _device_entries():
    """Bundle entries the current device would pick (one per option key)."""
    if not torch.cuda.is_available():
        return []
    targets = bundle._device_targets(torch.device("cuda", torch.cuda.current_device()))
    seen, out = set(), []
    for t in targets:
        for e in bundle.entries():
            key = bundle.options_key(e.options)
            if e.target == t and key not in seen and e.call is not None:
                seen.add(key)
                out.append(e)
    return out


try:
    ALL_ENTRIES = _device_entries()
except Exception:  # collection must not fail on a machine without a GPU
    ALL_ENTRIES = []
ENTRIES = [e for e in ALL_ENTRIES if e.options.get("op") == "quantize"]
DQ_ENTRIES = [e for e in ALL_ENTRIES if e.options.get("op") == "dequantize"]
H_ENTRIES = [e for e in ALL_ENTRIES if e.options.get("op") == "hadamard"]
SW_ENTRIES = [e for e in ALL_ENTRIES if e.options.get("op") == "swizzle"]


@pytest.fixture(autouse=True)
def no_cpu_fallback(monkeypatch):
    """A CUDA call that silently ran the CPU reference would make the
    comparisons vacuous: make the fallback an error."""
    def fail(what):
        raise AssertionError(f"fell back to the CPU reference: {what}")
    monkeypatch.setattr(ops, "_warn_fallback", fail)


def special_input(shape, dtype, seed, nan=True, inf=True):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g)
    # Rows spread over many binades.
    x = x * torch.exp2(torch.randint(-30, 30, tuple(shape[:-1]) + (1,), generator=g).float())
    flat = x.view(-1)
    n = flat.numel()
    specials = torch.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0, 1e-40, -3e-42, 448.0,
                             -57344.0, 3.0e38, -2.0 ** -133, 6.0, 2.0 ** -149, 65504.0])
    idx = torch.randperm(n, generator=g)[: max(n // 64, len(specials))]
    flat[idx] = specials[torch.arange(len(idx)) % len(specials)]
    x[..., 0, : min(64, shape[-1])] = 0.0           # an all-zero row block
    x[..., : min(32, shape[-2]), -1] = 0.0          # an all-zero column block
    x[..., -1, : min(32, shape[-1])] = 1e-39        # a block of subnormals
    if not nan:
        x = torch.where(x.isnan(), torch.ones_like(x), x)
    if not inf:
        x = torch.where(x.isinf(), torch.full_like(x, -3.0), x)
    return x.to(dtype)


def bits(t):
    """The elements' bit patterns in logical order (as integers)."""
    flat = t.contiguous().reshape(-1)
    word = {1: torch.uint8, 2: torch.int16, 4: torch.int32}[t.element_size()]
    return flat.view(word).reshape(t.shape)


def assert_same(got, want, what):
    assert got.device.type == "cuda", what
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.stride() == want.stride(), f"{what}: strides {got.stride()} != {want.stride()}"
    g, w = bits(got).cpu(), bits(want.cpu())
    bad = (g != w).nonzero()
    assert bad.numel() == 0, (f"{what}: {bad.shape[0]} of {g.numel()} elements differ, first at "
                              f"{bad[0].tolist()}: got {g[tuple(bad[0])]} want {w[tuple(bad[0])]}")


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.function)
def test_bundled_kernel_equals_the_cpu_reference(entry, monkeypatch):
    o, call = entry.options, entry.call
    dtype = TORCH_IN[o["input_dtype"]]
    tensor_amax = o["block"] == [0, 0] or o.get("global_scale", False)
    dev = torch.device("cuda")
    ran = 0
    given = o.get("amax_given", False)
    tensor_amax_of = ops.tensor_amax  # (the fused casts must not call it: below)
    shapes = SHAPES_3D if o["rank"] == 3 else SHAPES_2D
    for i, shape in enumerate(shapes + shapes[-1:] if given else shapes):
        # An inf inside a Hadamard block makes the whole block NaN (inf - inf)
        # and, through the tensor amax, the whole tensor; a NaN makes a
        # computed tensor amax NaN. With a given amax: finite values within
        # 2^40 (f16: its max; the given amax, 1.5 times theirs, then scales
        # every block usefully, and the returned amax is finite), and for the
        # last shape again with one NaN in the first matrix (its blocks and
        # its amax NaN, the others' finite).
        x = special_input(shape, dtype, seed=i + 1, nan=not tensor_amax and not given,
                          inf=not (tensor_amax and o.get("hadamard")) and not given)
        if given:
            lim = min(2.0 ** 40, torch.finfo(x.dtype).max)
            x = x.clamp(-lim, lim)
            if i == len(shapes):
                x[(0, 1, 5) if x.dim() == 3 else (1, 5)] = float("nan")
        s = ops.scheme(call["format"])
        br, bc = api._block(tuple(call["block"]), s.block)
        s, kind, rule, packing = ops._resolve(call["format"], br, bc, "", call.get("rule"),
                                              call["rounding"], call["scale_layout"],
                                              call.get("packing", "auto"))
        per_matrix = o.get("amax_per_matrix", False)
        ra = o.get("amax_out", False)  # the cast returning this input's amax too
        got = ops._bundle_options(x, s, kind, rule, call["rounding"], packing, br, bc,
                                  call["scale_layout"], call.get("global_scale", True),
                                  call.get("hadamard", 0), call.get("hadamard_seed", 0), given,
                                  per_matrix, ra)
        assert got is not None and got[0] == o
        kernel = bundle.find(o, dev)
        assert kernel is not None and kernel.entry.path == entry.path
        if not kernel.accepts(tuple(got[1].shape), *([(shape[0],)] if per_matrix else [])):
            continue
        ran += 1
        kw = dict(call, block=tuple(call["block"]), seed=1234 + i)
        kw.pop("return_amax", None)
        # A given amax (delayed scaling): 1.5 times the tensor's (its NaNs
        # left out), so that g is not the computed one and no block reaches
        # 6 g; per matrix, each matrix's.
        mag = x.float().abs()
        mag = torch.where(mag.isnan(), torch.zeros_like(mag), mag)
        amax = None
        if per_matrix:
            amax = mag.amax(dim=(1, 2)) * 1.5
        elif given:
            amax = (mag.max() * 1.5).reshape(())
        want = fpxc.quantize(x, **kw, amax=amax)
        xd, ad = x.to(dev), None if amax is None else amax.to(dev)
        if ra:  # the bundled kernel itself (the package falls back to a separate amax)
            fused = ops.quantize_recording_amax(
                xd, call["format"], br, bc, "", call.get("rule", ""), call["rounding"],
                call["scale_layout"], call.get("packing", "auto"), 1234 + i, True,
                call.get("hadamard", 0), call.get("hadamard_seed", 0), ad)
            assert fused is not None, f"{entry.function}: no fused cast ran"
            want_amax = tensor_amax_of(x, call.get("hadamard", 0), call.get("hadamard_seed", 0),
                                       per_matrix=per_matrix)
            assert want_amax.isnan().any() == (i == len(shapes)), want_amax
            assert_same(fused[3], want_amax, f"{entry.function} {tuple(shape)} amax")

            def separate(*args, **kwargs):
                raise AssertionError("return_amax reduced the amax apart, not in the cast")
            monkeypatch.setattr(ops, "tensor_amax", separate)
        # The first call resolves and checks, the second runs the cached plan.
        for call_no in range(2):
            have = fpxc.quantize(xd, **kw, amax=ad, return_amax=ra)
            where = f"{entry.function} {tuple(shape)} call {call_no + 1}"
            if ra:
                have, have_amax = have
                assert_same(have_amax, want_amax, f"{where} amax")
            assert_same(have.data, want.data, f"{where} data")
            assert_same(have.scales, want.scales, f"{where} scales")
            if want.global_scale is not None:
                assert_same(have.global_scale, want.global_scale, f"{where} global_scale")
    assert ran, f"no test shape satisfies {entry.function}'s preconditions"


def test_the_device_has_bundled_kernels():
    assert ENTRIES, f"no bundled kernels for this device ({bundle.kernel_dirs()})"
    assert DQ_ENTRIES and H_ENTRIES, "no dequantize / hadamard kernels for this device"
    assert any(e.options.get("hadamard") for e in ENTRIES)
    assert any(e.options["block"][0] > 1 and e.options["block"][1] > 1 for e in ENTRIES)


def assert_same_values(got, want, what):
    """Bit equality, except that a NaN need only meet a NaN (the kernels
    return the GPU's canonical NaN, torch's casts their own payloads)."""
    assert got.device.type == "cuda", what
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.stride() == want.stride(), f"{what}: strides {got.stride()} != {want.stride()}"
    g, w = got.cpu(), want.cpu()
    gn, wn = g.isnan(), w.isnan()
    assert torch.equal(gn, wn), f"{what}: NaN at {(gn != wn).nonzero()[0].tolist()} differs"
    gb, wb = bits(g)[~wn], bits(w)[~wn]
    bad = (gb != wb).nonzero()
    assert bad.numel() == 0, (f"{what}: {bad.shape[0]} of {gb.numel()} values differ, first "
                              f"got {g[~wn][bad[0]].item()!r} want {w[~wn][bad[0]].item()!r}")


DQ_TORCH = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
DQ_SHAPES_2D = [(256, 512), (96, 640), (7, 256), (300, 1024), (2, 128, 256)]


def dq_inputs(call, shape, seed):
    """CPU codes and scales for a dequantize call: a quantize of special
    inputs, then random codes and scale codes in place of some (every code,
    NaN/inf codes, e8m0 extremes), and inf/NaN/0/subnormal fp32 scales."""
    fmt, block = call["format"], tuple(call["block"])
    kw = {"format": fmt, "block": tuple(None if b == 0 else b for b in block),
          "scale_layout": call["scale_layout"]}
    for k in ("packing", "global_scale"):
        if k in call:
            kw[k] = call[k]
    tensor_scale = call.get("global_scale", False) or block == (0, 0)
    x = special_input(shape, torch.float32, seed, nan=not tensor_scale, inf=not tensor_scale)
    q = fpxc.quantize(x, **kw)
    g = torch.Generator().manual_seed(seed + 100)
    s = ops.scheme(fmt)
    data = q.data.contiguous().view(torch.uint8).clone()
    pick = torch.rand(data.shape, generator=g) < 1 / 13
    rnd = torch.randint(0, 256, data.shape, generator=g, dtype=torch.uint8)
    packing = call.get("packing", "auto")
    if s.bits < 8 and packing == "bytes":
        rnd &= (1 << s.bits) - 1
    data[pick] = rnd[pick]
    data = data.view(q.data.dtype)
    scales = q.scales.contiguous()
    if scales.element_size() == 1:
        sc = scales.view(torch.uint8).clone()
        pick = torch.rand(sc.shape, generator=g) < 1 / 11
        sc[pick] = torch.randint(0, 256, sc.shape, generator=g, dtype=torch.uint8)[pick]
        flat = sc.view(-1)
        flat[: min(4, flat.numel())] = torch.tensor([0, 255, 254, 127], dtype=torch.uint8)[
            : min(4, flat.numel())]
        scales = sc.view(scales.dtype)
    else:
        scales = scales.clone()
        flat = scales.view(-1)
        if flat.numel() >= 8 and not tensor_scale:
            flat[:5] = torch.tensor([math.inf, math.nan, 0.0, 1e-40, -2.0])
        if "scale_dtype" in call:
            scales = scales.to(DQ_TORCH[call["scale_dtype"]])
    return data, scales, (q.global_scale if call.get("global_scale") else None)


@pytest.mark.parametrize("entry", DQ_ENTRIES, ids=lambda e: e.function)
def test_bundled_dequantize_equals_the_cpu_reference(entry):
    o, call = entry.options, entry.call
    shapes = SHAPES_3D if o["rank"] == 3 else DQ_SHAPES_2D
    per_matrix = o.get("global_per_matrix", False)
    if call.get("global_scale") and not per_matrix:
        shapes = [sh for sh in shapes if len(sh) == 2]  # one g per matrix: not this kernel
    if o["block"] == [0, 0] and o["rank"] == 2:
        shapes = [sh for sh in shapes if len(sh) == 2]
    kw = {"format": call["format"], "block": tuple(call["block"]),
          "scale_layout": call["scale_layout"], "dtype": DQ_TORCH[call["dtype"]]}
    if "packing" in call:
        kw["packing"] = call["packing"]
    ran = 0
    for i, shape in enumerate(shapes):
        if o["scale_layout"] == "blocked" and len(shape) == 3 and shape[1] % 128:
            continue
        if call["format"].startswith("mxfp6") and shape[-1] % 4:
            continue
        data, scales, gs = dq_inputs(call, shape, seed=i + 1)
        want = fpxc.dequantize(data, scales, global_scale=gs, **kw)
        kernel_ok = True
        s, kind, packing, br, bc = None, None, None, None, None
        s = ops.scheme(call["format"])
        br, bc = api._block(kw["block"], s.block)
        s, kind, _, packing = ops._resolve(call["format"], br, bc, "", None, "rn",
                                           call["scale_layout"], kw.get("packing", "auto"))
        got = ops._dequantize_options(data.cuda(), scales.cuda(),
                                      None if gs is None else gs.cuda(), s, kind, packing, br,
                                      bc, call["scale_layout"], 0, kw["dtype"], per_matrix)
        assert got is not None and got[0] == o, (shape, got and got[0])
        kernel = bundle.find(o, torch.device("cuda"))
        assert kernel is not None and kernel.entry.path == entry.path
        kernel_ok = kernel.accepts(*[t.shape for t in got[1]])
        if not kernel_ok:
            continue
        ran += 1
        dd, sd, gd = data.cuda(), scales.cuda(), None if gs is None else gs.cuda()
        # The first call resolves and checks, the second runs the cached plan.
        for call_no in (1, 2):
            have = fpxc.dequantize(dd, sd, global_scale=gd, **kw)
            assert_same_values(have, want, f"{entry.function} {shape} call {call_no}")
    assert ran, f"no test shape satisfies {entry.function}'s preconditions"


def test_dequantize_nvfp4_any_global_scale():
    """The kernel takes g itself: any global scale (one a quantize made, or
    one set by hand that no amax gives) runs on the device and equals the
    reference."""
    x = special_input((128, 256), torch.float32, seed=8, nan=False, inf=False)
    q = fpxc.quantize(x, format="nvfp4")
    for g in (q.global_scale, torch.tensor(0.3), torch.tensor(1.0), torch.tensor(7.77e-3),
              torch.tensor(2.0 ** -149), torch.tensor(float("nan")), torch.tensor(-0.0)):
        want = fpxc.dequantize(q.data, q.scales, global_scale=g, format="nvfp4",
                              dtype=torch.bfloat16)
        have = fpxc.dequantize(q.data.cuda(), q.scales.cuda(), global_scale=g.cuda(),
                              format="nvfp4", dtype=torch.bfloat16)
        assert_same_values(have, want, f"g={g.item()}")


def test_dequantize_column_blocks():
    x = special_input((256, 128), torch.bfloat16, seed=11)
    q = fpxc.quantize(x, format="mxfp8_e4m3", block=(32, 1), rule="rceil")
    want = fpxc.dequantize(fpxc.QuantizedTensor(q.data.cpu(), q.scales.cpu(), None),
                          format="mxfp8_e4m3", block=(32, 1), dtype=torch.bfloat16)
    qc = fpxc.quantize(x.cuda(), format="mxfp8_e4m3", block=(32, 1), rule="rceil")
    have = fpxc.dequantize(qc, format="mxfp8_e4m3", block=(32, 1), dtype=torch.bfloat16)
    assert_same_values(have, want, "column blocks")


@pytest.mark.parametrize("entry", H_ENTRIES, ids=lambda e: e.function)
def test_bundled_hadamard_equals_the_cpu_reference(entry):
    o = entry.options
    dtype = TORCH_IN[o["input_dtype"]]
    for i, shape in enumerate([(256, 512), (7, 256), (3, 5, 384), (1024,)]):
        if shape[-1] % max(o["block"], 8):
            continue
        x = special_input(shape if len(shape) > 1 else (1,) + shape, dtype, seed=i + 20)
        x = x.reshape(shape)
        want = fpxc.hadamard(x, block=o["block"], seed=o["seed"])
        have = fpxc.hadamard(x.cuda(), block=o["block"], seed=o["seed"])
        assert_same_values(have, want, f"{entry.function} {shape}")


@pytest.mark.parametrize("entry", SW_ENTRIES, ids=lambda e: e.function)
def test_bundled_swizzle_equals_the_cpu_reference(entry):
    """fpx.swizzle_scales on the device (no fallback) equals the CPU's,
    whole matrices and groups of rows (empty groups, a group of 128 rows,
    ragged ends); the grouped result is zero past the last group."""
    g = torch.Generator().manual_seed(7)
    for rows, cols in [(300, 9), (7, 64), (1024, 224), (4096, 4)]:
        s = torch.randint(0, 256, (rows, cols), dtype=torch.uint8, generator=g)
        s = s.view(torch.float8_e8m0fnu)
        ends = None
        if entry.options["groups"]:
            ends = torch.tensor([0, rows // 3, rows // 3, min(rows // 3 + 128, rows), rows],
                                dtype=torch.int32)
        want = fpxc.swizzle_scales(s, ends)
        have = fpxc.swizzle_scales(s.cuda(), None if ends is None else ends.cuda())
        assert have.device.type == "cuda" and have.dtype == want.dtype
        assert_same(have.view(torch.uint8), want.view(torch.uint8), f"{entry.function} {rows}x{cols}")


def test_swizzle_unchecked_ends_that_go_backwards_make_empty_groups():
    """check=False hands the device ends as given: an end below one before
    it makes an empty group, so the result is the CPU's for the running
    maximum of the ends (77 groups: each CTA's warps scan them 32 at a time)."""
    g = torch.Generator().manual_seed(11)
    rows, cols = 3000, 7
    s = torch.randint(0, 256, (rows, cols), dtype=torch.uint8, generator=g)
    ends = torch.randint(0, rows + 1, (77,), generator=g).to(torch.int32)
    ends[-1] = rows
    effective = torch.cummax(ends, 0).values
    assert not torch.equal(effective, ends)  # some do go backwards
    want = fpxc.swizzle_scales(s, effective)
    have = fpxc.swizzle_scales(s.cuda(), ends.cuda(), check=False)
    assert_same(have, want, "unchecked backward ends")


def test_nvfp4_training_recipe_on_cuda():
    """NVFP4 + 16-point RHT + stochastic rounding, then dequantize, all on
    the device (no fallback), equal to the CPU reference."""
    x = special_input((512, 1024), torch.bfloat16, seed=12, nan=False, inf=False)
    kw = dict(format="nvfp4", rounding="rs", seed=99, hadamard=16)
    want = fpxc.quantize(x, **kw)
    have = fpxc.quantize(x.cuda(), **kw)
    assert_same(have.data, want.data, "data")
    assert_same(have.scales, want.scales, "scales")
    assert_same(have.global_scale, want.global_scale, "global_scale")
    assert_same_values(fpxc.dequantize(have, format="nvfp4", dtype=torch.bfloat16),
                       fpxc.dequantize(want, format="nvfp4", dtype=torch.bfloat16), "dequantize")


def test_nvfp4_given_amax_on_cuda(recwarn):
    """Delayed scaling: with amax= the bundled cast alone runs (no amax pass,
    no CPU fallback) and equals the reference for that amax; with the
    tensor's own amax it equals the two-pass cast."""
    x = special_input((512, 1024), torch.bfloat16, seed=21, nan=False, inf=False)
    xd = x.cuda()
    own = xd.float().abs().max()
    for kw in (dict(format="nvfp4"), dict(format="nvfp4", rounding="rs", seed=5, hadamard=16)):
        if kw.get("hadamard"):
            own = ops._hadamard_f32(xd, 16, 0).abs().max().to(xd.device)
        two_pass = fpxc.quantize(xd, **kw)
        same = fpxc.quantize(xd, **kw, amax=own)
        assert_same(same.data, two_pass.data, f"{kw} data")
        assert_same(same.scales, two_pass.scales, f"{kw} scales")
        assert_same(same.global_scale, two_pass.global_scale, f"{kw} global_scale")
        other = own * 3
        have = fpxc.quantize(xd, **kw, amax=other)
        want = fpxc.quantize(x, **kw, amax=other.cpu())
        assert_same(have.data, want.data, f"{kw} data, amax x3")
        assert_same(have.scales, want.scales, f"{kw} scales, amax x3")
        assert_same(have.global_scale, want.global_scale, f"{kw} global_scale, amax x3")
    assert not [w for w in recwarn if "CPU" in str(w.message)], "fell back to the CPU"


def test_given_amax_views_and_empty_batches_on_cuda():
    """A given amax that is a one-element view of a larger tensor (prev[e]
    of a batch's returned amaxes: not 16-byte aligned) serves like a copy,
    with and without return_amax, on the first call and the planned ones;
    a batch of empty matrices casts (its amaxes 0) with and without one."""
    x = special_input((256, 512), torch.bfloat16, seed=23, nan=False, inf=False).cuda()
    buf = torch.tensor([1.0, 2.0, 700.0, 4.0], device="cuda")
    want = fpxc.quantize(x, "nvfp4", amax=buf[2].clone())
    want_amax = ops.tensor_amax(x)
    for call_no in range(2):
        got = fpxc.quantize(x, "nvfp4", amax=buf[2])
        assert_same(got.data, want.data, f"call {call_no + 1} data")
        assert_same(got.scales, want.scales, f"call {call_no + 1} scales")
        assert_same(got.global_scale, want.global_scale, f"call {call_no + 1} global_scale")
        got, a = fpxc.quantize(x, "nvfp4", amax=buf[2], return_amax=True)
        assert_same(got.data, want.data, f"call {call_no + 1} data, return_amax")
        assert_same(a, want_amax, f"call {call_no + 1} returned amax")
    for shape in ((4, 0, 64), (4, 16, 0)):
        e = torch.empty(shape, dtype=torch.bfloat16, device="cuda")
        for kw in (dict(), dict(amax=1.0)):
            q, a = fpxc.quantize(e, "nvfp4", return_amax=True, **kw)
            assert q.data.numel() == 0 and q.data.shape[:2] == shape[:2], (shape, kw)
            assert a.shape == (4,) and torch.equal(a.cpu(), torch.zeros(4)), (shape, kw)
            assert fpxc.quantize(e, "nvfp4", **kw).global_scale.shape[0] == 4, (shape, kw)


def test_new_ops_under_torch_compile_on_cuda():
    def f(x):
        q = fpxc.quantize(x, format="nvfp4", rounding="rs", seed=1, hadamard=16)
        y = fpxc.dequantize(q, format="nvfp4", dtype=torch.bfloat16)
        w = fpxc.quantize(x, format="fp8_e4m3", block=(128, 128))
        v = fpxc.dequantize(fpxc.quantize(x, format="mxfp8_e4m3", rule="rceil"),
                           format="mxfp8_e4m3", dtype=torch.bfloat16)
        return q.data, q.scales, y, w.data, w.scales, v, fpxc.hadamard(x, block=16)

    x = (torch.randn(256, 512, device="cuda") * 3).bfloat16()
    torch._dynamo.reset()
    breaks, reasons = _graph_breaks(f, x)
    assert breaks == 0, reasons
    want = f(x)
    for backend in ("aot_eager", "inductor"):
        torch._dynamo.reset()
        got = torch.compile(f, fullgraph=True, backend=backend)(x)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            assert torch.equal(bits(g), bits(w)), backend


def test_3d_row_blocks_run_as_one_matrix():
    x = special_input((4, 128, 256), torch.bfloat16, seed=5)
    for layout in ("row_major", "blocked"):
        want = fpxc.quantize(x, format="mxfp8_e4m3", rule="rceil", scale_layout=layout)
        have = fpxc.quantize(x.cuda(), format="mxfp8_e4m3", rule="rceil", scale_layout=layout)
        assert_same(have.data, want.data, "data")
        assert_same(have.scales, want.scales, "scales")


def test_unaligned_and_non_contiguous_inputs():
    base = special_input((65, 512), torch.bfloat16, seed=6).cuda()
    x = base[1:]                       # storage offset of 512 elements: aligned
    y = base.view(-1)[3:3 + 64 * 256].view(64, 256)   # 6-byte offset: copied first
    z = special_input((512, 64), torch.bfloat16, seed=7).cuda().t()  # non-contiguous
    for t in (x, y, z):
        want = fpxc.quantize(t.cpu(), format="mxfp8_e4m3", rule="floor")
        have = fpxc.quantize(t, format="mxfp8_e4m3", rule="floor")
        assert_same(have.data, want.data, "data")
        assert_same(have.scales, want.scales, "scales")


def test_planned_calls_equal_the_checked_path(monkeypatch):
    """After a signature's first call, eager calls run its cached plan (no
    dispatch, no re-checks of the options): the same results for new data,
    seeds, amaxes (either sign, bf16) and layouts; arguments the checked path
    refuses are still refused."""
    x = special_input((256, 512), torch.bfloat16, seed=31, nan=False, inf=False)
    xd = x.cuda()
    a = xd.float().abs().max()
    sigs = [dict(format="mxfp8_e4m3"), dict(format="mxfp4", rounding="rs", seed=3),
            dict(format="nvfp4"), dict(format="nvfp4", rounding="rs", seed=9, hadamard=16),
            dict(format="mxfp8_e4m3", block=(32, 1)), dict(format="nvfp4", amax=a)]
    for kw in sigs:
        fpxc.quantize(xd, **kw)  # resolves and caches the plan

    def checked(*args, **kwargs):
        raise AssertionError("took the checked CUDA path")
    monkeypatch.setattr(ops, "_quantize_cuda", checked)  # the CPU reference still runs

    def cpu(kw):
        return {k: (v.cpu() if torch.is_tensor(v) else v) for k, v in kw.items()}

    y = special_input((256, 512), torch.bfloat16, seed=32, nan=False, inf=False)
    yd = y.cuda()
    # New data; then a new seed, a negative amax (its magnitude counts) and a
    # bf16 one (read as fp32).
    cases = [(kw, kw) for kw in sigs] + [
        (dict(format="mxfp4", rounding="rs", seed=4), dict(format="mxfp4", rounding="rs", seed=4)),
        (dict(format="nvfp4", amax=-a * 2), dict(format="nvfp4", amax=a * 2)),
        (dict(format="nvfp4", amax=(a * 2).bfloat16()),
         dict(format="nvfp4", amax=(a * 2).bfloat16().float()))]
    for kw, ref in cases:
        have, want = fpxc.quantize(yd, **kw), fpxc.quantize(y, **cpu(ref))
        for f in ("data", "scales", "global_scale"):
            if getattr(want, f) is not None:
                assert_same(getattr(have, f), getattr(want, f), f"{kw} {f}")
    base = special_input((257, 512), torch.bfloat16, seed=33).cuda()
    for t in (base.view(-1)[3:3 + 256 * 512].view(256, 512),         # 6-byte offset
              special_input((512, 256), torch.bfloat16, seed=34).cuda().t()):
        have, want = fpxc.quantize(t, format="mxfp8_e4m3"), fpxc.quantize(t.cpu(), format="mxfp8_e4m3")
        assert_same(have.data, want.data, "data")
        assert_same(have.scales, want.scales, "scales")
    # What the checked path refuses stays refused on a cached signature.
    with pytest.raises(fpxc.InvalidArgumentError, match="float tensor"):
        fpxc.quantize(xd, format="nvfp4", amax=torch.tensor(3, device="cuda"))
    with pytest.raises(fpxc.InvalidArgumentError, match="is on cpu"):
        fpxc.quantize(xd, format="nvfp4", amax=a.cpu())
    with pytest.raises(fpxc.InvalidArgumentError, match="seed"):
        fpxc.quantize(xd, format="mxfp4", rounding="rs", seed=-1)


@pytest.mark.parametrize("kw", [dict(), dict(scale_layout="blocked"), dict(block=(16, 16)),
                                dict(hadamard=16), dict(amax="per matrix"),
                                dict(amax="one", scale_layout="blocked"),
                                dict(rounding="rs", seed=3),
                                dict(rounding="rs", seed=4, amax="per matrix")],
                         ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()) or "rows")
def test_nvfp4_batches_one_global_scale_per_matrix(kw):
    """A batch of matrices (E, M, K) in NVFP4 with a global scale per
    matrix runs on the device (no fallback): row-major 1x16 in one launch of
    the kernel reading an amax per matrix (rn and rs), the others by the
    matrix kernel per matrix; data, scales and the E global scales equal the
    reference."""
    x = special_input((4, 256, 512), torch.bfloat16, seed=51, nan=False, inf=False)
    x = x * torch.tensor([1.0, 1e4, 1e-4, 0.0]).view(4, 1, 1).to(torch.bfloat16)  # an all-zero matrix
    kw = dict(kw)
    if kw.get("amax") == "per matrix":
        kw["amax"] = x.float().abs().amax(dim=(1, 2)) * 1.5
    elif kw.get("amax") == "one":
        kw["amax"] = x.float().abs().max() * 1.5
    want = fpxc.quantize(x, format="nvfp4", **kw)
    dkw = {k: (v.cuda() if torch.is_tensor(v) else v) for k, v in kw.items()}
    have = fpxc.quantize(x.cuda(), format="nvfp4", **dkw)
    for f in ("data", "scales", "global_scale"):
        assert_same(getattr(have, f), getattr(want, f), f"{kw} {f}")
    # And back: one launch reading g per matrix (row-major scales), else the
    # matrix kernel per matrix, each with its g.
    if "block" not in kw:
        dq = dict(format="nvfp4", scale_layout=kw.get("scale_layout", "row_major"),
                  dtype=torch.bfloat16)
        assert_same_values(fpxc.dequantize(have, **dq), fpxc.dequantize(want, **dq),
                           f"{kw} dequantize")


def test_planned_dequantize_calls_equal_the_reference(monkeypatch):
    """After a signature's first call, eager dequantize calls run its cached
    plan: the same values for new codes, scales and global scales (of
    another value, or bf16), column-major and unaligned codes."""
    x = special_input((256, 512), torch.bfloat16, seed=41, nan=False, inf=False)
    y = special_input((256, 512), torch.bfloat16, seed=42, nan=False, inf=False)
    sigs = [dict(format="mxfp8_e4m3"), dict(format="nvfp4"), dict(format="mxfp4"),
            dict(format="mxfp8_e4m3", block=(32, 1), rule="rceil"), dict(format="fp8_e4m3")]
    qs = [(kw, fpxc.quantize(x, **kw), fpxc.quantize(y, **kw)) for kw in sigs]
    dq = {"dtype": torch.bfloat16}
    for kw, qx, _ in qs:
        qd = qx.to("cuda")
        fpxc.dequantize(qd, format=kw["format"], block=kw.get("block"), **dq)  # caches the plan
        if qd.global_scale is not None:  # a bf16 g is another signature
            fpxc.dequantize(qd.data, qd.scales, global_scale=qd.global_scale.bfloat16(),
                           format=kw["format"], **dq)

    def strided(t):  # the same values, column-major (bytes: float8 copies vary by torch)
        b = t.view(torch.uint8) if t.element_size() == 1 else t
        u = torch.empty(b.shape[::-1], dtype=b.dtype, device="cuda").t()
        u.copy_(b)
        return u.view(t.dtype)

    q0 = qs[0][1]
    fpxc.dequantize(strided(q0.data.cuda()), strided(q0.scales.cuda()),
                    format=qs[0][0]["format"], **dq)  # caches the strided signature

    def checked(*args, **kwargs):
        raise AssertionError("took the checked CUDA path")
    monkeypatch.setattr(ops, "_dequantize_cuda", checked)
    for kw, _, qy in qs:
        f, b = kw["format"], kw.get("block")
        want = fpxc.dequantize(qy, format=f, block=b, **dq)
        have = fpxc.dequantize(qy.to("cuda"),
                              format=f, block=b, **dq)
        assert_same_values(have, want, f"{kw} new data")
        if qy.global_scale is not None:
            for g in (qy.global_scale * 3, qy.global_scale.bfloat16()):
                want = fpxc.dequantize(qy.data, qy.scales, global_scale=g, format=f, **dq)
                have = fpxc.dequantize(qy.data.cuda(), qy.scales.cuda(),
                                      global_scale=g.cuda(), format=f, **dq)
                assert_same_values(have, want, f"{kw} g={g.item()}")
    # Codes and scales both non-contiguous (a signature of its own, cached
    # above): the plan copies both, and each copy must live until the kernel
    # has read it.
    kw, _, qy = qs[0]
    want = fpxc.dequantize(qy, format=kw["format"], **dq)
    have = fpxc.dequantize(strided(qy.data.cuda()), strided(qy.scales.cuda()),
                          format=kw["format"], **dq)
    assert_same_values(have, want, "non-contiguous codes and scales")
    # Codes at a 1-byte offset (the plan copies them to an aligned buffer).
    base = torch.empty(qy.data.numel() + 1, dtype=qy.data.dtype, device="cuda")
    codes = base[1:].view(qy.data.shape)
    codes.copy_(qy.data.cuda())
    want = fpxc.dequantize(qy, format=kw["format"], **dq)
    have = fpxc.dequantize(codes, qy.scales.cuda(), format=kw["format"], **dq)
    assert_same_values(have, want, "unaligned codes")


# --- torch's own casts --------------------------------------------------------

def sat(v, fmax):
    return torch.clamp(v, -fmax, fmax)


@pytest.mark.parametrize("fmt,tdtype,fmax", [("fp8_e4m3", torch.float8_e4m3fn, 448.0),
                                             ("fp8_e5m2", torch.float8_e5m2, 57344.0)])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_per_tensor_fp8_equals_torch_cast(fmt, tdtype, fmax, dtype):
    if dtype == torch.float32 and not any(e.options.get("input_dtype") == "f32" for e in ENTRIES):
        pytest.skip("the bundle has bf16-input casts only (the core set); f32 needs --set full")
    x = (torch.randn(512, 1024, device="cuda") * 7).to(dtype)
    q = fpxc.quantize(x, format=fmt, block=(None, None))
    s = q.scales.reshape(())
    # The scale is amax / max in fp32; the elements are x / s rounded to
    # nearest even and saturated, which is torch's cast of the clamped quotient.
    amax = x.float().abs().max()
    assert torch.equal(s, amax / torch.full_like(amax, fmax))
    want = sat(x.float() / s.expand(x.shape).contiguous(), fmax).to(tdtype)
    assert torch.equal(q.data.view(torch.uint8), want.view(torch.uint8))


def test_fp8_1x128_equals_torch_cast():
    x = (torch.randn(256, 1024, device="cuda") * 3).bfloat16()
    q = fpxc.quantize(x, format="fp8_e4m3", block=(1, 128))
    scale = q.scales.repeat_interleave(128, dim=1).contiguous()
    want = sat(x.float() / scale, 448.0).to(torch.float8_e4m3fn)
    assert torch.equal(q.data.view(torch.uint8), want.view(torch.uint8))


@pytest.mark.parametrize("rows", [128, 384, 2048])
def test_fp8_128x1_equals_torch_cast(rows):
    """128x1 column blocks with fp32 scales (the 1x128 cast of x^T): scale
    amax / 448 of each block of 128 rows of a column, codes torch's own e4m3
    cast of the clamped quotient, returned column-major (one fpxc kernel: its
    blocks are cast as 32-row segments whose maxima meet in shared memory)."""
    x = (torch.randn(rows, 1024, device="cuda") * 3).bfloat16()
    x[:128, 7] = 0  # an all-zero block
    q = fpxc.quantize(x, format="fp8_e4m3", block=(128, 1))
    amax = x.float().abs().reshape(rows // 128, 128, -1).amax(dim=1).mT  # (K, M/128)
    want_s = torch.where(amax == 0, 1.0, amax / torch.full_like(amax, 448.0))
    assert torch.equal(q.scales, want_s)
    scale = q.scales.mT.repeat_interleave(128, dim=0)  # (M, K)
    want = sat(x.float() / scale, 448.0).to(torch.float8_e4m3fn)
    assert q.data.mT.is_contiguous()
    assert torch.equal(q.data.view(torch.uint8), want.view(torch.uint8))


@pytest.mark.parametrize("shape", [(256, 1024), (33, 3072), (33, 8208), (5, 20000),
                                   (3, 65536), (2, 140000), (2, 48, 7168)])
def test_fp8_per_row_equals_torch_cast(shape):
    """One scale a row (block=(1, None), the rowwise recipe): fpxc's kernel
    (no fallback: autouse fixture) against torch's own e4m3 cast of
    x / (row amax / 448), for each of its kernels on sm_90a (a team of 32
    threads; rows staged two a CTA, one a CTA; a long row staged but for
    its last 2048 vectors in registers, and one past the staging budget
    with those, the vectors between read twice) and a batch of matrices
    (one tall matrix)."""
    x = (torch.randn(*shape, device="cuda") * 3).bfloat16()
    q = fpxc.quantize(x, format="fp8_e4m3", block=(1, None))
    amax = x.float().abs().amax(dim=-1, keepdim=True)
    s = amax / torch.full_like(amax, 448.0)  # (a scalar divisor multiplies by 1/448)
    assert torch.equal(q.scales, s)
    want = sat(x.float() / s, 448.0).to(torch.float8_e4m3fn)
    assert torch.equal(q.data.view(torch.uint8), want.view(torch.uint8))


@pytest.mark.parametrize("fmt,tdtype", [("mxfp8_e4m3", torch.float8_e4m3fn),
                                        ("mxfp8_e5m2", torch.float8_e5m2)])
@pytest.mark.parametrize("block", [(1, 32), (32, 1)])
def test_mxfp8_rceil_equals_torch_cast(fmt, tdtype, block):
    # rceil never lets x / 2^e exceed the format's max: each element is
    # torch's RN cast of an exact division by a power of two.
    x = (torch.randn(256, 512, device="cuda") * 3).bfloat16()
    q = fpxc.quantize(x, format=fmt, block=block, rule="rceil")
    e = torch.exp2(q.scales.view(torch.uint8).float() - 127)
    if block == (1, 32):
        scale = e.repeat_interleave(32, dim=1)
        data = q.data
    else:  # scales (K, M/32) of the column blocks; data column-major (M, K)
        scale = e.repeat_interleave(32, dim=1).t()
        data = q.data
    want = (x.float() / scale).to(tdtype)
    assert torch.equal(data.contiguous().view(torch.uint8), want.view(torch.uint8))


# --- streams, devices, torch.compile ---------------------------------------------

def test_several_streams():
    xs = [special_input((512, 1024), torch.bfloat16, seed=10 + i).cuda() for i in range(4)]
    want = [fpxc.quantize(x.cpu(), format="mxfp8_e4m3", rule="rceil", scale_layout="blocked")
            for x in xs]
    streams = [torch.cuda.Stream() for _ in xs]
    outs = [None] * len(xs)
    torch.cuda.synchronize()
    for rep in range(3):
        for i, (x, st) in enumerate(zip(xs, streams)):
            st.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(st):
                outs[i] = fpxc.quantize(x, format="mxfp8_e4m3", rule="rceil",
                                       scale_layout="blocked")
                for t in outs[i][:2]:
                    t.record_stream(st)
        torch.cuda.synchronize()
        for o, w in zip(outs, want):
            assert_same(o.data, w.data, "data")
            assert_same(o.scales, w.scales, "scales")


def test_nvfp4_two_level_on_streams():
    x = special_input((256, 512), torch.bfloat16, seed=3, nan=False).cuda()
    want = fpxc.quantize(x.cpu(), format="nvfp4")
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        have = fpxc.quantize(x, format="nvfp4")
    torch.cuda.synchronize()
    assert_same(have.data, want.data, "data")
    assert_same(have.scales, want.scales, "scales")
    assert_same(have.global_scale, want.global_scale, "global_scale")


def test_errors_name_the_cause():
    with pytest.raises(fpxc.InvalidArgumentError, match="2-D or 3-D"):
        fpxc.quantize(torch.zeros(64, device="cuda"), format="mxfp8_e4m3")
    with pytest.raises(fpxc.InvalidArgumentError, match="float32, bfloat16 or float16"):
        fpxc.quantize(torch.zeros(4, 64, dtype=torch.int32, device="cuda"), format="mxfp8_e4m3")


def _graph_breaks(f, *args):
    explanation = torch._dynamo.explain(f)(*args)
    return explanation.graph_break_count, explanation.break_reasons


def test_torch_compile_fullgraph_on_cuda():
    def f(x):
        a = fpxc.quantize(x * 2, format="mxfp8_e4m3", rule="rceil", scale_layout="blocked")
        b = fpxc.quantize(x, format="nvfp4")
        c = fpxc.quantize(x, format="mxfp8_e4m3", block=(32, 1), rule="rceil")
        return a.data, a.scales, b.data, b.scales, b.global_scale, c.data, c.scales

    x = (torch.randn(256, 512, device="cuda") * 3).bfloat16()
    torch._dynamo.reset()
    breaks, reasons = _graph_breaks(f, x)
    assert breaks == 0, reasons
    want = f(x)
    for backend in ("aot_eager", "inductor"):
        torch._dynamo.reset()
        got = torch.compile(f, fullgraph=True, backend=backend)(x)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype
            assert torch.equal(bits(g), bits(w)), backend


def test_torch_compile_dynamic_shapes():
    def f(x):
        return fpxc.quantize(x, format="mxfp8_e4m3", rule="floor").data

    torch._dynamo.reset()
    g = torch.compile(f, fullgraph=True, dynamic=True, backend="aot_eager")
    for m in (64, 128, 192):
        x = (torch.randn(m, 256, device="cuda") * 3).bfloat16()
        assert torch.equal(g(x).view(torch.uint8), f(x).view(torch.uint8))


def test_fpx_compile_and_call_on_cuda(tmp_path):
    """fpx.load of a bundled artifact called directly (no custom op)."""
    e = next(e for e in ENTRIES if e.options["format"] == "mxfp8_e4m3"
             and e.options["block"] == [1, 32] and e.options["rounding"] == "rn")
    art = fpxc.load(e.path)
    fn = art.functions[e.function]
    x = (torch.randn(128, 256, device="cuda") * 3).to(TORCH_IN[e.options["input_dtype"]])
    q, s = fn(x)
    want = fpxc.quantize(x.cpu(), **dict(e.call, block=tuple(e.call["block"])))
    assert torch.equal(q.cpu().view(torch.uint8), want.data.view(torch.uint8).reshape(q.shape))


# --- the C++ plan cache (issue 37) ------------------------------------------------

def test_cached_plans_give_the_first_calls_results():
    """The first CUDA call of a signature runs in Python and leaves a plan in
    the C++ kernel of the op; later calls launch it from C++: the same bits
    as the first call and as the CPU reference, for every op, on several
    shapes, with a given amax and a stochastic seed per call."""
    from fpxc import _fpx
    _fpx._clear_plans()  # (earlier tests cached these signatures; the Python plans stay)
    x = special_input((256, 512), torch.bfloat16, seed=21, nan=False).cuda()
    calls = [
        lambda t: fpxc.quantize(t, format="mxfp8_e4m3", rule="rceil"),
        lambda t: fpxc.quantize(t, format="nvfp4"),
        lambda t: fpxc.quantize(t, format="nvfp4", amax=torch.tensor(300.0, device=t.device)),
        lambda t: fpxc.quantize(t, format="mxfp8_e4m3", rounding="rs", seed=5),
    ]
    for call in calls:
        before = _fpx._plan_count()
        first = call(x)
        assert _fpx._plan_count() == before + 1, "the first call left a plan"
        again = call(x)
        assert _fpx._plan_count() == before + 1, "the second call used it"
        want = call(x.cpu())
        assert first.scale_layout == again.scale_layout == want.scale_layout
        for a, b, w in zip(first[:3], again[:3], want[:3]):  # (the tensors)
            if w is not None:
                assert_same(a, w, "first")
                assert_same(b, w, "cached")
    q = fpxc.quantize(x, format="mxfp8_e4m3")
    for _ in range(2):
        assert_same_values(fpxc.dequantize(q, format="mxfp8_e4m3", dtype=torch.bfloat16),
                           fpxc.dequantize(q.data.cpu(), q.scales.cpu(), format="mxfp8_e4m3",
                                           dtype=torch.bfloat16), "dequantize")
    # a per-call seed changes the stochastic cast's bits, as in the reference
    a = fpxc.quantize(x, format="mxfp8_e4m3", rounding="rs", seed=6)
    want = fpxc.quantize(x.cpu(), format="mxfp8_e4m3", rounding="rs", seed=6).data
    assert_same(a.data, want, "seed 6")
    assert not torch.equal(bits(want), bits(fpxc.quantize(x.cpu(), format="mxfp8_e4m3",
                                                          rounding="rs", seed=5).data))


def test_swizzle_scales_is_a_planned_op():
    """torch.ops.fpxc.swizzle_scales: a signature's first CUDA call leaves a
    C++ plan, the next ones give the same bits as the CPU layout (with and
    without groups), inside torch.compile(fullgraph=True) too."""
    from fpxc import _fpx
    _fpx._clear_plans()
    gen = torch.Generator().manual_seed(26)
    s = torch.randint(0, 255, (300, 7), dtype=torch.uint8, generator=gen)
    ends = torch.tensor([100, 100, 300], dtype=torch.int32)
    for group_ends in (None, ends):
        want = fpxc.swizzle_scales(s, group_ends)
        g = None if group_ends is None else group_ends.cuda()
        before = _fpx._plan_count()
        first = fpxc.swizzle_scales(s.cuda(), g)
        assert _fpx._plan_count() == before + 1, "the first call left a plan"
        again = fpxc.swizzle_scales(s.cuda(), g)
        assert _fpx._plan_count() == before + 1, "the second call used it"
        assert torch.equal(first.cpu(), want) and torch.equal(again.cpu(), want)
    f = torch.compile(lambda t: fpxc.swizzle_scales(t), fullgraph=True)
    assert torch.equal(f(s.cuda()).cpu(), fpxc.swizzle_scales(s))


def test_cached_plans_keep_the_errors():
    """A call the checks refuse raises fpxc's named exception after its
    signature was cached too (the C++ kernel sends it to Python)."""
    x = torch.randn(64, 64, device="cuda").bfloat16()  # (the core bundle's input type)
    args = (x, "mxfp8_e4m3", 1, 32, "", "", "rn", "row_major", "auto", 0, True, 0, 0, None)
    torch.ops.fpxc.quantize(*args)
    torch.ops.fpxc.quantize(*args)
    with pytest.raises(fpxc.InvalidArgumentError, match="seed"):
        torch.ops.fpxc.quantize(*args[:9], -1, *args[10:])
    with pytest.raises(fpxc.InvalidArgumentError, match="rounding"):
        torch.ops.fpxc.quantize(*args[:6], "nearest", *args[7:])


def test_eager_calls_through_the_op_caller():
    """fpxc.quantize / dequantize on CUDA call the op through an OpCaller
    (the dispatcher from C++): the bits of torch.ops.fpxc.quantize; g = 1 is
    not made for formats without a global scale (None where the op returns
    ones) but NVFP4's is; a TorchFunctionMode and a tensor subclass still
    see the op (torch's __torch_function__ protocol)."""
    x = special_input((128, 256), torch.bfloat16, seed=25, nan=False).cuda()
    args = (x, "mxfp8_e4m3", 1, 32, "", "", "rn", "row_major", "auto", 0, True, 0, 0, None)
    for _ in range(2):  # (the first call leaves the plan)
        q = fpxc.quantize(x, format="mxfp8_e4m3")
        d, s, g = torch.ops.fpxc.quantize(*args)
        assert_same(q.data, d, "data")
        assert_same(q.scales, s, "scales")
        assert q.global_scale is None and torch.equal(g, torch.ones_like(g))
    n = fpxc.quantize(x, format="nvfp4")
    assert_same(n.global_scale, fpxc.quantize(x.cpu(), format="nvfp4").global_scale, "g")

    from torch.overrides import TorchFunctionMode

    class Seen(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.funcs = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.funcs.append(str(func))
            return func(*args, **(kwargs or {}))

    with Seen() as mode:
        q2 = fpxc.quantize(x, format="mxfp8_e4m3")
        y = fpxc.dequantize(q2, format="mxfp8_e4m3", dtype=torch.bfloat16)
    assert any("fpxc.quantize" in f for f in mode.funcs), mode.funcs
    assert any("fpxc.dequantize" in f for f in mode.funcs), mode.funcs
    assert_same(q2.data, q.data, "under a mode")
    assert_same(y, fpxc.dequantize(q, format="mxfp8_e4m3", dtype=torch.bfloat16), "dequantize")

    class Sub(torch.Tensor):
        pass

    q3 = fpxc.quantize(x.as_subclass(Sub), format="mxfp8_e4m3")
    assert_same(q3.data.as_subclass(torch.Tensor), q.data, "subclass")


def test_cuda_graph_capture_and_replay():
    """A cached signature is capturable: quantize and dequantize in a CUDA
    graph, replayed on new contents of the captured input, give the eager
    results."""
    x = special_input((256, 512), torch.bfloat16, seed=22, nan=False).cuda()

    def f(t):
        q = fpxc.quantize(t, format="mxfp8_e4m3", rule="rceil")
        n = fpxc.quantize(t, format="nvfp4")
        return q.data, q.scales, n.data, n.scales, n.global_scale, fpxc.dequantize(
            q, format="mxfp8_e4m3", dtype=torch.bfloat16)

    f(x)  # the plans
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        f(x)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = f(x)
    for seed in (23, 24):
        x.copy_(special_input((256, 512), torch.bfloat16, seed=seed, nan=False).cuda())
        graph.replay()
        torch.cuda.synchronize()
        for got, want in zip(outs, f(x)):
            assert_same(got, want, f"replay {seed}")


def test_compiled_graph_calls_the_cpp_kernel(monkeypatch):
    """Inside torch.compile the op in the graph is the C++ one: a cached
    signature runs no Python implementation (neither the Python plans nor
    the bundle dispatch)."""
    x = torch.randn(128, 256, device="cuda").bfloat16()
    f = torch.compile(lambda t: fpxc.quantize(t, format="mxfp8_e4m3").data, fullgraph=True)
    want = fpxc.quantize(x, format="mxfp8_e4m3").data
    assert torch.equal(f(x).view(torch.uint8), want.view(torch.uint8))
    calls = []
    for name in ("_quantize_cuda", "quantize_planned", "_quantize_cpu"):
        real = getattr(ops, name)
        monkeypatch.setattr(ops, name, lambda *a, real=real, name=name, **k: (
            calls.append(name), real(*a, **k))[1])
    for _ in range(3):
        assert torch.equal(f(x).view(torch.uint8), want.view(torch.uint8))
        assert torch.equal(fpxc.quantize(x, format="mxfp8_e4m3").data.view(torch.uint8),
                           want.view(torch.uint8))
    assert not calls, f"cached calls reached Python: {calls}"


def test_cpp_api_calls_the_same_ops(tmp_path):
    """python-bindings/include/fpxc/TorchOps.h from a C++ extension: the
    dispatcher's fpxc ops, the results of the Python API."""
    import pathlib
    from torch.utils import cpp_extension
    include = pathlib.Path(__file__).resolve().parents[1] / "include"
    mod = cpp_extension.load_inline(
        "fpxc_cpp_api_test", cpp_sources=['''
#include "fpxc/TorchOps.h"
std::vector<at::Tensor> run(const at::Tensor &x) {
  auto [d, s, g] = fpx::torch_ops::quantize(x, "mxfp8_e4m3", 1, 32, "", "rceil");
  at::Tensor y = fpx::torch_ops::dequantize(d, s, std::nullopt, "mxfp8_e4m3", 1, 32, "",
                                            "row_major", "auto", 0, at::kBFloat16);
  return {d, s, y, fpx::torch_ops::hadamard(x, 16, 0, true),
          fpx::torch_ops::swizzleScales(s.view(at::kByte))};
}'''], functions=["run"], extra_include_paths=[str(include)],
        extra_cflags=["-std=c++20"], build_directory=str(tmp_path))
    x = special_input((256, 512), torch.bfloat16, seed=25, nan=False).cuda()
    for _ in range(2):  # the second call: the cached plans
        d, s, y, h, sw = mod.run(x)
        q = fpxc.quantize(x, format="mxfp8_e4m3", rule="rceil")
        assert torch.equal(sw.cpu(), fpxc.swizzle_scales(q.scales.view(torch.uint8).cpu()))
        assert_same(d, q.data, "data")
        assert_same(s, q.scales, "scales")
        assert_same(y, fpxc.dequantize(q, format="mxfp8_e4m3", dtype=torch.bfloat16), "values")
        assert_same(h, fpxc.hadamard(x), "hadamard")
