// Statements: assignment, control flow, returns.
// RUN: %tmc %s --split-input-file --verify-diagnostics

kernel k(X: f32[N]) block(32) {
  let a = 1;              // expected-note {{'a' declared here}}
  a = 2;                  // expected-error {{cannot assign to 'a': it is not declared with 'var'}}
  var f: f32 = 0.0;
  f %= 2.0;               // expected-error {{'%=' cannot be applied to 'f32'}}
  f <<= 1;                // expected-error {{'<<=' cannot be applied to 'f32'}}
  var b = true;
  b += true;              // expected-error {{'+=' cannot be applied to 'bool'}}
  var i = 0;
  i <<= 1.5;              // expected-error {{'<<=' cannot be applied to 'f32'}}
  X = X;                  // expected-error {{expression is not assignable}}
  3 = 4;                  // expected-error {{expression is not assignable}}
  f + 1.0;                // expected-warning {{expression result unused}}
  f = 1.0;
  i += 1;
  b = false;
  for j in range(4) { i += j; }
  while (i > 0) { i -= 1; }
}

// -----

kernel k() block(32) {
  break;                  // expected-error {{'break' outside of a loop}}
  continue;               // expected-error {{'continue' outside of a loop}}
  return 1;               // expected-error {{kernels do not return values}}
}

// -----

func f(x: f32) -> f32 {   // expected-error {{'f' does not return a value on every path}}
  if (x > 0.0) { return x; }
}

func g(x: f32) {
  return x;               // expected-error {{a function without a result type returns a value}}
}

func h(x: f32) -> f32 {
  return;                 // expected-error {{missing return value of type 'f32'}}
}

func t() -> f32[4] {      // expected-error {{device functions return scalars, not tensors}}
}

// -----

op f(X: f32[N]) -> f32[N] { out[i] = X[i]; }
kernel k(X: f32[N]) block(32) {
  X[0] = 1.0;
  let s = sum(i < 4) X[i]; // expected-error {{reductions are only allowed in op definitions}}
}
