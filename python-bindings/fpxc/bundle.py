"""Ahead-of-time kernel bundles.

A bundle is a directory of fpxc artifacts (NAME.json + NAME.ptx [+ cubin])
that the package uses without a compiler: $FPX_KERNEL_DIR (several
directories separated by ':') and the package's own fpxc/kernels/. Each
directory holds artifacts directly or one sub-directory per target
(fpxc/kernels/sm_90a/, fpxc/kernels/sm_100a/), each with an index.json that
python-bindings/tools/build_bundle.py writes:

    {"format": "fpx-bundle", "version": 4, "target": "sm_90a",
     "artifacts": [{"file": "q_mxfp8_e4m3_bf16_r32_rceil_rn_blk.json",
                    "function": "q_mxfp8_e4m3_bf16_r32_rceil_rn_blk",
                    "options": {"op": "quantize", "format": "mxfp8_e4m3",
                                "block": [1, 32], "rule": "rceil", "rounding": "rn",
                                "scale_layout": "blocked", "packing": "none",
                                "input_dtype": "bf16", "rank": 2},
                    "call": {...fpx.quantize keywords...}}]}

A directory without index.json is scanned for artifacts whose metadata
(read by the runtime) carries the same "options" object (with "function").
Whether a kernel takes a call's shapes is the runtime's answer too
(KernelFunction.accepts: the checks its launch runs). `options` is the
dispatch key (fpx/ops.py builds the same dict for a call). A quantize
function takes the input tensor (and the amax where "amax_given"), an
optional i64 scalar `seed`, and returns (data, scales[, g]) in the layout of
fpx.ops's CPU reference, g being NVFP4's global scale (fpx.global_scale);
a dequantize function takes (codes, scales[, g]) and returns the values;
a hadamard function takes and returns one 2-D tensor; a scaled_mm function
(fpxc/scaled.py) takes (a, scale_a, b, scale_b) and returns y. Older bundles'
entries whose meaning changed since are skipped: NVFP4 quantize kernels
returned the amax in place of g before version 2, NVFP4 dequantize kernels
took the amax in place of g before version 3, MX quantize kernels saturated
inf (scale 0xFE) where they now mark the block NaN before version 4.
"""

import json
import os
import pathlib
import threading

from ._errors import Error
from ._native import _fpx
from .formats import SCHEME_NAMES

# The high-level MX formats (E8M0 scales), as bundle options name them.
_MX_FORMATS = frozenset(name for (_, kind), name in SCHEME_NAMES.items() if kind == "e8m0")

_lock = threading.Lock()
_index = None
_loaded = {}


def kernel_dirs():
    dirs = [d for d in os.environ.get("FPX_KERNEL_DIR", "").split(os.pathsep) if d]
    here = pathlib.Path(__file__).parent
    own = here / "kernels"  # put there by setup.py (a build output, not in git)
    if not own.is_dir() and (here.parent / "setup.py").is_file():
        # Imported from the source tree (an editable install): the build's bundle.
        own = here.parent.parent / "build" / "python-bindings" / "kernels"
    dirs.append(str(own))
    return dirs


def options_key(options):
    fields = {k: (tuple(v) if isinstance(v, list) else v)
              for k, v in options.items() if k != "function"}
    return tuple(sorted(fields.items()))


class Entry:
    """One bundled artifact: where it is, what it serves."""

    def __init__(self, path, function, options, call, target):
        self.path = path
        self.function = function
        self.options = options
        self.call = call
        self.target = target

    def __repr__(self):
        return f"<fpx bundle entry {self.function} [{self.target}] {self.path}>"


def _stale(options, version):
    """An entry whose meaning changed since its bundle was built, never used
    (a wrong answer would be silent): an NVFP4 entry that takes or returns
    the amax where the package now passes or reads g (two-level quantize
    before bundle version 2, dequantize before 3), or an MX (E8M0) quantize
    that saturated inf where the package now marks the block NaN (before
    version 4)."""
    op = options.get("op")
    fmt = options.get("format")
    if op == "quantize" and version < 4 and fmt in _MX_FORMATS:
        return True
    if fmt != "nvfp4" or not options.get("global_scale", True):
        return False
    return (op == "quantize" and version < 2) or (op == "dequantize" and version < 3)


