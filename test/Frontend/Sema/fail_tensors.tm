// Tensor types, shapes, layouts and indexing.
// RUN: %tmc %s --split-input-file --verify-diagnostics

kernel k(A: f32[M, K], B: f32[]) block(32) { // expected-error {{a tensor type needs at least one dimension}}
  let a = A[0];          // expected-error {{'A' has rank 2 but is indexed with 1 indices}}
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
