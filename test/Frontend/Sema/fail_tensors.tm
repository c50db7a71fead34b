// Tensor types, shapes, layouts and indexing.
// RUN: %tmc %s --split-input-file --verify-diagnostics

kernel k(A: f32[M, K], B: f32[]) block(32) { // expected-error {{a tensor type needs at least one dimension}}
  let a = A[0, 1, 2];    // expected-error {{'A' has rank 2 but is indexed with 3 indices}}
  let b = A[0, 1.5];     // expected-error {{index has type 'f32', expected an integer}}
  let c = A[0, 0][1];    // expected-error {{cannot index a value of type 'f32'}}
}

// -----

kernel k(A: f32[M, 0]) block(32) {  // expected-error {{tensor dimension must be positive, got 0}}
}

// -----

kernel k(A: f32[M, 2.5]) block(32) {  // expected-error {{tensor dimension has type 'f32', expected an integer}}
}

// -----

kernel k(A: f32[M] diagonal) block(32) {  // expected-error {{unknown layout 'diagonal'; expected row_major, col_major, strided or swizzle}}
}

// -----

kernel k(A: f32[M, N] strided(1)) block(32) {  // expected-error {{layout 'strided' takes 2 arguments, 1 given}}
}

// -----

kernel k(n: i32) block(32) {
  shared s: f32[16, 16];
  shared t: f32[n];       // expected-error {{tensor dimension must be a constant, a compile-time parameter or a shape symbol}}
  shared u: f32;          // expected-error {{'shared' declarations need a tensor type}}
  let x = s[16, 0];       // expected-error {{index 16 is out of bounds for dimension 0 of extent 16}}
  s[0, 0] = 1.0;
}

// -----

kernel k(A: f32[M]) block(32) {
  shared t: f32[M];       // expected-error {{shared tensor dimensions must be compile-time constants}}
}

// -----

func g(x: f32) -> f32 {
  shared s: f32[4];       // expected-error {{shared tensors can only be declared in kernels}}
  return x;
}

// -----

// Diagnostics that teach: how shape symbols are bound, what a layout
// argument is, and counts in agreement with their nouns.
kernel k1(A: f32[2 * N]) block(32) { // expected-error {{use of undeclared identifier 'N': a shape symbol is bound only by a parameter dimension that is the name alone, as in 'f32[N]'}}
}
kernel k2(A: f32[M], B: f32[M + P]) block(32) { // expected-error {{use of undeclared identifier 'P': a shape symbol is bound only by a parameter dimension that is the name alone, as in 'f32[P]'}}
}
kernel k3(A: f32[M, 4] strided(0, 1)) block(32) { // expected-error {{stride 1 of 'strided' must be positive, got 0}}
}
kernel k4(A: f32[M, 4] strided(4, 1.5)) block(32) { // expected-error {{stride 2 of 'strided' has type 'f32', expected an integer}}
}
kernel k5(A: f32[M] strided(1, 1)) block(32) { // expected-error {{layout 'strided' takes 1 argument, 2 given}}
}
kernel k6(A: f32[M]) block(32) {
  shared s: f32[2 * Q]; // expected-error {{use of undeclared identifier 'Q'}}
}
op o(X: f32[N]) -> f32[N] {
  out[i] = X[i] + sum(k < 0) X[k]; // expected-error {{reduction extent must be positive, got 0}}
}
func f(x: f32) -> f32 { return x; }
func g() -> f32 {
  return f(); // expected-error {{'f' takes 1 argument, 0 given}}
  // expected-note@-3 {{'f' declared here}}
}
func h() -> f32 {
  return exp(); // expected-error {{'exp' takes 1 argument, 0 given}}
}
kernel k7(A: f32[N]) block(4) {
  for (i, j) in spatial(4) on threadIdx.x { // expected-error {{loop binds 2 variables but the task mapping has rank 1}}
  } // expected-note@-1 {{this mapping is mapping<1, 4, (4)>}}
  for (i) in spatial(2, 2) on threadIdx.x { // expected-error {{loop binds 1 variable but the task mapping has rank 2}}
  } // expected-note@-1 {{this mapping is mapping<2, 4, (2, 2)>}}
}
kernel k9(A: f32[N]) block(1) {
  for i in spatial(4) on threadIdx.x { // expected-warning {{task mapping spatial(4) has 4 workers but the block has 1 thread in x}}
    A[i] = 0.0;
  }
}
op one(X: f32[N]) -> f32[N] { out[i] = X[i]; }
kernel k8(X: f32[N]) implements one block(32) { // expected-error {{kernel 'k8' has 1 parameter but op 'one' has 1 input and one output}}
// expected-note@-2 {{'one' declared here}}
}

// -----
// Views: fewer indices than dimensions select a row-major sub-tensor.

func f(x: shared f32[16, 16]) { x[0, 0] = 1.0; }
kernel k(A: f32[M, K]) block(32) {
  shared s: f32[3, 16, 16];
  shared t: f32[16, 16] col_major;
  shared sw: f32[2, 16, 16] swizzle(1, 3, 3);
  register r: f32[4, 4];
  let v = s[1];
  v[0, 0] = A[0, 0];
  s[2][1, 1] = v[0, 15] + A[1][2];
  let x = v[0, 16];        // expected-error {{index 16 is out of bounds for dimension 1 of extent 16}}
  let y = s[3];            // expected-error {{index 3 is out of bounds for dimension 0 of extent 3}}
  let w = t[0];            // expected-error {{a view of 't' needs a row-major tensor, not a col_major one}}
  // A view of a swizzled tensor must span whole swizzle periods (2^(1+3+3) = 128 elements).
  let g = sw[1];
  g[3, 4] = A[0, 0];
  let h = sw[1, 2];        // expected-error {{a view of the swizzled tensor 'sw' spans 16 elements, not a multiple of its swizzle period of 128 elements (2^(B + M + S)), so it would not swizzle as a tensor of its own}}
  f(sw[1]);                // expected-error {{argument 1 of 'f' must be a row-major tensor (a function indexes its tensor parameters row-major), got a swizzle one}}
  f(t);                    // expected-error {{argument 1 of 'f' must be a row-major tensor (a function indexes its tensor parameters row-major), got a col_major one}}
  let z = r[0];            // expected-error {{'r' has rank 2 but is indexed with 1 index}}
  let q = v + 1.0;         // expected-error {{}}
}

// -----
// Nor can a function declare another layout for a parameter: calls pass
// row-major tensors, which its body would index with that layout.

func by_column(s: shared f32[8, 32] col_major, r: i32) -> f32 { return s[r, 0]; }  // expected-error {{a function indexes its tensor parameters row-major; parameter 's' cannot be declared 'col_major'}}
func swizzled(s: shared f32[8, 32] swizzle(3, 2, 3)) { s[0, 0] = 1.0; }  // expected-error {{parameter 's' cannot be declared 'swizzle(3, 2, 3)'}}
func global_strided(X: f32[R, C] strided(1, R)) -> f32 { return X[0, 0]; }  // expected-error {{parameter 'X' cannot be declared 'strided(1, R)'}}
func written_row_major(X: f32[R, C] row_major) -> f32 { return X[0, 0]; }
