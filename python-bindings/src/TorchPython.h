//===- TorchPython.h - torch's Python objects for fpxc._fpx ---------------===//
//
// TorchPython.cpp keeps torch's Python headers (and their pybind11) out of
// the nanobind translation units.
//
//===----------------------------------------------------------------------===//

#ifndef FPX_PYTHON_TORCHPYTHON_H
#define FPX_PYTHON_TORCHPYTHON_H

#include <ATen/core/Tensor.h>

#include <Python.h>

#include <exception>
#include <optional>

namespace fpx::python {

/// obj is a torch.Tensor or nn.Parameter, not a subclass (which may
/// override __torch_function__).
bool isPlainTensor(PyObject *obj);
/// The tensor of a torch.Tensor object.
const at::Tensor &unpackTensor(PyObject *obj);
/// A new reference to t's Python object (None for an undefined tensor).
PyObject *wrapTensor(at::Tensor t);
/// The scalar type of a torch.dtype object (nullopt for other objects).
std::optional<c10::ScalarType> scalarTypeOf(PyObject *obj);
/// A TorchFunctionMode is active on this thread.
bool torchFunctionModeActive();
/// Sets the Python error torch raises for `error` (its named exception
/// classes; a Python error raised inside a kernel restored as it was).
void setPythonError(std::exception_ptr error);

} // namespace fpx::python

#endif
