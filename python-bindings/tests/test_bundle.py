"""The AOT kernel bundle and column-block semantics, checked without a GPU:
every bundled artifact loads, its options are the dispatch key the API
builds for its `call`, and its output shapes are the fake kernel's."""

import contextlib
import ctypes
import json
import math
import os
import pathlib
import types

import pytest
import torch

import fpxc
from fpxc import api, bundle, ops
from fpxc import _dtypes
from fpxc._native import _fpx

ALL_ENTRIES = bundle.entries()
ENTRIES = [e for e in ALL_ENTRIES if e.options.get("op") == "quantize"]
DQ_ENTRIES = [e for e in ALL_ENTRIES if e.options.get("op") == "dequantize"]
H_ENTRIES = [e for e in ALL_ENTRIES if e.options.get("op") == "hadamard"]
TORCH_IN = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def resolve(call, x):
    """What fpx.quantize(x, **call) hands torch.ops.fpxc.quantize, resolved."""
    s = ops.scheme(call["format"])
    br, bc = api._block(tuple(call["block"]), s.block)
    s, kind, rule, packing = ops._resolve(call["format"], br, bc, "", call.get("rule"),
                                          call["rounding"], call["scale_layout"],
                                          call.get("packing", "auto"))
    return s, kind, rule, packing, br, bc


def test_the_package_ships_a_bundle():
    targets = {e.target for e in ALL_ENTRIES}
    assert {"sm_90a", "sm_100a"} <= targets
    for t in ("sm_90a", "sm_100a"):
        index = pathlib.Path(fpxc.__file__).parent / "kernels" / t / "index.json"
        meta = json.loads(index.read_text())
        assert meta["format"] == "fpx-bundle" and meta["target"] == t and meta["artifacts"]


from builder import load as _builder  # noqa: E402 (build_bundle.py)


def test_the_shipped_bundle_is_what_fpxc_compiles_now():
    """The installed package's bundle (copied from the build, or from a
    source distribution) against this checkout's fpxc: each index records
    the fpxc version and the commit that built it and lists exactly the
    builder's core set, and a sample of its artifacts spread over both
    targets and every op family (all of them with FPX_BUNDLE_CHECK=all)
    are byte for byte what fpxc compiles now."""
    fpxc_bin = os.environ.get("FPX_FPXC")
    if not fpxc_bin or not os.access(fpxc_bin, os.X_OK):
        pytest.skip("needs fpxc (FPX_FPXC): a machine without the compiler cannot recompile")
    kernels = pathlib.Path(fpxc.__file__).parent / "kernels"
    indexes = {i.parent.name: json.loads(i.read_text()) for i in kernels.glob("*/index.json")}
    assert set(indexes) == {"sm_90a", "sm_100a"}
    for meta in indexes.values():
        assert meta["set"] == "core" and meta["fpxc"].startswith("fpxc ") and meta["commit"]
    sample = 0 if os.environ.get("FPX_BUNDLE_CHECK") == "all" else 24
    problems = _builder().check(kernels, fpxc_bin, sample=sample, jobs=os.cpu_count() or 2,
                                log=lambda *_: None)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.target}-{e.function}")
def test_bundled_artifact_serves_its_call(entry):
    o, call = entry.options, entry.call
    assert call is not None
    rank = o["rank"]
    shape = (2, 256, 512) if rank == 3 else (256, 512)
    x = torch.empty(shape, dtype=TORCH_IN[o["input_dtype"]])
    s, kind, rule, packing, br, bc = resolve(call, x)
    given = o.get("amax_given", False)
    per_matrix = o.get("amax_per_matrix", False)
    amax_out = o.get("amax_out", False)
    assert amax_out == call.get("return_amax", False)
    got = ops._bundle_options(x, s, kind, rule, call["rounding"], packing, br, bc,
                              call["scale_layout"], call.get("global_scale", True),
                              call.get("hadamard", 0), call.get("hadamard_seed", 0), given,
                              per_matrix, amax_out)
    assert got is not None
    options, xin = got
    assert options == o
    # The artifact loads (no GPU needed) and its shape rules are the fake
    # kernel's (data, scales[, g]); a per-matrix amax has one value a matrix.
    art = fpxc.load(entry.path)
    fn = art.functions[entry.function]
    kernel = bundle.BundledKernel(entry, fn)
    amax_shape = [(shape[0],)] if per_matrix else [()] if given else []
    assert kernel.accepts(tuple(xin.shape), *amax_shape)
    assert kernel.has_seed == (o["rounding"] == "rs")
    assert fn.inputs[0][1] == o["input_dtype"]
    shapes = fn.output_shapes(tuple(xin.shape), *amax_shape)
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
    # NVFP4 with a global scale (computed or given amax) returns g: a
    # scalar, or one per matrix with an amax per matrix.
    returns_g = kind == "nvfp4" and call.get("global_scale", True)
    assert len(shapes) == (3 if returns_g else 2) + amax_out
    if returns_g:
        assert list(shapes[2]) == list(g_shape) and fn.outputs[2][1] == "f32"
    if amax_out:  # this input's amax, last: a scalar f32, or one per matrix
        assert list(shapes[3]) == ([shape[0]] if per_matrix else []) and fn.outputs[3][1] == "f32"
    # A given amax is the second input: a scalar f32.
    assert [w for _, w in fn.inputs] == [o["input_dtype"]] + (["f32"] if given else [])
    sizes = {"f8e4m3fn": 1, "f8e5m2": 1, "u8": 1, "i8": 1, "f8e8m0fnu": 1, "f32": 4}
    assert sizes[fn.outputs[0][1]] == torch.empty(0, dtype=data_dtype).element_size()
    assert sizes[fn.outputs[1][1]] == torch.empty(0, dtype=scale_dtype).element_size()


def test_rescan_forgets_the_plans_built_on_the_index(monkeypatch):
    """After FPX_KERNEL_DIR changes, bundle.rescan() must not leave a cached
    cast or swizzle plan launching a kernel of the old directories."""
    monkeypatch.setitem(ops._plans, ("stale",), object())
    monkeypatch.setitem(ops._swizzle_plans, ("stale",), object())
    bundle.rescan()
    assert ("stale",) not in ops._plans and ("stale",) not in ops._swizzle_plans


def test_kernel_preconditions_are_checked_before_launch():
    e = next(e for e in ENTRIES if e.options["block"] == [32, 1] and e.options["rank"] == 2)
    k = bundle.BundledKernel(e, fpxc.load(e.path).functions[e.function])
    assert k.accepts((64, 256))
    assert not k.accepts((48, 256))  # rows must be a multiple of the block
    assert not k.accepts((64, 250))
    assert not k.accepts((2, 64, 256))


