// More shared memory than a block may have is an error for the target.
// RUN: %tmc %s --emit=ir --arch=sm_90a --verify-diagnostics
// RUN: %tmc %s --emit=ir --arch=sm_80 -D ROWS=256 > /dev/null

kernel big<ROWS: int = 512>() block(32) {  // expected-error {{kernel 'big' uses 262144 bytes of shared memory, more than the 232448 bytes a block may have on sm_90}}
  shared s: f32[ROWS, 128];
  s[0, 0] = 1.0;
}
