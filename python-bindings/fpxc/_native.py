"""Imports the extension and wires its errors to the Python classes."""

from . import _errors
from . import _fpx  # noqa: F401  (the nanobind module)

_errors.register(_fpx)
