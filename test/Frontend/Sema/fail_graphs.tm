// Graphs: op calls bind shape symbols; tensors broadcast; return types.
// RUN: %tmc %s --split-input-file --verify-diagnostics

op mm(A: f32[M, K], B: f32[K, N]) -> f32[M, N] { out[i, j] = sum(k < K) A[i, k] * B[k, j]; } // expected-note {{'mm' declared here}} expected-note {{'A' declared here}}
op fix(X: f32[N, 4]) -> f32[N, 4] { out[i, j] = X[i, j]; }

graph g1(x: f32[B, 64], w: f32[32, 16]) -> f32[B, 16] {
  return mm(x, w);               // expected-error {{op 'mm': dimension 'K' is '64' in argument 1 but '32' in argument 2}}
}

graph g2(x: f32[B, 8]) -> f32[B, 8] {
  return fix(x);                 // expected-error {{dimension 1 of argument 1 is '8' but op 'fix' requires 4}}
}

graph g3(x: f32[B, 8], y: f32[7]) -> f32[B, 8] {
  let z = x + y;                 // expected-error {{cannot broadcast shapes [B, 8] and [7]}}
  return x * 1.0;
}

graph g4(x: f32[B, 8], y: f32[8]) -> f32[B, 8] {
  let z = x * y + 1.0;
  return z;
}

graph g5(x: f32[B, 8]) -> f32[B, 4] {
  return x * 1.0;                   // expected-error {{graph 'g5' returns 'f32[B, 8]' but is declared to return 'f32[B, 4]'}}
}

graph g6(x: f32[B, 8]) -> f32[B, 8] {  // expected-error {{'g6' does not return a value on every path}}
  let y = x;                     // expected-warning {{unused variable 'y'}}
}

graph g7(x: f32[B, 8]) -> f32[B, 8] {
  sync;                          // expected-error {{only 'let' and 'return' statements are allowed in a graph}}
  return x % x;                  // expected-error {{invalid operands to binary '%' ('f32[B, 8]' and 'f32[B, 8]')}}
}

graph g8(x: f32[B, 8]) -> f32[B, 8] {
  return mm(x);                  // expected-error {{'mm' takes 2 arguments, 1 given}}
}

graph g9(x: f16[B, 8], w: f32[8, 8]) -> f32[B, 8] {
  return mm(x, w);               // expected-error {{argument has type 'f16[B, 8]' where 'f32[M, K]' is expected}}
}

graph g10(x: f32[B, 8]) -> f32[B, 8] {
  return;                        // expected-error {{missing return value of type 'f32[B, 8]'}}
}

// A graph's result shape comes from its parameters; an op's free result
// dimension (a crop's size) cannot be called from a graph.
graph g11(x: f32[B, 8]) -> f32[B, Z] {  // expected-error {{result dimension 'Z' is not bound by any parameter}}
  return x;
}

op crop(X: f32[M, N], r0: i32, c0: i32) -> f32[P, Q] {  // expected-note {{'P' declared here}}
  out[i, j] = X[i + r0, j + c0];
}

graph g12(x: f32[B, 8]) -> f32[B, 8] {
  let y = crop(x, 1, 1);         // expected-error {{op 'crop' has the result dimension 'P', which its arguments do not determine; a graph calls ops whose result shapes follow from their arguments}}
  return x * 1.0;
}

// Several results: named, returned in order, each of its declared type.
graph g13(x: f32[B, 8]) -> (y: f32[B, 8], z: f32[B, 8]) {
  return x;                      // expected-error {{graph 'g13' returns 1 value but declares 2 results}}
}

graph g14(x: f32[B, 8]) -> f32[B, 8] {
  return x, x * 2.0;             // expected-error {{graph 'g14' returns 2 values but declares 1 result}}
}

graph g15(x: f32[B, 8]) -> (y: f32[B, 8], z: f32[8]) {
  return x * 2.0, x * 1.0;           // expected-error {{graph 'g15' returns 'f32[B, 8]' but is declared to return 'f32[8]'}}
}

graph g16(x: f32[B, 8]) -> (y: f32[B, 8], z: f32[B, 8]) {
  let h = x * 2.0;
  return h, h;                   // expected-error {{graph 'g16' returns 'h' twice: each result is a tensor of its own (return a copy, e.g. 'h * 1.0')}}
}

func two(a: f32) -> f32 {
  return a, a;                   // expected-error {{only a graph returns several values}}
}

// A graph's scalars are literals and names: scalar arithmetic and math
// would run on the host, which a launch plan does not do.
graph g17(z: f32[B, 8], t: f32) -> f32[B, 8] {
  return z * exp(t);             // expected-error {{in a graph, a scalar is a literal or a scalar parameter: pass the value of 'exp(t)' as a parameter}}
}

graph g18(z: f32[B, 8], t: f32) -> f32[B, 8] {
  let inv = 1.0 / t;             // expected-error {{in a graph, a scalar is a literal or a scalar parameter: pass the value of '(1.0 / t)' as a parameter}}
  return z;                      // expected-error {{graph 'g18' returns its parameter 'z' unchanged: a graph's results are computed (for a copy, return 'z * 1')}}
}

graph g19(z: f16[B, 8], a: f32) -> f16[B, 8] {
  return z * f16(a) + 2 * z;     // expected-error {{in a graph, a scalar is a literal or a scalar parameter: pass the value of 'f16(a)' as a parameter}}
}

// A let does not shadow a parameter; results are tensors.
graph g20(x: f32[B, 8]) -> f32[B, 8] {  // expected-note {{'x' declared here}}
  let x = x * 2.0;               // expected-error {{redefinition of 'x'}}
  return x * 1.0;
}

graph g21(a: f32, b: f32) -> f32 {  // expected-error {{a graph's results are tensors; 'f32' is a scalar}}
  return a;
}

// A type parameter that only the op's result names is not determined by a
// call (it became f32, and the graph's result type then disagreed).
op widen<T, U>(X: T[N]) -> U[N] { out[i] = X[i]; }  // expected-note {{'widen' declared here}}
graph g22(x: f32[N]) -> f16[N] {
  return widen(x);               // expected-error {{type parameter 'U' of op 'widen' names only its result, so this call does not determine it; in a graph every type parameter of an op must be the element type of one of its arguments}}
}

// Where a scalar parameter needs a conversion, the advice is its type:
// `f32(t)` is no scalar a graph can take.
graph g23(x: f32[R, C], t: i32) -> f32[R, C] {
  return x * t;                  // expected-error {{implicit conversion from 'i32' to 'f32' may lose information; in a graph, declare the scalar parameter as 'f32' (a graph's scalars are literals and parameters)}}
}
