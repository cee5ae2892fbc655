// A quantize prologue is a call to a user function that is only linked at
// load time (the runtime compiles the user's CUDA C++ with NVRTC and links it
// with the artifact's PTX). fpxc writes the artifact's top-level "link"
// list, the PTX declares the function `.extern .func`, ptxas assembles the
// PTX only as relocatable code (-c), and a cubin is refused with a message
// naming the symbol.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_90a -o %t/pro
// RUN: FileCheck %s --check-prefix=JSON < %t/pro.json
// JSON:      "functions": [
// JSON-NOT:  "link"
// JSON:      "link": [
// JSON-NEXT:   {
// JSON-NEXT:     "signature": "float(float)",
// JSON-NEXT:     "symbol": "fpx_user_scale"
// JSON-NEXT:   }
// JSON-NEXT: ],
// JSON-NOT:  "cubin"
//
// RUN: FileCheck %s --check-prefix=PTX < %t/pro.ptx
// PTX: .extern .func (.param .b32 func_retval0) fpx_user_scale
// PTX: .visible .entry prologue_quantize0(
// PTX-COUNT-32: call.uni (retval0), fpx_user_scale, (param0);
//
// RUN: not fpxc compile %s --target sm_90a -o %t/pro2 --cubin 2>&1 | FileCheck %s --check-prefix=CUBIN
// RUN: not fpxc compile %s --target sm_90a --emit cubin -o %t/pro3.cubin 2>&1 | FileCheck %s --check-prefix=CUBIN
// CUBIN: fpxc: error: cannot assemble a cubin: the kernels call user functions ('fpx_user_scale') that are only linked at load time
// RUN: not ls %t/pro2.json %t/pro2.cubin %t/pro3.cubin

func.func @prologue(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {prologue = "fpx_user_scale",
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