def test_grouped_swizzle_kernel_refuses_groups_over_no_rows():
    """Bands but no scales to read: the bundled kernel declines (the CPU
    path takes over), as the C++ runtime refuses it with a message."""
    e = next(e for e in ALL_ENTRIES
             if e.options.get("op") == "swizzle" and e.options["groups"])
    k = bundle.BundledKernel(e, fpxc.load(e.path).functions[e.function])
    assert k.accepts((1, 8), (3,))
    assert k.accepts((300, 8), (256,))
    assert not k.accepts((0, 8), (3,))
    assert k.accepts((0, 8), (0,))  # nothing to launch


def test_whether_a_kernel_takes_a_call_is_the_runtimes_answer():
    """accepts is the runtime's check, the one a launch runs before the GPU:
    the reason it gives is the message the launch raises."""
    e = next(e for e in ENTRIES if e.options["block"] == [32, 1] and e.options["rank"] == 2)
    fn = fpxc.load(e.path).functions[e.function]
    assert fn.accepts((64, 256)) == (True, "")
    assert fn.accepts((64, 256), dtypes=[torch.bfloat16]) == (True, "")
    ok, why = fn.accepts((48, 256))
    assert not ok and why == "dimension 0 of arg0 must be a multiple of 32 (the scaling block)"
    with pytest.raises(fpxc.InvalidArgumentError, match=r"\(the scaling block\)"):
        fn._fn.launch(0, [(0x10000, "bf16", [48, 256], [])], [], [])
    assert fn.accepts((64, 256), dtypes=[torch.float32]) == (
        False, "input 'arg0' must have dtype bf16, got f32")
    assert fn.accepts((2, 64, 256)) == (False, "input 'arg0' must have rank 2, got shape "
                                               "[2, 64, 256]")
    assert fn.accepts((64, 256), (1,)) == (False, "expected 1 input tensors, got 2")
    # The metadata alone answers too, by function name.
    info = _fpx.ArtifactInfo.read(e.path)
    assert bundle.options_key(info.options) == bundle.options_key(e.options)
    assert info.accepts(e.function, [(48, 256)]) == (False, why)
    assert fpxc.load(e.path)._module.info.accepts(e.function, [(64, 256)]) == (True, "")


def test_a_directory_without_index_is_read_through_the_runtime(tmp_path):
    """Artifacts without an index.json: their options and target come from
    the runtime's reading of the metadata; what it refuses is skipped."""
    e = next(e for e in ENTRIES if e.options["block"] == [32, 1] and e.options["rank"] == 2)
    src = pathlib.Path(e.path)
    (tmp_path / src.name).write_text(src.read_text())
    (tmp_path / src.with_suffix(".ptx").name).write_text(src.with_suffix(".ptx").read_text())
    (tmp_path / "notes.json").write_text('{"format": "something else"}')
    (tmp_path / "broken.json").write_text("{")
    (got,) = bundle._entries_of(tmp_path)
    assert got.path == str(tmp_path / src.name) and got.target == e.target
    assert got.function == e.function and bundle.options_key(got.options) == \
        bundle.options_key(e.options)
    k = bundle.BundledKernel(got, fpxc.load(got.path).functions[got.function])
    assert k.accepts((64, 256)) and not k.accepts((48, 256))


def rand(*shape, dtype=torch.bfloat16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * 3).to(dtype)


@pytest.mark.parametrize("fmt,block", [("mxfp8_e4m3", (32, 1)), ("mxfp8_e5m2", (32, 1)),
                                       ("nvfp4", (16, 1))])
@pytest.mark.parametrize("rounding", ["rn", "rs"])
def test_column_blocks_are_the_transposes_row_blocks(fmt, block, rounding):
    x = rand(96, 64)
    q = fpxc.quantize(x, format=fmt, block=block, rounding=rounding, seed=7)
    t = fpxc.quantize(x.t().contiguous(), format=fmt, block=(1, block[0]), rounding=rounding,
                     seed=7)
    # data: x's orientation, column-major (data.mT is contiguous), like
    # torchao's dim1 cast; scales: (K, M / block) row-major.
    assert q.data.mT.is_contiguous()
    assert torch.equal(q.data.mT.contiguous().view(torch.uint8), t.data.view(torch.uint8))
    assert torch.equal(q.scales.view(torch.uint8), t.scales.view(torch.uint8))
    assert q.scales.shape == (64, 96 // block[0])
    if fmt != "nvfp4":
        assert q.data.shape == x.shape
    y = fpxc.dequantize(q, format=fmt, block=block)
    yt = fpxc.dequantize(t, format=fmt, block=(1, block[0]))
    assert y.shape == x.shape and y.is_contiguous()
    assert torch.equal(y, yt.t())


def test_column_blocks_3d_experts():
    x = rand(3, 64, 32)
    q = fpxc.quantize(x, format="mxfp8_e4m3", block=(32, 1), rule="rceil")
    assert q.data.shape == (3, 64, 32) and q.scales.shape == (3, 32, 2)
    for e in range(3):
        qe = fpxc.quantize(x[e], format="mxfp8_e4m3", block=(32, 1), rule="rceil")
        assert torch.equal(q.data[e].view(torch.uint8), qe.data.view(torch.uint8))
        assert torch.equal(q.scales[e].view(torch.uint8), qe.scales.view(torch.uint8))


def test_column_block_fake_kernel_and_compile():
    x = rand(64, 96)
    torch.library.opcheck(torch.ops.fpxc.quantize.default,
                          (x, "mxfp8_e4m3", 32, 1, "", "floor", "rn", "row_major", "auto", 0,
                           True), test_utils=("test_faketensor", "test_aot_dispatch_dynamic"))

    def f(x):
        q = fpxc.quantize(x, format="mxfp8_e4m3", block=(32, 1))
        return q.data.view(torch.uint8).float().sum(), q.scales

    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    a, b = compiled(x), f(x)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1].view(torch.uint8), b[1].view(torch.uint8))


def assert_aligned(ins, outs):
    """What the runtime checks before a launch: every operand 16-byte
    aligned (kernels use vector loads and stores)."""
    for ptr, word, shape, _ in list(ins) + list(outs):
        assert ptr % 16 == 0, f"{word} {shape} operand at {ptr:#x} is not 16-byte aligned"


