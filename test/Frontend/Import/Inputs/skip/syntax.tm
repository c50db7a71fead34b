kernel lib_syntax(X: f32[N]) block(32) {
  let = ;
}
