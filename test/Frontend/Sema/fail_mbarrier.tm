// mbarriers live in shared arrays of kernels and are used only through
// their built-ins; a constant arrival count must fit the hardware's.
// RUN: %tmc %s --arch=sm_90a --verify-diagnostics

kernel k(X: f32[N]) block(128) {
  shared bar: mbarrier[2];
  register r: mbarrier[2];  // expected-error {{mbarriers are declared as a shared array in a kernel body, as in 'shared bar: mbarrier[STAGES];'}}
  shared s: f32[4];
  mbarrier_init(bar[0], 0);  // expected-error {{an mbarrier counts 1 to 1048575 arrivals a phase, not 0}}
  mbarrier_init(bar[1], 128);
  bar[0] = 1;  // expected-error {{'bar' is an array of mbarriers: its elements are used only through the mbarrier built-ins}}
  let x = bar[1];  // expected-error {{'bar' is an array of mbarriers}}
  mbarrier_arrive(s[0]);  // expected-error {{argument 1 of 'mbarrier_arrive' must be an element of a shared mbarrier array, got 'f32'}}
  mbarrier_wait(bar[0], 1.5);  // expected-error {{implicit conversion from 'f32' to 'i32' may lose information}}
  mbarrier_arrive_expect_tx(bar[1], 4096);
  shared idx: mbarrier[1];
  mbarrier_arrive(bar[idx[0]]);  // expected-error {{'idx' is an array of mbarriers}}
  peek(bar);  // expected-error {{'bar' is an array of mbarriers}}
}

func peek(b: shared u64[N]) {
}

kernel param(B: mbarrier[2]) block(32) {  // expected-error {{mbarriers are declared as a shared array in a kernel body}}
}

// A function cannot take one (the mbarrier built-ins are the kernel's):
// one error at the type, not also "unknown type 'mbarrier'".
func handoff(bar: shared mbarrier[1]) {}  // expected-error {{mbarriers are declared as a shared array in a kernel body, as in 'shared bar: mbarrier[STAGES];'}}