class FakeKernel:
    """Stands in for a bundled kernel on CPU tensors: its launch reads its
    inputs through the pointers it is given and writes what the artifact's
    function writes (raw outputs in its shapes, NVFP4's global scale g from
    the core's rule, one per matrix for a batch's amaxes), computed by the
    reference, to the output pointers."""

    def __init__(self, entry, call, x):
        self.entry, self.call, self.x = entry, call, x
        real = fpxc.load(entry.path).functions[entry.function]
        self.has_seed = len(real.scalars) == 1
        self.fn = types.SimpleNamespace(inputs=real.inputs, outputs=real.outputs,
                                        output_shapes=real.output_shapes,
                                        _fn=types.SimpleNamespace(launch=self.launch))

    def accepts(self, shape, *amax_shapes):
        return True

    def launch(self, stream, ins, outs, scalars):
        assert len(outs) == len(self.fn.outputs)
        assert_aligned(ins, outs)
        # The input as the launch describes it (3-D row blocks launch as one
        # tall matrix, batches of NVFP4 matrices one matrix at a time).
        x = from_pointer(ins[0][0], ins[0][1], ins[0][2])
        amax = None
        if len(ins) > 1:  # the given amax (or one per matrix), through its pointer
            amax = from_pointer(ins[1][0], "f32", ins[1][2])
        seed = scalars[0] if scalars else 0
        kw = {k: v for k, v in self.call.items() if k != "return_amax"}
        q = fpxc.quantize(x, **dict(kw, block=tuple(kw["block"]), seed=seed), amax=amax)
        data = q.data.mT if self.entry.options["block"][1] == 1 else q.data
        got = [data.contiguous(), q.scales.contiguous()]
        if len(outs) > 2:
            h = self.call.get("hadamard", 0)
            xt = ops._hadamard_f32(x, h, self.call["hadamard_seed"]) if h else x.float()
            # one amax (and g), or one per matrix of a batch
            a = (xt.abs().max() if amax is None else amax).reshape(-1).contiguous()
            g = torch.empty(a.numel())
            _fpx.nvfp4_global_scales(a.data_ptr(), a.numel(), g.data_ptr())
            got.append(g)
        if self.entry.options.get("amax_out"):  # this input's amax (a matrix's), last
            got.append(ops.tensor_amax(x, self.call.get("hadamard", 0),
                                       self.call.get("hadamard_seed", 0),
                                       per_matrix=x.dim() == 3).reshape(-1))
        for t, (ptr, _, shape, _) in zip(got, outs):
            assert t.numel() == math.prod(shape)
            ctypes.memmove(ptr, t.data_ptr(), t.numel() * t.element_size())


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.target == "sm_90a"
                                   and not e.options.get("amax_per_matrix")
                                   and not e.options.get("amax_out")],
                         ids=lambda e: e.function)
def test_dispatch_glue_rebuilds_the_reference_layout(entry, monkeypatch):
    """_quantize_cuda's views, reshapes and global scale, with a stand-in
    kernel: what it returns must be what the CPU path returns."""
    o, call = entry.options, entry.call
    shape = (2, 128, 256) if o["rank"] == 3 else (128, 256)
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(shape, generator=g) * 5).to(TORCH_IN[o["input_dtype"]])
    x.view(-1)[7] = 0.0
    monkeypatch.setattr(bundle, "find", lambda options, device: FakeKernel(entry, call, x))
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 0)
    s, kind, rule, packing, br, bc = resolve(call, x)
    h = (call.get("hadamard", 0), call.get("hadamard_seed", 0))
    # A given amax: twice the tensor's, so that g differs from the computed one.
    amax = (x.float().abs().max() * 2).reshape(()) if o.get("amax_given") else None
    gs = call.get("global_scale", True)
    args = (call["format"], br, bc, "", call.get("rule", ""), call["rounding"],
            call["scale_layout"], call.get("packing", "auto"), gs, *h, amax is not None)
    monkeypatch.setattr(ops, "_plans", {})
    got = ops._quantize_cuda(x, s, kind, rule, call["rounding"], packing, br, bc,
                             call["scale_layout"], 5, gs, *h, amax,
                             plan_key=ops._plan_key(x, args))
    want = ops._quantize_cpu(x, s, kind, rule, call["rounding"], packing, br, bc,
                             call["scale_layout"], 5, gs, *h, amax)
    # The second call of the signature: the cached plan (CPU tensors have no
    # device index; the plan path compares it with the current device's).
    monkeypatch.setattr(torch.cuda, "current_device", lambda: None)
    planned = ops.quantize_planned(x, args, 5, amax)
    assert got is not None and planned is not None
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype and a.stride() == b.stride()
        assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))
    # fpx.quantize hands out g for NVFP4 only (1 without a global scale).
    assert (planned[2] is None) == (kind != "nvfp4")
    for a, b in zip(planned, want if kind == "nvfp4" else want[:2]):
        assert a.shape == b.shape and a.dtype == b.dtype and a.stride() == b.stride()
        assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.target == "sm_90a"
                                   and e.options.get("amax_out")], ids=lambda e: e.function)
def test_return_amax_runs_the_cast_that_reduces_it(entry, monkeypatch):
    """quantize(..., amax=a, return_amax=True) on a 2-D NVFP4 x: the bundled
    cast returning this input's amax too (asked for by its options, once:
    the second call runs the cached plan), with a stand-in kernel: the codes,
    scales and g of the cast from `a`, and max |x| (of the transform)."""
    o, call = entry.options, entry.call
    g = torch.Generator().manual_seed(5)
    per_matrix = o.get("amax_per_matrix", False)  # a batch, an amax per matrix
    shape = (3, 64, 128) if per_matrix else (128, 256)
    x = (torch.randn(shape, generator=g) * 5).to(TORCH_IN[o["input_dtype"]])
    asked = []

    def find(options, device):
        asked.append(options)
        return FakeKernel(entry, call, x)

    monkeypatch.setattr(bundle, "find", find)
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 0)
    monkeypatch.setattr(ops, "_plans", {})
    s, kind, rule, packing, br, bc = resolve(call, x)
    h = (call.get("hadamard", 0), call.get("hadamard_seed", 0))
    # not this input's, so that g differs: one, or one per matrix
    amax = (x.float().abs().amax(dim=(1, 2)) * 2 if per_matrix
            else (x.float().abs().max() * 2).reshape(()))
    want = ops._quantize_cpu(x, s, kind, rule, call["rounding"], packing, br, bc,
                             call["scale_layout"], 5, True, *h, amax)
    want_amax = ops.tensor_amax(x, *h, per_matrix=per_matrix)
    for _ in range(2):
        got = ops.quantize_recording_amax(x, call["format"], br, bc, "", "", call["rounding"],
                                          call["scale_layout"], call.get("packing", "auto"),
                                          5, True, *h, amax)
        assert got is not None and len(got) == 4
        for a, b in zip(got[:3], want):
            assert a.shape == b.shape and a.dtype == b.dtype
            assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))
        assert got[3].shape == want_amax.shape and torch.equal(got[3].view(torch.int32),
                                                               want_amax.view(torch.int32))
    assert asked == [o]


