// Name resolution and values.
// RUN: %tmc %s --split-input-file --verify-diagnostics

kernel k() block(32) {
  let index = 1;    // expected-warning {{unused variable}}
  let y = indx + 1; // expected-error {{use of undeclared identifier 'indx'; did you mean 'index'?}}
  let z = q;        // expected-error {{use of undeclared identifier 'q'}}
}

// -----

let a = 1;  // expected-note {{previous definition is here}}
let a = 2;  // expected-error {{redefinition of 'a'}}

// -----

op f(X: f32[N]) -> f32[N] { out[i] = X[i]; } // expected-note {{'f' declared here}}
kernel k() block(32) {
  let y = f;  // expected-error {{'f' is an op, not a value}}
}

// -----

kernel k() block(32) {
  let n = 4;
  let y = n(3);  // expected-error {{'n' is not a function}}
  // expected-note@-2 {{'n' declared here}}
}

// -----

let c = threadIdx.x;  // expected-error {{'threadIdx' is only available in kernels and device functions}}

// -----

kernel k(X: f32[N]) block(32) {
  let unused = 1;   // expected-warning {{unused variable 'unused'}}
  let _ignored = 2;
  var count: i32;   // expected-warning {{unused variable 'count'}}
  var bad;          // expected-error {{variable 'bad' needs a type or an initializer}}
}

// -----

kernel k(X: f32[N]) block(32) {
  let t = X;  // expected-error {{'t' cannot hold a tensor}}
  var u: f32[4]; // expected-error {{'u' cannot hold a tensor}}
}

// -----

kernel k() block(32) {
  let r = range(4);  // expected-error {{a value of type 'range' cannot be stored}}
}

// -----

let t: f32[4] = 1;  // expected-error {{module-level constants must be scalars or task mappings}}

// -----

kernel k(n: i32) block(32) {
  let x: i32 = n;
  let m = spatial(x, 2); // expected-error {{a task-mapping extent must be a compile-time constant}}
}

// -----

// Module constants are evaluated in source order: a constant may use only
// the constants above it (never itself); kernels may use any of them.
let early = late + 1;   // expected-error {{constant 'late' is used before its definition: constants are evaluated in source order}}
let late = 2;           // expected-note {{'late' declared here}}
let self = self * 2;    // expected-error {{constant 'self' is used before its definition}} expected-note {{'self' declared here}}
kernel k(X: f32[N]) block(32) {
  X[0] = f32(after);     // fine: kernels are checked after every constant
}
let after = 3;
