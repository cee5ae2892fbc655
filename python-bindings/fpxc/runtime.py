"""Load fpxc artifacts and call their functions on torch tensors.

    art = fpxc.load("kernels/mxfp8_rows.json")
    q, s = art.mxfp8_rows(x, seed=0)       # x: a CUDA tensor

Outputs are allocated with torch.empty from the artifact's shape rules and
the launch goes to torch's current stream on the tensors' device.
"""

import os

import torch

from . import _dtypes
from ._errors import InvalidArgumentError
from ._native import _fpx


def _kind_of(value):
    """A short description of a bad argument for an error message."""
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__


class KernelFunction:
    """A callable function of an artifact."""

    def __init__(self, artifact, native_fn):
        self._artifact = artifact  # keeps the native module alive
        self._fn = native_fn
        self.name = native_fn.name
        self.inputs = native_fn.inputs  # [(name, dtype word)]
        self.outputs = native_fn.outputs
        self.scalars = native_fn.scalars  # [(name, type, default)]
        self._in_dtypes = [_dtypes.TORCH_DTYPE[w] for _, w in self.inputs]
        self._out_dtypes = [_dtypes.TORCH_DTYPE[w] for _, w in self.outputs]
        self._shape_cache = {}

    def __repr__(self):
        ins = ", ".join(f"{n}: {w}" for n, w in self.inputs)
        outs = ", ".join(f"{n}: {w}" for n, w in self.outputs)
        return f"<fpx function {self.name}({ins}) -> ({outs})>"

    def output_shapes(self, *shapes):
        """Output shapes for inputs of these shapes (no GPU needed)."""
        key = tuple(tuple(s) for s in shapes)
        out = self._shape_cache.get(key)
        if out is None:
            out = [tuple(s) for s in self._fn.output_shapes([list(s) for s in key])]
            if len(self._shape_cache) < 256:
                self._shape_cache[key] = out
        return out

    def accepts(self, *shapes, dtypes=None):
        """(accepted, reason) for inputs of these shapes, without a GPU: the
        runtime's checks that a call runs before it launches (ranks, shape
        symbols, the artifact's requirements), the reason being the message
        the call would raise. dtypes: the inputs' torch dtypes, one per
        shape, to check too. Fewer shapes than inputs: the leading inputs'
        only, and a rule over a later input's shape refuses."""
        words = []
        for d in dtypes or ():
            try:
                words.append(_dtypes.word_of(d))
            except KeyError:
                raise InvalidArgumentError(f"{self.name}: no artifact dtype for {d!r}") from None
        return self._fn.accepts([list(s) for s in shapes], words,
                                leading=len(shapes) < len(self.inputs))

    def _scalar_values(self, args, kwargs):
        if len(args) > len(self.scalars):
            raise InvalidArgumentError(
                f"{self.name}: expected at most {len(self.scalars)} scalars, got {len(args)}")
        values = list(args)
        names = [s[0] for s in self.scalars]
        for key in kwargs:
            if key not in names:
                raise InvalidArgumentError(f"{self.name}: no scalar named {key!r} (it has {names})")
        for name, _, default in self.scalars[len(values):]:
            if name in kwargs:
                values.append(kwargs[name])
            elif default is not None:
                values.append(default)
            else:
                break  # the runtime names the missing scalar
        for (name, _, _), v in zip(self.scalars, values):
            if not isinstance(v, (int, float)):
                raise InvalidArgumentError(f"{self.name}: scalar {name!r} must be a bool, int or "
                                           f"float, got {type(v).__name__}")
            if isinstance(v, int) and not -2 ** 63 <= v < 2 ** 63:
                raise InvalidArgumentError(f"{self.name}: scalar {name!r} is an int outside int64")
        return values

    def _check_out(self, out, device):
        """The given outputs as a list: one tensor per output, of its dtype,
        on the inputs' device. The kernel writes each through its pointer as
        the artifact's dtype (into a narrower dtype past its end); shapes,
        contiguity and alignment are the runtime's checks."""
        n = len(self.outputs)
        if not isinstance(out, (list, tuple)) or len(out) != n:
            raise InvalidArgumentError(
                f"{self.name}: out must be a list or tuple of {n} tensors, got {_kind_of(out)}")
        for i, ((name, _), want, o) in enumerate(zip(self.outputs, self._out_dtypes, out)):
            what = f"{self.name}: out[{i}] ({name!r})"
            if not isinstance(o, torch.Tensor):
                raise InvalidArgumentError(f"{what} must be a torch.Tensor, got {type(o).__name__}")
            if o.dtype != want:
                raise InvalidArgumentError(f"{what} must have dtype {want}, got {o.dtype}")
            if o.device != device:
                raise InvalidArgumentError(
                    f"{what} must be on {device} (the inputs' device), got {o.device}")
            if o.is_neg() or o.is_conj():
                raise InvalidArgumentError(
                    f"{what} is a lazily negated or conjugated view; the kernel would write "
                    "its memory as plain values")
        return list(out)

    def __call__(self, *tensors, out=None, **scalars):
        """Launches the function on the inputs' device and current stream.
        out: the outputs to write (a list, one tensor per output, of its
        dtype and shape on that device) instead of new ones."""
        n = len(self.inputs)
        if len(tensors) < n:
            raise InvalidArgumentError(
                f"{self.name}: expected {n} input tensors, got {len(tensors)}")
        inputs, extra = tensors[:n], tensors[n:]
        device = None
        refs, held = [], []  # held: resolved copies, alive until the launch
        for (name, word), want, t in zip(self.inputs, self._in_dtypes, inputs):
            if not isinstance(t, torch.Tensor):
                raise InvalidArgumentError(f"{self.name}: input {name!r} must be a torch.Tensor")
            if t.device.type != "cuda":
                raise InvalidArgumentError(
                    f"{self.name}: input {name!r} is on {t.device}; fpx kernels run on CUDA tensors")
            if device is None:
                device = t.device
            elif t.device != device:
                raise InvalidArgumentError(
                    f"{self.name}: input {name!r} is on {t.device} but the first input is on {device}")
            if t.dtype != want:
                raise InvalidArgumentError(
                    f"{self.name}: input {name!r} must have dtype {want}, got {t.dtype}")
            if t.is_neg():  # a lazy negation (x._neg_view()): the kernel reads the memory
                t = t.resolve_neg()
                held.append(t)
            refs.append((t.data_ptr(), word, list(t.shape), list(t.stride())))
        shapes = self.output_shapes(*[r[2] for r in refs])
        if out is None:
            out = [torch.empty(s, dtype=d, device=device)
                   for s, d in zip(shapes, self._out_dtypes)]
        else:
            out = self._check_out(out, device)
        out_refs = [(o.data_ptr(), word, list(o.shape), list(o.stride()))
                    for o, (_, word) in zip(out, self.outputs)]
        values = self._scalar_values(extra, scalars)
        if device.index != torch.cuda.current_device():
            with torch.cuda.device(device):
                stream = torch.cuda.current_stream(device).cuda_stream
                self._fn.launch(stream, refs, out_refs, values)
        else:
            stream = torch.cuda.current_stream(device).cuda_stream
            self._fn.launch(stream, refs, out_refs, values)
        return out[0] if len(out) == 1 else tuple(out)