def test_return_amax_elsewhere_reduces_it_separately():
    """return_amax=True where no fused cast serves (CPU, other formats, 3-D
    NVFP4: one per matrix): (QuantizedTensor, max |x|), NaN as NaN."""
    x = rand(2, 64, 128, seed=9)
    q, a = fpxc.quantize(x, "nvfp4", return_amax=True)
    assert torch.equal(q.data, fpxc.quantize(x, "nvfp4").data)
    assert torch.equal(a, x.float().abs().amax(dim=(1, 2)))
    q, a = fpxc.quantize(x[0], "mxfp8_e4m3", return_amax=True)
    assert torch.equal(a, x[0].float().abs().max())
    q, a = fpxc.quantize(x[0], "nvfp4", hadamard=16, amax=3.0, return_amax=True)
    assert torch.equal(a, ops._hadamard_f32(x[0], 16, 0).abs().max())
    y = x[0].clone()
    y[3, 5] = float("nan")
    _, a = fpxc.quantize(y, "mxfp8_e4m3", return_amax=True)
    assert a.view(torch.int32).item() == 0x7FC00000  # the numerics core's NaN
    y = -x[0].abs()  # all negative: max |x| is -min x
    assert torch.equal(fpxc.quantize(y, "mxfp8_e4m3", return_amax=True)[1],
                       y.float().abs().max())
    _, a = fpxc.quantize(torch.empty(0, 64, dtype=torch.bfloat16), "mxfp8_e4m3",
                        return_amax=True)
    assert a.shape == () and a.item() == 0.0
    # NVFP4 batches get one per matrix with or without global scales
    _, a = fpxc.quantize(x, "nvfp4", global_scale=False, return_amax=True)
    assert torch.equal(a, x.float().abs().amax(dim=(1, 2)))


def test_amax_may_be_any_real_number():
    """amax= takes a Python or NumPy number like a one-value tensor; a bool
    or another object is refused by name."""
    np = pytest.importorskip("numpy")
    x = rand(64, 128, seed=10)
    want = fpxc.quantize(x, "nvfp4", amax=3.0)
    for a in (3, np.float32(3.0), np.float64(3.0), np.int64(3)):
        got = fpxc.quantize(x, "nvfp4", amax=a)
        assert torch.equal(got.data, want.data) and torch.equal(got.scales, want.scales), a
    for bad in (True, "3.0", [3.0]):
        with pytest.raises(fpxc.InvalidArgumentError):
            fpxc.quantize(x, "nvfp4", amax=bad)
    with pytest.raises(fpxc.InvalidArgumentError, match="return_amax"):
        fpxc.quantize(x, "nvfp4", amax=3.0, return_amax="no")


# --- dequantize, fused Hadamard, 2-D blocks -----------------------------------------

def test_the_core_bundle_has_the_new_ops():
    core = [e for e in ALL_ENTRIES if "/fpxc/kernels/" in e.path.replace("\\", "/")]
    ops_ = {(e.target, e.options["op"]) for e in core}
    for t in ("sm_90a", "sm_100a"):
        assert {(t, "quantize"), (t, "dequantize"), (t, "hadamard")} <= ops_
    keys = {(e.target, bundle.options_key(e.options)) for e in core}
    assert len(keys) == len(core), "two core entries share a dispatch key"
    q = [e.options for e in core if e.options["op"] == "quantize"]
    assert any(o.get("hadamard") == 16 and o["format"] == "nvfp4" and o["rounding"] == "rs"
               and o.get("global_scale") for o in q), "the NVFP4 training recipe"
    for blk in ([16, 16], [32, 32], [128, 128]):
        assert any(o["block"] == blk for o in q), blk
    for t in ("sm_90a", "sm_100a"):
        sizes = sum(pathlib.Path(e.path).with_suffix(".ptx").stat().st_size
                    for e in core if e.target == t)
        # 2.5 MB until the delayed-scaling casts that return the amax (0.33 MB
        # of sm_90a's PTX) joined, 3.0 MB until sm_90a's NVFP4 + rs casts
        # took two tiles a CTA (0.35 MB: their code for a tile twice), 3.5 MB
        # until the NVFP4 16x16 casts took 64 elements a thread (0.23 MB),
        # 4.0 MB until sm_90a's bf16 MXFP8 column casts gained their
        # narrow-tile kernel for small casts (0.12 MB), 4.5 MB until the MXFP4
        # column casts and the column casts with blocked scales (MXFP8, MXFP4,
        # NVFP4 16x1; 2-D and per expert) joined (0.73 MB of sm_90a's PTX),
        # 5.5 MB until the interleaved MXFP6 casts, the MXFP4 rs cast and the
        # weight-only GEMM kernels joined (0.4 MB), 6.0 MB until the MXFP8,
        # MXFP4 and NVFP4 weight-only GEMMs joined with bf16 activations only
        # (0.34 MB of sm_90a's PTX; their f16 kernels are the full set's), 6.1 MB
        # until sm_90a's fp8 scaled GEMMs of fpxc.scaled_mm joined (e4m3 x e4m3,
        # per tensor and per row, bf16 and f32 out: 0.35 MB; the e5m2 pairs are
        # the full set's), 6.5 MB until the weight-only GEMMs took 32- and
        # 64-token kernels beside the 8- and 16-token ones (1.0 MB of sm_90a's
        # PTX: M <= 64 reads each weight byte once) and the 1x128 x 128x128
        # blockwise scaled GEMMs joined (0.17 MB), 8.0 MB until sm_90a's
        # scaled GEMMs took the TMA-store epilogue (a second kernel a tile:
        # C rows that are not a multiple of 16 bytes keep st.global) and
        # split-K for M <= 128 (0.59 MB), and the weight-only GEMMs the wgmma
        # prefill kernels for M > 64 (128- and 256-token tiles for each of the
        # core's fp8, MXFP8, MXFP4 and NVFP4 specs: 16 kernels, 0.59 MB); the
        # MXFP8 x MXFP8 scaled GEMMs (e4m3 x e4m3, bf16 and f32: 0.2 MB of
        # sm_90a's PTX) left it at 8.63 MB; 9.2 MB until the wgmma prefill
        # kernels read the codes through a shared-memory ring (bulk copies,
        # the scale prefetch: 9.22 MB); 9.4 MB until the NVFP4 x NVFP4 scaled
        # GEMMs of fpxc.scaled_mm joined (bf16 and f32 out: 0.19 MB); 9.6 MB
        # until the weight-only wgmma kernels took split-K (the workspace
        # meeting in each of the 16: 0.21 MB, 9.62 MB); 9.8 MB until the MXFP8
        # and NVFP4 GEMMs with blocked 128x4 scales joined (bf16 out: 0.2 MB,
        # 9.82 MB); the grouped GEMM of fpxc.grouped_mm (e4m3 x e4m3, bf16 out:
        # 0.08 MB; f32 and the e5m2 pairs are the full set's) left it at 9.90 MB;
        # 10.0 MB until that artifact took its TMA-store kernel beside the
        # st.global one (0.19 MB in all, 10.01 MB)
        assert sizes < 10.2e6, f"{t} core bundle grew to {sizes / 1e6:.2f} MB"


