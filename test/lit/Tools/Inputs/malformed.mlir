func.func @f(%x: tensor<4xbf16> {
  return
}
