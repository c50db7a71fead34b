// A name declared in a module that is not imported: the error says which
// module declares it (the standard library, the file's folder, -I folders)
// and the import line to add.
// RUN: not %tmc %s -I %S/Inputs 2>&1 | FileCheck %s

kernel mm(A: f32[M, K], B: f32[K, N], C: f32[M, N]) implements matmul block(32) {
}
// CHECK: fail_missing_import.tm:[[@LINE-2]]:64: error: use of undeclared identifier 'matmul'
// CHECK: stdlib/nn.tm:5:4: note: op 'matmul' is declared in module 'std.nn': add 'import std.nn;'
// CHECK-NEXT: op matmul<T>(A: T[M, K], B: T[K, N]) -> T[M, N] {
// CHECK-NEXT: {{^   \^~~~~~$}}

kernel frag() block(32) {
  register c: f32[16, 8] by mma_c;
}
// CHECK: fail_missing_import.tm:[[@LINE-2]]:29: error: use of undeclared identifier 'mma_c'
// CHECK: stdlib/mma.tm:17:5: note: constant 'mma_c' is declared in module 'std.mma': add 'import std.mma;'

graph twice(X: f32[8]) -> f32[8] { return double(X); }
// CHECK: fail_missing_import.tm:[[@LINE-1]]:43: error: use of undeclared identifier 'double'
// CHECK: Inputs/lib/shapes.tm:4:4: note: op 'double' is declared in module 'lib.shapes': add 'import lib.shapes;'

// A near miss of a visible name is still suggested when no module has it.
kernel typo(X: f32[N]) block(32) {
  let scale = 2.0;
  X[0] = scal;
  X[1] = scale;
}
// CHECK: fail_missing_import.tm:[[@LINE-3]]:10: error: use of undeclared identifier 'scal'; did you mean 'scale'?
// CHECK: 4 errors generated.
