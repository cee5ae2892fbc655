"""The fp6 "interleaved" packing (torchao PR #1810's 4+2) against that PR's
own reference packer, bit for bit, on the CPU path.

The oracle below is `pack_uint6_pytorch` from torchao's
torchao/prototype/mx_formats/custom_cast.py at commit e7bed15 (PR #1810),
ported verbatim. It is independent of fpxc: plain uint8 tensor arithmetic.
"""

import pytest
import torch

import fpxc


def pack_uint6_pytorch(uint8_data: torch.Tensor) -> torch.Tensor:
    # check shape is divisible by 4 along packing axis
    shape = uint8_data.shape
    assert shape[-1] % 4 == 0

    packed_shape = [*shape[:-1], 3 * shape[-1] // 4]

    uint8_data = uint8_data.contiguous().view(-1)

    # pack 4 bits of each of 4 numbers into 2xuint8, remaining 2 bits into 1xuint8
    bits_packed_4_a = (uint8_data[1::4] >> 2) | ((uint8_data[::4] << 2) & 0xF0)
    bits_packed_4_b = (uint8_data[2::4] >> 2) | ((uint8_data[3::4] << 2) & 0xF0)
    bits_packed_2 = (
        (uint8_data[::4] << 6)
        | ((uint8_data[1::4] << 4) & 0x30)
        | ((uint8_data[3::4] << 2) & 0xC)
        | (uint8_data[2::4] & 0x3)
    )

    return (
        torch.stack((bits_packed_4_a, bits_packed_4_b, bits_packed_2), dim=-1)
    ).view(packed_shape)


# The edge values torchao #1810's tests name (min/max normal, min/max
# subnormal, -0.0), per format, exact in it: (min normal, max normal,
# min subnormal, max subnormal).
EDGES = {
    "mxfp6_e2m3": (1.0, 7.5, 0.125, 0.875),
    "mxfp6_e3m2": (0.25, 28.0, 0.0625, 0.1875),
}


@pytest.mark.parametrize("shape", [(4,), (3, 32), (2, 5, 64), (16, 4096)])
def test_pack_matches_torchao_reference_on_random_codes(shape):
    g = torch.Generator().manual_seed(1810 + len(shape))
    codes = torch.randint(0, 64, shape, dtype=torch.uint8, generator=g)
    packed = fpxc.pack_fp6(codes, "interleaved")
    assert packed.shape == (*shape[:-1], shape[-1] * 3 // 4)
    assert torch.equal(packed, pack_uint6_pytorch(codes))
    assert torch.equal(fpxc.unpack_fp6(packed, shape[-1], "interleaved"), codes)


def test_every_code_at_every_position():
    rows = []
    for pos in range(4):
        for v in range(64):
            rows.append([v if t == pos else (v * 7 + t * 13) % 64 for t in range(4)])
    codes = torch.tensor(rows, dtype=torch.uint8).reshape(1, -1)
    assert torch.equal(fpxc.pack_fp6(codes, "interleaved"), pack_uint6_pytorch(codes))


@pytest.mark.parametrize("format", sorted(EDGES))
def test_quantize_packs_the_seed_edge_values_like_the_reference(format):
    mn, mx, smin, smax = EDGES[format]
    vals = [0.0, -0.0, mn, -mn, mx, -mx, smin, -smin, smax, -smax, 1.0, -0.5]
    vals += [0.0] * (32 - len(vals))
    # One block whose amax is the format's max: the E8M0 scale is 1 (floor:
    # 2^(floor(log2 amax) - emax) = 1), so the codes are the values' own.
    x = torch.tensor([vals], dtype=torch.float32)
    q_bytes = fpxc.quantize(x, format=format, packing="bytes")
    assert int(q_bytes.scales.view(torch.uint8)[0, 0]) == 127
    q = fpxc.quantize(x, format=format, packing="interleaved")
    assert q.data.shape == (1, 24)
    assert torch.equal(q.data.view(torch.uint8), pack_uint6_pytorch(q_bytes.data.view(torch.uint8)))
    y = fpxc.dequantize(q, format=format, packing="interleaved")
    assert y.shape == (1, 32)
    assert torch.equal(y, x)
    # -0.0 keeps its sign through pack, unpack and dequantize
    assert torch.signbit(y[0, 1]) and not torch.signbit(y[0, 0])


@pytest.mark.parametrize("format", sorted(EDGES))
def test_quantize_dequantize_random_matches_bytes(format):
    x = torch.randn(8, 128, generator=torch.Generator().manual_seed(7)) * 5
    q_bytes = fpxc.quantize(x, format=format, packing="bytes")
    q = fpxc.quantize(x, format=format, packing="interleaved")
    assert q.data.shape == (8, 96)
    assert torch.equal(q.data.view(torch.uint8), pack_uint6_pytorch(q_bytes.data.view(torch.uint8)))
    assert torch.equal(q.scales.view(torch.uint8), q_bytes.scales.view(torch.uint8))
    assert torch.equal(fpxc.dequantize(q, format=format, packing="interleaved"),
                       fpxc.dequantize(q_bytes, format=format, packing="bytes"))


def test_not_a_multiple_of_4_is_a_clear_error():
    with pytest.raises(fpxc.InvalidArgumentError, match="multiple of 4"):
        fpxc.pack_fp6(torch.zeros(2, 6, dtype=torch.uint8), "interleaved")
    with pytest.raises(fpxc.InvalidArgumentError, match="multiple of 4"):
        fpxc.unpack_fp6(torch.zeros(2, 3, dtype=torch.uint8), 6, "interleaved")
    with pytest.raises(fpxc.InvalidArgumentError, match="divisible by 4"):
        fpxc.quantize(torch.zeros(2, 6), format="mxfp6_e2m3", block=(1, 2), packing="interleaved")


def test_the_old_word_is_refused_with_both_names():
    for call in (lambda: fpxc.pack_fp6(torch.zeros(4, dtype=torch.uint8), "4+2"),
                 lambda: fpxc.quantize(torch.zeros(1, 32), format="mxfp6_e3m2", packing="4+2")):
        with pytest.raises(fpxc.InvalidArgumentError, match="ambiguous") as e:
            call()
        assert "'planes'" in str(e.value) and "'interleaved'" in str(e.value)


def test_planes_and_interleaved_differ():
    codes = torch.randint(0, 64, (2, 32), dtype=torch.uint8,
                          generator=torch.Generator().manual_seed(3))
    assert not torch.equal(fpxc.pack_fp6(codes, "planes"), fpxc.pack_fp6(codes, "interleaved"))
