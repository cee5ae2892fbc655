"""The AOT kernel bundle and column-block semantics, checked without a GPU:
every bundled artifact loads, its options are the dispatch key the API
builds for its `call`, and its output shapes are the fake kernel's."""

import json
import pathlib

import pytest
import torch

import fpx
from fpx import api, bundle, ops

ENTRIES = bundle.entries()
TORCH_IN = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def resolve(call, x):
    """What fpx.quantize(x, **call) hands torch.ops.fpx.quantize, resolved."""
    s = ops.scheme(call["format"])
    br, bc = api._block(tuple(call["block"]), s.block)
    s, kind, rule, packing = ops._resolve(call["format"], br, bc, "", call.get("rule"),
                                          call["rounding"], call["scale_layout"],
                                          call.get("packing", "auto"))
    return s, kind, rule, packing, br, bc


def test_the_package_ships_a_bundle():
    targets = {e.target for e in ENTRIES}
    assert {"sm_90a", "sm_100a"} <= targets
    for t in ("sm_90a", "sm_100a"):
        index = pathlib.Path(fpx.__file__).parent / "kernels" / t / "index.json"
        meta = json.loads(index.read_text())
        assert meta["format"] == "fpx-bundle" and meta["target"] == t and meta["artifacts"]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.target}-{e.function}")
def test_bundled_artifact_serves_its_call(entry):
    o, call = entry.options, entry.call
    assert call is not None
    rank = o["rank"]
    shape = (2, 256, 512) if rank == 3 else (256, 512)
    x = torch.empty(shape, dtype=TORCH_IN[o["input_dtype"]])
    s, kind, rule, packing, br, bc = resolve(call, x)
    got = ops._bundle_options(x, s, kind, rule, call["rounding"], packing, br, bc,
                              call["scale_layout"], call.get("global_scale", True))
    assert got is not None
    options, xin = got
    assert options == o
    # The artifact loads (no GPU needed) and its shape rules are the fake
    # kernel's (data, scales[, amax]).
    art = fpx.load(entry.path)
    fn = art.functions[entry.function]
    kernel = bundle.BundledKernel(entry, fn)
    assert kernel.accepts(tuple(xin.shape))
    assert kernel.has_seed == (o["rounding"] == "rs")
    assert fn.inputs[0][1] == o["input_dtype"]
    shapes = fn.output_shapes(tuple(xin.shape))
    data_shape, data_dtype, scale_shape, scale_dtype, g_shape = ops._quantize_meta(
        list(shape), s, kind, packing, br, bc, call["scale_layout"])

    def numel(sh):
        n = 1
        for d in sh:
            n *= d
        return n

    assert numel(shapes[0]) == numel(data_shape)
    assert numel(shapes[1]) == numel(scale_shape)
    assert list(shapes[0])[-1] == data_shape[-1] and list(shapes[1])[-1] == scale_shape[-1]
    assert len(shapes) == (3 if kind == "nvfp4" and call.get("global_scale", True) else 2)
    sizes = {"f8e4m3fn": 1, "f8e5m2": 1, "u8": 1, "i8": 1, "f8e8m0fnu": 1, "f32": 4}
    assert sizes[fn.outputs[0][1]] == torch.empty(0, dtype=data_dtype).element_size()
    assert sizes[fn.outputs[1][1]] == torch.empty(0, dtype=scale_dtype).element_size()


def test_kernel_preconditions_are_checked_before_launch():
    e = next(e for e in ENTRIES if e.options["block"] == [32, 1] and e.options["rank"] == 2)
    k = bundle.BundledKernel(e, fpx.load(e.path).functions[e.function])
    assert k.accepts((64, 256))
    assert not k.accepts((48, 256))  # rows must be a multiple of the block
    assert not k.accepts((64, 250))
    assert not k.accepts((2, 64, 256))


