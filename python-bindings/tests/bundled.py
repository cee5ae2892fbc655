"""The bundled GEMM kernels as the GPU tests of fpxc.scaled_mm and
fpxc.grouped_mm walk them, and a guard that makes the package's fallback an
error."""
import warnings

import torch

from fpxc import bundle, ops


def kernel_entries(op):
    """The entries of `op` for this GPU's targets, one a dispatch key ([]
    without a GPU: collection must not fail there)."""
    try:
        if not torch.cuda.is_available():
            return []
        dev = torch.device("cuda", torch.cuda.current_device())
        targets = bundle._device_targets(dev)
        seen, out = set(), []
        for e in bundle.entries():
            key = bundle.options_key(e.options)
            if e.options.get("op") == op and e.target in targets and key not in seen:
                seen.add(key)
                out.append(e)
        return out
    except Exception:
        return []


class NoFallback:
    """Inside, `op`'s fallback warning is an error (one given before, which
    the package would not repeat, forgotten)."""

    def __init__(self, op):
        self.op = op

    def __enter__(self):
        ops._warned.difference_update({w for w in ops._warned if w[0] == self.op})
        self.ctx = warnings.catch_warnings()
        self.ctx.__enter__()
        warnings.filterwarnings("error", message="fpx: no prebuilt kernel")

    def __exit__(self, *exc):
        self.ctx.__exit__(*exc)


def load_cpp(name, source, functions, build_dir):
    """C++ `source` using python-bindings/include (fpxc/TorchOps.h) built
    by torch's cpp_extension.load_inline into build_dir."""
    import pathlib

    from torch.utils import cpp_extension
    include = pathlib.Path(__file__).resolve().parents[1] / "include"
    return cpp_extension.load_inline(name, cpp_sources=[source], functions=functions,
                                     extra_include_paths=[str(include)],
                                     extra_cflags=["-std=c++20"], build_directory=str(build_dir))


def captured(call):
    """A CUDA graph of call() (run once on a side stream first, as torch's
    capture wants) and its output."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = call()
    return graph, out
