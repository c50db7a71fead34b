// Hidet's partition rules (--emit=graph): an anchor (an op that reduces)
// takes its element-wise consumers into its epilogue and its injective
// producers into its prologue; what cannot be fused stays its own kernel,
// with the reason; --no-fuse gives one kernel per operation.
// RUN: %tmc %s --emit=graph | FileCheck %s
// RUN: %tmc %s --emit=graph --no-fuse | FileCheck %s --check-prefix=NOFUSE
// RUN: %tmc %s --emit=dot | FileCheck %s --check-prefix=DOT
// RUN: %tmc %examples/mlp.tm --emit=graph | FileCheck %s --check-prefix=MLP
// RUN: %tmc %examples/transformer_block.tm --emit=graph | FileCheck %s --check-prefix=BLOCK
// RUN: %tmc %examples/custom_op_fusion.tm --emit=graph | FileCheck %s --check-prefix=CUSTOM

import std.nn;
import std.reduce;  // sum_cols
import std.matmul;  // matmul_simt implements matmul for f32

// gelu(matmul(x, w) + b): one kernel.
graph epilogue(x: f32[M, K], w: f32[K, N], b: f32[N]) -> f32[M, N] {
  return gelu(matmul(x, w) + b);
}
// CHECK-LABEL: graph epilogue: 3 operations in 1 kernel
// CHECK-NEXT: kernel 0: anchor matmul(x, w)
// CHECK-NEXT: scheduled by: kernel 'matmul_simt' (implements matmul)
// CHECK-NEXT: epilogue: (matmul(x, w) + b)
// CHECK-NEXT: epilogue: gelu((matmul(x, w) + b))
// CHECK-NEXT: reads: x f32[M, K], w f32[K, N], b f32[N]
// CHECK-NEXT: writes: gelu((matmul(x, w) + b)) f32[M, N] (the graph's result)

// relu fused into the prologue of an automatically scheduled anchor; a
// hand-written kernel (matmul_simt) keeps its producers separate.
graph prologue(x: f32[R, C]) -> f32[R, C] {
  return softmax(relu(x) * 2.0);
}
// CHECK-LABEL: graph prologue: 3 operations in 1 kernel
// CHECK-NEXT: kernel 0: anchor softmax((relu(x) * 2.0))
// CHECK-NEXT: scheduled by: automatic schedule (rule: row reduction)
// CHECK-NEXT: prologue: relu(x)
// CHECK-NEXT: prologue: (relu(x) * 2.0)
// CHECK-NEXT: reads: x f32[R, C]
// A hand-written kernel takes a prologue where it reads the input element
// by element (matmul_simt's staging loads of A)...
graph hand_prologue(x: f32[M, K], w: f32[K, N]) -> f32[M, N] {
  return matmul(relu(x), w);
}
// CHECK-LABEL: graph hand_prologue: 2 operations in 1 kernel
// CHECK: kernel 0: anchor matmul(relu(x), w)
// CHECK-NEXT: scheduled by: kernel 'matmul_simt' (implements matmul)
// CHECK-NEXT: prologue: relu(x)

// ... but not where it copies it (matmul_tc_t's cp_async of A): the
// producer is a kernel of its own.
graph no_prologue(x: f16[M, K], w: f16[K, N]) -> f16[M, N] {
  return matmul(relu(x), w);
}
// CHECK-LABEL: graph no_prologue: 2 operations in 2 kernels
// CHECK: kernel 1: anchor matmul(relu(x), w)
// CHECK: not fused: 'relu(x)' is not fused into the prologue of 'matmul(relu(x), w)': kernel 'matmul_tc_t' copies 'A' with cp_async

// A value read by two anchors is computed once, by its own kernel; the sum
// joins one anchor's epilogue and reads the other's result, so that
// anchor runs first.
graph shared_input(x: f32[R, C]) -> f32[R, C] {
  let h = relu(x);
  return softmax(h) + softmax(h);
}
// CHECK-LABEL: graph shared_input: 4 operations in 3 kernels
// CHECK: kernel 0: injective h = relu(x)
// CHECK: writes: h f32[R, C]
// CHECK: kernel 1: anchor softmax(h)
// CHECK: writes: softmax(h) f32[R, C]
// CHECK: kernel 2: anchor softmax(h)
// CHECK-NEXT: scheduled by
// CHECK-NEXT: epilogue: (softmax(h) + softmax(h))
// CHECK-NEXT: reads: h f32[R, C], softmax(h) f32[R, C]
// CHECK: not fused: 'h = relu(x)' is not fused into the prologue of 'softmax(h)': 'softmax(h)' also reads it
// CHECK: not fused: '(softmax(h) + softmax(h))' is not fused into the epilogue of 'softmax(h)': it is in the epilogue of another anchor

