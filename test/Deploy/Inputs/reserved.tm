// Names a C library cannot export.
op copy(X: f32[N]) -> f32[N] {
  out[i] = X[i];
}

kernel malloc(X: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 256)) block(256) {
  for i in spatial(256) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) {
      Y[g] = X[g];
    }
  }
}

kernel copy_class(class: f32[N], Y: f32[N]) implements copy grid(cdiv(N, 256)) block(256) {
  for i in spatial(256) on threadIdx.x {
    let g = blockIdx.x * 256 + i;
    if (g < N) {
      Y[g] = class[g];
    }
  }
}