def test_expression_compiler_refuses_code():
    with pytest.raises(ValueError):
        bundle._compile_expr("__import__('os')")
    f = bundle._compile_expr("cdiv(M*K, 8192) % 7 + min(M, K/2)")
    assert f({"M": 100, "K": 300}) == (-(-30000 // 8192)) % 7 + min(100, 150)


def rand(*shape, dtype=torch.bfloat16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * 3).to(dtype)


@pytest.mark.parametrize("fmt,block", [("mxfp8_e4m3", (32, 1)), ("mxfp8_e5m2", (32, 1)),
                                       ("nvfp4", (16, 1))])
@pytest.mark.parametrize("rounding", ["rn", "rs"])
def test_column_blocks_are_the_transposes_row_blocks(fmt, block, rounding):
    x = rand(96, 64)
    q = fpx.quantize(x, format=fmt, block=block, rounding=rounding, seed=7)
    t = fpx.quantize(x.t().contiguous(), format=fmt, block=(1, block[0]), rounding=rounding,
                     seed=7)
    # data: x's orientation, column-major (data.mT is contiguous), like
    # torchao's dim1 cast; scales: (K, M / block) row-major.
    assert q.data.mT.is_contiguous()
    assert torch.equal(q.data.mT.contiguous().view(torch.uint8), t.data.view(torch.uint8))
    assert torch.equal(q.scales.view(torch.uint8), t.scales.view(torch.uint8))
    assert q.scales.shape == (64, 96 // block[0])
    if fmt != "nvfp4":
        assert q.data.shape == x.shape
    y = fpx.dequantize(q, format=fmt, block=block)
    yt = fpx.dequantize(t, format=fmt, block=(1, block[0]))
    assert y.shape == x.shape and y.is_contiguous()
    assert torch.equal(y, yt.t())


def test_column_blocks_3d_experts():
    x = rand(3, 64, 32)
    q = fpx.quantize(x, format="mxfp8_e4m3", block=(32, 1), rule="rceil")
    assert q.data.shape == (3, 64, 32) and q.scales.shape == (3, 32, 2)
    for e in range(3):
        qe = fpx.quantize(x[e], format="mxfp8_e4m3", block=(32, 1), rule="rceil")
        assert torch.equal(q.data[e].view(torch.uint8), qe.data.view(torch.uint8))
        assert torch.equal(q.scales[e].view(torch.uint8), qe.scales.view(torch.uint8))


def test_column_block_fake_kernel_and_compile():
    x = rand(64, 96)
    torch.library.opcheck(torch.ops.fpx.quantize.default,
                          (x, "mxfp8_e4m3", 32, 1, "", "floor", "rn", "row_major", "auto", 0,
                           True), test_utils=("test_faketensor", "test_aot_dispatch_dynamic"))

    def f(x):
        q = fpx.quantize(x, format="mxfp8_e4m3", block=(32, 1))
        return q.data.view(torch.uint8).float().sum(), q.scales

    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    a, b = compiled(x), f(x)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1].view(torch.uint8), b[1].view(torch.uint8))


class FakeKernel:
    """Stands in for a bundled kernel on CPU tensors: returns what the
    artifact's function returns (raw outputs in its shapes and dtypes, the
    tensor amax for NVFP4 two-level), computed by the reference."""

    def __init__(self, entry, call):
        self.entry, self.call = entry, call
        fn = fpx.load(entry.path).functions[entry.function]
        self.fn = fn
        from fpx import _dtypes
        self.dtypes = [_dtypes.TORCH_DTYPE[w] for _, w in fn.outputs]

    def accepts(self, shape):
        return True

    def __call__(self, x, seed=0):
        shapes = self.fn.output_shapes(tuple(x.shape))
        q = fpx.quantize(x, **dict(self.call, block=tuple(self.call["block"]), seed=seed))
        data = q.data.mT if self.entry.options["block"][1] == 1 else q.data
        outs = [data.contiguous().view(torch.uint8).view(self.dtypes[0]).reshape(shapes[0]),
                q.scales.contiguous().view(self.dtypes[1]).reshape(shapes[1])]
        if len(shapes) > 2:
            outs.append(x.float().abs().max().reshape(shapes[2]))
        return tuple(outs)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.target == "sm_90a"],
                         ids=lambda e: e.function)
def test_dispatch_glue_rebuilds_the_reference_layout(entry, monkeypatch):
    """_quantize_cuda's views, reshapes and global scale, with a stand-in
    kernel: what it returns must be what the CPU path returns."""
    o, call = entry.options, entry.call
    shape = (2, 128, 256) if o["rank"] == 3 else (96, 256)
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(shape, generator=g) * 5).to(TORCH_IN[o["input_dtype"]])
    x.view(-1)[7] = 0.0
    monkeypatch.setattr(bundle, "find", lambda options, device: FakeKernel(entry, call))
    s, kind, rule, packing, br, bc = resolve(call, x)
    got = ops._quantize_cuda(x, s, kind, rule, call["rounding"], packing, br, bc,
                             call["scale_layout"], 5, call.get("global_scale", True))
    want = ops._quantize_cpu(x, s, kind, rule, call["rounding"], packing, br, bc,
                             call["scale_layout"], 5, call.get("global_scale", True))
    assert got is not None
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype and a.stride() == b.stride()
        assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


def test_global_scale_from_amax_matches_the_numerics_core():
    # amax 0 -> 1, ordinary, huge, inf -> FLT_MAX / 2688, underflow -> 2^-149.
    for v in (0.0, 1.0, 3.0, 1e-30, 3.0e38, float("inf"), 1e-44, 2.0 ** -149):
        x = torch.zeros(1, 16)
        x[0, 3] = v
        q = fpx.quantize(x, format="nvfp4")
        g = ops._global_scale_of(torch.tensor(v))
        assert torch.equal(g.view(torch.int32), q.global_scale.view(torch.int32)), v