class Artifact:
    """A loaded artifact. Its functions are attributes (art.add_one) unless
    named like one of Artifact's own (preload, source, target, spec_hash,
    link_symbols, functions), which attribute access reaches instead;
    art["name"] and art.functions["name"] always reach the function."""

    def __init__(self, native_module):
        self._module = native_module
        self.source = native_module.source
        self.target = native_module.target
        self.spec_hash = native_module.spec_hash
        self.link_symbols = dict(native_module.link_symbols)  # {symbol: signature}
        self.functions = {name: KernelFunction(self, native_module.function(name))
                          for name in native_module.function_names}

    def __getattr__(self, name):
        functions = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(f"artifact {self.__dict__.get('source')} has no function {name!r} "
                             f"(it has {sorted(functions)})")

    def __getitem__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise KeyError(f"artifact {self.source} has no function {name!r} "
                           f"(it has {sorted(self.functions)})") from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def __repr__(self):
        return f"<fpx artifact {self.source} target={self.target} functions={sorted(self.functions)}>"

    def preload(self):
        """Loads the module into the current CUDA context now."""
        return self._module.preload()


def _strings(values, what):
    """A list or tuple of strs (compiler options) as a list."""
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
        raise InvalidArgumentError(f"{what} must be a list of str, got {values!r}")
    return list(values)


def _link_sources(link):
    if link is None:
        return {}
    if not isinstance(link, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in link.items()):
        raise InvalidArgumentError(
            "link must be a dict {symbol: CUDA C++ source} of strings, e.g. "
            "{'fpx_user_scale': 'extern \"C\" __device__ float fpx_user_scale(float x) {...}'}")
    return dict(link)


def load(path, link=None):
    """Loads an artifact (NAME.json, or a directory holding one).

    link: {symbol: CUDA C++ source} for the user functions the artifact's
    kernels call (its "link" list, e.g. a quantize prologue). Each source
    must define extern "C" __device__ float SYMBOL(float x); it is compiled
    with NVRTC (-rdc=true --fmad=false) and linked with the kernels when the
    artifact is first used on a device. A missing or unknown symbol raises
    here, without a GPU."""
    try:
        path = os.fsdecode(path)
    except TypeError:
        raise InvalidArgumentError(f"path must be a str or path-like, got {path!r}") from None
    if "\0" in path:
        # (the native layer would read the path up to the NUL: another file)
        raise InvalidArgumentError(f"path contains a NUL character: {path!r}")
    return Artifact(_fpx.Module.load(path, _link_sources(link)))


def compile(spec, target=None, options=(), link=None):
    """Compiles an fpx spec (MLIR text) with fpxc, through the disk cache,
    and loads it. target defaults to the current device's; link as in
    load()."""
    if not isinstance(spec, str):
        raise InvalidArgumentError(f"spec must be MLIR text (a str), got {type(spec).__name__}")
    if target is not None and not isinstance(target, str):
        raise InvalidArgumentError(f"target must be a str such as 'sm_90a', got {target!r}")
    return Artifact(_fpx.compile_spec(spec, target or "", _strings(options, "options"),
                                      _link_sources(link)))
