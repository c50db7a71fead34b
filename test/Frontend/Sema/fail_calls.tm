// Built-in functions and calls.
// RUN: %tmc %s --split-input-file --verify-diagnostics

func add(a: f32, b: f32) -> f32 { return a + b; }  // expected-note {{'add' declared here}}

kernel k(X: f32[N], I: i32[N]) block(32) {
  let _a = exp(1);                   // literal: f32
  let b = exp(threadIdx.x);         // expected-error {{argument 1 of 'exp' must be a floating-point value, got 'i32'}}
  let _c = max(1.0, 2);
  let d = max(threadIdx.x, 1.5);    // expected-error {{implicit conversion from 'f32' to 'i32' may lose information}}
  let _e = min(1.0f16, 1.0f32);
  let f = fma(1.0, 2.0);            // expected-error {{'fma' takes 3 arguments, 2 given}}
  let g = select(1, 2.0, 3.0);      // expected-error {{argument 1 of 'select' must be 'bool', got 'i32'}}
  let h = cdiv(10, 0);              // expected-error {{division by zero in constant expression}}
  let i = cdiv(1.5, 2);             // expected-error {{argument 1 of 'cdiv' must be an integer, got 'f32'}}
  let j = shfl_xor(true, 1);        // expected-error {{argument 1 of 'shfl_xor' must be a 32- or 64-bit number, got 'bool'}}
  let l = shfl_down(1.0, 0.5);      // expected-error {{argument 2 of 'shfl_down' must be an integer, got 'f32'}}
  var v: f32 = 0.0;
  let m = atomic_add(v, 1.0);       // expected-error {{the first argument of 'atomic_add' must be an element of a global or shared tensor}}
  let n = atomic_max(I[0], 1.5);    // expected-error {{implicit conversion from 'f32' to 'i32' may lose information}}
  let _o = atomic_cas(I[0], 1, 2);
  let p = add(1.0);                 // expected-error {{'add' takes 2 arguments, 1 given}}
  let q = add(1.0, threadIdx.x);    // expected-error {{implicit conversion from 'i32' to 'f32'}}
  let r = abs(true);                // expected-error {{argument 1 of 'abs' must be a number, got 'bool'}}
  let _s = pow(2, 3);
  let t = max(true, 1);             // expected-error {{argument 1 of 'max' must be a number, got 'bool'}}
  let u = min(threadIdx.x, 4u);     // expected-error {{arguments of 'min' have incompatible types 'i32' and 'u32'}}
  let w = sqrt(X);                  // expected-error {{argument 1 of 'sqrt' must be a scalar, got 'f32[N]'}}
  let x = pow(1, 2) + fma(threadIdx.x, 2, 3); // expected-error {{argument 1 of 'fma' must be a floating-point value, got 'i32'}}
  let y = atomic_add(X[0], true);   // expected-error {{argument has type 'bool' where 'f32' is expected}}
}

// -----

op relu(X: f32[N]) -> f32[N] { out[i] = max(X[i], 0.0); }  // expected-note {{'relu' declared here}}
func f(x: f32) -> f32 { return x; }

kernel k(X: f32[N]) block(32) {
  let a = relu(X);                   // expected-error {{op 'relu' can only be called in a graph; kernels implement ops}}
}

op g(X: f32[N]) -> f32[N] {
  out[i] = f(X[i]);                  // ops may call functions
}

graph h(X: f32[N]) -> f32[N] {
  return f(1.0);                     // expected-error {{function 'f' can only be called from kernels, functions and ops}}
}

let t = shfl_xor(1, 1);              // expected-error {{'shfl_xor' is only available in kernels and device functions}}
