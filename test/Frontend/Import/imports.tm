// Imports: the stdlib (std.*) by default, user modules next to the file and
// along -I paths; declarations of imported modules are visible.
// RUN: %tmc %s -I %S/Inputs --verify-diagnostics
// expected-no-diagnostics

import std.nn;
import lib.shapes;

kernel k<T: int = TILE>(X: f32[N], Y: f32[N]) implements double block(32) {
  for (r, c) in warp_map on lane_id {
    let i = r * 4 + c;
    if (i < N) { Y[i] = 2.0 * X[i]; }
  }
}

graph g(x: f32[B, 16]) -> f32[B, 16] {
  return relu(x);
}
