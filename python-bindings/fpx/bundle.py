"""Ahead-of-time kernel bundles.

A bundle is a directory of fpxc artifacts (NAME.json + NAME.ptx [+ cubin])
that the package can use without a compiler: $FPX_KERNEL_DIR (several
directories separated by ':') and the package's own fpx/kernels/. An
artifact serves a high-level call when its metadata carries an "options"
object describing the call, e.g.

    "options": {"op": "quantize", "format": "mxfp8_e4m3", "block": [1, 32],
                "rule": "rceil", "rounding": "rn", "scale_layout": "blocked",
                "packing": "bytes", "input_dtype": "bf16", "function": "quantize"}

(docs/artifact.md, "AOT bundles"). The function named there must take the
input tensor (rank 2), an optional i64 scalar `seed`, and return
(data, scales[, global_scale]) in the layout the CPU reference returns.
"""

import json
import os
import pathlib
import threading

from ._errors import Error

_lock = threading.Lock()
_index = None
_loaded = {}


def kernel_dirs():
    dirs = [d for d in os.environ.get("FPX_KERNEL_DIR", "").split(os.pathsep) if d]
    dirs.append(str(pathlib.Path(__file__).parent / "kernels"))
    return dirs


def _key(options, target):
    fields = {k: (tuple(v) if isinstance(v, list) else v)
              for k, v in options.items() if k != "function"}
    return (target, tuple(sorted(fields.items())))


def _scan():
    index = {}
    for d in kernel_dirs():
        p = pathlib.Path(d)
        if not p.is_dir():
            continue
        for path in sorted(p.glob("*.json")):
            try:
                meta = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # a broken file must not break unrelated calls
            options = meta.get("options")
            if meta.get("format") != "fpx-artifact" or not isinstance(options, dict):
                continue
            target = meta.get("target", {}).get("chip", "")
            index.setdefault(_key(options, target),
                             (str(path), options.get("function", options.get("op"))))
    return index


def rescan():
    """Forget the index (after FPX_KERNEL_DIR changed)."""
    global _index
    with _lock:
        _index = None
        _loaded.clear()


def _device_targets(device):
    import torch
    major, minor = torch.cuda.get_device_capability(device)
    n = major * 10 + minor
    return [f"sm_{n}a", f"sm_{n}f", f"sm_{n}"]


def find(options, device):
    """The KernelFunction serving a call described by `options` on `device`,
    or None when no bundle has one."""
    global _index
    with _lock:
        if _index is None:
            _index = _scan()
        if not _index:
            return None
        index = _index
    for target in _device_targets(device):
        hit = index.get(_key(options, target))
        if hit is None:
            continue
        path, function = hit
        with _lock:
            artifact = _loaded.get(path)
            if artifact is None:
                from .runtime import load
                try:
                    artifact = load(path)
                except Error:
                    continue
                _loaded[path] = artifact
        return artifact.functions.get(function)
    return None