DQ_TORCH = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def dq_example(call, rank, shape=None, seed=0):
    """CPU data and scales for an fpx.dequantize call: what fpx.quantize
    makes with the same format, block, scale layout and packing."""
    fmt, block = call["format"], tuple(call["block"])
    qblock = tuple(None if b == 0 else b for b in block)
    kw = {"format": fmt, "block": qblock, "scale_layout": call["scale_layout"]}
    if "packing" in call:
        kw["packing"] = call["packing"]
    if "global_scale" in call:
        kw["global_scale"] = call["global_scale"]
    shape = shape or ((3, 64, 256) if rank == 3 else (96, 256))
    x = rand(*shape, dtype=torch.float32, seed=seed)
    q = fpxc.quantize(x, **kw)
    scales = q.scales
    if "scale_dtype" in call:
        scales = scales.to(DQ_TORCH[call["scale_dtype"]])
    return q.data, scales, q.global_scale


def dq_kwargs(call):
    kw = {"format": call["format"], "block": tuple(call["block"]),
          "scale_layout": call["scale_layout"], "dtype": DQ_TORCH[call["dtype"]]}
    if "packing" in call:
        kw["packing"] = call["packing"]
    return kw


def dq_resolve(call):
    kw = dq_kwargs(call)
    s = ops.scheme(call["format"])
    br, bc = api._block(kw["block"], s.block)
    s, kind, _, packing = ops._resolve(call["format"], br, bc, "", None, "rn",
                                       call["scale_layout"], kw.get("packing", "auto"))
    return s, kind, packing, br, bc, kw["dtype"]


@pytest.mark.parametrize("entry", DQ_ENTRIES, ids=lambda e: f"{e.target}-{e.function}")
def test_bundled_dequantize_serves_its_call(entry):
    o, call = entry.options, entry.call
    assert call is not None
    data, scales, g = dq_example(call, o["rank"])
    if not call.get("global_scale", False):
        g = None
    s, kind, packing, br, bc, dtype = dq_resolve(call)
    got = ops._dequantize_options(data, scales, g, s, kind, packing, br, bc,
                                  call["scale_layout"], 0, dtype,
                                  o.get("global_per_matrix", False))
    assert got is not None
    options, inputs, out_shape = got
    assert options == o
    fn = fpxc.load(entry.path).functions[entry.function]
    kernel = bundle.BundledKernel(entry, fn)
    assert kernel.accepts(*[t.shape for t in inputs])
    assert not kernel.has_seed and len(fn.inputs) == len(inputs)
    for t, want in zip(inputs, kernel.input_dtypes):
        assert t.element_size() == torch.empty(0, dtype=want).element_size()
    shapes = fn.output_shapes(*[tuple(t.shape) for t in inputs])
    assert len(shapes) == 1 and fn.outputs[0][1] == o["output_dtype"]
    fake = ops._dequantize_fake(data, scales, g, call["format"], br, bc, "",
                                call["scale_layout"], packing, 0, dtype)
    assert list(fake.shape) == out_shape and fake.dtype == dtype
    n = 1
    for d in shapes[0]:
        n *= d
    assert n == fake.numel() and shapes[0][-1] == out_shape[-1]


def from_pointer(ptr, word, shape):
    """A CPU tensor holding a copy of what a launch's (pointer, dtype word,
    shape) argument points at."""
    t = torch.empty(shape, dtype=_dtypes.TORCH_DTYPE[word])
    ctypes.memmove(t.data_ptr(), ptr, t.numel() * t.element_size())
    return t


class FakeDqKernel:
    """Stands in for a bundled dequantize kernel on CPU tensors: its launch
    reads the inputs through the pointers, dtypes and shapes the dispatch
    passes (NVFP4's global scale g as the kernel takes it), runs the CPU
    reference and writes the result where the output pointer says."""

    def __init__(self, entry, call):
        self.entry, self.call = entry, call
        real = fpxc.load(entry.path).functions[entry.function]
        self.real = bundle.BundledKernel(entry, real)
        self.input_dtypes = self.real.input_dtypes
        self.fn = types.SimpleNamespace(inputs=real.inputs, outputs=real.outputs,
                                        output_shapes=real.output_shapes,
                                        _fn=types.SimpleNamespace(launch=self.launch))

    def accepts(self, *shapes):
        return self.real.accepts(*shapes)

    def launch(self, stream, ins, outs, scalars):
        assert len(ins) == len(self.fn.inputs) and len(outs) == 1 and not scalars
        assert_aligned(ins, outs)
        assert [w for _, w, _, _ in ins] == [w for _, w in self.fn.inputs]
        codes, scales, *g = [from_pointer(p, w, shape) for p, w, shape, _ in ins]
        y = fpxc.dequantize(codes, scales, global_scale=g[0] if g else None,
                           **dq_kwargs(self.call))
        ptr, word, shape, _ = outs[0]
        assert list(y.shape) == list(shape) and y.dtype == _dtypes.TORCH_DTYPE[word]
        ctypes.memmove(ptr, y.contiguous().data_ptr(), y.numel() * y.element_size())


@pytest.mark.parametrize("entry", [e for e in DQ_ENTRIES if e.target == "sm_90a"
                                   and not e.options.get("global_per_matrix")],
                         ids=lambda e: e.function)
