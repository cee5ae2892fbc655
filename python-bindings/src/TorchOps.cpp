//===- TorchOps.cpp - torch.ops.fpxc.* in C++ (issue 37) ------------------===//
//
// The one translation unit of fpxc._fpx that includes libtorch: the schemas of
// torch.ops.fpxc.{quantize,dequantize,hadamard,scaled_mm,grouped_mm} (TORCH_LIBRARY) and
// their CUDA kernel (TORCH_LIBRARY_IMPL), a per-signature plan cache in front
// of libfpxrt launches.
//
// A call's signature is its arguments but the per-call ones (quantize's
// seed): every tensor's dtype, device, sizes and whether it is contiguous,
// every string, int, bool and dtype argument. On a hit the kernel allocates
// the results with at::empty (torch's caching allocator, the kernel's
// temporaries too) and launches the cached libfpxrt function on the current
// stream: no Python, no host sync, capturable by CUDA graphs. On
// a miss it redispatches to the op's Python implementation (the
// CompositeExplicitAutograd kernel fpxc/ops.py registers), which checks the
// call, raises fpxc's named exceptions, runs it, and, where one bundled
// kernel serves the signature, describes that launch (_offer_plan below):
// the plan C++ keeps for the next calls. Python is the one owner of the
// dispatch rules (bundle lookup, options, shapes); C++ replays them.
//
// A plan is generic (any op whose CUDA call is one kernel launch): operands
// (which tensor argument, read as which artifact dtype and shape), outputs
// (result shape and dtype, written as which artifact dtype and shape), fills
// (results the kernel does not write, e.g. NVFP4's g = 1), the kernel's
// scalars (constants or per-call int arguments), and in-place adds of tensor
// arguments into results after the launch (scaled_mm's bias until its kernels
// take one). routeCuda() gives an op defined elsewhere (a Python custom op)
// the same kernel.
//
//===----------------------------------------------------------------------===//

#include "TorchOps.h"
#include "TorchPython.h"

#include "fpx/Runtime/CudaApi.h"
#include "fpx/Runtime/Error.h"
#include "fpx/Runtime/Runtime.h"

#include <ATen/EmptyTensor.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/core/grad_mode.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/core/impl/TorchDispatchModeTLS.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/SmallVector.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/library.h>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <utility>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace nb = nanobind;
namespace rt = fpx::rt;
using namespace fpx::python; // (TorchPython.h)

