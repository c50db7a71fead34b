// An op whose intermediate is read at another row (t[0]): the fused group
// gets the serial schedule, and the warning names the intermediate as the
// op declares it, not as the fused op renamed it.
op center0(x: f32[R, C]) -> f32[R, C] {
  let t[r] = sum(c < C) (x[r, c]);
  out[r, c] = x[r, c] - t[0];
}

op clamp0(x: f32[R, C]) -> f32[R, C] {
  out[r, c] = max(x[r, c], 0.0);
}

graph g(x: f32[R, C]) -> f32[R, C] {
  return clamp0(center0(x));
}