def test_dequantize_dispatch_glue(entry, monkeypatch):
    o, call = entry.options, entry.call
    shapes = [(2, 128, 256)] if o["rank"] == 3 else [(96, 256), (2, 128, 256)]
    if o["block"] == [0, 0] and o["rank"] == 2:
        shapes = [(96, 256)]
    # (no one-launch batch kernel here: a batch with a g per matrix takes
    # the per-matrix launches)
    def find(options, device):
        if options.get("global_per_matrix"):
            return None
        assert options == entry.options, "the dispatch asks for this entry's kernel"
        return FakeDqKernel(entry, call)
    monkeypatch.setattr(bundle, "find", find)
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 0)
    monkeypatch.setattr(ops, "_plans", {})
    # CPU tensors have no device index; the plan path compares it with the
    # current device's.
    monkeypatch.setattr(torch.cuda, "current_device", lambda: None)
    s, kind, packing, br, bc, dtype = dq_resolve(call)
    for shape in shapes:
        # A batch's NVFP4 values have one global scale per matrix: the matrix
        # kernel runs per matrix (no plan is cached for those).
        data, scales, g = dq_example(call, o["rank"], shape, seed=4)
        # NVFP4: the quantize's g, then gs that no amax gives (the kernel
        # takes g itself: no CPU fallback, no host sync).
        gs = [g, torch.tensor(0.3), torch.tensor(2.0 ** -140), torch.tensor(-1.5, dtype=torch.bfloat16)]
        for g in gs if call.get("global_scale", False) else [None]:
            args = (call["format"], br, bc, "", call["scale_layout"], call.get("packing", "auto"),
                    0, dtype)
            got = ops._dequantize_cuda(data, scales, g, s, kind, packing, br, bc,
                                       call["scale_layout"], 0, dtype,
                                       plan_key=ops._dq_plan_key(data, scales, g, args))
            want = ops._dequantize_cpu(data, scales, g, s, kind, packing, br, bc,
                                       call["scale_layout"], 0, dtype)
            # The second call of the signature: the cached plan (none for
            # a batch with a global scale per matrix).
            planned = ops.dequantize_planned(data, scales, g, args)
            per_matrix = g is not None and g.numel() > 1
            assert (planned is None) == per_matrix
            for y in (got,) if per_matrix else (got, planned):
                assert y is not None, (shape, g)
                assert y.shape == want.shape and y.dtype == want.dtype
                assert y.stride() == want.stride()
                nan = want.isnan()
                assert torch.equal(y.isnan(), nan)
                assert torch.equal(y[~nan], want[~nan]), (shape, g)


def dq_nvfp4_matrix_entry():
    return next(e for e in DQ_ENTRIES if e.target == "sm_90a" and e.options["format"] == "nvfp4"
                and e.options["rank"] == 2 and e.options["scale_layout"] == "row_major"
                and e.options.get("global_scale") and e.options["output_dtype"] == "bf16")


def test_nvfp4_batch_dequantize_with_unaligned_matrices_takes_the_reference(monkeypatch):
    """A batch whose per-matrix codes or scales are not whole 16-byte units
    (8 rows of one 1x16 block: 64 bytes of codes, 8 of scales) cannot run
    the matrix kernel per matrix (its operands must be 16-byte aligned):
    the dispatch declines before any launch, and the reference answers."""
    entry = dq_nvfp4_matrix_entry()
    call = entry.call
    monkeypatch.setattr(bundle, "find", lambda options, device: None
                        if options.get("global_per_matrix") else FakeDqKernel(entry, call))
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 0)
    s, kind, packing, br, bc, dtype = dq_resolve(call)
    data, scales, g = dq_example(call, 3, (3, 8, 16), seed=5)
    assert g.numel() == 3 and scales[0].nbytes == 8
    assert ops._dequantize_cuda(data, scales, g, s, kind, packing, br, bc, "row_major", 0,
                                dtype) is None
    # Whole 16-byte units (16 rows): the per-matrix launches, equal to the reference.
    data, scales, g = dq_example(call, 3, (3, 16, 16), seed=5)
    got = ops._dequantize_cuda(data, scales, g, s, kind, packing, br, bc, "row_major", 0, dtype)
    want = ops._dequantize_cpu(data, scales, g, s, kind, packing, br, bc, "row_major", 0, dtype)
    assert got is not None and torch.equal(got.view(torch.int16), want.view(torch.int16))


def test_dequantize_launches_on_the_device_of_its_codes(monkeypatch):
    """The kernel launches in the current context: a dequantize of codes on
    another device than the current one makes theirs current for the launch
    (as quantize does), on the first call as on a cached plan's."""
    entry = dq_nvfp4_matrix_entry()
    call = entry.call
    monkeypatch.setattr(bundle, "find", lambda options, device: FakeDqKernel(entry, call))
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 0)
    guarded = []
    monkeypatch.setattr(ops, "_launch_device",
                        lambda x: guarded.append(x) or contextlib.nullcontext())
    s, kind, packing, br, bc, dtype = dq_resolve(call)
    data, scales, g = dq_example(call, 2, (64, 256), seed=6)
    assert ops._dequantize_cuda(data, scales, g, s, kind, packing, br, bc, "row_major", 0,
                                dtype) is not None
    assert len(guarded) == 1 and guarded[0] is data


@pytest.mark.parametrize("entry", H_ENTRIES, ids=lambda e: f"{e.target}-{e.function}")
def test_bundled_hadamard_serves_its_call(entry):
    o = entry.options
    fn = fpxc.load(entry.path).functions[entry.function]
    kernel = bundle.BundledKernel(entry, fn)
    assert fn.inputs[0][1] == o["input_dtype"] == fn.outputs[0][1]
    assert kernel.accepts((64, 256)) and not kernel.accepts((64, 8))
    assert fn.output_shapes((64, 256)) == [(64, 256)]


@pytest.mark.parametrize("fmt,block,n", [("nvfp4", (1, 16), 16), ("mxfp4", (1, 32), 32),
                                         ("mxfp8_e4m3", (1, 32), 128)])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_quantize_with_hadamard_is_the_fp32_transform_then_the_cast(fmt, block, n, dtype):
    x = rand(64, 256, dtype=dtype, seed=2)
    xf = x.float()
    h = fpxc.hadamard(xf, block=n, seed=7)           # fp32 in, fp32 out: no rounding
    for rnd in ("rn", "rs"):
        q = fpxc.quantize(x, format=fmt, block=block, rounding=rnd, seed=3, hadamard=n,
                         hadamard_seed=7)
        r = fpxc.quantize(h, format=fmt, block=block, rounding=rnd, seed=3)
        assert torch.equal(q.data.view(torch.uint8), r.data.view(torch.uint8))
        assert torch.equal(q.scales.view(torch.uint8), r.scales.view(torch.uint8))
        if q.global_scale is not None:
            assert torch.equal(q.global_scale, r.global_scale)
    # The default seed is 0, and another seed changes the signs.
    a = fpxc.quantize(x, format=fmt, block=block, hadamard=n)
    b = fpxc.quantize(x, format=fmt, block=block, hadamard=n, hadamard_seed=0)
    c = fpxc.quantize(x, format=fmt, block=block, hadamard=n, hadamard_seed=1)
    assert torch.equal(a.data.view(torch.uint8), b.data.view(torch.uint8))
    assert not torch.equal(a.data.view(torch.uint8), c.data.view(torch.uint8))


