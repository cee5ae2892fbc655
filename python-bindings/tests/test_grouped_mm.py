"""fpxc.grouped_mm, the grouped (MoE) fp8 GEMM of QuantizedTensors.

CPU tests always run: the API, its errors, the CPU path (and the masked form
the CUDA fallback takes) against an fp64 matmul per group of the numerics
core's dequantized operands (fpxc.dequantize), the fake kernel under opcheck
and torch.compile, the bundle builder's entries and specs. Those marked gpu
need an sm_90a GPU and the bundled kernels (the core bundle: e4m3 x e4m3,
bf16 out; a full bundle through FPX_KERNEL_DIR adds the e5m2 pairs and f32):
against the same oracle (relative error <= 1e-3 before the output cast),
G = 1, uneven groups with empty and one-row ones, M not a multiple of 128,
rows past the last end, CUDA graphs replayed on new offs and codes,
torch.compile, the C++ API and torch._scaled_grouped_mm.
"""

import pathlib
import subprocess

import pytest
import torch

import fpxc
from fpxc import QuantizedTensor, bundle, grouped, ops, scaled

FMTS = ["fp8_e4m3", "fp8_e5m2"]
ROOT = pathlib.Path(__file__).resolve().parents[2]


def operands(m, n, k, g, fa="fp8_e4m3", fb="fp8_e4m3", device="cpu", seed=0):
    """x (M, K) and the experts' w (G, N, K), rows of different magnitudes
    (so that row scales differ), quantized per row on the CPU (the GPU tests
    test the GEMM alone)."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(m, k, generator=gen) * torch.rand(m, 1, generator=gen).mul(8).exp2()
    w = torch.randn(g, n, k, generator=gen) * torch.rand(g, n, 1, generator=gen).mul(8).exp2()
    qa = fpxc.quantize(x, fa, block=(1, 0))
    qb = fpxc.quantize(w, fb, block=(1, 0))
    return tuple(QuantizedTensor(q.data.to(device), q.scales.to(device), None) for q in (qa, qb))


def ends(sizes, device="cpu"):
    """Group sizes -> torch._scaled_grouped_mm's offs (int32 end rows)."""
    return torch.tensor(sizes, dtype=torch.int32).cumsum(0).to(torch.int32).to(device)


def oracle(qa, qb, offs):
    """Each group's fp64 matmul of the numerics core's dequantized rows and
    expert (fp32 values: exact in fp64), the ends read as the kernel reads
    them: clamped to [0, M], an end below its start an empty group, rows past
    the last end zeros (a row two groups claim: the later group's)."""
    fa, fb = scaled.FORMATS[qa.data.dtype], scaled.FORMATS[qb.data.dtype]
    da = fpxc.dequantize(qa.data.cpu(), qa.scales.cpu(), format=fa, block=(1, 0)).double()
    db = fpxc.dequantize(qb.data.cpu(), qb.scales.cpu(), format=fb, block=(1, 0)).double()
    m, n = da.shape[0], db.shape[1]
    y = torch.zeros(m, n, dtype=torch.float64)
    start = 0
    for g, end in enumerate(offs.cpu().tolist()):
        end = min(max(end, 0), m)
        if end > start:
            y[start:end] = da[start:end] @ db[g].T
        start = end
    y[start:] = 0
    return y


def rel(got, want):
    got, want = got.detach().cpu().double(), want.detach().cpu().double()
    return ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def err(match):
    return pytest.raises(fpxc.InvalidArgumentError, match=match)


# (m, n, k, group sizes): one group; uneven groups with an empty and a
# one-row one, M not a multiple of 128; rows past the last end
CASES = [(64, 40, 64, [64]), (300, 72, 208, [50, 0, 1, 77, 3, 100, 0, 69]),
         (130, 24, 48, [30, 0, 60])]


