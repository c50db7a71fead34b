// Scalars of ops in graphs written as negative, suffixed or hex literals,
// and graph scalar parameters. Each is a number in the launch plan (the
// source text `(-0.25)` was not: every launch failed, in tmc run and in
// a deployed library).
op shift(X: f32[R, C], a: f32) -> f32[R, C] { out[i, j] = X[i, j] + a; }
op shifti(X: f32[R, C], a: i32) -> f32[R, C] { out[i, j] = X[i, j] + f32(a); }
op scale_h(X: f16[R, C], a: f16) -> f16[R, C] { out[i, j] = X[i, j] * a; }

graph negative(x: f32[R, C]) -> f32[R, C] { return shift(x, -0.25); }
graph negative_int(x: f32[R, C]) -> f32[R, C] { return shifti(x, -2); }
graph through_let(x: f32[R, C]) -> f32[R, C] { let n = -0.5; return shift(x, n) * -2.0; }
graph suffixed(x: f16[R, C]) -> f16[R, C] { return scale_h(x, 0.1f16); }
graph hex(x: f32[R, C]) -> f32[R, C] { return shifti(x, 0x10); }
graph param(x: f32[R, C], alpha: f32) -> f32[R, C] { return shift(x, alpha); }