// A consumer that reads the anchor's result at other elements (a
// transpose) is not an epilogue; injective chains fuse among themselves.
graph transposed(x: f32[M, K], w: f32[K, N]) -> f32[N, M] {
  return relu(transpose(matmul(x, w)));
}
// CHECK-LABEL: graph transposed: 3 operations in 2 kernels
// CHECK: kernel 1: injective transpose(matmul(x, w))
// CHECK-NEXT: scheduled by: automatic schedule (rule: injective)
// CHECK-NEXT: epilogue: relu(transpose(matmul(x, w)))
// CHECK: not fused: 'transpose(matmul(x, w))' is not fused into the epilogue of 'matmul(x, w)': it reads 'matmul(x, w)' at other elements than it writes

// A result read twice is stored; the broadcast side of an addition is not
// an epilogue (each of its elements is read by a whole column).
graph two_uses(x: f32[M, K], w: f32[K, N]) -> f32[M, N] {
  let h = matmul(x, w);
  return h + relu(h);
}
// CHECK-LABEL: graph two_uses: 3 operations in 2 kernels
// CHECK: not fused: 'h' has 2 users, so none is fused into its epilogue
graph broadcast(x: f32[R, C], y: f32[M, C]) -> f32[M, C] {
  return y + sum_cols(x);
}
// CHECK-LABEL: graph broadcast: 2 operations in 2 kernels
// CHECK: not fused: '(y + sum_cols(x))' is not fused into the epilogue of 'sum_cols(x)': it reads 'sum_cols(x)' at other elements than it writes

// NOFUSE-LABEL: graph epilogue: 3 operations in 3 kernels
// NOFUSE-NEXT: kernel 0: anchor matmul(x, w)
// NOFUSE: kernel 1: injective (matmul(x, w) + b)
// NOFUSE: kernel 2: injective gelu((matmul(x, w) + b))
// NOFUSE-LABEL: graph prologue: 3 operations in 3 kernels

// DOT: digraph "epilogue" {
// DOT: subgraph cluster_0 {
// DOT-NEXT: label="kernel 0: kernel 'matmul_simt' (implements matmul)";
// DOT: n0 -> n3;

// MLP: graph mlp: 3 operations in 1 kernel
// MLP: scheduled by: kernel 'matmul_tc_t' (implements matmul)

// BLOCK: graph ffn_block: 7 operations in 3 kernels
// BLOCK-NEXT: kernel 0: anchor h = layer_norm(x, g, beta)
// BLOCK-NEXT: scheduled by: automatic schedule (rule: row reduction)
// BLOCK-NEXT: reads: x f16[M, 768], g f16[768], beta f16[768]
// BLOCK-NEXT: writes: h f16[M, 768]
// BLOCK-NEXT: kernel 1: anchor matmul(h, w1)
// BLOCK: epilogue: (matmul(h, w1) + b1)
// BLOCK-NEXT: epilogue: u = gelu((matmul(h, w1) + b1))
// BLOCK: kernel 2: anchor matmul(u, w2)
// BLOCK-NEXT: scheduled by: kernel 'matmul_tc_t' (implements matmul)
// BLOCK: epilogue: ((matmul(u, w2) + b2) + x)
// BLOCK-NEXT: reads: u f16[M, 3072], w2 f16[3072, 768], b2 f16[768], x f16[M, 768]

// CUSTOM: graph ffn_relu2: 2 operations in 1 kernel
// CUSTOM: epilogue: relu2(matmul(x, w))

// An anchor whose result index indexes no tensor directly (a roll, a
// keep-dim reduction) keeps its consumer out of its epilogue: fused, its
// result would be a let of the fused op, whose extents are inferred only
// from direct uses ("cannot infer the extent of index", at a line of the
// generated op, made every such graph fail to compile).
op roll_sum(X: f32[R, C]) -> f32[R, C] { out[i, j] = sum(k < 2) X[i, (j + k) % C]; }
graph rolled(x: f32[R, C]) -> f32[R, C] { return roll_sum(x) * 2.0; }
// CHECK-LABEL: graph rolled: 2 operations in 2 kernels
// CHECK: not fused: '(roll_sum(x) * 2.0)' is not fused into the epilogue of 'roll_sum(x)': the result index 'j' of op 'roll_sum' indexes no tensor directly, so a fused op could not infer its extent
// RUN: %tmc run %s --graph rolled --shape R=3,C=5 | FileCheck %s --check-prefix=ROLLED
// ROLLED: result:     PASS
