// --kernel K compiles K alone: the file's other kernels are parsed without
// their bodies (CompileOptions::main_kernel_only), as imported modules'
// kernels are; their signatures are still checked. A plain check, and a
// compile of every kernel, still read every body.
//
// The error in broken's body: not compiled, not reported.
// RUN: %tmc %s --kernel good --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .entry good(
// PTX-NOT: .entry broken
// RUN: %tmc %s --kernel good --emit=cuda | FileCheck %s --check-prefix=CUDA
// CUDA: __global__ {{.*}} good(
// CUDA-NOT: broken
//
// A plain check, a compile of all kernels and a compile of broken report it.
// RUN: not %tmc %s 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not %tmc %s --emit=ptx -o %t.all.ptx 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not %tmc %s --kernel broken --emit=ptx -o %t.b.ptx 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: main_kernel_only.tm:[[@LINE+14]]:25: error: use of undeclared identifier 'undefined_name'
//
// The other kernels' names are known (from their signatures).
// RUN: not %tmc %s --kernel nope --emit=ptx 2>&1 | FileCheck %s --check-prefix=NOPE
// NOPE: error: --kernel nope: no kernel named 'nope' in '{{.*}}main_kernel_only.tm' (it has broken, good)
//
// A kernel's signature is read whatever --kernel names: an error in it stops
// the compile of the other.
// RUN: sed 's|^// SIGNATURE_ERROR ||' %s > %t.sig.tm
// RUN: not %tmc %t.sig.tm --kernel good --emit=ptx -o %t.sig.ptx 2>&1 | FileCheck %s --check-prefix=SIG
// SIG: sig.tm:[[@LINE+15]]:15: error: unknown type 'f33'

kernel broken(X: f32[N]) block(32) {
  for t in spatial(32) on threadIdx.x {
    if (t < N) { X[t] = undefined_name; }
  }
}

kernel /* a comment before the name */ good(X: f32[N], Y: f32[N]) grid(cdiv(N, 64)) block(64) {
  for t in spatial(64) on threadIdx.x {
    let i = blockIdx.x * 64 + t;
    if (i < N) { Y[i] = X[i] * 2.0; }
  }
}

// SIGNATURE_ERROR kernel odd(X: f33[N]) block(32) { }