namespace {

struct Operand {
  int Arg;            // the op's argument index (a tensor)
  rt::DType Type;     // what the kernel reads it as
  std::vector<int64_t> Shape;
  bool ToFloat;       // converted to float32 first (an amax, NVFP4's g)
};

struct Output {
  std::vector<int64_t> Shape; // the result's
  c10::ScalarType Dtype;
  rt::DType Type;             // what the kernel writes it as
  std::vector<int64_t> KernelShape;
};

struct Fill {
  std::vector<int64_t> Shape;
  c10::ScalarType Dtype;
  double Value;
};

/// One kernel launch serving one call signature.
struct Plan {
  const rt::Function *Fn; // owned by the Python plan that offered it
  std::vector<Operand> Inputs;
  std::vector<Output> Outputs;
  std::vector<Fill> Fills;
  std::vector<int> Results;                      // into Outputs ++ Fills
  std::vector<std::pair<int, int64_t>> Scalars; // (int argument or -1, constant)
  std::vector<std::pair<int, int>> Adds;         // (tensor argument, result): result += it
};

/// Per op: the int arguments that are per call (not part of the signature;
/// a plan passes them to the kernel as scalars).
struct OpInfo {
  std::vector<int> CallArgs;
};

std::shared_mutex &cacheMutex() {
  static auto *m = new std::shared_mutex();
  return *m;
}
std::unordered_map<std::string, std::shared_ptr<const Plan>> &cache() {
  static auto *c = new std::unordered_map<std::string, std::shared_ptr<const Plan>>();
  return *c;
}
std::unordered_map<std::string, OpInfo> &opInfos() {
  static auto *o = new std::unordered_map<std::string, OpInfo>();
  return *o;
}
constexpr size_t kMaxPlans = 4096;

/// The signature of the call being built by Python (a miss), per thread.
struct Pending {
  std::string Op;
  std::string Key;
  bool Active = false;
};
thread_local Pending tlPending;

/// Set by an OpCaller whose caller drops the results a plan fills (quantize's
/// g = 1, which fpxc.quantize hands out only for NVFP4, where the kernel
/// writes it): the next planned call on this thread returns those as None
/// (an undefined tensor) and skips their fill. Taken at the kernel's entry.
thread_local bool tlDropFills = false;

/// The host time of the planned kernel's parts, per thread, while switched
/// on (_host_profile; bench/hostpath/run.py --breakdown): ns summed per
/// phase over the calls that took a plan.
enum Phase { PKey, PLookup, POperands, PAllocate, PLaunch, PFill, PReturn, NumPhases };
constexpr const char *kPhaseNames[NumPhases] = {
    "signature key", "plan lookup", "operands and scalars", "result allocation",
    "libfpxrt launch", "fills (g = 1), bias adds", "results pushed"};
struct Profile {
  bool On = false;
  int64_t Ns[NumPhases] = {};
  int64_t Calls = 0;
  std::chrono::steady_clock::time_point Last;
};
thread_local Profile tlProfile;

inline void profileStart() {
  if (tlProfile.On)
    tlProfile.Last = std::chrono::steady_clock::now();
}
inline void profileMark(Phase phase) {
  if (!tlProfile.On)
    return;
  auto now = std::chrono::steady_clock::now();
  tlProfile.Ns[phase] += std::chrono::duration_cast<std::chrono::nanoseconds>(
                             now - tlProfile.Last).count();
  tlProfile.Last = now;
}

template <typename T> void put(std::string &key, T v) {
  key.append(reinterpret_cast<const char *>(&v), sizeof(v));
}

/// The signature of the arguments on `stack` (the last n), or false where an
/// argument has a kind plans do not cover (the call always takes Python).
bool signature(const std::string &op, const OpInfo &info, const torch::jit::Stack &stack,
               size_t n, std::string &key) {
  key += op;
  key += '\0';
  size_t first = stack.size() - n;
  for (size_t i = 0; i < n; ++i) {
    const c10::IValue &v = stack[first + i];
    bool perCall = false;
    for (int a : info.CallArgs)
      perCall |= (a == static_cast<int>(i));
    if (perCall) {
      // A per-call int out of range (a negative seed) takes Python, which
      // names the error, whether or not the kernel reads it.
      if (!v.isInt() || v.toInt() < 0)
        return false;
      key += 'c';
      continue;
    }
    if (v.isTensor()) {
      const at::Tensor &t = v.toTensor();
      key += 'T';
      put(key, static_cast<int8_t>(t.scalar_type()));
      put(key, static_cast<int8_t>(t.device().type()));
      put(key, static_cast<int8_t>(t.device().index()));
      // (lazy negations and conjugations: the checks refuse some, e.g.
      // of float8 codes, so they are a signature of their own; so are
      // non-contiguous tensors, which scaled_mm refuses and the casts copy)
      put(key, static_cast<int8_t>(t.is_neg() | t.is_conj() << 1 | !t.is_contiguous() << 2));
      put(key, static_cast<int8_t>(t.dim()));
      for (int64_t s : t.sizes())
        put(key, s);
    } else if (v.isNone()) {
      key += 'N';
    } else if (v.isInt()) {
      key += 'I';
      put(key, v.toInt());
    } else if (v.isBool()) {
      key += 'B';
      put(key, v.toBool());
    } else if (v.isDouble()) {
      key += 'D';
      put(key, v.toDouble());
    } else if (v.isString()) {
      const std::string &s = v.toStringRef();
      key += 'S';
      put(key, static_cast<uint32_t>(s.size()));
      key += s;
    } else {
      return false;
    }
  }
  return true;
}

/// A tensor as a kernel operand: no lazy negation, float32 where asked, on
/// `device`, contiguous and 16-byte aligned (copied where not; the copies
/// live in `held` until the launch).
const at::Tensor &operand(const at::Tensor &t, const Operand &o, c10::Device device,
                          std::vector<at::Tensor> &held) {
  at::Tensor u = t;
  bool copied = false;
  if (u.is_neg()) {
    u = u.resolve_neg();
    copied = true;
  }
  if (o.ToFloat && u.scalar_type() != c10::kFloat) {
    u = u.to(c10::kFloat);
    copied = true;
  }
  if (u.device() != device) {
    u = u.to(device);
    copied = true;
  }
  if (!u.is_contiguous()) {
    u = u.contiguous();
    copied = true;
  }
  if (reinterpret_cast<uintptr_t>(u.data_ptr()) % 16) {
    u = u.clone(); // kernels read 16-byte vectors
    copied = true;
  }
  held.push_back(copied ? std::move(u) : t);
  return held.back();
}

/// A result (or temporary) on `device`, the current one: torch's CUDA
/// caching allocator directly (at::empty's dispatch costs more host time
/// than the allocation).
at::Tensor emptyCuda(c10::IntArrayRef shape, c10::ScalarType dtype) {
  return at::detail::empty_generic(shape, c10::cuda::CUDACachingAllocator::get(),
                                   c10::DispatchKeySet(c10::DispatchKey::CUDA), dtype,
                                   std::nullopt);
}

/// Runs `plan` on the call's arguments: pushes the results and returns true,
/// or returns false (the stack untouched) where the call is not one the plan
/// can serve as it is (a per-call argument out of range, a failed launch).
bool runPlan(const Plan &plan, torch::jit::Stack &stack, size_t n, bool dropFills) {
  size_t first = stack.size() - n;
  c10::SmallVector<rt::Scalar, 4> scalars;
  for (const auto &[arg, value] : plan.Scalars) {
    if (arg < 0) {
      scalars.emplace_back(value);
      continue;
    }
    int64_t v = stack[first + arg].toInt();
    if (v < 0)
      return false; // (seeds are in [0, 2^63): Python names the error)
    scalars.emplace_back(v);
  }
  const at::Tensor &lead = stack[first + plan.Inputs.at(0).Arg].toTensor();
  c10::Device device = lead.device();
  c10::cuda::CUDAGuard guard(device.index());
  std::vector<at::Tensor> held;
  held.reserve(plan.Inputs.size());
  c10::SmallVector<rt::TensorRef, 4> ins, outs;
  for (const Operand &o : plan.Inputs) {
    const at::Tensor &t = operand(stack[first + o.Arg].toTensor(), o, device, held);
    ins.emplace_back(reinterpret_cast<CUdeviceptr>(t.data_ptr()), o.Type, o.Shape);
  }
  profileMark(POperands);
  c10::SmallVector<at::Tensor, 4> results;
  for (const Output &o : plan.Outputs) {
    results.push_back(emptyCuda(o.Shape, o.Dtype));
    outs.emplace_back(reinterpret_cast<CUdeviceptr>(results.back().data_ptr()), o.Type,
                      o.KernelShape);
  }
  profileMark(PAllocate);
  // The kernel's temporaries (an amax counter, workspaces) from torch's
  // caching allocator, freed after the launch in the current stream's order.
  c10::SmallVector<at::Tensor, 2> temps;
  rt::LaunchOptions options;
  options.AllocateTemp = [&temps](size_t bytes) -> CUdeviceptr {
    if (bytes == 0)
      return 0;
    temps.push_back(emptyCuda({static_cast<int64_t>(bytes)}, c10::kByte));
    return reinterpret_cast<CUdeviceptr>(temps.back().data_ptr());
  };
  CUstream stream = c10::cuda::getCurrentCUDAStream(device.index()).stream();
  try {
    plan.Fn->launch(stream, ins.data(), ins.size(), outs.data(), outs.size(), scalars.data(),
                    scalars.size(), options);
  } catch (const rt::Error &) {
    return false; // the Python path runs the call again and raises the named error
  }
  profileMark(PLaunch);
  for (const Fill &f : plan.Fills) {
    if (dropFills) {
      results.emplace_back(); // (None in Python)
      continue;
    }
    results.push_back(emptyCuda(f.Shape, f.Dtype));
    at::Tensor &t = results.back();
    if (t.numel() == 0)
      continue;
    // fp32 fills as a 32-bit memset on the stream (cheaper on the host than
    // fill_'s kernel)
    float value = static_cast<float>(f.Value);
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    if (f.Dtype != c10::kFloat ||
        rt::CudaApi::driver().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(t.data_ptr()),
                                               bits, static_cast<size_t>(t.numel()),
                                               stream) != CUDA_SUCCESS)
      t.fill_(f.Value);
  }
  for (const auto &[arg, r] : plan.Adds)
    results.at(r).add_(stack[first + arg].toTensor());
  profileMark(PFill);
  torch::jit::drop(stack, n);
  for (int r : plan.Results)
    stack.push_back(results[r]);
  profileMark(PReturn);
  return true;
}

