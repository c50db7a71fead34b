// Task mappings: typing, composition, loops over mappings, and distributed
// register tensors.
// RUN: %tmc %s --split-input-file --verify-diagnostics

let a = spatial(4, 0);               // expected-error {{task-mapping extent must be positive, got 0}}
let b = repeat(2, -1);               // expected-error {{task-mapping extent must be positive, got -1}}
let c = spatial(4, 8) * repeat(2);   // expected-error {{cannot compose task mappings of rank 2 and rank 1}}
// expected-note@-1 {{this mapping is mapping<2, 32, (4, 8)>}}
// expected-note@-2 {{this mapping is mapping<1, 1, (2)>}}
let d = spatial(65536, 65536) * spatial(4); // expected-error {{task mapping is too large}}
let e = spatial();                   // expected-error {{'spatial' takes 1 to 8 arguments, 0 given}}

// -----

kernel k() block(128) {
  let m = spatial(4, 8) * repeat(2, 2);
  for (i, j, l) in m on threadIdx.x {  // expected-error {{loop binds 3 variables but the task mapping has rank 2}}
  }                                      // expected-note@-1 {{this mapping is mapping<2, 32, (8, 16)>}}
  for (i, j) in m {                      // expected-error {{a loop over a task mapping needs 'on WORKER'}}
  }
  for (i, j) in m on 1.5 {               // expected-error {{worker has type 'f32', expected an integer}}
  }
  for i in range(4) on threadIdx.x {     // expected-error {{'on' is only allowed in loops over task mappings}}
  }
  for (i, j) in range(4) {               // expected-error {{loop binds 2 variables but a range yields one}}
  }
  for i in 42 {                          // expected-error {{cannot iterate over 'i32': expected range(...), unroll(...) or a task mapping}}
  }
  for i in range(0, 8, 0) {              // expected-error {{range step must not be zero}}
  }
  for i in unroll(-1) {                  // expected-error {{trip count must not be negative, got -1}}
  }
  for (i, j) in m on threadIdx.x {
    break;                               // expected-error {{'break' cannot leave a loop over a task mapping}}
  }
}

// -----

kernel k() block(128) {
  for i in spatial(256) on threadIdx.x {  // expected-warning {{task mapping spatial(256) has 256 workers but the block has 128 threads in x}}
  }
  for i in spatial(64) on lane_id {      // expected-warning {{task mapping spatial(64) has 64 workers but a warp has 32 lanes}}
  }
}

// -----

kernel k() block(256) {
  let m = spatial(16, 16) * repeat(4, 4);
  let other = spatial(16, 16) * repeat(2, 8);
  register acc: f32[64, 64] by m;        // expected-note 3 {{'acc' is distributed here}}
  register bad: f32[32, 64] by m;        // expected-error {{shape of 'register f32[32, 64]' differs from the shape of its mapping mapping<2, 256, (64, 64)>}}
  register bad2: f32[4] by 3;            // expected-error {{'by' needs a task mapping, got 'i32'}}
  acc[0, 0] = 1.0;                       // expected-error {{distributed tensor 'acc' must be indexed by the variables of a loop over its mapping spatial(16, 16) * repeat(4, 4)}}
  for (i, j) in other on threadIdx.x {
    acc[i, j] = 0.0;                     // expected-error {{distributed tensor 'acc'}}
  }
  for (i, j) in m on threadIdx.x {
    acc[i, j] = 0.0;
    acc[j, i] = 1.0;                     // expected-error {{distributed tensor 'acc'}}
  }
}
