kernel lib_char(X: f32[N]) block(32) {
  let a = 1 @ 2;
}