/// The CUDA kernel of every planned op.
void plannedKernel(const c10::OperatorHandle &op, c10::DispatchKeySet, torch::jit::Stack *stack) {
  profileStart();
  bool dropFills = std::exchange(tlDropFills, false);
  const std::string &name = op.schema().name();
  size_t n = op.schema().arguments().size();
  auto info = opInfos().find(name);
  // (one buffer a thread: no allocation a call once it has grown)
  thread_local std::string key;
  key.clear();
  bool keyed = info != opInfos().end() && signature(name, info->second, *stack, n, key);
  profileMark(PKey);
  if (keyed) {
    std::shared_ptr<const Plan> plan;
    {
      std::shared_lock lock(cacheMutex());
      auto it = cache().find(key);
      if (it != cache().end())
        plan = it->second;
    }
    profileMark(PLookup);
    if (plan && runPlan(*plan, *stack, n, dropFills)) {
      tlProfile.Calls += tlProfile.On;
      return;
    }
  }
  // A miss: the Python implementation (it may offer a plan for `key`).
  Pending saved = std::move(tlPending);
  tlPending = Pending{name, key, keyed};
  struct Restore {
    Pending &Saved;
    ~Restore() { tlPending = std::move(Saved); }
  } restore{saved};
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);
}

/// The ops' AutogradCUDA kernel. They have no gradients, so nothing is
/// recorded: plain CUDA tensors go straight to the planned kernel (a boxed
/// autograd fallback in front of it cost a few microseconds a call), and
/// anything else (fake tensors while torch.compile traces,
/// functionalization) goes on below autograd. A backward through the outputs
/// raises (they do not require grad).
void plannedAutogradKernel(const c10::OperatorHandle &op, c10::DispatchKeySet keys,
                           torch::jit::Stack *stack) {
  c10::DispatchKeySet below = keys & c10::after_autograd_keyset;
  at::AutoDispatchBelowADInplaceOrView guard;
  if (below.highestPriorityTypeId() == c10::DispatchKey::CUDA)
    return plannedKernel(op, below, stack);
  op.redispatchBoxed(below, stack);
}

