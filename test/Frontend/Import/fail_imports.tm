// RUN: %tmc %s -I %S/Inputs --verify-diagnostics
// RUN: not %tmc %s -I %S/Inputs 2>&1 | FileCheck %s

import no.such.module;  // expected-error {{module 'no.such.module' not found}}
// expected-note@-1 {{searched}} expected-note@-1 {{searched}}
import std.missing;     // expected-error {{module 'std.missing' not found}}
// expected-note@-1 {{searched}}
import cycle_a;
// CHECK: error: module 'no.such.module' not found
// CHECK: note: searched {{.*}}Import/no/such/module.tm
// CHECK: note: searched {{.*}}Inputs/no/such/module.tm
// CHECK: error: module 'std.missing' not found
// CHECK: note: searched {{.*}}stdlib/missing.tm
// CHECK: cycle_b.tm:1:1: error: module 'cycle_a' imports itself through a cycle
