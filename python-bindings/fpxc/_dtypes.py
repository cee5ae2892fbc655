"""Artifact dtype words <-> torch dtypes."""

import torch

# float8_e8m0fnu exists from torch 2.7 on; older versions carry its bytes as
# uint8.
_E8M0 = getattr(torch, "float8_e8m0fnu", torch.uint8)

TORCH_DTYPE = {
    "f32": torch.float32,
    "bf16": torch.bfloat16,
    "f16": torch.float16,
    "f8e4m3fn": torch.float8_e4m3fn,
    "f8e5m2": torch.float8_e5m2,
    "f8e8m0fnu": _E8M0,
    "i8": torch.int8,
    "u8": torch.uint8,
    "i32": torch.int32,
    "i64": torch.int64,
}

WORD = {v: k for k, v in TORCH_DTYPE.items()}
WORD[torch.uint8] = "u8"  # e8m0 may alias uint8 on old torch

E8M0 = _E8M0


def word_of(dtype):
    """The artifact word for a torch dtype (KeyError if it has none)."""
    return WORD[dtype]