/// fpxc::linear's Autograd kernel: a call that records gradients (grad mode
/// on, an input that requires grad) goes to torch.ops.fpxc.linear_autograd,
/// a Python custom op with the backward (fpxc/linear.py), whose forward calls
/// this op again below autograd; the others go on as the gradient-free ops
/// do (plannedAutogradKernel: CUDA calls straight to the plans).
void linearAutogradKernel(const c10::OperatorHandle &op, c10::DispatchKeySet keys,
                          torch::jit::Stack *stack) {
  size_t n = op.schema().arguments().size();
  bool grad = false;
  if (at::GradMode::is_enabled())
    for (size_t i = stack->size() - n; i < stack->size(); ++i)
      grad |= (*stack)[i].isTensor() && (*stack)[i].toTensor().requires_grad();
  if (grad) {
    static const c10::OperatorHandle withGrad =
        c10::Dispatcher::singleton().findSchemaOrThrow("fpxc::linear_autograd", "");
    withGrad.callBoxed(stack);
    return;
  }
  plannedAutogradKernel(op, keys, stack);
}

c10::ScalarType scalarType(const std::string &name) {
  for (int i = 0; i < static_cast<int>(c10::ScalarType::NumOptions); ++i) {
    auto t = static_cast<c10::ScalarType>(i);
    if (name == c10::toString(t))
      return t;
  }
  throw rt::Error(rt::ErrorCode::InvalidArgument, "plan", "",
                  "unknown torch scalar type '" + name + "'");
}

