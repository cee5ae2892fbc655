// RUN: not fpxc compile %s --target sm_90a --emit ptx -o - 2>&1 | FileCheck %s
// RUN: %python %S/Inputs/exit_status.py fpxc compile %s --target sm_90a --emit ptx -o - | FileCheck %s --check-prefix=STATUS
// STATUS: exit status 1

// The launch records of kernel-level input (fpx.functions on a gpu.module,
// fpx.kernel on a gpu.func) are plain data: strings, integers that fit in
// int64, arrays and dictionaries. Anything else is an error at the op that
// carries it, naming the field ({link = 5} was a segfault, an i128 was
// silently wrapped into the JSON). Every bad record is reported.

// CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op fpx.functions[0].link: expected an array of {symbol, signature} records, got 5 : i64
gpu.module @link_int attributes {fpx.functions = [{link = 5}]} {
}

// CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op fpx.functions[0].link: expected an array of {symbol, signature} records, got [{symbol = 5 : i64}]
gpu.module @link_symbol attributes {fpx.functions = [{name = "f", link = [{symbol = 5}]}]} {
}

// CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op fpx.functions: expected an array of function records, got "f"
gpu.module @functions_string attributes {fpx.functions = "f"} {
}

// CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op fpx.functions[1]: expected a function record (a dictionary), got 5 : i64
gpu.module @function_int attributes {fpx.functions = [{name = "f"}, 5]} {
}

// CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op fpx.functions[0].scalars[0].default: 99999999999999999999 : i128 does not fit in int64
gpu.module @wide attributes {fpx.functions = [{name = "f", scalars = [{name = "s", type = "i64", default = 99999999999999999999 : i128}]}]} {
}

// CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op fpx.functions[0].x: 18446744073709551615 : ui64 does not fit in int64
gpu.module @unsigned attributes {fpx.functions = [{name = "f", x = 18446744073709551615 : ui64}]} {
}

// CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op fpx.functions[0].shape[1]: expected a string, an integer, an array or a dictionary, got 1.500000e+00 : f32
gpu.module @float attributes {fpx.functions = [{name = "f", shape = ["M", 1.5 : f32]}]} {
}

// CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:1: error: 'gpu.module' op fpx.functions[0].name: string is not valid UTF-8
gpu.module @bytes attributes {fpx.functions = [{name = "\FF"}]} {
}

gpu.module @kernels {
  // CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:3: error: 'gpu.func' op fpx.kernel: expected a launch record (a dictionary), got [256, 1, 1]
  gpu.func @record_array() kernel attributes {fpx.kernel = [256, 1, 1]} {
    gpu.return
  }
  // CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:3: error: 'gpu.func' op fpx.kernel.shared_bytes: 99999999999999999999 : i128 does not fit in int64
  gpu.func @shared_wide() kernel attributes {fpx.kernel = {block = [256, 1, 1], shared_bytes = 99999999999999999999 : i128}} {
    gpu.return
  }
  // CHECK: fpxc-launch-records-errors.mlir:[[@LINE+1]]:3: error: 'gpu.func' op fpx.kernel.params[0].type: expected a string, an integer, an array or a dictionary, got unit
  gpu.func @param_unit() kernel attributes {fpx.kernel = {block = [256, 1, 1], params = [{name = "x", type}]}} {
    gpu.return
  }
  // A well-formed record is not reported.
  // CHECK-NOT: error
  gpu.func @fine() kernel attributes {fpx.kernel = {block = [256, 1, 1], grid = ["1", 1, "1"], shared_bytes = 0 : i64, params = []}} {
    gpu.return
  }
}
