// Malformed numeric literals.
// RUN: %tmc %s --verify-diagnostics

let h = 10abc;         // expected-error {{invalid suffix 'abc' on integer literal}}
let i = 1.5q;          // expected-error {{invalid suffix 'q' on floating-point literal}}
let j = 99999999999999999999; // expected-error {{integer literal is too large to be represented in 64 bits}}
let k = 1e400;         // expected-error {{floating-point literal is out of range for type 'f64'}}
let l = 0x10int;       // expected-error {{invalid suffix 'int' on integer literal}}