rt::DType dtypeOf(const std::string &word) {
  std::optional<rt::DType> t = rt::parseDType(word);
  if (!t)
    throw rt::Error(rt::ErrorCode::InvalidArgument, "plan", "", "unknown dtype '" + word + "'");
  return *t;
}

using Shape = std::vector<int64_t>;

/// _offer_plan's arguments, as Python gives them.
using PyOperand = std::tuple<int, std::string, Shape, bool>;
using PyOutput = std::tuple<Shape, std::string, std::string, Shape>;
using PyFill = std::tuple<Shape, std::string, double>;
using PyScalar = std::pair<int, int64_t>;
using PyAdd = std::pair<int, int>;

bool offerPlan(const std::string &op, const rt::Function &fn,
               const std::vector<PyOperand> &inputs, const std::vector<PyOutput> &outputs,
               const std::vector<PyFill> &fills, const std::vector<int> &results,
               const std::vector<PyScalar> &scalars, const std::vector<PyAdd> &adds) {
  if (!tlPending.Active || tlPending.Op != op)
    return false;
  auto plan = std::make_shared<Plan>();
  plan->Fn = &fn;
  for (const auto &[arg, word, shape, toFloat] : inputs)
    plan->Inputs.push_back(Operand{arg, dtypeOf(word), shape, toFloat});
  for (const auto &[shape, dtype, word, kshape] : outputs)
    plan->Outputs.push_back(Output{shape, scalarType(dtype), dtypeOf(word), kshape});
  for (const auto &[shape, dtype, value] : fills)
    plan->Fills.push_back(Fill{shape, scalarType(dtype), value});
  plan->Results = results;
  plan->Scalars = scalars;
  plan->Adds = adds;
  size_t total = plan->Outputs.size() + plan->Fills.size();
  if (plan->Inputs.empty())
    throw rt::Error(rt::ErrorCode::InvalidArgument, "plan", op, "a plan needs an input");
  for (int r : results)
    if (r < 0 || static_cast<size_t>(r) >= total)
      throw rt::Error(rt::ErrorCode::InvalidArgument, "plan", op, "result index out of range");
  for (const auto &[arg, r] : adds)
    if (arg < 0 || r < 0 || static_cast<size_t>(r) >= total)
      throw rt::Error(rt::ErrorCode::InvalidArgument, "plan", op, "add index out of range");
  std::unique_lock lock(cacheMutex());
  if (cache().size() >= kMaxPlans)
    return false;
  cache()[tlPending.Key] = std::move(plan);
  tlPending.Active = false; // one plan per miss
  return true;
}

void clearPlans() {
  std::unique_lock lock(cacheMutex());
  cache().clear();
}

size_t planCount() {
  std::shared_lock lock(cacheMutex());
  return cache().size();
}

/// Gives torch.ops.fpxc.<name> the planned CUDA kernel (callArgs: its
/// per-call int arguments). Ops are routed at load time (this file, or
/// Python at import), before any call reads opInfos().
void routeCuda(torch::Library &lib, const std::string &name, std::vector<int> callArgs) {
  opInfos()["fpxc::" + name] = OpInfo{std::move(callArgs)};
  lib.impl(name.c_str(), torch::CppFunction::makeFromBoxedFunction<&plannedKernel>());
}