def test_hadamard_option_errors():
    x = rand(4, 64)
    with pytest.raises(fpxc.InvalidArgumentError, match="power of two"):
        fpxc.quantize(x, format="nvfp4", hadamard=12)
    with pytest.raises(fpxc.InvalidArgumentError, match="multiple of 128"):
        fpxc.quantize(x, format="nvfp4", hadamard=128)


@pytest.mark.parametrize("fmt,block", [("nvfp4", (16, 16)), ("fp8_e4m3", (128, 128)),
                                       ("mxfp8_e4m3", (32, 32))])
def test_2d_blocks_fake_kernel(fmt, block):
    for shape in ((256, 256), (2, 128, 256)):
        x = rand(*shape)
        q = fpxc.quantize(x, format=fmt, block=block)
        s, kind, _, packing = ops._resolve(fmt, block[0], block[1], "", None, "rn",
                                           "row_major", "auto")
        meta = ops._quantize_meta(list(shape), s, kind, packing, block[0], block[1],
                                  "row_major")
        assert list(q.data.shape) == meta[0] and list(q.scales.shape) == meta[2]
        assert q.scales.shape[-2:] == (shape[-2] // block[0], shape[-1] // block[1])
        y = fpxc.dequantize(q, format=fmt, block=block) if block[0] == 1 else None
        assert y is None or y.shape == x.shape


def test_new_ops_under_torch_compile():
    x = rand(64, 256)

    def f(x):
        q = fpxc.quantize(x, format="nvfp4", rounding="rs", seed=3, hadamard=16)
        y = fpxc.dequantize(q, format="nvfp4", dtype=torch.bfloat16)
        w = fpxc.quantize(x, format="nvfp4", block=(16, 16))
        return q.data, q.scales, q.global_scale, y, w.data, w.scales, fpxc.hadamard(x)

    torch.library.opcheck(torch.ops.fpxc.quantize.default,
                          (x, "nvfp4", 1, 16, "", "", "rs", "row_major", "auto", 3, True, 16, 0),
                          test_utils=("test_faketensor", "test_aot_dispatch_dynamic"))
    want = f(x)
    got = torch.compile(f, fullgraph=True, backend="aot_eager")(x)
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype
        assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.target == "sm_90a"
                                   and e.options["format"] == "nvfp4"
                                   and e.options.get("global_scale") and e.options["rank"] == 2
                                   and e.options["rounding"] == "rn"
                                   and not e.options.get("amax_out")],
                         ids=lambda e: e.function)
def test_nvfp4_batches_run_the_matrix_kernel_per_matrix(entry, monkeypatch):
    """NVFP4 two-level of a batch (E, M, K): one global scale per matrix, the
    2-D kernel launched per matrix into slices of the results; equal to the
    reference (data, scales padded per matrix when blocked, g per matrix)."""
    call = entry.call
    g = torch.Generator().manual_seed(5)
    # 96 rows: blocked scales pad every matrix to 128 rows.
    x = torch.randn(3, 96, 256, generator=g) * torch.tensor([1.0, 300.0, 1e-3]).view(3, 1, 1)
    x = x.to(TORCH_IN[entry.options["input_dtype"]])
    # (no one-launch batch kernel here: the per-matrix launches)
    def find(options, device):
        if options.get("amax_per_matrix"):
            return None
        assert options == entry.options, "the dispatch asks for this entry's kernel"
        return FakeKernel(entry, call, None)
    monkeypatch.setattr(bundle, "find", find)
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 0)
    s, kind, rule, packing, br, bc = resolve(call, x)
    h = (call.get("hadamard", 0), call.get("hadamard_seed", 0))
    amaxes = [None]
    if entry.options.get("amax_given"):
        per = x.float().abs().amax(dim=(1, 2)) * 2
        amaxes = [per, per[1].reshape(())]  # one per matrix, or one for all
    for amax in amaxes:
        got = ops._quantize_cuda(x, s, kind, rule, "rn", packing, br, bc, call["scale_layout"],
                                 0, True, *h, amax)
        want = ops._quantize_cpu(x, s, kind, rule, "rn", packing, br, bc, call["scale_layout"],
                                 0, True, *h, amax)
        assert got is not None
        for a, b in zip(got, want):
            assert a.shape == b.shape and a.dtype == b.dtype and a.stride() == b.stride()
            assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))
    # Matrices whose scales are not whole 16-byte units (8 rows of one 1x16
    # block: 8 bytes) would misalign the next matrix's: the host path.
    if call["scale_layout"] != "blocked" and tuple(call["block"]) == (1, 16):
        small = x[:, :8, :16].contiguous()
        assert ops._quantize_cuda(small, s, kind, rule, "rn", packing, br, bc,
                                  call["scale_layout"], 0, True, *h,
                                  None if amaxes[0] is None else amaxes[0]) is None
    # Stochastic rounding numbers its random bits across the whole batch: the
    # per-matrix launches do not serve it.
    assert ops._quantize_cuda(x, s, kind, rule, "rs", packing, br, bc, call["scale_layout"],
                              0, True, *h, amaxes[0]) is None


