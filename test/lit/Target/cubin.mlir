// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: fpxc compile %s --target sm_90a --emit ptx -o %t/sm_90a.ptx
// RUN: %ptxas -arch=sm_90a %t/sm_90a.ptx -o %t/sm_90a.direct.cubin
// RUN: fpxc compile %s --target sm_100a --emit ptx -o %t/sm_100a.ptx
// RUN: %ptxas -arch=sm_100a %t/sm_100a.ptx -o %t/sm_100a.direct.cubin
// RUN: fpxc compile %s --target sm_90a --emit cubin -o %t/sm_90a.cubin
// RUN: fpxc compile %s --target sm_100a --emit cubin -o %t/sm_100a.cubin
// RUN: od -A n -t x1 -N 4 %t/sm_90a.cubin | FileCheck %s --check-prefix=ELF
// RUN: od -A n -t x1 -N 4 %t/sm_100a.cubin | FileCheck %s --check-prefix=ELF
// RUN: not fpxc compile %s --target sm_90a --emit cubin 2>&1 | FileCheck %s --check-prefix=NOOUT

// ptxas accepts fpxc's PTX (directly and through --emit cubin) for the two
// targets of the first slice; a cubin is an ELF file.
// ELF: 7f 45 4c 46
// NOOUT: fpxc: error: --emit cubin needs -o FILE

func.func @fp8_per_tensor(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}