/// A torch.ops.fpxc op called from Python with all its arguments but the
/// per-call ones bound once (fpxc.quantize's eager CUDA calls): a call
/// builds the argument stack in C++ and goes through the dispatcher as
/// torch.ops.fpxc.<op>(...) does (autograd, modes below it, the planned
/// kernel), without the per-call parsing of the arguments against the
/// schema (5 us of host time for quantize's 15, docs/results/hostpath.md).
/// A call it does not take (a tensor subclass, a TorchFunctionMode: torch's
/// __torch_function__ protocol) returns None, and the caller calls the op.
/// With DropFills, results a plan would fill with a constant come back as
/// None (no fill on the stream; not under a TorchDispatchMode, which may
/// read them).
class OpCaller {
public:
  OpCaller(const std::string &name, nb::list args, std::vector<int> slots, bool dropFills)
      : Op(c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), "")),
        Slots(std::move(slots)), DropFills(dropFills) {
    const auto &schema = Op.schema().arguments();
    if (args.size() != schema.size())
      throw nb::value_error(("OpCaller: " + name + " takes " + std::to_string(schema.size()) +
                             " arguments, got " + std::to_string(args.size()))
                                .c_str());
    for (size_t i = 0; i < args.size(); ++i) {
      nb::handle a = args[i];
      if (a.is_none())
        Args.emplace_back();
      else if (nb::isinstance<nb::bool_>(a))
        Args.emplace_back(nb::cast<bool>(a));
      else if (nb::isinstance<nb::int_>(a))
        Args.emplace_back(nb::cast<int64_t>(a));
      else if (nb::isinstance<nb::float_>(a))
        Args.emplace_back(nb::cast<double>(a));
      else if (nb::isinstance<nb::str>(a))
        Args.emplace_back(nb::cast<std::string>(a));
      else if (std::optional<c10::ScalarType> t = scalarTypeOf(a.ptr()))
        Args.emplace_back(*t);
      else
        throw nb::type_error(("OpCaller: bound argument " + std::to_string(i) +
                              " must be None, a bool, int, float, str or torch.dtype")
                                 .c_str());
    }
    for (int slot : Slots)
      if (slot < 0 || static_cast<size_t>(slot) >= schema.size())
        throw nb::value_error("OpCaller: per-call argument index out of range");
  }

  nb::object call(nb::args given) const {
    if (given.size() != Slots.size())
      throw nb::type_error(("OpCaller takes " + std::to_string(Slots.size()) +
                            " per-call arguments, got " + std::to_string(given.size()))
                               .c_str());
    if (torchFunctionModeActive())
      return nb::none();
    torch::jit::Stack stack(Args);
    for (size_t i = 0; i < Slots.size(); ++i) {
      PyObject *a = given[i].ptr();
      c10::IValue &v = stack[Slots[i]];
      if (a == Py_None)
        v = c10::IValue();
      else if (isPlainTensor(a))
        v = unpackTensor(a);
      else if (PyLong_CheckExact(a)) {
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(a, &overflow);
        if (overflow)
          return nb::none();
        v = static_cast<int64_t>(n);
      } else {
        return nb::none(); // (a subclass, or a value for the op's own parser)
      }
    }
    struct Drop { // (not left set for another call: the op may not reach the kernel)
      Drop(bool on) { tlDropFills = on; }
      ~Drop() { tlDropFills = false; }
    } drop(DropFills && !c10::impl::dispatch_mode_enabled());
    try {
      Op.callBoxed(stack);
    } catch (const nb::python_error &) {
      throw;
    } catch (...) {
      setPythonError(std::current_exception());
      throw nb::python_error();
    }
    auto object = [](c10::IValue &v) -> nb::object {
      if (v.isTensor())
        return nb::steal(wrapTensor(std::move(v).toTensor()));
      if (v.isNone())
        return nb::none();
      throw nb::type_error("OpCaller: the op returned a value other than a tensor");
    };
    if (stack.size() == 1)
      return object(stack[0]);
    nb::list out;
    for (c10::IValue &v : stack)
      out.append(object(v));
    return nb::tuple(out);
  }

