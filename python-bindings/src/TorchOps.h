//===- TorchOps.h - the torch ops of fpxc._fpx ----------------------------===//
//
// TorchOps.cpp (the one translation unit that includes libtorch) registers
// torch.ops.fpxc.* and their CUDA kernel; this binds its plan-cache hooks
// into the nanobind module (Module.cpp stays free of torch headers).
//
//===----------------------------------------------------------------------===//

#ifndef FPX_PYTHON_TORCHOPS_H
#define FPX_PYTHON_TORCHOPS_H

#include <nanobind/nanobind.h>

namespace fpx::python {

/// _plan_pending, _offer_plan, _clear_plans, _plan_count, _route_cuda.
void bindTorchOps(nanobind::module_ &m);

} // namespace fpx::python

#endif
