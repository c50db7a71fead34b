// Syntax errors: one diagnostic per mistake, with what was expected.
// RUN: %tmc %s --split-input-file --verify-diagnostics

kernel k() block(32) {
  let x = 3   // expected-error {{expected ';' before 'let'}}
  let y = 4;
}

// -----

op f(X: f32[N]) -> f32[N] {
  out[i] = X[i] +;   // expected-error {{unexpected ';'; expected expression}}
}

// -----

let for = 3;         // expected-error {{unexpected 'for'; expected identifier}}

// -----

kernel k() block(32) {
  if x > 1 { }       // expected-error {{expected '(' before identifier 'x'}}
}

// -----

kernel k() block(32) {
  let a = (1 + 2;    // expected-error {{expected ')' before ';'}} expected-note {{to match this '('}}
}


// -----

let x: 5 = 1;        // expected-error {{unexpected '5'; expected a type}}

// -----

}                    // expected-error {{unexpected '}'}}

// -----

op f(X: f32[N]) -> { out[i] = X[i]; }  // expected-error {{unexpected '{'; expected a type}}

// -----

// A call followed by something that is not an operator: no reduction was
// meant (no reducer, no `name < extent`), so the operator is what is missing.
kernel k(X: f32[N]) block(32) {
  X[0] = exp(X[0]) X[1];   // expected-error {{unexpected identifier 'X'; expected an operator}}
}

// -----

kernel k(X: f32[N]) block(32) {
  X[0] = X[1] X[2];   // expected-error {{unexpected identifier 'X'; expected an operator}}
}

// -----

// A missing ';' at the end of a line, the next line an assignment or a
// call: reported where the ';' belongs.
kernel k(X: f32[N], Y: f32[N]) block(32) {
  let a = X[0]   // expected-error {{expected ';' before identifier 'Y'}}
  Y[0] = a;
}

// -----

kernel k(X: f32[N], Y: f32[N]) block(32) {
  X[0] = 1.0     // expected-error {{expected ';' before identifier 'Y'}}
  Y[0] += 2.0;
}

// -----

func g(x: f32) -> f32 { return x; }
kernel k(X: f32[N]) block(32) {
  X[0] = 1.0     // expected-error {{expected ';' before identifier 'g'}}
  g(X[1]);
}

// -----

// max and min of values, not reductions: an operator is missing.
kernel k(X: f32[N]) block(32) {
  X[0] = max(X[0], X[1]) X[2];   // expected-error {{unexpected identifier 'X'; expected an operator}}
}

// -----

kernel k(X: f32[N]) block(32) {
  X[0] = exp(X[0])(X[1]);   // expected-error {{unexpected '('; expected an operator}}
}

// -----

// A call followed by a body is a reduction; its arguments are its variables.
op f(X: f32[N, K]) -> f32[N] {
  out[i] = sum(k + 1 < K, (j < 2)) X[i, k];  // expected-error {{arguments read 'name < extent'}} expected-error {{arguments read 'name < extent'}}
}

// -----

op f(X: f32[N, K]) -> f32[N] {
  out[i] = sum() X[i, 0];  // expected-error {{a call followed by a body is a reduction}}
}

// -----

kernel k() block(32) { // expected-note {{to match this '{'}}
  let a = 1;
// expected-error@+1 {{unexpected end of file; expected '}'}}
