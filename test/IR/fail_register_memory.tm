// Register tensors are bounded per thread (512 KiB per function, the GPU's local memory, each
// unrolled copy counted): a 200,000-element register array once overran the
// CPU executor's fiber stack and corrupted its heap.
// RUN: %tmc %s --emit=ir -o %t.ir --split-input-file --verify-diagnostics
// RUN: not %tmc %s --emit=ptx -o %t.ptx --split-input-file 2>&1 | FileCheck %s

kernel k(X: f32[N], Y: f32[N]) block(32) {
  register r: f32[200000];  // expected-error {{kernel 'k' needs 800000 bytes of register tensors per thread, more than the limit of 524288}}
  let t = threadIdx.x;
  r[0] = X[t];
  Y[t] = r[0];
}
// CHECK: fail_register_memory.tm:8:3: error: kernel 'k' needs 800000 bytes of register tensors per thread, more than the limit of 524288
// CHECK-NEXT: register r: f32[200000];
// CHECK-NEXT: {{^}}  ^~~~~~~~~~~~~~~~~~~~~~~~

// -----
// Four unrolled copies of a 160,000-byte array.
func f(X: f32[N], t: i32) -> f32 {
  var s: f32 = 0.0;
  for k in unroll(4) {
    register r: f32[40000];  // expected-error {{function 'f' needs 640000 bytes of register tensors per thread, more than the limit of 524288}}
    r[k] = X[t];
    s += r[k];
  }
  return s;
}
kernel uses_f(X: f32[N], Y: f32[N]) block(32) {
  Y[threadIdx.x] = f(X, threadIdx.x);
}

// -----
// At the limit is fine.
kernel k(X: f32[N], Y: f32[N]) block(32) {
  register r: f32[131072];
  let t = threadIdx.x;
  r[0] = X[t];
  Y[t] = r[0];
}
