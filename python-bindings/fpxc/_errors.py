"""Exception classes of the fpx package.

Every error raised by the native layer is an instance of one of these (the
C++ runtime's ErrorCode picks the class), so callers can catch exactly the
failure they can handle: ``except fpxc.NoDeviceError`` to fall back to CPU,
``except fpxc.InvalidArgumentError`` for a bad tensor.
"""


class Error(Exception):
    """Base class of every fpx error."""

    code = "error"


class NoDeviceError(Error):
    """No NVIDIA driver or GPU: the call needs one."""

    code = "no_device"


class DriverTooOldError(Error):
    """The driver cannot JIT the artifact's PTX version."""

    code = "driver_too_old"


class WrongArchitectureError(Error):
    """The artifact was compiled for another GPU architecture."""

    code = "wrong_architecture"


class OutOfMemoryError(Error, MemoryError):
    """A device allocation failed."""

    code = "out_of_memory"


class LaunchError(Error):
    """A kernel launch (or the kernel) failed."""

    code = "launch_failed"


class InvalidArgumentError(Error, ValueError):
    """Bad input: dtype, shape, device, alignment, contiguity, option."""

    code = "invalid_argument"


class InvalidArtifactError(Error):
    """The artifact's files or metadata are malformed."""

    code = "invalid_artifact"


class CompileError(Error):
    """fpxc, NVRTC or the PTX JIT reported an error."""

    code = "compile_failed"


class NotFoundError(Error, LookupError):
    """A function, kernel, file or tool does not exist."""

    code = "not_found"


class CacheError(Error):
    """The kernel cache could not be read or written."""

    code = "cache_error"


class CudaError(Error):
    """Any other CUDA driver failure."""

    code = "cuda_error"


ALL = [
    NoDeviceError,
    DriverTooOldError,
    WrongArchitectureError,
    OutOfMemoryError,
    LaunchError,
    InvalidArgumentError,
    InvalidArtifactError,
    CompileError,
    NotFoundError,
    CacheError,
    CudaError,
]


def register(native):
    """Tells the native module which class to raise for each error code."""
    native._set_error_classes({cls.code: cls for cls in ALL})
