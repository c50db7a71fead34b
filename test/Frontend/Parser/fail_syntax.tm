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

kernel k() block(32) { // expected-note {{to match this '{'}}
  let a = 1;
// expected-error@+1 {{unexpected end of file; expected '}'}}
