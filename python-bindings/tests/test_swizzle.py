"""fpx.swizzle_scales on the CPU against a layout written out here from its
definition (docs/formats.md section 6): a (rows, cols) scale matrix padded
with zeros to multiples of 128 rows and 4 columns, 128x4 tiles row-major,
tile element (r, c) at (r % 32) * 16 + (r % 128) // 32 * 4 + c; with group
ends, each group of rows padded and tiled on its own, one after another,
zero to the upper bound cdiv(rows + 128 * groups, 128) * 128."""

import pytest
import torch

import fpxc
from fpxc import InvalidArgumentError


def blocked(s):
    rows, cols = s.shape
    pr, pc = -(-rows // 128) * 128, -(-cols // 4) * 4
    out = torch.zeros(pr * pc, dtype=torch.uint8)
    tiles_per_row = pc // 4
    for r in range(rows):
        for c in range(cols):
            tile = (r // 128) * tiles_per_row + c // 4
            out[tile * 512 + (r % 32) * 16 + (r % 128) // 32 * 4 + c % 4] = s[r, c]
    return out


def blocked_groups(s, ends):
    rows, cols = s.shape
    pc = -(-cols // 4) * 4
    upper = -(-(rows + 128 * len(ends)) // 128) * 128
    parts, begin = [], 0
    for end in ends:
        if end > begin:
            parts.append(blocked(s[begin:end]))
        begin = end
    flat = torch.cat(parts) if parts else torch.zeros(0, dtype=torch.uint8)
    out = torch.zeros(upper * pc, dtype=torch.uint8)
    out[:flat.numel()] = flat
    return out


@pytest.mark.parametrize("rows,cols", [(1, 1), (7, 13), (128, 4), (300, 9)])
def test_swizzle_matches_the_layout(rows, cols):
    g = torch.Generator().manual_seed(rows * 100 + cols)
    s = torch.randint(0, 256, (rows, cols), dtype=torch.uint8, generator=g)
    got = fpxc.swizzle_scales(s)
    assert got.shape == (-(-rows // 128) * 128, -(-cols // 4) * 4)
    assert torch.equal(got.reshape(-1), blocked(s))


@pytest.mark.parametrize("ends", [[300], [0, 100, 100, 228, 300], [128, 256, 300], [1, 2, 300]])
def test_grouped_swizzle_matches_the_layout(ends):
    s = torch.randint(0, 256, (300, 6), dtype=torch.uint8, generator=torch.Generator().manual_seed(1))
    e = torch.tensor(ends, dtype=torch.int32)
    got = fpxc.swizzle_scales(s.view(torch.float8_e8m0fnu), e)
    assert got.dtype == torch.float8_e8m0fnu
    assert got.shape == (-(-(300 + 128 * len(ends)) // 128) * 128, 8)
    assert torch.equal(got.view(torch.uint8).reshape(-1), blocked_groups(s, ends))


@pytest.mark.parametrize("ends,why", [([200, 100, 300], "non-decreasing"),
                                      ([100, 200], "end at rows"),
                                      ([-1, 300], "non-decreasing")])
def test_bad_group_ends_are_named_errors(ends, why):
    s = torch.zeros(300, 6, dtype=torch.uint8)
    for check in (True, False):  # the CPU reads them either way
        with pytest.raises(InvalidArgumentError, match=why):
            fpxc.swizzle_scales(s, torch.tensor(ends, dtype=torch.int32), check=check)


def test_bad_arguments_are_named_errors():
    with pytest.raises(InvalidArgumentError, match="byte scales"):
        fpxc.swizzle_scales(torch.zeros(4, 4))
    with pytest.raises(InvalidArgumentError, match="2-D"):
        fpxc.swizzle_scales(torch.zeros(2, 4, 4, dtype=torch.uint8))
    with pytest.raises(InvalidArgumentError, match="int32"):
        fpxc.swizzle_scales(torch.zeros(4, 4, dtype=torch.uint8), torch.tensor([4]))


@pytest.mark.parametrize("shape,block,fmt", [((96, 200), (32, 1), "mxfp8_e4m3"),
                                             ((3, 64, 136), (32, 1), "mxfp8_e4m3"),
                                             ((2, 96, 40), (16, 1), "nvfp4")])
def test_blocked_column_scales_are_each_matrix_swizzled(shape, block, fmt):
    """scale_layout="blocked" with column blocks: each matrix's (K, M / block)
    row-major scales in their own 128x4 tiles (what the column kernels write)."""
    x = torch.randn(shape, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    kw = dict(format=fmt, block=block)
    if fmt == "nvfp4":
        kw["global_scale"] = False
    rm = fpxc.quantize(x, **kw).scales
    bl = fpxc.quantize(x, scale_layout="blocked", **kw).scales
    mats = [rm] if rm.dim() == 2 else list(rm)
    want = torch.stack([blocked(m.view(torch.uint8)) for m in mats])
    assert torch.equal(bl.view(torch.uint8).reshape(len(mats), -1), want)
