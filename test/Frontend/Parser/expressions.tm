// Expressions are parsed flat (operands and operators) and grouped by
// precedence in the AST builder (Tm.g4, expr): C's precedence, left
// associativity, `? :` loosest and right-associative, a reduction's body
// extending as far right as the expression goes.
// RUN: %tmc %s --emit=ast --parse-only | FileCheck %s

// Where a condition ends in a call, a launch clause follows (not a body).
// CHECK: Where {{.*}} f(B)
// CHECK: LaunchGrid {{.*}} cdiv(N, 64)
// CHECK: Let {{.*}} a = (((((((((((((((-X[0]) * 2) + (X[1] / 3)) - (X[2] % 4)) << 1) >> 2) < 3) <= 4) == (5 > 6)) != 7) & 8) ^ 9) | 10) && 11) || 12)
// CHECK: Let {{.*}} b = (a ? X[0] : ((a == 1) ? X[1] : X[2]))
// CHECK: Let {{.*}} c = (((f32(a).x[1].y + (~a)) - (+a)) - (-(-(!a))))
// CHECK: Let {{.*}} d = (((a - b) - c) * (a + (b + c)))
// CHECK: Assign {{.*}} Y[1] += ((a < b) ? c : (c + 1))
func f(b: int) -> bool { return b > 0; }
kernel k<B: int in [1, 2] = 1>(X: f32[N], Y: f32[N]) where f(B) grid(cdiv(N, 64)) block(64) {
  let a = -X[0] * 2 + X[1] / 3 - X[2] % 4 << 1 >> 2 < 3 <= 4 == 5 > 6 != 7 & 8 ^ 9 | 10 && 11 || 12;
  let b = a ? X[0] : a == 1 ? X[1] : X[2];
  let c = f32(a).x[1].y + ~a - +a - -(-!a);
  let d = (a - b - c) * (a + (b + c));
  Y[1] += a < b ? (c) : c + 1;
}