@pytest.mark.parametrize("fa,fb", [(a, b) for a in FMTS for b in FMTS])
@pytest.mark.parametrize("m,n,k,sizes", CASES)
def test_cpu_is_the_matmul_of_each_groups_dequantized_operands(fa, fb, m, n, k, sizes):
    qa, qb = operands(m, n, k, len(sizes), fa, fb, seed=m + n + k)
    offs = ends(sizes)
    want = oracle(qa, qb, offs)
    y = fpxc.grouped_mm(qa, qb, offs, out_dtype=torch.float32)
    assert y.dtype == torch.float32 and y.shape == (m, n)
    assert rel(y, want) <= 1e-6
    last = int(offs[-1])
    assert torch.equal(y[last:], torch.zeros(m - last, n)), "rows past the last end are zeros"
    # bfloat16 by default, float16: that fp32 result rounded once
    assert torch.equal(fpxc.grouped_mm(qa, qb, offs), y.bfloat16())
    assert torch.equal(fpxc.grouped_mm(qa, qb, offs, out_dtype=torch.float16), y.half())
    # the masked form of the CUDA fallback (offs never read on the host)
    masked = grouped._reference(qa.data, qa.scales, qb.data, qb.scales, offs, torch.float32,
                                masked=True)
    assert rel(masked, want) <= 1e-6
    assert torch.equal(masked[last:], y[last:])


def test_ends_are_read_as_the_kernel_reads_them():
    """Ends past M are M, negative ones 0; an end below its start is an
    empty group (a row two groups then claim gets either one's values)."""
    m, n, k = 10, 16, 32
    qa, qb = operands(m, n, k, 3, seed=1)
    for offs in ([4, 7, 99], [-3, 4, 10], [6, 2, 9]):
        offs = torch.tensor(offs, dtype=torch.int32)
        want = oracle(qa, qb, offs)
        for masked in (False, True):
            y = grouped._reference(qa.data, qa.scales, qb.data, qb.scales, offs, torch.float32,
                                   masked=masked)
            assert rel(y, want) <= 1e-6, (offs, masked)
    offs = torch.tensor([6, 2, 9], dtype=torch.int32)
    y = fpxc.grouped_mm(qa, qb, offs, out_dtype=torch.float32).double()
    da = fpxc.dequantize(qa.data, qa.scales, format="fp8_e4m3", block=(1, 0)).double()
    db = fpxc.dequantize(qb.data, qb.scales, format="fp8_e4m3", block=(1, 0)).double()
    for r in range(2, 6):  # (claimed by groups 0 and 2)
        assert min(rel(y[r], da[r] @ db[g].T) for g in (0, 2)) <= 1e-6, r


def test_empty_operands_and_groups():
    for m, n, k, sizes in ((0, 8, 16, [0, 0]), (4, 0, 16, [4]), (4, 8, 0, [1, 3]),
                           (4, 8, 16, [])):
        qa, qb = operands(max(m, 1), max(n, 1), max(k, 16), max(len(sizes), 1))
        qa = QuantizedTensor(qa.data[:m, :k].contiguous(), qa.scales[:m], None)
        qb = QuantizedTensor(qb.data[:len(sizes), :n, :k].contiguous(),
                             qb.scales[:len(sizes), :n], None)
        y = fpxc.grouped_mm(qa, qb, ends(sizes) if sizes else torch.zeros(0, dtype=torch.int32),
                            out_dtype=torch.float32)
        assert y.shape == (m, n) and torch.equal(y, torch.zeros(m, n))


def test_quantize_gives_3d_weights_the_row_scales_grouped_mm_takes():
    w = torch.randn(3, 24, 64)
    qw = fpxc.quantize(w, "fp8_e4m3", block=(1, 0))
    assert qw.data.shape == (3, 24, 64) and qw.scales.shape == (3, 24, 1)
    assert qw.scales.dtype == torch.float32 and qw.scale_layout == "row_major"


