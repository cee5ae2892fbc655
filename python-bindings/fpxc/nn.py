"""Weight-only quantized modules.

    model = fpxc.nn.swap_linear_(model, format="fp8_e4m3")   # in place
    lin = fpxc.nn.Linear.from_float(torch.nn.Linear(4096, 4096), format="fp8_e5m2")

Formats: fpxc.linear.WEIGHT_FORMATS ("fp8_e4m3", "fp8_e5m2", "mxfp8_e4m3",
"mxfp8_e5m2", "mxfp4", "nvfp4", "mxfp6_e2m3", "mxfp6_e3m2", "fp6_e3m2",
"fp5_e2m2") and their aliases.

fpxc.nn.Linear holds a PackedWeight (fpxc.quantize_weight) as its `weight`
submodule and an optional bias; its state_dict (weight.codes, weight.scales,
NVFP4's weight.global_scale, weight._extra_state, bias) loads with
torch.load(weights_only=True).
"""

import torch

from ._errors import InvalidArgumentError
from .linear import PackedWeight, linear, quantize_weight, weight_format


class Linear(torch.nn.Module):
    """y = x @ dequantize(weight)^T + bias through fpxc.linear. The weight is
    quantized once (from_float, swap_linear_) and frozen; gradients reach x
    and the bias."""

    def __init__(self, in_features, out_features, bias=True, format="fp8_e4m3", device=None,
                 dtype=torch.bfloat16):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = PackedWeight.empty(self.out_features, self.in_features, format, device)
        self.bias = (torch.nn.Parameter(torch.zeros(self.out_features, device=device,
                                                    dtype=dtype))
                     if bias else None)

    @property
    def format(self):
        return self.weight.format

    @classmethod
    def from_packed(cls, weight, bias=None):
        """A Linear around a PackedWeight (and a bias tensor of shape (N,))."""
        if not isinstance(weight, PackedWeight):
            raise InvalidArgumentError("fpxc.nn.Linear.from_packed: weight must be a "
                                       f"PackedWeight, got {type(weight).__name__}")
        self = cls.__new__(cls)
        torch.nn.Module.__init__(self)
        self.out_features, self.in_features = weight.shape
        self.weight = weight
        if bias is not None and not isinstance(bias, torch.nn.Parameter):
            bias = torch.nn.Parameter(bias.detach(), requires_grad=False)
        self.bias = bias
        return self

    @classmethod
    def from_float(cls, module, format="fp8_e4m3"):
        """The fpxc Linear of a torch.nn.Linear (its weight quantized once,
        its bias kept)."""
        if not isinstance(module, torch.nn.Linear):
            raise InvalidArgumentError("fpxc.nn.Linear.from_float takes a torch.nn.Linear, got "
                                       f"{type(module).__name__}")
        return cls.from_packed(quantize_weight(module.weight, format), module.bias)

    def forward(self, x):
        return linear(x, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}, format={self.weight.format}")


def swap_linear_(model, format="fp8_e4m3", filter=None):
    """Replaces the torch.nn.Linear modules of `model` (the model itself
    too) with fpxc.nn.Linear in place, each weight quantized once (Linears
    sharing one weight share one PackedWeight). filter(module, fqn) -> bool
    picks the modules to swap (torchao's filter_fn convention; fqn is the
    module's name in model, "" for model itself); None swaps all. Returns the
    model (or its replacement when model is itself a Linear)."""
    fmt = weight_format(format)  # an unknown format is an error before any swap
    if not isinstance(model, torch.nn.Module):
        raise InvalidArgumentError(f"fpxc.nn.swap_linear_ takes a torch.nn.Module, got "
                                   f"{type(model).__name__}")
    if filter is not None and not callable(filter):
        raise InvalidArgumentError("fpxc.nn.swap_linear_: filter must be a callable "
                                   "(module, fqn) -> bool or None")
    packed = {}  # id(weight) -> PackedWeight

    def swapped(module, fqn):
        if not isinstance(module, torch.nn.Linear) or (filter is not None
                                                       and not filter(module, fqn)):
            return None
        key = id(module.weight)
        if key not in packed:
            packed[key] = quantize_weight(module.weight, fmt)
        return Linear.from_packed(packed[key], module.bias)

    top = swapped(model, "")
    if top is not None:
        return top
    for fqn, parent in list(model.named_modules()):
        for name, child in list(parent.named_children()):
            new = swapped(child, f"{fqn}.{name}" if fqn else name)
            if new is not None:
                setattr(parent, name, new)
    return model
