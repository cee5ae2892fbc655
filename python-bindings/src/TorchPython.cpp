//===- TorchPython.cpp - torch's Python objects for fpxc._fpx -------------===//
//
// The one translation unit that includes torch's Python bindings (they bring
// pybind11, which stays out of the nanobind sources): tensors to and from
// their Python objects and torch's translation of C++ errors into Python
// exceptions, for the op callers of TorchOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "TorchPython.h"

#include <ATen/PythonTorchFunctionTLS.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>

namespace fpx::python {

bool isPlainTensor(PyObject *obj) { return THPVariable_CheckExact(obj); }

const at::Tensor &unpackTensor(PyObject *obj) { return THPVariable_Unpack(obj); }

PyObject *wrapTensor(at::Tensor t) { return THPVariable_Wrap(std::move(t)); }

std::optional<c10::ScalarType> scalarTypeOf(PyObject *obj) {
  if (!THPDtype_Check(obj))
    return std::nullopt;
  return reinterpret_cast<THPDtype *>(obj)->scalar_type;
}

bool torchFunctionModeActive() { return at::impl::torch_function_mode_enabled(); }

void setPythonError(std::exception_ptr error) {
  torch::translate_exception_to_python(error);
}

} // namespace fpx::python
