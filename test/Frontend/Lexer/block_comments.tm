// Block comments anywhere between tokens, closed by the first '*/', with
// stars and slashes inside; code after them is code (until 2026-12-01 the
// lexer took every block comment followed by more text for an unterminated
// one). An unclosed one is fail_unterminated_comment.tm.
// RUN: %tmc %s --emit=ast | FileCheck %s
// CHECK: Kernel <{{.*}}> scale
// CHECK: Y[g] = (X[g] * 2.0)

/* a comment before the kernel, ** with stars * and / slashes */
kernel scale(X: f32[N], /* the output: */ Y: f32[N]) grid(cdiv(N, 128)) block(128) {
  for i in spatial(128) on threadIdx.x {  /**/
    let g = blockIdx.x * 128 + i;  /***/
    if (g < N) { Y[g] = X[g] /* times */ * 2.0; }
  }
}
/* a last one, closed */