def test_errors_name_the_op_and_the_cause():
    qa, qb = operands(8, 16, 64, 2)
    offs = ends([3, 5])
    with err("fpxc.grouped_mm: a must be a QuantizedTensor"):
        fpxc.grouped_mm(qa.data, qb, offs)
    with err("fpxc.grouped_mm: b must be a QuantizedTensor"):
        fpxc.grouped_mm(qa, qb.data, offs)
    with err(r"fpxc.grouped_mm: a has 1x128 blockwise fp32 scales .*scales of shape \(8, 2\).* "
             r"it takes fp8 codes .*block=\(1, 0\)"):
        fpxc.grouped_mm(fpxc.quantize(torch.randn(8, 256), "fp8_e4m3"),
                        operands(8, 16, 256, 2)[1], offs)
    with err(r"fpxc.grouped_mm: b has one fp32 scale \(block=\(0, 0\)\) \(scales of shape "
             r"\(2, 1, 1\)\)"):
        fpxc.grouped_mm(qa, fpxc.quantize(torch.randn(2, 16, 64), "fp8_e4m3", block=(0, 0)), offs)
    with err(r"fpxc.grouped_mm: a has one fp32 scale"):
        fpxc.grouped_mm(fpxc.quantize(torch.randn(8, 64), "fp8_e4m3", block=(0, 0)), qb, offs)
    with err(r"fpxc.grouped_mm: b has MXFP8 e8m0 1x32 scales .*\(2, 16, 2\)"):
        mx = fpxc.quantize(torch.randn(2, 16, 64), "mxfp8_e4m3")
        fpxc.grouped_mm(qa, QuantizedTensor(mx.data, mx.scales, None), offs)
    with err(r"fpxc.grouped_mm: a must hold fp8 codes .*uint8"):
        nv = fpxc.quantize(torch.randn(8, 64), "nvfp4")
        fpxc.grouped_mm(QuantizedTensor(nv.data, nv.scales, None), qb, offs)
    with err(r"fpxc.grouped_mm: a has a global scale \(NVFP4's\)"):
        fpxc.grouped_mm(QuantizedTensor(qa.data, qa.scales, torch.ones(())), qb, offs)
    with err(r"fpxc.grouped_mm: b has scales in the blocked layout"):
        fpxc.grouped_mm(qa, qb._replace(scale_layout="blocked"), offs)
    with err(r"fpxc.grouped_mm: b must be 3-D \(G, N, K\)"):
        fpxc.grouped_mm(qa, operands(16, 8, 64, 1)[0], offs)
    with err(r"fpxc.grouped_mm: a must be 2-D \(M, K\)"):
        fpxc.grouped_mm(QuantizedTensor(qb.data, qb.scales, None), qb, offs)
    with err(r"a is 8 x 64 and b is 2 x 16 x 32"):
        fpxc.grouped_mm(qa, operands(8, 16, 32, 2)[1], offs)
    with err(r"a is 64 x 16 and b is 2 x 16 x 64: .*transpose \(G, K, N\)"):
        sq = operands(64, 16, 16, 2)[0]
        fpxc.grouped_mm(sq, operands(8, 16, 64, 2)[1], offs)
    with err(r"K \(40\) must be a multiple of 16"):
        fpxc.grouped_mm(*operands(8, 16, 40, 2), offs)
    with err(r"offs must be int32 of shape \(2,\) .*got torch.int64"):
        fpxc.grouped_mm(qa, qb, offs.long())
    with err(r"offs must be int32 of shape \(2,\) .*of shape \(3,\)"):
        fpxc.grouped_mm(qa, qb, ends([3, 5, 0]))
    with err(r"offs must be int32 of shape \(2,\) .*of shape \(1, 2\)"):
        fpxc.grouped_mm(qa, qb, offs[None])
    with err(r"offs must be a torch.Tensor, got list"):
        fpxc.grouped_mm(qa, qb, [3, 8])
    with err(r"b must be K-major .*strides"):
        t = qb.data.transpose(1, 2).contiguous().transpose(1, 2)
        fpxc.grouped_mm(qa, QuantizedTensor(t, qb.scales, None), offs)
    with err("scales of shape"):
        fpxc.grouped_mm(qa, QuantizedTensor(qb.data, qb.scales.bfloat16(), None), offs)
    with err("out_dtype must be"):
        fpxc.grouped_mm(qa, qb, offs, out_dtype=torch.int32)
    # the op checks its arguments itself (the fake kernel too)
    with err(r"fpxc.grouped_mm: K \(40\)"):
        e4m3 = torch.float8_e4m3fn
        torch.ops.fpxc.grouped_mm(torch.zeros(2, 40, dtype=e4m3), torch.ones(2, 1),
                                  torch.zeros(1, 3, 40, dtype=e4m3), torch.ones(1, 3, 1),
                                  ends([2]), torch.float32)


