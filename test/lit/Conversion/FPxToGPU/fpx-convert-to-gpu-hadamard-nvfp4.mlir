// RUN: fpx-opt %s -fpx-fuse-quantize -fpx-convert-to-gpu="chip=sm_90a" | FileCheck %s

// Hadamard 16 fused into NVFP4 + rs (its tensor amax given). The transform's
// 1/4 is not applied to the values: the block amax takes it once (max |h| /
// 4 = max |h / 4|, rounding being monotonic), the fast branch divides h by
// 4 s (exact; bit-identical quotients, QuantizeKernels.cpp fastQuotients),
// only for scales up to 2^123 (the divisor's reciprocal stays normal), and
// converts `bounded` (quotients below 7: no clamp, codes saturated after);
// the slow branch multiplies by 1/4 first and divides by s itself. One
// branch a block: around both of its vectors' conversions (codes yielded).
// CHECK-LABEL: gpu.func @nvfp4_rht_rs_cast_quantize0(
// CHECK-NOT: arith.constant 2.500000e-01
// CHECK: %[[MAX:.*]] = llvm.intr.maximum
// CHECK: %[[Q:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT: %[[AMAX:.*]] = arith.mulf %{{.*}}, %[[Q]] : f32
// CHECK-NEXT: arith.constant 6.000000e+00 : f32
// CHECK-NEXT: arith.divf %[[AMAX]]
// CHECK: %[[TOP:.*]] = arith.constant 1.0633824E+37 : f32
// CHECK-NEXT: %[[OK:.*]] = arith.cmpf ole, %[[S:.*]], %[[TOP]] : f32
// CHECK-NEXT: %[[FAST:.*]] = arith.andi %{{.*}}, %[[OK]] : i1
// CHECK: scf.if %[[FAST]] -> (i32, i32) {
// CHECK-NEXT: arith.constant true
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[S]], %[[FOUR]] : f32
// CHECK-NEXT: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %{{.*}}, %[[D]] : f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[Y]] : f32
// CHECK-NOT: arith.minnumf
// CHECK: fpx.convert {{.*}} {bounded, format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>}
// CHECK: fpx.convert {{.*}} {bounded, format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>}
// CHECK-NOT: scf.if
// CHECK: } else {
// CHECK-NEXT: arith.constant false
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.cmpf oeq, %[[S]]
// CHECK-NEXT: %[[Q2:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT: %[[X:.*]] = arith.mulf %{{.*}}, %[[Q2]] : f32
// CHECK-NEXT: arith.divf %[[X]], %[[S]] : f32
// CHECK-NOT: bounded
// CHECK: fpx.convert {{.*}} {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>}
func.func @nvfp4_rht_rs_cast(%x: tensor<?x?xbf16>, %a: tensor<f32>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %h = fpx.hadamard %x {size = 16, seed = 5} : tensor<?x?xbf16>
  %q, %s = fpx.quantize %h amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
