// RUN: %tmc %s --verify-diagnostics
let a = 1;
// expected-error@+1 {{unterminated /* comment}}
/* this comment never ends
let b = 2;