def test_a_gpu_without_the_kernels_target_is_refused(monkeypatch):
    monkeypatch.setattr(bundle, "_device_targets", lambda d: ["sm_80", "sm_80"])
    monkeypatch.setattr(scaled, "_targets_ok", {})
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda d=None: (8, 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda d=None: "A100")
    with pytest.raises(fpxc.WrongArchitectureError, match=r"fpxc.grouped_mm: .*sm_90a.*sm_80"):
        scaled._check_target(torch.device("cuda", 0), grouped.OP)


def test_the_op_schema_and_fake_kernel():
    qa, qb = operands(9, 24, 64, 3)
    offs = ends([4, 0, 5])
    for out in (torch.float32, torch.bfloat16):
        # (test_schema's mode multiplies the float8 codes, which torch cannot)
        torch.library.opcheck(torch.ops.fpxc.grouped_mm.default,
                              (qa.data, qa.scales, qb.data, qb.scales, offs, out),
                              test_utils=("test_faketensor", "test_autograd_registration",
                                          "test_aot_dispatch_dynamic"))
    with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        fa, fsa, fb, fsb, fo = (mode.from_tensor(t)
                                for t in (qa.data, qa.scales, qb.data, qb.scales, offs))
        y = torch.ops.fpxc.grouped_mm(fa, fsa, fb, fsb, fo, torch.bfloat16)
        assert y.shape == (9, 24) and y.dtype == torch.bfloat16
        with err(r"a is 9 x 48 and b is 3 x 24 x 64"):
            torch.ops.fpxc.grouped_mm(fa[:, :48], fsa, fb, fsb, fo, torch.bfloat16)


def test_under_torch_compile_fullgraph():
    x, w = torch.randn(40, 96), torch.randn(4, 24, 96)
    offs = ends([10, 0, 25, 2])

    def f(x, w, offs):
        qx = fpxc.quantize(x, "fp8_e4m3", block=(1, 0))
        qw = fpxc.quantize(w, "fp8_e4m3", block=(1, 0))
        return fpxc.grouped_mm(qx, qw, offs, out_dtype=torch.float32)

    g = torch.compile(f, fullgraph=True)
    assert torch.equal(g(x, w, offs), f(x, w, offs))
    qa, qb = operands(40, 24, 96, 4)
    h = torch.compile(lambda a, b, o: fpxc.grouped_mm(a, b, o), fullgraph=True)
    assert torch.equal(h(qa, qb, offs), fpxc.grouped_mm(qa, qb, offs))
    new = ends([1, 30, 0, 9])  # (new ends, the same graph)
    assert torch.equal(h(qa, qb, new), fpxc.grouped_mm(qa, qb, new))


# --- the bundle builder --------------------------------------------------------------

from builder import load as _builder, compile_config, with_fpxc  # noqa: E402,E501
from bundled import NoFallback, captured, kernel_entries, load_cpp  # noqa: E402