// CHECK: OpOut {{.*}} out[i, j] = (sum(k < K) ((A[i, k] * B[k, j]) + 1.0))
op r1(A: f32[M, K], B: f32[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K) A[i, k] * B[k, j] + 1.0;
}
// A signed body: the sign applies to the term after it, the rest joins
// the body, `? :` included.
// CHECK: OpOut {{.*}} out[i] = (sum(k < K) ((((-(A[i, k] * 2.0)) + A[i, 0]) < 3.0) ? 1.0 : 2.0))
op r2(A: f32[M, K]) -> f32[M] {
  out[i] = sum(k < K) - A[i, k] * 2.0 + A[i, 0] < 3.0 ? 1.0 : 2.0;
}
// Extents are expressions; a body may begin with a call or a parenthesis.
// CHECK: OpOut {{.*}} out[i] = (max(k < (K - 1)) (exp((A[i, k] - 1.0)) / 2.0))
// CHECK: OpOut {{.*}} out[i] = (2.0 * (sum(k < K, l < (c ? 2 : 3)) (A[i, k] - 1.0)))
op r3(A: f32[M, K]) -> f32[M] {
  out[i] = max(k < K - 1) exp(A[i, k] - 1.0) / 2.0;
}
op r4(A: f32[M, K]) -> f32[M] {
  out[i] = 2.0 * sum(k < K, l < c ? 2 : 3) (A[i, k]) - 1.0;
}
// Parentheses end a body; a prefix applies to the whole reduction.
// CHECK: OpOut {{.*}} out[i] = (((sum(k < K) A[i, k]) - 1.0) + (-(sum(k < K) ((!A[i, k]) * 2.0))))
op r5(A: f32[M, K]) -> f32[M] {
  out[i] = (sum(k < K) A[i, k]) - 1.0 + -sum(k < K) !A[i, k] * 2.0;
}
// CHECK: OpOut {{.*}} out[i] = (A[i, 0] ? (sum(k < K) A[i, k]) : (sum(k < K) ((-A[i, k]) ? 1.0 : 2.0)))
op r6(A: f32[M, K]) -> f32[M] {
  out[i] = A[i, 0] ? sum(k < K) A[i, k] : sum(k < K) -A[i, k] ? 1.0 : 2.0;
}
// Signed reductions one in another's body (the one in a sign's term stays a call).
// CHECK: OpOut {{.*}} out[i] = (sum(k < 4) ((-sum((k < 4))) - (sum(j < 4) (-X[i]))))
op r7(X: f32[N]) -> f32[N] {
  out[i] = sum(k < 4) - sum(k < 4) - sum(j < 4) - X[i];
}
// A body in parentheses takes the operators after it, and postfixes apply
// to it; a prefix applies to the whole reduction.
// CHECK: OpOut {{.*}} out[i] = (sum(k < K) (A[i, k] * 2.0))
// CHECK: OpOut {{.*}} out[i] = (-(sum(k < K) (A[i, k][0] * 2.0)))
// CHECK: OpOut {{.*}} out[i] = (1.0 + (sum(k < K) A[i, k]))
// CHECK: OpOut {{.*}} out[i] = (sum(k < K) (A[i, k] ? 1.0 : 2.0))
op p1(A: f32[M, K]) -> f32[M] { out[i] = sum(k < K) (A[i, k]) * 2.0; }
op p2(A: f32[M, K]) -> f32[M] { out[i] = -sum(k < K) (A[i, k])[0] * 2.0; }
op p3(A: f32[M, K]) -> f32[M] { out[i] = 1.0 + sum(k < K) (A[i, k]); }
op p4(A: f32[M, K]) -> f32[M] { out[i] = sum(k < K) (A[i, k]) ? 1.0 : 2.0; }
// Nested reductions; a signed body after a tighter operator; a reduction in
// a signed term takes the rest of the expression.
// CHECK: OpOut {{.*}} out[i] = (sum(k < K) (max(l < L) (A[i, k, l] - 1.0)))
// CHECK: OpOut {{.*}} out[i] = (2.0 * (sum(k < K) ((-A[i, k, 0]) + 1.0)))
// CHECK: OpOut {{.*}} out[i] = (sum(k < K) (-(max(l < L) (A[i, k, l] / 2.0))))
// CHECK: OpOut {{.*}} out[i] = (-(-(sum(k < K) (A[i, k, 0] + (!(sum(k < K) (~A[i, k, 0])))))))
op n1(A: f32[M, K, L]) -> f32[M] { out[i] = sum(k < K) max(l < L) A[i, k, l] - 1.0; }
op n2(A: f32[M, K, L]) -> f32[M] { out[i] = 2.0 * sum(k < K) -A[i, k, 0] + 1.0; }
op n3(A: f32[M, K, L]) -> f32[M] { out[i] = sum(k < K) - max(l < L) A[i, k, l] / 2.0; }
op n4(A: f32[M, K, L]) -> f32[M] { out[i] = - - sum(k < K) A[i, k, 0] + !sum(k < K) ~A[i, k, 0]; }
// A compile-time parameter's default may be parenthesized.
// CHECK: CtParam {{.*}} C: i32 in [1, 2] = 1
kernel d<C: int in [1, 2] = (1)>(X: f32[N]) block(32) { X[0] = 1.0; }
// A body may begin on the next line. Parentheses close a reduction, so a
// parenthesized reducer call followed by a sign stays a call.
// CHECK: OpOut {{.*}} out[i, j] = (sum(k < K) (A[i, k] * B[k, j]))
// CHECK: OpOut {{.*}} out[i] = (sum((k < K)) - A[i, k])
op l1(A: f32[M, K], B: f32[K, N]) -> f32[M, N] {
  out[i, j] = sum(k < K)
      A[i, k] * B[k, j];
}
op l2(A: f32[M, K]) -> f32[M] { out[i] = (sum(k < K)) - A[i, k]; }