private:
  c10::OperatorHandle Op;
  std::vector<c10::IValue> Args;
  std::vector<int> Slots;
  bool DropFills;
};

} // namespace

namespace fpx::python {

void bindTorchOps(nb::module_ &m) {
  nb::class_<OpCaller>(m, "OpCaller",
                       "torch.ops.fpxc.<name> with its arguments bound but the per-call ones "
                       "(`slots`, by index): calling it with those goes through torch's "
                       "dispatcher from C++; None where the call needs Python's "
                       "__torch_function__ handling (a tensor subclass, a mode).")
      .def(nb::init<const std::string &, nb::list, std::vector<int>, bool>(), nb::arg("name"),
           nb::arg("args"), nb::arg("slots"), nb::arg("drop_fills") = false,
           "drop_fills: the caller ignores the results a plan fills with a constant "
           "(quantize's g = 1 for formats without a global scale); a planned call "
           "returns them as None and skips the fill.")
      .def("__call__", &OpCaller::call);
  m.def("_plan_pending", [](const std::string &op) {
    return tlPending.Active && tlPending.Op == op;
  });
  m.def("_offer_plan", &offerPlan, nb::arg("op"), nb::arg("fn"), nb::arg("inputs"),
        nb::arg("outputs"), nb::arg("fills"), nb::arg("results"), nb::arg("scalars"),
        nb::arg("adds") = std::vector<PyAdd>(),
        "Caches the launch serving the call now missing in the C++ kernel of `op` "
        "(fpxc/ops.py: _offer). adds: (tensor argument, result index) pairs added "
        "in place into the results after the launch. False where no such call is "
        "pending.");
  m.def("_clear_plans", &clearPlans);
  m.def("_host_profile", [](bool on) {
    tlProfile = Profile();
    tlProfile.On = on;
  }, nb::arg("on"),
     "Switches the host-time profile of this thread's planned CUDA calls on (reset) or off.");
  m.def("_host_profile_read", []() {
    std::vector<std::pair<std::string, double>> parts;
    double calls = tlProfile.Calls ? double(tlProfile.Calls) : 1.0;
    for (int p = 0; p < NumPhases; ++p)
      parts.emplace_back(kPhaseNames[p], tlProfile.Ns[p] / calls / 1e3);
    return std::make_pair(tlProfile.Calls, parts);
  }, "(calls that took a plan, [(part, us a call)]) since _host_profile(True).");
  m.def("_plan_count", &planCount);
  m.def("_route_cuda", [](const std::string &name, std::vector<int> callArgs) {
    // An op defined elsewhere (a Python custom op): its CUDA calls through the
    // plan cache; the Library lives as long as the process.
    static auto *libs = new std::vector<std::unique_ptr<torch::Library>>();
    libs->push_back(std::make_unique<torch::Library>(
        torch::Library::IMPL, "fpxc", c10::DispatchKey::CUDA, __FILE__, __LINE__));
    routeCuda(*libs->back(), name, std::move(callArgs));
  }, nb::arg("name"), nb::arg("call_args") = std::vector<int>(),
     "Routes CUDA calls of torch.ops.fpxc.<name> through the C++ plan cache "
     "(call_args: the per-call int arguments, by index). Its Python "
     "implementation must be registered for CompositeExplicitAutograd (the "
     "misses go there) and offer its launch (_plan_pending, _offer_plan). An op "
     "made by torch.library.custom_op keeps Python on its Autograd key, every "
     "call: define it with torch.library.define and impl instead for the full "
     "saving (fpxc/ops.py does so for quantize).");
}

} // namespace fpx::python

