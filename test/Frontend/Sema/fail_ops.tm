// Op definitions: output indices, reductions, index extents.
// RUN: %tmc %s --split-input-file --verify-diagnostics

op a(X: f32[M, N]) -> f32[M, N] {
  out[i] = X[i, 0];           // expected-error {{the result has rank 2 but 'out' is indexed with 1 index}}
}

// -----

// A result dimension no input binds is free (the caller gives it with the
// result), but an index over it still must match what it indexes.
op b(X: f32[M, N]) -> f32[M, P] {
  out[i, j] = X[i, j];  // expected-error {{index 'j' ranges over P but dimension 1 of 'X' has extent N}}
}

// -----

op c(X: f32[M, N]) -> f32[N, M] {
  out[i, j] = X[i, j];        // expected-error {{index 'i' ranges over N but dimension 0 of 'X' has extent M}} expected-error {{index 'j' ranges over M but dimension 1 of 'X' has extent N}}
}

// -----

op d(X: f32[M, N]) -> f32[M] {
  out[i] = mean(k < N) X[i, k];  // expected-error {{unknown reduction 'mean'; expected sum, max, min or prod}}
}

// -----

op e(X: f32[M, N]) -> f32[M] {
  out[i] = sum(i < N) X[i, i];   // expected-error {{reduction variable 'i' shadows an index variable}}
  // expected-note@-1 {{'i' declared here}}
}

// -----

op f(X: f32[M, N]) -> f32[M] {   // expected-error {{op 'f' never assigns 'out'}}
  result[i] = X[i, 0];           // expected-error {{an op assigns its result to 'out', not 'result'}}
}

// -----

op g(X: f32[M]) -> f32[M] {
  out[i] = X[i];                 // expected-note {{previous definition is here}}
  out[i] = X[i] * 2.0;           // expected-error {{'out' is assigned more than once}}
  let late[i] = X[i];            // expected-error {{'late' is defined after 'out'}}
}

// -----

op h(X: f32[M]) -> f32[M] {
  let t[r, q] = X[r];            // expected-error {{cannot infer the extent of index 'q': use it to index a tensor dimension}}
  out[i] = X[i];
}

// -----

op k(X: f32[M], flag: bool) -> f32[M] {
  out[i] = flag;                 // expected-error {{the op's result has type 'bool' where 'f32' is expected}}
}

// -----

op l(X: f32[M]) -> i32[M] {
  out[i] = X[i];                 // expected-error {{implicit conversion from 'f32' to 'i32' may lose information}}
}

// -----

op m(X: f32[M]) -> f32[M] {
  let s = sum(k < M) X[k];
  let t[i] = X[i] / s;
  out[i] = t[i] + undefined;     // expected-error {{use of undeclared identifier 'undefined'}}
}

// -----

op n(X: f32[M]) -> f32[M] {
  out[i] = sum(k < M) (X[k] > 0.0); // expected-error {{reduction body has type 'bool' where 'a number' is expected}}
}

// -----

// Generic ops: type parameters stand for floating-point types and bind
// consistently from the arguments.
op scale<T>(X: T[N], a: T) -> T[N] { out[i] = a * X[i]; }
op pair<T>(X: T[N], Y: T[N]) -> T[N] { out[i] = X[i] + Y[i]; }
op bad(X: U[N]) -> f32[N] { out[i] = 1.0; }  // expected-error {{unknown type 'U'}}

graph g1(x: f16[B], y: f32[B]) -> f16[B] {
  return pair(x, y);          // expected-error {{op 'pair': type parameter 'T' is 'f16' in argument 1 but 'f32' in argument 2}}
}

graph g2(x: i32[B]) -> i32[B] {
  return pair(x, x);          // expected-error {{type parameter 'T' of op 'pair' stands for a floating-point type, not 'i32'}}
}

graph g3(x: bf16[B]) -> bf16[B] {
  return pair(x, x);
}

kernel k(X: T[N]) block(32) {}  // expected-error {{unknown type 'T'}}

graph g4(x: f16[B]) -> f16[B] {
  return scale(x, 2.0);       // the literal takes the type bound by x
}

graph g5(x: f16[B]) -> f16[B] {
  return scale(x, 100000.0);  // expected-error {{literal 100000 is not exactly representable in type 'f16'}}
}

