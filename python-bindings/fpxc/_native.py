"""Imports the extension and wires its errors to the Python classes."""

import torch  # noqa: F401  (loaded first: fpxc._fpx links libtorch and defines torch.ops.fpxc.*)

from . import _errors
from . import _fpx  # noqa: F401  (the nanobind module)

_errors.register(_fpx)
