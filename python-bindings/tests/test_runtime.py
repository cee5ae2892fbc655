"""Artifact loading and launching from Python."""

import json

import pytest
import torch

import fpxc

needs_gpu = pytest.mark.skipif(not (torch.cuda.is_available() and fpxc.has_gpu()),
                               reason="needs a CUDA GPU")


def test_load_lists_functions(artifact_path):
    art = fpxc.load(artifact_path)
    assert sorted(art.functions) == ["add_one", "sum"]
    assert art.target == "sm_80"
    assert art.add_one.inputs == [("x", "f32")]
    assert art.sum.scalars == [("scale", "f32", 1.0)]
    assert art.add_one.output_shapes((10,)) == [(10,)]
    assert "add_one" in dir(art)
    with pytest.raises(AttributeError, match="has no function 'nope'"):
        art.nope


def test_load_errors(tmp_path, artifact_path):
    with pytest.raises(fpxc.NotFoundError):
        fpxc.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text(artifact_path.read_text().replace('"ptr"', '"pointer"', 1))
    (tmp_path / "test.ptx").write_text((artifact_path.parent / "test.ptx").read_text())
    with pytest.raises(fpxc.InvalidArtifactError, match=r"kernels\[0\].params\[0\].type"):
        fpxc.load(bad)


def test_cpu_tensors_are_rejected(artifact_path):
    art = fpxc.load(artifact_path)
    with pytest.raises(fpxc.InvalidArgumentError, match="CUDA tensors"):
        art.add_one(torch.zeros(4))


def test_shape_errors_name_the_function(artifact_path):
    art = fpxc.load(artifact_path)
    with pytest.raises(fpxc.InvalidArgumentError, match="must have rank 1"):
        art.add_one.output_shapes((4, 4))


def test_unknown_function_key_names_the_functions(artifact_path):
    """Found by fuzzing: art["nope"] raised a bare KeyError('nope')."""
    art = fpxc.load(artifact_path)
    with pytest.raises(KeyError, match=r"has no function 'nope' \(it has \['add_one', 'sum'\]\)"):
        art["nope"]


def test_functions_named_like_artifact_attributes(tmp_path, artifact_path):
    """Found by fuzzing: a function named like an Artifact attribute is
    hidden from attribute access (documented); art[name] reaches it."""
    meta = json.loads(artifact_path.read_text())
    meta["functions"][0]["name"] = "preload"
    (tmp_path / "k.json").write_text(json.dumps(meta))
    (tmp_path / "test.ptx").write_text((artifact_path.parent / "test.ptx").read_text())
    art = fpxc.load(tmp_path / "k.json")
    assert isinstance(art["preload"], fpxc.KernelFunction) and art["preload"].name == "preload"
    assert art.functions["preload"] is art["preload"]
    assert callable(art.preload) and not isinstance(art.preload, fpxc.KernelFunction)
    assert 'art["name"]' in fpxc.Artifact.__doc__


def test_load_and_compile_arguments_are_checked(artifact_path):
    """Found by fuzzing: a path with a NUL loaded the file named by its part
    before the NUL; non-str specs, targets and options raised nanobind's
    signature TypeError."""
    with pytest.raises(fpxc.InvalidArgumentError, match="path contains a NUL"):
        fpxc.load(str(artifact_path) + "\0.this-is-not-the-path")
    with pytest.raises(fpxc.InvalidArgumentError, match="path must be a str or path-like"):
        fpxc.load(None)
    assert sorted(fpxc.load(bytes(artifact_path)).functions) == ["add_one", "sum"]
    for kw, message in [(dict(spec=None), r"spec must be MLIR text \(a str\), got NoneType"),
                        (dict(spec="module {}", options=[3]), r"options must be a list of str"),
                        (dict(spec="module {}", options="-O3"), r"options must be a list of str"),
                        (dict(spec="module {}", target=90), "target must be a str")]:
        with pytest.raises(fpxc.InvalidArgumentError, match=message):
            fpxc.compile(**kw)
    with pytest.raises(fpxc.InvalidArgumentError, match="source and arch must be strs"):
        fpxc.compile_cuda(None, "sm_80")
    with pytest.raises(fpxc.InvalidArgumentError, match="options must be a list of str"):
        fpxc.compile_cuda("", "sm_80", options=[None])


def test_scalars_are_checked(artifact_path):
    """Ints outside int64 raised std::bad_cast as a RuntimeError."""
    f = fpxc.load(artifact_path).sum
    for values, message in [([2 ** 64], "scalar 'scale' is an int outside int64"),
                            ([-2 ** 63 - 1], "outside int64"),
                            (["1"], "scalar 'scale' must be a bool, int or float, got str")]:
        with pytest.raises(fpxc.InvalidArgumentError, match=message):
            f._scalar_values(values, {})
        with pytest.raises(fpxc.InvalidArgumentError, match=message):
            f._scalar_values([], {"scale": values[0]})
    assert f._scalar_values([2.0], {}) == [2.0] and f._scalar_values([], {}) == [1.0]


