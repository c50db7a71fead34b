// Characters outside the language: one diagnostic each, no cascade.
// RUN: %tmc %s --verify-diagnostics

let a = 1 @ 2;     // expected-error {{invalid character '@' in source}}
let b = "text";    // expected-error 2 {{invalid character '"' in source}}
let π = 3.14;      // expected-error {{invalid character U+03C0 in source}}
// Unicode in comments is fine: αβγ ✓
