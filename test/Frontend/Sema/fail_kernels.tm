// Kernels: compile-time parameters, where clauses, launch configuration,
// `implements`.
// RUN: %tmc %s --split-input-file --verify-diagnostics
// RUN: not %tmc %s -D BM=96 --split-input-file 2>&1 | FileCheck %s --check-prefix=DEFN

kernel k<BM: int in [64, 128], F: f32 = 1.0>() block(32) { // expected-error {{compile-time parameter 'F' must be an integer or bool}}
}

// -----

kernel k<BM: int>() block(32) {   // expected-error {{compile-time parameter 'BM' has no value: give it a default, candidates, or -D BM=VALUE}}
}

// -----

kernel k<BM: int in [64, 128] = 32>() block(32) {  // expected-error {{value 32 of 'BM' is not among its candidates [64, 128]}}
}
// DEFN: error: value 96 of 'BM' is not among its candidates [64, 128]

// -----

kernel k<BM: int in [64, 128], BK: int in [8, 16]>() // expected-note {{with BM = 64, BK = 8}}
    where BM % 128 == 0                              // expected-error {{constraint '((BM % 128) == 0)' is not satisfied}}
    where BM + 1                                     // expected-error {{a 'where' constraint must be a compile-time bool, or a launch condition}}
    block(32) {
}

// -----

kernel k(X: f32[N]) grid(N) block(64, 32) { // expected-error {{a block of 2048 threads exceeds the limit of 1024}}
}

// -----

kernel k(X: f32[N]) grid(1) block(0) {        // expected-error {{block dimension must be positive, got 0}}
}

// -----

kernel k(X: f32[N]) grid(1, 1, 1, 1) block(N) { // expected-error {{'grid' takes 1 to 3 dimensions, 4 given}}
                                                // expected-error@-1 {{a block dimension must be a compile-time constant}}
}

// -----

kernel k(X: f32[N]) threads(32) grid(1) grid(2) block(1) { // expected-error {{unknown kernel clause 'threads'; expected 'grid', 'block' or 'cluster'}}
  // expected-error@-1 {{duplicate 'grid' clause}}
  // expected-note@-2 {{previous definition is here}}
}

// -----

kernel k(X: f32[N]) grid(1.5) { // expected-error {{kernel 'k' has no 'block(...)' clause}}
  // expected-error@-1 {{grid dimension has type 'f32' where 'i32' is expected}}
}

// -----

op mm(A: f32[M, K], B: f32[K, N]) -> f32[M, N] { // expected-note {{'mm' declared here}} expected-note {{'result' declared here}}
  out[i, j] = sum(k < K) A[i, k] * B[k, j];
}
func helper() {}   // expected-note {{'helper' declared here}}

kernel k1(A: f32[M, K], B: f32[K, N]) implements mm block(32) {} // expected-error {{kernel 'k1' has 2 parameters but op 'mm' has 2 inputs and one output}}
kernel k2(A: f32[M, K], B: f32[K, N], C: f16[M, N]) implements mm block(32) {} // expected-error {{parameter 'C' of kernel 'k2' has type 'f16[M, N]' but op 'mm' expects 'f32[M, N]'}}
kernel k3(A: f32[M, K], B: f32[L, N], C: f32[M, N]) implements mm block(32) {} // expected-error {{op 'mm': dimension 'K' is 'K' in parameter 'A' but 'L' in parameter 'B'}}
kernel k4(A: f32[M, K], B: f32[K, N], C: f32[N, M]) implements mm block(32) {} // expected-error 2 {{op 'mm': dimension}}
kernel k5(A: f32[M, K]) implements helper block(32) {} // expected-error {{'helper' is not an op}}
kernel k6(A: f32[M, K]) implements nothing block(32) {} // expected-error {{use of undeclared identifier 'nothing'}}
kernel k7(A: f32[M, K], B: f32[K, N], C: f32[M, N]) implements mm block(32) {}

// -----

op fix(X: f32[N, 4]) -> f32[N, 4] { out[i, j] = X[i, j]; }
kernel k(X: f32[N, 8], Y: f32[N, 4]) implements fix block(32) {} // expected-error {{dimension 1 of parameter 'X' is '8' but op 'fix' fixes it to 4}}

// -----
// A launch condition is over shape symbols and compile-time values only.

kernel k<B: int = 4>(X: f32[N], s: i32) where B > s, B >= N block(32) { }  // expected-error {{a 'where' constraint must be a compile-time bool, or a launch condition}}

// -----
// Element-type parameters are names of their own; launch conditions
// cannot divide by a zero parameter.

kernel k1<T: type = f16, T: type = f32>(X: T[N]) block(32) { }  // expected-error {{redefinition of 'T'}}
kernel k2<T: type = f16>(X: T[T]) block(32) { }  // expected-error {{'T' is an element-type parameter, not a dimension}} expected-error {{use of undeclared identifier 'T'}}
kernel k3<B: int = 0>(X: f32[N]) where N / B >= 1 block(32) { }  // expected-error {{division by zero in constant expression}}

// -----
// sizeof takes an element-type parameter or a scalar value.

kernel k<T: type = f16>(X: T[N]) block(32) {
  let a = sizeof(T) + sizeof(1.5f16) + sizeof(N);  // expected-warning {{unused variable 'a'}}
  let b = sizeof(X);  // expected-error {{argument 1 of 'sizeof' must be an element-type parameter or a scalar value, got 'f16[N]'}}
}
