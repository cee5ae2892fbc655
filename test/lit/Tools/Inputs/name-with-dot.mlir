func.func @a.b(%x: tensor<?x?xf32>) -> tensor<f32> {
  %a = fpx.amax %x : tensor<?x?xf32> -> tensor<f32>
  return %a : tensor<f32>
}
