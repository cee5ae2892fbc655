"""Random arguments to the Python API: every call succeeds or raises one of
fpx's named errors; none crashes the process or raises a bare TypeError /
ValueError / RuntimeError. (A run of this found blocked scales too short for
their shape read past their end.)"""
import random

import pytest
import torch

import fpxc
from fpxc import _errors

FPX_ERRORS = tuple(getattr(_errors, n) for n in dir(_errors) if n.endswith("Error"))
FORMATS = ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "nvfp4", "fp8_e4m3",
           "fp8_e5m2", "e3m2", "bogus", ""]
BLOCKS = [None, (1, 32), (32, 1), (1, 16), (16, 1), (16, 16), (32, 32), (128, 128), (1, 128),
          (0, 0), (1, 0), (3, 5), (1, -1), (0, 1), 7, (None, None), (1, 2, 3)]


def _quantize_call(r):
    kw = dict(format=r.choice(FORMATS), block=r.choice(BLOCKS),
              rule=r.choice([None, "floor", "ceil", "even", "rceil", "rceil_rcp", "pow2", "zzz"]),
              rounding=r.choice(["rn", "rz", "rs", "rp", "xx"]),
              scale_layout=r.choice(["row_major", "blocked", "weird"]),
              packing=r.choice(["auto", "fp4x2", "bytes", "planes", "interleaved", "4+2",
                                "contiguous", "zz"]),
              seed=r.choice([0, 1, -1, 2 ** 63]), hadamard=r.choice([0, 0, 16, 32, 3, 256]),
              global_scale=r.choice([True, False]))
    if r.random() < 0.2:
        kw["amax"] = r.choice([torch.tensor(3.0), 2.0, torch.tensor([1.0, 2.0]), "x",
                               torch.tensor(float("nan"))])
    shape = r.choice([(16, 64), (32, 32), (7, 48), (0, 32), (2, 16, 64), (64,), (1, 1, 1, 32)])
    dt = r.choice([torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.float64])
    x = (torch.randn(shape) * 3).to(dt) if dt.is_floating_point else torch.ones(shape, dtype=dt)
    q = fpxc.quantize(x, **kw)
    try:
        fpxc.dequantize(q, format=kw["format"], block=kw["block"],
                       scale_layout=kw["scale_layout"], packing=kw["packing"])
    except FPX_ERRORS:
        pass


def _dequantize_call(r):
    data = torch.randint(0, 255, r.choice([(16, 32), (16, 64), (4, 4), (0, 8), (2, 16, 32)]),
                         dtype=torch.uint8)
    scales = r.choice([torch.randint(0, 255, (16, 2), dtype=torch.uint8), torch.ones(16, 4),
                       torch.ones(3), torch.empty(0), torch.tensor(1.0)])
    fpxc.dequantize(data, scales, format=r.choice(FORMATS[:8]),
                   block=r.choice([None, (1, 32), (1, 16), (32, 1), (5, 5)]),
                   scale_layout=r.choice(["row_major", "blocked", "x"]),
                   packing=r.choice(["auto", "fp4x2", "planes", "interleaved", "4+2", "bytes", "q"]),
                   global_scale=r.choice([None, torch.tensor(1.0), torch.ones(2)]),
                   cols=r.choice([None, 0, 64, -1, 31]),
                   dtype=r.choice([torch.float32, torch.bfloat16, torch.int8]))


def _hadamard_call(r):
    x = torch.randn(r.choice([(16, 64), (3, 32), (0, 16), (8,)]))
    x = x.to(r.choice([torch.float32, torch.bfloat16, torch.int32]))
    fpxc.hadamard(x, block=r.choice([0, 1, 2, 3, 16, 64, 256, -4, "a", 16.5]),
                 seed=r.choice([0, 1, -1]), random_signs=r.choice([True, False]))


def _fp6_call(r):
    t = torch.randint(0, 255, r.choice([(4, 8), (3, 5), (0, 4), (8,), (2, 2, 4), (4, 12), ()]))
    t = t.to(r.choice([torch.uint8, torch.uint8, torch.int32]))
    layout = r.choice(["planes", "interleaved", "4+2", "contiguous", "contiguous_msb", "bytes",
                       "x"])
    if r.random() < 0.5:
        fpxc.pack_fp6(t, layout=layout)
    else:
        fpxc.unpack_fp6(t, cols=r.choice([0, 4, 8, 12, 16, -4, 3, 1000, "8"]), layout=layout)


@pytest.mark.parametrize("seed", range(4))
def test_random_arguments_raise_named_errors(seed):
    r = random.Random(seed)
    calls = [_quantize_call, _dequantize_call, _hadamard_call, _fp6_call]
    for _ in range(150):
        try:
            r.choice(calls)(r)
        except FPX_ERRORS:
            pass