// The schemas: what fpxc/ops.py declared with torch.library.custom_op before
// (the same arguments, defaults and results).
TORCH_LIBRARY(fpxc, m) {
  // (the fake kernels and the Python implementations: a process that loaded
  // this library without the package is told to import it)
  m.set_python_module("fpxc.ops");
  m.def("quantize(Tensor x, str format, SymInt block_rows, SymInt block_cols, str scale, "
        "str rule, str rounding, str scale_layout, str packing, SymInt seed, "
        "bool global_scale, SymInt hadamard=0, SymInt hadamard_seed=0, Tensor? amax=None, "
        "str nonfinite=\"nan\") -> (Tensor, Tensor, Tensor)");
  m.def("dequantize(Tensor data, Tensor scales, Tensor? global_scale, str format, "
        "SymInt block_rows, SymInt block_cols, str scale, str scale_layout, str packing, "
        "SymInt cols, ScalarType dtype) -> Tensor");
  m.def("hadamard(Tensor x, SymInt block, SymInt seed, bool random_signs) -> Tensor");
  m.def("swizzle_scales(Tensor scales, Tensor? group_ends=None) -> Tensor");
  // y = (a * scale_a * global_scale_a) @ (b * scale_b * global_scale_b)^T:
  // fp8, MXFP8 or NVFP4 a (M, K), b (N, K) (fpxc/scaled.py: fpxc.scaled_mm);
  // the global scales are NVFP4's; the layouts, "row_major" or "blocked",
  // those of MX and NVFP4 scales.
  m.def("scaled_mm(Tensor a, Tensor scale_a, Tensor b, Tensor scale_b, "
        "ScalarType out_dtype, Tensor? bias=None, Tensor? global_scale_a=None, "
        "Tensor? global_scale_b=None, str scale_layout_a=\"row_major\", "
        "str scale_layout_b=\"row_major\") -> Tensor");
  // The grouped (MoE) fp8 GEMM: y[rows of g] = (a * scale_a)[rows of g] @
  // (b[g] * scale_b[g])^T, a (M, K), b (G, N, K), fp32 row scales (M, 1) and
  // (G, N, 1), offs int32 (G,) each group's end row, read on the device only
  // (fpxc/grouped.py: fpxc.grouped_mm).
  m.def("grouped_mm(Tensor a, Tensor scale_a, Tensor b, Tensor scale_b, Tensor offs, "
        "ScalarType out_dtype) -> Tensor");
  m.set_python_module("fpxc.linear"); // (its fake kernel's module)
  m.def("linear(Tensor x, Tensor codes, Tensor scales, Tensor? bias, str format, "
        "SymInt out_features, SymInt in_features, Tensor? global_scale=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(fpxc, CUDA, m) {
  routeCuda(m, "quantize", {9}); // the seed: a kernel scalar
  routeCuda(m, "dequantize", {});
  routeCuda(m, "hadamard", {});
  routeCuda(m, "swizzle_scales", {});
  routeCuda(m, "linear", {});
  routeCuda(m, "scaled_mm", {});
  routeCuda(m, "grouped_mm", {});
}

// No gradients: a call on inputs that require grad runs, and a backward
// through its outputs raises (as the custom ops' autograd kernel did before).
// CUDA calls skip the boxed fallback (plannedAutogradKernel). linear has
// gradients (to x and the bias): linearAutogradKernel.
TORCH_LIBRARY_IMPL(fpxc, Autograd, m) {
  for (const char *name : {"quantize", "dequantize", "hadamard", "swizzle_scales", "scaled_mm",
                           "grouped_mm"})
    m.impl(name, torch::autograd::autogradNotImplementedFallback());
  m.impl("linear", torch::CppFunction::makeFromBoxedFunction<&linearAutogradKernel>());
}
TORCH_LIBRARY_IMPL(fpxc, AutogradCUDA, m) {
  for (const char *name : {"quantize", "dequantize", "hadamard", "swizzle_scales", "scaled_mm",
                           "grouped_mm"})
    m.impl(name, torch::CppFunction::makeFromBoxedFunction<&plannedAutogradKernel>());
  m.impl("linear", torch::CppFunction::makeFromBoxedFunction<&linearAutogradKernel>());
}
