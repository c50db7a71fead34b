kernel lib_open(X: f32[N]) block(32) {
  for t in spatial(32) on threadIdx.x {
}
