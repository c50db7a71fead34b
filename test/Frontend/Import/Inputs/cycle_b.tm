import cycle_a;  // expected-error {{module 'cycle_a' imports itself through a cycle}}