def test_older_bundles_entries_whose_meaning_changed_are_skipped(tmp_path):
    """NVFP4 two-level quantize entries returned the amax in place of g
    before bundle version 2, NVFP4 dequantize entries took the amax in place
    of g before version 3, MX quantize entries saturated inf where the
    package now marks the block NaN before version 4: using them would be a
    silent wrong answer."""
    def art(op, **kw):
        o = {"op": op, "format": "nvfp4", "block": [1, 16], **kw}
        return {"file": f"{op}{len(kw)}.json", "function": "f", "options": o}
    arts = [art("quantize", global_scale=True), art("quantize", global_scale=False),
            art("dequantize", global_scale=True), art("dequantize", global_scale=False),
            {"file": "m.json", "function": "m", "options": {"op": "quantize", "format": "mxfp4"}},
            {"file": "d.json", "function": "d",
             "options": {"op": "dequantize", "format": "mxfp8_e4m3"}}]
    kept = {}
    for version in (1, 2, 3, 4):
        d = tmp_path / f"v{version}"
        d.mkdir()
        (d / "index.json").write_text(json.dumps(
            {"format": "fpx-bundle", "version": version, "target": "sm_90a", "artifacts": arts}))
        kept[version] = [(e.options["op"], e.options.get("global_scale", False), e.options["format"])
                         for e in bundle._entries_of(d)]
    no_g = [("quantize", False, "nvfp4"), ("dequantize", False, "nvfp4"),
            ("dequantize", False, "mxfp8_e4m3")]
    assert sorted(kept[1]) == sorted(no_g)
    assert sorted(kept[2]) == sorted(no_g + [("quantize", True, "nvfp4")])
    assert sorted(kept[3]) == sorted(no_g + [("quantize", True, "nvfp4"),
                                             ("dequantize", True, "nvfp4")])
    assert sorted(kept[4]) == sorted(kept[3] + [("quantize", False, "mxfp4")])


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.target == "sm_90a"
                                   and e.options.get("amax_per_matrix")
                                   and not e.options.get("amax_out")],
                         ids=lambda e: e.function)
def test_nvfp4_batches_run_one_launch_with_an_amax_per_matrix(entry, monkeypatch):
    """NVFP4 two-level of a batch (E, M, K) through the kernel that reads one
    amax per matrix: one launch (rn and rs, the random bits numbered over the
    batch), with the amaxes given per matrix, given once, or max |x| of each
    matrix; data, scales and g per matrix equal the reference. Matrices of
    other than a multiple of 8192 elements take the per-matrix launches."""
    call = entry.call
    g = torch.Generator().manual_seed(6)
    x = torch.randn(3, 64, 256, generator=g) * torch.tensor([1.0, 300.0, 1e-3]).view(3, 1, 1)
    x[2] = 0.0  # an all-zero matrix: g = 1
    x = x.to(TORCH_IN[entry.options["input_dtype"]])
    launches = []

    def find(options, device):
        assert options == entry.options, "the batch kernel, not the per-matrix one"
        k = FakeKernel(entry, call, None)
        launch = k.launch
        k.fn._fn.launch = lambda *a: (launches.append(a[1][1][2]), launch(*a))
        k.accepts = bundle.BundledKernel(entry, fpxc.load(entry.path).functions[
            entry.function]).accepts
        return k

    monkeypatch.setattr(bundle, "find", find)
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 0)
    monkeypatch.setattr(ops, "_plans", {})
    # CPU tensors have no device index; the plan path compares it with the
    # current device's.
    monkeypatch.setattr(torch.cuda, "current_device", lambda: None)
    s, kind, rule, packing, br, bc = resolve(call, x)
    per = x.float().abs().amax(dim=(1, 2)) * 2
    for amax in (None, per, per[1].reshape(()), -per):
        launches.clear()
        args = ("nvfp4", br, bc, "", "", call["rounding"], "row_major", "auto", True, 0, 0,
                amax is not None)
        got = ops._quantize_cuda(x, s, kind, rule, call["rounding"], packing, br, bc,
                                 "row_major", 9, True, 0, 0, amax,
                                 plan_key=ops._plan_key(x, args))
        # the next call of the signature: the cached plan, the same work
        planned = ops.quantize_planned(x, args, 9, amax)
        want = ops._quantize_cpu(x, s, kind, rule, call["rounding"], packing, br, bc,
                                 "row_major", 9, True, 0, 0, amax)
        assert launches == [[3], [3]], "one launch a call, an amax per matrix"
        for have in (got, planned):
            for a, b in zip(have, want):
                assert a.shape == b.shape and a.dtype == b.dtype and a.stride() == b.stride()
                assert torch.equal(a.reshape(-1).view(torch.uint8),
                                   b.reshape(-1).view(torch.uint8))
    # 48 x 256 = 12288 elements a matrix: not a multiple of a CTA's 8192.
    assert ops._quantize_cuda_batch(x[:, :48].contiguous(), s, kind, rule, call["rounding"],
                                    packing, br, bc, "row_major", 9, None) is None


@pytest.mark.parametrize("entry", [e for e in DQ_ENTRIES if e.target == "sm_90a"
                                   and e.options.get("global_per_matrix")],
                         ids=lambda e: e.function)
def test_nvfp4_batch_dequantize_runs_one_launch_with_a_g_per_matrix(entry, monkeypatch):
    """NVFP4 values of a batch with one global scale per matrix (what a
    batch quantize returns) through the kernel that reads g per matrix: one
    launch, equal to the reference, and the cached plan for the next call;
    matrices of other than a multiple of 8192 elements take the per-matrix
    launches."""
    call = entry.call
    launches = []

    def find(options, device):
        if not options.get("global_per_matrix"):
            return None  # (the per-matrix launches' 2-D kernel: not here)
        assert options == entry.options
        k = FakeDqKernel(entry, call)
        launch = k.launch
        k.fn._fn.launch = lambda *a: (launches.append(a[1][2][2]), launch(*a))
        return k

    monkeypatch.setattr(bundle, "find", find)
    monkeypatch.setattr(ops, "_raw_stream", lambda device: 0)
    monkeypatch.setattr(ops, "_plans", {})
    monkeypatch.setattr(torch.cuda, "current_device", lambda: None)
    s, kind, packing, br, bc, dtype = dq_resolve(call)
    data, scales, g = dq_example(call, 3, (3, 64, 256), seed=5)
    args = (call["format"], br, bc, "", call["scale_layout"], call.get("packing", "auto"), 0,
            dtype)
    for gs in (g, g * 1.5):
        launches.clear()
        got = ops._dequantize_cuda(data, scales, gs, s, kind, packing, br, bc, "row_major", 0,
                                   dtype, plan_key=ops._dq_plan_key(data, scales, gs, args))
        planned = ops.dequantize_planned(data, scales, gs, args)
        want = ops._dequantize_cpu(data, scales, gs, s, kind, packing, br, bc, "row_major", 0,
                                   dtype)
        assert launches == [[3], [3]], "one launch a call, a g per matrix"
        for y in (got, planned):
            assert y.shape == want.shape and y.dtype == want.dtype and y.stride() == want.stride()
            nan = want.isnan()
            assert torch.equal(y.isnan(), nan) and torch.equal(y[~nan], want[~nan])
    # 48 x 256 elements a matrix (not a multiple of 8192): not this kernel.
    small = dq_example(call, 3, (3, 48, 256), seed=6)
    assert ops._dequantize_plan(*small, s, kind, packing, br, bc, "row_major", 0, dtype,
                                True) is None
