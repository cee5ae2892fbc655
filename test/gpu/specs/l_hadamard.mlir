// GPU test spec: standalone random Hadamard transforms written to memory.
func.func @l_hadamard_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %h = fpx.hadamard %x {size = 16, seed = 9} : tensor<?x?xbf16>
  return %h : tensor<?x?xbf16>
}
func.func @l_hadamard_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %h = fpx.hadamard %x {size = 128, seed = 1} : tensor<?x?xf32>
  return %h : tensor<?x?xf32>
}
func.func @l_hadamard_f16(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %h = fpx.hadamard %x {size = 32, seed = 4} : tensor<?x?xf16>
  return %h : tensor<?x?xf16>
}