def test_out_tensors_are_checked(artifact_path):
    """out= tensors are written through their pointers as the artifact's
    dtypes: a wrong dtype (a narrower one was written past its end), device
    or type is refused by name, before any CUDA call (so testable here)."""
    f = fpxc.load(artifact_path).add_one  # f32[N] -> f32[N]
    cpu, cuda = torch.device("cpu"), torch.device("cuda", 0)
    good = [torch.zeros(64)]
    assert f._check_out(good, cpu)[0] is good[0]
    assert f._check_out(tuple(good), cpu)[0] is good[0]
    for out, device, message in [
            ([torch.zeros(64, dtype=torch.float16)], cpu,
             r"out\[0\] \('y'\) must have dtype torch.float32, got torch.float16"),
            ([torch.zeros(64, dtype=torch.int32)], cpu, "must have dtype torch.float32"),
            ([torch.zeros(64)], cuda, r"out\[0\] \('y'\) must be on cuda:0 .*got cpu"),
            ([torch.zeros(64)._neg_view()], cpu, "negated"),
            ([None], cpu, r"out\[0\] \('y'\) must be a torch.Tensor, got NoneType"),
            ([[0.0] * 64], cpu, "must be a torch.Tensor, got list"),
            (torch.zeros(64), cpu, "out must be a list or tuple of 1 tensors, got Tensor"),
            ([], cpu, "list or tuple of 1 tensors, got a list of 0"),
            (good * 2, cpu, "got a list of 2")]:
        with pytest.raises(fpxc.InvalidArgumentError, match=message):
            f._check_out(out, device)


@pytest.mark.skipif(fpxc.has_gpu(), reason="a GPU is present")
def test_no_gpu_error_is_named():
    with pytest.raises(fpxc.NoDeviceError):
        fpxc._fpx.require_driver()


def test_nvrtc_compiles_when_present():
    try:
        ptx = fpxc.compile_cuda('extern "C" __global__ void k(int *p) { *p = 7; }', "sm_80")
    except fpxc.NotFoundError as e:
        pytest.skip(f"NVRTC not available: {e}")
    assert ".entry k" in ptx


@needs_gpu
def test_launch_on_two_streams(artifact_path):
    art = fpxc.load(artifact_path)
    x = torch.arange(100003, dtype=torch.float32, device="cuda")
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(s1):
        y1 = art.add_one(x)
    with torch.cuda.stream(s2):
        y2 = art.add_one(art.add_one(x))
    torch.cuda.synchronize()
    assert torch.equal(y1, x + 1)
    assert torch.equal(y2, x + 2)


@needs_gpu
def test_temps_and_scalars(artifact_path):
    art = fpxc.load(artifact_path)
    x = torch.ones(1000, device="cuda")
    assert art.sum(x).item() == 1000
    assert art.sum(x, scale=0.5).item() == 500
    assert art.sum(x, 2.0).item() == 2000


@needs_gpu
def test_gpu_argument_errors(artifact_path):
    art = fpxc.load(artifact_path)
    x = torch.zeros(64, device="cuda")
    with pytest.raises(fpxc.InvalidArgumentError, match="16-byte aligned"):
        art.add_one(x[1:])
    with pytest.raises(fpxc.InvalidArgumentError, match="dtype"):
        art.add_one(x.half())
    with pytest.raises(fpxc.InvalidArgumentError, match="not contiguous"):
        art.add_one(torch.zeros(64, 2, device="cuda")[:, 0])


@needs_gpu
def test_gpu_out_errors(artifact_path):
    """Found by fuzzing: an fp16 out for an f32 output was accepted and the
    kernel wrote past its end; an int32 out got f32 bits; a CPU out made an
    illegal memory access."""
    f = fpxc.load(artifact_path).add_one
    x = torch.arange(64, dtype=torch.float32, device="cuda")
    buf = torch.full((128,), -1, dtype=torch.float16, device="cuda")
    for out in ([buf[:64]], [torch.zeros(64, dtype=torch.int32, device="cuda")],
                [torch.zeros(64)]):
        with pytest.raises(fpxc.InvalidArgumentError, match=r"out\[0\] \('y'\) must"):
            f(x, out=out)
    torch.cuda.synchronize()
    assert bool((buf == -1).all())
    y = torch.empty(64, device="cuda")
    assert f(x, out=[y]) is y
    assert torch.equal(y, x + 1)


@needs_gpu
def test_gpu_lazily_negated_inputs(artifact_path):
    """A tensor with the negative bit set is read as its values by a
    KernelFunction and by the bundled kernels (first and planned calls)."""
    x = torch.arange(64, dtype=torch.float32, device="cuda")
    assert torch.equal(fpxc.load(artifact_path).add_one(x._neg_view()), 1 - x)
    y = torch.randn(128, 256, device="cuda", dtype=torch.bfloat16)
    for fmt in ("mxfp8_e4m3", "nvfp4"):
        want = fpxc.quantize(-y, format=fmt)
        for _ in range(2):
            got = fpxc.quantize(y._neg_view(), format=fmt)
            assert torch.equal(got.data.view(torch.uint8), want.data.view(torch.uint8))
            assert torch.equal(got.scales.view(torch.uint8), want.scales.view(torch.uint8))


@needs_gpu
def test_cuda_quantize_matches_cpu_and_compiles():
    x = torch.randn(64, 128, dtype=torch.bfloat16)
    cpu = fpxc.quantize(x, format="mxfp8_e4m3", rule="rceil")
    with pytest.warns(RuntimeWarning) if not fpxc.bundle.kernel_dirs() else _nullcontext():
        gpu = fpxc.quantize(x.cuda(), format="mxfp8_e4m3", rule="rceil")
    assert torch.equal(gpu.data.cpu().view(torch.uint8), cpu.data.view(torch.uint8))
    f = torch.compile(lambda t: fpxc.quantize(t, format="mxfp8_e4m3").data, fullgraph=True)
    assert f(x.cuda()).shape == (64, 128)


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False
