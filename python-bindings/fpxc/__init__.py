"""fpxc: low-precision floating-point kernels for PyTorch.

    import fpxc
    q = fpxc.quantize(x, format="mxfp8_e4m3", block=(1, 32), rule="rceil")
    y = fpxc.dequantize(q, format="mxfp8_e4m3")
    art = fpxc.load("kernels/mxfp8_rows.json"); art.mxfp8_rows(x)
    w8 = fpxc.quantize_weight(w, format="fp8_e4m3"); y = fpxc.linear(x, w8)
    qx, qw = (fpxc.quantize(t, "fp8_e4m3", block=(1, 0)) for t in (x, w))
    y = fpxc.scaled_mm(qx, qw, out_dtype=torch.bfloat16)   # fp8 GEMM, w (N, K)
    y = fpxc.grouped_mm(qx, qe, offs)   # MoE: experts qe (G, N, K), offs int32 group ends
    fpxc.nn.swap_linear_(model, format="fp8_e4m3")

CUDA tensors run prebuilt fpxc kernels (AOT bundles, fpx.load, fpx.compile);
CPU tensors run the bit-exact reference of the numerics core. All high-level
calls are torch.library custom ops (torch.ops.fpxc.*) with fake kernels.
"""

from ._errors import (CacheError, CompileError, CudaError, DriverTooOldError,  # noqa: F401
                      Error, InvalidArgumentError, InvalidArtifactError, LaunchError,
                      NoDeviceError, NotFoundError, OutOfMemoryError, WrongArchitectureError)
from ._native import _fpx
from . import ops  # noqa: F401  (registers torch.ops.fpxc.*)
from .api import (QuantizedTensor, dequantize, hadamard, pack_fp6, quantize,  # noqa: F401
                  swizzle_scales, unpack_fp6)
from .formats import known_formats  # noqa: F401
# (the function fpxc.linear shadows the module's name: sys.modules["fpxc.linear"] is the module)
from .linear import (PackedWeight, linear, pack_mma_tiles, quantize_weight,  # noqa: F401
                     unpack_mma_tiles)
from . import nn  # noqa: F401
from .scaled import scaled_mm  # noqa: F401
from .grouped import grouped_mm  # noqa: F401
from . import runtime
from .runtime import Artifact, KernelFunction, compile, load  # noqa: F401

# The one version (project(fpxc VERSION ...) in CMakeLists.txt), from the extension.
__version__ = _fpx.__version__


def has_gpu():
    """True when the CUDA driver loads and a GPU is visible."""
    return _fpx.has_driver()


def compile_cuda(source, arch, options=()):
    """CUDA C++ -> PTX through NVRTC (reference kernels, epilogues)."""
    if not isinstance(source, str) or not isinstance(arch, str):
        raise InvalidArgumentError(f"source and arch must be strs, got {type(source).__name__} "
                                   f"and {type(arch).__name__}")
    return _fpx.compile_cuda(source, arch, runtime._strings(options, "options"))


def cache_directory():
    """Where compiled artifacts are cached ($FPX_CACHE_DIR, ...)."""
    return _fpx.cache_directory()
