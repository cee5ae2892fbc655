"""User CUDA functions linked into fpxc kernels: fpx.load(path, link={...}).

The artifact (the `prologue_artifact` fixture, conftest.py) is
test/gpu/specs/q_mxfp8_prologue.mlir compiled by fpxc for sm_80: an MXFP8
row cast whose kernel calls `fpx_user_scale` on every input element.
"""

import json

import pytest
import torch

import fpxc

SNIPPET = 'extern "C" __device__ float fpx_user_scale(float x) { return x * 0.5f - 1.0f; }\n'


def test_link_list_is_visible(prologue_artifact, artifact_path):
    art = fpxc.load(prologue_artifact, link={"fpx_user_scale": SNIPPET})
    assert art.link_symbols == {"fpx_user_scale": "float(float)"}
    assert sorted(art.functions) == ["q_mxfp8_prologue"]
    assert fpxc.load(artifact_path).link_symbols == {}


def test_missing_symbol_is_an_error_without_a_gpu(prologue_artifact):
    with pytest.raises(fpxc.NotFoundError,
                       match=r"q_mxfp8_prologue\.json.*the kernels call the user function "
                             r"'fpx_user_scale' \(float\(float\)\), which is linked at load time"):
        fpxc.load(prologue_artifact)
    with pytest.raises(fpxc.NotFoundError, match="fpx_user_scale"):
        fpxc.load(prologue_artifact, link={})


def test_unknown_or_wrong_sources_are_errors(tmp_path, prologue_artifact, artifact_path):
    with pytest.raises(fpxc.InvalidArgumentError,
                       match="a CUDA source was given for 'fpx_user_scal' but the artifact "
                             "links only 'fpx_user_scale'"):
        fpxc.load(prologue_artifact, link={"fpx_user_scale": SNIPPET, "fpx_user_scal": SNIPPET})
    with pytest.raises(fpxc.InvalidArgumentError, match="does not mention 'fpx_user_scale'"):
        fpxc.load(prologue_artifact,
                  link={"fpx_user_scale": "__device__ float f(float x) { return x; }"})
    with pytest.raises(fpxc.InvalidArgumentError, match="links no user functions"):
        fpxc.load(artifact_path, link={"fpx_user_scale": SNIPPET})
    with pytest.raises(fpxc.InvalidArgumentError, match="link must be a dict"):
        fpxc.load(prologue_artifact, link=["fpx_user_scale"])


def test_link_field_is_validated(tmp_path, prologue_artifact):
    meta = json.loads(prologue_artifact.read_text())
    meta["link"][0]["signature"] = "double(double)"
    (tmp_path / "bad.json").write_text(json.dumps(meta))
    (tmp_path / meta["ptx"]).write_text((prologue_artifact.parent / meta["ptx"]).read_text())
    with pytest.raises(fpxc.InvalidArtifactError, match=r"link\[0\]\.signature: unknown signature"):
        fpxc.load(tmp_path / "bad.json", link={"fpx_user_scale": SNIPPET})


def _reference(x, prologue):
    """The numerics core (CPU path of fpx.quantize) on prologue(x) in fp32."""
    y = prologue(x.float().cpu())
    q = fpxc.quantize(y, format="mxfp8_e4m3", block=(1, 32), rule="rceil", rounding="rn",
                     scale_layout="row_major")
    return q.data, q.scales


@pytest.mark.gpu
@pytest.mark.parametrize("rows,cols", [(256, 1024), (3, 96), (129, 4096)])
def test_linked_prologue_equals_the_cpu_reference(rows, cols, prologue_artifact):
    art = fpxc.load(prologue_artifact, link={"fpx_user_scale": SNIPPET})
    gen = torch.Generator().manual_seed(rows * cols)
    # one random magnitude per 32-element block (the exponents broadcast to
    # (rows, cols) after repeat_interleave along the last dim)
    x = (torch.randn(rows, cols, generator=gen) * 2.0 ** torch.randint(
        -20, 20, (rows, cols // 32), generator=gen).repeat_interleave(32, -1)).bfloat16()
    x[0, :4] = torch.tensor([0.0, -0.0, float("inf"), -float("inf")])
    q, s = art.q_mxfp8_prologue(x.cuda())
    assert art.preload() == "linked"
    torch.cuda.synchronize()

    # Two roundings, as the snippet compiled with --fmad=false: torch runs
    # the multiply and the subtract as separate CPU kernels.
    def prologue(v):
        return (v * 0.5) - 1.0

    want_q, want_s = _reference(x, prologue)
    got_q = q.cpu().view(torch.uint8)
    got_s = s.cpu().view(torch.uint8)
    want_q = want_q.view(torch.uint8)
    want_s = want_s.view(torch.uint8)
    bad = (got_q != want_q).nonzero()
    plain_q, _ = _reference(x, lambda v: v)
    assert bad.numel() == 0, (
        f"{bad.shape[0]} of {got_q.numel()} codes differ, first at {bad[:5].tolist()}"
        + (" -- equal to the cast WITHOUT the prologue: the user function was not called"
           if torch.equal(got_q, plain_q.view(torch.uint8)) else ""))
    assert torch.equal(got_s, want_s), f"{(got_s != want_s).sum().item()} scales differ"


@pytest.mark.gpu
def test_link_errors_name_the_symbol_and_the_artifact(prologue_artifact):
    # C++ linkage: NVRTC defines a mangled name, the kernels stay unresolved.
    art = fpxc.load(prologue_artifact, link={
        "fpx_user_scale": "__device__ float fpx_user_scale(float x) { return x; }"})
    with pytest.raises(fpxc.NotFoundError,
                       match=r"(?s)q_mxfp8_prologue\.json.*defines no function 'fpx_user_scale'"):
        art.preload()
    art = fpxc.load(prologue_artifact, link={
        "fpx_user_scale": 'extern "C" __device__ float fpx_user_scale(float x) { return y; }'})
    with pytest.raises(fpxc.CompileError, match=r"(?s)fpx_user_scale.*undefined"):
        art.preload()