// -----
// Ops call functions that compute a scalar from scalars.

func ok(x: f32) -> f32 { let y = x * 2.0; if (y > 1.0) { return y; } return -y; }
func loops(x: f32) -> f32 {  // expected-note {{'loops' declared here}}
  var s = x;
  for i in range(3) { s += 1.0; }
  return s;
}
func reads(X: f32[N]) -> f32 { return X[0]; }  // expected-note {{'reads' declared here}}
func lane(x: f32) -> f32 { return x + f32(lane_id); }  // expected-note {{'lane' declared here}}
func no_result(x: f32) { }  // expected-note {{'no_result' declared here}}
func calls(x: f32) -> f32 { return loops(x); }  // expected-note {{'calls' declared here}}
op a(X: f32[N]) -> f32[N] { out[i] = ok(X[i]) + ok(1.0); }
op b(X: f32[N]) -> f32[N] { out[i] = loops(X[i]); }   // expected-error {{function 'loops' cannot be called from an op: it declares a 'var' (an op calls functions that compute a scalar from scalars with 'let', 'if' and 'return')}}
op c(X: f32[N]) -> f32[N] { out[i] = reads(X); }      // expected-error {{function 'reads' cannot be called from an op: its parameter 'X' is a tensor}}
op d(X: f32[N]) -> f32[N] { out[i] = lane(X[i]); }    // expected-error {{function 'lane' cannot be called from an op: it uses 'lane_id'}}
op e(X: f32[N]) -> f32[N] { out[i] = no_result(X[i]); } // expected-error {{function 'no_result' cannot be called from an op: it has no scalar result}}
op f(X: f32[N]) -> f32[N] { out[i] = calls(X[i]); }   // expected-error {{function 'calls' cannot be called from an op: it calls 'loops', and it declares a 'var'}}
op g(X: f32[N]) -> f32[N] { out[i] = ok(X); }         // expected-error {{}}

// -----
// Ops with several results: each named result is defined exactly once.

op stats(X: f32[R, C]) -> (mean: f32[R], var_: f32[R]) {  // expected-error {{op 'stats' never assigns 'var_'}}
  let m[r] = sum(c < C) X[r, c] / f32(C);
  mean[r] = m[r];
  mean[r] = m[r];      // expected-error {{'mean' is assigned more than once}} expected-note@-1 {{previous definition is here}}
  out[r] = m[r];       // expected-error {{'out' is not a result of op 'stats' (its results: mean, var_)}}
  let late[r] = m[r];  // expected-error {{'late' is defined after 'mean'}}
  mean2[r, c] = m[r];  // expected-error {{'mean2' is not a result of op 'stats'}}
}
op two(X: f32[N]) -> (A: f32[N], B: f32[N, N]) {  // expected-note 2 {{'two' declared here}}
  A[i] = X[i];
  B[i] = X[i];         // expected-error {{the result has rank 2 but 'B' is indexed with 1 index}}
}
kernel k3(X: f32[N], A: f32[N]) implements two block(32) {}  // expected-error {{kernel 'k3' has 2 parameters but op 'two' has 1 input and 2 outputs}}
graph g(X: f32[N]) -> f32[N] {
  let t = two(X);      // expected-error {{op 'two' has 2 results; a graph calls ops with one result}}
  return X * 1.0;
}

// -----
// Result names are new names.

op f1(X: f32[N]) -> (X: f32[N], Y: f32[N]) {  // expected-error {{redefinition of 'X'}}
  X[i] = 1.0;
  Y[i] = 2.0;
}
op f2(out: f32[N]) -> f32[N] { out[i] = 1.0; }  // expected-error {{redefinition of 'out'}}
op f3(X: f32[N]) -> (a: f32[N], a: f32[N]) {  // expected-error {{redefinition of 'a'}} expected-error {{op 'f3' never assigns 'a'}}
  a[i] = X[i];
}
func rec(x: f32) -> f32 { return rec(x); }  // expected-note {{'rec' declared here}}
op f4(X: f32[N]) -> f32[N] { out[i] = rec(X[i]); }  // expected-error {{function 'rec' cannot be called from an op: it calls 'rec', and it is recursive}}