def test_the_bundle_builder_writes_the_packages_keys():
    bb = _builder()
    for which, fmts, outs in (("core", ["fp8_e4m3"], ["bf16"]), ("full", FMTS, ["bf16", "f32"])):
        got = [c["options"] for c in bb.grouped_mm_configurations(which)]
        want = [scaled.bundle_options(a, b, "row", "row", o, op="grouped_mm")
                for a in fmts for b in fmts for o in outs]
        assert sorted(map(str, got)) == sorted(map(str, want))
    c = bb.grouped_mm_configurations("core")[0]
    assert bb.name_of(c["options"]) == "gmm_e4m3_e4m3_row_row_bf16"
    assert bb.for_target(c, "sm_90a") and not bb.for_target(c, "sm_100a")
    assert c["call"] == {"a": {"format": "fp8_e4m3", "block": [1, 0]},
                         "b": {"format": "fp8_e4m3", "block": [1, 0]}, "out_dtype": "bfloat16"}


def _spec_lines(text):
    return [line for line in text.splitlines() if line.strip() and not line.startswith("//")]


def test_the_grouped_mm_specs_are_the_gpu_tests_and_compile(tmp_path):
    bb, fpxc_bin = with_fpxc()
    # the core entry's spec is the GPU test's (GroupedMatmulKernelTest.cpp), but its name
    c = bb.grouped_mm_configurations("core")[0]
    spec = (ROOT / "test/gpu/specs/sm_90a/gmm_e4m3_row_bf16.mlir").read_text()
    assert _spec_lines(bb.any_spec_text(c["options"], "gmm_e4m3_row_bf16")) == _spec_lines(spec)
    configs = [c for c in bb.named_configs("full") if c["options"]["op"] == "grouped_mm"]
    assert len(configs) == 8
    for c in configs:
        r, info = compile_config(c, fpxc_bin, tmp_path)
        assert info is not None, r.stderr

        def shapes(m, n, k, g):
            return [[m, k], [m, 1], [g, n, k], [g, n, 1], [g]]
        assert info.accepts(c["name"], shapes(300, 72, 4096, 8))[0]
        assert not info.accepts(c["name"], shapes(300, 72, 4008, 8))[0]  # K % 16
        assert not info.accepts(c["name"], shapes(300, 72, 4096, 1025))[0]  # the group table
        bad = shapes(300, 72, 4096, 8)
        bad[4] = [7]  # one end a group
        assert not info.accepts(c["name"], bad)[0]
    r = subprocess.run([fpxc_bin, "compile", str(tmp_path / f"{configs[0]['name']}.mlir"),
                        "--target", "sm_100a", "-o", str(tmp_path / "x")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "needs wgmma" in r.stderr


# --- GPU -----------------------------------------------------------------------------

ENTRIES = kernel_entries("grouped_mm")


def _NoFallback():
    return NoFallback("grouped_mm")


# (m, n, k, group sizes): G = 1; G = 8 uneven with an empty and a one-row
# group, M not a multiple of 128; rows past the last end; a large MoE shape
GPU_CASES = [(256, 192, 128, [256]), (1, 64, 16, [1]),
             (1000, 300, 208, [300, 0, 1, 129, 7, 250, 0, 313]),
             (700, 256, 512, [100, 200, 0, 150]),
             (4096, 2048, 1024, [700, 12, 1500, 0, 900, 984])]


def _check_gpu(y, qa, qb, offs, out):
    want = oracle(qa, qb, offs)
    assert y.dtype == out and y.shape == want.shape and y.is_cuda
    e = rel(y, want)
    # f32: the accumulation order's error alone; bf16: that plus the rounding
    assert e <= (1e-3 if out == torch.float32 else 1e-3 + 2 ** -8), e
    last = min(int(offs[-1]), y.shape[0])
    assert not y[last:].any(), "rows past the last end are zeros"


@pytest.mark.gpu
def test_gpu_the_package_bundles_the_kernel():
    got = {(e.options["a_format"], e.options["b_format"], e.options["output_dtype"])
           for e in ENTRIES}
    assert ("fp8_e4m3", "fp8_e4m3", "bf16") in got


@pytest.mark.gpu
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.function)
def test_gpu_kernel_is_the_matmul_of_each_groups_dequantized_operands(entry):
    o = entry.options
    out = {"bf16": torch.bfloat16, "f32": torch.float32}[o["output_dtype"]]
    with _NoFallback():
        for m, n, k, sizes in GPU_CASES:
            qa, qb = operands(m, n, k, len(sizes), o["a_format"], o["b_format"], "cuda",
                              seed=m + n + k)
            offs = ends(sizes, "cuda")
            _check_gpu(fpxc.grouped_mm(qa, qb, offs, out_dtype=out), qa, qb, offs, out)


@pytest.mark.gpu
def test_gpu_cuda_graph_replays_with_new_offs_and_codes():
    """A call captured once, replayed with other group ends (offs copied in
    place: sizes moved, a group emptied, rows left past the end) and other
    codes and scales: the kernel reads the ends on the device."""
    m, n, k = 1000, 300, 512
    qa, qb = operands(m, n, k, 8, device="cuda", seed=1)
    offs = ends([120, 0, 1, 300, 200, 79, 150, 150], "cuda")
    with _NoFallback():
        graph, static_y = captured(lambda: fpxc.grouped_mm(qa, qb, offs))
    graph.replay()
    torch.cuda.synchronize()
    _check_gpu(static_y, qa, qb, offs, torch.bfloat16)
    for seed, sizes in ((2, [0, 500, 3, 1, 0, 200, 96, 100]), (3, [1, 1, 1, 1, 1, 1, 1, 600])):
        na, nb = operands(m, n, k, 8, device="cuda", seed=seed)
        for q, new in ((qa, na), (qb, nb)):
            q.data.copy_(new.data)
            q.scales.copy_(new.scales)
        offs.copy_(ends(sizes, "cuda"))
        graph.replay()
        torch.cuda.synchronize()
        _check_gpu(static_y, qa, qb, offs, torch.bfloat16)
        with _NoFallback():
            assert torch.equal(static_y, fpxc.grouped_mm(qa, qb, offs))


@pytest.mark.gpu
def test_gpu_cached_plan_and_compile(monkeypatch):
    """The first call of a signature leaves a plan in the C++ op; later
    calls (eager with other ends, the compiled graph's op) launch it without
    Python and give the same bits."""
    from fpxc import _fpx
    _fpx._clear_plans()
    qa, qb = operands(700, 256, 512, 4, device="cuda", seed=4)
    offs = ends([100, 200, 0, 150], "cuda")
    with _NoFallback():
        first = fpxc.grouped_mm(qa, qb, offs)
        assert _fpx._plan_count() == 1, "the first call left a plan"
        calls = []
        real = grouped._check
        monkeypatch.setattr(grouped, "_check", lambda *a: (calls.append(1), real(*a))[1])
        assert torch.equal(fpxc.grouped_mm(qa, qb, offs), first)
        other = ends([0, 0, 700, 0], "cuda")
        y = fpxc.grouped_mm(qa, qb, other)
        assert not calls, "a cached call reached Python"
        _check_gpu(y, qa, qb, other, torch.bfloat16)
        f = torch.compile(lambda a, b, o: fpxc.grouped_mm(a, b, o), fullgraph=True)
        assert torch.equal(f(qa, qb, offs), first)  # (tracing runs the fake kernel: _check)
        calls.clear()
        assert torch.equal(f(qa, qb, other), y)
        assert not calls, "a compiled call reached Python"


@pytest.mark.gpu
def test_gpu_calls_without_a_kernel_warn_and_run_without_a_host_read():
    """float16 results (no kernel writes them): the reference on the device,
    with the warning; its ends stay on the device (a CUDA graph captures it
    and replays it with new ends)."""
    qa, qb = operands(300, 64, 32, 3, device="cuda")
    # (a's scales 2^-8 smaller: the products within float16's range)
    qa = qa._replace(scales=qa.scales * 2 ** -8)
    offs = ends([100, 0, 150], "cuda")
    ops._warned.difference_update({w for w in ops._warned if w[0] == "grouped_mm"})
    with pytest.warns(RuntimeWarning, match="no prebuilt kernel for grouped_mm .*no kernel "
                                            "writes torch.float16"):
        y = fpxc.grouped_mm(qa, qb, offs, out_dtype=torch.float16)
    _check_gpu(y, qa, qb, offs, torch.float16)
    graph, static_y = captured(lambda: fpxc.grouped_mm(qa, qb, offs, out_dtype=torch.float16))
    offs.copy_(ends([10, 280, 5], "cuda"))
    graph.replay()
    torch.cuda.synchronize()
    _check_gpu(static_y, qa, qb, offs, torch.float16)


@pytest.mark.gpu
def test_gpu_errors_are_the_cpus():
    qa, qb = operands(8, 16, 64, 2, device="cuda")
    with err("on one device"):
        fpxc.grouped_mm(qa, qb, ends([3, 5]))
    with err(r"K \(40\) must be a multiple of 16"):
        fpxc.grouped_mm(*operands(8, 16, 40, 2, device="cuda"), ends([3, 5], "cuda"))


@pytest.mark.gpu
def test_gpu_is_torch_scaled_grouped_mm_of_the_transpose():
    """torch._scaled_grouped_mm(a, b.transpose(-2, -1), sa (M,), sb (G, N),
    offs) within bf16 rounding on the rows of the groups, where torch takes
    the call."""
    if not hasattr(torch, "_scaled_grouped_mm"):
        pytest.skip(f"torch {torch.__version__} has no torch._scaled_grouped_mm")
    for m, n, k, sizes in ((1024, 512, 1024, [256, 0, 128, 512, 128]),
                           (4096, 2048, 1024, [700, 12, 1500, 0, 900, 984])):
        g = len(sizes)
        qa, qb = operands(m, n, k, g, device="cuda", seed=k)
        offs = ends(sizes, "cuda")
        try:
            want = torch._scaled_grouped_mm(qa.data, qb.data.transpose(-2, -1),
                                            qa.scales.view(-1), qb.scales.view(g, n), offs=offs,
                                            out_dtype=torch.bfloat16)
        except RuntimeError as e:
            pytest.skip(f"torch._scaled_grouped_mm refuses the call: {e}")
        with _NoFallback():
            got = fpxc.grouped_mm(qa, qb, offs)
        last = int(offs[-1])
        assert rel(got[:last], want[:last]) <= 2 ** -7, (m, n, k)


@pytest.mark.gpu
def test_gpu_cpp_api_calls_the_same_op(tmp_path):
    """python-bindings/include/fpxc/TorchOps.h's groupedMM: the dispatcher's
    op, the Python API's bits."""
    mod = load_cpp("fpxc_cpp_grouped_mm_test", '''
#include "fpxc/TorchOps.h"
at::Tensor run(const at::Tensor &a, const at::Tensor &sa, const at::Tensor &b,
               const at::Tensor &sb, const at::Tensor &offs) {
  return fpx::torch_ops::groupedMM(a, sa, b, sb, offs);
}''', ["run"], tmp_path)
    qa, qb = operands(700, 256, 512, 4, device="cuda", seed=9)
    offs = ends([100, 200, 0, 150], "cuda")
    with _NoFallback():
        for _ in range(2):  # the second call: the cached plan
            y = mod.run(qa.data, qa.scales, qb.data, qb.scales, offs)
            assert torch.equal(y, fpxc.grouped_mm(qa, qb, offs))
    _check_gpu(y, qa, qb, offs, torch.bfloat16)