def _entries_of(directory):
    """The entries of one directory (index.json, else the artifacts' own
    "options")."""
    index = directory / "index.json"
    out = []
    if index.is_file():
        try:
            meta = json.loads(index.read_text())
        except (OSError, ValueError):
            return out  # a broken file must not break unrelated calls
        if meta.get("format") != "fpx-bundle":
            return out
        target = meta.get("target", "")
        version = meta.get("version", 1)
        for a in meta.get("artifacts", []):
            try:
                if _stale(a["options"], version if isinstance(version, int) else 1):
                    continue
                out.append(Entry(str(directory / a["file"]), a["function"], a["options"],
                                 a.get("call"), target))
            except (KeyError, TypeError):
                continue
        return out
    for path in sorted(directory.glob("*.json")):
        try:
            meta = _fpx.ArtifactInfo.read(str(path))  # the metadata alone, validated
        except Error:
            continue  # not an artifact, or one this runtime cannot use
        options = meta.options
        # Whether an artifact takes or returns g or the amax cannot be told
        # from here: such NVFP4 entries are used from an index.json only.
        # (An MX cast's age cannot be told either; a loose artifact is taken
        # to be as new as its options say: "nonfinite" present or not.)
        if not isinstance(options, dict) or (options.get("format") == "nvfp4"
                                             and _stale(options, 1)):
            continue
        out.append(Entry(str(path), options.get("function", options.get("op")), options,
                         None, meta.target))
    return out


def entries():
    """Every bundled artifact (all directories, all targets), in lookup
    order (earlier directories win)."""
    out = []
    for d in kernel_dirs():
        p = pathlib.Path(d)
        if not p.is_dir():
            continue
        subdirs = [p] + sorted(q for q in p.iterdir() if q.is_dir() and not q.name.startswith("_"))
        for q in subdirs:
            out.extend(_entries_of(q))
    return out


def _scan():
    index = {}
    for e in entries():
        index.setdefault((e.target, options_key(e.options)), e)
    return index


_forget_hooks = []  # callables that drop what was resolved from the index (ops' plans)


def rescan():
    """Forget the index (after FPX_KERNEL_DIR changed), the loaded kernels
    and the plans built on them."""
    global _index
    with _lock:
        _index = None
        _loaded.clear()
    for forget in _forget_hooks:
        forget()


_targets = {}


def _device_targets(device):
    t = _targets.get(device)
    if t is None:
        import torch
        major, minor = torch.cuda.get_device_capability(device)
        n = major * 10 + minor
        t = _targets[device] = [f"sm_{n}a", f"sm_{n}f", f"sm_{n}"]
    return t


class BundledKernel:
    """A bundled function and whether it takes a call's shapes, so that a
    call the kernel would reject runs the CPU reference instead."""

    def __init__(self, entry, function):
        self.entry = entry
        self.fn = function
        # fpxc names the i64 seed argument after its position (arg1).
        self.has_seed = len(function.scalars) == 1 and function.scalars[0][1] == "i64"
        self._ok = {}

    @property
    def input_dtypes(self):
        """The torch dtypes of the function's tensor inputs."""
        from . import _dtypes
        return [_dtypes.TORCH_DTYPE[w] for _, w in self.fn.inputs]

    def accepts(self, *shapes):
        """True when the kernel takes inputs of these shapes (the leading
        inputs' alone, e.g. the first one's, or every input's); a rule over
        an input whose shape was not given refuses. Answered by the runtime
        once per signature."""
        shapes = tuple(tuple(s) for s in shapes)
        ok = self._ok.get(shapes)
        if ok is None:
            ok = bool(shapes) and self.fn.accepts(*shapes)[0]
            if len(self._ok) < 1024:
                self._ok[shapes] = ok
        return ok

    def __call__(self, *tensors, seed=0):
        return self.fn(*tensors, int(seed)) if self.has_seed else self.fn(*tensors)


def find(options, device):
    """The BundledKernel serving a call described by `options` on `device`,
    or None when no bundle has one."""
    global _index
    with _lock:
        if _index is None:
            _index = _scan()
        if not _index:
            return None
        index = _index
    key = options_key(options)
    for target in _device_targets(device):
        entry = index.get((target, key))
        if entry is None:
            continue
        with _lock:
            kernel = _loaded.get(entry.path)
            if kernel is None:
                from .runtime import load
                try:
                    artifact = load(entry.path)
                    kernel = BundledKernel(entry, artifact.functions[entry.function])
                except (Error, KeyError, ValueError, StopIteration, OSError):
                    continue
                _loaded[entry.path] = kernel
        return kernel
    return None
