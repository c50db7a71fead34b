// Broadcasting in graphs aligns trailing dimensions; a 1 or a missing
// dimension takes the other side's. A size-1 dimension against a missing
// one crashed the checker (regression).
// RUN: %tmc %s --verify-diagnostics

graph leading_one(x: f32[1, 4], b: f32[4]) -> f32[1, 4] {
  return x + b;
}

graph ones_both_sides(x: f32[B, 1, 4], y: f32[1, 5, 4]) -> f32[B, 5, 4] {
  return x * y;
}

graph scalar_and_vector(x: f32[1], y: f32[3, 1, 2]) -> f32[3, 1, 2] {
  return y - x;
}

graph wrong_return(x: f32[1, 4], b: f32[4]) -> f32[4] {
  return x + b;  // expected-error {{graph 'wrong_return' returns 'f32[1, 4]' but is declared to return 'f32[4]'}}
}
